/*
 * record.c - `tracebench record SOURCE`: parses the source's command line
 * (options.c) and runs it.
 *
 * Every source writes the same trace format (schema/FORMAT.md) through
 * lib/tracefile, so replay never knows where a trace came from. The
 * sources take their options as structs and never parse a command line:
 * options.c depends on them, not they on it.
 */
#include "record.h"
#include "options.h"
#include "lib/cli.h"
#include "lib/tracefile.h"

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

static int synth_main(int argc, char **argv)
{
	struct record_synth_options o;
	char err[TRACEFILE_ERRLEN] = "";
	int rc;

	if ((rc = record_options_synth(&o, argc, argv)) != CLI_CONTINUE)
		return rc;
	if (cli_catch_stop_signals() < 0) {
		fprintf(stderr, "tracebench record synth: cannot handle signals\n");
		return CLI_EXIT_FAILED;
	}
	if ((rc = synth_write(&o.synth, o.output, o.force, err, sizeof(err))) != 0) {
		fprintf(stderr, "tracebench record synth: %s\n", err);
		return rc == SYNTH_ETOKENIZER ? CLI_EXIT_FAILED : rc < 0 ? CLI_EXIT_USAGE : rc;
	}
	fprintf(stderr, "tracebench record synth: wrote %ld requests to '%s'\n", o.synth.requests,
		o.output);
	return CLI_EXIT_OK;
}

static int import_main(int argc, char **argv)
{
	struct record_import_options o;
	int rc = record_options_import(&o, argc, argv);

	return rc != CLI_CONTINUE ? rc : import_run(&o);
}

static int proxy_main(int argc, char **argv)
{
	struct proxy_options o;
	int rc = record_options_proxy(&o, argc, argv);

	return rc != CLI_CONTINUE ? rc : proxy_run(&o);
}

static int info_main(int argc, char **argv)
{
	struct record_info_options o;
	int rc = record_options_info(&o, argc, argv);

	return rc != CLI_CONTINUE ? rc : info_run(&o);
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
