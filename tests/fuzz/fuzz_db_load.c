/*
 * fuzz_db_load.c - libFuzzer target for `analyze load` of a results file
 * (analyze/db_load.c: the header, the merge of shards, the request and
 * metrics records into SQLite) and for the readers that take a run back
 * out (analyze/db_read.c). fuzz_tracefile reaches the file reader and the
 * record parsers; this target goes on to what the database makes of what
 * they accept.
 *
 * Byte 0 picks how the rest is written to the scratch file (bits 0-1:
 * plain, gzip, or gzip cut short; fuzz_write_input) and, with bit 2, that
 * it is loaded under the label its header names, else under "fuzz". The
 * in-memory database holds shard 1/2 of a run labelled "sweep" before
 * each input, so a header that joins that label reaches the merge checks.
 *
 * The outcome must be one of db_load_results' codes and never DB_ERR_WORK
 * (nothing here can fail but the input); a refusal names the file and
 * leaves the database as it was; a load stores as many requests as it
 * says, the run reads back through every reader, each request as the
 * results reader read it from the file (by seq), and a second load of the
 * file is DB_ALREADY_LOADED; removing the run (db_remove_run) takes all
 * of it. A broken rule aborts.
 */
#include "fuzz_util.h"
#include "analyze/db.h"
#include "lib/tracefile.h"

/* Shard 1/2 of a real closed-loop run (replay's output, two levels, a
 * metrics record of llama.cpp's names). */
static const char base_file[] =
	"{\"format\":\"tracebench-results\",\"version\":2,\"run_id\":\"c3f0a1b2d4e5f607\","
	"\"label\":\"sweep\",\"created\":\"2026-11-30T14:04:45Z\",\"tool\":\"tracebench 0.1.0\","
	"\"endpoint\":\"http://127.0.0.1:8080\",\"model\":\"qwen2.5-0.5b\","
	"\"trace\":{\"path\":\"synth-8.jsonl.gz\",\"digest\":\"crc32:84312110\",\"requests\":8},"
	"\"params\":{\"mode\":\"closed\",\"concurrency\":[1,2],\"requests\":4,\"warmup\":1,"
	"\"timeout_s\":600,\"shard\":\"1/2\",\"salt_seed\":7}}\n"
	"{\"level\":1,\"seq\":0,\"trace_id\":0,\"warmup\":true,\"status\":200,\"error\":null,"
	"\"sched_ns\":249583,\"send_ns\":249583,\"ttft_ns\":35546296,\"ttfa_ns\":35546296,"
	"\"e2e_ns\":230247292,\"input_tokens\":64,\"output_tokens\":4,\"tokens_estimated\":false,"
	"\"itl_us\":[4327,4992,5019]}\n"
	"{\"level\":2,\"seq\":1,\"trace_id\":1,\"warmup\":false,\"status\":500,\"error\":\"http\","
	"\"error_detail\":\"Internal Server Error\",\"sched_ns\":231058991,\"send_ns\":231058991,"
	"\"ttft_ns\":-1,\"ttfa_ns\":-1,\"e2e_ns\":1883323,\"input_tokens\":64,\"output_tokens\":0,"
	"\"tokens_estimated\":false,\"itl_us\":[]}\n"
	"{\"type\":\"metrics\",\"t_ns\":500000000,\"level\":2,\"repeat\":0,\"latency_us\":812,"
	"\"status\":200,\"ok\":true,\"bad_lines\":0,\"samples\":{"
	"\"llamacpp:requests_processing\":1,\"llamacpp:requests_deferred\":0,"
	"\"llamacpp:kv_cache_usage_ratio\":0.25}}\n";

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_db_load: %s: %s\n", what, detail ? detail : "(null)");
	abort();
}

/* Requests stored under label: warm-ups and the rest. */
static long stored(struct db *db, const char *label)
{
	struct db_run_counts c;
	char err[DB_ERRLEN];

	memset(&c, 0, sizeof(c));
	if (db_run_counts(db, label, &c, err, sizeof(err)) != DB_OK)
		fail("the counts of a run cannot be read", err);
	free(c.levels);
	return c.requests + c.warmups;
}

/* The request records of the file at path as the results reader reads
 * them (the reader's own rules), into *out (n of them). */
