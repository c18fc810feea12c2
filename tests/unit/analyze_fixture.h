/*
 * analyze_fixture.h - what the unit tests of analyze/ share: a temporary
 * directory, the sample run written as a real results file (numbers worked
 * out by hand, see sample_results), a generated run (write_generated), a
 * fresh database, analyze_main run with its output captured (run_cli), and
 * a few file helpers. Each test_analyze*.c includes it after harness.h; the
 * functions are static inline so that a test file need not use them all.
 *
 * The sample run: level 1 has five measured requests with TTFT 100, 200,
 * 300, 400 and 1000 ms, so numpy.percentile gives P50 300, P95 880 and P99
 * 976 ms; one warm-up with a cold-start TTFT of 1012.3 ms; level 2 has one
 * failed request.
 */
#ifndef TB_ANALYZE_FIXTURE_H
#define TB_ANALYZE_FIXTURE_H

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
static inline const char *path_of(const char *name)
{
	static char buf[32][512];
	static int i;

	i = (i + 1) % 32;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmp, name);
	return buf[i];
}

static inline int file_exists(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0;
}

static inline long file_size(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

/* Reads a whole small file; the caller frees it. */
static inline char *read_text(const char *path)
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

static inline void set_result(struct result *r, int level, long seq, int warmup,
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
static inline size_t sample_results(struct result *v)
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

/* Writes a results file of the sample run, shard 'shard' ("K/N", NULL:
 * none) of it; extra_raw (may be NULL) is appended as one more, raw,
 * record line. */
static inline void write_results_shard(const char *path, const char *run_id, const char *label,
				       const char *shard, const char *extra_raw)
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
	if (shard)
		cJSON_AddStringToObject(params, "shard", shard);

	w = tracefile_writer_open(path, TRACEFILE_KIND_RESULTS, h, 1, err, sizeof(err));
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
	CHECK_EQ_INT(tracefile_writer_close(w, err, sizeof(err)), 0);
}

/* write_results_shard of no shard. */
static inline void write_results(const char *path, const char *run_id, const char *label,
				 const char *extra_raw)
{
	write_results_shard(path, run_id, label, NULL, extra_raw);
}

/* Opens a fresh database file tmp/name for writing. */
static inline struct db *fresh_db(const char *name)
{
	char err[DB_ERRLEN];
	struct db *db = NULL;

	unlink(path_of(name));
	CHECK_EQ_INT(db_open(path_of(name), DB_WRITE, &db, err, sizeof(err)), DB_OK);
	return db;
}

static inline int load(struct db *db, const char *file, const char *label, size_t *requests)
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
static inline long count_rows(const char *path, const char *table)
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
static inline char *report_to_string(struct db *db, const char *run, enum table_format fmt,
			             int export, int *rc)
{
	char err[DB_ERRLEN];
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	*rc = export ? report_export(db, run, 0, 0, out, err, sizeof(err))
		     : report_print(db, run, fmt, NULL, 0, out, err, sizeof(err));
	fclose(out);
	return buf;
}

/* A standard normal draw (Box-Muller) from splitmix64. */
static inline double gen_normal(struct rng *s)
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
static inline void write_generated(const char *path, const char *run_id, const char *label,
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
	w = tracefile_writer_open(path, TRACEFILE_KIND_RESULTS, h, 1, err, sizeof(err));
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
	CHECK_EQ_INT(tracefile_writer_close(w, err, sizeof(err)), 0);
}

/* Runs analyze_main with stdout and stderr captured into *output (freed
 * by the caller). Returns its exit status. */
static inline int run_cli(char **output, const char **args)
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

static inline int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* Creates the temporary directory; returns 0, or -1 with a message. */
static inline int fixture_setup(void)
{
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return -1;
	}
	return 0;
}

/* Keeps the files of a failed run for a look; removes them otherwise. */
static inline int fixture_done(void)
{
	if (!harness_failed)
		nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return harness_done();
}

#endif
