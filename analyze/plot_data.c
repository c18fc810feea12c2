/*
 * plot_data.c - what analyze plot draws from; see plot_data.h.
 */
#include "analyze/plot_data.h"
#include "lib/errmsg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/metric.h"
#include "lib/stats.h"
#include "lib/summary.h"

static void plot_series_release(struct plot_series *s)
{
	size_t i;

	for (i = 0; i < s->n_lv; i++) {
		free(s->lv[i].ttft);
		free(s->lv[i].e2e);
	}
	free(s->lv);
	free(s->label);
	free(s->turns);
	free(s->pts);
	free(s->srv);
	free(s->models);
	free(s->model_rows);
	run_release(&s->run);
}

void plot_data_release(struct plot_data *d)
{
	size_t i;

	for (i = 0; i < d->n_series; i++)
		plot_series_release(&d->series[i]);
	free(d->series);
	free(d->levels);
	for (i = 0; d->compared && i + 1 < d->n_series; i++)
		if (d->compared[i])
			compare_result_release(&d->cmp[i]);
	free(d->compared);
	free(d->cmp);
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
			if (d->series[i].run.levels[j].level.kind == LOAD_CLOSED)
				d->levels[n++] = d->series[i].run.levels[j].level.concurrency;
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

const struct stats_dist *plot_dist(const struct level_summary *s, enum plot_metric m)
{
	switch (m) {
	case PLOT_TTFT: return &s->ttft;
	case PLOT_TTFA: return &s->ttfa;
	case PLOT_TPOT: return &s->tpot;
	case PLOT_ITL: return &s->itl;
	default: return &s->e2e;
	}
}

/* Appends the requests of r to s's timeline and turns (sized by the
 * caller) and fills the level's CDF samples (allocated here). */
static int plot_take_requests(struct plot_series *s, struct plot_level *lv,
			      const struct result *r, size_t n)
{
	size_t i;

	lv->ttft = malloc((n + 1) * sizeof(double));
	lv->e2e = malloc((n + 1) * sizeof(double));
	if (!lv->ttft || !lv->e2e)
		return -1;
	lv->t_start_s = NAN;
	for (i = 0; i < n; i++) {
		double ttft = metric_ttft_ms(&r[i]), t_s = metric_ms(r[i].send_ns) / 1e3;

		if (isnan(lv->t_start_s) || t_s < lv->t_start_s)
			lv->t_start_s = t_s;
		if (!isnan(ttft) && result_ok(&r[i]) && !r[i].cancel[0]) {
			s->pts[s->n_pts].t_s = t_s;
			s->pts[s->n_pts].ttft_ms = ttft;
			s->pts[s->n_pts++].warmup = r[i].warmup;
		}
		if (!result_measured(&r[i]))
			continue;
		if (r[i].session >= 0 && r[i].turn >= 0 && !isnan(ttft)) {
			s->turns[s->n_turns].turn = r[i].turn;
			s->turns[s->n_turns++].ttft_ms = ttft;
		}
		lv->e2e[lv->n_e2e++] = metric_e2e_ms(&r[i]);
		if (!isnan(ttft))
			lv->ttft[lv->n_ttft++] = ttft;
	}
	stats_sort(lv->ttft, lv->n_ttft);
	stats_sort(lv->e2e, lv->n_e2e);
	return 0;
}

/*
 * The range of each metric's P50 over the repeats of a level: every repeat
 * summarized alone (summary_compute, the report's own definitions), so a
 * bar shows how far one repeat's answer may lie from another's.
 */
static int plot_repeat_range(struct plot_level *lv, const struct result *r, size_t n)
{
	struct level_summary one;
	struct result *sub;
	size_t i, m, k;
	int rep, j;

	for (j = 0; j < PLOT_N_METRICS; j++)
		lv->p50_min[j] = lv->p50_max[j] = NAN;
	lv->repeats = (int)metric_n_repeats(r, n);
	if (lv->repeats < 2)
		return 0;
	if (!(sub = malloc(n * sizeof(*sub))))
		return -1;
	for (rep = 0; rep < lv->repeats; rep++) {
		for (i = 0, m = 0; i < n; i++)
			if (r[i].repeat == rep)
				sub[m++] = r[i];   /* a shallow copy, read only */
		if (!m)
			continue;
		summary_compute(sub, m, lv->level, NULL, &one);
		for (k = 0; k < PLOT_N_METRICS; k++) {
			double v = plot_dist(&one, (enum plot_metric)k)->p50;

			if (isnan(v))
				continue;
			if (isnan(lv->p50_min[k]) || v < lv->p50_min[k])
				lv->p50_min[k] = v;
			if (isnan(lv->p50_max[k]) || v > lv->p50_max[k])
				lv->p50_max[k] = v;
		}
	}
	free(sub);
	return 0;
}

/* A level's requests (run_read_each) into s: its plot_level, its
 * points of the timeline and its turns. */
static int plot_take_level(void *ctx, struct load load, const struct result *r, size_t n)
{
	struct plot_series *s = ctx;
	struct plot_level *lv;
	void *p;

	if (!(p = realloc(s->lv, (s->n_lv + 1) * sizeof(*s->lv))))
		return -1;
	s->lv = p;
	lv = &s->lv[s->n_lv++];
	memset(lv, 0, sizeof(*lv));
	lv->level = load;
	if (!(p = realloc(s->pts, (s->n_pts + n + 1) * sizeof(*s->pts))))
		return -1;
	s->pts = p;
	if (!(p = realloc(s->turns, (s->n_turns + n + 1) * sizeof(*s->turns))))
		return -1;
	s->turns = p;
	return plot_take_requests(s, lv, r, n) != 0 || plot_repeat_range(lv, r, n) != 0 ? -1 : 0;
}

/* Summarizes the run into s, reading its requests once: its levels,
 * timeline and turns. */
static int plot_load_run(struct db *db, const char *label, struct plot_series *s,
			 char *err, size_t errlen)
{
	int rc;

	rc = run_read_each(db, label, s->is_cap ? &s->slo : NULL, plot_take_level, s, &s->run,
			   err, errlen);
	if (rc)
		return rc;
	if (s->n_pts > 1)
		qsort(s->pts, s->n_pts, sizeof(*s->pts), plot_point_cmp);
	if (s->n_turns > 1)
		qsort(s->turns, s->n_turns, sizeof(*s->turns), plot_turn_cmp);
	return DB_OK;
}

/* Adds the run 'label' (which must exist) to d. */
static int plot_add_series(struct plot_data *d, struct db *db, const char *label,
			   const struct run_params *param, char *err, size_t errlen)
{
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
	s->is_cap = param->is_capacity;
	s->cap = param->capacity;
	s->slo = param->slo;
	rc = plot_load_run(db, label, s, err, errlen);
	if (!rc)
		rc = db_metric_timeline(db, label, &s->srv, &s->n_srv, err, errlen);
	if (!rc)
		rc = report_model_rows(db, label, &s->models, &s->n_models, &s->model_rows,
				       &s->n_model_rows, err, errlen);
	if (rc) {
		plot_series_release(s);
		return rc;
	}
	d->n_series++;
	return DB_OK;
}

/*
 * Two runs or more: compares each later one with the first as analyze
 * compare does by default (the same verdicts the report's comparisons
 * print). A run without a level in common with the first is not compared,
 * and that is no error: the other figures still stand.
 */
static int plot_compare(struct db *db, struct plot_data *d, char *err, size_t errlen)
{
	struct compare_opts co = { -1, -1, VERDICT_RESAMPLES, VERDICT_SEED };
	size_t i;
	int rc;

	if (d->n_series < 2)
		return DB_OK;
	d->compared = calloc(d->n_series - 1, sizeof(*d->compared));
	d->cmp = calloc(d->n_series - 1, sizeof(*d->cmp));
	if (!d->compared || !d->cmp) {
		errmsg_set(err, errlen, "out of memory");
		return DB_ERR_WORK;
	}
	for (i = 1; i < d->n_series; i++) {
		rc = compare_runs(db, d->series[0].label, d->series[i].label, &co, &d->cmp[i - 1],
				  err, errlen);
		d->compared[i - 1] = rc == DB_OK;
		if (rc != DB_OK)
			compare_result_release(&d->cmp[i - 1]);
		if (rc == DB_ERR_INPUT)
			err[0] = '\0';
		else if (rc)
			return rc;
	}
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
			rc = plot_add_series(d, db, runs[i].label, &runs[i].param, err, errlen);
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
	return plot_compare(db, d, err, errlen);
}

int plot_series_closed(const struct plot_series *s)
{
	size_t i;

	for (i = 0; i < s->run.n_levels; i++)
		if (s->run.levels[i].level.kind == LOAD_CLOSED)
			return 1;
	return 0;
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
int plot_has_models(const struct plot_data *d)
{
	size_t i, k;

	for (i = 0; i < d->n_series; i++)
		for (k = 0; k < d->series[i].n_model_rows; k++)
			if (d->series[i].model_rows[k].s.level.kind == LOAD_CLOSED)
				return 1;
	return 0;
}

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

	size_t k;

	for (i = 0; i < d->n_series; i++)
		for (k = 0; k < d->series[i].n_lv; k++)
			if (d->series[i].lv[k].n_ttft && d->series[i].lv[k].n_e2e)
				return 1;
	return 0;
}

int plot_has_open(const struct plot_data *d)
{
	size_t i, k;

	for (i = 0; i < d->n_series; i++)
		for (k = 0; k < d->series[i].run.n_levels; k++)
			if (d->series[i].run.levels[k].level.kind != LOAD_CLOSED &&
			    d->series[i].run.levels[k].ok)
				return 1;
	return 0;
}

const struct plot_level *plot_find_extra(const struct plot_series *s, struct load load)
{
	size_t i;

	for (i = 0; i < s->n_lv; i++)
		if (load_same(s->lv[i].level, load))
			return &s->lv[i];
	return NULL;
}

double plot_offered_rps(const struct level_summary *l)
{
	return isnan(l->level.rate) ? l->sched_rps : l->level.rate;
}

struct load plot_load(const struct level_summary *l)
{
	if (l->level.kind == LOAD_RATE)
		return load_probe(l->level.probe, plot_offered_rps(l));
	return l->level;
}

const char *plot_level_label(const struct plot_series *s, struct load load, char *buf,
			     size_t len)
{
	const struct level_summary *l = run_level(&s->run, load);

	return load_name(l ? plot_load(l) : load_unrated(load), buf, len);
}

const struct level_summary **plot_open_levels(const struct plot_series *s, size_t *n)
{
	const struct level_summary **v, *l;
	size_t i, j;

	*n = 0;
	v = calloc(s->run.n_levels + 1, sizeof(const struct level_summary *));
	for (i = 0; v && i < s->run.n_levels; i++) {
		l = &s->run.levels[i];
		if (l->level.kind == LOAD_CLOSED || !l->ok)
			continue;
		/* insertion by offered rate, unknown rates last: a few levels */
		for (j = (*n)++; j > 0 && !(plot_offered_rps(v[j - 1]) <= plot_offered_rps(l)); j--)
			v[j] = v[j - 1];
		v[j] = l;
	}
	if (v && !*n) {
		free(v);
		v = NULL;
	}
	return v;
}
