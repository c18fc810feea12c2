/*
 * test_metric.c - the metric definitions of lib/metric.h: TPOT and
 * per-request tok/s and when a request has none (a non-streamed response
 * measured from a real llama.cpp body), wall time over repeats, aggregate
 * tok/s, scaling (a concurrency's alone), the SLO check and its parser; and
 * that the SQL views of schema/tracebench.sql, read with plain SQLite, give
 * the numbers of the C definitions on real results.
 */
#include "harness.h"

#include <stdlib.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analyze/db.h"
#include "analyze/report.h"
#include "lib/meter.h"
#include "lib/metric.h"
#include "lib/tracefile.h"

#define MS 1000000LL

static char tmp[] = "/tmp/tb-metric-XXXXXX";
static char db_path[64], res_path[64];

static void req(struct result *r, int64_t sched_ms, int64_t ttft_ms, int64_t e2e_ms,
		int64_t tokens)
{
	result_init(r);
	r->status = 200;
	r->sched_ns = r->send_ns = sched_ms * MS;
	r->ttft_ns = r->ttfa_ns = ttft_ms < 0 ? -1 : ttft_ms * MS;
	r->e2e_ns = e2e_ms * MS;
	r->output_tokens = tokens;
}

/* A result of the real non-streamed llama-server body, measured by the
 * meter: sent at sched_ms, the body complete 40 ms later. */
static void nostream(struct result *r, int64_t sched_ms)
{
	size_t len;
	char *body = harness_slurp("tests/unit/fixtures", "llama-server-chat-nostream.json", &len);
	struct meter m;

	result_init(r);
	meter_init(&m, r, sched_ms * MS, 0);
	meter_end_body(&m, body, len, (sched_ms + 40) * MS);
	meter_release(&m);
	free(body);
	r->status = 200;
	r->sched_ns = r->send_ns = sched_ms * MS;
	r->ttft_ns = r->ttfa_ns = r->e2e_ns;
}

TEST(tpot_needs_two_tokens_a_ttft_and_time_between)
{
	struct result r;

	req(&r, 0, 100, 1100, 11);
	CHECK_NEAR(metric_tpot_ms(&r), 100, 1e-12);
	CHECK_NEAR(metric_req_tps(&r), 11, 1e-12);   /* 11 tokens over 1 s of decoding */
	CHECK_NEAR(metric_ttft_ms(&r), 100, 1e-12);
	CHECK_NEAR(metric_e2e_ms(&r), 1100, 1e-12);
	r.output_tokens = 1;
	CHECK(isnan(metric_tpot_ms(&r)) && isnan(metric_req_tps(&r)));
	r.output_tokens = 11;
	r.ttft_ns = r.ttfa_ns = -1;
	CHECK(isnan(metric_tpot_ms(&r)) && isnan(metric_req_tps(&r)));
	CHECK(isnan(metric_ttft_ms(&r)) && isnan(metric_ttfa_ms(&r)));
	result_release(&r);
}

TEST(a_non_streamed_response_has_an_e2e_only)
{
	struct result r;
	int64_t gap = 5 * MS;

	nostream(&r, 0);
	CHECK(result_ok(&r));
	CHECK(r.unstreamed);
	CHECK_EQ_INT(r.output_tokens, 5);   /* the body's usage.completion_tokens */
	CHECK_EQ_INT(r.e2e_ns, 40 * MS);
	CHECK_EQ_INT(r.ttft_ns, 40 * MS);   /* measured, but no first token of its own */
	CHECK_NEAR(metric_e2e_ms(&r), 40, 1e-12);
	CHECK(isnan(metric_ttft_ms(&r)) && isnan(metric_ttfa_ms(&r)));
	CHECK(isnan(metric_tpot_ms(&r)));
	CHECK(isnan(metric_req_tps(&r)));
	r.itl_ns = &gap;                    /* gaps of a whole body never count */
	r.n_itl = 1;
	CHECK_EQ_INT(metric_n_gaps(&r), 0);
	r.unstreamed = false;
	CHECK_EQ_INT(metric_n_gaps(&r), 1);
	r.itl_ns = NULL;
	r.n_itl = 0;
	result_release(&r);
}