static void read_file(const char *path, struct result **out, size_t *n)
{
	char err[TRACEFILE_ERRLEN];
	struct tracefile_reader *rd = tracefile_reader_open(path, TRACEFILE_KIND_RESULTS, err,
							    sizeof(err));
	size_t cap = 0;
	cJSON *rec;

	*out = NULL;
	*n = 0;
	if (!rd)
		fail("a file loaded, yet the reader refuses it", err);
	while (tracefile_reader_next(rd, &rec) == 1) {
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "type"));

		if (!type || strcmp(type, "metrics") != 0) {
			if (*n == cap) {
				struct result *p = realloc(*out, (cap = cap ? 2 * cap : 16) * sizeof(**out));

				if (!p)
					abort();
				*out = p;
			}
			result_init(&(*out)[*n]);
			if (result_from_json(&(*out)[*n], rec, err, sizeof(err)) != 0)
				fail("a file loaded, yet a record is refused", err);
			(*n)++;
		}
		cJSON_Delete(rec);
	}
	tracefile_reader_close(rd);
}

/* r as read back from the database is f as read from the file. */
static void check_same(const struct result *r, const struct result *f)
{
	size_t k;

	if (r->level != f->level || r->trace_id != f->trace_id || r->warmup != f->warmup ||
	    r->status != f->status || strcmp(r->error, f->error) != 0 ||
	    r->sched_ns != f->sched_ns || r->send_ns != f->send_ns || r->ttft_ns != f->ttft_ns ||
	    r->ttfa_ns != f->ttfa_ns || r->e2e_ns != f->e2e_ns ||
	    r->input_tokens != f->input_tokens || r->output_tokens != f->output_tokens ||
	    r->repeat != f->repeat || r->session != f->session || r->turn != f->turn ||
	    r->n_itl != f->n_itl)
		fail("a request does not read back as loaded", NULL);
	for (k = 0; k < r->n_itl; k++)
		if (r->itl_ns[k] != f->itl_ns[k])
			fail("a gap does not read back as loaded", NULL);
}

static int count_row(void *ctx, int ncols, const char *const *names, const char *const *cells)
{
	(void)ncols;
	(void)names;
	if (cells)
		(*(long *)ctx)++;
	return 0;
}

/* Takes the run 'label' out through every reader report and plot use. */
static void read_back(struct db *db, const char *label, const char *path, int compare)
{
	struct result *file = NULL, *rs;
	struct db_run *runs;
	struct db_shard *shards;
	struct db_metric_level *ml;
	struct energy_counter ec;
	struct db_metric_point *mp;
	char err[DB_ERRLEN];
	size_t n_file = 0, n_runs, n_shards, n_levels, n_ml, n_mp, n, i, j, k, total = 0;
	int *levels;
	long rows = 0;

	if (db_runs(db, label, &runs, &n_runs, err, sizeof(err)) != DB_OK)
		fail("a loaded run is not listed", err);
	db_runs_free(runs, n_runs);
	if (db_shards(db, label, 1, &shards, &n_shards, err, sizeof(err)) != DB_OK)
		fail("a loaded run's files cannot be read", err);
	db_shards_free(shards, n_shards);
	energy_counter_default(&ec);
	if (db_metric_levels(db, label, &ec, &ml, &n_ml, err, sizeof(err)) != DB_OK)
		fail("a loaded run's metrics cannot be read", err);
	free(ml);
	if (db_metric_timeline(db, label, &mp, &n_mp, err, sizeof(err)) != DB_OK)
		fail("a loaded run's metrics timeline cannot be read", err);
	free(mp);
	if (db_export_rows(db, label, 1, count_row, &rows, err, sizeof(err)) != DB_OK)
		fail("a loaded run cannot be exported", err);
	if (db_levels(db, label, &levels, &n_levels, err, sizeof(err)) != DB_OK)
		fail("a loaded run's levels cannot be read", err);
	if (compare)
		read_file(path, &file, &n_file);
	for (i = 0; i < n_levels; i++) {
		if (db_results(db, label, levels[i], &rs, &n, err, sizeof(err)) != DB_OK)
			fail("a loaded level cannot be read", err);
		total += n;
		for (j = 0; compare && j < n; j++) {
			fuzz_result_reads_back(&rs[j]);
			for (k = 0; k < n_file && file[k].seq != rs[j].seq; k++)
				;
			if (k == n_file)
				fail("a request read back that the file does not hold", NULL);
			check_same(&rs[j], &file[k]);
		}
		db_results_free(rs, n);
	}
	free(levels);
	if ((long)total != stored(db, label) || rows != (long)total ||
	    (compare && total != n_file))
		fail("the readers disagree on how many requests a run holds", label);
	for (k = 0; k < n_file; k++)
		result_release(&file[k]);
	free(file);
}

