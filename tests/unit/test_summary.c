/*
 * test_summary.c - the report's numbers: distributions (mean, P50..P99, max)
 * against values worked out by hand with numpy.percentile's linear rule,
 * quickselect against sorting, the seeded bootstrap, errors by class, ITL
 * pooling, goodput against SLOs, and the sweep table in every format.
 */
#include "harness.h"
#include <math.h>

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "lib/random.h"
#include "lib/result.h"
#include "lib/stats.h"
#include "lib/summary.h"

#define MS 1000000LL

/* Failures by class and status: the statuses apart, the ninth distinct one
 * among "others", the text cut to its buffer and never past it. */
TEST(summary_errors_count_statuses_and_fit_their_buffer)
{
	struct summary_errors e;
	struct result r;
	char buf[256], small[12];
	int i;

	memset(&e, 0, sizeof(e));
	summary_errors_format(&e, buf, sizeof(buf));
	CHECK_STR(buf, "");
	result_init(&r);
	for (i = 0; i < 3; i++) {
		r.status = 429;
		result_set_http_error(&r, 429, "slow down", 9);
		summary_errors_add(&e, &r);
		result_release(&r);
	}
	r.status = 0;
	result_set_error(&r, RESULT_ERR_CONNECT, "refused");
	summary_errors_add(&e, &r);
	result_release(&r);
	summary_errors_format(&e, buf, sizeof(buf));
	CHECK_STR(buf, "3 http, 1 connect (HTTP 429 x3)");
	for (i = 0; i < SUMMARY_MAX_STATUSES; i++) {
		r.status = 500 + i;
		result_set_http_error(&r, r.status, "", 0);
		summary_errors_add(&e, &r);
		result_release(&r);
	}
	summary_errors_statuses(&e, buf, sizeof(buf));
	CHECK(strstr(buf, "HTTP 429 x3, HTTP 500 x1") == buf);
	CHECK(strstr(buf, ", 1 of other statuses") != NULL);
	summary_errors_format(&e, small, sizeof(small));
	CHECK_STR(small, "11 http, 1 ");
}

TEST(describe_with_ties_and_small_n)
{
	double one[] = { 5 };
	double two[] = { 3, 1 };
	double ties[] = { 9, 7, 7, 7, 10, 7 };
	struct stats_dist d;

	stats_describe(one, 1, &d);
	CHECK_EQ_INT(d.n, 1);
	CHECK_NEAR(d.mean, 5, 1e-12);
	CHECK_NEAR(d.p50, 5, 1e-12);
	CHECK_NEAR(d.p99, 5, 1e-12);
	CHECK_NEAR(d.max, 5, 1e-12);

	stats_describe(two, 2, &d);   /* numpy: p90 of [1,3] = 1 + 0.9*2 */
	CHECK_NEAR(d.mean, 2, 1e-12);
	CHECK_NEAR(d.p50, 2, 1e-12);
	CHECK_NEAR(d.p90, 2.8, 1e-12);
	CHECK_NEAR(d.p95, 2.9, 1e-12);
	CHECK_NEAR(d.p99, 2.98, 1e-12);
	CHECK_NEAR(d.max, 3, 1e-12);

	/* sorted 7 7 7 7 9 10: rank p/100*5 */
	stats_describe(ties, 6, &d);
	CHECK_NEAR(d.mean, 47.0 / 6, 1e-12);
	CHECK_NEAR(d.p50, 7, 1e-12);          /* rank 2.5 */
	CHECK_NEAR(d.p90, 9.5, 1e-12);        /* rank 4.5: 9 + .5 */
	CHECK_NEAR(d.p95, 9.75, 1e-12);       /* rank 4.75 */
	CHECK_NEAR(d.p99, 9.95, 1e-12);       /* rank 4.95 */
	CHECK_NEAR(d.max, 10, 1e-12);

	stats_describe(NULL, 0, &d);
	CHECK_EQ_INT(d.n, 0);
	CHECK(isnan(d.mean) && isnan(d.p50) && isnan(d.max));
}

TEST(splitmix64_matches_the_reference)
{
	struct rng s;

	/* First outputs of Vigna's splitmix64.c seeded with 0. */
	rng_init(&s, 0);
	CHECK(rng_next(&s) == 0xe220a8397b1dcdafULL);
	CHECK(rng_next(&s) == 0x6e789e6aa1b965f4ULL);
}

TEST(quickselect_agrees_with_sorting)
{
	static const double ps[] = { 0, 1, 25, 50, 90, 95, 99, 99.9, 100 };
	double v[257], w[257];
	struct rng s = { 42 };
	size_t n, i, k;

	for (n = 1; n <= 257; n += 16) {
		for (i = 0; i < n; i++)
			v[i] = (double)rng_below(&s, 20);   /* many ties */
		/* cppcheck-suppress uninitvar ; n >= 1, so the loop above filled v[0..n) */
		memcpy(w, v, n * sizeof(*v));
		stats_sort(w, n);
		for (k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
			double got, want = stats_percentile(w, n, ps[k]);
			double x[257];

			memcpy(x, v, n * sizeof(*v));
			got = stats_select_percentile(x, n, ps[k]);
			CHECK_NEAR(got, want, 1e-12);
		}
	}
}

