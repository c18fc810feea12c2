/*
 * record.c - `tracebench record SOURCE`: routes to the trace source.
 *
 * Every source writes the same trace format (schema/FORMAT.md) through
 * lib/tracefile, so replay never knows where a trace came from.
 */
#include "record.h"
#include "import.h"
#include "info.h"
#include "proxy.h"
#include "synth.h"
#include "lib/cli.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: tracebench record <source> [options] -o TRACE\n"
		"\n"
		"sources:\n"
		"  synth     generate requests with chosen lengths and arrivals (no endpoint needed)\n"
		"  import    turn a published trace (Mooncake, Azure, BurstGPT, ShareGPT) into a trace\n"
		"  proxy     sit in front of a real endpoint and record the traffic passing through\n"
		"\n"
		"and, to know a trace before replaying it:\n"
		"  info      count, time span, rate, length percentiles, models, prefix sharing\n"
		"\n"
		"Run 'tracebench record <source> --help' for its options.\n"
		"\n"
		"examples:\n"
		"  tracebench record synth -n 64 --input-tokens 512 --output-tokens 500 -o trace.jsonl.gz\n"
		"  tracebench record import --format mooncake mooncake_trace.jsonl -o mooncake.jsonl.gz\n"
		"  tracebench record proxy --listen 127.0.0.1:8080 --upstream http://127.0.0.1:8000 -o prod.jsonl.gz\n"
		"  tracebench record info mooncake.jsonl.gz\n");
}

int record_main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(argv[1], "synth") == 0)
		return synth_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "import") == 0)
		return import_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "proxy") == 0)
		return proxy_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "info") == 0)
		return info_main(argc - 1, argv + 1);
	fprintf(stderr, "tracebench record: '%s' is not a trace source; see 'tracebench record --help'\n",
		argv[1]);
	return CLI_EXIT_USAGE;
}