TEST(wall_time_sums_the_repeats_spans)
{
	struct result v[5];
	struct metric_span sp[3];
	int repeats = 0;
	size_t i;

	req(&v[0], 0, 10, 1000, 10);          /* repeat 0: 0 .. 1000 ms */
	req(&v[1], 200, 10, 500, 10);
	req(&v[2], 5000, 10, 500, 10);        /* repeat 2: 5000 .. 5500 ms */
	v[2].repeat = 2;
	req(&v[3], 0, 10, 9000, 99);          /* a warm-up counts for nothing */
	v[3].warmup = 1;
	req(&v[4], 300, -1, 100, 0);          /* a failure spans, brings no tokens */
	result_set_error(&v[4], RESULT_ERR_HTTP, "busy");
	CHECK_EQ_INT(metric_n_repeats(v, 5), 3);
	metric_spans(v, 5, sp, 3);
	CHECK_EQ_INT(sp[0].tokens, 20);
	CHECK_NEAR(metric_span_s(&sp[0]), 1.0, 1e-12);
	CHECK_NEAR(metric_span_s(&sp[1]), 0, 1e-12);   /* repeat 1 is empty */
	CHECK_NEAR(metric_wall_s(sp, 3, &repeats), 1.5, 1e-12);
	CHECK_EQ_INT(repeats, 2);
	CHECK_NEAR(metric_agg_tps(30, 1.5), 20, 1e-12);
	CHECK(isnan(metric_agg_tps(30, 0)));
	for (i = 0; i < 5; i++)
		result_release(&v[i]);
}

/* Scaling is a concurrency's alone (lib/load.h's test names the loads). */
TEST(scaling_is_a_concurrencys_alone)
{
	CHECK_NEAR(metric_scaling(load_closed(4), 300, 100), 0.75, 1e-12);
	CHECK(isnan(metric_scaling(load_open(NAN), 300, 100)));
	CHECK(isnan(metric_scaling(load_probe(3, 187.5), 300, 100)));
	CHECK(isnan(metric_scaling(load_closed(4), 300, NAN)));
}

TEST(slo_limits_pass_a_missing_tpot_and_fail_a_missing_ttft)
{
	struct metric_slo slo = { 0, 0, 50, 0 };
	struct result r;

	nostream(&r, 0);
	CHECK(metric_within_slo(&r, &slo));          /* no TPOT: passes the TPOT limit */
	slo.ttft_ms = 39;
	CHECK(!metric_within_slo(&r, &slo));         /* nothing seen before its E2E, 40 ms */
	slo.ttft_ms = 40;
	CHECK(metric_within_slo(&r, &slo));          /* a limit is inclusive */
	result_release(&r);
	req(&r, 0, 10, 110, 3);                      /* TPOT 50 ms */
	CHECK(metric_within_slo(&r, &slo));
	r.ttft_ns = r.ttfa_ns = -1;
	CHECK(!metric_within_slo(&r, &slo));         /* streamed without a token */
	r.ttft_ns = r.ttfa_ns = 10 * MS;
	slo.tpot_ms = 49.9;
	CHECK(!metric_within_slo(&r, &slo));
	slo.tpot_ms = 0;
	result_set_error(&r, RESULT_ERR_TIMEOUT, "late");
	CHECK(!metric_within_slo(&r, &slo));         /* a failure is never good */
	result_release(&r);
}

TEST(slo_parser_refuses_nonsense)
{
	static const char *const bad[] = {
		"", "ttft", "ttft=", "ttft=fast", "ttft=5min", "ttft=-1ms", "ttft=0",
		"latency=5ms", "ttft=5ms,,", "ttft=inf",
	};
	struct metric_slo slo;
	char err[128];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		CHECK_EQ_INT(metric_slo_parse(bad[i], &slo, err, sizeof(err)), -1);
		CHECK(err[0] != '\0');
	}
	CHECK_EQ_INT(metric_slo_parse("ttft=0.5s,ttfa=600,tpot=50ms,e2e=10s", &slo, err,
				       sizeof(err)), 0);
	CHECK_NEAR(slo.ttft_ms, 500, 1e-9);
	CHECK_NEAR(slo.ttfa_ms, 600, 1e-9);
	CHECK_NEAR(slo.tpot_ms, 50, 1e-9);
	CHECK_NEAR(slo.e2e_ms, 10000, 1e-9);
}


