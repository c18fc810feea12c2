/*
 * test_session.c - replay's sessions (replay/session.c): records grouped
 * by session in turn order, a session with a missing, repeated or
 * out-of-order turn or a think time out of range refused whole with the
 * line at fault, and a later turn's assistant messages filled with the
 * answers, reasoning left out.
 */
#include "harness.h"
#include "replay/session.h"
#include "lib/trace.h"

#include <stdlib.h>

static char warned[512];
static size_t warned_line;
static int warnings;

static void warn(void *ctx, size_t lineno, const char *why)
{
	(void)ctx;
	warnings++;
	warned_line = lineno;
	snprintf(warned, sizeof(warned), "%s", why);
}

static void reset(void)
{
	warnings = 0;
	warned_line = 0;
	warned[0] = '\0';
}

TEST(records_group_into_sessions_in_turn_order)
{
	/* two sessions interleaved, and one record outside sessions */
	struct session_key k[] = {
		{ 7, 0, 0, 2 }, { 3, 0, 0, 3 }, { 7, 1, 5, 4 }, { -1, -1, 0, 5 }, { 3, 1, 9, 6 },
		{ 7, 2, 0, 7 },
	};
	struct session_set set;

	reset();
	CHECK_EQ_INT(session_set_build(&set, k, 6, warn, NULL), 0);
	CHECK_EQ_INT(warnings, 0);
	CHECK_EQ_INT((long)set.n, 3);
	/* in the order of their first records: 7, 3, the lone one */
	CHECK_EQ_INT(set.s[0].id, 7);
	CHECK_EQ_INT((long)set.s[0].n_turns, 3);
	CHECK_EQ_INT((long)set.turns[set.s[0].first], 0);
	CHECK_EQ_INT((long)set.turns[set.s[0].first + 1], 2);
	CHECK_EQ_INT((long)set.turns[set.s[0].first + 2], 5);
	CHECK_EQ_INT(set.s[1].id, 3);
	CHECK_EQ_INT((long)set.turns[set.s[1].first + 1], 4);
	CHECK_EQ_INT(set.s[2].id, -1);
	CHECK_EQ_INT((long)set.s[2].n_turns, 1);
	session_set_release(&set);
}

TEST(a_missing_turn_skips_that_session_only)
{
	struct session_key k[] = { { 1, 0, 0, 2 }, { 2, 0, 0, 3 }, { 1, 2, 0, 4 }, { 2, 1, 0, 5 } };
	struct session_set set;

	reset();
	CHECK_EQ_INT(session_set_build(&set, k, 4, warn, NULL), 0);
	CHECK_EQ_INT(warnings, 1);
	CHECK_EQ_INT((long)warned_line, 4);
	CHECK(strstr(warned, "session 1: turn 1 missing") != NULL);
	CHECK_EQ_INT((long)set.n, 1);
	CHECK_EQ_INT(set.s[0].id, 2);
	CHECK_EQ_INT((long)set.skipped, 1);
	session_set_release(&set);
}

TEST(turns_out_of_order_or_repeated_skip_the_session)
{
	struct session_key rev[] = { { 4, 1, 0, 2 }, { 4, 0, 0, 3 } };
	struct session_key twice[] = { { 4, 0, 0, 2 }, { 4, 1, 0, 3 }, { 4, 1, 0, 9 } };
	struct session_set set;

	reset();
	CHECK_EQ_INT(session_set_build(&set, rev, 2, warn, NULL), 0);
	CHECK_EQ_INT(warnings, 1);
	CHECK_EQ_INT((long)warned_line, 2);     /* turn 1 came first: turn 0 missing there */
	CHECK_EQ_INT((long)set.n, 0);
	session_set_release(&set);
	reset();
	CHECK_EQ_INT(session_set_build(&set, twice, 3, warn, NULL), 0);
	CHECK_EQ_INT((long)warned_line, 9);
	CHECK(strstr(warned, "session 4: turn 1 twice") != NULL);
	CHECK_EQ_INT((long)set.n, 0);
	session_set_release(&set);
}

