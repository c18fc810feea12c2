/*
 * test_analyze_db.c - db.c: the analysis database on real files: loading
 * (twice, under another label, truncated, malformed), the itl_us text, the
 * schema version and the version 1 migration, the requests table against
 * lib/result_field.c's fields, repeats stored.
 */
#define _XOPEN_SOURCE 700   /* nftw */  /* NOLINT(bugprone-reserved-identifier): POSIX's own name */
#include "harness.h"
#include "analyze_fixture.h"
#include "lib/result_field.h"

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
	struct tracefile_reader *r = tracefile_reader_open(path, TRACEFILE_KIND_RESULTS, err, sizeof(err));
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
	CHECK_EQ_INT(sqlite3_exec(s, "PRAGMA user_version = 16", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
	db = NULL;
	CHECK_EQ_INT(db_open(path, DB_WRITE, &db, err, sizeof(err)), DB_ERR_INPUT);
	CHECK(strstr(err, "schema version 16, newer than this tracebench knows (15)") != NULL);
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
	"CREATE VIEW v_requests AS SELECT r.label AS run, q.run_id AS run_id,"
	" q.level AS concurrency, q.seq AS seq, q.warmup AS warmup, q.status AS status,"
	" q.error AS error, q.ttft_ns / 1e6 AS ttft_ms, q.ttfa_ns / 1e6 AS ttfa_ms,"
	" q.e2e_ns / 1e6 AS e2e_ms, CASE WHEN q.output_tokens >= 2 AND q.ttft_ns IS NOT NULL"
	" THEN (q.e2e_ns - q.ttft_ns) / 1e6 / (q.output_tokens - 1) END AS tpot_ms,"
	" q.input_tokens AS input_tokens, q.output_tokens AS output_tokens,"
	" q.tokens_estimated AS tokens_estimated, q.sched_ns / 1e6 AS sched_ms,"
	" q.send_ns / 1e6 AS send_ms FROM requests q JOIN runs r USING (run_id);"
	"INSERT INTO runs (run_id, label) VALUES ('old', 'old');"
	"INSERT INTO requests VALUES ('old', 0, 1, 0, 0, 200, NULL, NULL, 0, 0,"
	" 100000000, 100000000, 600000000, 10, 11, 0, '[50000,50000]');"
	"INSERT INTO requests VALUES ('old', 1, 1, 1, 0, 200, NULL, NULL, 600000000,"
	" 600000000, 300000000, 300000000, 800000000, 10, 11, 0, '[50000]');"
	"PRAGMA user_version = 1;";

/* The requests table of the database at path has one column for each
 * field of lib/result_field.c, of the type and nullability it declares
 * (an older database's columns are added from those declarations), and
 * run_id besides. */
static void requests_columns_are_the_fields(const char *path)
{
	sqlite3 *s = NULL;
	sqlite3_stmt *st = NULL;
	size_t n = 0;

	CHECK_EQ_INT(sqlite3_open(path, &s), SQLITE_OK);
	CHECK_EQ_INT(sqlite3_prepare_v2(s, "SELECT name, type, \"notnull\" FROM"
					" pragma_table_info('requests') WHERE name != 'run_id'",
					-1, &st, NULL), SQLITE_OK);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *type = (const char *)sqlite3_column_text(st, 1);
		const struct result_field *f = result_field_find(name);

		n++;
		CHECK(f != NULL);
		if (!f) {
			fprintf(stderr, "  column %s is no field\n", name);
			continue;
		}
		CHECK(strncmp(f->decl, type, strlen(type)) == 0);
		CHECK_EQ_INT(sqlite3_column_int(st, 2), strstr(f->decl, "NOT NULL") != NULL);
	}
	CHECK_EQ_INT(n, result_n_fields);
	sqlite3_finalize(st);
	sqlite3_close(s);
}

TEST(every_field_is_a_column_of_its_declared_type)
{
	struct db *db = fresh_db("fields.db");

	db_close(db);
	requests_columns_are_the_fields(path_of("fields.db"));
}

/* The export's rows, as text: the header's names, then each row's cells
 * ("" for NULL), comma-joined, a line each. */
static int export_text(void *ctx, int ncols, const char *const *names, const char *const *cells)
{
	char *buf = ctx;
	size_t len = strlen(buf);
	int i;

	for (i = 0; i < ncols && len < 4000; i++)
		len += (size_t)snprintf(buf + len, 4096 - len, "%s%s", i ? "," : "",
					cells ? (cells[i] ? cells[i] : "") : names[i]);
	if (len < 4000)
		snprintf(buf + len, 4096 - len, "\n");
	return 0;
}

/* A database of version 1 exports as it is (read, not migrated): every
 * column it has from its own view, the later ones empty or left out. */
TEST(version_1_database_exports_as_it_is)
{
	const char *path = path_of("v1x.db");
	char err[DB_ERRLEN], text[4096] = "";
	struct db *db = NULL;
	sqlite3 *s = NULL;

	unlink(path);
	CHECK_EQ_INT(sqlite3_open(path, &s), SQLITE_OK);
	CHECK_EQ_INT(sqlite3_exec(s, schema_v1, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
	CHECK_EQ_INT(db_open(path, DB_READ, &db, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(db_export_rows(db, "old", 1, export_text, text, err, sizeof(err)), DB_OK);
	db_close(db);
	CHECK_STR(text,
		     "run,concurrency,seq,trace_id,warmup,status,error,ttft_ms,ttfa_ms,e2e_ms,"
		     "tpot_ms,input_tokens,output_tokens,tokens_estimated,run_id,error_detail,"
		     "repeat,sched_ms,send_ms,tokens_source,token_events,cached_tokens,salt,"
		     "new_connection,connect_ms,tls_ms,session,turn,itl_us\n"
		     "old,1,0,0,0,200,,100.000,100.000,600.000,50.000,10,11,0,old,,,0.000,0.000,"
		     ",,,,,,,,,[50000,50000]\n"
		     "old,1,1,1,0,200,,300.000,300.000,800.000,50.000,10,11,0,old,,,600.000,"
		     "600.000,,,,,,,,,,[50000]\n");
	/* read, not migrated */
	CHECK_EQ_INT(sqlite3_open(path, &s), SQLITE_OK);
	CHECK_EQ_INT(sqlite3_exec(s, "SELECT 1 FROM requests WHERE repeat IS NULL", NULL, NULL,
				  NULL), SQLITE_ERROR);
	sqlite3_close(s);
}

TEST(version_1_database_reads_and_migrates)
{
	const char *path = path_of("v1.db");
	struct run run;
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
	CHECK_EQ_INT(run_read(db, "old", NULL, &run, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(run.n_levels, 1);
	if (run.n_levels == 1) {
		CHECK_NEAR(run.levels[0].ttft.p50, 200, 1e-9);
		CHECK_NEAR(run.levels[0].wall_s, 1.4, 1e-9);
	}
	run_release(&run);
	db_close(db);
	/* Opened for writing (analyze load): migrated to this version, rows kept,
	 * every old request streamed, its token source told by tokens_estimated, the metrics tables
	 * there and empty. */
	db = NULL;
	CHECK_EQ_INT(db_open(path, DB_WRITE, &db, err, sizeof(err)), DB_OK);
	db_close(db);
	CHECK_EQ_INT(count_rows(path, "requests"), 2);
	CHECK_EQ_INT(sqlite3_open(path, &s), SQLITE_OK);
	CHECK_EQ_INT(sqlite3_prepare_v2(s, "SELECT (SELECT user_version FROM pragma_user_version),"
					" sum(repeat), (SELECT count(*) FROM v_requests WHERE"
					" repeat = 0 AND streamed = 1), sum(tokens_source = 'usage'),"
					" sum(new_connection), count(cached_tokens),"
					" count(session) + count(turn) + count(rate),"
					" (SELECT count(provenance) FROM runs),"
					" count(server_timings) + count(server_prefill_ns),"
					" (SELECT count(rest_ttft_ms) FROM v_requests) FROM requests",
					-1, &st, NULL), SQLITE_OK);
	CHECK_EQ_INT(sqlite3_step(st), SQLITE_ROW);
	CHECK_EQ_INT(sqlite3_column_int(st, 0), DB_SCHEMA_VERSION);
	CHECK_EQ_INT(sqlite3_column_int(st, 1), 0);
	CHECK_EQ_INT(sqlite3_column_int(st, 2), 2);
	CHECK_EQ_INT(sqlite3_column_int(st, 3), 2);
	CHECK_EQ_INT(sqlite3_column_int(st, 4), 0);
	CHECK_EQ_INT(sqlite3_column_int(st, 5), 0);
	CHECK_EQ_INT(sqlite3_column_int(st, 6), 0);     /* in no session, of no rate level */
	CHECK_EQ_INT(sqlite3_column_int(st, 7), 0);     /* a run of version 1 has no provenance */
	CHECK_EQ_INT(sqlite3_column_int(st, 8), 0);     /* ... nor the server's timings */
	CHECK_EQ_INT(sqlite3_column_int(st, 9), 0);
	sqlite3_finalize(st);
	sqlite3_close(s);
	CHECK_EQ_INT(count_rows(path, "metric_scrapes"), 0);
	CHECK_EQ_INT(count_rows(path, "metric_samples"), 0);
	requests_columns_are_the_fields(path);
}

/* Version 10 (issue 35): a database of version 9, its metric_scrapes
 * without the at column, is read as it is (every scrape an interval's)
 * and gets the column when opened for writing. */
TEST(version_9_metric_scrapes_migrate)
{
	const char *path = path_of("v9.db");
	struct db_metric_level *lv = NULL;
	struct energy_counter c;
	char err[DB_ERRLEN];
	struct db *db = fresh_db("v9.db");
	sqlite3 *s = NULL;
	size_t n = 0;

	db_close(db);
	CHECK_EQ_INT(sqlite3_open(path, &s), SQLITE_OK);
	CHECK_EQ_INT(sqlite3_exec(s, "ALTER TABLE metric_scrapes DROP COLUMN source;"
				  "ALTER TABLE metric_scrapes DROP COLUMN at;"
				  "ALTER TABLE runs DROP COLUMN trace_crc32;"
				  "DROP VIEW v_summary; DROP VIEW v_requests;"
				  "ALTER TABLE requests DROP COLUMN cancel;"
				  "ALTER TABLE requests DROP COLUMN model;"
				  "ALTER TABLE requests DROP COLUMN client_issue_ns;"
				  "ALTER TABLE requests DROP COLUMN client_read_ns;"
				  "INSERT INTO runs (run_id, label) VALUES ('r8', 'r8');"
				  "INSERT INTO metric_scrapes (run_id, scrape, level, t_ns, ok)"
				  " VALUES ('r8', 0, 2, 0, 1), ('r8', 1, 2, 100, 1);"
				  "INSERT INTO metric_samples VALUES"
				  " ('r8', 0, 'vllm:generation_tokens_total', 'vllm:generation_tokens_total', 10),"
				  " ('r8', 1, 'vllm:generation_tokens_total', 'vllm:generation_tokens_total', 25);"
				  "PRAGMA user_version = 9", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
	db = NULL;
	CHECK_EQ_INT(db_open(path, DB_READ, &db, err, sizeof(err)), DB_OK);
	energy_counter_default(&c);
	CHECK_EQ_INT(db_metric_levels(db, "r8", &c, &lv, &n, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(n, 1);
	if (n == 1) {
		CHECK_NEAR(lv[0].m.delta[SRVMETRIC_GEN_TOKENS], 15, 0);
		CHECK(!lv[0].m.windowed);
	}
	free(lv);
	db_close(db);
	db = NULL;
	CHECK_EQ_INT(db_open(path, DB_WRITE, &db, err, sizeof(err)), DB_OK);
	db_close(db);
	CHECK_EQ_INT(sqlite3_open(path, &s), SQLITE_OK);
	CHECK_EQ_INT(sqlite3_exec(s, "SELECT count(at), count(source) FROM metric_scrapes", NULL,
				  NULL, NULL), SQLITE_OK);
	/* and requests.model (version 14), with the views that read it */
	CHECK_EQ_INT(sqlite3_exec(s, "SELECT count(model) FROM requests;"
				  "SELECT count(model) FROM v_requests", NULL, NULL, NULL), SQLITE_OK);
	/* and the client's delays (version 15), in the views too */
	CHECK_EQ_INT(sqlite3_exec(s, "SELECT count(client_issue_ns), count(client_read_ns) FROM"
				  " requests; SELECT count(client_issue_ms), count(client_read_ms)"
				  " FROM v_requests", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
}

/* Version 11 (issue 35): a database of version 10, its metric_scrapes
 * without the source column, reads as one source with its energy over
 * the level's window, and gets the column when opened for writing, after
 * which a second source's scrapes fold apart from the first's. */
TEST(version_10_metric_scrapes_migrate)
{
	const char *path = path_of("v10.db");
	static const char dcgm[] = "'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION',"
				   " 'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\"}'";
	struct db_metric_level *lv = NULL;
	struct energy_counter c;
	int yes;
	char err[DB_ERRLEN], sql[1024];
	struct db *db = fresh_db("v10.db");
	sqlite3 *s = NULL;
	size_t n = 0;

	db_close(db);
	energy_counter_default(&c);
	CHECK_EQ_INT(sqlite3_open(path, &s), SQLITE_OK);
	snprintf(sql, sizeof(sql), "ALTER TABLE metric_scrapes DROP COLUMN source;"
		 "ALTER TABLE runs DROP COLUMN trace_crc32;"
		 "DROP VIEW v_summary; DROP VIEW v_requests;"
		 "ALTER TABLE requests DROP COLUMN cancel;"
		 "ALTER TABLE requests DROP COLUMN model;"
		 "ALTER TABLE requests DROP COLUMN client_issue_ns;"
		 "ALTER TABLE requests DROP COLUMN client_read_ns;"
		 "INSERT INTO runs (run_id, label) VALUES ('r10', 'r10');"
		 "INSERT INTO metric_scrapes (run_id, scrape, level, t_ns, ok, at)"
		 " VALUES ('r10', 0, 4, 1000000000, 1, 'level_start'),"
		 " ('r10', 1, 4, 3000000000, 1, 'level_end');"
		 "INSERT INTO metric_samples VALUES ('r10', 0, %s, 5000), ('r10', 1, %s, 605000);"
		 "PRAGMA user_version = 10", dcgm, dcgm);
	CHECK_EQ_INT(sqlite3_exec(s, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
	db = NULL;
	CHECK_EQ_INT(db_open(path, DB_READ, &db, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(db_metric_levels(db, "r10", &c, &lv, &n, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(n, 1);
	if (n == 1) {
		CHECK_STR(lv[0].source, "");
		CHECK_EQ_INT(lv[0].e.rc, 0);
		CHECK_NEAR(lv[0].e.joules, 600, 1e-9);
		CHECK_NEAR(lv[0].e.window_s, 2, 1e-12);
	}
	free(lv);
	lv = NULL;
	db_close(db);
	db = NULL;
	CHECK_EQ_INT(db_open(path, DB_WRITE, &db, err, sizeof(err)), DB_OK);
	db_close(db);
	db = NULL;
	CHECK_EQ_INT(sqlite3_open(path, &s), SQLITE_OK);
	snprintf(sql, sizeof(sql), "INSERT INTO metric_scrapes (run_id, scrape, level, t_ns, ok, at,"
		 " source) VALUES ('r10', 2, 4, 1000000000, 1, 'level_start', 'http://gpu/metrics'),"
		 " ('r10', 3, 4, 3000000000, 1, 'level_end', 'http://gpu/metrics');"
		 "INSERT INTO metric_samples VALUES ('r10', 2, %s, 0), ('r10', 3, %s, -1);", dcgm,
		 dcgm);
	CHECK_EQ_INT(sqlite3_exec(s, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
	CHECK_EQ_INT(db_open(path, DB_READ, &db, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(db_metric_levels(db, "r10", &c, &lv, &n, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(n, 2);
	if (n == 2) {
		CHECK_STR(lv[0].source, "");            /* first to scrape: the old one */
		CHECK_NEAR(lv[0].e.joules, 600, 1e-9);
		CHECK_STR(lv[1].source, "http://gpu/metrics");
		CHECK_EQ_INT(lv[1].e.rc, ENERGY_BAD_VALUE);   /* -1 mJ: no figure */
	}
	free(lv);
	/* what compare asks before it reads a run for its energy figures */
	yes = -1;
	CHECK_EQ_INT(db_run_has_sample(db, "r10", c.name, &yes, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(yes, 1);
	CHECK_EQ_INT(db_run_has_sample(db, "r10", "vllm:num_requests_running", &yes, err,
				       sizeof(err)), DB_OK);
	CHECK_EQ_INT(yes, 0);
	CHECK_EQ_INT(db_run_has_sample(db, "no-such-run", c.name, &yes, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(yes, 0);
	db_close(db);
}

TEST(repeats_are_stored_and_their_walls_summed)
{
	const char *file = path_of("rep.jsonl.gz");
	struct db *db = fresh_db("rep.db");
	struct run run;
	struct tracefile_writer *w;
	char err[DB_ERRLEN], terr[TRACEFILE_ERRLEN];
	cJSON *h = cJSON_CreateObject(), *rec;
	int i;

	cJSON_AddStringToObject(h, "run_id", "rep1");
	cJSON_AddStringToObject(h, "label", "rep");
	w = tracefile_writer_open(file, TRACEFILE_KIND_RESULTS, h, 1, terr, sizeof(terr));
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
	CHECK_EQ_INT(tracefile_writer_close(w, terr, sizeof(terr)), 0);
	CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);
	CHECK_EQ_INT(run_read(db, "rep", NULL, &run, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(run.n_levels, 1);
	if (run.n_levels == 1) {
		CHECK_EQ_INT(run.levels[0].repeats, 2);
		CHECK_NEAR(run.levels[0].wall_s, 4.0, 1e-9);    /* 2 s + 2 s, not 12 s */
		CHECK_NEAR(run.levels[0].agg_tps, 200 / 4.0, 1e-9);
	}
	run_release(&run);
	db_close(db);
}

/*
 * A search over rates (results version 4): levels -1, -2, ... each of its
 * own offered rate, stored in requests.rate and read back; report orders
 * them by rate, not by level number. A rate level without its rate is
 * malformed.
 */
TEST(rate_levels_keep_their_rates_in_order_of_rate)
{
	const char *file = path_of("rates.jsonl.gz");
	struct db *db = fresh_db("rates.db");
	struct run run;
	struct tracefile_writer *w;
	char err[DB_ERRLEN], terr[TRACEFILE_ERRLEN];
	cJSON *h = cJSON_CreateObject(), *rec;
	static const double rates[] = { 20, 40, 30 };   /* as a bisection probes them */
	struct result r;
	int i;

	cJSON_AddStringToObject(h, "run_id", "rates1");
	cJSON_AddStringToObject(h, "label", "rates");
	cJSON_AddNumberToObject(h, "version", 4);
	w = tracefile_writer_open(file, TRACEFILE_KIND_RESULTS, h, 1, terr, sizeof(terr));
	cJSON_Delete(h);
	CHECK(w != NULL);
	for (i = 0; w && i < 6; i++) {
		set_result(&r, -(i / 2 + 1), i, 0, (i % 2) * S + (i / 2) * 10 * S, 100 * MS, S, 50);
		r.rate = rates[i / 2];
		rec = result_to_json(&r);
		CHECK_EQ_INT(tracefile_writer_append(w, rec), 0);
		cJSON_Delete(rec);
		result_release(&r);
	}
	CHECK_EQ_INT(tracefile_writer_close(w, terr, sizeof(terr)), 0);
	CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);
	CHECK_EQ_INT(run_read(db, "rates", NULL, &run, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(run.n_levels, 3);
	for (i = 0; i < 3 && run.n_levels == 3; i++) {
		CHECK_NEAR(run.levels[i].level.rate, 20.0 + 10 * i, 1e-12);
		CHECK_EQ_INT(load_code(run.levels[i].level), i == 0 ? -1 : i == 1 ? -3 : -2);
		CHECK_EQ_INT((long)run.levels[i].requests, 2);
	}
	run_release(&run);
	db_close(db);
	/* no rate: refused where it enters */
	set_result(&r, -1, 0, 0, 0, 100 * MS, S, 50);
	rec = result_to_json(&r);
	cJSON_DeleteItemFromObject(rec, "rate");
	{       /* read as a file gives it: printed, then parsed */
		char *text = cJSON_PrintUnformatted(rec);

		cJSON_Delete(rec);
		rec = cJSON_Parse(text);
		free(text);
	}
	result_release(&r);
	result_init(&r);
	CHECK_EQ_INT(result_from_json(&r, rec, terr, sizeof(terr)), -1);
	CHECK(strstr(terr, "a rate level (negative 'level') needs its 'rate'") != NULL);
	cJSON_Delete(rec);
	result_release(&r);
}

/* One label, one run: only shards of one run merge under it; two separate
 * runs would double its throughput. The database is left as it was. */
TEST(separate_runs_under_one_label_are_refused)
{
	const char *a = path_of("run-a.jsonl.gz"), *b = path_of("run-b.jsonl.gz");
	const char *s0 = path_of("sh0.jsonl.gz"), *s0b = path_of("sh0b.jsonl.gz");
	struct db_load_info info;
	struct db *db = fresh_db("label.db");
	char err[DB_ERRLEN];

	write_results(a, "a1", "a", NULL);
	write_results(b, "b1", "b", NULL);
	CHECK_EQ_INT(load(db, a, "x", NULL), DB_OK);
	CHECK_EQ_INT(db_load_results(db, b, "x", &info, err, sizeof(err)), DB_ERR_INPUT);
	CHECK(strstr(err, "run 'x' holds") != NULL);
	CHECK(strstr(err, "not shards of one run; load it under a label of its own "
		      "(--label NAME)") != NULL);
	CHECK(strchr(err, '\n') == NULL);
	CHECK_EQ_INT(load(db, b, "y", NULL), DB_OK);          /* a label of its own: fine */
	/* a shard joining a run that is no shard, or a shard twice: refused */
	write_results_shard(s0, "s0", "s", "0/2", NULL);
	write_results_shard(s0b, "s0b", "s", "0/2", NULL);
	CHECK_EQ_INT(load(db, s0, "x", NULL), DB_ERR_INPUT);
	CHECK_EQ_INT(load(db, s0, "s", NULL), DB_OK);
	CHECK_EQ_INT(load(db, s0b, "s", NULL), DB_ERR_INPUT);
	CHECK_EQ_INT(count_rows(path_of("label.db"), "runs"), 3);
	db_close(db);
}

int main(void)
{
	if (fixture_setup() != 0)
		return 1;
	RUN(load_twice_does_not_double_rows);
	RUN(separate_runs_under_one_label_are_refused);
	RUN(itl_text_other_than_our_own_still_reads);
	RUN(malformed_record_rolls_back);
	RUN(truncated_file_loads_complete_records);
	RUN(newer_schema_is_refused);
	RUN(every_field_is_a_column_of_its_declared_type);
	RUN(version_1_database_exports_as_it_is);
	RUN(version_1_database_reads_and_migrates);
	RUN(version_9_metric_scrapes_migrate);
	RUN(version_10_metric_scrapes_migrate);
	RUN(repeats_are_stored_and_their_walls_summed);
	RUN(rate_levels_keep_their_rates_in_order_of_rate);
	return fixture_done();
}
