/*
 * random.c - splitmix64 and a few distributions; see random.h.
 */
#include "random.h"

#include <math.h>

void rng_init(struct rng *r, uint64_t seed)
{
	r->state = seed;
}

uint64_t rng_derive(uint64_t seed, uint64_t key)
{
	struct rng r;

	rng_init(&r, seed ^ (key * 0xd1342543de82ef95ULL));
	return rng_next(&r);
}

uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

size_t rng_below(struct rng *r, size_t n)
{
	/* The high 64 bits of a 64x64 product: Lemire's multiply-shift. */
	return (size_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

double rng_uniform(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

double rng_exponential(struct rng *r, double rate)
{
	return -log1p(-rng_uniform(r)) / rate;
}

/* Box-Muller; one of the pair is thrown away to keep the state simple. */
double rng_normal(struct rng *r, double mu, double sd)
{
	double u1 = 1.0 - rng_uniform(r), u2 = rng_uniform(r);

	return mu + sd * sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* Marsaglia and Tsang (2000); shapes below 1 are boosted by U^(1/k). */
double rng_gamma(struct rng *r, double k, double theta)
{
	double d, c, x, v, u;

	if (k < 1.0) {
		u = 1.0 - rng_uniform(r);
		return rng_gamma(r, k + 1.0, theta) * pow(u, 1.0 / k);
	}
	d = k - 1.0 / 3.0;
	c = 1.0 / sqrt(9.0 * d);
	for (;;) {
		do {
			x = rng_normal(r, 0, 1);
			v = 1.0 + c * x;
		} while (v <= 0);
		v = v * v * v;
		u = rng_uniform(r);
		if (u < 1.0 - 0.0331 * x * x * x * x || log(u) < 0.5 * x * x + d * (1.0 - v + log(v)))
			return d * v * theta;
	}
}
