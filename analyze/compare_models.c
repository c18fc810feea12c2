/*
 * compare_models.c - two runs of a model mix (replay --model-mix) set side
 * by side per model; see compare.h.
 *
 * The verdicts stay the whole run's: the server carried the mix's load,
 * so a model's requests are not a run of their own, and a model's share of
 * a level is a few dozen requests, too few for intervals that would decide
 * anything. What this adds is where a change sits: each level's medians
 * per model present in both runs, and their change.
 */
#include "analyze/compare.h"
#include "lib/errmsg.h"
#include "lib/summary.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The medians of the requests of r (n) sent to 'model', into *s. */
static int model_summary(const struct result *r, size_t n, struct load load, const char *model,
			 struct level_summary *s)
{
	struct result *sub = malloc((n ? n : 1) * sizeof(*sub));
	size_t i, k = 0;

	if (!sub)
		return -1;
	for (i = 0; i < n; i++)
		if (strcmp(r[i].model, model) == 0)
			sub[k++] = r[i];   /* shallow: read, never released */
	summary_compute(sub, k, load, NULL, s);
	free(sub);
	return 0;
}

/* One compared level's rows, a model of both runs each, into r->models. */
static int level_rows(const struct result *ra, size_t na, const struct result *rb, size_t nb,
		      const struct compare_level *lv, const struct db_model *models,
		      size_t n_models, struct compare_result *r)
{
	struct level_summary a, b;
	size_t m;

	for (m = 0; m < n_models; m++) {
		struct compare_model_row *w = &r->models[r->n_models];

		if (model_summary(ra, na, lv->level, models[m].name, &a) ||
		    model_summary(rb, nb, lv->level, models[m].name, &b))
			return -1;
		if (!a.requests || !b.requests)
			continue;
		w->level = lv->level;
		snprintf(w->model, sizeof(w->model), "%s", models[m].name);
		w->n_before = a.requests;
		w->n_after = b.requests;
		w->ttft_before = a.ttft.p50;
		w->ttft_after = b.ttft.p50;
		w->tpot_before = a.tpot.p50;
		w->tpot_after = b.tpot.p50;
		w->e2e_before = a.e2e.p50;
		w->e2e_after = b.e2e.p50;
		r->n_models++;
	}
	return 0;
}

/* The models both runs sent requests to, into *out (*n). */
static int common_models(struct db *db, const char *before, const char *after,
			 struct db_model **out, size_t *n, int *several, char *err, size_t errlen)
{
	struct db_model *ma = NULL, *mb = NULL;
	size_t na = 0, nb = 0, i, j;
	int rc = db_models(db, before, &ma, &na, err, errlen);

	if (!rc)
		rc = db_models(db, after, &mb, &nb, err, errlen);
	*several = na > 1 || nb > 1;
	*n = 0;
	for (i = 0; !rc && i < na; i++)
		for (j = 0; j < nb; j++)
			if (strcmp(ma[i].name, mb[j].name) == 0)
				ma[(*n)++] = ma[i];
	free(mb);
	*out = ma;
	return rc;
}

int compare_models_fill(struct db *db, const char *before, const char *after,
			struct compare_result *r, char *err, size_t errlen)
{
	struct db_model *models = NULL;
	struct result *ra = NULL, *rb = NULL;
	size_t n_models = 0, na = 0, nb = 0, i;
	int several, rc = common_models(db, before, after, &models, &n_models, &several, err,
					errlen);

	if (rc || !several || !n_models)
		goto cleanup;
	if (!(r->models = calloc(r->n_levels * n_models, sizeof(*r->models))))
		goto nomem;
	for (i = 0; !rc && i < r->n_levels; i++) {
		const struct compare_level *lv = &r->levels[i];

		rc = db_results(db, before, lv->level_before, &ra, &na, err, errlen);
		if (!rc)
			rc = db_results(db, after, lv->level_after, &rb, &nb, err, errlen);
		if (!rc && level_rows(ra, na, rb, nb, lv, models, n_models, r))
			goto nomem;
		db_results_free(ra, na);
		db_results_free(rb, nb);
		ra = rb = NULL;
		na = nb = 0;
	}
	goto cleanup;
nomem:
	errmsg_set(err, errlen, "comparing '%s' and '%s' by model: out of memory", before, after);
	rc = DB_ERR_WORK;
cleanup:
	db_results_free(ra, na);
	db_results_free(rb, nb);
	free(models);
	return rc;
}

static const char *col_model(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct compare_model_row *)row)->model;
}

static const char *col_level(const void *row, size_t arg)
{
	static char buf[32];

	(void)arg;
	return load_cell(((const struct compare_model_row *)row)->level, buf, sizeof(buf));
}

static double col_num(const void *row, size_t off)
{
	return *(const double *)(const void *)((const char *)row + off);
}

static double col_count(const void *row, size_t off)
{
	return (double)*(const size_t *)(const void *)((const char *)row + off);
}

/* The change in percent from the double at off to the one after it. */
static double col_change(const void *row, size_t off)
{
	double a = col_num(row, off), b = col_num(row, off + sizeof(double));

	return a > 0 && !isnan(b) ? (b / a - 1) * 100 : NAN;
}

#define F(m) offsetof(struct compare_model_row, m)
#define MS(h, k, m) { .head = (h), .unit = "ms", .key = (k), .decimals = 2, \
			   .csv_decimals = 3, .num = col_num, .arg = F(m) }
#define CHANGE(h, k, m) { .head = (h), .unit = "%", .key = (k), .decimals = 1, \
			       .csv_decimals = 2, .flags = TABLE_SIGN, .num = col_change, \
			       .arg = F(m) }
static const struct table_col model_cols[] = {
	{ .head = "C", .key = "level", .width = 4, .str = col_level },
	{ .head = "Model", .key = "model", .flags = TABLE_LEFT, .str = col_model },
	{ .head = "N before", .key = "n_before", .num = col_count, .arg = F(n_before) },
	{ .head = "N after", .key = "n_after", .num = col_count, .arg = F(n_after) },
	MS("P50 TTFT before", "ttft_p50_before_ms", ttft_before),
	MS("after", "ttft_p50_after_ms", ttft_after),
	CHANGE("change", "ttft_p50_change_pct", ttft_before),
	MS("P50 TPOT before", "tpot_p50_before_ms", tpot_before),
	MS("after", "tpot_p50_after_ms", tpot_after),
	CHANGE("change", "tpot_p50_change_pct", tpot_before),
	CHANGE("P50 E2E change", "e2e_p50_change_pct", e2e_before),
};
#undef CHANGE
#undef MS
#undef F

int compare_print_models(FILE *out, enum table_format fmt, const struct compare_result *r)
{
	struct table t;

	if (!r->n_models)
		return 0;
	fprintf(out, "\nper model (replay --model-mix), the models of both runs: medians "
		"before and after, without verdicts (the verdicts above are the whole "
		"mix's, the load the server carried):\n");
	if (fmt == TABLE_MARKDOWN)
		fputc('\n', out);
	table_init(&t, out, fmt, model_cols, sizeof(model_cols) / sizeof(model_cols[0]), 0);
	t.sep = "  ";
	table_print(&t, r->models, r->n_models, sizeof(*r->models));
	return 1;
}
