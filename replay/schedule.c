/*
 * schedule.c - open-loop send schedules; see schedule.h.
 */
#include "schedule.h"
#include "lib/clock.h"
#include "lib/random.h"

#include <stdlib.h>
#include <string.h>

/* A hard cap on a generated schedule, against a typo like --rate 1e9. */
#define SCHEDULE_MAX (50u * 1000 * 1000)

static const char *const names[] = {
	[ARRIVAL_CONSTANT] = "constant",
	[ARRIVAL_POISSON] = "poisson",
	[ARRIVAL_GAMMA] = "gamma",
	[ARRIVAL_TRACE] = "trace",
};

int schedule_arrival_parse(const char *s, enum arrival *out)
{
	size_t i;

	for (i = 0; i < ARRIVAL_TRACE; i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = (enum arrival)i;
			return 0;
		}
	}
	return -1;
}

const char *schedule_arrival_name(enum arrival a)
{
	return names[a];
}

/* Gap before the next request, in seconds. */
static double next_gap(const struct schedule_options *o, struct rng *rng)
{
	switch (o->arrival) {
	case ARRIVAL_POISSON:
		return rng_exponential(rng, o->rate);
	case ARRIVAL_GAMMA:
		return rng_gamma(rng, o->burstiness, 1.0 / (o->rate * o->burstiness));
	default:
		return 1.0 / o->rate;
	}
}

size_t schedule_build(const struct schedule_options *o, const int64_t *trace_arrivals,
		      size_t n_trace, int64_t **out)
{
	size_t cap = o->max_requests ? o->max_requests : 1024, n = 0;
	int64_t *v = NULL;
	struct rng rng;
	double t = 0;       /* seconds; summed in double, rounded per entry */

	if (o->arrival != ARRIVAL_TRACE && !o->max_requests && !o->duration_ns)
		return 0;
	if (o->arrival == ARRIVAL_TRACE)
		cap = n_trace;
	if (cap > SCHEDULE_MAX)
		cap = SCHEDULE_MAX;
	rng_init(&rng, o->seed);
	for (;;) {
		int64_t due;

		if (o->max_requests && n == o->max_requests)
			break;
		if (o->arrival == ARRIVAL_TRACE) {
			if (n == n_trace)
				break;
			due = (int64_t)((double)(trace_arrivals[n] - trace_arrivals[0]) / o->speed);
		} else {
			if (n > 0)
				t += next_gap(o, &rng);
			due = (int64_t)(t * (double)NS_PER_S + 0.5);
		}
		if ((o->duration_ns && due >= o->duration_ns) || n == SCHEDULE_MAX)
			break;
		if (n == cap || !v) {
			int64_t *nv;

			cap = v ? cap * 2 : cap;
			nv = realloc(v, (cap ? cap : 1) * sizeof(*v));
			if (!nv) {
				free(v);
				return 0;
			}
			v = nv;
		}
		v[n++] = due;
	}
	if (n == 0) {
		free(v);
		return 0;
	}
	*out = v;
	return n;
}
