/*
 * test_clientbound.c - the bound on the client's own error
 * (lib/clientbound.c): its quantiles and sums from known delays, the
 * transport and the doubled gap, the judge's rule and its words, the
 * Prometheus text read back, and the worst of several records.
 */
#include "tests/unit/harness.h"
#include "lib/clientbound.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* 101 requests whose issue delays are 0, 10, ... 1000 µs and whose read
 * delays are all 50 µs, one unknown of each, and 201 probes of 0 .. 200 µs
 * late, the loop's part of each half of it but one unknown: every quantile
 * is a round number. */
static void watched(struct clientbound_watch *w)
{
	double issue[102], read[102], tmp[102], lag[201], loop[201];
	size_t i;

	for (i = 0; i <= 100; i++) {
		issue[i] = (double)i * 10e3;
		read[i] = 50e3;
	}
	issue[101] = -1;        /* unknown: left out of the issue's and the sum's */
	read[101] = 70e3;
	for (i = 0; i < 201; i++) {
		lag[i] = (double)(200 - i);
		loop[i] = lag[i] / 2;
	}
	loop[200] = -1;         /* unknown: left out of the loop's */
	clientbound_watch_init(w);
	clientbound_observe(w, issue, read, 102, tmp, lag, loop, 201);
}

TEST(quantiles_of_known_delays)
{
	struct clientbound_watch w;

	watched(&w);
	CHECK_NEAR(w.issue_p50, 500e-6, 1e-12);
	CHECK_NEAR(w.issue_p99, 990e-6, 1e-12);
	CHECK_NEAR(w.sum_p50, 550e-6, 1e-12);
	CHECK_NEAR(w.sum_p99, 1040e-6, 1e-12);
	/* 101 of 50 µs and one of 70 µs */
	CHECK_NEAR(w.read_p50, 50e-6, 1e-12);
	CHECK_NEAR(w.lag_p50, 100e-6, 1e-12);
	CHECK_NEAR(w.lag_p99, 198e-6, 1e-12);
	/* 200 of 0.5 .. 100 µs */
	CHECK_NEAR(w.loop_p50, 50.25e-6, 1e-12);
	CHECK_NEAR(w.loop_p99, 99.005e-6, 1e-12);
	CHECK(isnan(w.thread_busy));
}

TEST(the_bound_adds_the_parts)
{
	struct clientbound_watch w;
	struct clientbound b;

	watched(&w);
	w.transport = 300e-6;
	clientbound_compute(&w, &b);
	CHECK_NEAR(b.own_ttft_p50, 550e-6 + 100e-6, 1e-12);
	CHECK_NEAR(b.own_ttft_p99, 1040e-6 + 198e-6, 1e-12);
	CHECK_NEAR(b.ttft_p50, 550e-6 + 100e-6 + 300e-6, 1e-12);
	CHECK_NEAR(b.ttft_p99, 1040e-6 + 198e-6 + 300e-6, 1e-12);
	/* a record without token reads (written before them): a gap is two
	 * stamps, twice the first token's read delay, and the lag */
	CHECK_NEAR(b.gap_p50, 2 * 50e-6 + 100e-6, 1e-12);
	/* with them: the larger of two stamps' delays, their P70.7 for the
	 * gaps' P50 and P99.5 for their P99, and the lag at the gaps' own */
	w.gapread_p50 = 80e-6;
	w.gapread_p99 = 900e-6;
	clientbound_compute(&w, &b);
	CHECK_NEAR(b.gap_p50, 80e-6 + 100e-6, 1e-12);
	CHECK_NEAR(b.gap_p99, 900e-6 + 198e-6, 1e-12);
	/* the thread's wait to run read: the client's own part counts the
	 * loop's part of the lateness, the rest (the host's wake-up of the
	 * thread for the timer) stays in the bound; not read (or not known, a
	 * record before it), the own part counts the whole lateness */
	w.run_wait_unread = 0;
	clientbound_compute(&w, &b);
	CHECK_NEAR(b.own_ttft_p50, 550e-6 + 50.25e-6, 1e-12);
	CHECK_NEAR(b.own_ttft_p99, 1040e-6 + 99.005e-6, 1e-12);
	CHECK_NEAR(b.ttft_p99, 1040e-6 + 198e-6 + 300e-6, 1e-12);
	CHECK_NEAR(b.gap_p99, 900e-6 + 198e-6, 1e-12);
	w.run_wait_unread = 1;
	clientbound_compute(&w, &b);
	CHECK_NEAR(b.own_ttft_p99, 1040e-6 + 198e-6, 1e-12);
	w.run_wait_unread = NAN;
	/* no transport known: the client's own part alone */
	w.transport = NAN;
	clientbound_compute(&w, &b);
	CHECK_NEAR(b.ttft_p50, b.own_ttft_p50, 1e-15);
	/* nothing watched: no bound */
	clientbound_watch_init(&w);
	clientbound_compute(&w, &b);
	CHECK(isnan(b.ttft_p50) && isnan(b.gap_p99));
}

