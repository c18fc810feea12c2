/*
 * stats.h - the statistics every report uses, in one place.
 *
 * Percentiles follow docs/DESIGN.md ("Metric definitions"): linear
 * interpolation between closest ranks, the default of numpy.percentile,
 * over the values given (callers pass only successful, non-warm-up
 * requests).
 * (compare's bootstrap is analyze/verdict.c's, seeded by the caller, so
 * the same data always gets the same interval and the same verdict.)
 */
#ifndef TB_STATS_H
#define TB_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Sorts v ascending in place. */
void stats_sort(double *v, size_t n);

/* p in [0,100] of sorted v; NaN when n == 0. */
double stats_percentile(const double *sorted, size_t n, double p);

/* Arithmetic mean; NaN when n == 0. */
double stats_mean(const double *v, size_t n);

/* The distribution of one metric as a report row shows it. */
struct stats_dist {
	size_t n;
	double mean, p50, p90, p95, p99, max;   /* NaN when n == 0 */
	/* The 95% interval of p50, p90, p95 and p99, in that order, by order
	 * statistics (stats_rank_ci95); NaN where n is too small for one. */
	double lo[4], hi[4];
};

/* The percentiles of struct stats_dist, in the order of its lo and hi. */
extern const double stats_dist_pcts[4];

/*
 * The 95% interval of the p-th percentile (0 < p < 100) of n values, by
 * order statistics: the 0-based ranks *lo and *hi of the sorted values such
 * that the true percentile lies between them with probability at least 95%
 * (the number of values below it is binomial(n, p/100): exact up to 5,000
 * values, the normal approximation above). No assumption about the values'
 * distribution. Returns 0, or -1 when n is too small for such ranks to
 * exist (P50 needs 6 values, P90 36, P95 72, P99 368: the top value must
 * lie above the percentile with 97.5% probability).
 */
int stats_rank_ci95(size_t n, double p, size_t *lo, size_t *hi);

/*
 * True when the p-th percentile (0 < p < 100) of n samples is computed from
 * too few for its rank: fewer than 100 / (100 - p), so that no sample lies
 * beyond it (P50 needs 2, P90 10, P95 20, P99 100). Such a value is an
 * interpolation toward the largest sample; tables mark it.
 */
int stats_too_few(size_t n, double p);

/* Describes the n values of v into *d; reorders v (does not sort it). */
void stats_describe(double *v, size_t n, struct stats_dist *d);

/*
 * The 97.5% quantile of Student's t with df degrees of freedom (df >= 1,
 * fractional df as Welch's gives it; below 1 counts as 1), computed from
 * the t distribution's tail to 1e-12 relative: a rounded table (4.303 for
 * 4.30265 at df 2) moved every interval over three repeats.
 */
double stats_t975(double df);

/*
 * Welch's 95% confidence interval of mean(b) - mean(a), for small samples
 * such as the repeats of a level. Returns 0, or -1 when na or nb < 2.
 */
int stats_welch_ci95(const double *a, size_t na, const double *b, size_t nb,
		     double *lo, double *hi);

/*
 * The p-th percentile of the n > 0 values of v, equal to stats_percentile
 * of v sorted, found by quickselect in O(n). Reorders v.
 */
double stats_select_percentile(double *v, size_t n, double p);

/*
 * The p-th percentile of a multiset given by its entries in ascending order
 * v[0..n), entry j counted weight[group[j]] times (group NULL: weight[j]
 * times), total the sum of those counts (NaN when 0). Equal to
 * stats_percentile of the multiset written out, without writing it: it
 * walks from the nearer end, so a tail percentile reads few entries. For a
 * bootstrap of grouped values: v sorted once, group the request each value
 * belongs to, weight how often a resample drew each request.
 */
double stats_percentile_weighted(const double *v, const size_t *group, const unsigned *weight,
				 size_t n, size_t total, double p);

#endif