TEST(describe_agrees_with_sorting_on_random_data)
{
	double v[1001], w[1001];
	struct stats_dist d;
	struct rng s = { 9 };
	size_t n, i;

	for (n = 1; n <= 1001; n += 50) {
		for (i = 0; i < n; i++)
			v[i] = (double)rng_below(&s, n / 3 + 1) + (i % 7 == 0 ? 0.5 : 0);
		/* cppcheck-suppress uninitvar ; n >= 1, so the loop above filled v[0..n) */
		memcpy(w, v, n * sizeof(*v));
		stats_sort(w, n);
		stats_describe(v, n, &d);
		CHECK_NEAR(d.p50, stats_percentile(w, n, 50), 1e-12);
		CHECK_NEAR(d.p90, stats_percentile(w, n, 90), 1e-12);
		CHECK_NEAR(d.p95, stats_percentile(w, n, 95), 1e-12);
		CHECK_NEAR(d.p99, stats_percentile(w, n, 99), 1e-12);
		CHECK_NEAR(d.max, w[n - 1], 1e-12);
		CHECK_NEAR(d.mean, stats_mean(w, n), 1e-9);
		/* each interval: the values at its ranks, around its percentile */
		for (i = 0; i < 4; i++) {
			size_t lo, hi;

			if (stats_rank_ci95(n, stats_dist_pcts[i], &lo, &hi) < 0) {
				CHECK(isnan(d.lo[i]) && isnan(d.hi[i]));
				continue;
			}
			CHECK_NEAR(d.lo[i], w[lo], 0);
			CHECK_NEAR(d.hi[i], w[hi], 0);
		}
		CHECK(n < 6 || (d.lo[0] <= d.p50 && d.p50 <= d.hi[0]));
		CHECK(n < 368 || (d.lo[3] <= d.p99 && d.p99 <= d.hi[3]));
	}
}

/*
 * The order-statistic interval of a percentile: the classic table values
 * (the median of 100 values lies between the 40th and the 61st, 1-based;
 * of 10, the 2nd and the 9th), the smallest samples that have one, the
 * normal approximation past 5,000 agreeing with the exact ranks, and the
 * coverage of a uniform sample's true percentile over 2,000 draws.
 */
TEST(percentile_intervals_by_order_statistics)
{
	static const struct { size_t n; double p; size_t lo, hi; } known[] = {
		{ 100, 50, 39, 60 }, { 10, 50, 1, 8 }, { 6, 50, 0, 5 },
	};
	size_t i, lo, hi, lo2, hi2, covered = 0, trials = 2000, t;
	struct rng s = { 11 };
	double v[200];
	struct stats_dist d;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		CHECK_EQ_INT(stats_rank_ci95(known[i].n, known[i].p, &lo, &hi), 0);
		CHECK_EQ_INT(lo, known[i].lo);
		CHECK_EQ_INT(hi, known[i].hi);
	}
	CHECK_EQ_INT(stats_rank_ci95(5, 50, &lo, &hi), -1);      /* too few for any */
	CHECK_EQ_INT(stats_rank_ci95(35, 90, &lo, &hi), -1);     /* 0.9^35 > 2.5% */
	CHECK_EQ_INT(stats_rank_ci95(36, 90, &lo, &hi), 0);
	CHECK_EQ_INT(stats_rank_ci95(71, 95, &lo, &hi), -1);
	CHECK_EQ_INT(stats_rank_ci95(72, 95, &lo, &hi), 0);
	CHECK_EQ_INT(stats_rank_ci95(367, 99, &lo, &hi), -1);
	CHECK_EQ_INT(stats_rank_ci95(368, 99, &lo, &hi), 0);
	/* exact at 5,000, approximate at 5,001: within a rank of each other */
	CHECK_EQ_INT(stats_rank_ci95(5000, 90, &lo, &hi), 0);
	CHECK_EQ_INT(stats_rank_ci95(5001, 90, &lo2, &hi2), 0);
	CHECK(lo2 + 1 >= lo && lo2 <= lo + 2 && hi2 + 1 >= hi && hi2 <= hi + 2);
	/* 200 uniform values: the true P90 is 0.9; covered 95% of the time or more */
	for (t = 0; t < trials; t++) {
		for (i = 0; i < 200; i++)
			v[i] = (double)rng_below(&s, 1u << 30) / (double)(1u << 30);
		stats_describe(v, 200, &d);
		covered += d.lo[1] <= 0.9 && 0.9 <= d.hi[1];
	}
	CHECK(covered >= trials * 95 / 100 - 20 && covered <= trials);
}

