/*
 * test_verdict.c - analyze/verdict.c on synthetic samples: the four
 * outcomes at the edges of min_effect, pairing by trace id, the P99 rule
 * that counts requests, the repeats as the unit of noise, and throughput
 * judged on tokens / wall time. (What the verdicts do on real replays of
 * the mock is measured by scripts/bench-compare.sh.)
 */
#include "harness.h"

#include <math.h>
#include <stdlib.h>

#include "analyze/verdict.h"
#include "lib/random.h"

static const struct verdict_opts opts = { VERDICT_MIN_EFFECT, VERDICT_LEVEL, VERDICT_RESAMPLES,
					  VERDICT_SEED };

/* A standard normal draw. */
static double normal(struct rng *s)
{
	return rng_normal(s, 0, 1);
}

/* n values around mu with relative sd 'rel', scaled by (1 + shift / 100). */
static void fill(double *v, size_t n, double mu, double rel, double shift, uint64_t seed)
{
	struct rng s;
	size_t i;

	rng_init(&s, seed);
	for (i = 0; i < n; i++)
		v[i] = mu * (1.0 + rel * normal(&s)) * (1.0 + shift / 100.0);
}

static struct verdict_side side_of(const double *v, size_t n)
{
	return (struct verdict_side){ v, NULL, n, NULL, 1, NULL };
}

TEST(classify_at_the_edges_of_min_effect)
{
	CHECK_EQ_INT(verdict_classify(-3, 3, 3, 0), VERDICT_SAME);
	CHECK_EQ_INT(verdict_classify(0.2, 2.9, 3, 0), VERDICT_SAME);   /* real, but small */
	CHECK_EQ_INT(verdict_classify(2.9, 5, 3, 0), VERDICT_INCONCLUSIVE);
	CHECK_EQ_INT(verdict_classify(3.0, 5, 3, 0), VERDICT_INCONCLUSIVE);
	CHECK_EQ_INT(verdict_classify(3.01, 5, 3, 0), VERDICT_SLOWER);
	CHECK_EQ_INT(verdict_classify(-5, -3.01, 3, 0), VERDICT_FASTER);
	CHECK_EQ_INT(verdict_classify(-3.01, 0, 3, 0), VERDICT_INCONCLUSIVE);
	CHECK_EQ_INT(verdict_classify(-8, 8, 3, 0), VERDICT_INCONCLUSIVE);
	/* throughput: up is better */
	CHECK_EQ_INT(verdict_classify(4, 6, 3, 1), VERDICT_FASTER);
	CHECK_EQ_INT(verdict_classify(-60, -40, 3, 1), VERDICT_SLOWER);
	/* no threshold: any interval that excludes zero */
	CHECK_EQ_INT(verdict_classify(0.01, 0.02, 0, 0), VERDICT_SLOWER);
	CHECK_EQ_INT(verdict_classify(0, 0, 0, 0), VERDICT_SAME);
	CHECK_EQ_INT(verdict_classify(NAN, 1, 3, 0), VERDICT_NA);
	CHECK_STR(verdict_outcome_name(VERDICT_INCONCLUSIVE), "inconclusive");
	CHECK_STR(verdict_outcome_name(VERDICT_NA), "n/a");
}

/* The median of 2000 requests with 1% noise: a +1% shift is real and "same". */
TEST(a_real_change_below_min_effect_is_same)
{
	static double a[2000], b[2000];
	struct verdict_side sa = side_of(a, 2000), sb = side_of(b, 2000);
	struct verdict w;

	fill(a, 2000, 50, 0.01, 0, 1);
	fill(b, 2000, 50, 0.01, 1, 2);
	CHECK_EQ_INT(verdict_percentile(&sa, &sb, 0, 50, &opts, &w), 0);
	CHECK(w.lo > 0);                  /* significant ... */
	CHECK(w.hi < VERDICT_MIN_EFFECT); /* ... and small */
	CHECK_EQ_INT(w.outcome, VERDICT_SAME);
	CHECK_NEAR(w.change_pct, 1.0, 0.3);
	CHECK(w.lo <= w.change_pct && w.change_pct <= w.hi);
	/* the same data with no threshold: "slower" */
	{
		struct verdict_opts zero = opts;

		zero.min_effect = 0;
		CHECK_EQ_INT(verdict_percentile(&sa, &sb, 0, 50, &zero, &w), 0);
		CHECK_EQ_INT(w.outcome, VERDICT_SLOWER);
	}
}

