/*
 * plot_data.c - what analyze plot draws from; see plot_data.h.
 */
#include "analyze/plot_data.h"
#include "lib/errmsg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"

void plot_data_release(struct plot_data *d)
{
	size_t i;

	for (i = 0; i < d->n_series; i++) {
		free(d->series[i].label);
		free(d->series[i].ttft);
		free(d->series[i].e2e);
		free(d->series[i].turns);
		free(d->series[i].pts);
		free(d->series[i].srv);
		report_run_release(&d->series[i].run);
	}
	free(d->series);
	free(d->levels);
	memset(d, 0, sizeof(*d));
}

static int plot_int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Collects the distinct concurrencies (no open loop) of all series into d->levels. */
static int plot_collect_levels(struct plot_data *d)
{
	size_t total = 0, i, j, n = 0;

	for (i = 0; i < d->n_series; i++)
		total += d->series[i].run.n_levels;
	d->levels = malloc((total ? total : 1) * sizeof(*d->levels));
	if (!d->levels)
		return -1;
	for (i = 0; i < d->n_series; i++)
		for (j = 0; j < d->series[i].run.n_levels; j++)
			if (metric_level_closed(d->series[i].run.levels[j].level))
				d->levels[n++] = d->series[i].run.levels[j].level;
	qsort(d->levels, n, sizeof(*d->levels), plot_int_cmp);
	for (i = 0, j = 0; i < n; i++)
		if (j == 0 || d->levels[j - 1] != d->levels[i])
			d->levels[j++] = d->levels[i];
	d->n_levels = j;
	return 0;
}

static int plot_point_cmp(const void *a, const void *b)
{
	double x = ((const struct plot_point *)a)->t_s, y = ((const struct plot_point *)b)->t_s;

	return (x > y) - (x < y);
}

static int plot_turn_cmp(const void *a, const void *b)
{
	const struct plot_turn *x = a, *y = b;

	if (x->turn != y->turn)
		return x->turn < y->turn ? -1 : 1;
	return (x->ttft_ms > y->ttft_ms) - (x->ttft_ms < y->ttft_ms);
}

/* Appends the requests of r to s's arrays (sized by the caller). */
static void plot_take_requests(struct plot_series *s, const struct result *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		double ttft = metric_ttft_ms(&r[i]);

		if (!isnan(ttft) && result_ok(&r[i])) {
			s->pts[s->n_pts].t_s = metric_ms(r[i].send_ns) / 1e3;
			s->pts[s->n_pts].ttft_ms = ttft;
			s->pts[s->n_pts++].warmup = r[i].warmup;
		}
		if (r[i].warmup || !result_ok(&r[i]))
			continue;
		if (r[i].session >= 0 && r[i].turn >= 0 && !isnan(ttft)) {
			s->turns[s->n_turns].turn = r[i].turn;
			s->turns[s->n_turns++].ttft_ms = ttft;
		}
		s->e2e[s->n_e2e++] = metric_e2e_ms(&r[i]);
		if (!isnan(ttft))
			s->ttft[s->n_ttft++] = ttft;
	}
}

/* Reads every request of the run into s: CDF samples and timeline points. */
static int plot_load_requests(struct db *db, const char *label, struct plot_series *s,
			      char *err, size_t errlen)
{
	struct result *r = NULL;
	int *levels = NULL;
	size_t n_levels = 0, n = 0, i, cap = 0;
	void *p;
	int rc;

	rc = db_levels(db, label, &levels, &n_levels, err, errlen);
	for (i = 0; !rc && i < n_levels; i++) {
		rc = db_results(db, label, levels[i], &r, &n, err, errlen);
		if (rc)
			break;
		cap += n;
		if (!(p = realloc(s->ttft, (cap + 1) * sizeof(double))) || !(s->ttft = p) ||
		    !(p = realloc(s->e2e, (cap + 1) * sizeof(double))) || !(s->e2e = p) ||
		    !(p = realloc(s->pts, (cap + 1) * sizeof(*s->pts))) || !(s->pts = p) ||
		    !(p = realloc(s->turns, (cap + 1) * sizeof(*s->turns))) || !(s->turns = p)) {
			errmsg_set(err, errlen, "run '%s': out of memory", label);
			rc = DB_ERR_WORK;
		} else {
			plot_take_requests(s, r, n);
		}
		db_results_free(r, n);
		r = NULL;
	}
	free(levels);
	if (rc)
		return rc;
	stats_sort(s->ttft, s->n_ttft);
	stats_sort(s->e2e, s->n_e2e);
	if (s->n_pts > 1)
		qsort(s->pts, s->n_pts, sizeof(*s->pts), plot_point_cmp);
	if (s->n_turns > 1)
		qsort(s->turns, s->n_turns, sizeof(*s->turns), plot_turn_cmp);
	return DB_OK;
}

