/*
 * test_analyze_report.c - report.c: the sweep table of a real database in
 * text, Markdown and JSON with the sample run's hand-computed numbers,
 * shards merged under one label, and the per-request CSV export.
 */
#define _XOPEN_SOURCE 700   /* nftw */  /* NOLINT(bugprone-reserved-identifier): POSIX's own name */
#include "harness.h"
#include "analyze_fixture.h"

TEST(levels_summarize_like_numpy)
{
	const char *file = path_of("r2.jsonl.gz");
	struct db *db = fresh_db("numbers.db");
	struct level_summary s;
	struct result *r = NULL;
	char err[DB_ERRLEN];
	int *levels = NULL;
	size_t n = 0, nl = 0;

	write_results(file, "00bb", "baseline", NULL);
	CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);
	CHECK_EQ_INT(db_levels(db, "baseline", &levels, &nl, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(nl, 2);
	if (nl == 2) {
		CHECK_EQ_INT(levels[0], 1);
		CHECK_EQ_INT(levels[1], 2);
	}
	free(levels);

	CHECK_EQ_INT(db_results(db, "baseline", 1, &r, &n, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(n, 6);
	if (r && n == 6) {
		CHECK(r[0].warmup);
		CHECK_EQ_INT(r[0].ttft_ns, 1012300000LL);
		CHECK_EQ_INT(r[1].input_tokens, 512);
		CHECK_EQ_INT(r[1].n_itl, 2);
		CHECK_EQ_INT(r[1].itl_ns[1], 12 * MS);
		summary_compute(r, n, load_closed(1), NULL, &s);
		CHECK_EQ_INT(s.requests, 5);
		CHECK_EQ_INT(s.warmup, 1);
		CHECK_NEAR(s.ttft.mean, 400.0, 1e-9);
		CHECK_NEAR(s.ttft.p50, 300.0, 1e-9);
		CHECK_NEAR(s.ttft.p95, 880.0, 1e-9);
		CHECK_NEAR(s.ttft.p99, 976.0, 1e-9);
		CHECK_NEAR(s.agg_tps, 250.0 / 9.5, 1e-9);
		CHECK_NEAR(s.per_req_tps, 100.0, 1e-9);
	}
	db_results_free(r, n);

	CHECK_EQ_INT(db_results(db, "baseline", 2, &r, &n, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(n, 4);
	if (r && n == 4) {
		CHECK_STR(r[3].error, "http");
		CHECK_STR(r[3].error_detail, "upstream said \"no\", retry later");
		CHECK_EQ_INT(r[3].ttft_ns, -1);
		summary_compute(r, n, load_closed(2), NULL, &s);
		CHECK_EQ_INT(s.ok, 3);
		CHECK_EQ_INT(s.errors, 1);
		CHECK_NEAR(s.agg_tps, 120.0 / 1.65, 1e-9);
	}
	db_results_free(r, n);
	db_close(db);
}

/* True if any number in the JSON tree is within tol of want. */
static int json_has_number(const cJSON *node, double want, double tol)
{
	const cJSON *c;

	if (cJSON_IsNumber(node) && fabs(node->valuedouble - want) <= tol)
		return 1;
	cJSON_ArrayForEach(c, node)
		if (json_has_number(c, want, tol))
			return 1;
	return 0;
}

TEST(report_prints_heading_table_and_warmup)
{
	const char *file = path_of("r3.jsonl.gz");
	struct db *db = fresh_db("report.db");
	cJSON *json;
	char *out;
	int rc;

	write_results(file, "00cc", "baseline", NULL);
	CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);

	out = report_to_string(db, NULL, TABLE_TEXT, 0, &rc);
	CHECK_EQ_INT(rc, DB_OK);
	CHECK(strstr(out, "run 'baseline': endpoint http://127.0.0.1:8000, model mock, "
		      "trace crc32:0badf00d\n") != NULL);
	CHECK(strstr(out, "warm-up: 1 request, cold-start TTFT 1012.3 ms\n") != NULL);
	CHECK(strstr(out, "880.0") != NULL);
	CHECK(strstr(out, "errors by class: C=2: 1 http (HTTP 500 x1)\n") != NULL);
	/* Latency table: TTFT at C=1 is 100 200 300 400 1000: P90 760, max 1000. */
	/* ... P90 and up from 5 samples, too few for their ranks: marked */
	CHECK(strstr(out, "\nTTFT      1       5      400.0      300.0     760.0*     880.0*"
		      "     976.0*     1000.0\n") != NULL);
	/* ITL pools 10 and 12 ms of each of the five requests. */
	CHECK(strstr(out, "\nITL       1      10       11.0       11.0       12.0") != NULL);
	CHECK(strstr(out, "as vLLM's benchmark does") != NULL);
	/* Scaling at C=2: (120 / 1.65) / (2 * 250 / 9.5) = 138%. */
	CHECK(strstr(out, "    0     100%") != NULL);
	CHECK(strstr(out, "    1     138%") != NULL);
	free(out);

	out = report_to_string(db, "baseline", TABLE_MARKDOWN, 0, &rc);
	CHECK_EQ_INT(rc, DB_OK);
	CHECK(strncmp(out, "### baseline", 12) == 0);
	CHECK(strstr(out, "\n| C | Agg tok/s | Per-req tok/s | Avg TTFT (ms) | Tokens | Wall(s) "
		      "| Ok | P50 TPOT (ms) | P50 TTFT (ms) |") != NULL);
	/* TPOT: 500 ms after the first of 50 tokens, 49 gaps: 10.2 ms */
	CHECK(strstr(out, "\n| 1 | 26.3 | 100.0 | 400.0 | 250 | 9.50 | 5 | 10.2 | 300.0 | 880.0* "
		      "| 976.0* | 0 | 100% | - | - | - | 0 |\n") != NULL);
	CHECK(strstr(out, "TTFA (ms)") == NULL);   /* no request reasoned */
	CHECK(strstr(out, "\n| E2E | 2 | 3 | 650.0 |") != NULL);
	free(out);

	/* JSON: valid, with the hand-computed percentiles in it. */
	out = report_to_string(db, NULL, TABLE_JSON, 0, &rc);
	CHECK_EQ_INT(rc, DB_OK);
	json = cJSON_Parse(out);
	CHECK(cJSON_IsArray(json));
	CHECK_EQ_INT(cJSON_GetArraySize(json), 2);
	CHECK(json_has_number(json, 300.0, 1e-6));
	CHECK(json_has_number(json, 880.0, 1e-6));
	CHECK(json_has_number(json, 976.0, 1e-6));
	CHECK(json_has_number(json, 760.0, 1e-6));     /* p90_ttft_ms */
	if (cJSON_GetArraySize(json) == 2) {
		const cJSON *l2 = cJSON_GetArrayItem(json, 1);

		CHECK_EQ_INT(cJSON_GetObjectItem(l2, "errors_http")->valueint, 1);
		CHECK_NEAR(cJSON_GetObjectItem(l2, "scaling_eff")->valuedouble, 1.3818, 1e-4);
		CHECK_NEAR(cJSON_GetObjectItem(l2, "max_e2e_ms")->valuedouble, 650, 1e-9);
	}
	cJSON_Delete(json);
	free(out);

	out = report_to_string(db, "no-such-run", TABLE_TEXT, 0, &rc);
	CHECK_EQ_INT(rc, DB_ERR_INPUT);
	free(out);
	db_close(db);
}

TEST(files_under_one_label_report_as_one_run)
{
	const char *a = path_of("shard0.jsonl.gz"), *b = path_of("shard1.jsonl.gz");
	struct db *db = fresh_db("shards.db");
	struct run run;
	char err[DB_ERRLEN];
	char *out;
	int rc;

	write_results_shard(a, "5a0", "shard-a", "0/2", NULL);
	write_results_shard(b, "5a1", "shard-b", "1/2", NULL);
	CHECK_EQ_INT(load(db, a, "sweep", NULL), DB_OK);
	CHECK_EQ_INT(load(db, b, "sweep", NULL), DB_OK);
	CHECK_EQ_INT(run_read(db, "sweep", NULL, &run, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(run.n_levels, 2);
	CHECK_EQ_INT(run.warmups, 2);
	if (run.n_levels == 2) {
		/* Same offsets from a common start: twice the tokens, same wall. */
		CHECK_EQ_INT(run.levels[0].requests, 10);
		CHECK_NEAR(run.levels[0].agg_tps, 500.0 / 9.5, 1e-9);
		CHECK_NEAR(run.levels[0].ttft.p50, 300.0, 1e-9);
	}
	run_release(&run);
	out = report_to_string(db, NULL, TABLE_TEXT, 0, &rc);
	CHECK_EQ_INT(rc, DB_OK);
	CHECK(strstr(out, "merged from 2 results files\n") != NULL);
	CHECK(strstr(out, "warm-up: 2 requests, cold-start TTFT 1012.3 ms\n") != NULL);
	free(out);
	db_close(db);
}

TEST(export_writes_quoted_csv)
{
	const char *file = path_of("r4.jsonl.gz");
	static const char header[] =
		"run,concurrency,seq,trace_id,warmup,status,error,ttft_ms,ttfa_ms,e2e_ms,"
		"tpot_ms,input_tokens,output_tokens,tokens_estimated,run_id,error_detail,"
		"repeat,sched_ms,send_ms,tokens_source,token_events,cached_tokens,salt,"
		"new_connection,connect_ms,tls_ms,session,turn,server_timings,server_queue_ms,"
		"server_prefill_ms,server_decode_ms,rest_ttft_ms,rest_e2e_ms,cancel,model,"
		"client_issue_ms,client_read_ms\n";
	struct db *db = fresh_db("export.db");
	char *out, *line;
	int rc, lines = 0;

	write_results(file, "00dd", "a,\"b\"", NULL);
	CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);
	out = report_to_string(db, NULL, TABLE_CSV, 1, &rc);
	CHECK_EQ_INT(rc, DB_OK);
	CHECK(strncmp(out, header, strlen(header)) == 0);
	/* The warm-up row, all columns; TPOT = (1500 - 1012.3) / 49 ms. */
	CHECK(strstr(out, "\n\"a,\"\"b\"\"\",1,0,0,1,200,,1012.300,1012.300,1500.000,"
		      "9.953,512,50,0,00dd,,0,0.000,0.000,usage,,,,0,,,,,,,,,,,,,,\n") != NULL);
	/* The failed row: NULL TTFT and TPOT are empty; the detail quoted. */
	CHECK(strstr(out, ",2,9,0,0,500,http,,,5.000,,512,0,0,00dd,"
		      "\"upstream said \"\"no\"\", retry later\",0,13000.000,13000.000,usage,,,,0,,,,,,,,,,,,,,\n")
	      != NULL);
	for (line = out; (line = strchr(line, '\n')); line++)
		lines++;
	CHECK_EQ_INT(lines, 11);
	free(out);
	db_close(db);
}

int main(void)
{
	if (fixture_setup() != 0)
		return 1;
	RUN(levels_summarize_like_numpy);
	RUN(report_prints_heading_table_and_warmup);
	RUN(files_under_one_label_report_as_one_run);
	RUN(export_writes_quoted_csv);
	return fixture_done();
}
