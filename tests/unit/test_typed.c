/*
 * test_typed.c - the meter on Anthropic Messages and OpenAI Responses
 * streams (lib/typed.h): captures of each shape, built from the APIs'
 * documented events, fed event by event at instants the test chooses
 * (event i at 100 + 10 i ms, the request started at 0), so that TTFT,
 * TTFA, the gaps and the tokens can be checked against the README's
 * definitions.
 */
#include "harness.h"
#include "lib/clock.h"
#include "lib/meter.h"
#include "lib/trace.h"

#include <stdlib.h>
#include <string.h>

#define MS(x) ((int64_t)(x) * NS_PER_MS)

/*
 * Feeds fixture 'name' to a meter for requests of kind 'kind', event i at
 * 100 + 10 i ms, leaving out the last 'drop' events; the stream ends 20 ms
 * after the last event fed. With 'whole', the fixture is a body instead,
 * arriving at 100 ms. r is initialized by the caller; the answer is kept
 * in 'keep' (NULL: not kept).
 */
static void run(const char *name, const char *kind, int whole, int drop, struct result *r,
		struct meter_answer *keep)
{
	size_t len, n = 0, i;
	char *data = harness_slurp("tests/unit/fixtures", name, &len);
	const char *ev[64];
	struct meter m;
	char *p;

	CHECK(data != NULL);
	if (!data)
		return;
	meter_init(&m, r, 0, 0);
	meter_set_kind(&m, kind);
	m.keep = keep;
	if (whole) {
		meter_end_body(&m, data, len, MS(100));
		goto done;
	}
	for (p = data; *p && n < 64; n++) {     /* events end at a blank line */
		char *end = strstr(p, "\n\n");

		ev[n] = p;
		if (!end)
			break;
		end[1] = '\0';
		p = end + 2;
	}
	for (i = 0; i + (size_t)drop < n; i++) {
		char buf[4096];
		int blen = snprintf(buf, sizeof(buf), "%s\n", ev[i]);

		CHECK(blen > 0 && (size_t)blen < sizeof(buf));
		CHECK_EQ_INT(meter_feed(&m, buf, (size_t)blen, MS(100 + 10 * (int64_t)i)), SSE_OK);
	}
	meter_end_stream(&m, MS(100 + 10 * (int64_t)i + 10));
done:
	meter_release(&m);
	free(data);
}

static void check_itl(const struct result *r, const int *ms, size_t n)
{
	size_t i;

	CHECK_EQ_INT(r->n_itl, n);
	for (i = 0; i < n && i < r->n_itl; i++)
		CHECK_EQ_INT(r->itl_ns[i], MS(ms[i]));
}

TEST(the_kinds_come_from_method_and_path)
{
	CHECK_STR(trace_kind_of("POST", "/v1/messages"), TRACE_KIND_MESSAGES);
	CHECK_STR(trace_kind_of("POST", "/anthropic/v1/messages?beta=true"), TRACE_KIND_MESSAGES);
	CHECK_STR(trace_kind_of("POST", "/v1/responses"), TRACE_KIND_RESPONSES);
	/* an Assistants thread's messages, a token count, a stored response */
	CHECK_STR(trace_kind_of("POST", "/v1/threads/t1/messages"), TRACE_KIND_OTHER);
	CHECK_STR(trace_kind_of("POST", "/v1/messages/count_tokens"), TRACE_KIND_OTHER);
	CHECK_STR(trace_kind_of("GET", "/v1/responses"), TRACE_KIND_OTHER);
	CHECK(trace_kind_is_inference(TRACE_KIND_MESSAGES));
	CHECK(trace_kind_is_inference(TRACE_KIND_RESPONSES));
}

/* Text deltas are the answer; message_start's usage the input (its
 * cache reads counted in it and as cached); message_delta's the output;
 * ping, the empty text block's start and its stop carry no token. */
TEST(messages_text_stream)
{
	static const int itl[] = { 10, 10 };
	struct result r;
	struct meter_answer kept = { 0 };

	result_init(&r);
	run("anthropic-messages-stream.sse", TRACE_KIND_MESSAGES, 0, 0, &r, &kept);
	CHECK(result_ok(&r));
	CHECK_EQ_INT(r.ttft_ns, MS(130));
	CHECK_EQ_INT(r.ttfa_ns, MS(130));
	check_itl(&r, itl, 2);
	CHECK_EQ_INT(r.e2e_ns, MS(200));       /* 9 events, the end 20 ms after the last */
	CHECK_EQ_INT(r.output_tokens, 4);
	CHECK_EQ_INT(r.tokens_source, RESULT_TOKENS_USAGE);
	CHECK_EQ_INT(r.token_events, 3);
	CHECK_EQ_INT(r.input_tokens, 41);
	CHECK_EQ_INT(r.cached_tokens, 16);
	CHECK(kept.content && strcmp(kept.content, "Hello there!") == 0);
	meter_answer_release(&kept);
	result_release(&r);
}