/* Writes a results file of run "mixed": at C=1 three non-streamed answers
 * of the real llama-server body and a streamed one; at C=2 a streamed one
 * and a failure. */
static void write_mixed(const char *path)
{
	char err[TRACEFILE_ERRLEN];
	cJSON *h = cJSON_CreateObject(), *params, *rec;
	struct tracefile_writer *w;
	struct result v[6];
	size_t i;

	cJSON_AddStringToObject(h, "run_id", "m1x");
	cJSON_AddStringToObject(h, "label", "mixed");
	cJSON_AddStringToObject(h, "created", "2026-11-30T12:00:00Z");
	cJSON_AddStringToObject(h, "endpoint", "http://127.0.0.1:8080");
	params = cJSON_AddObjectToObject(h, "params");
	cJSON_AddStringToObject(params, "mode", "closed");
	for (i = 0; i < 3; i++)
		nostream(&v[i], 100 * (int64_t)i);
	req(&v[3], 300, 20, 220, 9);
	req(&v[4], 1000, 30, 530, 11);
	req(&v[5], 1000, -1, 50, 0);
	result_set_error(&v[5], RESULT_ERR_SERVER, "overloaded");
	for (i = 0; i < 6; i++) {
		v[i].seq = (long)i;
		v[i].level = i < 4 ? 1 : 2;
	}
	w = tracefile_writer_open(path, TRACEFILE_KIND_RESULTS, h, 1, err, sizeof(err));
	CHECK(w != NULL);
	cJSON_Delete(h);
	for (i = 0; i < 6; i++) {
		rec = result_to_json(&v[i]);
		if (w)
			CHECK_EQ_INT(tracefile_writer_append(w, rec), 0);
		cJSON_Delete(rec);
		result_release(&v[i]);
	}
	if (w)
		CHECK_EQ_INT(tracefile_writer_close(w, err, sizeof(err)), 0);
}

/* A column of one row of sql (bound to label and level), NaN for NULL. */
static double sql_value(sqlite3 *s, const char *sql, const char *label, long n, int col)
{
	sqlite3_stmt *st = NULL;
	double v = -12345;

	if (sqlite3_prepare_v2(s, sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, label, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, n);
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_type(st, col) == SQLITE_NULL
			    ? NAN : sqlite3_column_double(st, col);
	}
	sqlite3_finalize(st);
	return v;
}

/* Equal, NaN (none) included. */
static int same(double a, double b)
{
	return (isnan(a) && isnan(b)) || fabs(a - b) <= 1e-9 * (fabs(a) > 1 ? fabs(a) : 1);
}

/* v_summary's row of each level of label against run_read's. */
static void check_levels(struct db *db, sqlite3 *s, const char *label)
{
	static const char sql[] =
		"SELECT requests, ok, errors, tokens, wall_s, agg_tok_s, per_req_tok_s, "
		"avg_ttft_ms, avg_e2e_ms, avg_tpot_ms, repeats FROM v_summary "
		"WHERE run = ?1 AND concurrency = ?2";
	struct run run;
	char err[DB_ERRLEN];
	size_t i;

	CHECK_EQ_INT(run_read(db, label, NULL, &run, err, sizeof(err)), DB_OK);
	CHECK(run.n_levels >= 2);
	for (i = 0; i < run.n_levels; i++) {
		const struct level_summary *l = &run.levels[i];
		const double want[] = {
			(double)l->requests, (double)l->ok, (double)l->errors, (double)l->tokens,
			l->wall_s, l->agg_tps, l->per_req_tps, l->ttft.mean, l->e2e.mean,
			l->tpot.mean, l->repeats,
		};
		int c;

		for (c = 0; c < 11; c++) {
			double got = sql_value(s, sql, label, load_code(l->level), c);

			if (!same(got, want[c]))
				printf("  %s C=%d column %d: v_summary %.9g, C %.9g\n", label,
				       load_code(l->level), c, got, want[c]);
			CHECK(same(got, want[c]));
		}
	}
	run_release(&run);
}