/* Adds the run 'label' (which must exist) to d. */
static int plot_add_series(struct plot_data *d, struct db *db, const char *label,
			   const char *params, char *err, size_t errlen)
{
	char spec[256];
	struct plot_series *s;
	int rc;

	s = realloc(d->series, (d->n_series + 1) * sizeof(*s));
	if (!s) {
		errmsg_set(err, errlen, "run '%s': out of memory", label);
		return DB_ERR_WORK;
	}
	d->series = s;
	s = &d->series[d->n_series];
	memset(s, 0, sizeof(*s));
	if (!(s->label = strdup(label))) {
		errmsg_set(err, errlen, "run '%s': out of memory", label);
		return DB_ERR_WORK;
	}
	s->is_cap = report_capacity_params(params, &s->cap, &s->slo, spec, sizeof(spec));
	rc = report_summarize(db, label, s->is_cap ? &s->slo : NULL, &s->run, err, errlen);
	if (!rc)
		rc = plot_load_requests(db, label, s, err, errlen);
	if (!rc)
		rc = db_metric_timeline(db, label, &s->srv, &s->n_srv, err, errlen);
	if (rc) {
		free(s->srv);
		free(s->label);
		free(s->ttft);
		free(s->e2e);
		free(s->pts);
		free(s->turns);
		report_run_release(&s->run);
		return rc;
	}
	d->n_series++;
	return DB_OK;
}

/* Summarizes the requested runs (all when n_labels is 0) into d. */
int plot_load_data(struct db *db, const char *const *labels, size_t n_labels,
		   struct plot_data *d, char *err, size_t errlen)
{
	struct db_run *runs = NULL;
	size_t n = 0, i, k;
	int rc = DB_OK;

	for (k = 0; !rc && k < (n_labels ? n_labels : 1); k++) {
		rc = db_runs(db, n_labels ? labels[k] : NULL, &runs, &n, err, errlen);
		for (i = 0; !rc && i < n; i++)
			rc = plot_add_series(d, db, runs[i].label, runs[i].params, err, errlen);
		db_runs_free(runs, n);
		runs = NULL;
		n = 0;
	}
	if (rc)
		return rc;
	if (plot_collect_levels(d) != 0) {
		errmsg_set(err, errlen, "out of memory");
		return DB_ERR_WORK;
	}
	/* a search over rates has no concurrency levels, but its load curve */
	if (d->n_levels == 0 && !plot_has_capacity(d)) {
		errmsg_set(err, errlen, "nothing to plot: the runs have no concurrency "
			    "levels with measured requests");
		return DB_ERR_INPUT;
	}
	return DB_OK;
}

const struct level_summary *plot_find_level(const struct report_run *run, int level)
{
	size_t i;

	for (i = 0; i < run->n_levels; i++)
		if (run->levels[i].level == level)
			return &run->levels[i];
	return NULL;
}

/* Does any run have the server's scrapes for the timeline's lower panel? */
int plot_has_server(const struct plot_data *d)
{
	size_t i;

	for (i = 0; i < d->n_series; i++)
		if (d->series[i].n_srv)
			return 1;
	return 0;
}

/* Is any run a capacity search, for the load curve? */
int plot_has_capacity(const struct plot_data *d)
{
	size_t i;

	for (i = 0; i < d->n_series; i++)
		if (d->series[i].is_cap && d->series[i].run.n_levels)
			return 1;
	return 0;
}

/* The highest turn index of any run's sessions, + 1 (0: no sessions). */
long plot_max_turn(const struct plot_data *d)
{
	long max = 0;
	size_t i;

	for (i = 0; i < d->n_series; i++)
		if (d->series[i].n_turns &&
		    d->series[i].turns[d->series[i].n_turns - 1].turn + 1 > max)
			max = d->series[i].turns[d->series[i].n_turns - 1].turn + 1;
	return max;
}

/* Does the run set have anything for the timeline and CDF plots? */
int plot_has_requests(const struct plot_data *d)
{
	size_t i;

	for (i = 0; i < d->n_series; i++)
		if (d->series[i].n_ttft && d->series[i].n_e2e)
			return 1;
	return 0;
}