TEST(welch_interval_matches_a_hand_computation)
{
	double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 }, c[] = { 7, 7 }, lo, hi;

	/* df 1 and 2 in closed form: tan(pi (p - 1/2)), (2p - 1) / sqrt(2p (1 - p)) */
	CHECK_NEAR(stats_t975(1), tan(M_PI * 0.475), 1e-9);
	CHECK_NEAR(stats_t975(2), 0.95 / sqrt(2 * 0.975 * 0.025), 1e-9);   /* 4.30265 */
	CHECK_NEAR(stats_t975(3), 3.182446305283708, 1e-9);
	CHECK_NEAR(stats_t975(4), 2.776445105197793, 1e-9);
	CHECK_NEAR(stats_t975(10.7), 2.208537614849555, 1e-9);   /* fractional df */
	CHECK_NEAR(stats_t975(30), 2.042272456301238, 1e-9);
	CHECK_NEAR(stats_t975(60), 2.000297822014260, 1e-9);
	CHECK_NEAR(stats_t975(1000), 1.962339080826408, 1e-9);
	/* variances 1 and 1: se^2 = 2/3, df = 4, t = 2.776 */
	CHECK_EQ_INT(stats_welch_ci95(a, 3, b, 3, &lo, &hi), 0);
	CHECK_NEAR(lo, 3 - 2.776445105197793 * sqrt(2.0 / 3.0), 1e-9);
	CHECK_NEAR(hi, 3 + 2.776445105197793 * sqrt(2.0 / 3.0), 1e-9);
	CHECK_EQ_INT(stats_welch_ci95(c, 2, c, 2, &lo, &hi), 0);
	CHECK(lo == 0 && hi == 0);
	CHECK_EQ_INT(stats_welch_ci95(a, 1, b, 3, &lo, &hi), -1);
}

static void ok_result(struct result *r, long seq, int warmup, int64_t sched_ms,
		      int64_t ttft_ms, int64_t e2e_ms, int64_t tokens, const int64_t *itl_ms,
		      size_t n_itl)
{
	size_t i;

	result_init(r);
	r->level = 2;
	r->seq = seq;
	r->warmup = warmup;
	r->status = 200;
	r->sched_ns = r->send_ns = sched_ms * MS;
	r->ttft_ns = r->ttfa_ns = ttft_ms * MS;
	r->e2e_ns = e2e_ms * MS;
	r->output_tokens = tokens;
	r->itl_ns = malloc((n_itl ? n_itl : 1) * sizeof(int64_t));
	for (i = 0; i < n_itl; i++)
		r->itl_ns[i] = itl_ms[i] * MS;
	r->n_itl = n_itl;
}

/*
 * A handmade level: a warm-up, four good requests and two failures.
 *   seq 1: TTFT 100, E2E 1100, 11 tokens -> TPOT 100, gaps 90 110
 *   seq 2: TTFT 300, E2E  800,  6 tokens -> TPOT 100, gaps 100
 *   seq 3: TTFT 600, E2E 2600, 21 tokens -> TPOT 100, gaps 50 150 100
 *   seq 4: TTFT 200, E2E  200,  1 token  -> no TPOT
 *   seq 5: timeout, seq 6: http 503
 * All sent at 0 except seq 6 at 1000 (ends 1000+10): wall 0..2600 ms.
 */
static size_t handmade(struct result *v)
{
	static const int64_t g1[] = { 90, 110 }, g2[] = { 100 }, g3[] = { 50, 150, 100 };
	size_t n = 0;

	ok_result(&v[n++], 0, 1, 0, 5000, 6000, 11, g1, 2);
	ok_result(&v[n++], 1, 0, 0, 100, 1100, 11, g1, 2);
	ok_result(&v[n++], 2, 0, 0, 300, 800, 6, g2, 1);
	ok_result(&v[n++], 3, 0, 0, 600, 2600, 21, g3, 3);
	ok_result(&v[n++], 4, 0, 0, 200, 200, 1, NULL, 0);
	ok_result(&v[n], 5, 0, 0, -1, 600, 0, NULL, 0);
	v[n].ttfa_ns = -1;
	result_set_error(&v[n++], RESULT_ERR_TIMEOUT, "timed out");
	ok_result(&v[n], 6, 0, 1000, -1, 10, 0, NULL, 0);
	v[n].status = 503;
	v[n].ttfa_ns = -1;
	result_set_error(&v[n++], RESULT_ERR_HTTP, "busy");
	return n;
}

