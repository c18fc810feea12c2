/*
 * compare_efficiency.c - what the tokens cost before and after: each
 * level's output tokens per joule and cost per million output tokens of
 * both runs, taken from their report summaries (analyze/run.h), so
 * compare shows the figures report shows — read only for a run with a
 * price or an energy counter's samples, as a summary reads every request;
 * see compare.h.
 *
 * No verdict: one energy reading per level and run has no spread to set a
 * change against (the repeats' windows are summed), so the change is
 * shown as it is.
 */
#include "analyze/compare.h"
#include "analyze/efficiency.h"
#include "analyze/run.h"

#include <math.h>
#include <stdio.h>

/* One side's figures into each compared level: before's, or after's. */
static int side_fill(struct db *db, const struct db_run *run, int after,
		     struct compare_result *r, char *err, size_t errlen)
{
	struct run sum;
	size_t i;
	int yes, rc = efficiency_possible(db, run->label, &run->param, &yes, err, errlen);

	if (rc || !yes)
		return rc;      /* no price, no counter: its figures stay NaN */
	rc = run_read(db, run->label, NULL, &sum, err, errlen);
	if (rc)
		return rc;
	for (i = 0; i < r->n_levels; i++) {
		struct compare_level *lv = &r->levels[i];
		const struct level_summary *s = run_level(&sum, lv->level);

		if (s && after) {
			lv->tpj_after = s->tokens_per_joule;
			lv->cost_out_after = s->cost_per_m_out;
		} else if (s) {
			lv->tpj_before = s->tokens_per_joule;
			lv->cost_out_before = s->cost_per_m_out;
		}
	}
	run_release(&sum);
	return DB_OK;
}

int compare_efficiency_fill(struct db *db, const struct db_run *before,
			    const struct db_run *after, struct compare_result *r, char *err,
			    size_t errlen)
{
	size_t i;
	int rc;

	for (i = 0; i < r->n_levels; i++) {
		struct compare_level *lv = &r->levels[i];

		lv->tpj_before = lv->tpj_after = lv->cost_out_before = lv->cost_out_after = NAN;
	}
	rc = side_fill(db, before, 0, r, err, errlen);
	return rc ? rc : side_fill(db, after, 1, r, err, errlen);
}

struct eff_row {
	char level[24];
	double v[6];   /* tok/J before, after, change %; cost/M out before, after, change % */
};

static const char *col_level(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct eff_row *)row)->level;
}

static double col_num(const void *row, size_t arg)
{
	return ((const struct eff_row *)row)->v[arg];
}

static const struct table_col eff_cols[] = {
	{ .head = "C", .width = 4, .str = col_level },
	{ .head = "Tok/J before", .width = 12, .decimals = 3, .num = col_num, .arg = 0 },
	{ .head = "Tok/J after", .width = 11, .decimals = 3, .num = col_num, .arg = 1 },
	{ .head = "Change", .width = 8, .decimals = 1, .suffix = "%", .flags = TABLE_SIGN,
	  .num = col_num, .arg = 2 },
	{ .head = "Cost/M out before", .width = 17, .decimals = 3, .num = col_num, .arg = 3 },
	{ .head = "Cost/M out after", .width = 16, .decimals = 3, .num = col_num, .arg = 4 },
	{ .head = "Change", .width = 8, .decimals = 1, .suffix = "%", .flags = TABLE_SIGN,
	  .num = col_num, .arg = 5 },
};

/* The change from a to b in percent, NaN unless both are known. */
static double change_pct(double a, double b)
{
	return isfinite(a) && isfinite(b) && a > 0 ? (b - a) / a * 100 : NAN;
}

int compare_print_efficiency(FILE *out, enum table_format fmt, const struct compare_result *r)
{
	struct eff_row row;
	struct table t;
	size_t i, n = 0;

	if (fmt != TABLE_TEXT && fmt != TABLE_MARKDOWN)
		return 0;
	for (i = 0; i < r->n_levels; i++) {
		const struct compare_level *lv = &r->levels[i];

		n += (isfinite(lv->tpj_before) && isfinite(lv->tpj_after)) ||
		     (isfinite(lv->cost_out_before) && isfinite(lv->cost_out_after));
	}
	if (!n)
		return 0;
	fprintf(out, "\nwhat the tokens cost (output tokens per joule over each level's window; "
		"cost per million output tokens at each run's --price-per-hour):\n%s",
		fmt == TABLE_MARKDOWN ? "\n" : "");
	table_init(&t, out, fmt, eff_cols, sizeof(eff_cols) / sizeof(eff_cols[0]), 0);
	table_begin(&t);
	for (i = 0; i < r->n_levels; i++) {
		const struct compare_level *lv = &r->levels[i];

		if (!(isfinite(lv->tpj_before) && isfinite(lv->tpj_after)) &&
		    !(isfinite(lv->cost_out_before) && isfinite(lv->cost_out_after)))
			continue;
		load_cell(lv->level, row.level, sizeof(row.level));
		row.v[0] = lv->tpj_before;
		row.v[1] = lv->tpj_after;
		row.v[2] = change_pct(lv->tpj_before, lv->tpj_after);
		row.v[3] = lv->cost_out_before;
		row.v[4] = lv->cost_out_after;
		row.v[5] = change_pct(lv->cost_out_before, lv->cost_out_after);
		table_row(&t, &row);
	}
	table_end(&t);
	fprintf(out, "%sMore tokens per joule and a lower cost are better; one reading per "
		"level and run, so no verdict.\n", fmt == TABLE_MARKDOWN ? "\n" : "");
	return 1;
}
