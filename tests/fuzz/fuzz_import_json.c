/*
 * fuzz_import_json.c - libFuzzer target for the JSON importers,
 * `record import --format mooncake|sharegpt` (record/import_mooncake.c,
 * record/import_sharegpt.c), end to end: the input is written to a scratch
 * file (import reads a path) and the trace written to another. Byte 0
 * picks the format. Import must exit 0 (rows imported) or 2 (input
 * error), never crash or leak.
 */
#include "fuzz_util.h"
#include "record/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const formats[] = { "mooncake", "sharegpt" };
	char in[96], out[96];
	char *argv[9];
	int rc;

	if (size < 1)
		return 0;
	if (fuzz_has_big_number(data + 1, size - 1))
		return 0;
	fuzz_write_file(fuzz_path("in", in, sizeof(in)), data + 1, size - 1);
	fuzz_path("out", out, sizeof(out));
	argv[0] = (char *)"record";
	argv[1] = (char *)"import";
	argv[2] = (char *)"--format";
	argv[3] = (char *)formats[data[0] & 1];
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