TEST(shifts_around_min_effect_give_same_inconclusive_slower)
{
	static double a[400], b[400];
	struct verdict_side sa = side_of(a, 400), sb = side_of(b, 400);
	struct verdict w;

	fill(a, 400, 50, 0.05, 0, 3);
	fill(b, 400, 50, 0.05, 6, 4);           /* +6%: interval about [+5.1, +6.9] */
	CHECK_EQ_INT(verdict_percentile(&sa, &sb, 0, 50, &opts, &w), 0);
	CHECK_EQ_INT(w.outcome, VERDICT_SLOWER);
	CHECK(w.lo > VERDICT_MIN_EFFECT);
	fill(b, 400, 50, 0.05, 3, 4);           /* +3%: straddles the threshold */
	CHECK_EQ_INT(verdict_percentile(&sa, &sb, 0, 50, &opts, &w), 0);
	CHECK_EQ_INT(w.outcome, VERDICT_INCONCLUSIVE);
	CHECK(w.lo < VERDICT_MIN_EFFECT && w.hi > VERDICT_MIN_EFFECT);
	fill(b, 400, 50, 0.05, -6, 4);
	CHECK_EQ_INT(verdict_percentile(&sa, &sb, 0, 50, &opts, &w), 0);
	CHECK_EQ_INT(w.outcome, VERDICT_FASTER);
	fill(b, 400, 50, 0.05, 0, 5);
	CHECK_EQ_INT(verdict_percentile(&sa, &sb, 0, 50, &opts, &w), 0);
	CHECK_EQ_INT(w.outcome, VERDICT_SAME);
}

TEST(the_same_arrays_give_the_same_interval)
{
	static double a[100], b[100];
	struct verdict_side sa = side_of(a, 100), sb = side_of(b, 100);
	struct verdict w1, w2;
	struct verdict_opts other = opts;

	fill(a, 100, 50, 0.1, 0, 6);
	fill(b, 100, 50, 0.1, 2, 7);
	CHECK_EQ_INT(verdict_percentile(&sa, &sb, 0, 50, &opts, &w1), 0);
	CHECK_EQ_INT(verdict_percentile(&sa, &sb, 0, 50, &opts, &w2), 0);
	CHECK(w1.lo == w2.lo && w1.hi == w2.hi);
	other.seed++;
	CHECK_EQ_INT(verdict_percentile(&sa, &sb, 0, 50, &other, &w2), 0);
	CHECK(w1.lo != w2.lo || w1.hi != w2.hi);
}

/*
 * 60 trace requests whose E2E spans 5x (short and long answers), replayed
 * twice; after is 5% slower on every request. Unpaired, the spread between
 * requests swamps the shift; paired by trace id, it cancels.
 */
