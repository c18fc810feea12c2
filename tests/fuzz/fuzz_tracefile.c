/*
 * fuzz_tracefile.c - libFuzzer target for the trace/results reader
 * (lib/tracefile.c) and the record parsers behind it (trace_request_from_json
 * in lib/trace.c, result_from_json in lib/result.c).
 *
 * Byte 0 picks how the rest reaches the reader: as the file's bytes (gzip
 * or not: zlib reads a plain file as it is, so JSON Lines get through), or
 * gzip-compressed first and then cut at a point chosen by byte 1, which
 * reaches the truncated-stream recovery. Byte 0 also picks the kind asked
 * for (trace, results, any). Every record read is parsed as the header's
 * kind says; the reader must end cleanly or with a message.
 */
#include "fuzz_util.h"
#include "lib/result.h"
#include "lib/trace.h"
#include "lib/tracefile.h"

#include <zlib.h>

static void write_gzip(const char *path, const uint8_t *data, size_t size, size_t cut)
{
	uLongf cap = compressBound((uLong)size) + 64;
	unsigned char *out = malloc(cap);
	z_stream z;

	memset(&z, 0, sizeof(z));
	if (!out || deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	z.next_in = (Bytef *)(uintptr_t)data;
	z.avail_in = (uInt)size;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		abort();
	if (cut && cut < z.total_out)
		z.total_out = cut;
	fuzz_write_file(path, out, z.total_out);
	deflateEnd(&z);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const kinds[] = { NULL, TRACEFILE_KIND_TRACE, TRACEFILE_KIND_RESULTS };
	char path[96], err[TRACEFILE_ERRLEN];
	struct tracefile_reader *r;
	const cJSON *format;
	cJSON *rec;
	int mode, is_trace, rc;
	size_t records = 0;

	if (size < 2)
		return 0;
	mode = data[0];
	fuzz_path("in", path, sizeof(path));
	if (mode & 1)
		write_gzip(path, data + 2, size - 2, (mode & 2) ? (size_t)data[1] * 4 + 1 : 0);
	else
		fuzz_write_file(path, data + 2, size - 2);

	err[0] = '\0';
	r = tracefile_reader_open(path, kinds[(mode >> 2) % 3], err, sizeof(err));
	if (!r) {
		if (!err[0] || !strstr(err, path))
			abort();        /* every refusal names the file */
		return 0;
	}
	format = cJSON_GetObjectItemCaseSensitive(tracefile_reader_header(r), "format");
	is_trace = strcmp(format->valuestring, TRACEFILE_KIND_TRACE) == 0;
	while ((rc = tracefile_reader_next(r, &rec)) != 0) {
		if (rc < 0) {
			if (!strstr(tracefile_reader_error(r), path))
				abort();
			continue;       /* analyze and replay stop here; read on to exercise more */
		}
		records++;
		if (is_trace) {
			struct trace_request t;
			cJSON *back;

			trace_request_init(&t);
			if (trace_request_from_json(&t, rec, err, sizeof(err)) == 0) {
				back = trace_request_to_json(&t);       /* and back */
				cJSON_Delete(back);
			}
			trace_request_release(&t);
		} else {
			struct result res;
			cJSON *back;

			result_init(&res);
			if (result_from_json(&res, rec, err, sizeof(err)) == 0) {
				back = result_to_json(&res);
				cJSON_Delete(back);
			}
			result_release(&res);
		}
		cJSON_Delete(rec);
	}
	(void)tracefile_reader_damage(r);
	(void)tracefile_reader_digest(r);
	(void)tracefile_reader_lineno(r);
	(void)records;
	tracefile_reader_close(r);
	return 0;
}
