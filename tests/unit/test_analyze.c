/*
 * test_analyze.c - `tracebench analyze` end to end on real files: results
 * written with lib/tracefile, loaded into a real SQLite database, reported,
 * exported and plotted with the real gnuplot (when installed).
 *
 * The sample run has numbers worked out by hand (see write_sample): level 1
 * has five measured requests with TTFT 100, 200, 300, 400 and 1000 ms, so
 * numpy.percentile gives P50 300, P95 880 and P99 976 ms; one warm-up with a
 * cold-start TTFT of 1012.3 ms; level 2 has one failed request.
 */
#define _XOPEN_SOURCE 700   /* nftw */  /* NOLINT(bugprone-reserved-identifier): POSIX's own name */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analyze/analyze.h"
#include "analyze/compare.h"
#include "analyze/db.h"
#include "analyze/plot.h"
#include "analyze/report.h"
#include "lib/random.h"
#include "lib/result.h"
#include "lib/stats.h"
#include "lib/summary.h"
#include "lib/tracefile.h"

#define MS 1000000LL
#define S  1000000000LL

static char tmp[] = "/tmp/tb-analyze-XXXXXX";

/* tmp/name in one of a few rotating buffers. */
static const char *path_of(const char *name)
{
	static char buf[32][512];
	static int i;

	i = (i + 1) % 32;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmp, name);
	return buf[i];
}

static int file_exists(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0;
}

static long file_size(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

/* Reads a whole small file; the caller frees it. */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = calloc(1, 1 << 20);

	if (f && buf) {
		size_t n = fread(buf, 1, (1 << 20) - 1, f);
		buf[n] = '\0';
	}
	if (f)
		fclose(f);
	return buf;
}

static void set_result(struct result *r, int level, long seq, int warmup,
		       int64_t sched, int64_t ttft, int64_t e2e, int64_t tokens)
{
	static int64_t itl[] = { 10 * MS, 12 * MS };

	result_init(r);
	r->level = level;
	r->seq = seq;
	r->trace_id = seq % 3;
	r->warmup = warmup;
	r->status = 200;
	r->sched_ns = r->send_ns = sched;
	r->ttft_ns = r->ttfa_ns = ttft;
	r->e2e_ns = e2e;
	r->input_tokens = 512;
	r->output_tokens = tokens;
	r->itl_ns = malloc(sizeof(itl));
	memcpy(r->itl_ns, itl, sizeof(itl));
	r->n_itl = 2;
}

/*
 * The sample run, 10 requests. Level 1: a warm-up (TTFT 1012.3 ms), then
 * five requests 2 s apart, TTFT 100..1000 ms, E2E = TTFT + 500 ms, 50 tokens:
 * wall = 2 s .. 11.5 s = 9.5 s, aggregate 250 / 9.5 = 26.316 tok/s,
 * per request 50 / 0.5 s = 100 tok/s. Level 2: three ok requests of 40
 * tokens (80 tok/s each) and one HTTP 500 with a detail holding , and ".
 */
static size_t sample_results(struct result *v)
{
	static const int64_t ttft[] = { 100, 200, 300, 400, 1000 };
	size_t n = 0;
	int i;

	set_result(&v[n++], 1, 0, 1, 0, 1012300000LL, 1500 * MS, 50);
	for (i = 0; i < 5; i++)
		set_result(&v[n++], 1, 1 + i, 0, (2 + 2 * i) * S, ttft[i] * MS,
			   (ttft[i] + 500) * MS, 50);
	set_result(&v[n++], 2, 6, 0, 12 * S, 150 * MS, 650 * MS, 40);
	set_result(&v[n++], 2, 7, 0, 12 * S, 150 * MS, 650 * MS, 40);
	set_result(&v[n++], 2, 8, 0, 13 * S, 150 * MS, 650 * MS, 40);
	set_result(&v[n], 2, 9, 0, 13 * S, -1, 5 * MS, 0);
	v[n].status = 500;
	v[n].ttfa_ns = -1;
	result_set_error(&v[n++], RESULT_ERR_HTTP, "upstream said \"no\", retry later");
	return n;
}

/* Writes a results file of the sample run; extra_raw (may be NULL) is
 * appended as one more, raw, record line. */
static void write_results(const char *path, const char *run_id, const char *label,
			  const char *extra_raw)
{
	char err[TRACEFILE_ERRLEN];
	struct result v[16];
	struct tracefile_writer *w;
	cJSON *h = cJSON_CreateObject();
	cJSON *trace, *params, *rec;
	size_t n, i;

	cJSON_AddStringToObject(h, "run_id", run_id);
	cJSON_AddStringToObject(h, "label", label);
	cJSON_AddStringToObject(h, "created", "2026-11-30T12:00:00Z");
	cJSON_AddStringToObject(h, "tool", "tracebench 0.1.0");
	cJSON_AddStringToObject(h, "endpoint", "http://127.0.0.1:8000");
	cJSON_AddStringToObject(h, "model", "mock");
	trace = cJSON_AddObjectToObject(h, "trace");
	cJSON_AddStringToObject(trace, "path", "trace.jsonl.gz");
	cJSON_AddStringToObject(trace, "digest", "crc32:0badf00d");
	cJSON_AddNumberToObject(trace, "requests", 10);
	params = cJSON_AddObjectToObject(h, "params");
	cJSON_AddStringToObject(params, "mode", "closed");
	cJSON_AddNumberToObject(params, "warmup", 1);

	w = tracefile_writer_open(path, TRACEFILE_KIND_RESULTS, h, 1, err);
	CHECK(w != NULL);
	cJSON_Delete(h);
	if (!w)
		return;
	n = sample_results(v);
	for (i = 0; i < n; i++) {
		rec = result_to_json(&v[i]);
		CHECK_EQ_INT(tracefile_writer_append(w, rec), 0);
		cJSON_Delete(rec);
		result_release(&v[i]);
	}
	if (extra_raw)
		CHECK_EQ_INT(tracefile_writer_append_raw(w, extra_raw, strlen(extra_raw)), 0);
	CHECK_EQ_INT(tracefile_writer_close(w, err), 0);
}

/* Opens a fresh database file tmp/name for writing. */
static struct db *fresh_db(const char *name)
{
	char err[DB_ERRLEN];
	struct db *db = NULL;

	unlink(path_of(name));
	CHECK_EQ_INT(db_open(path_of(name), DB_WRITE, &db, err, sizeof(err)), DB_OK);
	return db;
}

static int load(struct db *db, const char *file, const char *label, size_t *requests)
{
	struct db_load_info info;
	char err[DB_ERRLEN];
	int rc = db_load_results(db, file, label, &info, err, sizeof(err));

	if (rc >= 0) {
		if (requests)
			*requests = info.requests;
		db_load_info_release(&info);
	}
	return rc;
}

/* SELECT count(*) FROM 'table' of the database file at path, read with
 * plain SQLite so the check does not trust the code under test. */
