/*
 * plan.c - `tracebench analyze plan`: what a comparison needs to see a
 * change of a given size; see plan.h.
 */
#include "analyze/plan.h"
#include "lib/metric.h"
#include "lib/stats.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

double plan_z(double p)
{
	double lo = -10, hi = 10;
	int i;

	/* Phi(z) = erfc(-z / sqrt 2) / 2 rises with z: bisect it */
	for (i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;

		if (0.5 * erfc(-mid / sqrt(2.0)) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

size_t plan_blocks(double sd, double effect_log, double min_log, double z)
{
	size_t k;

	if (!(effect_log > min_log) || !(sd >= 0))
		return 0;
	for (k = 2; k <= PLAN_MAX_BLOCKS; k++)
		if ((effect_log - min_log) * sqrt((double)k) >= (stats_t975((double)(k - 1)) + z) * sd)
			return k;
	return 0;
}

double plan_detectable(double sd, double t, double min_log, double z)
{
	return expm1(min_log + (t + z) * sqrt(2.0) * sd) * 100.0;
}

void plan_key(const struct compare_row *w, char *buf, size_t len)
{
	size_t i;

	if (w->m < 0)
		snprintf(buf, len, "tok_s");
	else
		snprintf(buf, len, "%s_%s", w->metric, w->stat);
	for (i = 0; buf[i]; i++)
		buf[i] = (char)tolower((unsigned char)buf[i]);
}

/* One row of the plan table. */
struct plan_row {
	const struct compare_row *w;
	char level[16], metric[32], noise[24], plan[128];
	double sd_pct, now_pct, detectable_pct;
	double blocks, requests;        /* NaN: none */
};

#define PLAN_ROW(row) ((const struct plan_row *)(row))

static const char *col_plan_cell(const void *row, size_t off)
{
	return (const char *)row + off;
}

static double col_plan_num(const void *row, size_t arg)
{
	const struct plan_row *p = PLAN_ROW(row);

	switch (arg) {
	case 0: return load_code(p->w->level);
	case 1: return p->sd_pct;
	case 2: return p->now_pct;
	case 3: return p->blocks;
	case 4: return p->detectable_pct;
	default: return p->requests;
	}
}

static const char *col_plan_stat(const void *row, size_t arg)
{
	(void)arg;
	return PLAN_ROW(row)->w->stat[0] ? PLAN_ROW(row)->w->stat : NULL;
}

static const char *col_plan_metric(const void *row, size_t arg)
{
	(void)arg;
	return PLAN_ROW(row)->w->metric;
}

static const char *col_plan_noise(const void *row, size_t arg)
{
	(void)arg;
	return PLAN_ROW(row)->noise[0] ? PLAN_ROW(row)->noise : NULL;
}

#define PLAN_CELL(h, wd, fl, k, field) { .head = (h), .key = (k), .width = (wd), .flags = (fl), \
					 .str = col_plan_cell, \
					 .arg = offsetof(struct plan_row, field) }

static const struct table_col plan_cols[] = {
	PLAN_CELL("C", 4, 0, NULL, level),
	{ .key = "concurrency", .num = col_plan_num, .arg = 0 },
	PLAN_CELL("Metric", 12, TABLE_LEFT, NULL, metric),
	{ .key = "metric", .str = col_plan_metric },
	{ .key = "stat", .str = col_plan_stat },
	{ .head = "Noise from", .key = "noise", .width = 10, .flags = TABLE_LEFT,
	  .str = col_plan_noise },
	{ .head = "Noise SD", .unit = "%", .key = "noise_sd_pct", .width = 8, .decimals = 1,
	  .csv_decimals = 3, .num = col_plan_num, .arg = 1 },
	{ .head = "Now +-", .unit = "%", .key = "half_width_pct", .width = 8, .decimals = 1,
	  .csv_decimals = 3, .num = col_plan_num, .arg = 2 },
	{ .key = "blocks_needed", .num = col_plan_num, .arg = 3 },
	{ .key = "one_run_sees_pct", .csv_decimals = 3, .num = col_plan_num, .arg = 4 },
	{ .key = "requests_needed", .num = col_plan_num, .arg = 5 },
	PLAN_CELL("Plan", 0, TABLE_LEFT, "plan", plan),
};

/* Fills p with the plan of w at its level lv (NULL: none). */
static void plan_row_fill(struct plan_row *p, const struct compare_row *w,
			  const struct compare_level *lv, const struct plan_opts *o)
{
	const struct verdict *v = &w->v;
	double min_pct = lv ? lv->min_effect : compare_min_effect(-1, 1);
	double min_log = log1p(min_pct / 100.0), z = plan_z(o->power_pct / 100.0);
	double effect_log = w->higher_is_better ? -log1p(-o->effect_pct / 100.0) :
			    log1p(o->effect_pct / 100.0);
	size_t k;

	memset(p, 0, sizeof(*p));
	p->w = w;
	p->sd_pct = p->now_pct = p->detectable_pct = p->blocks = p->requests = NAN;
	load_cell(w->level, p->level, sizeof(p->level));
	snprintf(p->metric, sizeof(p->metric), "%s%s%s", w->metric, w->stat[0] ? " " : "", w->stat);
	snprintf(p->noise, sizeof(p->noise), "%s", v->outcome == VERDICT_NA ? "" :
		 verdict_noise_name(v->noise));
	if (!isnan(v->lo) && !isnan(v->hi))
		p->now_pct = (v->hi - v->lo) / 2;
	if (v->outcome == VERDICT_NA) {
		size_t has = v->n_before < v->n_after ? v->n_before : v->n_after;

		p->requests = (double)v->needed;
		snprintf(p->plan, sizeof(p->plan), "%zu requests a side (has %zu)", v->needed, has);
		return;
	}
	if (v->noise == VERDICT_NOISE_NONE) {
		snprintf(p->plan, sizeof(p->plan), "noise not measured: an A/B run, or 3 runs "
			 "of the baseline");
		return;
	}
	p->sd_pct = expm1(v->noise_sd) * 100.0;
	if (v->noise == VERDICT_NOISE_BLOCKS) {
		k = plan_blocks(v->noise_sd, effect_log, min_log, z);
		if (k) {
			p->blocks = (double)k;
			snprintf(p->plan, sizeof(p->plan), "A/B, --repeat %zu", k);
		} else {
			snprintf(p->plan, sizeof(p->plan), "more than %d blocks", PLAN_MAX_BLOCKS);
		}
		return;
	}
	p->detectable_pct = plan_detectable(v->noise_sd, v->noise_t, min_log, z);
	if (p->detectable_pct <= o->effect_pct)
		snprintf(p->plan, sizeof(p->plan), "one run a side (sees %.0f%% or more)",
			 p->detectable_pct);
	else
		snprintf(p->plan, sizeof(p->plan), "one run a side sees %.0f%% or more: "
			 "an A/B run", p->detectable_pct);
}

size_t plan_print(FILE *out, enum table_format fmt, const char *before, const char *after,
		  const struct compare_result *r, const struct plan_opts *o)
{
	struct table t;
	struct plan_row row;
	char key[48];
	size_t i, c, shown = 0;

	if (fmt == TABLE_TEXT || fmt == TABLE_MARKDOWN) {
		fprintf(out, "%sto see a change of %g%% (power %g%%) from the noise of ",
			fmt == TABLE_MARKDOWN ? "**Plan** " : "plan: ", o->effect_pct, o->power_pct);
		table_put_text(out, before);
		fprintf(out, " vs ");
		table_put_text(out, after);
		fprintf(out, "%s\n\n", r->ab ? " (an A/B run)" : "");
	}
	table_init(&t, out, fmt, plan_cols, sizeof(plan_cols) / sizeof(plan_cols[0]), 0);
	for (i = 0; i < r->n_rows; i++) {
		plan_key(&r->rows[i], key, sizeof(key));
		if (o->metric && strcmp(o->metric, key) != 0)
			continue;
		for (c = 0; c < r->n_levels &&
			    !load_same(r->levels[c].level, r->rows[i].level); c++)
			;
		plan_row_fill(&row, &r->rows[i], c < r->n_levels ? &r->levels[c] : NULL, o);
		table_fit(&t, &row);
	}
	table_begin(&t);
	for (i = 0; i < r->n_rows; i++) {
		plan_key(&r->rows[i], key, sizeof(key));
		if (o->metric && strcmp(o->metric, key) != 0)
			continue;
		for (c = 0; c < r->n_levels &&
			    !load_same(r->levels[c].level, r->rows[i].level); c++)
			;
		plan_row_fill(&row, &r->rows[i], c < r->n_levels ? &r->levels[c] : NULL, o);
		table_row(&t, &row);
		shown++;
	}
	table_end(&t);
	return shown;
}
