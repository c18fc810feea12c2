/*
 * fuzz_util.h - what the libFuzzer targets share: a scratch file that
 * readers which only take a path can open (plain or gzip), a way to
 * silence the messages a program's main path prints for every bad input,
 * and the check that a result read from another source is one the
 * results reader takes back.
 */
#ifndef TB_FUZZ_UTIL_H
#define TB_FUZZ_UTIL_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <cjson/cJSON.h>

#include "lib/result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A private directory for this fuzzing process, removed at exit. */
static char fuzz_dir[64];

/* Removes the files the targets create (never through a shell). */
static inline void fuzz_dir_remove(void)
{
	static const char *const names[] = { "in", "out", "base" };
	char path[96];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", fuzz_dir, names[i]);
		unlink(path);
	}
	rmdir(fuzz_dir);
}

/* Path of file 'name' in the private directory (created on first use). */
static inline const char *fuzz_path(const char *name, char *buf, size_t len)
{
	if (!fuzz_dir[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/tbfuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(fuzz_dir)) {
			perror("fuzz: mkdtemp");
			abort();
		}
		atexit(fuzz_dir_remove);
	}
	snprintf(buf, len, "%s/%s", fuzz_dir, name);
	return buf;
}

/* Replaces the file at path with the bytes given. */
static inline void fuzz_write_file(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || close(fd) < 0) {
		perror("fuzz: cannot write the scratch file");
		abort();
	}
}

/*
 * Points the stdio stream stderr at /dev/null (quiet = 1) or back
 * (quiet = 0), silencing a program's messages about bad input. File
 * descriptor 2 stays as it is, so a sanitizer's report still gets out.
 */
static inline void fuzz_quiet(int quiet)
{
	static FILE *null, *saved;

	if (quiet && !saved) {
		if (!null && !(null = fopen("/dev/null", "w")))
			return;
		saved = stderr;
		stderr = null;
	} else if (!quiet && saved) {
		fflush(null);
		stderr = saved;
		saved = NULL;
	}
}

/*
 * True when the input holds a number of 100000 or more (a run of 6 digits
 * not after a '.', or a digit with an exponent). The importers accept
 * lengths up to 10 M tokens, and writing the prompt of one such row takes
 * ~11 s under ASan: libFuzzer would report it as a hang, and a few of them
 * would stop the fuzzing. Such inputs are left out; the length limits are
 * unit-tested instead.
 */
static inline int fuzz_has_big_number(const uint8_t *data, size_t size)
{
	size_t i, run = 0;
	int fraction = 0;

	for (i = 0; i < size; i++) {
		if (data[i] < '0' || data[i] > '9') {
			run = 0;
			continue;
		}
		if (run++ == 0)
			fraction = i > 0 && data[i - 1] == '.';
		if (run >= 6 && !fraction)
			return 1;
		if (i + 1 < size && (data[i + 1] == 'e' || data[i + 1] == 'E'))
			return 1;
	}
	return 0;
}

/*
 * Writes data to path gzip-compressed (windowBits 15 + 16: a gzip header
 * and trailer, as gzip(1) writes them); cut: only the first half of the
 * compressed bytes, a file whose writer died.
 */
static inline void fuzz_write_gzip(const char *path, const uint8_t *data, size_t size, int cut)
{
	uLong cap = compressBound((uLong)size) + 64;
	unsigned char *z = malloc(cap);
	z_stream s;

	if (!z)
		abort();
	memset(&s, 0, sizeof(s));
	if (deflateInit2(&s, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	s.next_in = (Bytef *)data;
	s.avail_in = (uInt)size;
	s.next_out = z;
	s.avail_out = (uInt)cap;
	if (deflate(&s, Z_FINISH) != Z_STREAM_END)
		abort();
	fuzz_write_file(path, z, cut ? s.total_out / 2 : s.total_out);
	deflateEnd(&s);
	free(z);
}

/*
 * Writes a target's input to path as byte 0 says: 1 gzip, 2 gzip cut in
 * half (a writer that died), anything else the bytes as they are; the
 * rest of the input is the content.
 */
static inline void fuzz_write_input(const char *path, const uint8_t *data, size_t size)
{
	if (size < 1)
		return;
	switch (data[0] % 4) {
	case 1:
		fuzz_write_gzip(path, data + 1, size - 1, 0);
		break;
	case 2:
		fuzz_write_gzip(path, data + 1, size - 1, 1);
		break;
	default:
		fuzz_write_file(path, data + 1, size - 1);
	}
}

/*
 * Aborts unless r, written as a results file holds it (result_to_json,
 * printed and parsed again), reads back (result_from_json) with the same
 * times, counts and gaps: what analyze load stores from another source
 * must be what tracebench's own results reader accepts. Returns quietly
 * when memory runs out.
 */
static inline void fuzz_result_reads_back(const struct result *r)
{
	struct result back;
	char err[256], *text;
	cJSON *j = result_to_json(r);

	if (!j)
		return;
	text = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	if (!text || !(j = cJSON_Parse(text))) {
		free(text);
		return;
	}
	free(text);
	result_init(&back);
	if (result_from_json(&back, j, err, sizeof(err)) != 0) {
		fprintf(stderr, "fuzz: the results reader refuses a result: %s\n", err);
		abort();
	}
	if (back.n_itl != r->n_itl || back.e2e_ns != r->e2e_ns || back.ttft_ns != r->ttft_ns ||
	    back.sched_ns != r->sched_ns || back.input_tokens != r->input_tokens ||
	    back.output_tokens != r->output_tokens || back.status != r->status) {
		fprintf(stderr, "fuzz: a result does not read back as written\n");
		abort();
	}
	result_release(&back);
	cJSON_Delete(j);
}

#endif
