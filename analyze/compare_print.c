/*
 * compare_print.c - how `analyze compare` shows what compare.c found: the
 * lines above the table (the threshold, the pairing, where the run-to-run
 * noise came from, the warnings), the table in every format, the legend,
 * and the one-line description of a regression.
 */
#include "analyze/compare.h"
#include "lib/metric.h"
#include "lib/table.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* "+4.1% [+2.9, +5.3]"; without an interval "+4.1%"; "-" without a change. */
static void compare_change_cell(char *buf, size_t len, const struct verdict *v)
{
	if (isnan(v->change_pct))
		snprintf(buf, len, "-");
	else if (isnan(v->lo))
		snprintf(buf, len, "%+.1f%%", v->change_pct);
	else
		snprintf(buf, len, "%+.1f%% [%+.1f, %+.1f]", v->change_pct, v->lo, v->hi);
}

void compare_describe(const struct compare_row *w, char *buf, size_t len)
{
	char level[16], change[64];

	load_cell(w->level, level, sizeof(level));
	compare_change_cell(change, sizeof(change), &w->v);
	snprintf(buf, len, "%s%s%s at C=%s %s", w->metric, w->stat[0] ? " " : "", w->stat, level,
		 change);
}

/* The verdict cell: the outcome; "n/a" saying how many requests it needs;
 * a change that unmeasured noise or the clients' bounds held back marked
 * so. */
static void compare_verdict_cell(char *buf, size_t len, const struct compare_row *w)
{
	size_t fewer = w->v.n_before < w->v.n_after ? w->v.n_before : w->v.n_after;

	if (w->v.held)
		snprintf(buf, len, "inconclusive (noise not measured)");
	else if (w->v.client_held)
		snprintf(buf, len, "client-limited");
	else if (w->v.outcome != VERDICT_NA)
		snprintf(buf, len, "%s", verdict_outcome_name(w->v.outcome));
	else if (w->v.needed && fewer < w->v.needed)
		snprintf(buf, len, "n/a (%zu < %zu requests a side)", fewer, w->v.needed);
	else
		snprintf(buf, len, "n/a");
}

/* A row of the compare table: a compare_row, its level, the runs' labels
 * and the text cells made of several fields. */
struct compare_table_row {
	const char *labels[2];          /* before, after */
	const struct compare_row *w;
	const struct compare_level *lv; /* NULL if none */
	char level[16], metric[32], change[64], verdict[96];
};

#define CMP_ROW(row) ((const struct compare_table_row *)(row))

static const char *col_cmp_label(const void *row, size_t after)
{
	return CMP_ROW(row)->labels[after];
}

/* The text cells, by their offset in struct compare_table_row. */
static const char *col_cmp_cell(const void *row, size_t off)
{
	return (const char *)row + off;
}

static const char *col_cmp_metric(const void *row, size_t arg)
{
	(void)arg;
	return CMP_ROW(row)->w->metric;
}

static const char *col_cmp_stat(const void *row, size_t arg)
{
	(void)arg;
	return CMP_ROW(row)->w->stat[0] ? CMP_ROW(row)->w->stat : NULL;
}

static const char *col_cmp_unit(const void *row, size_t arg)
{
	(void)arg;
	return CMP_ROW(row)->w->unit;
}

static const char *col_cmp_outcome(const void *row, size_t arg)
{
	(void)arg;
	return verdict_outcome_name(CMP_ROW(row)->w->v.outcome);
}

static const char *col_cmp_noise(const void *row, size_t arg)
{
	(void)arg;
	return verdict_noise_name(CMP_ROW(row)->w->v.noise);
}

/* The numbers of a row, arg as in the switch. */
static double col_cmp_num(const void *row, size_t arg)
{
	const struct compare_row *w = CMP_ROW(row)->w;
	const struct compare_level *lv = CMP_ROW(row)->lv;

	switch (arg) {
	case 0: return load_code(w->level);
	case 1: return (double)w->v.n_before;
	case 2: return (double)w->v.n_after;
	case 3: return lv ? (double)lv->repeats_before : 1;
	case 4: return lv ? (double)lv->repeats_after : 1;
	case 5: return w->v.paired;
	case 6: return w->v.before;
	case 7: return w->v.after;
	case 8: return w->v.change_pct;
	case 9: return w->v.lo;
	case 10: return w->v.hi;
	case 12: return w->v.held;
	case 13: return (double)w->v.needed;
	case 14: return w->v.noise == VERDICT_NOISE_NONE ? NAN : expm1(w->v.noise_sd) * 100.0;
	case 15: return w->v.noise == VERDICT_NOISE_BLOCKS || w->v.noise == VERDICT_NOISE_HISTORY ?
			(double)w->v.noise_df : NAN;
	case 16: return w->v.client_held;
	case 17: return w->client_bound_ms;
	default: return w->estimated;
	}
}

