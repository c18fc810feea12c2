/*
 * test_cli.c - the command lines: lib/cli's getopt loop and the messages
 * naming a bad option, then the options modules of replay, the mock and
 * analyze (record's are in test_import.c) on real argv: defaults, conversions, the checks between
 * flags, and the status each returns (CLI_CONTINUE, 0 after --help, 2
 * with one line on stderr).
 */
#include "harness.h"
#include "analyze/options.h"
#include "lib/cli.h"
#include "lib/clock.h"
#include "mock/options.h"
#include "replay/options.h"

#include <stdlib.h>
#include <unistd.h>

#define MAX_ARGS 16

/* A writable argv of the NULL-terminated list (getopt may permute it). */
struct args {
	char *v[MAX_ARGS + 1];
	int n;
};

static void args_set(struct args *a, const char **list)
{
	a->n = 0;
	while (a->n < MAX_ARGS && list[a->n]) {
		a->v[a->n] = (char *)list[a->n];
		a->n++;
	}
	a->v[a->n] = NULL;
}

/* ---- cli_parse on a small command ---------------------------------- */

struct toy {
	long count;
	int force;
	const char *label;
};

static int toy_take(void *opts, int c, char *arg, char *msg, size_t len)
{
	struct toy *t = opts;

	switch (c) {
	case 'n': return cli_parse_long(arg, 1, 100, &t->count);
	case 'f': t->force = 1; return 0;
	case 256: t->label = arg; return 0;
	case 257:
		snprintf(msg, len, "'%s' is not allowed here", arg);
		return -1;
	default: return -1;
	}
}

static const struct option toy_longopts[] = {
	{ "count", required_argument, NULL, 'n' },
	{ "force", no_argument, NULL, 'f' },
	{ "label", required_argument, NULL, 256 },
	{ "custom", required_argument, NULL, 257 },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct cli_command toy = { "tb toy", ":n:fh", toy_longopts, toy_take };

/* Runs cli_parse on list; msg gets its message. */
static int toy_parse(struct toy *t, char *msg, const char **list)
{
	struct args a;

	memset(t, 0, sizeof(*t));
	args_set(&a, list);
	return cli_parse(&toy, t, a.n, a.v, msg, CLI_MSGLEN);
}

TEST(cli_parse_reads_options_and_stops_at_operands)
{
	char msg[CLI_MSGLEN];
	struct toy t;

	CHECK_EQ_INT(toy_parse(&t, msg, (const char *[]){ "toy", "-n", "7", "--label=x", "-f",
							   "FILE", NULL }), CLI_CONTINUE);
	CHECK_EQ_INT(t.count, 7);
	CHECK_STR(t.label, "x");
	CHECK_EQ_INT(t.force, 1);
	CHECK_EQ_INT(optind, 5);
	CHECK_EQ_INT(toy_parse(&t, msg, (const char *[]){ "toy", "-fn3", NULL }), CLI_CONTINUE);
	CHECK_EQ_INT(t.count, 3);
	CHECK_EQ_INT(toy_parse(&t, msg, (const char *[]){ "toy", "-n", "2", "--help", NULL }),
		     CLI_EXIT_OK);
}

TEST(cli_parse_names_the_option_of_every_refusal)
{
	static const struct {
		const char *args[4];
		const char *msg;
	} cases[] = {
		{ { "toy", "--bogus", NULL }, "unknown option '--bogus'; see 'tb toy --help'" },
		{ { "toy", "--bogus=1", NULL }, "unknown option '--bogus'; see 'tb toy --help'" },
		{ { "toy", "-z", NULL }, "unknown option '-z'; see 'tb toy --help'" },
		{ { "toy", "-fz", NULL }, "unknown option '-z'; see 'tb toy --help'" },
		{ { "toy", "--label=a", "-zf", NULL }, "unknown option '-z'; see 'tb toy --help'" },
		{ { "toy", "--count", NULL }, "option '--count' needs a value; see 'tb toy --help'" },
		{ { "toy", "-fn", NULL }, "option '-n' needs a value; see 'tb toy --help'" },
		{ { "toy", "--force=yes", NULL }, "option '--force' takes no value; see 'tb toy --help'" },
		{ { "toy", "--forc=yes", NULL }, "option '--forc' takes no value; see 'tb toy --help'" },
		{ { "toy", "-n", "10k", NULL }, "invalid value '10k' for --count" },
		{ { "toy", "--count=0", NULL }, "invalid value '0' for --count" },
		{ { "toy", "--custom", "v", NULL }, "'v' is not allowed here" },
	};
	char msg[CLI_MSGLEN];
	struct toy t;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_EQ_INT(toy_parse(&t, msg, (const char **)cases[i].args), CLI_EXIT_USAGE);
		CHECK_STR(msg, cases[i].msg);
	}
	CHECK_STR(cli_option_name(toy_longopts, 256), "label");
	CHECK(cli_option_name(toy_longopts, 'x') == NULL);
}

