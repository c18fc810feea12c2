/*
 * test_stats.c - percentiles and means against values computed by hand
 * with numpy.percentile's default (linear) rule.
 */
#include "harness.h"
#include "lib/stats.h"

TEST(percentile_of_one_value_is_that_value)
{
	double v[] = { 5 };

	CHECK_NEAR(stats_percentile(v, 1, 0), 5, 1e-12);
	CHECK_NEAR(stats_percentile(v, 1, 50), 5, 1e-12);
	CHECK_NEAR(stats_percentile(v, 1, 99), 5, 1e-12);
}

TEST(percentile_of_two_values_interpolates)
{
	double v[] = { 1, 3 };

	CHECK_NEAR(stats_percentile(v, 2, 50), 2.0, 1e-12);
	CHECK_NEAR(stats_percentile(v, 2, 95), 2.9, 1e-12);
	CHECK_NEAR(stats_percentile(v, 2, 99), 2.98, 1e-12);
	CHECK_NEAR(stats_percentile(v, 2, 100), 3.0, 1e-12);
}

TEST(percentile_odd_count)
{
	double v[] = { 1, 2, 3, 4, 5 };

	CHECK_NEAR(stats_percentile(v, 5, 50), 3.0, 1e-12);
	CHECK_NEAR(stats_percentile(v, 5, 95), 4.8, 1e-12);
	CHECK_NEAR(stats_percentile(v, 5, 99), 4.96, 1e-12);
	CHECK_NEAR(stats_percentile(v, 5, 25), 2.0, 1e-12);
}

TEST(percentile_even_count)
{
	double v[] = { 1, 2, 3, 4 };

	CHECK_NEAR(stats_percentile(v, 4, 50), 2.5, 1e-12);
	CHECK_NEAR(stats_percentile(v, 4, 95), 3.85, 1e-12);
	CHECK_NEAR(stats_percentile(v, 4, 99), 3.97, 1e-12);
}

TEST(percentile_with_ties)
{
	double v[] = { 7, 7, 7, 9 };

	CHECK_NEAR(stats_percentile(v, 4, 50), 7.0, 1e-12);
	CHECK_NEAR(stats_percentile(v, 4, 95), 8.7, 1e-12);
	CHECK_NEAR(stats_percentile(v, 4, 0), 7.0, 1e-12);
}

TEST(percentile_after_sorting_unsorted_input)
{
	double v[] = { 40, 10, 30, 20, 50, 0 };

	stats_sort(v, 6);
	CHECK_NEAR(v[0], 0, 0);
	CHECK_NEAR(v[5], 50, 0);
	/* rank 0.9 * 5 = 4.5 -> 40 + 0.5 * 10 */
	CHECK_NEAR(stats_percentile(v, 6, 90), 45.0, 1e-12);
}

TEST(empty_input_is_nan)
{
	CHECK(isnan(stats_percentile(NULL, 0, 50)));
	CHECK(isnan(stats_mean(NULL, 0)));
}

TEST(mean)
{
	double v[] = { 1, 2, 3, 10 };

	CHECK_NEAR(stats_mean(v, 4), 4.0, 1e-12);
}

int main(void)
{
	RUN(percentile_of_one_value_is_that_value);
	RUN(percentile_of_two_values_interpolates);
	RUN(percentile_odd_count);
	RUN(percentile_even_count);
	RUN(percentile_with_ties);
	RUN(percentile_after_sorting_unsorted_input);
	RUN(empty_input_is_nan);
	RUN(mean);
	return harness_done();
}