#define CMP_CELL(h, w, fl, field) { .head = (h), .width = (w), .flags = (fl), \
				    .str = col_cmp_cell, \
				    .arg = offsetof(struct compare_table_row, field) }
#define CMP_NUM(k, cd, fl, a) { .key = (k), .csv_decimals = (cd), .flags = (fl), \
				.num = col_cmp_num, .arg = (a) }

/* The compare table, every format; the order is the CSV order too. */
static const struct table_col compare_cols[] = {
	{ .key = "before", .str = col_cmp_label, .arg = 0 },
	{ .key = "after", .str = col_cmp_label, .arg = 1 },
	CMP_CELL("C", 4, 0, level),
	CMP_NUM("concurrency", 0, 0, 0),
	CMP_CELL("Metric", 10, TABLE_LEFT, metric),
	{ .key = "metric", .str = col_cmp_metric },
	{ .head = "Stat", .key = "stat", .width = 4, .flags = TABLE_LEFT, .str = col_cmp_stat },
	{ .key = "unit", .str = col_cmp_unit },
	CMP_NUM("n_before", 0, 0, 1), CMP_NUM("n_after", 0, 0, 2),
	CMP_NUM("repeats_before", 0, 0, 3), CMP_NUM("repeats_after", 0, 0, 4),
	CMP_NUM("paired", 0, TABLE_BOOL, 5),
	{ .head = "Before", .key = "before_value", .width = 9, .decimals = 1, .csv_decimals = 3,
	  .num = col_cmp_num, .arg = 6 },
	{ .head = "After", .key = "after_value", .width = 9, .decimals = 1, .csv_decimals = 3,
	  .num = col_cmp_num, .arg = 7 },
	CMP_CELL("Change [95% interval]", 24, TABLE_LEFT, change),
	CMP_NUM("change_pct", 3, 0, 8), CMP_NUM("ci_lo", 3, 0, 9), CMP_NUM("ci_hi", 3, 0, 10),
	CMP_CELL("Verdict", 0, TABLE_LEFT, verdict),
	{ .key = "verdict", .str = col_cmp_outcome },
	CMP_NUM("tokens_estimated", 0, TABLE_BOOL, 11),
	{ .key = "noise", .str = col_cmp_noise },
	CMP_NUM("held", 0, TABLE_BOOL, 12),
	CMP_NUM("requests_needed", 0, 0, 13),
	CMP_NUM("noise_sd_pct", 3, 0, 14), CMP_NUM("noise_df", 0, 0, 15),
	CMP_NUM("client_limited", 0, TABLE_BOOL, 16), CMP_NUM("client_bound_ms", 3, 0, 17),
};

/* A level of the JSON "levels" array. */
static double col_lv_num(const void *row, size_t arg)
{
	const struct compare_level *lv = row;
	const double v[] = {
		load_code(lv->level), lv->compared, (double)lv->repeats_before,
		(double)lv->repeats_after,
		lv->paired, (double)lv->ok_before, (double)lv->ok_after,
		(double)lv->failed_before, (double)lv->failed_after, lv->min_effect,
		(double)lv->history_runs, lv->tpj_before, lv->tpj_after, lv->cost_out_before,
		lv->cost_out_after, (double)lv->cancelled_before, (double)lv->cancelled_after,
	};

	return v[arg];
}

static const char *col_lv_noise(const void *row, size_t arg)
{
	(void)arg;
	return verdict_noise_name(((const struct compare_level *)row)->noise);
}

/* "2 http (HTTP 429 x2)": a side's failures by class and status, null none. */
static const char *col_lv_errors(const void *row, size_t after)
{
	const struct compare_level *lv = row;
	const char *v = after ? lv->errors_after : lv->errors_before;

	return v[0] ? v : NULL;
}

#define LV(k, fl, a) { .key = (k), .flags = (fl), .num = col_lv_num, .arg = (a) }

