/*
 * fuzz_import_csv.c - libFuzzer target for the CSV importers: record/csv.c
 * on its own, and `record import --format azure|burstgpt` (record/import_csv.c)
 * end to end, the input written to a scratch file as import reads a path.
 *
 * Byte 0 picks the mode:
 *   0  csv_read_line and csv_split against a simple model: lines come out
 *      in order, without "\n" or "\r\n", exactly when they fit the cap (byte
 *      1 sets a small one); split fields point into the line, and a line
 *      without quotes splits into its commas + 1 fields
 *   1  import --format azure     2  import --format burstgpt
 */
#include "fuzz_util.h"
#include "record/csv.h"
#include "record/record.h"

static void check_lines(const uint8_t *data, size_t size, size_t cap)
{
	char *buf = malloc(cap), *fields[CSV_MAX_FIELDS];
	FILE *f = fmemopen((void *)(uintptr_t)data, size, "rb");
	size_t pos = 0, len;
	int got;

	if (!buf || (size && !f))
		abort();
	if (!f) {
		free(buf);
		return;
	}
	while ((got = csv_read_line(f, buf, cap, &len)) != 0) {
		const uint8_t *nl = memchr(data + pos, '\n', size - pos);
		size_t want = nl ? (size_t)(nl - data) - pos : size - pos;
		size_t strip = want > 0 && data[pos + want - 1] == '\r';
		int n, i, commas = 0;

		if (pos >= size || got == -2)
			abort();        /* a line past the end, or a read error from memory */
		if (want + 1 > cap) {
			if (got != -1 || len != 0)
				abort();
		} else if (got != 1 || len != want - strip || memcmp(buf, data + pos, len) != 0) {
			fprintf(stderr, "line at %zu: want %zu bytes, got rc %d len %zu\n",
				pos, want - strip, got, len);
			abort();
		}
		pos += want + (nl != NULL);
		if (got != 1 || memchr(buf, '\0', len))
			continue;
		for (i = 0; i < (int)len; i++)
			commas += buf[i] == ',';
		n = csv_split(buf, fields, CSV_MAX_FIELDS);
		if (!memchr(data + pos - want - (nl != NULL), '"', len) &&
		    n != (commas + 1 <= CSV_MAX_FIELDS ? commas + 1 : -2))
			abort();
		for (i = 0; i < n; i++)
			if (fields[i] < buf || fields[i] > buf + len ||
			    fields[i] + strlen(fields[i]) > buf + len)
				abort();
	}
	if (pos < size)
		abort();                /* a line was lost */
	fclose(f);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const formats[] = { "azure", "burstgpt" };
	char in[96], out[96];
	char *argv[9];
	int mode, rc;

	if (size < 2)
		return 0;
	mode = data[0] % 3;
	if (mode == 0) {
		check_lines(data + 2, size - 2, (size_t)data[1] % 64 + 2);
		return 0;
	}
	if (fuzz_has_big_number(data + 1, size - 1))
		return 0;
	fuzz_write_file(fuzz_path("in", in, sizeof(in)), data + 1, size - 1);
	fuzz_path("out", out, sizeof(out));
	argv[0] = (char *)"record";
	argv[1] = (char *)"import";
	argv[2] = (char *)"--format";
	argv[3] = (char *)formats[mode - 1];
	argv[4] = (char *)"--force";
	argv[5] = (char *)"-o";
	argv[6] = out;
	argv[7] = in;
	argv[8] = NULL;
	fuzz_quiet(1);
	rc = record_main(8, argv);
	fuzz_quiet(0);
	if (rc != 0 && rc != 2)
		abort();
	return 0;
}