/* v_requests' metrics of each request of label against metric.c's. */
static void check_requests(struct db *db, sqlite3 *s, const char *label, size_t *nostreamed)
{
	static const char sql[] =
		"SELECT tpot_ms, req_tok_s, ttft_ms, ttfa_ms, e2e_ms FROM v_requests "
		"WHERE run = ?1 AND seq = ?2";
	struct result *r = NULL;
	char err[DB_ERRLEN];
	int *levels = NULL;
	size_t n_levels = 0, n = 0, i, k;

	CHECK_EQ_INT(db_levels(db, label, &levels, &n_levels, err, sizeof(err)), DB_OK);
	for (k = 0; k < n_levels; k++) {
		CHECK_EQ_INT(db_results(db, label, levels[k], &r, &n, err, sizeof(err)), DB_OK);
		for (i = 0; i < n; i++) {
			CHECK(same(sql_value(s, sql, label, r[i].seq, 0), metric_tpot_ms(&r[i])));
			CHECK(same(sql_value(s, sql, label, r[i].seq, 1), metric_req_tps(&r[i])));
			CHECK(same(sql_value(s, sql, label, r[i].seq, 2), metric_ttft_ms(&r[i])));
			CHECK(same(sql_value(s, sql, label, r[i].seq, 3), metric_ttfa_ms(&r[i])));
			CHECK(same(sql_value(s, sql, label, r[i].seq, 4), metric_e2e_ms(&r[i])));
			*nostreamed += result_ok(&r[i]) && r[i].unstreamed;
		}
		db_results_free(r, n);
	}
	free(levels);
}

TEST(sql_views_agree_with_the_c_definitions_on_real_results)
{
	char err[DB_ERRLEN];
	struct db_load_info info;
	struct db *db = NULL;
	sqlite3 *s = NULL;
	size_t nostreamed = 0;

	write_mixed(res_path);
	unlink(db_path);
	CHECK_EQ_INT(db_open(db_path, DB_WRITE, &db, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(db_load_results(db, "sample_traces/results-sample.jsonl.gz", NULL, &info,
				     err, sizeof(err)), DB_OK);
	db_load_info_release(&info);
	CHECK_EQ_INT(db_load_results(db, res_path, NULL, &info, err, sizeof(err)), DB_OK);
	db_load_info_release(&info);
	CHECK_EQ_INT(sqlite3_open_v2(db_path, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	check_levels(db, s, "sample");
	check_levels(db, s, "mixed");
	check_requests(db, s, "sample", &nostreamed);
	check_requests(db, s, "mixed", &nostreamed);
	CHECK_EQ_INT(nostreamed, 3);
	/* The non-streamed answers have no TTFT or TPOT: only the streamed one
	 * counts; their E2E and tokens do count. */
	CHECK_NEAR(sql_value(s, "SELECT avg_tpot_ms FROM v_summary WHERE run = ?1 AND "
			     "concurrency = ?2", "mixed", 1, 0), 200.0 / 8, 1e-9);
	CHECK_NEAR(sql_value(s, "SELECT avg_ttft_ms FROM v_summary WHERE run = ?1 AND "
			     "concurrency = ?2", "mixed", 1, 0), 20, 1e-9);
	CHECK_NEAR(sql_value(s, "SELECT tokens FROM v_summary WHERE run = ?1 AND "
			     "concurrency = ?2", "mixed", 1, 0), 3 * 5 + 9, 1e-9);
	sqlite3_close(s);
	db_close(db);
}

int main(void)
{
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(db_path, sizeof(db_path), "%s/m.db", tmp);
	snprintf(res_path, sizeof(res_path), "%s/mixed.jsonl.gz", tmp);
	RUN(tpot_needs_two_tokens_a_ttft_and_time_between);
	RUN(a_non_streamed_response_has_an_e2e_only);
	RUN(wall_time_sums_the_repeats_spans);
	RUN(scaling_is_a_concurrencys_alone);
	RUN(slo_limits_pass_a_missing_tpot_and_fail_a_missing_ttft);
	RUN(slo_parser_refuses_nonsense);
	RUN(sql_views_agree_with_the_c_definitions_on_real_results);
	unlink(db_path);
	unlink(res_path);
	rmdir(tmp);
	return harness_done();
}
