/*
 * bucketq.c - quantiles from a histogram's cumulative buckets, PromQL's
 * histogram_quantile() with a hostile server's counts refused; see
 * bucketq.h.
 */
#include "lib/bucketq.h"

#include <math.h>

/* Checks the bounds and counts; 0 or the refusal. */
static int bucketq_check(const double *le, const double *cum, size_t n)
{
	size_t i;

	if (n < 2)
		return BUCKETQ_BAD_BOUNDS;
	for (i = 0; i < n; i++) {
		if (isnan(le[i]) || (i && !(le[i] > le[i - 1])))
			return BUCKETQ_BAD_BOUNDS;
		if (!isfinite(cum[i]) || cum[i] < 0)
			return BUCKETQ_BAD_COUNT;
		if (i && cum[i] < cum[i - 1])
			return BUCKETQ_NOT_MONOTONIC;
	}
	if (!isinf(le[n - 1]) || le[n - 1] < 0)
		return BUCKETQ_NO_INF;
	for (i = 0; i < n - 1; i++)
		if (!isfinite(le[i]))
			return BUCKETQ_BAD_BOUNDS;  /* only the last may be infinite */
	return 0;
}

int bucketq_quantile(const double *le, const double *cum, size_t n, double q,
		     struct bucketq_estimate *out)
{
	double total, rank, below, lo, f, v;
	size_t i;
	int rc;

	if (!(q >= 0 && q <= 1))
		return BUCKETQ_BAD_Q;
	if ((rc = bucketq_check(le, cum, n)) < 0)
		return rc;
	total = cum[n - 1];
	if (total <= 0)
		return BUCKETQ_EMPTY;
	rank = q * total;
	/* the first bucket that reaches the rank and holds an observation:
	 * it holds more than the buckets below it, so the division is safe */
	for (i = 0; i < n - 1 && (cum[i] < rank || cum[i] <= 0); i++)
		;
	if (i == n - 1) {           /* above every finite bound */
		out->value = out->lo = le[n - 2];
		out->hi = INFINITY;
		out->count = total;
		return 0;
	}
	if (i == 0 && le[0] <= 0) {
		out->value = out->lo = out->hi = le[0];
		out->count = total;
		return 0;
	}
	lo = i ? le[i - 1] : 0;
	below = i ? cum[i - 1] : 0;
	f = (rank - below) / (cum[i] - below);
	/* weighted, not lo + (hi - lo) * f: hi - lo overflows for bounds a
	 * hostile server sets at +-1e308; kept inside the bucket */
	v = lo * (1 - f) + le[i] * f;
	out->value = v < lo ? lo : v > le[i] ? le[i] : v;
	out->lo = lo;
	out->hi = le[i];
	out->count = total;
	return 0;
}

int bucketq_increase(const double *before, const double *after, size_t n, double *inc)
{
	size_t i;
	int restart = 0;

	for (i = 0; i < n; i++)
		if (after[i] < before[i])
			restart = 1;
	for (i = 0; i < n; i++)
		inc[i] = restart ? after[i] : after[i] - before[i];
	return restart;
}

const char *bucketq_strerror(int code)
{
	switch (code) {
	case 0:                     return "no error";
	case BUCKETQ_EMPTY:         return "no observation in the window";
	case BUCKETQ_NO_INF:        return "the last bucket is not +Inf";
	case BUCKETQ_BAD_BOUNDS:    return "bucket bounds missing, NaN or not rising";
	case BUCKETQ_NOT_MONOTONIC: return "a bucket counts fewer than the one below it";
	case BUCKETQ_BAD_COUNT:     return "a bucket count negative or not finite";
	case BUCKETQ_BAD_Q:         return "quantile outside [0, 1]";
	default:                    return "unknown error";
	}
}