/* A response id a later request could not name (too long, or with bytes
 * ids are not made of) is not kept: the next turn sends its history. */
TEST(responses_id_kept_only_when_fit)
{
	static const char *const ids[] = { "resp-1", "resp 1", "resp\"1", "", NULL };
	char ev[512], longid[200];
	size_t i;

	memset(longid, 'a', sizeof(longid) - 1);
	longid[sizeof(longid) - 1] = '\0';
	for (i = 0; i < 5; i++) {
		const char *id = ids[i] ? ids[i] : longid;
		struct result r;
		struct meter_answer kept = { 0 };
		struct meter m;
		int n;

		result_init(&r);
		meter_init(&m, &r, 0, 0);
		meter_set_kind(&m, TRACE_KIND_RESPONSES);
		m.keep = &kept;
		n = snprintf(ev, sizeof(ev), "event: response.created\ndata: {\"type\":"
			     "\"response.created\",\"response\":{\"id\":\"%s\"}}\n\n",
			     ids[i] && strchr(id, '"') ? "resp\\\"1" : id);
		CHECK_EQ_INT(meter_feed(&m, ev, (size_t)n, MS(1)), SSE_OK);
		CHECK(i == 0 ? kept.response_id && strcmp(kept.response_id, "resp-1") == 0 :
		      kept.response_id == NULL);
		meter_release(&m);
		meter_answer_release(&kept);
		result_release(&r);
	}
}

/* Thinking first (TTFT), then text (TTFA), then a tool call: its start
 * (the name) and its non-empty argument fragments; a signature and an
 * empty fragment are no tokens. */
TEST(messages_thinking_text_and_tool_use)
{
	static const int itl[] = { 10, 40, 20, 20 };
	struct result r;
	struct meter_answer kept = { 0 };

	result_init(&r);
	run("anthropic-messages-thinking-tools.sse", TRACE_KIND_MESSAGES, 0, 0, &r, &kept);
	CHECK(result_ok(&r));
	CHECK_EQ_INT(r.ttft_ns, MS(120));
	CHECK_EQ_INT(r.ttfa_ns, MS(170));
	check_itl(&r, itl, 4);
	CHECK_EQ_INT(r.token_events, 5);
	CHECK_EQ_INT(r.output_tokens, 89);
	CHECK_EQ_INT(r.input_tokens, 400);
	CHECK_EQ_INT(r.cached_tokens, -1);
	/* kept for a session's next turn: the tool_use as a call, its input
	 * the input_json_delta pieces joined */
	CHECK_EQ_INT((long)kept.calls.n, 1);
	if (kept.calls.n == 1) {
		CHECK_STR(kept.calls.c[0].id, "toolu_01");
		CHECK_STR(kept.calls.c[0].name, "get_weather");
		CHECK_STR(kept.calls.c[0].args, "{\"location\": \"Paris\"}");
	}
	meter_answer_release(&kept);
	result_release(&r);
}

TEST(messages_error_event_is_a_server_error_with_its_message)
{
	struct result r;

	result_init(&r);
	run("anthropic-messages-error.sse", TRACE_KIND_MESSAGES, 0, 0, &r, NULL);
	CHECK_STR(r.error, RESULT_ERR_SERVER);
	CHECK_STR(r.error_detail, "overloaded_error: Overloaded");
	CHECK_EQ_INT(r.ttft_ns, MS(120));
	result_release(&r);
}

/* No [DONE] in Messages: without message_stop the stream is incomplete,
 * with it (the first test) complete. */
TEST(messages_without_message_stop_is_incomplete)
{
	struct result r;

	result_init(&r);
	run("anthropic-messages-stream.sse", TRACE_KIND_MESSAGES, 0, 1, &r, NULL);
	CHECK_STR(r.error, RESULT_ERR_INCOMPLETE);
	CHECK_STR(r.error_detail, "stream ended without message_stop");
	CHECK_EQ_INT(r.output_tokens, 4);       /* message_delta came */
	result_release(&r);
}

