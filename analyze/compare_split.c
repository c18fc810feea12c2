/*
 * compare_split.c - where a change of TTFT went: the change of the median
 * server queue, prefill and rest between two runs whose servers sent their
 * own timings (lib/attribution.h); see compare.h.
 *
 * Each part's change is the difference of that part's medians, so the
 * parts add up to the change of the median TTFT only roughly (a median of
 * sums is not the sum of medians); the table says how large that change
 * was beside them. Where a server reports no queue (llama.cpp) the queue
 * stays in the rest, as in the report.
 */
#include "analyze/compare.h"

#include <math.h>
#include <stdio.h>

struct split_row {
	char level[24];
	double v[6];   /* TTFT before, after, change; then queue, prefill, rest changes */
};

enum { S_TTFT_A, S_TTFT_B, S_TTFT, S_QUEUE, S_PREFILL, S_REST };

static const char *col_level(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct split_row *)row)->level;
}

static double col_num(const void *row, size_t arg)
{
	return ((const struct split_row *)row)->v[arg];
}

/* The change of d's median from a to b, NaN unless both have it. */
static double split_change(const struct stats_dist *a, const struct stats_dist *b)
{
	return a->n && b->n ? b->p50 - a->p50 : NAN;
}

static const struct table_col split_cols[] = {
	{ .head = "C", .width = 4, .str = col_level },
	{ .head = "TTFT before", .unit = "ms", .width = 9, .decimals = 2, .num = col_num, .arg = 0 },
	{ .head = "TTFT after", .unit = "ms", .width = 9, .decimals = 2, .num = col_num, .arg = 1 },
	{ .head = "Change", .unit = "ms", .width = 9, .decimals = 2, .flags = TABLE_SIGN,
	  .num = col_num, .arg = 2 },
	{ .head = "Queue", .unit = "ms", .width = 9, .decimals = 2, .flags = TABLE_SIGN,
	  .num = col_num, .arg = 3 },
	{ .head = "Prefill", .unit = "ms", .width = 9, .decimals = 2, .flags = TABLE_SIGN,
	  .num = col_num, .arg = 4 },
	{ .head = "Rest", .unit = "ms", .width = 9, .decimals = 2, .flags = TABLE_SIGN,
	  .num = col_num, .arg = 5 },
};

int compare_print_split(FILE *out, enum table_format fmt, const struct compare_result *r)
{
	struct split_row row;
	struct table t;
	size_t i, n = 0;

	if (fmt != TABLE_TEXT && fmt != TABLE_MARKDOWN)
		return 0;
	for (i = 0; i < r->n_levels; i++)
		n += r->levels[i].att_before.n && r->levels[i].att_after.n;
	if (!n)
		return 0;
	fprintf(out, "\nwhere the TTFT change went (P50 of each part, by the servers' own "
		"timings):\n%s", fmt == TABLE_MARKDOWN ? "\n" : "");
	table_init(&t, out, fmt, split_cols, sizeof(split_cols) / sizeof(split_cols[0]), 0);
	table_begin(&t);
	for (i = 0; i < r->n_levels; i++) {
		const struct attribution *a = &r->levels[i].att_before, *b = &r->levels[i].att_after;

		if (!a->n || !b->n)
			continue;
		load_cell(r->levels[i].level, row.level, sizeof(row.level));
		row.v[S_TTFT_A] = a->ttft.n ? a->ttft.p50 : NAN;
		row.v[S_TTFT_B] = b->ttft.n ? b->ttft.p50 : NAN;
		row.v[S_TTFT] = split_change(&a->ttft, &b->ttft);
		row.v[S_QUEUE] = split_change(&a->queue, &b->queue);
		row.v[S_PREFILL] = split_change(&a->prefill, &b->prefill);
		row.v[S_REST] = split_change(&a->rest_ttft, &b->rest_ttft);
		table_row(&t, &row);
	}
	table_end(&t);
	fprintf(out, "%sTTFT of the requests with timings; each part's change is that of "
		"its median, so the parts add up to the change roughly. Rest = TTFT - queue - "
		"prefill: sending, the network, the client, and a queue the server does not "
		"report (llama.cpp's).\n", fmt == TABLE_MARKDOWN ? "\n" : "");
	return 1;
}
