/*
 * arrival.c - constant, Poisson and gamma arrival offsets; see arrival.h.
 */
#include "arrival.h"

#include <math.h>
#include <string.h>

static const char *const names[] = {
	[ARRIVAL_CONSTANT] = "constant",
	[ARRIVAL_POISSON] = "poisson",
	[ARRIVAL_GAMMA] = "gamma",
	[ARRIVAL_TRACE] = "trace",
};

int arrival_parse(const char *s, enum arrival_kind *out)
{
	int i;

	for (i = ARRIVAL_CONSTANT; i < ARRIVAL_TRACE; i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = (enum arrival_kind)i;
			return 0;
		}
	}
	return -1;
}

const char *arrival_name(enum arrival_kind kind)
{
	return names[kind];
}

void arrival_init(struct arrival *a, enum arrival_kind kind, double rate, double burstiness,
		  uint64_t seed)
{
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->rate = rate;
	a->burstiness = burstiness;
	rng_init(&a->rng, rng_derive(seed, ARRIVAL_STREAM));
}

int64_t arrival_next(struct arrival *a)
{
	double t;

	if (a->kind == ARRIVAL_CONSTANT) {
		t = (double)a->n / a->rate;
	} else {
		if (a->n > 0 && a->kind == ARRIVAL_POISSON)
			a->t += rng_exponential(&a->rng, a->rate);
		else if (a->n > 0)
			a->t += rng_gamma(&a->rng, a->burstiness, 1.0 / (a->rate * a->burstiness));
		t = a->t;
	}
	a->n++;
	t = floor(t * 1e9 + 0.5);
	/* range-checked before the conversion: a slow rate's far offsets */
	return t >= 0 && t < 9e18 ? (int64_t)t : INT64_MAX;
}
