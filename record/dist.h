/*
 * dist.h - seeded random lengths for generated traces (record synth): the
 * "N", "uniform:A:B", "normal:MU:SD" and "lognormal:MU:SD" length specs.
 * Arrival times are lib/arrival.h's.
 *
 * Everything draws from lib/random, so the same seed gives the same
 * numbers on every platform.
 */
#ifndef TB_DIST_H
#define TB_DIST_H

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

#endif