TEST(a_think_time_out_of_range_skips_the_session)
{
	struct session_key neg[] = { { 1, 0, 0, 2 }, { 1, 1, -1, 3 }, { 2, 0, 0, 4 } };
	struct session_key absurd[] = { { 1, 0, 0, 2 }, { 1, 1, TRACE_MAX_THINK_NS + 1, 3 } };
	struct session_key day[] = { { 1, 0, 0, 2 }, { 1, 1, TRACE_MAX_THINK_NS, 3 } };
	struct session_set set;

	reset();
	CHECK_EQ_INT(session_set_build(&set, neg, 3, warn, NULL), 0);
	CHECK_EQ_INT((long)warned_line, 3);
	CHECK(strstr(warned, "think time of -1 ns") != NULL);
	CHECK_EQ_INT((long)set.n, 1);
	session_set_release(&set);
	reset();
	CHECK_EQ_INT(session_set_build(&set, absurd, 2, warn, NULL), 0);
	CHECK_EQ_INT(warnings, 1);
	CHECK_EQ_INT((long)set.n, 0);
	session_set_release(&set);
	reset();
	CHECK_EQ_INT(session_set_build(&set, day, 2, warn, NULL), 0);
	CHECK_EQ_INT(warnings, 0);
	CHECK_EQ_INT((long)set.n, 1);
	session_set_release(&set);
}

/* The filled body (static, overwritten by the next call), or "(as is)". */
static const char *fill(const char *body, char *const *answers, size_t n)
{
	static char last[2048];
	char *out = NULL;
	size_t len = 0;
	int rc = session_fill_body(body, strlen(body), answers, n, &out, &len);

	if (rc == SESSION_ASIS)
		return "(as is)";
	if (rc != SESSION_FILLED)
		return "(failed)";
	snprintf(last, sizeof(last), "%s", strlen(out) == len ? out : "(bad length)");
	free(out);
	return last;
}

TEST(the_last_assistant_messages_get_the_answers)
{
	/* a few-shot example first: only the last two assistant messages are turns */
	const char *body = "{\"model\":\"m\",\"messages\":["
		"{\"role\":\"user\",\"content\":\"ex\"},{\"role\":\"assistant\",\"content\":\"shot\"},"
		"{\"role\":\"user\",\"content\":\"u0\"},"
		"{\"role\":\"assistant\",\"content\":\"a0\",\"reasoning_content\":\"hmm\"},"
		"{\"role\":\"user\",\"content\":\"u1\"},{\"role\":\"assistant\",\"content\":null},"
		"{\"role\":\"user\",\"content\":\"u2\"}],\"stream\":true}";
	char *answers[] = { (char *)"real zero", (char *)"real \"one\"" };

	CHECK_STR(fill(body, answers, 2), "{\"model\":\"m\",\"messages\":["
		"{\"role\":\"user\",\"content\":\"ex\"},{\"role\":\"assistant\",\"content\":\"shot\"},"
		"{\"role\":\"user\",\"content\":\"u0\"},{\"role\":\"assistant\",\"content\":\"real zero\"},"
		"{\"role\":\"user\",\"content\":\"u1\"},"
		"{\"role\":\"assistant\",\"content\":\"real \\\"one\\\"\"},"
		"{\"role\":\"user\",\"content\":\"u2\"}],\"stream\":true}");
}

TEST(a_body_without_the_placeholders_goes_as_recorded)
{
	char *answers[] = { (char *)"x", (char *)"y" };

	CHECK_STR(fill("{\"prompt\":\"a b c\"}", answers, 1), "(as is)");
	CHECK_STR(fill("not json", answers, 1), "(as is)");
	CHECK_STR(fill("{\"messages\":[{\"role\":\"assistant\",\"content\":\"a\"},"
			  "{\"role\":\"user\",\"content\":\"u\"}]}", answers, 2), "(as is)");
	CHECK_STR(fill("{\"messages\":[{\"role\":\"user\",\"content\":\"u\"}]}", answers, 0),
		     "(as is)");
	/* an assistant message without content gets one */
	CHECK_STR(fill("{\"messages\":[{\"role\":\"assistant\"}]}", answers, 1),
		     "{\"messages\":[{\"role\":\"assistant\",\"content\":\"x\"}]}");
}

int main(void)
{
	RUN(records_group_into_sessions_in_turn_order);
	RUN(a_missing_turn_skips_that_session_only);
	RUN(turns_out_of_order_or_repeated_skip_the_session);
	RUN(a_think_time_out_of_range_skips_the_session);
	RUN(the_last_assistant_messages_get_the_answers);
	RUN(a_body_without_the_placeholders_goes_as_recorded);
	return harness_done();
}