/* Loads the base file into db (shard 1/2 of "sweep"). */
static void load_base(struct db *db, const char *base_path)
{
	struct db_load_info info;
	char err[DB_ERRLEN];

	if (db_load_results(db, base_path, NULL, &info, err, sizeof(err)) != DB_OK)
		fail("the base file does not load", err);
	db_load_info_release(&info);
}

/*
 * Removes every run but the base's, and the base's too when a file joined
 * it (then loads it again), so that each input meets the database the one
 * before it did; a database made anew for each input would spend most of
 * the time creating the schema. Every removal must take all of its run.
 */
static void reset(struct db *db, const char *base_path)
{
	struct db_run *runs;
	char err[DB_ERRLEN];
	size_t n, i;
	long left;
	int files, reload = 0;

	if (db_runs(db, NULL, &runs, &n, err, sizeof(err)) != DB_OK)
		fail("the runs cannot be listed", err);
	for (i = 0; i < n; i++) {
		int base = strcmp(runs[i].label, "sweep") == 0;

		if (base && runs[i].files == 1)
			continue;
		reload |= base;
		if (db_remove_run(db, runs[i].label, &files, err, sizeof(err)) != DB_OK ||
		    files != runs[i].files || stored(db, runs[i].label) != 0)
			fail("a run removed, yet not all of it", runs[i].label);
	}
	db_runs_free(runs, n);
	if (reload)
		load_base(db, base_path);
	if (db_count_runs(db, &left, err, sizeof(err)) != DB_OK || left != 1)
		fail("the database is not back to the base run", err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char base_path[96];
	static struct db *db;
	struct db_load_info info, again;
	const char *label;
	char path[96], err[DB_ERRLEN], err2[DB_ERRLEN];
	long runs_before, runs_after, before;
	int rc, merge;

	if (size < 1)
		return 0;
	if (!db) {
		fuzz_path("base", base_path, sizeof(base_path));
		fuzz_write_file(base_path, (const uint8_t *)base_file, sizeof(base_file) - 1);
		if (db_open(":memory:", DB_WRITE, &db, err, sizeof(err)) != DB_OK)
			fail("an in-memory database cannot be made", err);
		load_base(db, base_path);
	}
	merge = (data[0] >> 2) & 1;
	label = merge ? NULL : "fuzz";
	fuzz_path("in", path, sizeof(path));
	fuzz_write_input(path, data, size);
	if (db_count_runs(db, &runs_before, err, sizeof(err)) != DB_OK)
		fail("the runs cannot be counted", err);
	before = stored(db, "sweep");

	rc = db_load_results(db, path, label, &info, err, sizeof(err));
	if (db_count_runs(db, &runs_after, err2, sizeof(err2)) != DB_OK)
		fail("the runs cannot be counted", err2);
	switch (rc) {
	case DB_OK:
		if (!info.run_id || !info.label || runs_after != runs_before + 1)
			fail("a load that stored no run", info.run_id);
		if (stored(db, info.label) - (strcmp(info.label, "sweep") ? 0 : before) !=
		    (long)info.requests)
			fail("a load that stored another count of requests than it says", info.label);
		read_back(db, info.label, path, strcmp(info.label, "sweep") != 0);
		if (db_load_results(db, path, label, &again, err, sizeof(err)) != DB_ALREADY_LOADED ||
		    strcmp(again.label, info.label) != 0)
			fail("a file loaded twice is not a no-op", err);
		db_load_info_release(&again);
		db_load_info_release(&info);
		break;
	case DB_ALREADY_LOADED:
		/* only the base's run_id is in the database */
		if (!info.run_id || strcmp(info.run_id, "c3f0a1b2d4e5f607") != 0 ||
		    runs_after != runs_before)
			fail("a run loaded already, yet not the base", info.run_id);
		db_load_info_release(&info);
		break;
	case DB_ERR_INPUT:
		if (!strstr(err, path))
			fail("a refusal that does not name the file", err);
		if (runs_after != runs_before || stored(db, "sweep") != before)
			fail("a refused file changed the database", err);
		break;
	default:
		fail("a load failed as work, or an unknown code", err);
	}
	reset(db, base_path);
	return 0;
}
