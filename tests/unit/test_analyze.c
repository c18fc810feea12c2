/*
 * test_analyze.c - analyze.c: `tracebench analyze` as a user runs it,
 * through analyze_main: help, exit codes and one-line messages of load,
 * report, export, compare, runs and rm.
 */
#define _XOPEN_SOURCE 700   /* nftw */  /* NOLINT(bugprone-reserved-identifier): POSIX's own name */
#include "harness.h"
#include "analyze_fixture.h"

TEST(cli_exit_codes_and_messages)
{
	char file[512], dbp[512];
	char *out = NULL;

	snprintf(file, sizeof(file), "%s", path_of("cli.jsonl.gz"));
	snprintf(dbp, sizeof(dbp), "%s", path_of("cli.db"));

	write_results(file, "0c11", "cli", NULL);
	unlink(dbp);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "--help", NULL }), 0);
	CHECK(strncmp(out, "usage: tracebench analyze", 25) == 0);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "plot", "--help", NULL }), 0);
	CHECK(strstr(out, "  -o, --out DIR") != NULL);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", NULL }), 2);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "report", "--bogus", NULL }), 2);
	CHECK_STR(out, "tracebench analyze report: unknown option '--bogus'; "
		  "see 'tracebench analyze report --help'\n");
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "load", "--db", dbp, file, NULL }), 0);
	CHECK(strstr(out, "': run 'cli', 10 requests\n") != NULL);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "load", "--db", dbp, file, NULL }), 0);
	CHECK(strstr(out, "already loaded") != NULL);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "load", "--db", dbp,
						      path_of("none.jsonl.gz"), NULL }), 2);
	CHECK(strstr(out, "none.jsonl.gz") != NULL);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "report", "--db", dbp,
						      "--run", "ghost", NULL }), 2);
	CHECK(strstr(out, "'ghost'") != NULL);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "report", "--db", dbp,
						      "--format", "yaml", NULL }), 2);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "export", "--db",
						      path_of("nodb.db"), NULL }), 2);
	CHECK(strstr(out, "nodb.db") != NULL);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "report", "--db", dbp,
						      "--format", "csv", NULL }), 0);
	CHECK(strncmp(out, "run,concurrency,", 16) == 0);
	free(out);
}

/* Counts the non-overlapping occurrences of needle in s. */
static int count_of(const char *s, const char *needle)
{
	int n = 0;

	for (; s && (s = strstr(s, needle)) != NULL; s += strlen(needle))
		n++;
	return n;
}