TEST(pairing_by_trace_id_cancels_the_spread_between_requests)
{
	double a[60], b[60];
	long ka[60], kb[60];
	size_t *ia = NULL, *ib = NULL, n = 0, i;
	double pa[60], pb[60];
	struct rng s;
	struct verdict w;

	rng_init(&s, 11);
	for (i = 0; i < 60; i++) {
		double base = 200 + 800 * (double)((i * 37) % 60) / 59.0;

		ka[i] = (long)i;
		kb[59 - i] = (long)i;       /* sent in another order */
		a[i] = base * (1 + 0.003 * normal(&s));
		b[59 - i] = base * 1.05 * (1 + 0.003 * normal(&s));
	}
	{
		struct verdict_side sa = side_of(a, 60), sb = side_of(b, 60);

		CHECK_EQ_INT(verdict_percentile(&sa, &sb, 0, 50, &opts, &w), 0);
		CHECK_EQ_INT(w.outcome, VERDICT_INCONCLUSIVE);
		CHECK_EQ_INT(w.paired, 0);
	}
	CHECK_EQ_INT(verdict_pair(ka, NULL, 60, kb, NULL, 60, &ia, &ib, &n), 1);
	CHECK_EQ_INT(n, 60);
	for (i = 0; ia && ib && i < n; i++) {
		CHECK_EQ_INT(ka[ia[i]], kb[ib[i]]);
		pa[i] = a[ia[i]];
		pb[i] = b[ib[i]];
	}
	{
		struct verdict_side sa = side_of(pa, 60), sb = side_of(pb, 60);

		CHECK_EQ_INT(verdict_percentile(&sa, &sb, 1, 50, &opts, &w), 0);
		CHECK_EQ_INT(w.outcome, VERDICT_SLOWER);
		CHECK_EQ_INT(w.paired, 1);
		CHECK(w.lo > 4 && w.hi < 6);
	}
	free(ia);
	free(ib);
}

TEST(pairing_needs_the_same_requests_in_the_same_repeats)
{
	long ka[6] = { 7, 8, 7, 7, 8, 7 }, kb[6] = { 8, 7, 7, 7, 7, 8 };
	int ra[6] = { 0, 0, 0, 1, 1, 1 }, rb[6] = { 1, 1, 1, 0, 0, 0 };
	size_t *ia = NULL, *ib = NULL, n = 0, i;

	CHECK_EQ_INT(verdict_pair(ka, ra, 6, kb, rb, 6, &ia, &ib, &n), 1);
	for (i = 0; ia && ib && i < n; i++) {
		CHECK_EQ_INT(ka[ia[i]], kb[ib[i]]);
		CHECK_EQ_INT(ra[ia[i]], rb[ib[i]]);
	}
	/* a key sent twice in one repeat: paired in sending order */
	CHECK(ia && ib && ia[0] == 0 && ib[0] == 3 && ia[1] == 2 && ib[1] == 4);
	free(ia);
	free(ib);
	ia = ib = NULL;
	kb[0] = 9;                      /* another trace request */
	CHECK_EQ_INT(verdict_pair(ka, ra, 6, kb, rb, 6, &ia, &ib, &n), 0);
	kb[0] = 8;
	rb[0] = 0;                      /* same requests, other repeats */
	CHECK_EQ_INT(verdict_pair(ka, ra, 6, kb, rb, 6, &ia, &ib, &n), 0);
	CHECK_EQ_INT(verdict_pair(ka, ra, 6, kb, rb, 5, &ia, &ib, &n), 0);
	CHECK(!ia && !ib);
}

/* ITL: n requests of k gaps each, around 10 ms, the last gaps slower. */
static void fill_itl(double *v, size_t *start, size_t n, size_t k, double tail, uint64_t seed)
{
	struct rng s;
	size_t i, j;

	rng_init(&s, seed);
	for (i = 0; i < n; i++) {
		start[i] = i * k;
		for (j = 0; j < k; j++)
			v[i * k + j] = 10 * (1 + 0.01 * normal(&s)) * (j == k - 1 ? tail : 1);
	}
	start[n] = n * k;
}

