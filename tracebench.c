/*
 * tracebench.c - the one binary: `tracebench record|replay|analyze|mock`.
 *
 * Each program lives in its own folder and exports a single *_main; this
 * file only routes to it, git-style. Exit status everywhere (lib/cli.h):
 * 0 success, 1 the work failed, 2 usage or input error.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <curl/curl.h>

#include "analyze/analyze.h"
#include "lib/cli.h"
#include "mock/mock.h"
#include "record/record.h"
#include "replay/replay.h"

static const struct command {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "record",  record_main,  "make a trace: synthetic, imported or captured by a proxy" },
	{ "replay",  replay_main,  "re-issue a trace against an endpoint and measure every request" },
	{ "analyze", analyze_main, "load results into SQLite; report, export, plot" },
	{ "mock",    mock_main,    "run a deterministic OpenAI-compatible streaming server" },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out,
		"usage: tracebench <command> [options]\n"
		"\n"
		"Record, replay and analyze request timing of OpenAI-compatible LLM endpoints.\n"
		"\n"
		"commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(out,
		"\n"
		"options:\n"
		"  -h, --help     show this help\n"
		"  -V, --version  show the version\n"
		"\n"
		"Run 'tracebench <command> --help' for a command's options.\n"
		"\n"
		"example, a concurrency sweep against the built-in mock:\n"
		"  tracebench mock --listen 127.0.0.1:8000 &\n"
		"  tracebench record synth -n 32 --output-tokens 500 -o trace.jsonl.gz\n"
		"  tracebench replay --endpoint http://127.0.0.1:8000 -c 1,2,4,8 -o run.jsonl.gz trace.jsonl.gz\n"
		"  tracebench analyze load --db bench.db run.jsonl.gz\n"
		"  tracebench analyze report --db bench.db --format markdown\n");
}

/*
 * Every command's data goes to stdout: if it could not all be written (a
 * closed pipe: commands that ignore SIGPIPE get EPIPE; a full disk), the
 * work failed, whatever the command said. Returns rc, or 1 after saying so.
 */
static int finish_stdout(const char *command, int rc)
{
	int failed = fflush(stdout) != 0 || ferror(stdout);
	int saved = errno;

	if (fclose(stdout) != 0 && !failed) {
		failed = 1;
		saved = errno;
	}
	if (!failed)
		return rc;
	fprintf(stderr, "tracebench %s: cannot write to standard output: %s\n", command,
		strerror(saved ? saved : EIO));
	return rc ? rc : 1;
}

int main(int argc, char **argv)
{
	size_t i;

	/* Past a file size limit (ulimit -f) a write fails with EFBIG and is
	 * reported naming the file, instead of SIGXFSZ killing us silently. */
	signal(SIGXFSZ, SIG_IGN);
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("tracebench %s (%s)\n", TB_VERSION, curl_version());
		return CLI_EXIT_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return finish_stdout(argv[1], commands[i].main(argc - 1, argv + 1));
	fprintf(stderr, "tracebench: '%s' is not a command; see 'tracebench --help'\n", argv[1]);
	return CLI_EXIT_USAGE;
}
