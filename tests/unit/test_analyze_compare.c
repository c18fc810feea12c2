/*
 * test_analyze_compare.c - compare.c: verdicts on generated runs: a 10 ms
 * TTFT shift on 60 requests is called slower, the same server across seeds
 * raises no false alarm beyond the rate promised, repeats count the noise
 * between runs, throughput is report's aggregate tok/s, requests pair by
 * trace id only when both runs replayed the same ones, and a level without
 * a verdict says why.
 */
#define _XOPEN_SOURCE 700   /* nftw */  /* NOLINT(bugprone-reserved-identifier): POSIX's own name */
#include "harness.h"
#include "analyze_fixture.h"

/*
 * Like write_generated, but 'repeats' repeats of 'per' requests, each
 * repeat with its own TTFT offset ~ N(0, rep_sd) ms: a server whose speed
 * drifts from run to run, the noise that repeats exist to measure.
 */
/* How write_runs draws a run: the repeats' offsets from drift_seed (two
 * runs with one drift_seed drifted alike, as the sides of an A/B run
 * do), the requests' own noise from seed; params: the header's, or NULL. */
struct gen_run {
	uint64_t seed, drift_seed;
	double shift_ms, rep_sd;
	int repeats, per;
	const char *params;
};

static void write_run(const char *path, const char *run_id, const char *label,
		      const struct gen_run *g)
{
	char err[TRACEFILE_ERRLEN];
	struct tracefile_writer *w;
	cJSON *h = cJSON_CreateObject(), *rec;
	struct rng s = { g->seed }, d = { g->drift_seed };
	double shift_ms = g->shift_ms;
	int per = g->per;
	int64_t at = 0;
	int k, i, j;

	cJSON_AddStringToObject(h, "run_id", run_id);
	cJSON_AddStringToObject(h, "label", label);
	if (g->params)
		cJSON_AddItemToObject(h, "params", cJSON_Parse(g->params));
	w = tracefile_writer_open(path, TRACEFILE_KIND_RESULTS, h, 1, err, sizeof(err));
	cJSON_Delete(h);
	CHECK(w != NULL);
	for (k = 0; w && k < g->repeats; k++) {
		double offset = g->rep_sd * gen_normal(g->drift_seed ? &d : &s);

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
		CHECK_EQ_INT(tracefile_writer_close(w, err, sizeof(err)), 0);
}

static void write_repeats(const char *path, const char *run_id, const char *label,
			  uint64_t seed, double shift_ms, int repeats, int per, double rep_sd)
{
	const struct gen_run g = { seed, 0, shift_ms, rep_sd, repeats, per, NULL };

	write_run(path, run_id, label, &g);
}

/* --noise 0: the within-run intervals alone, as judged before the
 * run-to-run noise was required (the tests of that are apart). */
static const struct compare_opts cmp_opts = { .min_effect = VERDICT_MIN_EFFECT, .noise_pct = 0,
					      .resamples = VERDICT_RESAMPLES,
					      .seed = VERDICT_SEED };

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
	CHECK_EQ_INT(res.n_rows, 21);   /* P50, P90, P95, P99 of five latencies, tok/s */
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

		/* TTFT and TTFA, at P50, P90 and P95 (P99 needs 200 requests) */
		CHECK_EQ_INT(compare_regressions(&res, 5, 0, idx, 4), 6);
		CHECK(res.rows[idx[0]].v.change_pct >= res.rows[idx[1]].v.change_pct);
		CHECK(res.rows[idx[1]].v.change_pct >= res.rows[idx[2]].v.change_pct);
		CHECK(!strcmp(res.rows[idx[3]].metric, "TTFT") || !strcmp(res.rows[idx[3]].metric, "TTFA"));
		CHECK_EQ_INT(compare_regressions(&res, 50, 0, idx, 4), 0);
	}
	compare_result_release(&res);
	/* The other way round the change is "faster", and nothing regressed. */
	CHECK_EQ_INT(compare_runs(db, "after", "before", &cmp_opts, &res, err, sizeof(err)),
		     DB_OK);
	CHECK_EQ_INT(outcome_of(&res, "TTFT", "P50"), VERDICT_FASTER);
	CHECK_EQ_INT(compare_regressions(&res, 0, 0, NULL, 0), 0);
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
		CHECK_EQ_INT(compare_regressions(&res, 5, 0, NULL, 0), 0);
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
	CHECK(res.levels[0].min_effect == VERDICT_MIN_EFFECT);    /* as given */
	compare_result_release(&res);
	db_close(db);
}