TEST(level_summary_counts_errors_pools_itl_and_describes_each_metric)
{
	struct result v[8];
	struct level_summary s;
	char buf[128];
	size_t n = handmade(v), i;

	summary_compute(v, n, load_closed(2), NULL, &s);
	CHECK_EQ_INT(s.requests, 6);
	CHECK_EQ_INT(s.ok, 4);
	CHECK_EQ_INT(s.errors, 2);
	CHECK_EQ_INT(s.warmup, 1);
	CHECK_NEAR(s.warmup_ttft_ms, 5000, 1e-9);
	CHECK_EQ_INT(s.failed.by_class[0], 1);   /* http */
	CHECK_EQ_INT(s.failed.by_class[2], 1);   /* timeout */
	summary_errors_format(&s.failed, buf, sizeof(buf));
	CHECK_STR(buf, "1 http, 1 timeout (HTTP 503 x1)");
	CHECK_EQ_INT(s.tokens, 39);
	CHECK_NEAR(s.wall_s, 2.6, 1e-12);
	CHECK_NEAR(s.agg_tps, 39 / 2.6, 1e-9);
	/* TTFT 100 200 300 600 */
	CHECK_EQ_INT(s.ttft.n, 4);
	CHECK_NEAR(s.ttft.mean, 300, 1e-9);
	CHECK_NEAR(s.ttft.p50, 250, 1e-9);
	CHECK_NEAR(s.ttft.p90, 510, 1e-9);       /* rank 2.7: 300 + .7*300 */
	CHECK_NEAR(s.ttft.p99, 591, 1e-9);       /* rank 2.97 */
	CHECK_NEAR(s.ttft.max, 600, 1e-9);
	/* ITL pooled: 90 110 100 50 150 100 -> sorted 50 90 100 100 110 150 */
	CHECK_EQ_INT(s.itl.n, 6);
	CHECK_NEAR(s.itl.p50, 100, 1e-9);
	CHECK_NEAR(s.itl.p90, 130, 1e-9);        /* rank 4.5 */
	CHECK_NEAR(s.itl.max, 150, 1e-9);
	/* TPOT of the three multi-token requests, each 100 */
	CHECK_EQ_INT(s.tpot.n, 3);
	CHECK_NEAR(s.tpot.p99, 100, 1e-9);
	/* E2E 200 800 1100 2600 */
	CHECK_NEAR(s.e2e.mean, 1175, 1e-9);
	CHECK_NEAR(s.e2e.p95, 2375, 1e-9);       /* rank 2.85: 1100 + .85*1500 */
	CHECK(isnan(s.goodput_share) && isnan(s.good_rps));
	CHECK(isnan(s.scaling_eff));
	for (i = 0; i < n; i++)
		result_release(&v[i]);
}

TEST(goodput_counts_requests_within_every_slo)
{
	struct result v[8];
	struct level_summary s;
	struct metric_slo slo;
	char err[128];
	size_t n = handmade(v), i;

	/* TTFT <= 300 keeps seq 1, 2, 4; E2E <= 1s drops seq 1 -> 2 of 6 */
	CHECK_EQ_INT(metric_slo_parse("ttft=300ms,e2e=1s", &slo, err, sizeof(err)), 0);
	summary_compute(v, n, load_closed(2), &slo, &s);
	CHECK_EQ_INT(s.good, 2);
	CHECK_NEAR(s.goodput_share, 2.0 / 6.0, 1e-12);
	CHECK_NEAR(s.good_rps, 2 / 2.6, 1e-9);
	/* TPOT <= 99 ms fails every multi-token request; the one-token passes */
	CHECK_EQ_INT(metric_slo_parse("tpot=99", &slo, err, sizeof(err)), 0);
	summary_compute(v, n, load_closed(2), &slo, &s);
	CHECK_EQ_INT(s.good, 1);
	CHECK_EQ_INT(metric_slo_parse("tpot=100000us", &slo, err, sizeof(err)), 0);
	CHECK_NEAR(slo.tpot_ms, 100, 1e-12);
	summary_compute(v, n, load_closed(2), &slo, &s);
	CHECK_EQ_INT(s.good, 4);   /* failed requests are never good */
	for (i = 0; i < n; i++)
		result_release(&v[i]);
}

TEST(repeats_add_their_walls_not_the_gaps_between)
{
	struct result v[4];
	struct level_summary s;
	size_t i;

	/* Repeat 0: 0..1000 ms; repeat 1 starts 5 s later: 6000..6500 ms. */
	ok_result(&v[0], 0, 0, 0, 100, 1000, 10, NULL, 0);
	ok_result(&v[1], 1, 0, 0, 100, 800, 10, NULL, 0);
	ok_result(&v[2], 2, 0, 6000, 100, 500, 10, NULL, 0);
	ok_result(&v[3], 3, 0, 6000, 100, 400, 10, NULL, 0);
	v[2].repeat = v[3].repeat = 1;
	summary_compute(v, 4, load_closed(2), NULL, &s);
	CHECK_EQ_INT(s.repeats, 2);
	CHECK_NEAR(s.wall_s, 1.5, 1e-12);
	CHECK_NEAR(s.agg_tps, 40 / 1.5, 1e-9);
	CHECK(!s.open_loop);
	for (i = 0; i < 4; i++)
		result_release(&v[i]);
}

TEST(open_loop_shows_rates_and_service_latency)
{
	struct result v[5];
	struct level_summary s;
	size_t i;

	/* Scheduled every 100 ms; the sender lagged 0, 0, 10, 30, 0 ms. TTFT
	 * counts from the schedule: 50, 50, 60, 80, 50 -> service 50 each. */
	static const int64_t lag[] = { 0, 0, 10, 30, 0 };

	for (i = 0; i < 5; i++) {
		ok_result(&v[i], (long)i, 0, 100 * (int64_t)i, 50 + lag[i], 200 + lag[i], 10,
			  NULL, 0);
		v[i].send_ns += lag[i] * MS;
		v[i].level = 0;
	}
	summary_compute(v, 5, load_open(NAN), NULL, &s);
	CHECK(s.open_loop);
	CHECK_NEAR(s.sched_rps, 4 / 0.4, 1e-9);
	CHECK_NEAR(s.achieved_rps, 4 / 0.4, 1e-9);    /* first and last sent on time */
	CHECK_NEAR(s.ttft.p50, 50, 1e-9);
	CHECK_NEAR(s.ttft.max, 80, 1e-9);
	CHECK_NEAR(s.ttft_service.max, 50, 1e-9);
	CHECK_NEAR(s.e2e_service.p99, 200, 1e-9);
	CHECK_NEAR(s.lag.max, 30, 1e-9);
	CHECK_NEAR(s.lag.p50, 0, 1e-9);
	for (i = 0; i < 5; i++)
		result_release(&v[i]);
}