/* 1,000 delays of 1 .. 1000 µs: each quantile read from the histogram is
 * the upper edge of its bin, never below the true one and at most an
 * eighth above it. */
TEST(histogram_quantiles_bound_the_true_ones)
{
	struct clientbound_hist h;
	struct clientbound_watch w;
	static const double q[] = { 1, 50, 75, 99, 100 };
	size_t i;

	memset(&h, 0, sizeof(h));
	CHECK(isnan(clientbound_hist_percentile(&h, 50)));
	for (i = 1; i <= 1000; i++)
		clientbound_hist_add(&h, (int64_t)i * 1000);
	CHECK_EQ_INT((long)h.n, 1000);
	for (i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		double truth = ceil(q[i] * 10) * 1e-6;  /* the nearest rank's */
		double got = clientbound_hist_percentile(&h, q[i]);

		CHECK(got >= truth && got <= truth * 1.125 + 1e-9);
	}
	/* the smallest and the largest, and a negative one counted as 0 */
	memset(&h, 0, sizeof(h));
	clientbound_hist_add(&h, -5);
	CHECK_NEAR(clientbound_hist_percentile(&h, 100), 1e-9, 1e-15);
	clientbound_hist_add(&h, INT64_MAX);
	CHECK(clientbound_hist_percentile(&h, 100) >= (double)INT64_MAX / 1e9);
	/* into the watch: P50, P99 and the gaps' P70.7 and P99.5 */
	memset(&h, 0, sizeof(h));
	for (i = 1; i <= 1000; i++)
		clientbound_hist_add(&h, (int64_t)i * 1000);
	clientbound_watch_init(&w);
	clientbound_observe_tokens(&w, &h);
	CHECK(w.tokread_p50 >= 500e-6 && w.tokread_p50 <= 500e-6 * 1.125);
	CHECK(w.gapread_p50 >= 708e-6 && w.gapread_p50 <= 708e-6 * 1.125);
	CHECK(w.gapread_p99 >= 995e-6 && w.gapread_p99 <= 995e-6 * 1.125);
}

TEST(judged_against_five_percent_of_the_ttft)
{
	struct clientbound_watch w;
	struct clientbound b;
	struct clientbound_level lv = { 0.050, 0.060, 0.10, 0.0 };
	char why[200];

	clientbound_watch_init(&w);
	w.issue_p50 = w.read_p50 = 0.0001;
	w.sum_p50 = 0.0002;
	w.lag_p50 = 0.0001;
	w.issue_p99 = 0.0002;
	w.read_p99 = 0.0003;
	w.sum_p99 = 0.0005;
	w.lag_p99 = 0.0030;         /* 3.5 ms in all: 5.8% of 60 ms */
	w.thread_busy = 0.2;
	clientbound_compute(&w, &b);
	CHECK_EQ_INT(clientbound_judge(&b, &w, &lv, 0.05, why, sizeof(why)), 1);
	CHECK_STR(why, "client's own 3.50 ms = 5.8% of TTFT P99 60.00 ms: "
		  "timers 3.00 ms late (P99)");
	/* the same under a looser rule: not limited, and why says the share */
	CHECK_EQ_INT(clientbound_judge(&b, &w, &lv, 0.10, why, sizeof(why)), 0);
	CHECK(strstr(why, "5.8% of TTFT P99") != NULL);
	/* the conditions around it, in words */
	w.thread_busy = 0.97;
	lv.host_busy = 0.98;
	lv.host_steal = 0.14;
	CHECK_EQ_INT(clientbound_judge(&b, &w, &lv, 0.05, why, sizeof(why)), 1);
	CHECK(strstr(why, "; measuring thread 97% busy; host CPUs 98% busy; steal 14%") != NULL);
	/* the issue delay named when it is the largest part */
	w.issue_p99 = 0.004;
	w.sum_p99 = 0.0043;
	w.lag_p99 = 0.0001;
	clientbound_compute(&w, &b);
	CHECK_EQ_INT(clientbound_judge(&b, &w, &lv, 0.05, why, sizeof(why)), 1);
	CHECK(strstr(why, "requests 4.00 ms from due to written (P99)") != NULL);
	/* the wait to run read: the loop's part of the timers' lateness is
	 * counted and named */
	w.issue_p99 = 0.0002;
	w.sum_p99 = 0.0005;
	w.lag_p99 = 0.0030;
	w.loop_p50 = 0.0001;
	w.loop_p99 = 0.0028;
	w.run_wait_unread = 0;
	clientbound_compute(&w, &b);
	CHECK_EQ_INT(clientbound_judge(&b, &w, &lv, 0.05, why, sizeof(why)), 1);
	CHECK(strstr(why, "client's own 3.30 ms = 5.5% of TTFT P99 60.00 ms: "
		      "the loop 2.80 ms late (P99)") != NULL);
	/* ... and a late timer the loop does not account for marks nothing */
	w.loop_p99 = 0.0001;
	clientbound_compute(&w, &b);
	CHECK_EQ_INT(clientbound_judge(&b, &w, &lv, 0.05, why, sizeof(why)), 0);
	/* the transport is not the client's doing: it marks nothing */
	clientbound_watch_init(&w);
	w.sum_p50 = w.sum_p99 = w.lag_p50 = w.lag_p99 = 0.0001;
	w.transport = 0.02;
	clientbound_compute(&w, &b);
	CHECK_EQ_INT(clientbound_judge(&b, &w, &lv, 0.05, why, sizeof(why)), 0);
	/* a short buffer is cut, not overrun */
	w.transport = NAN;
	w.lag_p99 = 0.01;
	clientbound_compute(&w, &b);
	CHECK_EQ_INT(clientbound_judge(&b, &w, &lv, 0.05, why, 12), 1);
	CHECK_EQ_INT((long)strlen(why), 11);
	/* nothing to judge: no bound, or no TTFT */
	clientbound_watch_init(&w);
	clientbound_compute(&w, &b);
	CHECK_EQ_INT(clientbound_judge(&b, &w, &lv, 0.05, why, sizeof(why)), -1);
	CHECK_STR(why, "");
}