/* 8 requests x 63 gaps are 504 gaps but 8 requests: P99 is not judged. */
TEST(the_p99_rule_counts_requests_not_gaps)
{
	static double a[250 * 63], b[250 * 63];
	static size_t sa_start[251], sb_start[251];
	struct verdict_side sa = { a, sa_start, 8, NULL, 1, NULL }, sb = { b, sb_start, 8, NULL, 1, NULL };
	struct verdict w;

	fill_itl(a, sa_start, 8, 63, 1.0, 21);
	fill_itl(b, sb_start, 8, 63, 1.3, 22);
	CHECK_EQ_INT(verdict_percentile(&sa, &sb, 0, 99, &opts, &w), 0);
	CHECK_EQ_INT(w.outcome, VERDICT_NA);
	CHECK_EQ_INT(w.n_before, 8);
	CHECK(w.change_pct > 5);        /* the number is still shown */
	CHECK(isnan(w.lo));
	CHECK_EQ_INT(verdict_percentile(&sa, &sb, 0, 50, &opts, &w), 0);
	CHECK_EQ_INT(w.outcome, VERDICT_SAME);  /* the median is judged on 8 requests */
	/* 250 requests: P99 is judged, and sees the slower last gaps */
	fill_itl(a, sa_start, 250, 63, 1.0, 23);
	fill_itl(b, sb_start, 250, 63, 1.3, 24);
	sa.n = sb.n = 250;
	CHECK_EQ_INT(verdict_percentile(&sa, &sb, 0, 99, &opts, &w), 0);
	CHECK_EQ_INT(w.outcome, VERDICT_SLOWER);
	sa.n = sb.n = 4;
	CHECK_EQ_INT(verdict_percentile(&sa, &sb, 0, 50, &opts, &w), 0);
	CHECK_EQ_INT(w.outcome, VERDICT_NA);
}

/*
 * Three repeats a side, each run off by a few percent as a whole (host
 * drift), with little noise inside a run. Taken as one run, the requests
 * say "changed"; grouped by repeat, the spread between runs is noise.
 */
TEST(repeats_make_the_spread_between_runs_noise)
{
	static double a[300], b[300];
	static int ra[300], rb[300];
	static const double drift_a[3] = { 0, 4, -3 }, drift_b[3] = { 5, -2, 1 };
	struct verdict_side sa = { a, NULL, 300, ra, 3, NULL }, sb = { b, NULL, 300, rb, 3, NULL };
	struct verdict w;
	size_t i;

	for (i = 0; i < 3; i++) {
		fill(a + 100 * i, 100, 50, 0.005, drift_a[i], 31 + i);
		fill(b + 100 * i, 100, 50, 0.005, drift_b[i], 41 + i);
	}
	for (i = 0; i < 300; i++)
		ra[i] = rb[i] = (int)(i / 100);
	CHECK_EQ_INT(verdict_percentile(&sa, &sb, 0, 50, &opts, &w), 0);
	CHECK_EQ_INT(w.outcome, VERDICT_INCONCLUSIVE);
	CHECK(w.hi - w.lo > 4);
	sa.repeat = sb.repeat = NULL;
	sa.n_repeats = sb.n_repeats = 1;
	CHECK_EQ_INT(verdict_percentile(&sa, &sb, 0, 50, &opts, &w), 0);
	CHECK(w.hi - w.lo < 3);
}

/* A level of 16 requests at C=4, 10 tokens of 1 s each: 4 s, 40 tok/s. */
static void level_of(double *tok, double *e2e, double *wall, double last_s)
{
	size_t i;

	for (i = 0; i < 16; i++) {
		tok[i] = 10;
		e2e[i] = 1;
	}
	e2e[15] = last_s;
	*wall = 3 + last_s;
}

/*
 * The last request takes 5 s: the wall time doubles and the tok/s shown
 * halves, while C x tokens / sum(E2E) (Little's law) drops by 20% only.
 * The verdict is about the number shown.
 */