/* ---- the programs' options modules ------------------------------------ */

/* Each command's option parser, in the shape harness_run_parse calls. */
static int parse_replay(void *o, int argc, char **argv)
{
	return replay_options_parse(o, argc, argv);
}

static int parse_mock(void *o, int argc, char **argv)
{
	return mock_options_parse(o, argc, argv);
}

static int parse_compare(void *o, int argc, char **argv)
{
	return analyze_options_parse("compare", o, argc, argv);
}

static int parse_export(void *o, int argc, char **argv)
{
	return analyze_options_parse("export", o, argc, argv);
}

static int parse_report(void *o, int argc, char **argv)
{
	return analyze_options_parse("report", o, argc, argv);
}

/* True when err is exactly one line holding want. */
static int one_line_with(const char *err, const char *want)
{
	const char *nl = err ? strchr(err, '\n') : NULL;

	return nl && nl[1] == '\0' && strstr(err, want) != NULL;
}

TEST(replay_options_defaults_and_normalizing)
{
	struct replay_options o;
	char *err;

	CHECK_EQ_INT(harness_run_parse(parse_replay, &o, (const char *[]){ "replay", "-e",
		     "http://h:1///", "-o", "r.jsonl.gz", "-c", "1,4", "-H", "X-A: b", "t.jsonl.gz",
		     NULL }, &err), CLI_CONTINUE);
	CHECK_STR(err, "");
	free(err);
	CHECK_STR(o.endpoint, "http://h:1");
	CHECK_STR(o.trace_path, "t.jsonl.gz");
	CHECK_EQ_INT(o.n_levels, 2);
	CHECK_EQ_INT(o.levels[1], 4);
	CHECK_EQ_INT(o.warmup, 1);
	CHECK_EQ_INT(o.timeout_s, 600);
	CHECK_EQ_INT(o.open_loop, 0);
	CHECK_EQ_INT(o.n_headers, 1);
	CHECK_EQ_INT(replay_header_name_len(o.headers[0]), 3);
	CHECK(strncmp(o.label, "run-", 4) == 0);
	CHECK_EQ_INT(harness_run_parse(parse_replay, &o, (const char *[]){ "replay", "-e", "http://h",
		     "-o", "r", "--rate", "2.5", "--duration", "1.5", "--shard", "1/3", "t", NULL },
		     &err), CLI_CONTINUE);
	free(err);
	CHECK_EQ_INT(o.open_loop, 1);
	CHECK_NEAR(o.sched.rate, 2.5, 1e-12);
	CHECK_EQ_INT(o.sched.duration_ns, 3 * NS_PER_S / 2);
	CHECK_EQ_INT(o.shard_k, 1);
	CHECK_EQ_INT(o.shard_n, 3);
}

/* Salted by default with a seed replay draws; --salt-seed and --no-salt. */
TEST(replay_options_salts)
{
	struct replay_options o;
	char *err;

	CHECK_EQ_INT(harness_run_parse(parse_replay, &o, (const char *[]){ "replay", "-e", "http://h",
		     "-o", "r", "t", NULL }, &err), CLI_CONTINUE);
	free(err);
	CHECK_EQ_INT(o.no_salt, 0);
	CHECK_EQ_INT(o.salt_seed_given, 0);
	CHECK_EQ_INT(harness_run_parse(parse_replay, &o, (const char *[]){ "replay", "-e", "http://h",
		     "-o", "r", "--salt-seed", "42", "--no-salt", "t", NULL }, &err), CLI_CONTINUE);
	free(err);
	CHECK_EQ_INT(o.salt_seed_given, 1);
	CHECK_EQ_INT(o.salt_seed, 42);
	CHECK_EQ_INT(o.no_salt, 1);
	CHECK_EQ_INT(harness_run_parse(parse_replay, &o, (const char *[]){ "replay", "-e", "http://h",
		     "-o", "r", "--salt-seed", "-1", "t", NULL }, &err), CLI_EXIT_USAGE);
	CHECK(one_line_with(err, "invalid value '-1' for --salt-seed"));
	free(err);
}

