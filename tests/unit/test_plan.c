/*
 * test_plan.c - analyze plan's arithmetic (analyze/plan.c): the normal
 * quantile, the fewest blocks that see a change, the smallest change one
 * run a side sees. Its use on real replays is checked by t0880 and
 * measured by make bench (section 11).
 */
#include "harness.h"
#include "analyze/plan.h"

#include <math.h>

TEST(normal_quantiles)
{
	CHECK(fabs(plan_z(0.5)) < 1e-9);
	CHECK(fabs(plan_z(0.9) - 1.2815516) < 1e-6);
	CHECK(fabs(plan_z(0.975) - 1.9599640) < 1e-6);
	CHECK(fabs(plan_z(0.8) + plan_z(0.2)) < 1e-9);
}

TEST(the_fewest_blocks_that_see_a_change)
{
	double z = plan_z(0.9), d = log(1.1), m = log(1.01);

	/* sd 5%: (ln 1.1 - ln 1.01) sqrt(k) / 0.05 = 1.707 sqrt(k) first
	 * reaches t975(k - 1) + 1.28 at k = 6 (4.18 >= 3.85; k = 5: 3.82 < 4.06) */
	CHECK_EQ_INT((int)plan_blocks(0.05, d, m, z), 6);
	/* no noise: two blocks, the fewest that measure one */
	CHECK_EQ_INT((int)plan_blocks(0, d, m, z), 2);
	/* more noise, more blocks; a larger effect, fewer */
	CHECK((int)plan_blocks(0.10, d, m, z) > 6);
	CHECK((int)plan_blocks(0.05, log(1.3), m, z) < 6);
	/* a change inside the threshold is never seen; nor one past 100 blocks */
	CHECK_EQ_INT((int)plan_blocks(0.01, m, m, z), 0);
	CHECK_EQ_INT((int)plan_blocks(1.0, d, m, z), 0);
}

TEST(the_smallest_change_one_run_a_side_sees)
{
	/* exp(ln 1.01 + (1.96 + 1.2816) sqrt(2) ln 1.1) - 1 = 56.35% */
	double v = plan_detectable(log(1.1), 1.959964, log(1.01), plan_z(0.9));

	CHECK(fabs(v - 56.35) < 0.01);
	CHECK(fabs(plan_detectable(0, 2.0, log(1.01), plan_z(0.9)) - 1.0) < 1e-9);
}

TEST(keys_name_a_number)
{
	struct compare_row w = { 0 };
	char key[32];

	w.metric = "TTFT";
	w.stat = "P99";
	w.m = 0;
	plan_key(&w, key, sizeof(key));
	CHECK_STR(key, "ttft_p99");
	w.metric = "Agg tok/s";
	w.stat = "";
	w.m = -1;
	plan_key(&w, key, sizeof(key));
	CHECK_STR(key, "tok_s");
}

int main(void)
{
	RUN(normal_quantiles);
	RUN(the_fewest_blocks_that_see_a_change);
	RUN(the_smallest_change_one_run_a_side_sees);
	RUN(keys_name_a_number);
	return harness_done();
}
