/*
 * dist.h - seeded random lengths and arrival times for generated traces
 * (record synth): the "N", "uniform:A:B", "normal:MU:SD" and
 * "lognormal:MU:SD" length specs, and constant, Poisson or gamma arrivals.
 *
 * Everything draws from lib/random, so the same seed gives the same
 * numbers on every platform.
 */
#ifndef TB_DIST_H
#define TB_DIST_H

#include <stdint.h>

#include "lib/random.h"

enum dist_kind { DIST_FIXED, DIST_UNIFORM, DIST_NORMAL, DIST_LOGNORMAL };

struct dist {
	enum dist_kind kind;
	double a, b;    /* fixed: a; uniform: [a, b]; (log)normal: mean a, sd b */
};

#define DIST_MIN 1L
#define DIST_MAX 10000000L

/*
 * Parses a length spec: "N", "uniform:A:B" (A <= B), "normal:MU:SD" or
 * "lognormal:MU:SD" (MU > 0, SD >= 0: for lognormal these are the mean and
 * standard deviation of the lengths themselves, not of their logarithm).
 * Bounds are [DIST_MIN, DIST_MAX]. Returns 0, or -1 (d untouched).
 */
int dist_parse(const char *spec, struct dist *d);

/* One length from d, rounded and clamped to [DIST_MIN, DIST_MAX]. */
long dist_sample(const struct dist *d, struct rng *r);

enum arrival_kind { ARRIVAL_CONSTANT, ARRIVAL_POISSON, ARRIVAL_GAMMA };

/*
 * Arrival offsets in nanoseconds for n requests at 'rate' per second,
 * written to out[0..n-1]; out[0] is 0. Inter-arrival times are 1/rate
 * (constant), exponential with mean 1/rate (poisson), or gamma with shape
 * 'burstiness' and mean 1/rate (burstiness 1 is Poisson, below 1 burstier,
 * above 1 more regular). Each offset is rounded from the exact running sum
 * of the gaps, so rounding never accumulates into drift.
 */
void dist_arrivals(enum arrival_kind kind, double rate, double burstiness,
		   long n, struct rng *r, int64_t *out);

#endif