/* A non-streamed call (a models list, a JSON completion) answers at once:
 * it must not pull TTFT down, nor add a TPOT, but its E2E and tokens count. */
TEST(unstreamed_requests_count_in_e2e_only)
{
	struct result r[3];
	struct level_summary s;
	int i;

	for (i = 0; i < 3; i++) {
		result_init(&r[i]);
		r[i].level = 1;
		r[i].seq = i;
		r[i].status = 200;
		r[i].output_tokens = 10;
	}
	r[0].ttft_ns = r[0].ttfa_ns = 40 * MS;
	r[0].e2e_ns = 130 * MS;
	r[1].ttft_ns = r[1].ttfa_ns = 50 * MS;
	r[1].e2e_ns = 140 * MS;
	r[1].send_ns = r[1].sched_ns = 130 * MS;
	r[2].ttft_ns = r[2].ttfa_ns = r[2].e2e_ns = 2 * MS;   /* GET /v1/models */
	r[2].unstreamed = true;
	r[2].output_tokens = 0;
	r[2].send_ns = r[2].sched_ns = 270 * MS;
	summary_compute(r, 3, load_closed(1), NULL, &s);
	CHECK_EQ_INT(s.ok, 3);
	CHECK_EQ_INT(s.ttft.n, 2);
	CHECK_NEAR(s.ttft.mean, 45, 1e-9);
	CHECK_EQ_INT(s.ttfa.n, 2);
	CHECK_EQ_INT(s.tpot.n, 2);
	CHECK_EQ_INT(s.e2e.n, 3);
	CHECK_NEAR(s.wall_s, 0.272, 1e-9);
	CHECK_EQ_INT(s.tokens, 20);
}

/* The sweep table of one level in fmt with the optional column groups
 * 'groups' (caller frees). */
static char *sweep(enum table_format fmt, const struct level_summary *s, unsigned groups)
{
	struct table t;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	summary_table_init(&t, out, fmt, groups);
	table_begin(&t);
	summary_table_row(&t, "run \"x\"", s);
	table_end(&t);
	fclose(out);
	return buf;
}

/*
 * Where the time went: the server's queue, prefill and decode of each
 * request beside the client's TTFT and E2E; the rest is what the server
 * does not account for. Warm-ups, failures and requests without timings
 * are not in it, a body (SGLang's only shape) in all but the TTFT's parts;
 * a queue the server does not say (llama.cpp) stays in the rest, and a
 * rest over a quarter of TTFT flags the level.
 *   seq 0: TTFT 60, E2E 160; queue 10, prefill 45, decode 100 -> rest 5, 5
 *   seq 1: TTFT 80, E2E 200; queue 20, prefill 50, decode 110 -> rest 10, 20
 *   seq 2: TTFT 70, E2E 170; queue 15, prefill 48, decode  95 -> rest 7, 12
 *   seq 3: a warm-up, seq 4 failed, seq 6 no timings
 *   seq 5: a body of E2E 300: queue 2, prefill 48, decode 200 -> rest of
 *          E2E 50, no TTFT parts
 */
