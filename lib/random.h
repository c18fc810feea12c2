/*
 * random.h - the one seeded random generator of tracebench, and the
 * distributions drawn from it: synthetic traces, arrival processes
 * (lib/arrival.h) and the bootstrap of `analyze compare` (lib/stats.h). The
 * same seed gives the same sequence on every machine (splitmix64; no libc
 * rand), so traces, schedules and confidence intervals are reproducible to
 * the byte.
 */
#ifndef TB_RANDOM_H
#define TB_RANDOM_H

#include <stddef.h>
#include <stdint.h>

struct rng {
	uint64_t state;
};

void rng_init(struct rng *r, uint64_t seed);

/* A seed for an independent stream: mixes 'seed' and 'key' (a stream
 * number, a Mooncake hash id), so nearby keys give unrelated streams. */
uint64_t rng_derive(uint64_t seed, uint64_t key);

/* Next 64 random bits: splitmix64 (Steele, Lea, Flood 2014). */
uint64_t rng_next(struct rng *r);

/* A uniform integer in [0, n) (n > 0); bias below 2^-40 for n < 2^24. */
size_t rng_below(struct rng *r, size_t n);

/* Uniform in [0, 1). */
double rng_uniform(struct rng *r);

/* Exponential with the given rate (mean 1/rate), rate > 0. */
double rng_exponential(struct rng *r, double rate);

/* Normal with mean mu and standard deviation sd. */
double rng_normal(struct rng *r, double mu, double sd);

/* Gamma with shape k > 0 and scale theta > 0 (mean k * theta). */
double rng_gamma(struct rng *r, double k, double theta);

#endif
