/*
 * stats.h - the statistics every report uses, in one place.
 *
 * Percentiles follow DESIGN.md: linear interpolation between closest ranks,
 * the default of numpy.percentile, over the values given (callers pass only
 * successful, non-warm-up requests).
 */
#ifndef TB_STATS_H
#define TB_STATS_H

#include <stddef.h>

/* Sorts v ascending in place. */
void stats_sort(double *v, size_t n);

/* p in [0,100] of sorted v; NaN when n == 0. */
double stats_percentile(const double *sorted, size_t n, double p);

/* Arithmetic mean; NaN when n == 0. */
double stats_mean(const double *v, size_t n);

#endif
