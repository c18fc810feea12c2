/*
 * capacity.c - the SLO verdict at one load and the search over loads; see
 * capacity.h for the rules and why they hold.
 */
#include "lib/capacity.h"

#include <math.h>

long capacity_batch(const struct capacity_options *o, double x)
{
	double b = ceil(2 * x);

	if (o->batch > 0)
		return o->batch;
	return b > 20 ? (b < 1e7 ? (long)b : 10000000L) : 20;
}

double capacity_floor(const struct capacity_options *o)
{
	return o->by_rate ? o->start / 64 : 1;
}

/* The z of a one-sided bound over 'looks' looks. */
static double z_of_looks(const struct capacity_options *o, long looks)
{
	double alpha = (1 - o->confidence) / (double)(looks > 0 ? looks : 1);
	double lo = 0, hi = 10;
	int i;

	/* the z with P(Z > z) = alpha: 0.5 erfc(z / sqrt 2) falls with z */
	for (i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;

		if (0.5 * erfc(mid / sqrt(2.0)) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double capacity_z(const struct capacity_options *o, double x)
{
	long b = capacity_batch(o, x);

	return z_of_looks(o, (o->max_requests + b - 1) / b);
}

long capacity_min_requests(const struct capacity_options *o, double x)
{
	long b = capacity_batch(o, x), looks;

	if (!(o->share < 1))
		return 0;
	/* n takes 'looks' looks when (looks - 1) b < n <= looks b; the first
	 * range holding an n whose all-good bound reaches the share has it */
	for (looks = 1; (looks - 1) * b < 100000000L; looks++) {
		double z = z_of_looks(o, looks), lo, hi;
		double need = ceil(o->share * z * z / (1 - o->share));
		long n = (looks - 1) * b + 1;

		if (need > (double)(looks * b))
			continue;
		if (need > (double)n)
			n = (long)need;
		for (; n <= looks * b; n++) {   /* the bound as capacity_judge takes it */
			capacity_wilson(n, n, z, &lo, &hi);
			if (lo >= o->share)
				return n;
		}
	}
	return 0;
}

void capacity_wilson(long good, long n, double z, double *lo, double *hi)
{
	double p, z2, den, mid, half;

	if (n <= 0) {
		*lo = 0;
		*hi = 1;
		return;
	}
	p = (double)good / (double)n;
	z2 = z * z;
	den = 1 + z2 / (double)n;
	mid = (p + z2 / (2.0 * (double)n)) / den;
	half = z * sqrt(p * (1 - p) / (double)n + z2 / (4.0 * (double)n * (double)n)) / den;
	*lo = mid - half < 0 ? 0 : mid - half;
	*hi = mid + half > 1 ? 1 : mid + half;
}

enum capacity_verdict capacity_judge(const struct capacity_options *o, double x, long good,
				     long n, double *lo, double *hi)
{
	capacity_wilson(good, n, capacity_z(o, x), lo, hi);
	if (*lo >= o->share)
		return CAPACITY_PASS;
	if (*hi < o->share)
		return CAPACITY_FAIL;
	return CAPACITY_UNDECIDED;
}

double capacity_next(struct capacity_search *s, const struct capacity_options *o, double x,
		     enum capacity_verdict v)
{
	double width, floor_x = capacity_floor(o), next;

	if (v == CAPACITY_PASS) {
		if (x > s->pass)
			s->pass = x;
	} else if (!(s->fail > 0) || x < s->fail) {
		s->fail = x;
	}
	if (!(s->fail > 0)) {           /* every load so far met it: double */
		if (s->pass >= o->max)
			return 0;
		return 2 * s->pass < o->max ? 2 * s->pass : o->max;
	}
	if (!(s->pass > 0)) {           /* none met it yet: halve */
		next = o->by_rate ? s->fail / 2 : floor(s->fail / 2);
		return next >= floor_x * (1 - 1e-9) && next < s->fail ? next : 0;
	}
	width = o->tolerance * s->pass;
	if (o->by_rate && width < 0.01 * s->pass)
		width = 0.01 * s->pass;
	if (!o->by_rate && width < 1)
		width = 1;
	if (s->fail - s->pass <= width * (1 + 1e-9))
		return 0;
	next = s->pass + (s->fail - s->pass) / 2;
	return o->by_rate ? next : floor(next);
}

const char *capacity_verdict_name(enum capacity_verdict v)
{
	switch (v) {
	case CAPACITY_PASS: return "meets";
	case CAPACITY_FAIL: return "fails";
	default: return "undecided";
	}
}