static long count_rows(const char *path, const char *table)
{
	char sql[128];
	sqlite3 *s = NULL;
	sqlite3_stmt *st = NULL;
	long n = -1;

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", table);
	if (sqlite3_open_v2(path, &s, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(s, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(s);
	return n;
}

/* Runs fn on a memory stream and returns what it wrote (caller frees). */
static char *report_to_string(struct db *db, const char *run, enum table_format fmt,
			      int export, int *rc)
{
	char err[DB_ERRLEN];
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	*rc = export ? report_export_csv(db, run, out, err, sizeof(err))
		     : report_print(db, run, fmt, NULL, out, err, sizeof(err));
	fclose(out);
	return buf;
}

TEST(load_twice_does_not_double_rows)
{
	const char *file = path_of("r1.jsonl.gz");
	struct db *db = fresh_db("twice.db");
	char err[DB_ERRLEN];
	size_t n = 0;

	write_results(file, "00aa", "baseline", NULL);
	CHECK_EQ_INT(load(db, file, NULL, &n), DB_OK);
	CHECK_EQ_INT(n, 10);
	CHECK_EQ_INT(load(db, file, NULL, NULL), DB_ALREADY_LOADED);
	db_close(db);
	/* Reopened later, and under another label: still the same run. */
	db = NULL;
	CHECK_EQ_INT(db_open(path_of("twice.db"), DB_WRITE, &db, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(load(db, file, "other-label", NULL), DB_ALREADY_LOADED);
	db_close(db);
	CHECK_EQ_INT(count_rows(path_of("twice.db"), "runs"), 1);
	CHECK_EQ_INT(count_rows(path_of("twice.db"), "requests"), 10);
}

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
		summary_compute(r, n, 1, NULL, &s);
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
		summary_compute(r, n, 2, NULL, &s);
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

/* Sets itl_us of request seq 1 of the database at path, with plain SQLite. */
static void set_itl_text(const char *path, const char *text)
{
	sqlite3 *s = NULL;
	sqlite3_stmt *st = NULL;

	CHECK_EQ_INT(sqlite3_open(path, &s), SQLITE_OK);
	CHECK_EQ_INT(sqlite3_prepare_v2(s, "UPDATE requests SET itl_us = ?1 WHERE seq = 1", -1,
					&st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
	CHECK_EQ_INT(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(s);
}

TEST(itl_text_other_than_our_own_still_reads)
{
	static const struct { const char *text; int rc; size_t n; int64_t second_ns; } cases[] = {
		{ "[7,123456]", DB_OK, 2, 123456000LL },     /* the fast path */
		{ "[]", DB_OK, 0, 0 },
		{ " [ 7 , 9.5 ]", DB_OK, 2, 9500LL },         /* JSON by hand: cJSON */
		{ "[7,x]", DB_ERR_INPUT, 0, 0 },
		{ "[7,]", DB_ERR_INPUT, 0, 0 },
	};
	const char *file = path_of("itl.jsonl.gz"), *dbp = path_of("itl.db");
	struct result *r = NULL;
	char err[DB_ERRLEN];
	struct db *db;
	size_t n = 0, i;

	write_results(file, "0171", "itl", NULL);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		db = fresh_db("itl.db");
		CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);
		db_close(db);
		set_itl_text(dbp, cases[i].text);
		db = NULL;
		CHECK_EQ_INT(db_open(dbp, DB_READ, &db, err, sizeof(err)), DB_OK);
		CHECK_EQ_INT(db_results(db, "itl", 1, &r, &n, err, sizeof(err)), cases[i].rc);
		if (cases[i].rc == DB_OK && n == 6) {
			CHECK_EQ_INT(r[1].n_itl, cases[i].n);
			if (cases[i].n == 2)
				CHECK_EQ_INT(r[1].itl_ns[1], cases[i].second_ns);
		} else if (cases[i].rc != DB_OK) {
			CHECK(strstr(err, "bad itl_us in request 1") != NULL);
		}
		if (cases[i].rc == DB_OK)
			db_results_free(r, n);
		db_close(db);
	}
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
	CHECK(strstr(out, "errors by class: C=2: 1 http\n") != NULL);
	/* Latency table: TTFT at C=1 is 100 200 300 400 1000: P90 760, max 1000. */
	CHECK(strstr(out, "\nTTFT      1       5      400.0      300.0      760.0      880.0"
		      "      976.0     1000.0\n") != NULL);
	/* ITL pools 10 and 12 ms of each of the five requests. */
	CHECK(strstr(out, "\nITL       1      10       11.0       11.0       12.0") != NULL);
	CHECK(strstr(out, "as vLLM's benchmark does") != NULL);
	/* Scaling at C=2: (120 / 1.65) / (2 * 250 / 9.5) = 138%. */
	CHECK(strstr(out, "    0     100%\n") != NULL);
	CHECK(strstr(out, "    1     138%\n") != NULL);
	free(out);

	out = report_to_string(db, "baseline", TABLE_MARKDOWN, 0, &rc);
	CHECK_EQ_INT(rc, DB_OK);
	CHECK(strncmp(out, "### baseline", 12) == 0);
	CHECK(strstr(out, "\n| C | Agg tok/s | Per-req tok/s | Avg TTFT (ms) | Tokens | Wall(s) "
		      "| Ok | P50 TTFT (ms) |") != NULL);
	CHECK(strstr(out, "\n| 1 | 26.3 | 100.0 | 400.0 | 250 | 9.50 | 5 | 300.0 | 880.0 "
		      "| 976.0 | 0 | 100% |\n") != NULL);
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
	struct report_run run;
	char err[DB_ERRLEN];
	char *out;
	int rc;

	write_results(a, "5a0", "shard-a", NULL);
	write_results(b, "5a1", "shard-b", NULL);
	CHECK_EQ_INT(load(db, a, "sweep", NULL), DB_OK);
	CHECK_EQ_INT(load(db, b, "sweep", NULL), DB_OK);
	CHECK_EQ_INT(report_summarize(db, "sweep", NULL, &run, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(run.n_levels, 2);
	CHECK_EQ_INT(run.warmups, 2);
	if (run.n_levels == 2) {
		/* Same offsets from a common start: twice the tokens, same wall. */
		CHECK_EQ_INT(run.levels[0].requests, 10);
		CHECK_NEAR(run.levels[0].agg_tps, 500.0 / 9.5, 1e-9);
		CHECK_NEAR(run.levels[0].ttft.p50, 300.0, 1e-9);
	}
	report_run_release(&run);
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
		"tpot_ms,input_tokens,output_tokens,tokens_estimated,run_id,error_detail\n";
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
		      "9.953,512,50,0,00dd,\n") != NULL);
	/* The failed row: NULL TTFT and TPOT are empty; the detail quoted. */
	CHECK(strstr(out, ",2,9,0,0,500,http,,,5.000,,512,0,0,00dd,"
		      "\"upstream said \"\"no\"\", retry later\"\n") != NULL);
	for (line = out; (line = strchr(line, '\n')); line++)
		lines++;
	CHECK_EQ_INT(lines, 11);
	free(out);
	db_close(db);
}

TEST(malformed_record_rolls_back)
{
	const char *good = path_of("good.jsonl.gz"), *bad = path_of("bad.jsonl.gz");
	struct db *db = fresh_db("rollback.db");
	struct db_load_info info;
	char err[DB_ERRLEN];

	write_results(good, "00ee", "good", NULL);
	write_results(bad, "00ef", "bad", "{\"level\":1,\"seq\":\"ten\",\"send_ns\":0}");
	CHECK_EQ_INT(load(db, good, NULL, NULL), DB_OK);
	CHECK_EQ_INT(db_load_results(db, bad, NULL, &info, err, sizeof(err)), DB_ERR_INPUT);
	CHECK(strstr(err, bad) != NULL);
	CHECK(strstr(err, "line 12") != NULL);
	db_close(db);
	CHECK_EQ_INT(count_rows(path_of("rollback.db"), "runs"), 1);
	CHECK_EQ_INT(count_rows(path_of("rollback.db"), "requests"), 10);
}

/* Counts the records a plain reader gets from path. */
static size_t reader_count(const char *path)
{
	char err[TRACEFILE_ERRLEN];
	struct tracefile_reader *r = tracefile_reader_open(path, TRACEFILE_KIND_RESULTS, err);
	cJSON *rec;
	size_t n = 0;

	while (r && tracefile_reader_next(r, &rec) == 1) {
		cJSON_Delete(rec);
		n++;
	}
	tracefile_reader_close(r);
	return n;
}

TEST(truncated_file_loads_complete_records)
{
	const char *file = path_of("cut.jsonl.gz");
	struct db *db = fresh_db("cut.db");
	struct db_load_info info;
	char err[DB_ERRLEN];
	size_t whole;

	write_results(file, "00ff", "cut", NULL);
	whole = (size_t)file_size(file);
	CHECK_EQ_INT(truncate(file, (off_t)(whole - 40)), 0);
	CHECK_EQ_INT(db_load_results(db, file, NULL, &info, err, sizeof(err)), DB_OK);
	CHECK(info.damage != NULL);
	CHECK(info.requests > 0 && info.requests < 10);
	CHECK_EQ_INT(info.requests, reader_count(file));
	db_load_info_release(&info);
	db_close(db);
	CHECK_EQ_INT(count_rows(path_of("cut.db"), "requests"), reader_count(file));
}

TEST(newer_schema_is_refused)
{
	const char *path = path_of("newer.db");
	char err[DB_ERRLEN];
	struct db *db = fresh_db("newer.db");
	sqlite3 *s = NULL;

	db_close(db);
	CHECK_EQ_INT(sqlite3_open(path, &s), SQLITE_OK);
	CHECK_EQ_INT(sqlite3_exec(s, "PRAGMA user_version = 7", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
	db = NULL;
	CHECK_EQ_INT(db_open(path, DB_WRITE, &db, err, sizeof(err)), DB_ERR_INPUT);
	CHECK(strstr(err, "schema version 7") != NULL);
	CHECK_EQ_INT(db_open(path, DB_READ, &db, err, sizeof(err)), DB_ERR_INPUT);
	CHECK_EQ_INT(db_open(path_of("missing.db"), DB_READ, &db, err, sizeof(err)),
		     DB_ERR_INPUT);
	CHECK(strstr(err, "No such file or directory") != NULL);
	CHECK(!file_exists(path_of("missing.db")));
}

/* The tables of schema version 1, as the first tracebench created them. */
static const char schema_v1[] =
	"CREATE TABLE runs (run_id TEXT PRIMARY KEY, label TEXT NOT NULL, created TEXT,"
	" tool TEXT, endpoint TEXT, model TEXT, trace_path TEXT, trace_digest TEXT,"
	" mode TEXT, params TEXT, source TEXT, loaded_at TEXT);"
	"CREATE TABLE requests (run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,"
	" seq INTEGER NOT NULL, level INTEGER NOT NULL, trace_id INTEGER,"
	" warmup INTEGER NOT NULL, status INTEGER, error TEXT, error_detail TEXT,"
	" sched_ns INTEGER, send_ns INTEGER, ttft_ns INTEGER, ttfa_ns INTEGER,"
	" e2e_ns INTEGER, input_tokens INTEGER, output_tokens INTEGER,"
	" tokens_estimated INTEGER NOT NULL, itl_us TEXT, PRIMARY KEY (run_id, seq));"
	"CREATE INDEX requests_level ON requests(run_id, level);"
	"CREATE VIEW v_requests AS SELECT r.label AS run, q.level AS concurrency"
	" FROM requests q JOIN runs r USING (run_id);"
	"INSERT INTO runs (run_id, label) VALUES ('old', 'old');"
	"INSERT INTO requests VALUES ('old', 0, 1, 0, 0, 200, NULL, NULL, 0, 0,"
	" 100000000, 100000000, 600000000, 10, 11, 0, '[50000,50000]');"
	"INSERT INTO requests VALUES ('old', 1, 1, 1, 0, 200, NULL, NULL, 600000000,"
	" 600000000, 300000000, 300000000, 800000000, 10, 11, 0, '[50000]');"
	"PRAGMA user_version = 1;";

TEST(version_1_database_reads_and_migrates)
{
	const char *path = path_of("v1.db");
	struct report_run run;
	char err[DB_ERRLEN];
	struct db *db = NULL;
	sqlite3 *s = NULL;
	sqlite3_stmt *st = NULL;

	unlink(path);
	CHECK_EQ_INT(sqlite3_open(path, &s), SQLITE_OK);
	CHECK_EQ_INT(sqlite3_exec(s, schema_v1, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
	/* Read as it is: every request is repeat 0. */
	CHECK_EQ_INT(db_open(path, DB_READ, &db, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(report_summarize(db, "old", NULL, &run, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(run.n_levels, 1);
	if (run.n_levels == 1) {
		CHECK_NEAR(run.levels[0].ttft.p50, 200, 1e-9);
		CHECK_NEAR(run.levels[0].wall_s, 1.4, 1e-9);
	}
	report_run_release(&run);
	db_close(db);
	/* Opened for writing (analyze load): migrated to version 3, rows kept,
	 * every old request streamed. */
	db = NULL;
	CHECK_EQ_INT(db_open(path, DB_WRITE, &db, err, sizeof(err)), DB_OK);
	db_close(db);
	CHECK_EQ_INT(count_rows(path, "requests"), 2);
	CHECK_EQ_INT(sqlite3_open(path, &s), SQLITE_OK);
	CHECK_EQ_INT(sqlite3_prepare_v2(s, "SELECT (SELECT user_version FROM pragma_user_version),"
					" sum(repeat), (SELECT count(*) FROM v_requests WHERE"
					" repeat = 0 AND streamed = 1) FROM requests", -1, &st, NULL),
		     SQLITE_OK);
	CHECK_EQ_INT(sqlite3_step(st), SQLITE_ROW);
	CHECK_EQ_INT(sqlite3_column_int(st, 0), 3);
	CHECK_EQ_INT(sqlite3_column_int(st, 1), 0);
	CHECK_EQ_INT(sqlite3_column_int(st, 2), 2);
	sqlite3_finalize(st);
	sqlite3_close(s);
}

TEST(repeats_are_stored_and_their_walls_summed)
{
	const char *file = path_of("rep.jsonl.gz");
	struct db *db = fresh_db("rep.db");
	struct report_run run;
	struct tracefile_writer *w;
	char err[DB_ERRLEN], terr[TRACEFILE_ERRLEN];
	cJSON *h = cJSON_CreateObject(), *rec;
	int i;

	cJSON_AddStringToObject(h, "run_id", "rep1");
	cJSON_AddStringToObject(h, "label", "rep");
	w = tracefile_writer_open(file, TRACEFILE_KIND_RESULTS, h, 1, terr);
	cJSON_Delete(h);
	CHECK(w != NULL);
	/* Two repeats of C=1, two requests of 1 s each; repeat 1 starts 10 s on. */
	for (i = 0; w && i < 4; i++) {
		struct result r;

		set_result(&r, 1, i, 0, (i % 2) * S + (i / 2) * 10 * S, 100 * MS, S, 50);
		r.repeat = i / 2;
		rec = result_to_json(&r);
		CHECK_EQ_INT(tracefile_writer_append(w, rec), 0);
		cJSON_Delete(rec);
		result_release(&r);
	}
	CHECK_EQ_INT(tracefile_writer_close(w, terr), 0);
	CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);
	CHECK_EQ_INT(report_summarize(db, "rep", NULL, &run, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(run.n_levels, 1);
	if (run.n_levels == 1) {
		CHECK_EQ_INT(run.levels[0].repeats, 2);
		CHECK_NEAR(run.levels[0].wall_s, 4.0, 1e-9);    /* 2 s + 2 s, not 12 s */
		CHECK_NEAR(run.levels[0].agg_tps, 200 / 4.0, 1e-9);
	}
	report_run_release(&run);
	db_close(db);
}

/* Loads the sample under each label (a run_id per label) into name. */
static struct db *db_with_labels(const char *name, const char *const *labels, size_t n)
{
	const char *file = path_of("labels.jsonl.gz");
	struct db *db = fresh_db(name);
	char run_id[32];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(run_id, sizeof(run_id), "%s-%zu", name, i);
		write_results(file, run_id, labels[i], NULL);
		CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);
	}
	return db;
}

/* True when gnuplot can be run from PATH. */
static int have_gnuplot(void)
{
	const char *path = getenv("PATH");
	char buf[4096], *dir, *save = NULL, exe[4200];

	snprintf(buf, sizeof(buf), "%s", path ? path : "");
	for (dir = strtok_r(buf, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		snprintf(exe, sizeof(exe), "%s/gnuplot", dir);
		if (access(exe, X_OK) == 0)
			return 1;
	}
	return 0;
}

/* Checks that path is a PNG file of more than 1000 bytes. */
static void check_png(const char *path)
{
	unsigned char sig[8] = { 0 };
	FILE *f = fopen(path, "rb");

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_EQ_INT(fread(sig, 1, 8, f), 8);
	fclose(f);
	CHECK(memcmp(sig, "\x89PNG\r\n\x1a\n", 8) == 0);
	CHECK(file_size(path) > 1000);
}

/* Width and height from a PNG's IHDR chunk (bytes 16..23), -1 if unreadable. */
static long png_dim(const char *path, int which)
{
	unsigned char b[24];
	FILE *f = fopen(path, "rb");
	long v = -1;

	if (f && fread(b, 1, 24, f) == 24) {
		const unsigned char *p = b + 16 + 4 * which;

		v = ((long)p[0] << 24) | ((long)p[1] << 16) | ((long)p[2] << 8) | p[3];
	}
	if (f)
		fclose(f);
	return v;
}

static long png_width(const char *path) { return png_dim(path, 0); }
static long png_height(const char *path) { return png_dim(path, 1); }

TEST(plot_writes_data_script_and_png)
{
	static const char *const labels[] = { "baseline" };
	struct db *db = db_with_labels("plot.db", labels, 1);
	struct plot_output po = { 0 };
	char err[DB_ERRLEN], *dat, *gp;
	const char *out = path_of("plots");

	CHECK_EQ_INT(plot_write(db, NULL, 0, out, PLOT_PNG, 0, &po, err, sizeof(err)), DB_OK);
	dat = read_text(path_of("plots/scaling.dat"));
	CHECK(strstr(dat, "\n1 26.316 100.000\n2 72.727 80.000\n") != NULL);
	gp = read_text(path_of("plots/scaling.gp"));
	CHECK(strstr(gp, "set logscale x 2\n") != NULL);
	CHECK(strstr(gp, "title 'baseline: aggregate'") != NULL);
	CHECK(strstr(gp, "/tmp") == NULL);   /* relative paths only */
	if (have_gnuplot()) {
		static const char *const names[] = {
			"scaling", "ttft_percentiles", "latency_cdf", "ttft_timeline",
		};
		char png[256];
		size_t i;

		CHECK(po.rendered);
		CHECK_EQ_INT(po.n_files, 12);
		for (i = 0; i < 4; i++) {
			snprintf(png, sizeof(png), "plots/%s.png", names[i]);
			check_png(path_of(png));
			CHECK(png_width(path_of(png)) == 1000);
			CHECK(png_height(path_of(png)) == 600);
		}
	} else {
		CHECK(po.gnuplot_missing);
		SKIP("gnuplot not installed: PNGs not checked");
	}
	free(dat);
	free(gp);

	CHECK_EQ_INT(plot_write(db, (const char *const[]){ "nope" }, 1, out, PLOT_PNG, 0, &po,
				  err, sizeof(err)), DB_ERR_INPUT);
	CHECK(strstr(err, "'nope'") != NULL);
	db_close(db);
}

TEST(plot_labels_cannot_inject_gnuplot_commands)
{
	static const char *const labels[] = {
		"\"; system(\"touch pwned\"); \"",
		"'; system('touch pwned'); '",
		"`touch pwned`",
		"x'\nsystem('touch pwned')\nprint '",
		"@x $(touch pwned) \\' ; system('touch pwned') #",
	};
	struct db *db = db_with_labels("hostile.db", labels, 5);
	struct plot_output po = { 0 };
	char err[DB_ERRLEN], *gp;
	const char *out = path_of("hostile");

	CHECK_EQ_INT(plot_write(db, NULL, 0, out, PLOT_PNG, 0, &po, err, sizeof(err)), DB_OK);
	gp = read_text(path_of("hostile/scaling.gp"));
	CHECK(strstr(gp, "title tb_quote . '; system(' . tb_quote . 'touch pwned' . "
		      "tb_quote . '); ' . tb_quote . ': aggregate'") != NULL);
	CHECK(strstr(gp, "title 'x' . tb_quote . ' system(' . tb_quote . 'touch pwned' . "
		      "tb_quote . ') print ' . tb_quote . ': per request'") != NULL);
	free(gp);
	if (have_gnuplot()) {
		/* Each script ran to the end (its PNG exists) and ran nothing else. */
		CHECK(po.rendered);
		check_png(path_of("hostile/scaling.png"));
		check_png(path_of("hostile/ttft_percentiles.png"));
		check_png(path_of("hostile/latency_cdf.png"));
		check_png(path_of("hostile/ttft_timeline.png"));
	} else {
		SKIP("gnuplot not installed: scripts not run");
	}
	CHECK(!file_exists(path_of("hostile/pwned")));
	CHECK(!file_exists("pwned"));
	db_close(db);
}

TEST(plot_overlays_runs_and_renders_svg_and_pdf)
{
	static const char *const labels[] = { "before", "after" };
	struct db *db = db_with_labels("overlay.db", labels, 2);
	struct plot_output po = { 0 };
	char err[DB_ERRLEN], *gp, *dat, head[8] = { 0 };
	FILE *f;

	CHECK_EQ_INT(plot_write(db, NULL, 0, path_of("svg"), PLOT_SVG, 0, &po, err, sizeof(err)),
		     DB_OK);
	gp = read_text(path_of("svg/ttft_percentiles.gp"));
	CHECK(strstr(gp, "set terminal svg") != NULL);
	CHECK(strstr(gp, "set output 'ttft_percentiles.svg'") != NULL);
	CHECK(strstr(gp, "using 1:4 with linespoints lc 1 pt 9 dt 3 title 'before: P99'") != NULL);
	CHECK(strstr(gp, "using 1:7 with linespoints lc 2 pt 9 dt 3 title 'after: P99'") != NULL);
	free(gp);
	/* P50/P95/P99 of TTFT per level and run: C=1 300 880 976, C=2 all 150. */
	dat = read_text(path_of("svg/ttft_percentiles.dat"));
	CHECK(strstr(dat, "\n1 300.000 880.000 976.000 300.000 880.000 976.000\n"
		      "2 150.000 150.000 150.000 150.000 150.000 150.000\n") != NULL);
	free(dat);
	gp = read_text(path_of("svg/latency_cdf.gp"));
	CHECK(strstr(gp, "'latency_cdf.dat' index 2 using 1:2 with steps lc 2 title 'after'") != NULL);
	CHECK(strstr(gp, "'latency_cdf.dat' index 3 using 1:2 with steps lc 2 title 'after'") != NULL);
	free(gp);
	/* CDF of the 8 successful TTFTs of a run: 100 .. 1000 ms, last at 1. */
	dat = read_text(path_of("svg/latency_cdf.dat"));
	CHECK(strstr(dat, "\n100.000 0.125000\n150.000 0.250000\n") != NULL);
	CHECK(strstr(dat, "\n1000.000 1.000000\n") != NULL);
	free(dat);
	gp = read_text(path_of("svg/ttft_timeline.gp"));
	CHECK(strstr(gp, "title 'after: warm-up'") != NULL);
	free(gp);
	if (have_gnuplot()) {
		CHECK(po.rendered);
		f = fopen(path_of("svg/latency_cdf.svg"), "rb");
		CHECK(f != NULL);
		if (f) {
			gp = read_text(path_of("svg/latency_cdf.svg"));
			CHECK(strstr(gp, "<svg") != NULL);
			free(gp);
			fclose(f);
		}
		CHECK_EQ_INT(plot_write(db, (const char *const[]){ "after" }, 1, path_of("pdf"),
					PLOT_PDF, 0, &po, err, sizeof(err)), DB_OK);
		f = fopen(path_of("pdf/scaling.pdf"), "rb");
		CHECK(f && fread(head, 1, 5, f) == 5 && memcmp(head, "%PDF-", 5) == 0);
		if (f)
			fclose(f);
		CHECK(file_size(path_of("pdf/ttft_timeline.pdf")) > 1000);
	} else {
		SKIP("gnuplot not installed: SVG and PDF not rendered");
	}
	db_close(db);
}

TEST(plot_without_gnuplot_writes_script_only)
{
	static const char *const labels[] = { "nognuplot" };
	struct db *db = db_with_labels("nogp.db", labels, 1);
	struct plot_output po = { 0 };
	const char *path = getenv("PATH");
	char err[DB_ERRLEN], *saved = path ? strdup(path) : NULL;
	const char *out = path_of("nogp");

	mkdir(path_of("emptybin"), 0777);
	setenv("PATH", path_of("emptybin"), 1);
	CHECK_EQ_INT(plot_write(db, NULL, 0, out, PLOT_PNG, 0, &po, err, sizeof(err)), DB_OK);
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
	CHECK(po.gnuplot_missing);
	CHECK(!po.rendered);
	CHECK(file_exists(path_of("nogp/scaling.gp")));
	CHECK(file_exists(path_of("nogp/scaling.dat")));
	CHECK(!file_exists(path_of("nogp/scaling.png")));
	db_close(db);
}

/* plot_put_gp_string(s) into a string; the caller frees it. */
static char *gp_string(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	plot_put_gp_string(f, s);
	fclose(f);
	return buf;
}

/* Runs gnuplot on script (in tmp, nothing but argv, no shell); its exit status. */
static int run_gnuplot(const char *script)
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(gp_strings_hold_no_quote_in_literals)
{
	static const char *const tricky[] = {
		"'", "''", "''''", "'a'''''b'", "it's", "\\'", "`id`", "@x", "\"q\"", "",
	};
	const char *script = path_of("roundtrip.gp"), *printed = path_of("roundtrip.txt");
	char *s, *got, *line;
	FILE *f;
	size_t i;

	s = gp_string("it's \"x\"\n`y`");
	CHECK_STR(s, "'it' . tb_quote . 's \"x\" `y`'");
	free(s);
	s = gp_string("'");
	CHECK_STR(s, "tb_quote");
	free(s);
	s = gp_string("");
	CHECK_STR(s, "''");
	free(s);
	if (!have_gnuplot()) {
		SKIP("gnuplot not installed: literals not read back by gnuplot");
		return;
	}
	/* What gnuplot makes of them: each prints back exactly. */
	f = fopen(script, "w");
	fprintf(f, "tb_quote = sprintf('%%c', 39)\nset print '%s'\n", printed);
	for (i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++) {
		s = gp_string(tricky[i]);
		fprintf(f, "print %s\n", s);
		free(s);
	}
	fclose(f);
	CHECK_EQ_INT(run_gnuplot(script), 0);
	got = read_text(printed);
	line = got;
	for (i = 0; i < sizeof(tricky) / sizeof(tricky[0]) && line; i++) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		CHECK_STR(line, tricky[i]);
		line = nl ? nl + 1 : NULL;
	}
	free(got);
}

/* Runs analyze_main with stdout and stderr captured into *output (freed
 * by the caller). Returns its exit status. */
static int run_cli(char **output, const char **args)
{
	const char *cap = path_of("cli.out");
	char *argv[16];
	int saved_out = dup(1), saved_err = dup(2), fd, argc = 0, rc;

	while (argc < 15 && args[argc]) {
		argv[argc] = (char *)args[argc];
		argc++;
	}
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	fd = open(cap, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
	rc = analyze_main(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	*output = read_text(cap);
	return rc;
}

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

/* A standard normal draw (Box-Muller) from splitmix64. */
static double gen_normal(struct rng *s)
{
	double u1 = ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
	double u2 = (double)(rng_next(s) >> 11) / 9007199254740992.0;

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/*
 * Writes a generated closed-loop run at C=1: n requests of 50 tokens, TTFT
 * ~ N(100 + shift_ms, 8) ms, TPOT ~ N(20, 1) ms, ten gaps each ~ N(TPOT, 2),
 * sent one after another. Same seed, same run.
 */
static void write_generated(const char *path, const char *run_id, const char *label,
			    uint64_t seed, double shift_ms, size_t n, const char *digest)
{
	char err[TRACEFILE_ERRLEN];
	struct tracefile_writer *w;
	cJSON *h = cJSON_CreateObject(), *t, *rec;
	struct rng s = { seed };
	int64_t at = 0;
	size_t i, j;

	cJSON_AddStringToObject(h, "run_id", run_id);
	cJSON_AddStringToObject(h, "label", label);
	cJSON_AddStringToObject(h, "created", "2026-11-30T12:00:00Z");
	cJSON_AddStringToObject(h, "endpoint", "http://127.0.0.1:8000");
	t = cJSON_AddObjectToObject(h, "trace");
	cJSON_AddStringToObject(t, "digest", digest);
	t = cJSON_AddObjectToObject(h, "params");
	cJSON_AddStringToObject(t, "mode", "closed");
	w = tracefile_writer_open(path, TRACEFILE_KIND_RESULTS, h, 1, err);
	cJSON_Delete(h);
	CHECK(w != NULL);
	if (!w)
		return;
	for (i = 0; i < n; i++) {
		struct result r;
		double ttft = 100 + shift_ms + 8 * gen_normal(&s), tpot = 20 + gen_normal(&s);

		result_init(&r);
		r.level = 1;
		r.seq = (long)i;
		r.status = 200;
		r.sched_ns = r.send_ns = at;
		r.ttft_ns = r.ttfa_ns = (int64_t)(ttft * MS);
		r.e2e_ns = r.ttft_ns + (int64_t)(49 * tpot * MS);
		r.output_tokens = 50;
		r.itl_ns = malloc(10 * sizeof(int64_t));
		r.n_itl = 10;
		for (j = 0; j < 10; j++)
			r.itl_ns[j] = (int64_t)((tpot + 2 * gen_normal(&s)) * MS);
		at += r.e2e_ns;
		rec = result_to_json(&r);
		CHECK_EQ_INT(tracefile_writer_append(w, rec), 0);
		cJSON_Delete(rec);
		result_release(&r);
	}
	CHECK_EQ_INT(tracefile_writer_close(w, err), 0);
}

/*
 * Like write_generated, but 'repeats' repeats of 'per' requests, each
 * repeat with its own TTFT offset ~ N(0, rep_sd) ms: a server whose speed
 * drifts from run to run, the noise that repeats exist to measure.
 */
static void write_repeats(const char *path, const char *run_id, const char *label,
			  uint64_t seed, double shift_ms, int repeats, int per, double rep_sd)
{
	char err[TRACEFILE_ERRLEN];
	struct tracefile_writer *w;
	cJSON *h = cJSON_CreateObject(), *rec;
	struct rng s = { seed };
	int64_t at = 0;
	int k, i, j;

	cJSON_AddStringToObject(h, "run_id", run_id);
	cJSON_AddStringToObject(h, "label", label);
	w = tracefile_writer_open(path, TRACEFILE_KIND_RESULTS, h, 1, err);
	cJSON_Delete(h);
	CHECK(w != NULL);
	for (k = 0; w && k < repeats; k++) {
		double offset = rep_sd * gen_normal(&s);

		for (i = 0; i < per; i++) {
			struct result r;
			double ttft = 100 + shift_ms + offset + 2 * gen_normal(&s);

			result_init(&r);
			r.level = 1;
			r.repeat = k;
			r.seq = k * per + i;
			r.status = 200;
			r.sched_ns = r.send_ns = at;
			r.ttft_ns = r.ttfa_ns = (int64_t)(ttft * MS);
			r.e2e_ns = r.ttft_ns + 49 * 20 * MS;
			r.output_tokens = 50;
			r.itl_ns = malloc(2 * sizeof(int64_t));
			r.n_itl = 2;
			for (j = 0; j < 2; j++)
				r.itl_ns[j] = (int64_t)((20 + gen_normal(&s)) * MS);
			at += r.e2e_ns;
			rec = result_to_json(&r);
			CHECK_EQ_INT(tracefile_writer_append(w, rec), 0);
			cJSON_Delete(rec);
			result_release(&r);
		}
		at += 5 * S;   /* a pause between repeats */
	}
	if (w)
		CHECK_EQ_INT(tracefile_writer_close(w, err), 0);
}

static const struct compare_opts cmp_opts = { VERDICT_MIN_EFFECT, VERDICT_RESAMPLES,
					      VERDICT_SEED };

static const struct compare_row *find_row(const struct compare_result *r, const char *metric,
					  const char *stat)
{
	size_t i;

	for (i = 0; i < r->n_rows; i++)
		if (strcmp(r->rows[i].metric, metric) == 0 && strcmp(r->rows[i].stat, stat) == 0)
			return &r->rows[i];
	return NULL;
}

static int outcome_of(const struct compare_result *r, const char *metric, const char *stat)
{
	const struct compare_row *w = find_row(r, metric, stat);

	return w ? (int)w->v.outcome : -1;
}

TEST(compare_flags_a_10ms_ttft_shift_on_60_requests)
{
	const char *a = path_of("before.jsonl.gz"), *b = path_of("after.jsonl.gz");
	struct db *db = fresh_db("shift.db");
	struct compare_result res;
	const struct compare_row *w;
	char err[DB_ERRLEN];

	write_generated(a, "sh-a", "before", 1, 0, 60, "crc32:00000001");
	write_generated(b, "sh-b", "after", 2, 10, 60, "crc32:00000001");
	CHECK_EQ_INT(load(db, a, NULL, NULL), DB_OK);
	CHECK_EQ_INT(load(db, b, NULL, NULL), DB_OK);
	CHECK_EQ_INT(compare_runs(db, "before", "after", &cmp_opts, &res, err, sizeof(err)),
		     DB_OK);
	CHECK_EQ_INT(res.n_rows, 11);   /* P50 and P99 of five latencies, and tok/s */
	CHECK_EQ_INT(res.n_warnings, 0);
	CHECK_EQ_INT(res.n_levels, 1);
	w = find_row(&res, "TTFT", "P50");
	CHECK(w != NULL);
	if (w) {
		CHECK_EQ_INT(w->v.outcome, VERDICT_SLOWER);
		CHECK(w->v.lo > VERDICT_MIN_EFFECT && w->v.lo < 10 && w->v.hi > 10);
		CHECK(w->v.lo <= w->v.change_pct && w->v.change_pct <= w->v.hi);
	}
	/* 60 requests a side: P99 is shown but not judged */
	w = find_row(&res, "TTFT", "P99");
	CHECK(w && w->v.outcome == VERDICT_NA && !isnan(w->v.change_pct) && w->v.n_before == 60);
	/* TPOT's 5% spread on 60 requests: not enough to tell */
	CHECK_EQ_INT(outcome_of(&res, "TPOT", "P50"), VERDICT_INCONCLUSIVE);
	{
		size_t idx[4];

		CHECK_EQ_INT(compare_regressions(&res, 5, idx, 4), 2);   /* TTFT and TTFA */
		CHECK(res.rows[idx[0]].v.change_pct >= res.rows[idx[1]].v.change_pct);
		CHECK_STR(res.rows[idx[1]].stat, "P50");
		CHECK_EQ_INT(compare_regressions(&res, 50, idx, 4), 0);
	}
	compare_result_release(&res);
	/* The other way round the change is "faster", and nothing regressed. */
	CHECK_EQ_INT(compare_runs(db, "after", "before", &cmp_opts, &res, err, sizeof(err)),
		     DB_OK);
	CHECK_EQ_INT(outcome_of(&res, "TTFT", "P50"), VERDICT_FASTER);
	CHECK_EQ_INT(compare_regressions(&res, 0, NULL, 0), 0);
	compare_result_release(&res);
	CHECK_EQ_INT(compare_runs(db, "before", "ghost", &cmp_opts, &res, err, sizeof(err)),
		     DB_ERR_INPUT);
	CHECK(strstr(err, "'ghost'") != NULL);
	db_close(db);
}

/*
 * 40 pairs of runs drawn from one distribution with different seeds: no
 * metric is called faster or slower in more than 2 of them; noisy ones
 * (TTFT: 8% spread on 60 requests) are inconclusive rather than changed.
 */
TEST(compare_does_not_flag_the_same_server_across_seeds)
{
	static const char *const metrics[] = { "TTFT", "TTFA", "TPOT", "ITL", "E2E", "Agg tok/s" };
	const char *file = path_of("same.jsonl.gz");
	struct db *db = fresh_db("same.db");
	struct compare_result res;
	char err[DB_ERRLEN], id[32], la[32], lb[32];
	int flagged[6] = { 0 }, trials = 40, t, m;

	for (t = 0; t < trials; t++) {
		snprintf(la, sizeof(la), "a%d", t);
		snprintf(lb, sizeof(lb), "b%d", t);
		snprintf(id, sizeof(id), "same-a%d", t);
		write_generated(file, id, la, 1000 + 2 * (uint64_t)t, 0, 60, "crc32:00000002");
		CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);
		snprintf(id, sizeof(id), "same-b%d", t);
		write_generated(file, id, lb, 1001 + 2 * (uint64_t)t, 0, 60, "crc32:00000002");
		CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);
		CHECK_EQ_INT(compare_runs(db, la, lb, &cmp_opts, &res, err, sizeof(err)), DB_OK);
		for (m = 0; m < 6; m++) {
			int o = outcome_of(&res, metrics[m], m == 5 ? "" : "P50");

			if (o == VERDICT_FASTER || o == VERDICT_SLOWER || o < 0)
				flagged[m]++;
		}
		CHECK_EQ_INT(compare_regressions(&res, 5, NULL, 0), 0);
		compare_result_release(&res);
	}
	for (m = 0; m < 6; m++) {
		if (flagged[m] > 2)
			printf("  %s flagged in %d of %d trials\n", metrics[m], flagged[m], trials);
		CHECK(flagged[m] <= 2);
	}
	db_close(db);
}

/*
 * Runs of a server that drifts by N(0, 10 ms) from repeat to repeat, with
 * 2 ms of noise within one: 4 repeats of 20 requests. Requests alone would
 * look very precise; resampling repeats keeps the false alarms at most 2
 * of 40, and a 40 ms shift is still called.
 */
TEST(compare_uses_repeats_for_the_noise_between_runs)
{
	const char *file = path_of("reps.jsonl.gz");
	struct db *db = fresh_db("reps.db");
	struct compare_result res;
	const struct compare_row *w;
	char err[DB_ERRLEN], id[32], la[32], lb[32];
	int t, o, flagged = 0, flagged_agg = 0;

	for (t = 0; t < 40; t++) {
		snprintf(la, sizeof(la), "ra%d", t);
		snprintf(lb, sizeof(lb), "rb%d", t);
		snprintf(id, sizeof(id), "reps-a%d", t);
		write_repeats(file, id, la, 500 + 2 * (uint64_t)t, 0, 4, 20, 10);
		CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);
		snprintf(id, sizeof(id), "reps-b%d", t);
		write_repeats(file, id, lb, 501 + 2 * (uint64_t)t, 0, 4, 20, 10);
		CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);
		CHECK_EQ_INT(compare_runs(db, la, lb, &cmp_opts, &res, err, sizeof(err)), DB_OK);
		o = outcome_of(&res, "TTFT", "P50");
		flagged += o == VERDICT_FASTER || o == VERDICT_SLOWER;
		w = find_row(&res, "Agg tok/s", "");
		flagged_agg += !w || w->v.outcome == VERDICT_FASTER || w->v.outcome == VERDICT_SLOWER;
		if (t == 0 && w) {
			CHECK_EQ_INT(w->v.n_before, 4);   /* the repeats are the samples */
			CHECK_EQ_INT(res.levels[0].repeats_before, 4);
		}
		compare_result_release(&res);
	}
	CHECK(flagged <= 2);
	CHECK(flagged_agg <= 2);
	write_repeats(file, "reps-shift", "shifted", 9999, 40, 4, 20, 10);
	CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);
	CHECK_EQ_INT(compare_runs(db, "ra0", "shifted", &cmp_opts, &res, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(outcome_of(&res, "TTFT", "P50"), VERDICT_SLOWER);
	compare_result_release(&res);
	db_close(db);
}

/*
 * A closed-loop level at C=4: 16 requests of 10 tokens, 1 s each, four
 * slots sent back to back; the last request takes 'last_s' seconds.
 * Request i replays trace request first_id + i.
 */
static void write_level(const char *path, const char *run_id, const char *label,
			double last_s, long first_id, int fail_all, int estimated)
{
	char err[TRACEFILE_ERRLEN];
	struct tracefile_writer *w;
	cJSON *h = cJSON_CreateObject(), *rec;
	int i;

	cJSON_AddStringToObject(h, "run_id", run_id);
	cJSON_AddStringToObject(h, "label", label);
	w = tracefile_writer_open(path, TRACEFILE_KIND_RESULTS, h, 1, err);
	cJSON_Delete(h);
	CHECK(w != NULL);
	for (i = 0; w && i < 16; i++) {
		struct result r;
		double e2e = i == 15 ? last_s : 1;
		int j;

		result_init(&r);
		r.level = 4;
		r.seq = i;
		r.trace_id = first_id + i;
		r.status = fail_all ? 500 : 200;
		if (fail_all)
			result_set_error(&r, RESULT_ERR_HTTP, "HTTP 500");
		r.sched_ns = r.send_ns = (int64_t)(i / 4) * S;
		r.ttft_ns = r.ttfa_ns = fail_all ? -1 : 100 * MS + i * MS;
		r.e2e_ns = (int64_t)(e2e * (double)S);
		r.output_tokens = fail_all ? 0 : 10;
		r.tokens_estimated = estimated;
		r.itl_ns = malloc(9 * sizeof(int64_t));
		r.n_itl = fail_all ? 0 : 9;
		for (j = 0; j < 9; j++)
			r.itl_ns[j] = (r.e2e_ns - r.ttft_ns) / 9;
		rec = result_to_json(&r);
		CHECK_EQ_INT(tracefile_writer_append(w, rec), 0);
		cJSON_Delete(rec);
		result_release(&r);
	}
	if (w)
		CHECK_EQ_INT(tracefile_writer_close(w, err), 0);
}

/*
 * The verdict is about the tok/s shown: the last request taking 5 s
 * doubles the wall time and halves tokens / wall time, while Little's law
 * (C x tokens / sum of E2E) would call it a 20% drop.
 */
TEST(compare_judges_throughput_on_tokens_over_wall_time)
{
	const char *a = path_of("lv-a.jsonl.gz"), *b = path_of("lv-b.jsonl.gz");
	struct db *db = fresh_db("lv.db");
	struct compare_result res;
	struct result *rr = NULL;
	struct level_summary sum;
	const struct compare_row *w;
	char err[DB_ERRLEN];
	size_t n = 0;

	write_level(a, "lv-a", "even", 1, 0, 0, 0);
	write_level(b, "lv-b", "slow-last", 5, 0, 0, 0);
	CHECK_EQ_INT(load(db, a, NULL, NULL), DB_OK);
	CHECK_EQ_INT(load(db, b, NULL, NULL), DB_OK);
	CHECK_EQ_INT(compare_runs(db, "even", "slow-last", &cmp_opts, &res, err, sizeof(err)),
		     DB_OK);
	w = find_row(&res, "Agg tok/s", "");
	CHECK(w != NULL);
	CHECK_EQ_INT(db_results(db, "slow-last", 4, &rr, &n, err, sizeof(err)), DB_OK);
	summary_compute(rr, n, 4, NULL, &sum);
	db_results_free(rr, n);
	if (w) {
		CHECK_NEAR(w->v.after, sum.agg_tps, 1e-9);      /* the number report shows */
		CHECK_NEAR(w->v.before, 40, 1e-6);
		CHECK_NEAR(w->v.change_pct, -50, 1e-6);
		CHECK_EQ_INT(w->v.outcome, VERDICT_SLOWER);
		CHECK(w->v.paired);
	}
	CHECK(res.levels[0].paired);
	compare_result_release(&res);
	db_close(db);
}

TEST(compare_pairs_by_trace_id_only_the_same_requests)
{
	const char *a = path_of("pr-a.jsonl.gz"), *b = path_of("pr-b.jsonl.gz");
	const char *c = path_of("pr-c.jsonl.gz");
	struct db *db = fresh_db("pr.db");
	struct compare_result res;
	char err[DB_ERRLEN];

	write_level(a, "pr-a", "a", 1, 0, 0, 0);
	write_level(b, "pr-b", "b", 1, 0, 0, 0);
	write_level(c, "pr-c", "c", 1, 100, 0, 0);   /* other trace requests */
	CHECK_EQ_INT(load(db, a, NULL, NULL), DB_OK);
	CHECK_EQ_INT(load(db, b, NULL, NULL), DB_OK);
	CHECK_EQ_INT(load(db, c, NULL, NULL), DB_OK);
	CHECK_EQ_INT(compare_runs(db, "a", "b", &cmp_opts, &res, err, sizeof(err)), DB_OK);
	CHECK(res.levels[0].paired && find_row(&res, "TTFT", "P50")->v.paired);
	CHECK_EQ_INT(outcome_of(&res, "TTFT", "P50"), VERDICT_SAME);
	compare_result_release(&res);
	CHECK_EQ_INT(compare_runs(db, "a", "c", &cmp_opts, &res, err, sizeof(err)), DB_OK);
	CHECK(!res.levels[0].paired && !find_row(&res, "TTFT", "P50")->v.paired);
	compare_result_release(&res);
	db_close(db);
}

/* A level where every request failed: a line for it, no verdict, no crash. */
TEST(compare_says_why_a_level_has_no_verdict)
{
	const char *a = path_of("nf-a.jsonl.gz"), *b = path_of("nf-b.jsonl.gz");
	const char *dbp = path_of("nf.db");
	struct db *db = fresh_db("nf.db");
	struct compare_result res;
	char err[DB_ERRLEN], *out = NULL;

	write_level(a, "nf-a", "ok", 1, 0, 0, 1);
	write_level(b, "nf-b", "down", 1, 0, 1, 0);
	CHECK_EQ_INT(load(db, a, NULL, NULL), DB_OK);
	CHECK_EQ_INT(load(db, b, NULL, NULL), DB_OK);
	CHECK_EQ_INT(compare_runs(db, "ok", "down", &cmp_opts, &res, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(res.n_rows, 0);
	CHECK_EQ_INT(res.n_levels, 1);
	CHECK(!res.levels[0].compared && res.levels[0].failed_after == 16);
	compare_result_release(&res);
	db_close(db);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "compare", "--db", dbp, "ok",
						      "down", "--fail-on-regression", "5", NULL }), 1);
	CHECK(strstr(out, "C=4: no successful request in 'down' (0 and 16 failed); no verdict")
	      != NULL);
	CHECK(strstr(out, "regression: no successful request at C=4 in 'down' (16 failed)")
	      != NULL);
	CHECK(strstr(out, "Verdict") == NULL);
	free(out);
	/* estimated token counts are flagged where they count */
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "compare", "--db", dbp, "ok",
						      "ok", NULL }), 0);
	CHECK(strstr(out, "*: token counts estimated") != NULL);
	CHECK(strstr(out, "TPOT*") != NULL && strstr(out, "Agg tok/s*") != NULL);
	CHECK(strstr(out, "TTFT*") == NULL);
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
	CHECK(strstr(out, "| slower |") != NULL);
	CHECK(strstr(out, "One run a side: run-to-run noise was not measured") != NULL);
	CHECK(strstr(out, "| n/a (60 < 200 requests) |") != NULL);
	free(out);
	/* TTFT got ~10% worse: a 5% limit fails, naming what; a 50% limit passes. */
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "compare", "--db", dbp,
						      "--fail-on-regression", "5", "main", "pr",
						      NULL }), 1);
	CHECK(strstr(out, "regression: TTFT P50 at C=1 +") != NULL);
	CHECK(strstr(out, "] > 5%\n") != NULL);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "compare", "--db", dbp,
						      "--fail-on-regression", "50", "main", "pr",
						      NULL }), 0);
	CHECK(strstr(out, "regression") == NULL);
	free(out);
	/* a min effect above the change: nothing is slower, the gate passes */
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "compare", "--db", dbp,
						      "--min-effect", "40", "--fail-on-regression",
						      "5", "main", "pr", NULL }), 0);
	CHECK(strstr(out, "slower\n") == NULL);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "compare", "--db", dbp,
						      "--format", "json", "pr", "main", NULL }), 0);
	CHECK(strstr(out, "\"metric\": \"TTFT\", \"stat\": \"P50\"") != NULL);
	CHECK(strstr(out, "\"verdict\": \"faster\"") != NULL);
	CHECK(strstr(out, "\"min_effect_pct\": 3") != NULL);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "compare", "--db", dbp,
						      "--format", "csv", "main", "pr", NULL }), 0);
	CHECK(strstr(out, "\nbefore,after,concurrency,metric,stat,unit,n_before,n_after,"
		      "repeats_before,repeats_after,paired,before_value,after_value,change_pct,"
		      "ci_lo,ci_hi,verdict,tokens_estimated\n") != NULL);
	CHECK(strstr(out, "\nmain,pr,1,TTFT,P50,ms,60,60,1,1,") != NULL);
	CHECK(strstr(out, ",slower,0\n") != NULL);
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
	CHECK(strstr(out, "label,created,endpoint,model,trace,mode,levels,requests,errors\n")
	      != NULL);
	CHECK(strstr(out, "\npr,2026-11-30T12:00:00Z,http://127.0.0.1:8000,,crc32:000000bb,"
		      "closed,1,60,0\n") != NULL);
	free(out);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "runs", "--db", dbp,
						      "--format", "json", NULL }), 0);
	CHECK(strstr(out, "{\"label\": \"pr\", \"created\": \"2026-11-30T12:00:00Z\", "
		      "\"endpoint\": \"http://127.0.0.1:8000\", \"model\": null, \"trace\": "
		      "\"crc32:000000bb\", \"mode\": \"closed\", \"levels\": \"1\", "
		      "\"requests\": 60, \"errors\": 0}") != NULL);
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

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	return remove(path);
}