static const struct table_col compare_level_cols[] = {
	LV("concurrency", 0, 0), LV("compared", TABLE_BOOL, 1), LV("repeats_before", 0, 2),
	LV("repeats_after", 0, 3), LV("paired", TABLE_BOOL, 4), LV("ok_before", 0, 5),
	LV("ok_after", 0, 6), LV("failed_before", 0, 7), LV("failed_after", 0, 8),
	{ .key = "errors_before", .str = col_lv_errors, .arg = 0 },
	{ .key = "errors_after", .str = col_lv_errors, .arg = 1 },
	LV("cancelled_before", 0, 15), LV("cancelled_after", 0, 16),
	{ .key = "min_effect_pct", .csv_decimals = 3, .num = col_lv_num, .arg = 9 },
	{ .key = "noise", .str = col_lv_noise },
	LV("history_runs", 0, 10),
	{ .key = "tokens_per_joule_before", .csv_decimals = 4, .num = col_lv_num, .arg = 11 },
	{ .key = "tokens_per_joule_after", .csv_decimals = 4, .num = col_lv_num, .arg = 12 },
	{ .key = "cost_per_m_output_before", .csv_decimals = 4, .num = col_lv_num, .arg = 13 },
	{ .key = "cost_per_m_output_after", .csv_decimals = 4, .num = col_lv_num, .arg = 14 },
};

/* Why a level got no rows: "C=4: no successful request in 'after' (8 failed)". */
static void compare_level_line(FILE *out, const struct compare_level *lv, const char *before,
			       const char *after)
{
	char level[16];

	load_cell(lv->level, level, sizeof(level));
	fprintf(out, "C=%s: no successful request in ", level);
	if (!lv->ok_before && !lv->ok_after) {
		fputs("either run", out);
	} else {
		fputc('\'', out);
		table_put_text(out, lv->ok_before ? after : before);
		fputc('\'', out);
	}
	fprintf(out, " (%zu and %zu failed); no verdict\n", lv->failed_before, lv->failed_after);
}

/* "C=4: 2 of 8 requests failed in 'after': 2 http (HTTP 429 x2)", for each
 * side of a level with failures: how they failed, so that a 429 storm does
 * not read as a wrong model; before it, the requests replay --cancel chose,
 * which are neither failures nor samples. Returns 1 when it printed a line. */
static int compare_failed_lines(FILE *out, const struct compare_level *lv, const char *before,
				 const char *after, int md)
{
	char level[16];
	int side, any = 0;

	load_cell(lv->level, level, sizeof(level));
	for (side = 0; side < 2; side++) {
		size_t failed = side ? lv->failed_after : lv->failed_before;
		size_t ok = side ? lv->ok_after : lv->ok_before;
		size_t cancelled = side ? lv->cancelled_after : lv->cancelled_before;

		if (cancelled) {
			fprintf(out, "C=%s: %zu of %zu requests chosen by replay --cancel in '", level,
				cancelled, failed + ok + cancelled);
			table_put_text(out, side ? after : before);
			fputs(md ? "': not failures, in no sample\n\n" : "': not failures, in no sample\n",
			      out);
			any = 1;
		}
		if (!failed)
			continue;
		fprintf(out, "C=%s: %zu of %zu requests failed in '", level, failed, failed + ok);
		table_put_text(out, side ? after : before);
		fputs("': ", out);
		table_put_text(out, side ? lv->errors_after : lv->errors_before);
		fputs(md ? "\n\n" : "\n", out);
		any = 1;
	}
	return any;
}

/* The title, the warnings and the levels not compared, above the table. */
static void compare_print_title(FILE *out, const char *before, const char *after,
				const struct compare_result *r, int md)
{
	size_t i;
	int lines = 0;

	fputs(md ? "### compare '" : "compare '", out);
	table_put_text(out, before);
	fputs("' (before) with '", out);
	table_put_text(out, after);
	fputs("' (after)\n\n", out);
	for (i = 0; i < r->n_warnings; i++) {
		fputs("warning: ", out);
		table_put_text(out, r->warnings[i]);
		fputs(md ? "\n\n" : "\n", out);
	}
	for (i = 0; i < r->n_levels; i++) {
		lines |= compare_failed_lines(out, &r->levels[i], before, after, md);
		if (!r->levels[i].compared) {
			compare_level_line(out, &r->levels[i], before, after);
			fputs(md ? "\n" : "", out);
			lines = 1;
		}
	}
	if (lines && !md)
		fputc('\n', out);
}

/* "Verdicts against --min-effect 1% (...), ": the threshold of the levels
 * compared, and whether it was given or each level's default. */