TEST(throughput_is_judged_on_tokens_over_wall_time)
{
	double ta[16], ea[16], tb[16], eb[16], wa, wb, tok = 160;
	struct verdict_rate_side a = { ta, ea, NULL, 16, &tok, &wa, 1 };
	struct verdict_rate_side b = { tb, eb, NULL, 16, &tok, &wb, 1 };
	struct verdict w;

	level_of(ta, ea, &wa, 1);
	level_of(tb, eb, &wb, 5);
	CHECK_EQ_INT(verdict_rate(&a, &b, 0, &opts, &w), 0);
	CHECK_NEAR(w.before, 40, 1e-9);
	CHECK_NEAR(w.after, 20, 1e-9);
	CHECK_NEAR(w.change_pct, -50, 1e-9);
	CHECK_EQ_INT(w.outcome, VERDICT_SLOWER);
	CHECK(w.lo <= -50 && -50 <= w.hi);
	CHECK_EQ_INT(verdict_rate(&a, &a, 0, &opts, &w), 0);
	CHECK_EQ_INT(w.outcome, VERDICT_SAME);
	CHECK_NEAR(w.change_pct, 0, 1e-9);
	a.n = 4;
	CHECK_EQ_INT(verdict_rate(&a, &b, 0, &opts, &w), 0);
	CHECK_EQ_INT(w.outcome, VERDICT_NA);
}

TEST(throughput_over_repeats_uses_their_own_rates)
{
	double tok_a[3] = { 1000, 1000, 1000 }, wall_a[3] = { 10, 10.1, 9.9 };
	double tok_b[3] = { 1000, 1000, 1000 }, wall_b[3] = { 9, 9.1, 8.9 };
	double t[6] = { 1, 1, 1, 1, 1, 1 }, e[6] = { 1, 1, 1, 1, 1, 1 };
	int rep[6] = { 0, 0, 1, 1, 2, 2 };
	struct verdict_rate_side a = { t, e, rep, 6, tok_a, wall_a, 3 };
	struct verdict_rate_side b = { t, e, rep, 6, tok_b, wall_b, 3 };
	struct verdict w;

	CHECK_EQ_INT(verdict_rate(&a, &b, 0, &opts, &w), 0);
	CHECK_NEAR(w.before, 100, 1e-9);
	CHECK_NEAR(w.change_pct, 100.0 * (3000 / 27.0 - 100) / 100, 1e-9);
	CHECK_EQ_INT(w.n_before, 3);
	CHECK(w.lo <= w.change_pct && w.change_pct <= w.hi);
	CHECK_EQ_INT(w.outcome, VERDICT_FASTER);
	/* repeats 10% apart on one side: the interval widens past a 2% change */
	{
		const double each = 1000 * 29.7 / 30.0 * 1.02;   /* 2% more tokens per second */
		const double tok_c[3] = { each, each, each }, wall_c[3] = { 8.9, 9.9, 10.9 };
		struct verdict_rate_side c = { t, e, rep, 6, tok_c, wall_c, 3 };

		CHECK_EQ_INT(verdict_rate(&a, &c, 0, &opts, &w), 0);
		CHECK_NEAR(w.change_pct, 2, 1e-9);
		CHECK_EQ_INT(w.outcome, VERDICT_INCONCLUSIVE);
	}
}

/* 40 pairs of samples of one distribution: no pair is "faster" or "slower". */
TEST(the_same_distribution_is_never_a_change)
{
	static double a[60], b[60];
	struct verdict_side sa = side_of(a, 60), sb = side_of(b, 60);
	struct verdict w;
	int k, changed = 0, same = 0;

	for (k = 0; k < 40; k++) {
		fill(a, 60, 50, 0.02, 0, 100 + 2 * (uint64_t)k);
		fill(b, 60, 50, 0.02, 0, 101 + 2 * (uint64_t)k);
		CHECK_EQ_INT(verdict_percentile(&sa, &sb, 0, 50, &opts, &w), 0);
		changed += w.outcome == VERDICT_FASTER || w.outcome == VERDICT_SLOWER;
		same += w.outcome == VERDICT_SAME;
	}
	CHECK_EQ_INT(changed, 0);
	CHECK(same >= 38);
}

