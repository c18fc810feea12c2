/*
 * report_summary.c - one run of the database summarized for a report
 * (struct report_run, report.h): each level's sweep-table row from
 * lib/summary.c, its sessions, its warm-up, its scaling efficiency, its
 * energy and price, and each level's C as the server saw it when the run
 * was merged from shards. report, compare's energy and cost, and plot read
 * runs through report_summarize (plot with each level's requests handed to
 * it on the way: report_summarize_each).
 */
#include "analyze/report.h"
#include "analyze/report_parts.h"
#include "analyze/efficiency.h"
#include "analyze/report_client.h"
#include "analyze/foreign.h"
#include "analyze/shards.h"
#include "lib/errmsg.h"
#include "lib/metric.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void report_run_release(struct report_run *r)
{
	free(r->levels);
	free(r->turns);
	memset(r, 0, sizeof(*r));
}

struct level_summary *report_run_level(const struct report_run *run, int level)
{
	size_t i;

	for (i = 0; i < run->n_levels; i++)
		if (run->levels[i].level == level)
			return &run->levels[i];
	return NULL;
}

/* Remembers the earliest warm-up (lowest seq) of the run: the cold start. */
static void report_note_warmups(struct report_run *run, const struct result *r, size_t n,
				long *cold_seq)
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
static void report_scaling(struct report_run *run)
{
	double base = NAN;
	size_t i;

	for (i = 0; i < run->n_levels; i++)
		if (run->levels[i].level == 1)
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
static void report_shard_levels(struct report_run *run, int factor)
{
	size_t i;

	if (factor < 2)
		return;
	run->shards = (size_t)factor;
	for (i = 0; i < run->n_levels; i++)
		run->levels[i].level = shards_level(run->levels[i].level, factor);
}

/* A run of requests without start times (run_params.timeless): no
 * level's wall time, nor any rate over it, is known. */
static int report_forget_walls(struct db *db, const char *label, struct report_run *run,
			       char *err, size_t errlen)
{
	struct db_run *runs = NULL;
	size_t n = 0, i;
	int rc = db_runs(db, label, &runs, &n, err, errlen);

	if (!rc && n && runs[0].param.timeless)
		for (i = 0; i < run->n_levels; i++)
			summary_forget_wall(&run->levels[i]);
	db_runs_free(runs, n);
	return rc;
}

/* Each level's energy and price figures (analyze/efficiency.h), by the
 * counter and price the run's first file names. */
static int report_efficiency(struct db *db, const char *label, struct report_run *run,
			     char *err, size_t errlen)
{
	struct db_run *runs = NULL;
	size_t n = 0;
	int rc = db_runs(db, label, &runs, &n, err, errlen);

	if (!rc)
		rc = efficiency_fill(db, label, n ? &runs[0].param : NULL, run->levels,
				     run->n_levels, err, errlen);
	db_runs_free(runs, n);
	return rc;
}

int report_summarize(struct db *db, const char *label, const struct metric_slo *slo,
		     struct report_run *out, char *err, size_t errlen)
{
	return report_summarize_each(db, label, slo, NULL, NULL, out, err, errlen);
}

int report_summarize_each(struct db *db, const char *label, const struct metric_slo *slo,
			  report_level_visit visit, void *ctx, struct report_run *out,
			  char *err, size_t errlen)
{
	struct report_run run = { NULL, 0, 0, NAN, "", 0, NULL };
	struct result *res = NULL;
	int *levels = NULL;
	size_t n_levels = 0, n_res = 0, i;
	long cold_seq = 0;
	int factor, rc;

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
		rc = db_results(db, label, levels[i], &res, &n_res, err, errlen);
		if (rc)
			goto cleanup;
		report_note_warmups(&run, res, n_res, &cold_seq);
		summary_compute(res, n_res, levels[i], slo, &run.levels[run.n_levels]);
		if (turns_compute(res, n_res, &run.turns[run.n_levels]) < 0 ||
		    (visit && visit(ctx, shards_level(levels[i], factor), res, n_res) != 0)) {
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
	rc = report_forget_walls(db, label, &run, err, errlen);
	if (rc)
		goto cleanup;
	report_scaling(&run);
	rc = report_efficiency(db, label, &run, err, errlen);
	if (rc)
		goto cleanup;
	rc = report_server_fill(db, label, &run, err, errlen);
	if (rc)
		goto cleanup;
	rc = report_client_fill(db, label, &run, err, errlen);
	if (rc)
		goto cleanup;
	report_shard_levels(&run, factor);
	*out = run;
	run.levels = NULL;
	run.turns = NULL;
cleanup:
	db_results_free(res, n_res);
	free(run.levels);
	free(run.turns);
	free(levels);
	return rc;
}