static void compare_print_threshold(FILE *out, const struct compare_result *r)
{
	double lo = -1, hi = -1;
	size_t i;

	for (i = 0; i < r->n_levels; i++) {
		if (!r->levels[i].compared)
			continue;
		if (lo < 0 || r->levels[i].min_effect < lo)
			lo = r->levels[i].min_effect;
		if (r->levels[i].min_effect > hi)
			hi = r->levels[i].min_effect;
	}
	if (r->min_effect >= 0)
		fprintf(out, "Verdicts against --min-effect %g%%", r->min_effect);
	else if (lo != hi)
		fprintf(out, "Verdicts against --min-effect %g%% where the run-to-run noise is "
			"measured, %g%% where not (the defaults)", lo, hi);
	else
		fprintf(out, "Verdicts against --min-effect %g%% (the default %s)", lo,
			lo == VERDICT_MIN_EFFECT_REPEATS ? "where the run-to-run noise is measured" :
			"where it is not");
	fputs(", 95% intervals of the change; ", out);
}

/* The line saying where the run-to-run noise came from, level by level. */
static void compare_print_noise(FILE *out, const struct compare_result *r, size_t max_rep)
{
	size_t i, count[VERDICT_NOISE_GIVEN + 1] = { 0 }, runs = 0, blocks = SIZE_MAX;

	for (i = 0; i < r->n_levels; i++) {
		const struct compare_level *lv = &r->levels[i];

		if (!lv->compared)
			continue;
		count[lv->noise]++;
		if (lv->noise == VERDICT_NOISE_HISTORY && lv->history_runs > runs)
			runs = lv->history_runs;
		if (lv->noise == VERDICT_NOISE_BLOCKS && lv->blocks < blocks)
			blocks = lv->blocks;
	}
	if (count[VERDICT_NOISE_BLOCKS])
		fprintf(out, "Run-to-run noise: an A/B run's %zu interleaved blocks, paired block by "
			"block%s.\n", blocks, count[VERDICT_NOISE_BLOCKS] < r->n_levels ?
			" where both sides have two or more" : "");
	if (count[VERDICT_NOISE_GIVEN])
		fputs("Run-to-run noise: as given (--noise).\n", out);
	if (count[VERDICT_NOISE_HISTORY])
		fprintf(out, "Run-to-run noise: the spread of up to %zu runs of the before run's "
			"experiment in the database (same endpoint, trace and parameters).\n", runs);
	if (count[VERDICT_NOISE_NONE])
		fprintf(out, "Run-to-run noise was not measured%s: a change is 'inconclusive', not "
			"'faster' or 'slower'. Measure it: an A/B run with --repeat 3 "
			"(replay -e A -e B), or %d runs of the before command (%zu here), or "
			"--noise PCT.%s\n",
			count[VERDICT_NOISE_NONE] < r->n_levels ? " at some levels" : "",
			COMPARE_HISTORY_MIN_RUNS, r->history_runs,
			max_rep >= 2 && !r->ab ? " Repeats adjacent in time do not measure it." : "");
}

/* The lines above a text or Markdown table: how the verdicts were made. */
static void compare_print_head(FILE *out, const char *before, const char *after,
			       const struct compare_result *r, int md)
{
	size_t i, max_rep = 0, paired = 0, compared = 0, estimated = 0;

	for (i = 0; i < r->n_levels; i++) {
		const struct compare_level *lv = &r->levels[i];

		if (!lv->compared)
			continue;
		compared++;
		paired += (size_t)lv->paired;
		estimated += (size_t)(lv->estimated_before || lv->estimated_after);
		if (lv->repeats_before > max_rep)
			max_rep = lv->repeats_before;
		if (lv->repeats_after > max_rep)
			max_rep = lv->repeats_after;
	}
	compare_print_title(out, before, after, r, md);
	if (!compared)
		return;
	compare_print_threshold(out, r);
	if (paired == compared)
		fputs("requests paired by trace id.\n", out);
	else if (paired)
		fputs("requests paired by trace id where both runs replayed the same ones.\n", out);
	else
		fputs("unpaired (the runs replayed different requests).\n", out);
	compare_print_noise(out, r, max_rep);
	if (estimated)
		fputs("*: token counts estimated from the stream (the server reported no usage).\n",
		      out);
	fputs("\n", out);
}

