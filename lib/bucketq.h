/*
 * bucketq.h - a quantile estimated from a Prometheus histogram's
 * cumulative buckets, as PromQL's histogram_quantile() does it: the
 * bucket that holds the rank is found and the value interpolated linearly
 * between its bounds, as if its observations were spread evenly inside
 * it. analyze report uses it on the increase of a server's TTFT, queue,
 * E2E and inter-token histograms over a level's window (lib/srvmetric.h),
 * so an estimate is only as fine as the server's buckets: it is always
 * shown with the bounds of the bucket that holds it.
 *
 * The counts come from a server and are hostile until checked: bounds
 * that do not rise, a last bound other than +Inf, counts that are
 * negative, not finite or fall from one bucket to the next are refused
 * with a code, never estimated from.
 *
 *   double le[] = { 0.025, 0.05, 0.1, INFINITY }, n[] = { 2, 7, 9, 10 };
 *   struct bucketq_estimate e;
 *   if (bucketq_quantile(le, n, 4, 0.5, &e) == 0)
 *       e.value (0.04), e.lo (0.025), e.hi (0.05)
 */
#ifndef TB_BUCKETQ_H
#define TB_BUCKETQ_H

#include <stddef.h>

/* bucketq_quantile's refusals; bucketq_strerror names them. */
#define BUCKETQ_EMPTY          (-1)   /* no observation in the buckets */
#define BUCKETQ_NO_INF         (-2)   /* the last bound is not +Inf */
#define BUCKETQ_BAD_BOUNDS     (-3)   /* fewer than two, NaN, infinite before
				       * the last, or not rising */
#define BUCKETQ_NOT_MONOTONIC  (-4)   /* a count below the one before it */
#define BUCKETQ_BAD_COUNT      (-5)   /* a count negative or not finite */
#define BUCKETQ_BAD_Q          (-6)   /* q outside [0, 1] */

struct bucketq_estimate {
	double value;   /* the estimate, in the bounds' unit */
	double lo, hi;  /* the bucket that holds it: (lo, hi]; hi is +Inf when
			 * the rank lies above the last finite bound, and value
			 * is then that bound (all that is known: "at least") */
	double count;   /* observations in all buckets */
};

/*
 * The q-quantile (0 <= q <= 1) of the observations counted by n buckets:
 * le[i] the upper bounds, strictly rising, le[n-1] +Inf; cum[i] the
 * cumulative count of observations <= le[i]. The first bucket's lower
 * bound is 0 when its upper bound is positive (Prometheus's rule for
 * latencies); a rank in a first bucket with a bound <= 0 is that bound.
 * Returns 0 and fills *out, or a negative BUCKETQ_ code (*out untouched).
 */
int bucketq_quantile(const double *le, const double *cum, size_t n, double q,
		     struct bucketq_estimate *out);

/*
 * The increase of cumulative buckets from before[] to after[] (n each)
 * into inc[]: after - before, or after itself when any count fell (the
 * server restarted and counts again from 0; the whole histogram restarts
 * together). Returns 1 for a restart, 0 otherwise. inc may be after.
 */
int bucketq_increase(const double *before, const double *after, size_t n, double *inc);

/* A sentence for a BUCKETQ_ code: "no observation in the window". */
const char *bucketq_strerror(int code);

#endif