TEST(attribution_splits_ttft_and_e2e_by_the_servers_timings)
{
	static const int64_t ms[3][5] = {
		{ 60, 160, 10, 45, 100 }, { 80, 200, 20, 50, 110 }, { 70, 170, 15, 48, 95 },
	};
	struct result r[7];
	struct level_summary s;
	char *text;
	int i;

	for (i = 0; i < 7; i++) {
		result_init(&r[i]);
		r[i].level = 4;
		r[i].seq = i;
		r[i].status = 200;
		r[i].output_tokens = 10;
		r[i].ttft_ns = r[i].ttfa_ns = ms[i % 3][0] * MS;
		r[i].e2e_ns = ms[i % 3][1] * MS;
		if (i == 6)
			continue;
		r[i].server.shape = SRVTIMING_VLLM;
		r[i].server.queue_ns = ms[i % 3][2] * MS;
		r[i].server.prefill_ns = ms[i % 3][3] * MS;
		r[i].server.decode_ns = ms[i % 3][4] * MS;
	}
	r[3].warmup = true;
	result_set_error(&r[4], RESULT_ERR_TIMEOUT, "timed out");
	r[5].unstreamed = true;
	r[5].ttft_ns = r[5].ttfa_ns = r[5].e2e_ns = 300 * MS;
	r[5].server.queue_ns = 2 * MS;
	r[5].server.decode_ns = 200 * MS;
	summary_compute(r, 7, load_closed(4), NULL, &s);
	CHECK_EQ_INT(s.att.n, 4);
	CHECK_EQ_INT(s.att.shape, SRVTIMING_VLLM);
	CHECK_NEAR(s.att.queue.p50, 12.5, 1e-9);      /* 2, 10, 15, 20 */
	CHECK_NEAR(s.att.prefill.p50, 48, 1e-9);      /* 45, 48, 48, 50 */
	CHECK_NEAR(s.att.decode.p50, 105, 1e-9);      /* 95, 100, 110, 200 */
	CHECK_EQ_INT(s.att.rest_ttft.n, 3);
	CHECK_NEAR(s.att.rest_ttft.p50, 7, 1e-9);
	CHECK_NEAR(s.att.rest_ttft.max, 10, 1e-9);
	CHECK_NEAR(s.att.rest_e2e.p50, 16, 1e-9);     /* 5, 12, 20, 50 */
	CHECK_NEAR(s.att.rest_e2e.max, 50, 1e-9);
	CHECK_EQ_INT(s.att.ttft.n, 3);
	CHECK_NEAR(s.att.ttft.p50, 70, 1e-9);
	CHECK(!attribution_flagged(&s.att));
	text = sweep(TABLE_CSV, &s, 0);
	CHECK(text && strstr(text, ",n_server_timed,p50_server_queue_ms,p50_server_prefill_ms,"));
	CHECK(text && strstr(text, ",4,12.500,48.000,"));
	free(text);

	/* llama.cpp: no queue said, so it is in the rest, which flags the level */
	for (i = 0; i < 7; i++) {
		if (r[i].server.shape != SRVTIMING_NONE)
			r[i].server.shape = SRVTIMING_LLAMACPP;
		r[i].server.queue_ns = -1;
	}
	summary_compute(r, 7, load_closed(4), NULL, &s);
	CHECK_EQ_INT(s.att.queue.n, 0);
	CHECK_NEAR(s.att.rest_ttft.p50, 22, 1e-9);   /* 15, 30, 22 */
	CHECK(attribution_flagged(&s.att));           /* 22 of 70 ms */
	for (i = 0; i < 7; i++)
		result_release(&r[i]);
}


TEST(sweep_table_has_the_seed_columns_first_in_every_format)
{
	struct result v[8];
	struct level_summary s;
	struct metric_slo slo = { 300, 0, 0, 0 };
	size_t n = handmade(v), i, commas = 0;
	cJSON *j;
	char *out;

	summary_compute(v, n, load_closed(2), &slo, &s);
	summary_set_scaling(&s, 39 / 2.6 / 4);   /* half of 2 x the C=1 rate */
	out = sweep(TABLE_TEXT, &s, SUMMARY_GROUP_SLO);
	CHECK(strstr(out, "   C  Agg tok/s  Per-req tok/s  Avg TTFT (ms)   Tokens  Wall(s)    Ok"
		      "  P50 TPOT (ms)  P50 TTFT (ms)  P95 TTFT (ms)  P99 TTFT (ms)  Err  Scaling"
		      "  Goodput  Good req/s  ") == out);
	CHECK(strstr(out, "\n   2       15.0") != NULL);
	/* Ok 4, the TPOT of the three multi-token requests (each 100 ms),
	 * the TTFT P50 (250 ms) */
	CHECK(strstr(out, "     4          100.0          250.0 ") != NULL);
	CHECK(strstr(out, "    2     200%    50.0%        1.15 ") != NULL);
	free(out);
	out = sweep(TABLE_MARKDOWN, &s, 0);
	CHECK(strstr(out, "| C | Agg tok/s | Per-req tok/s | Avg TTFT (ms) | Tokens | Wall(s) | Ok "
		      "| P50 TPOT (ms) | P50 TTFT (ms) | P95 TTFT (ms) | P99 TTFT (ms) | Err "
		      "| Scaling | Est tok | Tok/ev | Cache hit | New conn |\n") == out);
	CHECK(strstr(out, "| 4 | 100.0 | 250.0 | 555.0* | 591.0* |") != NULL);
	CHECK(strstr(out, "Goodput") == NULL);
	CHECK(strstr(out, "TTFA") == NULL);   /* no request reasoned */
	free(out);
	out = sweep(TABLE_CSV, &s, 0);
	CHECK(strncmp(out, "run,concurrency,agg_tok_s,per_req_tok_s,avg_ttft_ms,tokens,wall_s,ok,"
		      "p50_ttft_ms,p95_ttft_ms,p99_ttft_ms,errors,scaling_eff,repeat,requests,"
		      "tokens_per_event,cache_hit_pct,", 171) == 0);
	CHECK(strstr(out, "\n\"run \"\"x\"\"\",2,15.000,") != NULL);
	for (i = 0; out[i] && out[i] != '\n'; i++)
		commas += out[i] == ',';
	free(out);
	out = sweep(TABLE_JSON, &s, 0);
	j = cJSON_Parse(out);
	CHECK(cJSON_IsArray(j) && cJSON_GetArraySize(j) == 1);
	CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetArrayItem(j, 0)), commas + 1);
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 0), "run")),
		  "run \"x\"");
	CHECK_EQ_INT(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 0), "n_tpot")->valueint, 3);
	cJSON_Delete(j);
	free(out);
	for (i = 0; i < n; i++)
		result_release(&v[i]);
}

