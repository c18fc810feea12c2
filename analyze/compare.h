/*
 * compare.h - `tracebench analyze compare BEFORE AFTER`: did a change make
 * the server faster, slower, or is the difference within the noise?
 *
 * For each concurrency level both runs have, and each metric (TTFT, TPOT,
 * ITL, E2E, aggregate tok/s), compare prints the value before and after,
 * the absolute and relative change, and a verdict. A latency metric is
 * "slower" or "faster" when a bootstrap confidence interval of the change
 * of its median or of its P99 excludes zero; each of the two intervals is
 * at 97.5%, so together they keep the false-alarm rate per metric at 5% or
 * less (Bonferroni). P99 is judged only with 200 samples or more a side
 * (below that its bootstrap is too narrow); the median alone is then
 * judged at 95%. ITL resamples whole requests (their gaps are not
 * independent). Aggregate tok/s, one number per level, is judged by the
 * 95% interval of the change of C * sum(tokens) / sum(E2E) over resampled
 * requests (Little's law: the throughput a closed loop of C sustains).
 * When both runs repeated the level (replay --repeat), the bootstrap has
 * two stages, repeats then requests within them, so the spread between
 * repeats counts as noise, and aggregate tok/s is judged by Welch's 95%
 * interval over the repeats' own values. Resampling uses lib/stats.h's splitmix64 with a
 * fixed seed: the same databases always give the same verdicts.
 */
#ifndef TB_ANALYZE_COMPARE_H
#define TB_ANALYZE_COMPARE_H

#include <stdio.h>
#include "analyze/db.h"
#include "lib/summary.h"

#define COMPARE_RESAMPLES 2000
#define COMPARE_SEED 0x7472616365ULL   /* "trace" */

enum compare_verdict {
	COMPARE_SAME,       /* "no significant change" */
	COMPARE_FASTER,
	COMPARE_SLOWER,
	COMPARE_NA,         /* too few samples on one side */
};

const char *compare_verdict_name(enum compare_verdict v);

struct compare_row {
	int level;
	const char *metric;        /* "TTFT", "TPOT", "ITL", "E2E", "Agg tok/s" (static) */
	int higher_is_better;      /* throughput */
	size_t n_before, n_after;  /* samples (requests; gaps for ITL) */
	double before, after;      /* median (P50) in ms; aggregate tok/s for throughput */
	double lo, hi;             /* CI of after - before of that value */
	double p99_before, p99_after, p99_lo, p99_hi;   /* NaN for throughput */
	enum compare_verdict verdict;
	double worse_pct;          /* significant worsening in %, 0 if none */
};

struct compare_result {
	struct compare_row *rows;  /* owned */
	size_t n_rows;
	char **warnings;           /* owned: different trace or parameters */
	size_t n_warnings;
};

void compare_result_release(struct compare_result *r);

/*
 * Compares the runs labelled 'before' and 'after' with 'resamples'
 * bootstrap resamples from 'seed'. Returns DB_OK and fills *out (release
 * with compare_result_release); DB_ERR_INPUT for an unknown run or runs
 * without a common level; DB_ERR_WORK on SQLite or memory failure.
 */
int compare_runs(struct db *db, const char *before, const char *after, unsigned resamples,
		 uint64_t seed, struct compare_result *out, char *err, size_t errlen);

/* Prints r in fmt (text, markdown, csv, json) with a legend (text, markdown). */
void compare_print(FILE *out, enum summary_format fmt, const char *before, const char *after,
		   const struct compare_result *r);

/* The largest worse_pct of r's rows (0 when nothing got significantly worse). */
double compare_worst_regression(const struct compare_result *r);

#endif