/*
 * Blocks: the t interval over the blocks' log ratios, around the change
 * shown and their mean. Ratios 1.10, 1.12, 1.08: mean log 0.0953, SD 0.0182, t(2) 4.303:
 * half-width 0.0452 on the log scale.
 */
TEST(blocks_give_a_t_interval_of_their_log_ratios)
{
	const double sa[3] = { 100, 200, 50 }, sb[3] = { 110, 224, 54 };
	const struct verdict_opts o = { 1.0, VERDICT_LEVEL, VERDICT_RESAMPLES, 1 };
	struct verdict w = { .before = 100, .after = 110, .change_pct = 10, .lo = NAN, .hi = NAN };
	double d[3], m, sd, h;
	int i;

	for (i = 0; i < 3; i++)
		d[i] = log(sb[i] / sa[i]);
	m = (d[0] + d[1] + d[2]) / 3;
	sd = sqrt(((d[0] - m) * (d[0] - m) + (d[1] - m) * (d[1] - m) + (d[2] - m) * (d[2] - m)) / 2);
	h = 4.302653 * sd / sqrt(3);
	CHECK_EQ_INT(verdict_blocks(sa, sb, 3, &o, 0, &w), 1);
	CHECK(fabs(w.lo - expm1(fmin(m, log(1.1)) - h) * 100) < 1e-6);
	CHECK(fabs(w.hi - expm1(fmax(m, log(1.1)) + h) * 100) < 1e-6);
	CHECK_EQ_INT(w.outcome, VERDICT_SLOWER);
	CHECK_EQ_INT(w.noise, VERDICT_NOISE_BLOCKS);
	CHECK_EQ_INT((int)w.noise_df, 2);
	CHECK(fabs(w.noise_sd - sd) < 1e-12 && fabs(w.noise_t - 4.302653) < 1e-5);
	/* higher is better: the same interval is faster */
	CHECK_EQ_INT(verdict_blocks(sa, sb, 3, &o, 1, &w), 1);
	CHECK_EQ_INT(w.outcome, VERDICT_FASTER);
	/* one usable block: nothing measured, w untouched */
	w.noise = VERDICT_NOISE_NONE;
	CHECK_EQ_INT(verdict_blocks(sa, sb, 1, &o, 0, &w), 0);
	CHECK_EQ_INT(w.noise, VERDICT_NOISE_NONE);
}

/*
 * The blocks' interval is around the change shown and reaches to their own
 * centre where that lies elsewhere: blocks that agree on no change do not
 * call a pooled +10% slower (a tail the pooled figure sees otherwise).
 */
TEST(blocks_interval_reaches_their_own_centre)
{
	const double sa[3] = { 100, 100, 100 }, sb[3] = { 101, 100, 99 };
	const struct verdict_opts o = { 1.0, VERDICT_LEVEL, VERDICT_RESAMPLES, 1 };
	struct verdict w = { .before = 100, .after = 110, .change_pct = 10, .lo = NAN, .hi = NAN };
	double m = (log(1.01) + log(0.99)) / 3, sd, h;

	sd = sqrt((pow(log(1.01) - m, 2) + pow(-m, 2) + pow(log(0.99) - m, 2)) / 2);
	h = 4.302653 * sd / sqrt(3);
	CHECK_EQ_INT(verdict_blocks(sa, sb, 3, &o, 0, &w), 1);
	CHECK(fabs(w.lo - expm1(m - h) * 100) < 1e-3);
	CHECK(fabs(w.hi - expm1(log(1.1) + h) * 100) < 1e-3);
	CHECK_EQ_INT(w.outcome, VERDICT_INCONCLUSIVE);
}

/* A percentile needs its requests in every block: P99 (200) of 3 blocks
 * of 128 requests is n/a needing 600 a side; 600 a side judge. */