TEST(messages_body)
{
	struct result r;
	struct meter_answer kept = { 0 };

	result_init(&r);
	run("anthropic-messages-nostream.json", TRACE_KIND_MESSAGES, 1, 0, &r, &kept);
	CHECK(result_ok(&r));
	CHECK(r.unstreamed);
	CHECK_EQ_INT(r.ttft_ns, MS(100));
	CHECK_EQ_INT(r.e2e_ns, MS(100));
	CHECK_EQ_INT(r.output_tokens, 4);
	CHECK_EQ_INT(r.input_tokens, 44);
	CHECK_EQ_INT(r.cached_tokens, 32);
	CHECK(kept.content && strcmp(kept.content, "Hello there!") == 0);
	meter_answer_release(&kept);
	result_release(&r);
}

TEST(messages_error_body)
{
	static const char body[] = "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
				   "\"message\":\"max_tokens: Field required\"}}";
	struct result r;
	struct meter m;

	result_init(&r);
	meter_init(&m, &r, 0, 0);
	meter_set_kind(&m, TRACE_KIND_MESSAGES);
	meter_end_body(&m, body, strlen(body), MS(5));
	CHECK_STR(r.error, RESULT_ERR_SERVER);
	CHECK_STR(r.error_detail, "invalid_request_error: max_tokens: Field required");
	meter_release(&m);
	result_release(&r);
}

/* output_text deltas are the answer; the item and part events carry no
 * token; response.completed ends it with its usage. */
TEST(responses_text_stream)
{
	static const int itl[] = { 10, 10 };
	struct result r;
	struct meter_answer kept = { 0 };

	result_init(&r);
	run("openai-responses-stream.sse", TRACE_KIND_RESPONSES, 0, 0, &r, &kept);
	CHECK(result_ok(&r));
	CHECK_EQ_INT(r.ttft_ns, MS(140));
	CHECK_EQ_INT(r.ttfa_ns, MS(140));
	check_itl(&r, itl, 2);
	CHECK_EQ_INT(r.e2e_ns, MS(220));
	CHECK_EQ_INT(r.output_tokens, 4);
	CHECK_EQ_INT(r.input_tokens, 37);
	CHECK_EQ_INT(r.cached_tokens, 32);
	CHECK(kept.content && strcmp(kept.content, "Hello there!") == 0);
	/* kept with the answer: the id a chained next turn names */
	CHECK(kept.response_id && strcmp(kept.response_id, "resp_01") == 0);
	meter_answer_release(&kept);
	result_release(&r);
}

/* Reasoning (summary and text) first, a function call (its item, its
 * argument deltas), then text; response.incomplete (cut at
 * max_output_tokens) ends it as complete, with usage. */
TEST(responses_reasoning_tools_and_incomplete)
{
	static const int itl[] = { 10, 10, 10, 10, 30 };
	struct result r;

	result_init(&r);
	run("openai-responses-reasoning-tools.sse", TRACE_KIND_RESPONSES, 0, 0, &r, NULL);
	CHECK(result_ok(&r));
	CHECK_EQ_INT(r.ttft_ns, MS(120));
	CHECK_EQ_INT(r.ttfa_ns, MS(190));
	check_itl(&r, itl, 5);
	CHECK_EQ_INT(r.token_events, 6);
	CHECK_EQ_INT(r.output_tokens, 64);
	CHECK_EQ_INT(r.input_tokens, 300);
	CHECK_EQ_INT(r.cached_tokens, 0);
	result_release(&r);
}

TEST(responses_failed_is_a_server_error_with_its_message)
{
	struct result r;

	result_init(&r);
	run("openai-responses-failed.sse", TRACE_KIND_RESPONSES, 0, 0, &r, NULL);
	CHECK_STR(r.error, RESULT_ERR_SERVER);
	CHECK_STR(r.error_detail, "server_error: The model failed to generate a response.");
	result_release(&r);
}

