/*
 * test_capacity.c - the SLO verdict and the capacity search (lib/capacity.c):
 * Wilson bounds against values computed by hand, the z of a split alpha,
 * the search against a server of known capacity, and the two ends (no
 * load meets the SLO, every load does).
 */
#include "tests/unit/harness.h"
#include "lib/capacity.h"

#include <math.h>

static struct capacity_options opts(void)
{
	struct capacity_options o = { 0.95, 0.95, 1, 256, 0.1, 0, 400, 0 };

	return o;
}

TEST(wilson_bounds_match_the_formula)
{
	double lo, hi;

	/* z = 1.6449 (one-sided 95%); values from the score interval by hand */
	capacity_wilson(57, 60, 1.6448536269514722, &lo, &hi);
	CHECK_NEAR(lo, 0.8813248674127362, 1e-12);
	CHECK_NEAR(hi, 0.9798430138533206, 1e-12);
	capacity_wilson(60, 60, 1.6448536269514722, &lo, &hi);
	CHECK_NEAR(lo, 0.9568532014067297, 1e-12);
	CHECK_NEAR(hi, 1, 1e-12);
	capacity_wilson(0, 20, 1.6448536269514722, &lo, &hi);
	CHECK_NEAR(lo, 0, 1e-12);
	CHECK_NEAR(hi, 0.11915783736096448, 1e-12);
	capacity_wilson(0, 0, 2, &lo, &hi);          /* nothing known */
	CHECK(lo == 0 && hi == 1);
}

TEST(alpha_is_split_over_the_looks)
{
	struct capacity_options o = opts();

	o.max_requests = 20;            /* one look of 20 at C = 1 */
	CHECK_NEAR(capacity_z(&o, 1), 1.6448536269514722, 1e-9);
	o.max_requests = 100;           /* five looks: alpha 0.01 */
	CHECK_NEAR(capacity_z(&o, 1), 2.3263478740408408, 1e-9);
	CHECK_EQ_INT(capacity_batch(&o, 4), 20);
	CHECK_EQ_INT(capacity_batch(&o, 30), 60);
	o.batch = 7;
	CHECK_EQ_INT(capacity_batch(&o, 30), 7);
}

TEST(verdicts_need_the_bound_not_the_estimate)
{
	struct capacity_options o = opts();
	double lo, hi;

	o.max_requests = 20;
	/* 20 of 20 good: the estimate is 100%, the bound (88%) cannot say 95% */
	CHECK_EQ_INT(capacity_judge(&o, 1, 20, 20, &lo, &hi), CAPACITY_UNDECIDED);
	CHECK_EQ_INT(capacity_judge(&o, 1, 10, 20, &lo, &hi), CAPACITY_FAIL);
	o.max_requests = 100;           /* 5 looks: 100 of 100 is not yet enough */
	CHECK_EQ_INT(capacity_judge(&o, 1, 100, 100, &lo, &hi), CAPACITY_UNDECIDED);
	o.max_requests = 200;           /* 10 looks, z 2.576: 96.8% */
	CHECK_EQ_INT(capacity_judge(&o, 1, 200, 200, &lo, &hi), CAPACITY_PASS);
	CHECK(lo >= 0.95);
	CHECK_EQ_INT(capacity_judge(&o, 1, 188, 200, &lo, &hi), CAPACITY_UNDECIDED);
}

/* A server whose every request meets the SLO up to C = cap and none past. */
static long search(struct capacity_options *o, long cap, long *probes, long *pass, long *fail)
{
	struct capacity_search s = { 0, 0 };
	double c = o->start;

	*probes = 0;
	while (c > 0 && *probes < 100) {
		(*probes)++;
		CHECK(c == floor(c));           /* a concurrency is whole */
		c = capacity_next(&s, o, c, c <= (double)cap ? CAPACITY_PASS : CAPACITY_FAIL);
	}
	*pass = (long)s.pass;
	*fail = (long)s.fail;
	return (long)c;
}

/* The same over rates, a server meeting the SLO up to 'cap' req/s. */
static double search_rate(struct capacity_options *o, double cap, long *probes, double *pass,
			  double *fail)
{
	struct capacity_search s = { 0, 0 };
	double r = o->start;

	*probes = 0;
	while (r > 0 && *probes < 100) {
		(*probes)++;
		r = capacity_next(&s, o, r, r <= cap ? CAPACITY_PASS : CAPACITY_FAIL);
	}
	*pass = s.pass;
	*fail = s.fail;
	return r;
}

