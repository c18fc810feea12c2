/*
 * test_schedule.c - open-loop schedules: exact constant spacing, Poisson
 * and gamma gaps with the right mean and spread, reproducible from a seed,
 * trace timing scaled by the speed factor, and the duration cut-off.
 */
#include "harness.h"
#include "lib/clock.h"
#include "replay/schedule.h"

#include <stdlib.h>

/* Mean and coefficient of variation of the gaps of d[0..n). */
static void gap_stats(const int64_t *d, size_t n, double *mean_s, double *cv)
{
	double sum = 0, sq = 0, m;
	size_t i;

	for (i = 1; i < n; i++)
		sum += (double)(d[i] - d[i - 1]) / NS_PER_S;
	m = sum / (double)(n - 1);
	for (i = 1; i < n; i++) {
		double g = (double)(d[i] - d[i - 1]) / NS_PER_S - m;

		sq += g * g;
	}
	*mean_s = m;
	*cv = sqrt(sq / (double)(n - 2)) / m;
}

TEST(constant_rate_is_exact)
{
	struct schedule_options o = { .arrival = ARRIVAL_CONSTANT, .rate = 100, .max_requests = 1000 };
	int64_t *d = NULL;
	size_t i, n = schedule_build(&o, NULL, 0, &d);

	CHECK_EQ_INT(n, 1000);
	for (i = 0; i < n; i++)
		if (d[i] != (int64_t)i * 10 * NS_PER_MS)
			CHECK_EQ_INT(d[i], (int64_t)i * 10 * NS_PER_MS);
	free(d);
}

TEST(poisson_has_mean_gap_one_over_rate_and_cv_one)
{
	struct schedule_options o = { .arrival = ARRIVAL_POISSON, .rate = 200, .seed = 7,
				      .max_requests = 20000 };
	int64_t *d = NULL;
	size_t n = schedule_build(&o, NULL, 0, &d), i, windows = 0, counted = 0;
	double mean, cv;

	CHECK_EQ_INT(n, 20000);
	gap_stats(d, n, &mean, &cv);
	CHECK_NEAR(mean, 1.0 / 200, 0.02 / 200);     /* within 2% */
	CHECK_NEAR(cv, 1.0, 0.05);
	/* Requests per whole second average the rate. */
	for (i = 0; i < n && d[i] < d[n - 1] / NS_PER_S * NS_PER_S; i++)
		counted++;
	windows = (size_t)(d[n - 1] / NS_PER_S);
	CHECK_NEAR((double)counted / (double)windows, 200, 200 * 0.03);
	free(d);
}

TEST(gamma_burstiness_sets_the_spread)
{
	struct schedule_options o = { .arrival = ARRIVAL_GAMMA, .rate = 50, .burstiness = 0.25,
				      .seed = 3, .max_requests = 40000 };
	int64_t *d = NULL;
	size_t n = schedule_build(&o, NULL, 0, &d);
	double mean, cv;

	CHECK_EQ_INT(n, 40000);
	gap_stats(d, n, &mean, &cv);
	CHECK_NEAR(mean, 1.0 / 50, 0.04 / 50);
	CHECK_NEAR(cv, 2.0, 0.2);                     /* 1 / sqrt(shape) */
	free(d);

	o.burstiness = 4;
	n = schedule_build(&o, NULL, 0, &d);
	gap_stats(d, n, &mean, &cv);
	CHECK_NEAR(cv, 0.5, 0.05);
	free(d);
}

TEST(same_seed_same_schedule)
{
	struct schedule_options o = { .arrival = ARRIVAL_POISSON, .rate = 10, .seed = 42,
				      .max_requests = 500 };
	int64_t *a = NULL, *b = NULL, *c = NULL;
	size_t na = schedule_build(&o, NULL, 0, &a), nb = schedule_build(&o, NULL, 0, &b), nc;

	o.seed = 43;
	nc = schedule_build(&o, NULL, 0, &c);
	CHECK_EQ_INT(na, nb);
	CHECK_EQ_INT(na, nc);
	CHECK(memcmp(a, b, na * sizeof(*a)) == 0);
	CHECK(memcmp(a, c, na * sizeof(*a)) != 0);
	free(a);
	free(b);
	free(c);
}

TEST(trace_timing_divides_by_speed)
{
	int64_t arrivals[] = { 5 * NS_PER_S, 5 * NS_PER_S, 6 * NS_PER_S, 9 * NS_PER_S };
	struct schedule_options o = { .arrival = ARRIVAL_TRACE, .speed = 2 };
	int64_t *d = NULL;
	size_t n = schedule_build(&o, arrivals, 4, &d);

	CHECK_EQ_INT(n, 4);
	CHECK_EQ_INT(d[0], 0);
	CHECK_EQ_INT(d[1], 0);
	CHECK_EQ_INT(d[2], NS_PER_S / 2);
	CHECK_EQ_INT(d[3], 2 * NS_PER_S);
	free(d);

	o.duration_ns = NS_PER_S;    /* offsets at or past 1 s are cut */
	n = schedule_build(&o, arrivals, 4, &d);
	CHECK_EQ_INT(n, 3);
	free(d);
}

TEST(duration_bounds_a_generated_schedule)
{
	struct schedule_options o = { .arrival = ARRIVAL_CONSTANT, .rate = 10,
				      .duration_ns = NS_PER_S };
	int64_t *d = NULL;
	size_t n = schedule_build(&o, NULL, 0, &d);

	CHECK_EQ_INT(n, 10);
	CHECK_EQ_INT(d[9], 900 * NS_PER_MS);
	free(d);
	o.duration_ns = 0;           /* neither a count nor a duration: nothing */
	CHECK_EQ_INT(schedule_build(&o, NULL, 0, &d), 0);
}

TEST(arrival_names_parse)
{
	enum arrival a;

	CHECK_EQ_INT(schedule_arrival_parse("poisson", &a), 0);
	CHECK_EQ_INT(a, ARRIVAL_POISSON);
	CHECK_EQ_INT(schedule_arrival_parse("gamma", &a), 0);
	CHECK_EQ_INT(a, ARRIVAL_GAMMA);
	CHECK_EQ_INT(schedule_arrival_parse("trace", &a), -1);   /* that is --timing trace */
	CHECK_EQ_INT(schedule_arrival_parse("Poisson", &a), -1);
}

int main(void)
{
	RUN(constant_rate_is_exact);
	RUN(poisson_has_mean_gap_one_over_rate_and_cv_one);
	RUN(gamma_burstiness_sets_the_spread);
	RUN(same_seed_same_schedule);
	RUN(trace_timing_divides_by_speed);
	RUN(duration_bounds_a_generated_schedule);
	RUN(arrival_names_parse);
	return harness_done();
}