/*
 * Where the numbers came from: of four good requests of repeat 0 and four
 * of repeat 1, two counted their tokens from events; the others carried 4
 * tokens per event and said 6 of 10 prompt tokens were cached; one had to
 * connect. Repeat 1 is twice as fast: the spread shows it.
 */
TEST(sweep_row_says_where_its_numbers_came_from)
{
	struct result v[8];
	struct level_summary s;
	char *out, *notes = NULL;
	size_t i, len = 0;
	FILE *f;

	for (i = 0; i < 8; i++) {
		int rep = (int)(i / 4);
		int64_t at = (int64_t)(i % 4) * 100, e2e = rep ? 100 : 200;

		ok_result(&v[i], (long)i, 0, at, 10 + 10 * rep, e2e, 8, NULL, 0);
		v[i].repeat = rep;
		v[i].input_tokens = 10;
		if (i == 1 || i == 5) {
			v[i].tokens_source = RESULT_TOKENS_EVENTS;
			v[i].tokens_estimated = true;
			v[i].token_events = 8;
		} else {
			v[i].token_events = 2;
			v[i].cached_tokens = 6;
		}
	}
	v[3].new_connection = true;
	v[3].connect_ns = 2 * MS;
	summary_compute(v, 8, load_closed(2), NULL, &s);
	CHECK_EQ_INT(s.tokens_events, 2);
	CHECK_EQ_INT(s.tokens_usage, 6);
	CHECK_NEAR(s.tokens_per_event, 64.0 / 28.0, 1e-9);
	CHECK_NEAR(s.cache_hit_share, 0.6, 1e-9);
	CHECK_EQ_INT(s.new_connections, 1);
	CHECK_NEAR(s.connect_ms, 2, 1e-9);
	/* repeat 0: 32 tokens over 0.5 s; repeat 1: 32 over 0.4 s */
	CHECK_NEAR(s.spread_agg_tps.min, 64, 1e-9);
	CHECK_NEAR(s.spread_agg_tps.max, 80, 1e-9);
	CHECK(s.spread_agg_tps.lo < 64 && s.spread_agg_tps.hi > 80);
	CHECK_NEAR(s.spread_ttft[0].min, 10, 1e-9);
	CHECK_NEAR(s.spread_ttft[0].max, 20, 1e-9);
	/* every percentile of every latency across the repeats: E2E 200 and
	 * 100 ms, its mean 150 +- t(0.975, 1) x 50; TPOT (E2E - TTFT) / 7 */
	CHECK_NEAR(s.spread_e2e[0].min, 100, 1e-9);
	CHECK_NEAR(s.spread_e2e[3].max, 200, 1e-9);
	CHECK_NEAR(s.spread_e2e[1].lo, 150 - stats_t975(1) * 50, 1e-6);
	CHECK_NEAR(s.spread_e2e[2].hi, 150 + stats_t975(1) * 50, 1e-6);
	CHECK_NEAR(s.spread_tpot[3].min, 80.0 / 7, 1e-9);
	CHECK_NEAR(s.spread_tpot[3].max, 190.0 / 7, 1e-9);
	CHECK(isnan(s.spread_ttfa[0].lo) || s.spread_ttfa[0].lo <= s.spread_ttfa[0].hi);
	out = sweep(TABLE_TEXT, &s, 0);
	CHECK(strstr(out, " 2/8 ") != NULL);          /* Est tok */
	CHECK(strstr(out, " 2.29 ") != NULL);         /* Tok/ev */
	CHECK(strstr(out, " 60.0% ") != NULL);        /* Cache hit */
	free(out);
	out = sweep(TABLE_CSV, &s, 0);
	CHECK(strstr(out, ",tokens_estimated,") != NULL);
	CHECK(strstr(out, ",agg_tok_s_min,agg_tok_s_max,agg_tok_s_ci95_lo,") != NULL);
	CHECK(strstr(out, ",p50_ttft_ci95_hi_ms,p90_ttft_ci95_lo_ms,") != NULL);
	CHECK(strstr(out, ",p99_e2e_ci95_lo_ms,p99_e2e_ci95_hi_ms,") != NULL);
	CHECK(strstr(out, ",p90_ttft p95_ttft p99_ttft ") != NULL);   /* few_samples: 8 of them */
	CHECK(strstr(out, " p90_e2e p95_e2e p99_e2e,") != NULL);      /* ... every one */
	free(out);
	out = NULL;
	f = open_memstream(&out, &len);
	summary_print_latency(f, TABLE_TEXT, &s, 1, 1);
	fclose(f);
	/* --intervals: the interval over the repeats beside each percentile */
	CHECK(strstr(out, " {-485.3-785.3}") != NULL);
	CHECK(strstr(out, "{lo-hi}: with --repeat") != NULL);
	free(out);
	f = open_memstream(&notes, &len);
	summary_print_notes(f, TABLE_TEXT, &s, 1);
	fclose(f);
	CHECK(strstr(notes, "estimated tokens: 2 of 8 successful requests") != NULL);
	CHECK(strstr(notes, "tokens per event above 1") != NULL);
	CHECK(strstr(notes, "C=2 n=8") != NULL);
	free(notes);
	for (i = 0; i < 8; i++)
		result_release(&v[i]);
}