TEST(rate_search_brackets_within_the_tolerance)
{
	struct capacity_options o = opts();
	double pass, fail;
	long probes;

	o.by_rate = 1;
	o.start = 30;
	o.max = 1000;
	/* 30 60 120 240 (fails), 180 210 (fails) 195: [195, 210) within 10% of 195 */
	search_rate(&o, 200, &probes, &pass, &fail);
	CHECK_NEAR(pass, 195, 1e-9);
	CHECK_NEAR(fail, 210, 1e-9);
	CHECK_EQ_INT(probes, 7);
	/* tolerance 0 still ends: at 1% of the passing rate */
	o.tolerance = 0;
	search_rate(&o, 200, &probes, &pass, &fail);
	CHECK(pass <= 200 && fail > 200 && fail - pass <= 0.01 * pass + 1e-9);
	CHECK(probes < 20);
	/* the start fails: halve down to start / 64, then give up */
	o.tolerance = 0.1;
	search_rate(&o, 1, &probes, &pass, &fail);
	CHECK(pass <= 1 && pass > 0.5 && fail > 1);
	search_rate(&o, 0.01, &probes, &pass, &fail);
	CHECK_EQ_INT(probes, 7);                /* 30, 15, ... 30 / 64 */
	CHECK(pass == 0);
	CHECK_NEAR(fail, 30.0 / 64, 1e-9);
	CHECK_NEAR(capacity_floor(&o), 30.0 / 64, 1e-12);
	/* every rate up to the cap: 30 60 120 240 480 960 1000 */
	search_rate(&o, 1e9, &probes, &pass, &fail);
	CHECK_EQ_INT(probes, 7);
	CHECK_NEAR(pass, 1000, 1e-9);
	CHECK(fail == 0);
	/* a look is two seconds of arrivals, at least 20 */
	CHECK_EQ_INT(capacity_batch(&o, 4.5), 20);
	CHECK_EQ_INT(capacity_batch(&o, 195.2), 391);
}

TEST(search_brackets_a_known_capacity)
{
	struct capacity_options o = opts();
	long probes, pass, fail;

	search(&o, 31, &probes, &pass, &fail);
	/* 1 2 4 8 16 32 (fails), then 24 28 30: within 10% of 30 */
	CHECK(pass <= 31 && fail > 31);
	CHECK(fail - pass <= 3);
	CHECK_EQ_INT(probes, 9);
	o.tolerance = 0;
	search(&o, 31, &probes, &pass, &fail);
	CHECK_EQ_INT(pass, 31);
	CHECK_EQ_INT(fail, 32);
	o.tolerance = 0.1;
	o.start = 8;
	search(&o, 3, &probes, &pass, &fail);   /* the start fails: halve down */
	CHECK_EQ_INT(pass, 3);
	CHECK_EQ_INT(fail, 4);
}

TEST(no_load_and_every_load)
{
	struct capacity_options o = opts();
	long probes, pass, fail;

	search(&o, 0, &probes, &pass, &fail);   /* even C = 1 fails */
	CHECK_EQ_INT(pass, 0);
	CHECK_EQ_INT(fail, 1);
	CHECK_EQ_INT(probes, 1);
	o.max = 100;
	search(&o, 1000, &probes, &pass, &fail);   /* every C up to the max */
	CHECK_EQ_INT(pass, 100);
	CHECK_EQ_INT(fail, 0);
	CHECK_EQ_INT(probes, 8);                /* 1 2 4 8 16 32 64 100 */
	/* an undecided probe counts as failing */
	{
		struct capacity_search s = { 4, 0 };

		CHECK_NEAR(capacity_next(&s, &o, 8, CAPACITY_UNDECIDED), 6, 0);
		CHECK_NEAR(s.fail, 8, 0);
	}
}

/* The fewest requests that can show "meets": 100 at 95% of 95% cannot
 * (100 of 100 good bound 94.9%), 109 can (6 looks, z 2.394); and the
 * count it names is the smallest whose all-good probe passes. */
TEST(too_few_requests_to_meet_the_slo_are_found)
{
	struct capacity_options o = opts();
	double lo, hi;
	long n;

	o.max_requests = 100;
	CHECK_EQ_INT(capacity_judge(&o, 1, 100, 100, &lo, &hi), CAPACITY_UNDECIDED);
	CHECK_NEAR(lo, 0.9487, 1e-4);
	n = capacity_min_requests(&o, 1);
	CHECK_EQ_INT(n, 109);
	o.max_requests = n;
	CHECK_EQ_INT(capacity_judge(&o, 1, n, n, &lo, &hi), CAPACITY_PASS);
	o.max_requests = n - 1;
	CHECK(capacity_judge(&o, 1, n - 1, n - 1, &lo, &hi) != CAPACITY_PASS);
	/* a larger batch means fewer looks, a smaller z: fewer requests */
	o.batch = 200;
	CHECK(capacity_min_requests(&o, 1) < 109);
	o.batch = 0;
	o.share = 0.99;                 /* some 1000, in 50 looks */
	n = capacity_min_requests(&o, 1);
	o.max_requests = n;
	CHECK(n > 500 && capacity_judge(&o, 1, n, n, &lo, &hi) == CAPACITY_PASS);
	o.max_requests = n - 1;
	CHECK(capacity_judge(&o, 1, n - 1, n - 1, &lo, &hi) != CAPACITY_PASS);
	o.share = 1;                    /* never */
	CHECK_EQ_INT(capacity_min_requests(&o, 1), 0);
}

int main(void)
{
	RUN(wilson_bounds_match_the_formula);
	RUN(alpha_is_split_over_the_looks);
	RUN(verdicts_need_the_bound_not_the_estimate);
	RUN(search_brackets_a_known_capacity);
	RUN(no_load_and_every_load);
	RUN(rate_search_brackets_within_the_tolerance);
	RUN(too_few_requests_to_meet_the_slo_are_found);
	return harness_done();
}