int main(void)
{
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(load_twice_does_not_double_rows);
	RUN(levels_summarize_like_numpy);
	RUN(itl_text_other_than_our_own_still_reads);
	RUN(report_prints_heading_table_and_warmup);
	RUN(files_under_one_label_report_as_one_run);
	RUN(export_writes_quoted_csv);
	RUN(malformed_record_rolls_back);
	RUN(truncated_file_loads_complete_records);
	RUN(newer_schema_is_refused);
	RUN(version_1_database_reads_and_migrates);
	RUN(repeats_are_stored_and_their_walls_summed);
	RUN(plot_writes_data_script_and_png);
	RUN(plot_labels_cannot_inject_gnuplot_commands);
	RUN(plot_overlays_runs_and_renders_svg_and_pdf);
	RUN(plot_without_gnuplot_writes_script_only);
	RUN(gp_strings_hold_no_quote_in_literals);
	RUN(cli_exit_codes_and_messages);
	RUN(compare_flags_a_10ms_ttft_shift_on_60_requests);
	RUN(compare_does_not_flag_the_same_server_across_seeds);
	RUN(compare_uses_repeats_for_the_noise_between_runs);
	RUN(compare_judges_throughput_on_tokens_over_wall_time);
	RUN(compare_pairs_by_trace_id_only_the_same_requests);
	RUN(compare_says_why_a_level_has_no_verdict);
	RUN(compare_warns_and_fails_on_regression_from_the_cli);
	/* Keep the files of a failed run for a look; remove them otherwise. */
	if (!harness_failed)
		nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return harness_done();
}
