/*
 * test_bucketq.c - quantiles from histogram buckets (lib/bucketq.c):
 * PromQL's interpolation on vLLM's TTFT bounds, the first and the +Inf
 * bucket, an empty window, a restart between two scrapes, and a hostile
 * server's buckets (falling counts, bounds out of order, no +Inf, NaN)
 * refused.
 */
#include "tests/unit/harness.h"
#include "lib/bucketq.h"

#include <math.h>

/* vLLM's bounds of vllm:time_to_first_token_seconds, the first eight. */
static const double ttft_le[] = { 0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, INFINITY };

TEST(interpolates_inside_the_bucket)
{
	/* 100 observations: 10 <= 20 ms, 60 <= 40 ms, 90 <= 60 ms */
	static const double cum[] = { 0, 0, 0, 10, 60, 90, 95, 100, 100 };
	struct bucketq_estimate e;

	CHECK_EQ_INT(bucketq_quantile(ttft_le, cum, 9, 0.5, &e), 0);
	/* rank 50 in (20, 40] ms, 40 of its 50 above 10: 20 + 20 * 40/50 */
	CHECK_NEAR(e.value, 0.036, 1e-12);
	CHECK_NEAR(e.lo, 0.02, 1e-15);
	CHECK_NEAR(e.hi, 0.04, 1e-15);
	CHECK_NEAR(e.count, 100, 0);
	CHECK_EQ_INT(bucketq_quantile(ttft_le, cum, 9, 0.9, &e), 0);
	CHECK_NEAR(e.value, 0.06, 1e-12);       /* the rank at a bucket's top */
	CHECK_NEAR(e.hi, 0.06, 1e-15);
	CHECK_EQ_INT(bucketq_quantile(ttft_le, cum, 9, 0.99, &e), 0);
	CHECK_NEAR(e.value, 0.08 + 0.02 * 4 / 5, 1e-12);
	/* q = 0: the lowest bucket that holds anything, at its bottom */
	CHECK_EQ_INT(bucketq_quantile(ttft_le, cum, 9, 0, &e), 0);
	CHECK_NEAR(e.value, 0.01, 1e-12);
	CHECK_NEAR(e.hi, 0.02, 1e-15);
}

TEST(first_bucket_counts_from_zero)
{
	static const double le[] = { 0.5, 1, INFINITY }, cum[] = { 4, 4, 4 };
	static const double neg_le[] = { -1, 1, INFINITY }, neg[] = { 4, 4, 4 };
	struct bucketq_estimate e;

	CHECK_EQ_INT(bucketq_quantile(le, cum, 3, 0.5, &e), 0);
	CHECK_NEAR(e.value, 0.25, 1e-12);
	CHECK_NEAR(e.lo, 0, 0);
	CHECK_EQ_INT(bucketq_quantile(neg_le, neg, 3, 0.5, &e), 0);
	CHECK_NEAR(e.value, -1, 0);             /* a bound <= 0: the bound itself */
}

TEST(inf_bucket_gives_the_last_bound)
{
	/* half the observations above 100 ms: the median is "at least 0.1" */
	static const double cum[] = { 0, 0, 0, 0, 0, 0, 1, 2, 6 };
	struct bucketq_estimate e;

	CHECK_EQ_INT(bucketq_quantile(ttft_le, cum, 9, 0.5, &e), 0);
	CHECK_NEAR(e.value, 0.1, 1e-15);
	CHECK_NEAR(e.lo, 0.1, 1e-15);
	CHECK(isinf(e.hi) && e.hi > 0);
	CHECK_EQ_INT(bucketq_quantile(ttft_le, cum, 9, 1.0 / 3, &e), 0);
	CHECK_NEAR(e.hi, 0.1, 1e-15);           /* rank 2: still a finite bucket */
}

