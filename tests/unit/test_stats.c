/*
 * test_stats.c - percentiles and means against values computed by hand
 * with numpy.percentile's default (linear) rule.
 */
#include "harness.h"
#include "lib/random.h"
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

/*
 * The weighted walk against the multiset written out: the same double for
 * every percentile, with ties, weights of 0 and both walking directions -
 * a bootstrap's intervals hang on it being exactly equal.
 */
TEST(percentile_weighted_equals_the_multiset_written_out)
{
	enum { N = 60, GROUPS = 12 };
	static const double pcts[] = { 0, 1, 10, 25, 49.9, 50, 50.1, 75, 90, 95, 99, 99.9, 100 };
	double v[N], expanded[N * 4], fresh[N * 4];
	size_t group[N], total, i, j, w, round, mismatches = 0, compared = 0;
	unsigned weight[GROUPS];
	struct rng r;

	rng_init(&r, 7);
	for (round = 0; round < 200; round++) {
		for (i = 0; i < N; i++) {
			v[i] = (double)rng_below(&r, 20) * 0.5;    /* ties */
			group[i] = rng_below(&r, GROUPS);
		}
		stats_sort(v, N);
		for (i = 0; i < GROUPS; i++)
			weight[i] = (unsigned)rng_below(&r, 4);    /* 0 .. 3 */
		total = 0;
		for (i = 0; i < N; i++)
			for (w = 0; w < weight[group[i]]; w++)
				expanded[total++] = v[i];
		for (j = 0; j < sizeof(pcts) / sizeof(pcts[0]); j++) {
			double want = stats_percentile(expanded, total, pcts[j]);
			double got = stats_percentile_weighted(v, group, weight, N, total, pcts[j]);

			memcpy(fresh, expanded, total * sizeof(double));
			if (total && (got != want ||
				      got != stats_select_percentile(fresh, total, pcts[j])))
				mismatches++;
			if (!total && !isnan(got))
				mismatches++;
			compared += total > 0;
		}
	}
	CHECK_EQ_INT((int)mismatches, 0);
	CHECK(compared > 2000);
}

TEST(percentile_weighted_without_groups)
{
	double v[] = { 1, 2, 3, 4 };
	unsigned weight[] = { 0, 3, 0, 1 };         /* 2, 2, 2, 4 */

	CHECK_NEAR(stats_percentile_weighted(v, NULL, weight, 4, 4, 50), 2.0, 0);
	CHECK_NEAR(stats_percentile_weighted(v, NULL, weight, 4, 4, 90), 3.4, 1e-12);
	CHECK(isnan(stats_percentile_weighted(v, NULL, weight, 4, 0, 50)));
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
	RUN(percentile_weighted_equals_the_multiset_written_out);
	RUN(percentile_weighted_without_groups);
	return harness_done();
}
