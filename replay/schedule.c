/*
 * schedule.c - open-loop send schedules; see schedule.h.
 */
#include "schedule.h"

#include <stdlib.h>

/* A hard cap on a generated schedule, against a typo like --rate 1e9. */
#define SCHEDULE_MAX (50u * 1000 * 1000)

size_t schedule_build(const struct schedule_options *o, const int64_t *trace_arrivals,
		      size_t n_trace, int64_t **out)
{
	size_t cap = o->max_requests ? o->max_requests : 1024, n = 0;
	int64_t *v = NULL;
	struct arrival gen;

	if (o->arrival != ARRIVAL_TRACE && !o->max_requests && !o->duration_ns)
		return 0;
	if (o->arrival == ARRIVAL_TRACE)
		cap = n_trace;
	if (cap > SCHEDULE_MAX)
		cap = SCHEDULE_MAX;
	arrival_init(&gen, o->arrival, o->rate, o->burstiness, o->seed);
	for (;;) {
		double at;      /* ns; range-checked before it becomes an integer */
		int64_t due;

		if (o->max_requests && n == o->max_requests)
			break;
		if (o->arrival == ARRIVAL_TRACE) {
			if (n == n_trace)
				break;
			at = (double)(trace_arrivals[n] - trace_arrivals[0]) / o->speed;
		} else {
			at = (double)arrival_next(&gen);
		}
		if (!(at >= 0 && at < SCHEDULE_MAX_NS))
			break;  /* past the horizon (a huge arrival, --speed 1e-6) */
		due = (int64_t)at;
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

void schedule_ab_order(size_t n, uint64_t seed, unsigned char *b_first)
{
	struct rng r;
	size_t k;

	rng_init(&r, seed);
	for (k = 0; k < n; k += 2) {
		b_first[k] = (unsigned char)(rng_next(&r) >> 63);
		if (k + 1 < n)
			b_first[k + 1] = (unsigned char)!b_first[k];
	}
}