TEST(empty_window_refused)
{
	static const double cum[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	struct bucketq_estimate e = { 7, 7, 7, 7 };

	CHECK_EQ_INT(bucketq_quantile(ttft_le, cum, 9, 0.5, &e), BUCKETQ_EMPTY);
	CHECK_NEAR(e.value, 7, 0);              /* untouched on a refusal */
	CHECK_STR(bucketq_strerror(BUCKETQ_EMPTY), "no observation in the window");
}

TEST(restart_between_scrapes)
{
	static const double before[] = { 5, 9, 12 }, grown[] = { 6, 12, 15 }, reset[] = { 1, 2, 2 };
	static const double le[] = { 0.1, 0.2, INFINITY };
	double inc[3];
	struct bucketq_estimate e;

	CHECK_EQ_INT(bucketq_increase(before, grown, 3, inc), 0);
	CHECK_NEAR(inc[0], 1, 0);
	CHECK_NEAR(inc[1], 3, 0);
	CHECK_NEAR(inc[2], 3, 0);
	/* every count fell: the server counts from 0 again, what it has now is new */
	CHECK_EQ_INT(bucketq_increase(before, reset, 3, inc), 1);
	CHECK_NEAR(inc[0], 1, 0);
	CHECK_NEAR(inc[2], 2, 0);
	CHECK_EQ_INT(bucketq_quantile(le, inc, 3, 0.5, &e), 0);
	CHECK_NEAR(e.value, 0.1, 1e-12);
	/* one count fell and the others did not: still a restart, never a
	 * per-bucket mixture of increases and fresh counts */
	{
		static const double odd[] = { 6, 8, 20 };

		CHECK_EQ_INT(bucketq_increase(before, odd, 3, inc), 1);
		CHECK_NEAR(inc[1], 8, 0);
		/* in place */
		inc[0] = 6, inc[1] = 12, inc[2] = 15;
		CHECK_EQ_INT(bucketq_increase(before, inc, 3, inc), 0);
		CHECK_NEAR(inc[1], 3, 0);
	}
}

TEST(hostile_buckets_refused)
{
	static const double falling[] = { 0, 5, 3, 3, 3, 3, 3, 3, 9 };
	static const double negative[] = { -1, 0, 0, 0, 0, 0, 0, 0, 1 };
	static const double nan_count[] = { 0, NAN, 1, 1, 1, 1, 1, 1, 1 };
	static const double inf_count[] = { 0, 0, 1, 1, 1, 1, 1, 1, INFINITY };
	static const double unsorted_le[] = { 0.1, 0.05, INFINITY }, three[] = { 1, 2, 3 };
	static const double no_inf_le[] = { 0.05, 0.1, 1 };
	static const double nan_le[] = { 0.05, NAN, INFINITY };
	static const double two_inf_le[] = { 0.05, INFINITY, INFINITY };
	static const double minus_inf_le[] = { -INFINITY, -1e308, INFINITY };
	static const double ok[] = { 0, 0, 0, 10, 60, 90, 95, 100, 100 };
	struct bucketq_estimate e;

	CHECK_EQ_INT(bucketq_quantile(ttft_le, falling, 9, 0.5, &e), BUCKETQ_NOT_MONOTONIC);
	CHECK_EQ_INT(bucketq_quantile(ttft_le, negative, 9, 0.5, &e), BUCKETQ_BAD_COUNT);
	CHECK_EQ_INT(bucketq_quantile(ttft_le, nan_count, 9, 0.5, &e), BUCKETQ_BAD_COUNT);
	CHECK_EQ_INT(bucketq_quantile(ttft_le, inf_count, 9, 0.5, &e), BUCKETQ_BAD_COUNT);
	CHECK_EQ_INT(bucketq_quantile(unsorted_le, three, 3, 0.5, &e), BUCKETQ_BAD_BOUNDS);
	CHECK_EQ_INT(bucketq_quantile(no_inf_le, three, 3, 0.5, &e), BUCKETQ_NO_INF);
	CHECK_EQ_INT(bucketq_quantile(nan_le, three, 3, 0.5, &e), BUCKETQ_BAD_BOUNDS);
	CHECK_EQ_INT(bucketq_quantile(two_inf_le, three, 3, 0.5, &e), BUCKETQ_BAD_BOUNDS);
	/* found by fuzz_prom: a -Inf bound made the interpolation NaN */
	CHECK_EQ_INT(bucketq_quantile(minus_inf_le, three, 3, 0.5, &e), BUCKETQ_BAD_BOUNDS);
	{
		/* bounds at +-1e308: hi - lo overflows, the estimate stays inside */
		static const double wide_le[] = { -1e308, 1e308, INFINITY }, wide[] = { 0, 4, 4 };

		CHECK_EQ_INT(bucketq_quantile(wide_le, wide, 3, 0.5, &e), 0);
		CHECK(isfinite(e.value) && e.value >= -1e308 && e.value <= 1e308);
	}
	CHECK_EQ_INT(bucketq_quantile(ttft_le, ok, 1, 0.5, &e), BUCKETQ_BAD_BOUNDS);
	CHECK_EQ_INT(bucketq_quantile(ttft_le, ok, 9, 1.5, &e), BUCKETQ_BAD_Q);
	CHECK_EQ_INT(bucketq_quantile(ttft_le, ok, 9, NAN, &e), BUCKETQ_BAD_Q);
	CHECK(bucketq_strerror(BUCKETQ_NOT_MONOTONIC)[0] != '\0');
}

int main(void)
{
	RUN(interpolates_inside_the_bucket);
	RUN(first_bucket_counts_from_zero);
	RUN(inf_bucket_gives_the_last_bound);
	RUN(empty_window_refused);
	RUN(restart_between_scrapes);
	RUN(hostile_buckets_refused);
	return harness_done();
}