TEST(compare_warns_and_fails_on_regression_from_the_cli)
{
	const char *a = path_of("cli-a.jsonl.gz"), *b = path_of("cli-b.jsonl.gz");
	const char *dbp = path_of("cmp.db");
	char *out = NULL;
	struct db *db = fresh_db("cmp.db");

	write_generated(a, "cmp-a", "main", 5, 0, 60, "crc32:000000aa");
	write_generated(b, "cmp-b", "pr", 6, 10, 60, "crc32:000000bb");
	CHECK_EQ_INT(load(db, a, NULL, NULL), DB_OK);
	CHECK_EQ_INT(load(db, b, NULL, NULL), DB_OK);
	db_close(db);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "compare", "--db", dbp,
						      "--format", "markdown", "main", "pr", NULL }), 0);
	CHECK(strstr(out, "warning: the runs replayed different traces "
		      "(digest crc32:000000aa vs crc32:000000bb)") != NULL);
	CHECK_EQ_INT(count_of(out, "different traces"), 1);   /* once, not on stderr too */
	CHECK(strstr(out, "| 1 | TTFT | P50 |") != NULL);
	/* one run a side, no history: the change is held back, and said */
	CHECK(strstr(out, "| inconclusive (noise not measured) |") != NULL);
	CHECK(strstr(out, "| slower |") == NULL);
	CHECK(strstr(out, "Run-to-run noise was not measured: a change is 'inconclusive'") != NULL);
	CHECK(strstr(out, "Verdicts against --min-effect 3% (the default where it is not), ") != NULL);
	CHECK(strstr(out, "| n/a (60 < 200 requests a side) |") != NULL);
	free(out);
	/* ... and fails no gate */
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "compare", "--db", dbp,
						      "--fail-on-regression", "5", "main", "pr",
						      NULL }), 0);
	free(out);
	/* TTFT got ~10% worse against a noise of 2%: a 5% limit fails, naming
	 * what; a 50% limit passes. */
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "compare", "--db", dbp,
						      "--noise", "2", "--fail-on-regression", "5",
						      "main", "pr", NULL }), 1);
	CHECK(strstr(out, "regression: TTFT P50 at C=1 +") != NULL);
	CHECK(strstr(out, "] > 5%\n") != NULL);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "compare", "--db", dbp,
						      "--noise", "2", "--fail-on-regression", "50",
						      "main", "pr", NULL }), 0);
	CHECK(strstr(out, "regression") == NULL);
	free(out);
	/* a min effect above the change: nothing is slower, the gate passes */
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "compare", "--db", dbp,
						      "--min-effect", "40", "--fail-on-regression",
						      "5", "main", "pr", NULL }), 0);
	CHECK(strstr(out, "slower\n") == NULL);
	CHECK(strstr(out, "Verdicts against --min-effect 40%, ") != NULL);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "compare", "--db", dbp,
						      "--format", "json", "--noise", "2", "pr", "main",
						      NULL }), 0);
	CHECK(strstr(out, "\"metric\": \"TTFT\", \"stat\": \"P50\"") != NULL);
	CHECK(strstr(out, "\"verdict\": \"faster\"") != NULL);
	CHECK(strstr(out, "\"min_effect_pct\": null") != NULL);   /* each level's default */
	CHECK(strstr(out, "\"min_effect_pct\": 1.000") != NULL);  /* ... in "levels" */
	CHECK(strstr(out, "\"noise\": \"given\"") != NULL);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "compare", "--db", dbp,
						      "--format", "csv", "main", "pr", NULL }), 0);
	CHECK(strstr(out, "\nbefore,after,concurrency,metric,stat,unit,n_before,n_after,"
		      "repeats_before,repeats_after,paired,before_value,after_value,change_pct,"
		      "ci_lo,ci_hi,verdict,tokens_estimated,noise,held,requests_needed,noise_sd_pct,"
		      "noise_df,client_limited,client_bound_ms\n") != NULL);
	CHECK(strstr(out, "\nmain,pr,1,TTFT,P50,ms,60,60,1,1,") != NULL);
	CHECK(strstr(out, ",inconclusive,0,none,1,5,,,0,\n") != NULL);
	CHECK(strstr(out, ",TTFT,P99,") != NULL && strstr(out, ",n/a,0,none,0,200,,,0,\n") != NULL);
	CHECK(strstr(out, "\nmain,pr,1,Agg tok/s,,tok/s,60,60,") != NULL);
	/* CSV carries no warning: it went to stderr, once */
	CHECK_EQ_INT(count_of(out, "different traces"), 1);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "compare", "--db", dbp,
						      "main", NULL }), 2);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "compare", "--db", dbp,
						      "main", "nosuch", NULL }), 2);
	CHECK(strstr(out, "'nosuch'") != NULL);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "compare", "--db", dbp,
						      "--fail-on-regression", "x", "main", "pr",
						      NULL }), 2);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "compare", "--db", dbp,
						      "--min-effect", "-1", "main", "pr", NULL }), 2);
	CHECK(strstr(out, "bad --min-effect '-1'") != NULL);
	free(out);
	/* runs lists both; rm removes one, and an unknown one is exit 2. */
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "runs", "--db", dbp,
						      "--format", "csv", NULL }), 0);
	CHECK(strstr(out, "label,created,endpoint,model,served,trace,mode,levels,requests,errors,tags\n")
	      != NULL);
	CHECK(strstr(out, "\npr,2026-11-30T12:00:00Z,http://127.0.0.1:8000,,,crc32:000000bb,"
		      "closed,1,60,0,\n") != NULL);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "runs", "--db", dbp,
						      "--format", "json", NULL }), 0);
	CHECK(strstr(out, "{\"label\": \"pr\", \"created\": \"2026-11-30T12:00:00Z\", "
		      "\"endpoint\": \"http://127.0.0.1:8000\", \"model\": null, \"served\": null, \"trace\": "
		      "\"crc32:000000bb\", \"mode\": \"closed\", \"levels\": \"1\", "
		      "\"requests\": 60, \"errors\": 0, \"tags\": null}") != NULL);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "rm", "--db", dbp, "pr", NULL }),
		     0);
	free(out);
	CHECK_EQ_INT(count_rows(dbp, "runs"), 1);
	CHECK_EQ_INT(count_rows(dbp, "requests"), 60);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "rm", "--db", dbp, "pr", NULL }),
		     2);
	CHECK(strstr(out, "no run labelled 'pr'") != NULL);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "rm", "--db",
						      path_of("absent.db"), "pr", NULL }), 2);
	CHECK(!file_exists(path_of("absent.db")));
	free(out);
}

int main(void)
{
	if (fixture_setup() != 0)
		return 1;
	RUN(cli_exit_codes_and_messages);
	RUN(compare_warns_and_fails_on_regression_from_the_cli);
	return fixture_done();
}
