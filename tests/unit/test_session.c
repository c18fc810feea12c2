/*
 * test_session.c - replay's sessions (replay/session.c): records grouped
 * by session in turn order, a session with a missing, repeated or
 * out-of-order turn or a think time out of range refused whole with the
 * line at fault, and a later turn's assistant messages filled with the
 * answers, reasoning left out, the tool calls and ids the server gave put
 * in place of the recorded ones; a server's tool calls under caps.
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
static const char *fill_calls(const char *body, const struct meter_answer *answers, size_t n)
{
	static char last[4096];
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

/* fill_calls with text answers alone. */
static const char *fill(const char *body, char *const *texts, size_t n)
{
	struct meter_answer a[4];
	size_t i;

	memset(a, 0, sizeof(a));
	for (i = 0; i < n && i < 4; i++)
		a[i].content = texts[i];
	return fill_calls(body, a, n);
}

/* answer a with the calls that the streamed deltas 'json' (a JSON array of
 * tool_calls arrays, one per chunk) assemble. */
static void stream_calls(struct meter_answer *a, const char *json)
{
	cJSON *chunks = cJSON_Parse(json), *c;
	const char *why;

	toolcalls_init(&a->calls, 1 << 20);
	cJSON_ArrayForEach(c, chunks)
		CHECK_EQ_INT(toolcalls_feed(&a->calls, c, &why), TOOLCALLS_OK);
	cJSON_Delete(chunks);
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

/* Anthropic's Messages bodies are chat's shape (content blocks become the
 * answer's text); a Responses body's history is its input items. */
TEST(messages_and_responses_histories_get_the_answers)
{
	char *answers[] = { (char *)"real zero" };

	CHECK_STR(fill("{\"system\":\"s\",\"max_tokens\":8,\"messages\":["
		       "{\"role\":\"user\",\"content\":\"u0\"},{\"role\":\"assistant\",\"content\":"
		       "[{\"type\":\"text\",\"text\":\"old\"}]},{\"role\":\"user\",\"content\":\"u1\"}]}",
		       answers, 1),
		  "{\"system\":\"s\",\"max_tokens\":8,\"messages\":["
		  "{\"role\":\"user\",\"content\":\"u0\"},{\"role\":\"assistant\",\"content\":"
		  "\"real zero\"},{\"role\":\"user\",\"content\":\"u1\"}]}");
	CHECK_STR(fill("{\"input\":[{\"role\":\"user\",\"content\":\"u0\"},"
		       "{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"old\"},"
		       "{\"role\":\"user\",\"content\":\"u1\"}],\"stream\":true}", answers, 1),
		  "{\"input\":[{\"role\":\"user\",\"content\":\"u0\"},"
		  "{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"real zero\"},"
		  "{\"role\":\"user\",\"content\":\"u1\"}],\"stream\":true}");
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

TEST(member_names_in_another_case_are_other_members)
{
	char *answers[] = { (char *)"x" };

	/* JSON names are case-sensitive: a placeholder's "Content" is not its
	 * content, which it gets beside it (fuzz finding: replay failed the
	 * turn as "out of memory filling the history") */
	CHECK_STR(fill("{\"messages\":[{\"role\":\"assistant\",\"Content\":\"a\"}]}", answers, 1),
		     "{\"messages\":[{\"role\":\"assistant\",\"Content\":\"a\",\"content\":\"x\"}]}");
}

TEST(a_member_named_twice_is_filled_once)
{
	char *answers[] = { (char *)"x" };

	/* a server reads the last of two equal names, the fill set the first:
	 * the recorded text and reasoning went on to the server (fuzz finding) */
	CHECK_STR(fill("{\"messages\":[{\"role\":\"assistant\",\"content\":\"a\",\"reasoning\":\"r\","
		       "\"content\":\"b\",\"reasoning\":\"s\"}]}", answers, 1),
		  "{\"messages\":[{\"role\":\"assistant\",\"content\":\"x\"}]}");
}

TEST(a_tool_call_round_trip_gets_the_servers_calls_and_ids)
{
	/* turn 2 of an agent run: turn 0 called two tools (recorded ids r1, r2),
	 * their results came back as tool messages, turn 1 called one more (r1
	 * again: a server that numbers per answer) and its result ends the body */
	const char *body = "{\"messages\":["
		"{\"role\":\"user\",\"content\":\"u0\"},"
		"{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
		"{\"id\":\"r1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}},"
		"{\"id\":\"r2\",\"type\":\"function\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]},"
		"{\"role\":\"tool\",\"tool_call_id\":\"r2\",\"content\":\"out2\"},"
		"{\"role\":\"tool\",\"tool_call_id\":\"r1\",\"content\":\"out1\"},"
		"{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":["
		"{\"id\":\"r1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]},"
		"{\"role\":\"tool\",\"tool_call_id\":\"r1\",\"content\":\"out3\"}]}";
	struct meter_answer a[2];

	memset(a, 0, sizeof(a));
	/* llama.cpp's shape: id and name first, then the arguments in pieces;
	 * the live ids swap the recorded ones (L2 for r1, r1 for r2) */
	stream_calls(&a[0], "[[{\"index\":0,\"id\":\"L2\",\"type\":\"function\","
		     "\"function\":{\"name\":\"find\",\"arguments\":\"\"}}],"
		     "[{\"index\":0,\"function\":{\"arguments\":\"{\\\"q\\\":\"}}],"
		     "[{\"index\":1,\"id\":\"r1\",\"function\":{\"name\":\"open\"}}],"
		     "[{\"index\":0,\"function\":{\"arguments\":\"1}\"}},"
		     "{\"index\":1,\"function\":{\"arguments\":\"[]\"}}]]");
	a[1].content = (char *)"let me look";
	stream_calls(&a[1], "[[{\"index\":0,\"id\":\"L3\",\"function\":{\"name\":\"f\","
		     "\"arguments\":\"{\\\"x\\\":2}\"}},{\"index\":1,\"id\":\"extra\"}]]");
	CHECK_STR(fill_calls(body, a, 2), "{\"messages\":["
		"{\"role\":\"user\",\"content\":\"u0\"},"
		"{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
		"{\"id\":\"L2\",\"type\":\"function\",\"function\":{\"name\":\"find\",\"arguments\":\"{\\\"q\\\":1}\"}},"
		"{\"id\":\"r1\",\"type\":\"function\",\"function\":{\"name\":\"open\",\"arguments\":\"[]\"}}]},"
		"{\"role\":\"tool\",\"tool_call_id\":\"r1\",\"content\":\"out2\"},"
		"{\"role\":\"tool\",\"tool_call_id\":\"L2\",\"content\":\"out1\"},"
		"{\"role\":\"assistant\",\"content\":\"let me look\",\"tool_calls\":["
		"{\"id\":\"L3\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"x\\\":2}\"}}]},"
		"{\"role\":\"tool\",\"tool_call_id\":\"L3\",\"content\":\"out3\"}]}");
	meter_answer_release(&a[0]);
	toolcalls_release(&a[1].calls);
}

TEST(calls_the_trace_did_not_record_or_did_not_get_stay_out_or_as_recorded)
{
	/* the server called a tool where the trace's answer was text: left out;
	 * the server answered in text where the trace called a tool: the
	 * recorded call and its tool message stay */
	const char *body = "{\"messages\":[{\"role\":\"user\",\"content\":\"u0\"},"
		"{\"role\":\"assistant\",\"content\":\"a0\"},{\"role\":\"user\",\"content\":\"u1\"},"
		"{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"r\",\"function\":{\"name\":\"f\"}}]},"
		"{\"role\":\"tool\",\"tool_call_id\":\"r\",\"content\":\"o\"}]}";
	struct meter_answer a[2];

	memset(a, 0, sizeof(a));
	stream_calls(&a[0], "[[{\"id\":\"L\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]]");
	a[1].content = (char *)"text instead";
	CHECK_STR(fill_calls(body, a, 2), "{\"messages\":[{\"role\":\"user\",\"content\":\"u0\"},"
		"{\"role\":\"assistant\",\"content\":\"\"},{\"role\":\"user\",\"content\":\"u1\"},"
		"{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"r\",\"function\":{\"name\":\"f\"}}],"
		"\"content\":\"text instead\"},"
		"{\"role\":\"tool\",\"tool_call_id\":\"r\",\"content\":\"o\"}]}");
	toolcalls_release(&a[0].calls);
}

TEST(a_servers_tool_calls_are_capped)
{
	struct toolcalls t;
	const char *why;
	char big[300], json[400];
	cJSON *arr;
	int i, rc = 0;

	toolcalls_init(&t, 64);
	/* an index that is no integer from 0 to 127 */
	arr = cJSON_Parse("[{\"index\":128}]");
	CHECK_EQ_INT(toolcalls_feed(&t, arr, &why), TOOLCALLS_EINVAL);
	CHECK_STR(why, "a tool call's index is not an integer from 0 to 127");
	cJSON_Delete(arr);
	arr = cJSON_Parse("[{\"index\":-1}]");
	CHECK_EQ_INT(toolcalls_feed(&t, arr, &why), TOOLCALLS_EINVAL);
	cJSON_Delete(arr);
	arr = cJSON_Parse("[{\"index\":0.5}]");
	CHECK_EQ_INT(toolcalls_feed(&t, arr, &why), TOOLCALLS_EINVAL);
	cJSON_Delete(arr);
	arr = cJSON_Parse("[3]");
	CHECK_EQ_INT(toolcalls_feed(&t, arr, &why), TOOLCALLS_EINVAL);
	CHECK_STR(why, "a tool call is not a JSON object");
	cJSON_Delete(arr);
	/* an id over 256 bytes */
	memset(big, 'i', 257);
	big[257] = '\0';
	snprintf(json, sizeof(json), "[{\"index\":0,\"id\":\"%s\"}]", big);
	arr = cJSON_Parse(json);
	CHECK_EQ_INT(toolcalls_feed(&t, arr, &why), TOOLCALLS_EINVAL);
	CHECK_STR(why, "tool call id or function name longer than 256 bytes");
	cJSON_Delete(arr);
	toolcalls_release(&t);
	/* arguments past the caller's cap (64 bytes), in pieces */
	arr = cJSON_Parse("[{\"index\":0,\"function\":{\"arguments\":\"0123456789012345678901234567890\"}}]");
	CHECK_EQ_INT(toolcalls_feed(&t, arr, &why), TOOLCALLS_OK);
	CHECK_EQ_INT(toolcalls_feed(&t, arr, &why), TOOLCALLS_OK);
	CHECK_EQ_INT(toolcalls_feed(&t, arr, &why), TOOLCALLS_EINVAL);
	CHECK_STR(why, "tool calls longer than a session's history keeps");
	CHECK_EQ_INT((long)t.bytes, 62);
	cJSON_Delete(arr);
	toolcalls_release(&t);
	/* 128 calls, not 129; a repeated id is kept as first given */
	for (i = 0; i < 128; i++) {
		snprintf(json, sizeof(json), "[{\"index\":%d}]", i);
		arr = cJSON_Parse(json);
		rc |= toolcalls_feed(&t, arr, &why);
		cJSON_Delete(arr);
	}
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT((long)t.n, 128);
	arr = cJSON_Parse("[{\"index\":5,\"id\":\"a\"},{\"index\":5,\"id\":\"b\"}]");
	CHECK_EQ_INT(toolcalls_feed(&t, arr, &why), TOOLCALLS_OK);
	CHECK_STR(t.c[5].id, "a");
	cJSON_Delete(arr);
	arr = cJSON_Parse("[{},{}]");     /* no index: their places, 0 and 1, exist */
	CHECK_EQ_INT(toolcalls_feed(&t, arr, &why), TOOLCALLS_OK);
	cJSON_Delete(arr);
	toolcalls_release(&t);
	toolcalls_init(&t, 64);
	for (i = 0; i < 128; i++) {
		snprintf(json, sizeof(json), "[{\"index\":%d}]", i);
		arr = cJSON_Parse(json);
		toolcalls_feed(&t, arr, &why);
		cJSON_Delete(arr);
	}
	arr = cJSON_Parse("[{},{},{}]");
	CHECK_EQ_INT(toolcalls_feed(&t, arr, &why), TOOLCALLS_OK);    /* 0..2 exist */
	cJSON_Delete(arr);
	CHECK_EQ_INT((long)t.n, 128);
	toolcalls_release(&t);
	CHECK_EQ_INT((long)t.n, 0);
	CHECK_EQ_INT((long)t.max_bytes, 64);
}

TEST(a_messages_placeholder_with_tool_use_keeps_its_blocks_for_the_tool_result)
{
	/* Anthropic's Messages: the tool_result names the tool_use's id, so
	 * the block must stay; the text is the server's, the thinking goes */
	const char *body = "{\"messages\":["
		"{\"role\":\"user\",\"content\":\"weather?\"},"
		"{\"role\":\"assistant\",\"content\":["
		"{\"type\":\"thinking\",\"thinking\":\"hm\",\"signature\":\"s\"},"
		"{\"type\":\"text\",\"text\":\"recorded\"},"
		"{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"w\",\"input\":{\"c\":\"P\"}}]},"
		"{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\",\"content\":\"15\"}]}]}";
	char *live[] = { (char *)"Let me look.", (char *)"" };

	CHECK_STR(fill(body, live, 1), "{\"messages\":["
		  "{\"role\":\"user\",\"content\":\"weather?\"},"
		  "{\"role\":\"assistant\",\"content\":["
		  "{\"type\":\"text\",\"text\":\"Let me look.\"},"
		  "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"w\",\"input\":{\"c\":\"P\"}}]},"
		  "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\",\"content\":\"15\"}]}]}");
	/* an empty answer: no empty text block, the tool_use alone */
	CHECK_STR(fill(body, live + 1, 1), "{\"messages\":["
		  "{\"role\":\"user\",\"content\":\"weather?\"},"
		  "{\"role\":\"assistant\",\"content\":["
		  "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"w\",\"input\":{\"c\":\"P\"}}]},"
		  "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\",\"content\":\"15\"}]}]}");
	/* no text block recorded: the answer's goes first */
	CHECK_STR(fill("{\"messages\":[{\"role\":\"assistant\",\"content\":["
		       "{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"w\",\"input\":{}}]}]}", live, 1),
		  "{\"messages\":[{\"role\":\"assistant\",\"content\":["
		  "{\"type\":\"text\",\"text\":\"Let me look.\"},"
		  "{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"w\",\"input\":{}}]}]}");
	/* the server's own call: its id, name and input in the block, and the
	 * tool_result after it names the live id */
	{
		struct meter_answer a;

		memset(&a, 0, sizeof(a));
		stream_calls(&a, "[[{\"index\":1,\"id\":\"toolu_L\",\"function\":{\"name\":\"w2\"}}],"
			     "[{\"index\":1,\"function\":{\"arguments\":\"{\\\"c\\\":\"}}],"
			     "[{\"index\":1,\"function\":{\"arguments\":\"\\\"L\\\"}\"}}]]");
		a.content = (char *)"Looking.";
		CHECK_STR(fill_calls(body, &a, 1), "{\"messages\":["
			  "{\"role\":\"user\",\"content\":\"weather?\"},"
			  "{\"role\":\"assistant\",\"content\":["
			  "{\"type\":\"text\",\"text\":\"Looking.\"},"
			  "{\"type\":\"tool_use\",\"id\":\"toolu_L\",\"name\":\"w2\",\"input\":{\"c\":\"L\"}}]},"
			  "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_L\",\"content\":\"15\"}]}]}");
		toolcalls_release(&a.calls);
	}
	/* blocks without a tool_use: the text alone, as a string, as before */
	CHECK_STR(fill("{\"messages\":[{\"role\":\"assistant\",\"content\":["
		       "{\"type\":\"text\",\"text\":\"r\"}]}]}", live, 1),
		  "{\"messages\":[{\"role\":\"assistant\",\"content\":\"Let me look.\"}]}");
}

/* The chained body (static, overwritten by the next call), or "(as is)". */
static const char *chain(const char *body, const char *previous)
{
	static char last[4096];
	char *out = NULL;
	size_t len = 0;
	int rc = session_chain_body(body, strlen(body), previous, &out, &len);

	if (rc == SESSION_ASIS)
		return "(as is)";
	if (rc != SESSION_FILLED)
		return "(failed)";
	snprintf(last, sizeof(last), "%s", strlen(out) == len ? out : "(bad length)");
	free(out);
	return last;
}

TEST(a_chained_turn_sends_what_follows_the_models_last_item_and_names_the_response)
{
	/* turn 3: the model's message, a function call and its output went
	 * before; only what came after the model's last item is new */
	const char *turn = "{\"model\":\"m\",\"input\":["
		"{\"role\":\"user\",\"content\":\"a\"},"
		"{\"role\":\"assistant\",\"content\":\"x\"},"
		"{\"role\":\"user\",\"content\":\"b\"},"
		"{\"type\":\"reasoning\",\"summary\":[]},"
		"{\"type\":\"function_call\",\"call_id\":\"c1\",\"name\":\"f\",\"arguments\":\"{}\"},"
		"{\"type\":\"function_call_output\",\"call_id\":\"c1\",\"output\":\"42\"},"
		"{\"role\":\"user\",\"content\":\"c\"}],\"stream\":true,\"store\":true}";

	/* (the body asks the server to store it: replay/body.h's override,
	 * test_body's stored_turns) */
	CHECK_STR(chain(turn, "resp_9"),
		     "{\"model\":\"m\",\"input\":["
		     "{\"type\":\"function_call_output\",\"call_id\":\"c1\",\"output\":\"42\"},"
		     "{\"role\":\"user\",\"content\":\"c\"}],\"stream\":true,\"store\":true,"
		     "\"previous_response_id\":\"resp_9\"}");
	/* an input that is a string: kept, the response named */
	CHECK_STR(chain("{\"input\":\"hi\"}", "r1"),
		     "{\"input\":\"hi\",\"previous_response_id\":\"r1\"}");
	/* no item of the model's: nothing cut */
	CHECK_STR(chain("{\"input\":[{\"role\":\"user\",\"content\":\"a\"}]}", "r1"),
		     "{\"input\":[{\"role\":\"user\",\"content\":\"a\"}],"
		     "\"previous_response_id\":\"r1\"}");
	CHECK_STR(chain("[1,2]", "r1"), "(as is)");
	CHECK_STR(chain("not json", "r1"), "(as is)");
}

int main(void)
{
	RUN(records_group_into_sessions_in_turn_order);
	RUN(a_missing_turn_skips_that_session_only);
	RUN(turns_out_of_order_or_repeated_skip_the_session);
	RUN(a_think_time_out_of_range_skips_the_session);
	RUN(the_last_assistant_messages_get_the_answers);
	RUN(messages_and_responses_histories_get_the_answers);
	RUN(a_body_without_the_placeholders_goes_as_recorded);
	RUN(member_names_in_another_case_are_other_members);
	RUN(a_member_named_twice_is_filled_once);
	RUN(a_tool_call_round_trip_gets_the_servers_calls_and_ids);
	RUN(calls_the_trace_did_not_record_or_did_not_get_stay_out_or_as_recorded);
	RUN(a_servers_tool_calls_are_capped);
	RUN(a_chained_turn_sends_what_follows_the_models_last_item_and_names_the_response);
	RUN(a_messages_placeholder_with_tool_use_keeps_its_blocks_for_the_tool_result);
	return harness_done();
}