/*
 * The P50 TTFA column is there only where TTFA can differ from TTFT: the
 * handmade level first as it is (every answer's first token is answer
 * content: TTFA = TTFT, though ttfa.n is 4), then with seq 1 and 3
 * reasoning 300 ms before answering and the warm-up longer still.
 */
TEST(ttfa_column_only_where_a_request_reasoned)
{
	struct result v[8], one;
	struct level_summary s[2];
	char *out, *notes = NULL;
	size_t n = handmade(v), i, len = 0;
	FILE *f;

	summary_compute(v, n, load_closed(2), NULL, &s[0]);
	CHECK_EQ_INT(s[0].ttfa.n, 4);
	CHECK_EQ_INT(s[0].reasoned, 0);
	CHECK_EQ_INT(summary_groups(s, 1), 0);
	v[0].ttfa_ns = 9000 * MS;   /* a warm-up's reasoning is not measured */
	summary_compute(v, n, load_closed(2), NULL, &s[0]);
	CHECK_EQ_INT(s[0].reasoned, 0);
	v[1].ttfa_ns = 400 * MS;
	v[3].ttfa_ns = 900 * MS;
	summary_compute(v, n, load_closed(4), NULL, &s[1]);
	CHECK_EQ_INT(s[1].reasoned, 2);
	/* one level that reasoned shows the column for both */
	CHECK_EQ_INT(summary_groups(s, 2), SUMMARY_GROUP_TTFA);
	CHECK_EQ_INT(summary_groups(s, 1), 0);
	/* TTFA 400 300 900 200: P50 350; TPOT 100, TTFT P50 250 as before */
	out = sweep(TABLE_MARKDOWN, &s[1], summary_groups(s, 2));
	CHECK(strstr(out, "| Ok | P50 TPOT (ms) | P50 TTFA (ms) | P50 TTFT (ms) |") != NULL);
	CHECK(strstr(out, "| 4 | 100.0 | 350.0 | 250.0 |") != NULL);
	free(out);
	out = sweep(TABLE_TEXT, &s[1], SUMMARY_GROUP_TTFA);
	CHECK(strstr(out, "    Ok  P50 TPOT (ms)  P50 TTFA (ms)  P50 TTFT (ms)  ") != NULL);
	free(out);
	/* CSV and JSON keep their columns: TTFA is among the DIST fields */
	out = sweep(TABLE_CSV, &s[1], SUMMARY_GROUP_TTFA);
	CHECK(strstr(out, "p50_ttfa_ms") != NULL);
	CHECK(strstr(strstr(out, "p50_ttfa_ms") + 1, "p50_ttfa_ms") == NULL);
	free(out);
	for (i = 0; i < n; i++)
		result_release(&v[i]);

	/* A level of one answer of two tokens that reasoned first: every P50
	 * of its row is marked, and the note gives each one's count. */
	ok_result(&one, 0, 0, 0, 100, 300, 2, NULL, 0);
	one.ttfa_ns = 200 * MS;
	summary_compute(&one, 1, load_closed(1), NULL, &s[0]);
	out = sweep(TABLE_MARKDOWN, &s[0], summary_groups(s, 1));
	CHECK(strstr(out, "| 1 | 200.0* | 200.0* | 100.0* |") != NULL);
	free(out);
	f = open_memstream(&notes, &len);
	summary_print_notes(f, TABLE_TEXT, s, 1);
	fclose(f);
	CHECK(strstr(notes, ": C=1 n=1 (TPOT n=1) (TTFA n=1)\n") != NULL);
	free(notes);
	result_release(&one);
}

/* The sample counts a percentile's rank needs. */
TEST(too_few_samples_for_a_rank)
{
	CHECK(stats_too_few(1, 50));
	CHECK(!stats_too_few(2, 50));
	CHECK(stats_too_few(19, 95));
	CHECK(!stats_too_few(20, 95));
	CHECK(stats_too_few(99, 99));
	CHECK(!stats_too_few(100, 99));
	CHECK(!stats_too_few(1, 0));
}

int main(void)
{
	RUN(describe_with_ties_and_small_n);
	RUN(sweep_row_says_where_its_numbers_came_from);
	RUN(too_few_samples_for_a_rank);
	RUN(splitmix64_matches_the_reference);
	RUN(quickselect_agrees_with_sorting);
	RUN(describe_agrees_with_sorting_on_random_data);
	RUN(percentile_intervals_by_order_statistics);
	RUN(welch_interval_matches_a_hand_computation);
	RUN(level_summary_counts_errors_pools_itl_and_describes_each_metric);
	RUN(summary_errors_count_statuses_and_fit_their_buffer);
	RUN(goodput_counts_requests_within_every_slo);
	RUN(repeats_add_their_walls_not_the_gaps_between);
	RUN(open_loop_shows_rates_and_service_latency);
	RUN(unstreamed_requests_count_in_e2e_only);
	RUN(attribution_splits_ttft_and_e2e_by_the_servers_timings);
	RUN(sweep_table_has_the_seed_columns_first_in_every_format);
	RUN(ttfa_column_only_where_a_request_reasoned);
	return harness_done();
}