/* Loads the two sides of an A/B run, NAME-a from g and NAME-b from g with
 * b's seed and shift. */
static void load_ab(struct db *db, const char *file, const char *name, struct gen_run g,
		    uint64_t b_seed, double b_shift_ms)
{
	char a[32], b[32];

	snprintf(a, sizeof(a), "%s-a", name);
	snprintf(b, sizeof(b), "%s-b", name);
	write_run(file, a, a, &g);
	CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);
	g.seed = b_seed;
	g.shift_ms = b_shift_ms;
	write_run(file, b, b, &g);
	CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);
}

/*
 * An A/B run's sides drift alike, block by block, by far more than a 10 ms
 * change (SD 20 ms on a TTFT of 100): paired block by block the drift
 * divides out, and the change is seen; the same data as two runs that are
 * not one A/B run has no measured noise, and its verdict is held back.
 */
TEST(compare_pairs_an_ab_run_block_by_block)
{
	static const char ab[] = "{\"ab\":{\"labels\":[\"ab-a\",\"ab-b\"]}}";
	static const char ab0[] = "{\"ab\":{\"labels\":[\"ab0-a\",\"ab0-b\"]}}";
	static const char abh[] = "{\"ab\":{\"labels\":[\"abh-a\",\"abh-b\"],\"halves\":2}}";
	const char *file = path_of("ab.jsonl.gz");
	struct db *db = fresh_db("ab.db");
	struct compare_opts o = cmp_opts;
	struct compare_result res;
	const struct compare_row *w;
	char err[DB_ERRLEN];
	struct gen_run g = { 1, 99, 0, 20, 4, 30, ab };

	o.noise_pct = -1;
	load_ab(db, file, "ab", g, 2, 10);
	load_ab(db, file, "ab0", (struct gen_run){ 3, 77, 0, 20, 4, 30, ab0 }, 4, 0);
	g = (struct gen_run){ 2, 98, 10, 20, 4, 30, NULL };
	write_run(file, "lone", "lone", &g);
	CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);

	CHECK_EQ_INT(compare_runs(db, "ab-a", "ab-b", &o, &res, err, sizeof(err)), DB_OK);
	CHECK(res.ab);
	CHECK_EQ_INT(res.levels[0].noise, VERDICT_NOISE_BLOCKS);
	w = find_row(&res, "TTFT", "P50");
	CHECK(w && w->v.outcome == VERDICT_SLOWER && w->v.noise == VERDICT_NOISE_BLOCKS);
	CHECK(w && w->v.lo > 3 && w->v.hi < 20);
	CHECK(w && w->v.noise_n == 4);          /* no halves (older files): a repeat a block */
	compare_result_release(&res);
	/* the same with params.ab.halves 2: repeats 2r and 2r + 1 are block r */
	load_ab(db, file, "abh", (struct gen_run){ 1, 99, 0, 20, 4, 30, abh }, 2, 10);
	CHECK_EQ_INT(compare_runs(db, "abh-a", "abh-b", &o, &res, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(res.ab, 2);
	w = find_row(&res, "TTFT", "P50");
	CHECK(w && w->v.noise == VERDICT_NOISE_BLOCKS && w->v.noise_n == 2 && w->v.noise_df == 1);
	compare_result_release(&res);
	/* an unchanged A/B pair stays quiet: nothing faster or slower */
	CHECK_EQ_INT(compare_runs(db, "ab0-a", "ab0-b", &o, &res, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(outcome_of(&res, "TTFT", "P50") == VERDICT_FASTER ||
		     outcome_of(&res, "TTFT", "P50") == VERDICT_SLOWER, 0);
	CHECK_EQ_INT(outcome_of(&res, "Agg tok/s", "") == VERDICT_FASTER ||
		     outcome_of(&res, "Agg tok/s", "") == VERDICT_SLOWER, 0);
	compare_result_release(&res);
	/* A against a run that is not its B: not paired by block; the other
	 * runs of the experiment are its noise, which the drift fills */
	CHECK_EQ_INT(compare_runs(db, "ab-a", "lone", &o, &res, err, sizeof(err)), DB_OK);
	CHECK(!res.ab);
	CHECK_EQ_INT(res.levels[0].noise, VERDICT_NOISE_HISTORY);
	CHECK_EQ_INT(outcome_of(&res, "TTFT", "P50"), VERDICT_INCONCLUSIVE);
	compare_result_release(&res);
	db_close(db);
}

/*
 * One run a side: the noise comes from the runs of the before run's
 * experiment in the database. Five runs of an unchanged server whose
 * speed differs run to run (SD 5 ms on 100): a sixth is not called
 * faster or slower; a 40 ms slower one is; with two runs there is no
 * history, and the verdict is held.
 */
TEST(compare_takes_the_noise_from_the_history)
{
	const char *file = path_of("hist.jsonl.gz");
	struct db *db = fresh_db("hist.db");
	struct compare_opts o = cmp_opts;
	struct compare_result res;
	const struct compare_row *w;
	char err[DB_ERRLEN], id[16];
	struct gen_run g = { 0, 0, 0, 5, 1, 30, NULL };
	int k;

	o.noise_pct = -1;
	for (k = 0; k < 2; k++) {
		snprintf(id, sizeof(id), "h%d", k);
		g.seed = 10 + (uint64_t)k;
		write_run(file, id, id, &g);
		CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);
	}
	CHECK_EQ_INT(compare_runs(db, "h0", "h1", &o, &res, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(res.levels[0].noise, VERDICT_NOISE_NONE);
	compare_result_release(&res);
	g.seed = 20;
	g.shift_ms = 40;
	write_run(file, "x", "x", &g);
	CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);
	CHECK_EQ_INT(compare_runs(db, "h0", "x", &o, &res, err, sizeof(err)), DB_OK);
	w = find_row(&res, "TTFT", "P50");
	CHECK(w && w->v.outcome == VERDICT_INCONCLUSIVE && w->v.held &&
	      w->v.noise == VERDICT_NOISE_NONE);
	compare_result_release(&res);
	g.shift_ms = 0;
	CHECK_EQ_INT(db_remove_run(db, "x", &k, err, sizeof(err)), DB_OK);
	for (k = 2; k < 6; k++) {
		snprintf(id, sizeof(id), "h%d", k);
		g.seed = 10 + (uint64_t)k;
		write_run(file, id, id, &g);
		CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);
	}
	g.seed = 30;
	g.shift_ms = 40;
	write_run(file, "slow", "slow", &g);
	CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);
	CHECK_EQ_INT(compare_runs(db, "h0", "h5", &o, &res, err, sizeof(err)), DB_OK);
	CHECK_EQ_INT(res.levels[0].noise, VERDICT_NOISE_HISTORY);
	CHECK_EQ_INT(res.levels[0].history_runs, 6);    /* h0 .. h4 and slow */
	w = find_row(&res, "TTFT", "P50");
	CHECK(w && w->v.outcome != VERDICT_FASTER && w->v.outcome != VERDICT_SLOWER);
	compare_result_release(&res);
	CHECK_EQ_INT(compare_runs(db, "h0", "slow", &o, &res, err, sizeof(err)), DB_OK);
	w = find_row(&res, "TTFT", "P50");
	CHECK(w && w->v.outcome == VERDICT_SLOWER && w->v.noise == VERDICT_NOISE_HISTORY);
	compare_result_release(&res);
	db_close(db);
}

/* Without --min-effect each level takes its default: 1% where the
 * run-to-run noise is measured (here --noise), 3% where not - repeats
 * adjacent in time do not measure it. */
TEST(compare_min_effect_defaults_by_noise)
{
	const char *file = path_of("mindef.jsonl.gz");
	struct db *db = fresh_db("mindef.db");
	struct compare_opts o = cmp_opts;
	struct compare_result res;
	char err[DB_ERRLEN];

	o.min_effect = -1;
	o.noise_pct = -1;
	write_repeats(file, "mindef-a", "rep-a", 77, 0, 3, 20, 1);
	CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);
	write_repeats(file, "mindef-b", "rep-b", 78, 0, 3, 20, 1);
	CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);
	CHECK_EQ_INT(compare_runs(db, "rep-a", "rep-b", &o, &res, err, sizeof(err)), DB_OK);
	CHECK(res.levels[0].min_effect == VERDICT_MIN_EFFECT);
	CHECK_EQ_INT(res.levels[0].noise, VERDICT_NOISE_NONE);
	CHECK(res.min_effect < 0);
	compare_result_release(&res);
	o.noise_pct = 4;
	CHECK_EQ_INT(compare_runs(db, "rep-a", "rep-b", &o, &res, err, sizeof(err)), DB_OK);
	CHECK(res.levels[0].min_effect == VERDICT_MIN_EFFECT_REPEATS);
	CHECK_EQ_INT(res.levels[0].noise, VERDICT_NOISE_GIVEN);
	compare_result_release(&res);
	CHECK(compare_min_effect(2.5, 0) == 2.5);
	CHECK(compare_min_effect(0, 1) == 0);
	CHECK(compare_min_effect(-1, 1) == VERDICT_MIN_EFFECT_REPEATS);
	CHECK(compare_min_effect(-1, 0) == VERDICT_MIN_EFFECT);
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
	w = tracefile_writer_open(path, TRACEFILE_KIND_RESULTS, h, 1, err, sizeof(err));
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
		CHECK_EQ_INT(tracefile_writer_close(w, err, sizeof(err)), 0);
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
	summary_compute(rr, n, load_closed(4), NULL, &sum);
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
	CHECK_STR(res.levels[0].errors_after, "16 http (HTTP 500 x16)");
	CHECK_STR(res.levels[0].errors_before, "");
	compare_result_release(&res);
	db_close(db);
	CHECK_EQ_INT(run_cli(&out, (const char *[]){ "analyze", "compare", "--db", dbp, "ok",
						      "down", "--fail-on-regression", "5", NULL }), 1);
	CHECK(strstr(out, "C=4: no successful request in 'down' (0 and 16 failed); no verdict")
	      != NULL);
	CHECK(strstr(out, "regression: no successful request at C=4 in 'down' (16 failed: "
			  "16 http (HTTP 500 x16))") != NULL);
	CHECK(strstr(out, "C=4: 16 of 16 requests failed in 'down': 16 http (HTTP 500 x16)\n")
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

int main(void)
{
	if (fixture_setup() != 0)
		return 1;
	RUN(compare_flags_a_10ms_ttft_shift_on_60_requests);
	RUN(compare_does_not_flag_the_same_server_across_seeds);
	RUN(compare_uses_repeats_for_the_noise_between_runs);
	RUN(compare_min_effect_defaults_by_noise);
	RUN(compare_pairs_an_ab_run_block_by_block);
	RUN(compare_takes_the_noise_from_the_history);
	RUN(compare_judges_throughput_on_tokens_over_wall_time);
	RUN(compare_pairs_by_trace_id_only_the_same_requests);
	RUN(compare_says_why_a_level_has_no_verdict);
	return fixture_done();
}