TEST(replay_options_of_an_ab_run)
{
	struct replay_options o;
	char *err;

	CHECK_EQ_INT(harness_run_parse(parse_replay, &o, (const char *[]){ "replay", "-e", "http://a/",
		     "-e", "http://b//", "-o", "a.jsonl.gz", "-o", "b.jsonl.gz", "t", NULL }, &err),
		     CLI_CONTINUE);
	free(err);
	CHECK_STR(o.endpoint, "http://a");
	CHECK_STR(o.endpoint_b, "http://b");
	CHECK_STR(o.output_b, "b.jsonl.gz");
	CHECK(strncmp(o.label_a, "run-", 4) == 0 && strcmp(o.label_a + strlen(o.label_a) - 2, "-a") == 0);
	CHECK(strcmp(o.label_b + strlen(o.label_b) - 2, "-b") == 0);
	CHECK_EQ_INT(harness_run_parse(parse_replay, &o, (const char *[]){ "replay", "-e", "http://a",
		     "-e", "http://b", "-e", "http://c", NULL }, &err), CLI_EXIT_USAGE);
	CHECK(one_line_with(err, "more than two --endpoint"));
	free(err);
	CHECK_EQ_INT(harness_run_parse(parse_replay, &o, (const char *[]){ "replay", "-e", "http://a",
		     "-e", "http://b", "-o", "x", "-o", "x", "t", NULL }, &err), CLI_EXIT_USAGE);
	CHECK(one_line_with(err, "must differ"));
	free(err);
}

TEST(replay_options_refusals_are_one_line_exit_2)
{
	static const struct {
		const char *args[12];
		const char *says;
	} cases[] = {
		{ { "replay", "-e", "http://h", "-o", "r", "--shard", "3/3", "t", NULL },
		  "invalid value '3/3' for --shard" },
		{ { "replay", "-e", "http://h", "-o", "r", "-H", "no-colon", "t", NULL },
		  "invalid value 'no-colon' for --header" },
		{ { "replay", "-e", "http://h", "-o", "r", "--timing", "wall", "t", NULL },
		  "invalid value 'wall' for --timing" },
		{ { "replay", "-e", "http://h", "-o", "r", "--rate", "1", "-c", "2", "t", NULL },
		  "closed-loop options" },
		{ { "replay", "-e", "http://h", "-o", "r", "--rate", "1", "--timing", "trace", "t", NULL },
		  "either --rate or --timing trace" },
		{ { "replay", "-e", "ftp://h", "-o", "r", "t", NULL }, "http:// or https://" },
		{ { "replay", "-e", "http://h", "t", NULL }, "no results file" },
		{ { "replay", "-e", "http://h", "-o", "r", NULL }, "no trace file given" },
		{ { "replay", "-e", "http://h", "-o", "r", "a", "b", NULL }, "more than one trace" },
	};
	struct replay_options o;
	size_t i;
	char *err;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_EQ_INT(harness_run_parse(parse_replay, &o, (const char **)cases[i].args, &err),
			     CLI_EXIT_USAGE);
		CHECK(one_line_with(err, cases[i].says));
		free(err);
	}
}