TEST(responses_error_event_and_missing_end)
{
	static const char err[] = "event: error\ndata: {\"type\":\"error\",\"code\":\"rate_limit_exceeded\","
				  "\"message\":\"Slow down\",\"param\":null}\n\n";
	struct result r;
	struct meter m;

	result_init(&r);
	meter_init(&m, &r, 0, 0);
	meter_set_kind(&m, TRACE_KIND_RESPONSES);
	CHECK_EQ_INT(meter_feed(&m, err, strlen(err), MS(3)), SSE_OK);
	meter_end_stream(&m, MS(4));
	CHECK_STR(r.error, RESULT_ERR_SERVER);
	CHECK_STR(r.error_detail, "rate_limit_exceeded: Slow down");
	meter_release(&m);
	result_release(&r);

	result_init(&r);
	run("openai-responses-stream.sse", TRACE_KIND_RESPONSES, 0, 1, &r, NULL);
	CHECK_STR(r.error, RESULT_ERR_INCOMPLETE);
	CHECK_STR(r.error_detail, "stream ended without response.completed");
	CHECK_EQ_INT(r.tokens_source, RESULT_TOKENS_EVENTS);
	CHECK_EQ_INT(r.output_tokens, 3);
	result_release(&r);
}

TEST(responses_body)
{
	struct result r;
	struct meter_answer kept = { 0 };

	result_init(&r);
	run("openai-responses-nostream.json", TRACE_KIND_RESPONSES, 1, 0, &r, &kept);
	CHECK(result_ok(&r));
	CHECK(r.unstreamed);
	CHECK_EQ_INT(r.output_tokens, 30);
	CHECK_EQ_INT(r.input_tokens, 20);
	CHECK_EQ_INT(r.cached_tokens, 0);
	CHECK(kept.content && strcmp(kept.content, "Hello there!") == 0);
	meter_answer_release(&kept);
	result_release(&r);
}

/* A count out of range fails the request as a chunk's would; a cached
 * count above the input is left out; an unknown event type is skipped. */
TEST(typed_hostile_counts_and_unknown_types)
{
	static const char bad[] = "data: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":-3}}\n\n";
	static const char unknown[] = "data: {\"type\":\"content_block_delta\",\"delta\":"
				      "{\"type\":\"future_delta\",\"text\":\"x\"}}\n\n"
				      "data: {\"type\":\"brand_new_event\"}\n\n"
				      "data: {\"type\":\"message_stop\"}\n\n";
	static const char over_cached[] =
		"data: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":10,"
		"\"input_tokens_details\":{\"cached_tokens\":20},\"output_tokens\":3}}}\n\n";
	struct result r;
	struct meter m;

	result_init(&r);
	meter_init(&m, &r, 0, 0);
	meter_set_kind(&m, TRACE_KIND_MESSAGES);
	CHECK_EQ_INT(meter_feed(&m, bad, strlen(bad), MS(3)), SSE_OK);
	meter_end_stream(&m, MS(4));
	CHECK_STR(r.error, RESULT_ERR_MALFORMED);
	meter_release(&m);
	result_release(&r);

	/* more cached than the input it is part of: left out, the rest kept */
	result_init(&r);
	meter_init(&m, &r, 0, 0);
	meter_set_kind(&m, TRACE_KIND_RESPONSES);
	CHECK_EQ_INT(meter_feed(&m, over_cached, strlen(over_cached), MS(3)), SSE_OK);
	meter_end_stream(&m, MS(4));
	CHECK(result_ok(&r));
	CHECK_EQ_INT(r.input_tokens, 10);
	CHECK_EQ_INT(r.output_tokens, 3);
	CHECK_EQ_INT(r.cached_tokens, -1);
	meter_release(&m);
	result_release(&r);

	result_init(&r);
	meter_init(&m, &r, 0, 0);
	meter_set_kind(&m, TRACE_KIND_MESSAGES);
	CHECK_EQ_INT(meter_feed(&m, unknown, strlen(unknown), MS(3)), SSE_OK);
	meter_end_stream(&m, MS(4));
	CHECK(result_ok(&r));
	CHECK_EQ_INT(r.token_events, 0);
	CHECK_EQ_INT(r.ttft_ns, -1);
	meter_release(&m);
	result_release(&r);
}

int main(void)
{
	RUN(the_kinds_come_from_method_and_path);
	RUN(messages_text_stream);
	RUN(messages_thinking_text_and_tool_use);
	RUN(messages_error_event_is_a_server_error_with_its_message);
	RUN(messages_without_message_stop_is_incomplete);
	RUN(messages_body);
	RUN(messages_error_body);
	RUN(responses_text_stream);
	RUN(responses_id_kept_only_when_fit);
	RUN(responses_reasoning_tools_and_incomplete);
	RUN(responses_failed_is_a_server_error_with_its_message);
	RUN(responses_error_event_and_missing_end);
	RUN(responses_body);
	RUN(typed_hostile_counts_and_unknown_types);
	return harness_done();
}
