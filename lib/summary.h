/*
 * summary.h - the per-level sweep table: one row per concurrency level.
 *
 * replay prints a row as each level ends; analyze prints the same rows from
 * the database. Both compute them here from struct result arrays, so the
 * numbers cannot drift apart. Column meanings follow DESIGN.md's metric
 * table: aggregate tok/s = sum of output tokens / wall time of the level;
 * per-request tok/s = mean of output_tokens / (E2E - TTFT).
 */
#ifndef TB_SUMMARY_H
#define TB_SUMMARY_H

#include <stdint.h>
#include <stdio.h>
#include "result.h"

struct level_summary {
	int level;             /* concurrency */
	size_t requests;       /* non-warm-up requests */
	size_t ok;             /* of which succeeded */
	size_t errors;         /* of which failed */
	size_t warmup;         /* warm-up requests of this level */
	double warmup_ttft_ms; /* mean TTFT of successful warm-ups, NaN if none */
	int64_t tokens;        /* output tokens of successful requests */
	double wall_s;         /* first send to last end of non-warm-up requests */
	double agg_tps;        /* tokens / wall_s */
	double per_req_tps;    /* mean per-request tok/s */
	double ttft_mean_ms, ttft_p50_ms, ttft_p95_ms, ttft_p99_ms;
	double e2e_mean_ms;
	double tpot_mean_ms;
};

enum summary_format {
	SUMMARY_TEXT,
	SUMMARY_MARKDOWN,
	SUMMARY_CSV,
	SUMMARY_JSON,
};

/* Parses "text", "markdown", "csv", "json". Returns 0 or -1. */
int summary_format_parse(const char *s, enum summary_format *out);

/* Summarizes the n results of one level (warm-ups included in r, counted apart). */
void summary_compute(const struct result *r, size_t n, int level, struct level_summary *out);

/*
 * Table output. A table is begin, rows, end; 'title' (may be NULL) is the
 * "run" column of CSV and JSON rows. Text and Markdown tables have no run
 * column: callers print a heading above each run's table.
 */
void summary_print_begin(FILE *out, enum summary_format fmt);
void summary_print_row(FILE *out, enum summary_format fmt, const char *title,
		       const struct level_summary *s, int first);
void summary_print_end(FILE *out, enum summary_format fmt);

#endif