TEST(mock_options_convert_units_through_lib_cli)
{
	struct mock_options o;
	char *err;

	CHECK_EQ_INT(harness_run_parse(parse_mock, &o, (const char *[]){ "mock", "--ttft-ms", "2.5",
		     "--trickle-us", "7", "--profile", "batching", "-l", "[::1]:0", NULL }, &err),
		     CLI_CONTINUE);
	free(err);
	CHECK_EQ_INT(o.ttft_ns, 2500000);
	CHECK_EQ_INT(o.itl_ns, 10 * NS_PER_MS);
	CHECK_EQ_INT(o.trickle_ns, 7000);
	CHECK_EQ_INT(o.profile, MOCK_PROFILE_BATCHING);
	CHECK_STR(o.host, "::1");
	CHECK_EQ_INT(o.port, 0);
	CHECK_EQ_INT(o.reset_after, -1);
	CHECK_EQ_INT(harness_run_parse(parse_mock, &o, (const char *[]){ "mock", "--fail-status", "200",
		     NULL }, &err), CLI_EXIT_USAGE);
	CHECK(one_line_with(err, "tracebench mock: invalid value '200' for --fail-status\n"));
	free(err);
	CHECK_EQ_INT(harness_run_parse(parse_mock, &o, (const char *[]){ "mock", "--ttft-ms", "-1",
		     NULL }, &err), CLI_EXIT_USAGE);
	CHECK(one_line_with(err, "for --ttft-ms"));
	free(err);
}

TEST(analyze_options_operands_and_defaults)
{
	struct analyze_options o;
	char *err;

	CHECK_EQ_INT(harness_run_parse(parse_compare, &o, (const char *[]){ "compare", "--db", "x.db",
		     "-F", "5", "before", "after", NULL }, &err), CLI_CONTINUE);
	free(err);
	CHECK_EQ_INT(o.n_args, 2);
	CHECK_STR(o.args[1], "after");
	CHECK_NEAR(o.fail_pct, 5, 0);
	CHECK_EQ_INT(o.fmt, TABLE_TEXT);
	CHECK_EQ_INT(harness_run_parse(parse_compare, &o, (const char *[]){ "compare", "--db", "x.db",
		     "before", NULL }, &err), CLI_EXIT_USAGE);
	CHECK(one_line_with(err, "give two runs: BEFORE AFTER"));
	free(err);
}

/* export: csv by default, or JSON Lines, with the gaps on request; report
 * and runs take neither. */
TEST(analyze_export_formats_and_gaps)
{
	struct analyze_options o;
	char *err;

	CHECK_EQ_INT(harness_run_parse(parse_export, &o, (const char *[]){ "export", "--db", "x.db",
		     NULL }, &err), CLI_CONTINUE);
	free(err);
	CHECK_EQ_INT(o.fmt, TABLE_CSV);
	CHECK_EQ_INT(o.jsonl, 0);
	CHECK_EQ_INT(o.gaps, 0);
	CHECK_EQ_INT(harness_run_parse(parse_export, &o, (const char *[]){ "export", "--db", "x.db",
		     "--format", "jsonl", "--gaps", NULL }, &err), CLI_CONTINUE);
	free(err);
	CHECK_EQ_INT(o.jsonl, 1);
	CHECK_EQ_INT(o.gaps, 1);
	CHECK_EQ_INT(harness_run_parse(parse_export, &o, (const char *[]){ "export", "--db", "x.db",
		     "--format", "json", NULL }, &err), CLI_EXIT_USAGE);
	CHECK(one_line_with(err, "export writes csv or jsonl"));
	free(err);
	CHECK_EQ_INT(harness_run_parse(parse_report, &o, (const char *[]){ "report", "--db", "x.db",
		     "--gaps", NULL }, &err), CLI_EXIT_USAGE);
	CHECK(one_line_with(err, "--gaps is an option of export"));
	free(err);
	CHECK_EQ_INT(harness_run_parse(parse_report, &o, (const char *[]){ "report", "--db", "x.db",
		     "-f", "jsonl", NULL }, &err), CLI_EXIT_USAGE);
	CHECK(one_line_with(err, "report writes text, markdown, csv, json, latex or html"));
	free(err);
}

int main(void)
{
	RUN(cli_parse_reads_options_and_stops_at_operands);
	RUN(cli_parse_names_the_option_of_every_refusal);
	RUN(replay_options_defaults_and_normalizing);
	RUN(replay_options_salts);
	RUN(replay_options_of_an_ab_run);
	RUN(replay_options_refusals_are_one_line_exit_2);
	RUN(mock_options_convert_units_through_lib_cli);
	RUN(analyze_options_operands_and_defaults);
	RUN(analyze_export_formats_and_gaps);
	return harness_done();
}
