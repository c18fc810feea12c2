/*
 * test_chain.c - sessions by the conversation-prefix relation (lib/chain.c):
 * a request continuing a session's latest turn is its next turn with the
 * think time since that turn ended; a second continuation of one turn (a
 * branch), a request continuing nothing, or one after a day idle starts a
 * session; the session cap.
 */
#include "harness.h"
#include "lib/chain.h"
#include "lib/trace.h"

#include <stdint.h>

/* The key of a prefix, written as words ("u0 a0 u1": user, answer, user). */
static uint64_t key(const char *words)
{
	return chain_hash(CHAIN_HASH_INIT, words, strlen(words));
}

TEST(a_continuation_is_the_next_turn_with_its_think_time)
{
	struct chain_table t;
	struct chain_turn a, b, c, d;

	CHECK_EQ_INT(chain_init(&t), 0);
	CHECK_EQ_INT(chain_join(&t, 0, key("u0"), 100, &a), 0);
	CHECK_EQ_INT(a.session, 0);
	CHECK_EQ_INT(a.turn, 0);
	CHECK_EQ_INT(a.think_ns, 0);
	CHECK_EQ_INT(chain_join(&t, 0, key("v0"), 110, &b), 0);   /* another, interleaved */
	CHECK_EQ_INT(b.session, 1);
	chain_end(a.link, 500);
	CHECK_EQ_INT(chain_join(&t, key("u0"), key("u0 a0 u1"), 800, &c), 0);
	CHECK_EQ_INT(c.session, 0);
	CHECK_EQ_INT(c.turn, 1);
	CHECK_EQ_INT(c.think_ns, 300);
	CHECK(chain_find(&t, key("u0")) == NULL);     /* the link moved on */
	CHECK(chain_find(&t, key("u0 a0 u1")) == c.link);
	/* a branch: turn 0 continued a second time starts a session */
	CHECK_EQ_INT(chain_join(&t, key("u0"), key("u0 a0 u1'"), 900, &d), 0);
	CHECK_EQ_INT(d.session, 2);
	CHECK_EQ_INT(d.turn, 0);
	/* a continuation while the turn before is in flight: think time 0 */
	CHECK_EQ_INT(chain_join(&t, key("u0 a0 u1"), key("u0 a0 u1 a1 u2"), 1000, &d), 0);
	CHECK_EQ_INT(d.session, 0);
	CHECK_EQ_INT(d.turn, 2);
	CHECK_EQ_INT(d.think_ns, 0);
	chain_release(&t);
}

TEST(a_day_idle_starts_anew)
{
	struct chain_table t;
	struct chain_turn a, b;

	CHECK_EQ_INT(chain_init(&t), 0);
	chain_join(&t, 0, key("u0"), 0, &a);
	chain_end(a.link, 10);
	CHECK_EQ_INT(chain_join(&t, key("u0"), key("u0 a0 u1"), 10 + TRACE_MAX_THINK_NS + 1, &b), 0);
	CHECK_EQ_INT(b.session, 1);
	CHECK_EQ_INT(b.turn, 0);
	chain_release(&t);
	CHECK_EQ_INT(chain_init(&t), 0);
	chain_join(&t, 0, key("u0"), 0, &a);
	chain_end(a.link, 10);
	CHECK_EQ_INT(chain_join(&t, key("u0"), key("u0 a0 u1"), 10 + TRACE_MAX_THINK_NS, &b), 0);
	CHECK_EQ_INT(b.turn, 1);
	CHECK_EQ_INT(b.think_ns, TRACE_MAX_THINK_NS);
	chain_release(&t);
}

TEST(past_the_session_cap_requests_are_in_none)
{
	struct chain_table t;
	struct chain_turn a;
	long i;
	int rc = 0;

	CHECK_EQ_INT(chain_init(&t), 0);
	for (i = 0; i < CHAIN_MAX_SESSIONS; i++)
		rc |= chain_join(&t, 0, (uint64_t)i + 1, 0, &a);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(chain_join(&t, 0, 0xfeed, 0, &a), 1);
	/* an existing session still takes turns */
	CHECK_EQ_INT(chain_join(&t, 7, 0xbeef, 1, &a), 0);
	CHECK_EQ_INT(a.session, 6);
	CHECK_EQ_INT(a.turn, 1);
	chain_release(&t);
}

int main(void)
{
	RUN(a_continuation_is_the_next_turn_with_its_think_time);
	RUN(a_day_idle_starts_anew);
	RUN(past_the_session_cap_requests_are_in_none);
	return harness_done();
}
