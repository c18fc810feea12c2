/*
 * random.h - a small seeded random generator and the distributions that
 * traces and schedules draw from. The same seed gives the same sequence on
 * every machine (splitmix64; no libc rand), so synthetic traces and
 * open-loop schedules are reproducible to the byte.
 */
#ifndef TB_RANDOM_H
#define TB_RANDOM_H

#include <stdint.h>

struct rng {
	uint64_t state;
};

void rng_init(struct rng *r, uint64_t seed);

/* Next 64 random bits. */
uint64_t rng_next(struct rng *r);

/* Uniform in [0, 1). */
double rng_uniform(struct rng *r);

/* Exponential with the given rate (mean 1/rate), rate > 0. */
double rng_exponential(struct rng *r, double rate);

/* Normal with mean mu and standard deviation sd. */
double rng_normal(struct rng *r, double mu, double sd);

/* Gamma with shape k > 0 and scale theta > 0 (mean k * theta). */
double rng_gamma(struct rng *r, double k, double theta);

#endif