TEST(blocks_need_a_percentiles_requests_each)
{
	struct verdict w = { .change_pct = 5, .lo = 1, .hi = 9, .outcome = VERDICT_SLOWER,
			     .n_before = 384, .n_after = 384, .needed = 200 };

	CHECK_EQ_INT(verdict_blocks_too_few(&w, 3), 1);
	CHECK_EQ_INT(w.outcome, VERDICT_NA);
	CHECK_EQ_INT((int)w.needed, 600);
	CHECK(isnan(w.lo) && isnan(w.hi));
	w = (struct verdict){ .change_pct = 5, .lo = 1, .hi = 9, .outcome = VERDICT_SLOWER,
			      .n_before = 600, .n_after = 601, .needed = 200 };
	CHECK_EQ_INT(verdict_blocks_too_few(&w, 3), 0);
	CHECK_EQ_INT(w.outcome, VERDICT_SLOWER);
	CHECK_EQ_INT((int)w.needed, 200);
	w.n_after = 599;
	CHECK_EQ_INT(verdict_blocks_too_few(&w, 3), 1);
	/* already n/a with too few for one run: it says what the blocks need */
	w = (struct verdict){ .change_pct = 5, .lo = NAN, .hi = NAN, .outcome = VERDICT_NA,
			      .n_before = 96, .n_after = 96, .needed = 200 };
	CHECK_EQ_INT(verdict_blocks_too_few(&w, 3), 1);
	CHECK_EQ_INT((int)w.needed, 600);
}

/* A run-to-run noise widens an interval narrower than it, never narrows
 * one; no noise measured holds a change back. */
TEST(noise_widens_and_unmeasured_noise_holds)
{
	const struct verdict_opts o = { 1.0, VERDICT_LEVEL, VERDICT_RESAMPLES, 1 };
	struct verdict w = { .before = 100, .after = 105, .change_pct = 5, .lo = 4, .hi = 6,
			     .outcome = VERDICT_SLOWER };
	struct verdict v = w;

	verdict_widen(&w, 0.02, 1.959964, VERDICT_NOISE_GIVEN, &o, 0);
	CHECK(w.lo < -0.5 && w.hi > 10.5);      /* 1.96 * sqrt(2) * 2% = 5.5% */
	CHECK_EQ_INT(w.outcome, VERDICT_INCONCLUSIVE);
	CHECK_EQ_INT(w.noise, VERDICT_NOISE_GIVEN);
	verdict_widen(&v, 0.001, 1.959964, VERDICT_NOISE_GIVEN, &o, 0);
	CHECK(fabs(v.lo - 4) < 1e-9 && fabs(v.hi - 6) < 1e-9);
	CHECK_EQ_INT(v.outcome, VERDICT_SLOWER);
	verdict_hold(&v);
	CHECK_EQ_INT(v.outcome, VERDICT_INCONCLUSIVE);
	CHECK(v.held);
	CHECK_EQ_INT(v.noise, VERDICT_NOISE_NONE);
}

int main(void)
{
	RUN(classify_at_the_edges_of_min_effect);
	RUN(a_real_change_below_min_effect_is_same);
	RUN(shifts_around_min_effect_give_same_inconclusive_slower);
	RUN(the_same_arrays_give_the_same_interval);
	RUN(pairing_by_trace_id_cancels_the_spread_between_requests);
	RUN(pairing_needs_the_same_requests_in_the_same_repeats);
	RUN(the_p99_rule_counts_requests_not_gaps);
	RUN(repeats_make_the_spread_between_runs_noise);
	RUN(throughput_is_judged_on_tokens_over_wall_time);
	RUN(throughput_over_repeats_uses_their_own_rates);
	RUN(the_same_distribution_is_never_a_change);
	RUN(blocks_give_a_t_interval_of_their_log_ratios);
	RUN(blocks_interval_reaches_their_own_centre);
	RUN(blocks_need_a_percentiles_requests_each);
	RUN(noise_widens_and_unmeasured_noise_holds);
	return harness_done();
}
