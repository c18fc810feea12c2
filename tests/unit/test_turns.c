/*
 * test_turns.c - the figures of a replay of sessions (lib/turns.c): first
 * turns apart from later ones, instances of one session told apart, a
 * session ended by a failed turn, the cached share by turn.
 */
#include "harness.h"
#include "lib/turns.h"

#include <stdlib.h>

#define MS 1000000LL

/* A successful turn sent at sched ms, TTFT ttft ms, E2E e2e ms. */
static void turn(struct result *r, long seq, long session, long t, int64_t sched, int64_t ttft,
		 int64_t e2e, int64_t in, int64_t cached)
{
	result_init(r);
	r->level = 1;
	r->seq = seq;
	r->session = session;
	r->turn = t;
	r->sched_ns = r->send_ns = sched * MS;
	r->ttft_ns = r->ttfa_ns = ttft * MS;
	r->e2e_ns = e2e * MS;
	r->input_tokens = in;
	r->output_tokens = 10;
	r->cached_tokens = cached;
}

TEST(first_and_later_turns_apart)
{
	struct result r[7];
	struct turns_summary ts;
	size_t i;

	/* session 5 twice (two instances), session 6 once, failed at turn 1 */
	turn(&r[0], 0, 5, 0, 0, 100, 200, 100, 0);
	turn(&r[1], 1, 6, 0, 0, 120, 220, 100, 0);
	turn(&r[2], 2, 5, 1, 300, 40, 140, 300, 100);
	turn(&r[3], 3, 6, 1, 320, 40, 140, 300, 100);
	result_set_error(&r[3], RESULT_ERR_HTTP, "HTTP 500");
	turn(&r[4], 4, 5, 0, 1000, 100, 200, 100, 100);
	turn(&r[5], 5, 5, 1, 1300, 60, 160, 300, 200);
	turn(&r[6], 6, 5, 2, 1600, 50, 150, 500, 400);
	CHECK_EQ_INT(turns_compute(r, 7, &ts), 0);
	CHECK_EQ_INT((long)ts.sessions, 3);
	CHECK_EQ_INT((long)ts.ended_by_error, 1);
	CHECK_NEAR(ts.turns_mean, 7.0 / 3, 1e-9);
	CHECK_NEAR(ts.duration_p50_s, 0.46, 1e-9);     /* of 0.44, 0.46, 0.75 s */
	CHECK_NEAR(ts.output_tokens_mean, 70.0 / 3, 1e-9);
	CHECK_NEAR(ts.context_mean, 1100.0 / 3, 1e-9);
	CHECK_EQ_INT((long)ts.first.n, 3);
	CHECK_NEAR(ts.first.ttft_p50, 100, 1e-9);
	CHECK_EQ_INT((long)ts.later.n, 3);             /* the failed one left out */
	CHECK_NEAR(ts.later.ttft_p50, 50, 1e-9);
	CHECK_NEAR(ts.later.cached_share, 700.0 / 1100, 1e-9);
	CHECK_EQ_INT((long)ts.max_turn, 3);
	CHECK_NEAR(ts.cached_share[0], 100.0 / 300, 1e-9);
	CHECK_NEAR(ts.cached_share[1], 300.0 / 600, 1e-9);
	CHECK_NEAR(ts.cached_share[2], 0.8, 1e-9);
	for (i = 0; i < 7; i++)
		result_release(&r[i]);
}

TEST(results_without_sessions_have_none)
{
	struct result r[2];
	struct turns_summary ts;

	turn(&r[0], 0, -1, -1, 0, 10, 20, 5, -1);
	turn(&r[1], 1, 3, 0, 0, 10, 20, 5, -1);
	r[1].warmup = true;
	CHECK_EQ_INT(turns_compute(r, 2, &ts), 0);
	CHECK_EQ_INT((long)ts.sessions, 0);
	CHECK(isnan(ts.cached_share[0]));
	result_release(&r[0]);
	result_release(&r[1]);
}

int main(void)
{
	RUN(first_and_later_turns_apart);
	RUN(results_without_sessions_have_none);
	return harness_done();
}
