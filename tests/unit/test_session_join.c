/*
 * test_session_join.c - record proxy's sessions by header
 * (record/session_join.c): a value's requests are the turns of one
 * session, numbered in the order they end, which is the order the proxy
 * writes them, so that replay (replay/session.c) takes the session whole
 * even when a client sent a turn before the one before it had ended; the
 * think time since the turn before ended; a session idle past a day
 * starts anew; requests without the header or not for inference are in
 * none.
 */
#include "harness.h"
#include "record/session_join.h"
#include "replay/session.h"
#include "lib/trace.h"

#include <event2/http.h>

#define HEADER "X-Session-ID"

/* A chat request arriving at 'at' with the header's value v (NULL: none). */
static void arrive(struct session_join *j, const char *v, int64_t at, struct trace_request *t,
		   struct session_turn *turn)
{
	struct evhttp_request *req = evhttp_request_new(NULL, NULL);

	trace_request_init(t);
	t->kind = TRACE_KIND_CHAT;
	if (v)
		evhttp_add_header(evhttp_request_get_input_headers(req), HEADER, v);
	CHECK_EQ_INT(session_join(j, evhttp_request_get_input_headers(req), t, at, turn), 0);
	evhttp_request_free(req);
}

static void key_of(struct session_key *k, const struct trace_request *t, size_t lineno)
{
	k->session = t->session;
	k->turn = t->turn;
	k->think_ns = t->think_ns;
	k->lineno = lineno;
}

/* replay's warning for a session it refuses: said, and then checked */
static void refused(void *ctx, size_t lineno, const char *why)
{
	(void)ctx;
	printf("  replay refuses line %zu: %s\n", lineno, why);
}

TEST(a_turn_that_ends_before_the_one_before_is_written_as_the_earlier_turn)
{
	struct session_join j;
	struct trace_request a, b, c;
	struct session_turn ta, tb, tc;
	struct session_key keys[3];
	struct session_set set;

	CHECK_EQ_INT(session_join_init(&j, HEADER, 0), 0);
	arrive(&j, "agent-7", 100, &a, &ta);
	arrive(&j, "agent-7", 200, &b, &tb);    /* while a streams */
	CHECK_EQ_INT(b.session, a.session);
	CHECK_EQ_INT(b.think_ns, 0);
	/* b ends first: the proxy writes it first, as turn 0 */
	session_join_end(&tb, &b, 300);
	key_of(&keys[0], &b, 2);
	session_join_end(&ta, &a, 1000);
	key_of(&keys[1], &a, 3);
	CHECK_EQ_INT(b.turn, 0);
	CHECK_EQ_INT(a.turn, 1);
	/* then a turn after a pause: the think time since a ended */
	arrive(&j, "agent-7", 1600, &c, &tc);
	CHECK_EQ_INT(c.think_ns, 600);
	session_join_end(&tc, &c, 2000);
	key_of(&keys[2], &c, 4);
	CHECK_EQ_INT(c.session, a.session);
	CHECK_EQ_INT(c.turn, 2);
	/* replay takes the session, as written, whole (it skipped it before:
	 * turn 1 came before turn 0) */
	CHECK_EQ_INT(session_set_build(&set, keys, 3, refused, NULL), 0);
	CHECK_EQ_INT((long)set.skipped, 0);
	CHECK_EQ_INT((long)set.n, 1);
	session_set_release(&set);
	trace_request_release(&a);
	trace_request_release(&b);
	trace_request_release(&c);
	session_join_release(&j);
}

TEST(values_idle_sessions_and_requests_in_none)
{
	struct session_join j;
	struct trace_request a, b, none, other, later;
	struct session_turn ta, tb, tn, to, tl;

	CHECK_EQ_INT(session_join_init(&j, HEADER, 0), 0);
	arrive(&j, "a", 0, &a, &ta);
	arrive(&j, "b", 10, &b, &tb);
	CHECK_EQ_INT(a.session, 0);
	CHECK_EQ_INT(b.session, 1);
	arrive(&j, NULL, 20, &none, &tn);
	CHECK_EQ_INT(none.session, -1);
	CHECK_EQ_INT(none.turn, -1);
	/* a models list with the header is no turn */
	trace_request_init(&other);
	other.kind = TRACE_KIND_OTHER;
	{
		struct evhttp_request *req = evhttp_request_new(NULL, NULL);

		evhttp_add_header(evhttp_request_get_input_headers(req), HEADER, "a");
		CHECK_EQ_INT(session_join(&j, evhttp_request_get_input_headers(req), &other, 30,
					  &to), 0);
		evhttp_request_free(req);
	}
	CHECK_EQ_INT(other.session, -1);
	session_join_end(&ta, &a, 100);
	session_join_end(&tb, &b, 100);
	session_join_end(&tn, &none, 100);
	session_join_end(&to, &other, 100);
	CHECK_EQ_INT(a.turn, 0);
	CHECK_EQ_INT(none.turn, -1);
	CHECK_EQ_INT(other.turn, -1);
	/* "a" again after more than a day: a new session, turn 0 */
	arrive(&j, "a", 100 + TRACE_MAX_THINK_NS + 1, &later, &tl);
	CHECK_EQ_INT(later.session, 2);
	CHECK_EQ_INT(later.think_ns, 0);
	session_join_end(&tl, &later, 200 + TRACE_MAX_THINK_NS);
	CHECK_EQ_INT(later.turn, 0);
	trace_request_release(&a);
	trace_request_release(&b);
	trace_request_release(&none);
	trace_request_release(&other);
	trace_request_release(&later);
	session_join_release(&j);
}

int main(void)
{
	RUN(a_turn_that_ends_before_the_one_before_is_written_as_the_earlier_turn);
	RUN(values_idle_sessions_and_requests_in_none);
	return harness_done();
}
