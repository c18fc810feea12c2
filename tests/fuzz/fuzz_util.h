/*
 * fuzz_util.h - what the libFuzzer targets share: a scratch file that
 * readers which only take a path can open, and a way to silence the
 * messages a program's main path prints for every bad input.
 */
#ifndef TB_FUZZ_UTIL_H
#define TB_FUZZ_UTIL_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A private directory for this fuzzing process, removed at exit. */
static char fuzz_dir[64];

/* Removes the files the targets create (never through a shell). */
static inline void fuzz_dir_remove(void)
{
	static const char *const names[] = { "in", "out" };
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

#endif