TEST(text_read_back_and_the_worst_of_two)
{
	struct clientbound_watch w, r, r2;
	struct clientbound b, rb, rb2;
	char text[CLIENTBOUND_TEXT_MAX], *line, *save = NULL;
	int n, taken = 0;

	watched(&w);
	w.thread_busy = 0.25;
	w.transport = 300e-6;
	clientbound_compute(&w, &b);
	n = clientbound_format(&w, &b, text, sizeof(text));
	CHECK(n > 0 && (size_t)n == strlen(text));
	CHECK(strstr(text, "tracebench_client_bound_ttft_p99_seconds 0.001538\n") != NULL);
	CHECK(strstr(text, "tracebench_client_thread_busy_ratio 0.25\n") != NULL);
	CHECK_EQ_INT(clientbound_format(&w, &b, text, 40), -1);
	CHECK(clientbound_format(&w, &b, text, sizeof(text)) == n);
	clientbound_watch_init(&r);
	clientbound_init(&rb);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');

		*sp = '\0';
		taken += clientbound_take(line, strtod(sp + 1, NULL), &r, &rb);
	}
	CHECK_EQ_INT(taken, 18);
	CHECK_NEAR(rb.ttft_p99, b.ttft_p99, 1e-12);
	CHECK_NEAR(r.transport, w.transport, 1e-12);
	CHECK_NEAR(r.lag_p50, w.lag_p50, 1e-12);
	CHECK_NEAR(r.loop_p99, w.loop_p99, 1e-12);
	CHECK_EQ_INT(clientbound_take("node_load1", 1, &r, &rb), 0);
	/* a hostile value is not believed */
	CHECK_EQ_INT(clientbound_take("tracebench_client_issue_p50_seconds", -1, &r, &rb), 1);
	CHECK(isnan(r.issue_p50));
	CHECK_EQ_INT(clientbound_take("tracebench_client_issue_p99_seconds", INFINITY, &r, &rb), 1);
	CHECK(isnan(r.issue_p99));
	/* the worst of two records, a NaN giving way */
	clientbound_watch_init(&r2);
	clientbound_init(&rb2);
	r2.issue_p50 = 0.5;
	r2.lag_p99 = 1e-9;
	rb2.ttft_p99 = 1.0;
	clientbound_merge_max(&r, &rb, &r2, &rb2);
	CHECK_NEAR(r.issue_p50, 0.5, 0);
	CHECK_NEAR(r.lag_p99, w.lag_p99, 1e-12);
	CHECK_NEAR(rb.ttft_p99, 1.0, 0);
	CHECK_NEAR(rb.gap_p50, b.gap_p50, 1e-12);
}

int main(void)
{
	RUN(quantiles_of_known_delays);
	RUN(the_bound_adds_the_parts);
	RUN(histogram_quantiles_bound_the_true_ones);
	RUN(judged_against_five_percent_of_the_ttft);
	RUN(text_read_back_and_the_worst_of_two);
	return harness_done();
}
