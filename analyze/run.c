/*
 * run.c - one run of the database read once (run.h): its runs row, each
 * level's summary and sessions, its warm-up, scaling, energy and price,
 * the server's and the client's figures, and its levels' C when merged
 * from shards.
 */
#include "analyze/run.h"
#include "analyze/report_parts.h"
#include "analyze/efficiency.h"
#include "analyze/report_client.h"
#include "analyze/shards.h"
#include "lib/errmsg.h"
#include "lib/metric.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void run_release(struct run *r)
{
	db_runs_free(r->row, r->n_rows);
	free(r->levels);
	free(r->turns);
	memset(r, 0, sizeof(*r));
}

struct level_summary *run_level(const struct run *run, struct load load)
{
	size_t i;

	for (i = 0; i < run->n_levels; i++)
		if (load_same(run->levels[i].level, load))
			return &run->levels[i];
	return NULL;
}

/* Remembers the earliest warm-up (lowest seq) of the run: the cold start. */
static void run_note_warmups(struct run *run, const struct result *r, size_t n, long *cold_seq)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!r[i].warmup)
			continue;
		if (run->warmups++ == 0 || r[i].seq < *cold_seq) {
			*cold_seq = r[i].seq;
			run->cold_ttft_ms = metric_ttft_ms(&r[i]);
			snprintf(run->cold_error, sizeof(run->cold_error), "%s", r[i].error);
		}
	}
}

/* Scaling efficiency of each level against the run's C=1 level, if any. */
static void run_scaling(struct run *run)
{
	double base = NAN;
	size_t i;

	for (i = 0; i < run->n_levels; i++)
		if (load_same(run->levels[i].level, load_closed(1)))
			base = run->levels[i].agg_tps;
	for (i = 0; i < run->n_levels; i++)
		summary_set_scaling(&run->levels[i], base);
}

/*
 * Closed loop from S shards: each ran C at a time, the server saw S x C
 * (shards_level_factor decides, for compare as well). After the scaling
 * efficiency, which compares each shard's levels with its own C=1 and is
 * the same either way.
 */
static void run_shard_levels(struct run *run, int factor)
{
	size_t i;

	if (factor < 2)
		return;
	run->shards = (size_t)factor;
	for (i = 0; i < run->n_levels; i++)
		run->levels[i].level = shards_load(run->levels[i].level, factor);
}

/* A run of requests without start times (run_params.timeless): no
 * level's wall time, nor any rate over it, is known. */
static void run_forget_walls(struct run *run)
{
	size_t i;

	if (run->row->param.timeless)
		for (i = 0; i < run->n_levels; i++)
			summary_forget_wall(&run->levels[i]);
}

int run_read(struct db *db, const char *label, const struct metric_slo *slo, struct run *out,
	     char *err, size_t errlen)
{
	return run_read_each(db, label, slo, NULL, NULL, out, err, errlen);
}

int run_read_each(struct db *db, const char *label, const struct metric_slo *slo,
		  run_level_visit visit, void *ctx, struct run *out, char *err, size_t errlen)
{
	struct run run = { NULL, 0, NULL, 0, 0, NAN, "", 0, NULL };
	struct result *res = NULL;
	int *levels = NULL;
	size_t n_levels = 0, n_res = 0, i;
	long cold_seq = 0;
	int factor, rc;

	rc = db_runs(db, label, &run.row, &run.n_rows, err, errlen);
	if (!rc)
		rc = shards_level_factor(db, label, &factor, err, errlen);
	if (!rc)
		rc = db_levels(db, label, &levels, &n_levels, err, errlen);
	if (rc)
		goto cleanup;
	if (n_levels && (!(run.levels = calloc(n_levels, sizeof(*run.levels))) ||
			 !(run.turns = calloc(n_levels, sizeof(*run.turns))))) {
		errmsg_set(err, errlen, "run '%s': out of memory", label);
		rc = DB_ERR_WORK;
		goto cleanup;
	}
	for (i = 0; i < n_levels; i++) {
		struct load load;

		rc = db_results(db, label, levels[i], &res, &n_res, err, errlen);
		if (rc)
			goto cleanup;
		run_note_warmups(&run, res, n_res, &cold_seq);
		load = load_of_code(levels[i], NAN);
		summary_compute(res, n_res, load, slo, &run.levels[run.n_levels]);
		if (turns_compute(res, n_res, &run.turns[run.n_levels]) < 0 ||
		    (visit && visit(ctx, shards_load(load, factor), res, n_res) != 0)) {
			errmsg_set(err, errlen, "run '%s': out of memory", label);
			rc = DB_ERR_WORK;
			goto cleanup;
		}
		/* A level holding only warm-ups has nothing to show in the table. */
		if (run.levels[run.n_levels].requests > 0)
			run.n_levels++;
		db_results_free(res, n_res);
		res = NULL;
	}
	run_forget_walls(&run);
	run_scaling(&run);
	rc = efficiency_fill(db, label, &run.row->param, run.levels, run.n_levels, err, errlen);
	if (rc)
		goto cleanup;
	rc = report_server_fill(db, label, &run, err, errlen);
	if (rc)
		goto cleanup;
	rc = report_client_fill(db, label, &run, err, errlen);
	if (rc)
		goto cleanup;
	run_shard_levels(&run, factor);
	*out = run;
	memset(&run, 0, sizeof(run));
cleanup:
	db_results_free(res, n_res);
	run_release(&run);
	free(levels);
	return rc;
}