/* JSON: the object around the rows, up to "rows": */
static void compare_print_json_head(FILE *out, const char *before, const char *after,
				    const struct compare_result *r)
{
	struct table t;
	size_t i;

	fputs("{\"before\": ", out);
	table_put_json_string(out, before);
	fputs(", \"after\": ", out);
	table_put_json_string(out, after);
	fputs(", \"min_effect_pct\": ", out);
	if (r->min_effect >= 0)
		fprintf(out, "%g", r->min_effect);
	else
		fputs("null", out);     /* each level's default, in "levels" */
	fputs(", \"warnings\": [", out);
	for (i = 0; i < r->n_warnings; i++) {
		fputs(i ? ", " : "", out);
		table_put_json_string(out, r->warnings[i]);
	}
	fputs("], \"levels\": ", out);
	table_init(&t, out, TABLE_JSON, compare_level_cols,
		   sizeof(compare_level_cols) / sizeof(compare_level_cols[0]), 0);
	t.nested = 1;
	table_begin(&t);
	for (i = 0; i < r->n_levels; i++)
		table_row(&t, &r->levels[i]);
	table_end(&t);
	fputs(", \"rows\": ", out);
}

static const char compare_turns_legend[] =
	"TTFT first and TTFT later: the TTFT of the sessions' first turns, and of their "
	"later turns (which resend the conversation: where a prefix cache shows).\n";

/* Did the runs of r replay sessions (rows of first and later turns)? */
static int compare_has_turns(const struct compare_result *r)
{
	size_t i;

	for (i = 0; i < r->n_rows; i++)
		if (!strcmp(r->rows[i].metric, "TTFT first"))
			return 1;
	return 0;
}

static const char compare_legend[] =
	"same: the interval lies inside +-min-effect; faster/slower: beyond it; "
	"inconclusive: it straddles the threshold (run more requests or repeats), or the "
	"run-to-run noise was not measured. P50 needs 5 requests a side, P90 20, P95 40, "
	"P99 200 (ITL counts requests, not gaps). Agg tok/s is tokens / wall time.\n";

static const char compare_client_legend[] =
	"client-limited: the change is no larger than what the two runs' clients may have "
	"added to the figure (their bounds summed: analyze report's \"the client's own "
	"error\"), so it is not called faster or slower; --fail-on-regression passes it "
	"unless --gate-client-limited.\n";

/* Was a verdict of r held back by the clients' bounds? */
static int compare_has_client_held(const struct compare_result *r)
{
	size_t i;

	for (i = 0; i < r->n_rows; i++)
		if (r->rows[i].v.client_held)
			return 1;
	return 0;
}

/* Fills row with the compare_row w of r and its text cells. */
static void compare_table_row(struct compare_table_row *row, const struct compare_result *r,
			      const struct compare_row *w)
{
	size_t c;

	row->w = w;
	row->lv = NULL;
	for (c = 0; c < r->n_levels; c++)
		if (load_same(r->levels[c].level, w->level))
			row->lv = &r->levels[c];
	load_cell(w->level, row->level, sizeof(row->level));
	snprintf(row->metric, sizeof(row->metric), "%s%s", w->metric, w->estimated ? "*" : "");
	compare_change_cell(row->change, sizeof(row->change), &w->v);
	compare_verdict_cell(row->verdict, sizeof(row->verdict), w);
}

void compare_print(FILE *out, enum table_format fmt, const char *before, const char *after,
		   const struct compare_result *r)
{
	int text = fmt == TABLE_TEXT || fmt == TABLE_MARKDOWN;
	struct compare_table_row row;
	struct table t;
	size_t i;

	if (text)
		compare_print_head(out, before, after, r, fmt == TABLE_MARKDOWN);
	else if (fmt == TABLE_JSON)
		compare_print_json_head(out, before, after, r);
	if (text && !r->n_rows)
		return;
	table_init(&t, out, fmt, compare_cols, sizeof(compare_cols) / sizeof(compare_cols[0]), 0);
	t.sep = "  ";
	t.nested = 1;
	table_begin(&t);
	row.labels[0] = before;
	row.labels[1] = after;
	for (i = 0; i < r->n_rows; i++) {
		compare_table_row(&row, r, &r->rows[i]);
		table_row(&t, &row);
	}
	table_end(&t);
	if (fmt == TABLE_JSON)
		fputs("}\n", out);
	else if (text)
		fprintf(out, "\n%s%s%s", compare_legend,
			compare_has_turns(r) ? compare_turns_legend : "",
			compare_has_client_held(r) ? compare_client_legend : "");
	if (text) {
		compare_print_split(out, fmt, r);
		compare_print_efficiency(out, fmt, r);
		compare_print_models(out, fmt, r);
	}
}
