/*
 * summary.h - the per-level sweep table: one row per concurrency level.
 *
 * replay prints a row as each level ends; analyze prints the same rows from
 * the database. Both compute them here from struct result arrays, so the
 * numbers cannot drift apart. Column meanings follow docs/DESIGN.md,
 * "Metric definitions": aggregate tok/s = sum of output tokens / wall time of the level;
 * per-request tok/s = mean of output_tokens / (E2E - TTFT).
 */
#ifndef TB_SUMMARY_H
#define TB_SUMMARY_H

#include <stdint.h>
#include <stdio.h>
#include "result.h"
#include "stats.h"

/* Error classes a report counts apart, in the order of lib/result.h. */
#define SUMMARY_N_ERROR_CLASSES 9
extern const char *const summary_error_classes[SUMMARY_N_ERROR_CLASSES]; /* last: "other" */

/*
 * Service-level objectives for goodput: a request is good when it succeeded
 * and each metric with a limit (> 0) is within it. A request without the
 * metric (TPOT of a one-token answer) passes that limit.
 */
struct summary_slo {
	double ttft_ms, ttfa_ms, tpot_ms, e2e_ms;   /* 0: no limit */
};

/*
 * Parses "ttft=500ms,tpot=50ms,e2e=10s" (units us, ms, s; a bare number is
 * ms) into *out. Returns 0, or -1 with a message in err (errlen bytes).
 */
int summary_slo_parse(const char *s, struct summary_slo *out, char *err, size_t errlen);

struct level_summary {
	int level;             /* concurrency */
	size_t requests;       /* non-warm-up requests */
	size_t ok;             /* of which succeeded */
	size_t errors;         /* of which failed */
	size_t warmup;         /* warm-up requests of this level */
	double warmup_ttft_ms; /* mean TTFT of successful warm-ups, NaN if none */
	int64_t tokens;        /* output tokens of successful requests */
	double wall_s;         /* first start to last end of non-warm-up requests,
				* summed over repeats when the level has several */
	double agg_tps;        /* tokens / wall_s */
	double per_req_tps;    /* mean per-request tok/s */
	double ttft_mean_ms, ttft_p50_ms, ttft_p95_ms, ttft_p99_ms;
	double e2e_mean_ms;
	double tpot_mean_ms;
	/* The full distributions, in ms, of successful non-warm-up requests.
	 * itl pools every gap of those requests (as vLLM's benchmark does). */
	struct stats_dist ttft, ttfa, tpot, itl, e2e;
	size_t errors_by_class[SUMMARY_N_ERROR_CLASSES];
	double scaling_eff;    /* agg_tps / (level * agg_tps at C=1); NaN unless set by a report */
	int repeats;           /* distinct repeats (--repeat) among the requests, >= 1 */
	/* Open loop (some request sent later than scheduled): latencies count
	 * from the schedule; the service view counts from the actual send. */
	int open_loop;
	double sched_rps;      /* requests / span of their scheduled times */
	double achieved_rps;   /* requests / span of their actual send times */
	struct stats_dist lag, ttft_service, e2e_service;   /* ms */
	int has_slo;           /* good and goodput below were computed */
	size_t good;           /* requests within every SLO */
	double goodput_share;  /* good / requests */
	double good_rps;       /* good / wall_s */
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

/* summary_compute, and goodput against slo when slo is not NULL. */
void summary_compute_slo(const struct result *r, size_t n, int level,
			 const struct summary_slo *slo, struct level_summary *out);

/*
 * Table output. A table is begin, rows, end; 'title' (may be NULL) is the
 * "run" column of CSV and JSON rows. Text and Markdown tables have no run
 * column: callers print a heading above each run's table.
 */
void summary_print_begin(FILE *out, enum summary_format fmt);
void summary_print_row(FILE *out, enum summary_format fmt, const char *title,
		       const struct level_summary *s, int first);
void summary_print_end(FILE *out, enum summary_format fmt);

/*
 * The full report table (analyze report), one row per level, begin/row/end
 * as above. Text and Markdown: the seed benchmark's columns first (C, Agg
 * tok/s, Per-req tok/s, Avg TTFT, Tokens, Wall(s), Ok), then TTFT P50, P95,
 * P99, Err, scaling efficiency and, with 'slo', goodput. CSV and JSON: every
 * field of struct level_summary, one flat row per level (mean, p50, p90,
 * p95, p99, max of ttft, ttfa, tpot, itl, e2e; errors by class).
 */
void summary_report_begin(FILE *out, enum summary_format fmt, int slo);
void summary_report_row(FILE *out, enum summary_format fmt, const char *title,
			const struct level_summary *s, int first, int slo);
void summary_report_end(FILE *out, enum summary_format fmt);

/*
 * Text and Markdown only: the latency table of one run, a row per metric
 * (TTFT, TTFA, TPOT, ITL, E2E) and level with n, mean, P50, P90, P95, P99
 * and max in ms, then a legend line saying how ITL is pooled.
 */
void summary_print_latency(FILE *out, enum summary_format fmt,
			   const struct level_summary *levels, size_t n);

#endif
