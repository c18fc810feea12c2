/*
 * test_meter.c - what a response's events mean for TTFT, TTFA, gaps,
 * tokens and errors, with the arrival instants chosen by the test.
 */
#include "harness.h"
#include "lib/clock.h"
#include "lib/meter.h"

#include <stdlib.h>

#define MS(x) ((int64_t)(x) * NS_PER_MS)

static const char role[] =
	"data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n";
static const char reasoning[] =
	"data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\" hmm\"}}]}\n\n";
static const char answer[] =
	"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" yes\"}}]}\n\n";
static const char tool[] =
	"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0}]}}]}\n\n";
static const char usage[] =
	"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":7}}\n\n";
static const char done[] = "data: [DONE]\n\n";

static void feed(struct meter *m, const char *s, int64_t at_ms)
{
	CHECK_EQ_INT(meter_feed(m, s, strlen(s), MS(at_ms)), SSE_OK);
}

TEST(reasoning_then_answer)
{
	struct result r;
	struct meter m;

	result_init(&r);
	meter_init(&m, &r, MS(100), 0);
	feed(&m, role, 105);            /* no token: TTFT does not start here */
	feed(&m, reasoning, 150);
	feed(&m, reasoning, 160);
	feed(&m, answer, 175);
	feed(&m, answer, 185);
	feed(&m, usage, 186);
	feed(&m, done, 186);
	meter_end_stream(&m, MS(190));
	CHECK(result_ok(&r));
	CHECK_EQ_INT(r.ttft_ns, MS(50));
	CHECK_EQ_INT(r.ttfa_ns, MS(75));
	CHECK_EQ_INT(r.e2e_ns, MS(90));
	CHECK_EQ_INT(r.n_itl, 3);
	CHECK_EQ_INT(r.itl_ns[0], MS(10));
	CHECK_EQ_INT(r.itl_ns[1], MS(15));
	CHECK_EQ_INT(r.itl_ns[2], MS(10));
	CHECK_EQ_INT(r.output_tokens, 7);     /* usage wins over 4 counted events */
	CHECK_EQ_INT(r.input_tokens, 12);
	CHECK(!r.tokens_estimated);
	CHECK(!r.unstreamed);
	meter_release(&m);
	result_release(&r);
}

TEST(without_usage_tokens_are_counted_and_flagged)
{
	struct result r;
	struct meter m;

	result_init(&r);
	meter_init(&m, &r, 0, 0);
	feed(&m, answer, 10);
	feed(&m, tool, 20);                   /* a tool call is a token event */
	feed(&m, done, 21);
	meter_end_stream(&m, MS(22));
	CHECK(result_ok(&r));
	CHECK_EQ_INT(r.output_tokens, 2);
	CHECK(r.tokens_estimated);
	meter_release(&m);
	result_release(&r);
}

TEST(missing_done_is_incomplete)
{
	struct result r;
	struct meter m;

	result_init(&r);
	meter_init(&m, &r, 0, 0);
	feed(&m, answer, 10);
	feed(&m, "data: {\"choi", 11);       /* cut inside an event */
	meter_end_stream(&m, MS(12));
	CHECK_STR(r.error, RESULT_ERR_INCOMPLETE);
	CHECK(strstr(r.error_detail, "inside an event") != NULL);
	CHECK_EQ_INT(r.ttft_ns, MS(10));      /* what arrived is kept */
	meter_release(&m);
	result_release(&r);
}

TEST(error_event_and_error_object_are_server_errors)
{
	struct result r;
	struct meter m;

	result_init(&r);
	meter_init(&m, &r, 0, 0);
	feed(&m, "event: error\ndata: overloaded\n\n", 5);
	feed(&m, done, 6);
	meter_end_stream(&m, MS(6));
	CHECK_STR(r.error, RESULT_ERR_SERVER);
	CHECK_STR(r.error_detail, "overloaded");
	meter_release(&m);
	result_release(&r);

	result_init(&r);
	meter_init(&m, &r, 0, 0);
	feed(&m, "data: {\"error\":{\"message\":\"boom\"}}\n\n", 5);
	meter_end_stream(&m, MS(6));
	CHECK_STR(r.error, RESULT_ERR_SERVER);    /* the first error is kept */
	CHECK(strstr(r.error_detail, "boom") != NULL);
	meter_release(&m);
	result_release(&r);
}

TEST(garbage_event_is_malformed)
{
	struct result r;
	struct meter m;

	result_init(&r);
	meter_init(&m, &r, 0, 0);
	feed(&m, "data: {not json\n\n", 5);
	feed(&m, done, 6);
	meter_end_stream(&m, MS(6));
	CHECK_STR(r.error, RESULT_ERR_MALFORMED);
	meter_release(&m);
	result_release(&r);
}

/*
 * Token counts a server reports are range-checked where they enter: 1e300
 * (undefined behaviour as an int64 before), a negative or fractional count
 * marks the request malformed and never reaches a sum.
 */
TEST(usage_out_of_range_marks_the_request)
{
	static const char *const bad[] = {
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1e300}}\n\n",
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":-14}}\n\n",
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2.5}}\n\n",
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":-1e300,\"completion_tokens\":3}}\n\n",
		"data: {\"choices\":[],\"usage\":{\"completion_tokens\":1000000001}}\n\n",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct result r;
		struct meter m;

		result_init(&r);
		meter_init(&m, &r, 0, 0);
		feed(&m, answer, 5);
		feed(&m, bad[i], 6);
		feed(&m, done, 7);
		meter_end_stream(&m, MS(7));
		CHECK_STR(r.error, RESULT_ERR_MALFORMED);
		CHECK(r.output_tokens >= 0 && r.output_tokens <= 1);
		meter_release(&m);
		result_release(&r);
	}
}

TEST(event_over_the_cap_is_malformed)
{
	char big[600];
	struct result r;
	struct meter m;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "data: ", 6);
	result_init(&r);
	meter_init(&m, &r, 0, 256);
	CHECK_EQ_INT(meter_feed(&m, big, strlen(big), MS(1)), SSE_ETOOBIG);
	CHECK_STR(r.error, RESULT_ERR_MALFORMED);
	CHECK_STR(r.error_detail, "SSE stream: event larger than the size cap (256 bytes)");
	meter_release(&m);
	result_release(&r);
}

TEST(non_streamed_body_ttft_equals_e2e)
{
	static const char body[] = "{\"choices\":[{\"message\":{\"content\":\"hi\"}}],"
				   "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":9}}";
	struct result r;
	struct meter m;

	result_init(&r);
	meter_init(&m, &r, MS(1), 0);
	meter_end_body(&m, body, strlen(body), MS(41));
	CHECK(result_ok(&r));
	CHECK_EQ_INT(r.e2e_ns, MS(40));
	CHECK_EQ_INT(r.ttft_ns, MS(40));
	CHECK_EQ_INT(r.ttfa_ns, MS(40));
	CHECK_EQ_INT(r.output_tokens, 9);
	CHECK(r.unstreamed);
	meter_release(&m);
	result_release(&r);
}

/*
 * A real llama-server stream, fed a byte at a time: the prompt tokens its
 * prefix cache held (usage.prompt_tokens_details.cached_tokens), the token
 * count from usage and the events that carried the tokens.
 */
TEST(llama_server_stream_reports_cached_tokens)
{
	size_t len, i;
	char *sse = harness_slurp("tests/unit/fixtures", "llama-server-chat-stream-usage.sse", &len);
	struct result r;
	struct meter m;

	CHECK(sse != NULL);
	if (!sse)
		return;
	result_init(&r);
	meter_init(&m, &r, 0, 0);
	for (i = 0; i < len; i++)
		CHECK_EQ_INT(meter_feed(&m, sse + i, 1, MS(i)), SSE_OK);
	meter_end_stream(&m, MS(len));
	CHECK(result_ok(&r));
	CHECK_EQ_INT(r.output_tokens, 8);
	CHECK_EQ_INT(r.input_tokens, 12);
	CHECK_EQ_INT(r.cached_tokens, 4);
	CHECK_EQ_INT(r.token_events, 8);
	CHECK_EQ_INT(r.tokens_source, RESULT_TOKENS_USAGE);
	CHECK(!r.tokens_estimated);
	meter_release(&m);
	result_release(&r);
	free(sse);
}

/* Without usage: the cached count from llama.cpp's timings.cache_n (11 of
 * its prompt), tokens from events. */
TEST(llama_server_stream_without_usage_takes_cached_from_timings)
{
	size_t len;
	char *sse = harness_slurp("tests/unit/fixtures", "llama-server-chat-stream-nousage.sse", &len);
	struct result r;
	struct meter m;

	CHECK(sse != NULL);
	if (!sse)
		return;
	result_init(&r);
	meter_init(&m, &r, 0, 0);
	CHECK_EQ_INT(meter_feed(&m, sse, len, MS(5)), SSE_OK);
	meter_end_stream(&m, MS(6));
	CHECK(result_ok(&r));
	CHECK_EQ_INT(r.cached_tokens, 11);
	CHECK_EQ_INT(r.tokens_source, RESULT_TOKENS_EVENTS);
	CHECK(r.tokens_estimated);
	CHECK_EQ_INT(r.output_tokens, r.token_events);
	CHECK(r.output_tokens > 0);
	meter_release(&m);
	result_release(&r);
	free(sse);
}

/*
 * The server's own timings (lib/srvtiming.h) of every real llama-server
 * answer: its timings' prompt_ms and predicted_ms as prefill and decode, no
 * queue (llama.cpp reports none), each read as the stream goes a byte at
 * a time (the lean scan leaves the chunk with timings to cJSON) and whole.
 */
TEST(llama_server_timings_are_read_from_every_shape)
{
	static const struct {
		const char *file;
		int streamed;
		int64_t prefill_ns, decode_ns, cached;
	} cases[] = {
		{ "llama-server-chat-stream-usage.sse", 1, 4052000, 15001000, 4 },
		{ "llama-server-chat-stream-nousage.sse", 1, 2240000, 8260000, 11 },
		{ "llama-server-chat-reasoning.sse", 1, 3745000, 18414000, 0 },
		{ "llama-server-completions-stream.sse", 1, 2521000, 10736000, 1 },
		{ "llama-server-chat-nostream.json", 0, 2331000, 8242000, 11 },
	};
	size_t c, i, len;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char *data = harness_slurp("tests/unit/fixtures", cases[c].file, &len);
		int whole;

		CHECK(data != NULL);
		if (!data)
			continue;
		for (whole = 0; whole <= 1; whole++) {
			struct result r;
			struct meter m;

			result_init(&r);
			meter_init(&m, &r, 0, 0);
			if (!cases[c].streamed)
				meter_end_body(&m, data, len, MS(40));
			else if (whole)
				CHECK_EQ_INT(meter_feed(&m, data, len, MS(1)), SSE_OK);
			else
				for (i = 0; i < len; i++)
					CHECK_EQ_INT(meter_feed(&m, data + i, 1, MS(i)), SSE_OK);
			if (cases[c].streamed)
				meter_end_stream(&m, MS(len + 1));
			CHECK(result_ok(&r));
			CHECK_EQ_INT(r.server.shape, SRVTIMING_LLAMACPP);
			CHECK_EQ_INT(r.server.queue_ns, -1);
			CHECK_EQ_INT(r.server.prefill_ns, cases[c].prefill_ns);
			CHECK_EQ_INT(r.server.decode_ns, cases[c].decode_ns);
			CHECK_EQ_INT(r.cached_tokens, cases[c].cached);
			meter_release(&m);
			result_release(&r);
		}
		free(data);
	}
}

/*
 * vLLM's per-request metrics (--enable-per-request-metrics) on the final
 * usage chunk, in the shape its documentation and tests give: queue,
 * prefill (time_to_first_token_ms counts from scheduling) and decode. The
 * lean scan and cJSON read it alike.
 */
TEST(vllm_metrics_are_read_from_the_usage_chunk)
{
	static const char last[] =
		"data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\","
		"\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":12,"
		"\"completion_tokens\":10,\"total_tokens\":22},\"metrics\":"
		"{\"time_to_first_token_ms\":500.0,\"generation_time_ms\":1000.0,"
		"\"queue_time_ms\":250.5,\"mean_itl_ms\":111.11111111111111,"
		"\"tokens_per_second\":6.666666666666667}}\n\n";
	int full;

	for (full = 0; full <= 1; full++) {
		struct result r;
		struct meter m;

		result_init(&r);
		meter_init(&m, &r, 0, 0);
		m.full_parse = full;
		feed(&m, answer, 10);
		feed(&m, answer, 20);
		feed(&m, last, 21);
		feed(&m, done, 22);
		meter_end_stream(&m, MS(22));
		CHECK(result_ok(&r));
		CHECK_EQ_INT(r.server.shape, SRVTIMING_VLLM);
		CHECK_EQ_INT(r.server.queue_ns, 250500000);
		CHECK_EQ_INT(r.server.prefill_ns, MS(500));
		CHECK_EQ_INT(r.server.decode_ns, MS(1000));
		CHECK_EQ_INT(r.output_tokens, 10);
		meter_release(&m);
		result_release(&r);
	}
}

/*
 * What a server sends is hostile: a timing out of range (negative, past
 * 100 days, not a number) is left out on its own, the others and the
 * request kept; vLLM's all-null metrics ({} when streamed) and a
 * "metrics" object of someone else's fields are no timings at all.
 */
TEST(hostile_timings_are_refused_field_by_field)
{
	static const struct {
		const char *chunk;
		int shape;
		int64_t queue_ns, prefill_ns, decode_ns;
	} cases[] = {
		{ "{\"choices\":[],\"timings\":{\"prompt_ms\":-1,\"predicted_ms\":7.5}}",
		  SRVTIMING_LLAMACPP, -1, -1, 7500000 },
		{ "{\"choices\":[],\"timings\":{\"prompt_ms\":1e300,\"predicted_ms\":\"7\"}}",
		  SRVTIMING_LLAMACPP, -1, -1, -1 },
		{ "{\"choices\":[],\"timings\":{\"prompt_ms\":8640000001,\"predicted_ms\":[1]}}",
		  SRVTIMING_LLAMACPP, -1, -1, -1 },
		{ "{\"choices\":[],\"timings\":{\"prompt_ms\":0.0000004,\"cache_n\":-3}}",
		  SRVTIMING_LLAMACPP, -1, 0, -1 },
		{ "{\"choices\":[],\"metrics\":{\"queue_time_ms\":-0.5,"
		  "\"time_to_first_token_ms\":null,\"generation_time_ms\":1e-3}}",
		  SRVTIMING_VLLM, -1, -1, 1000 },
		{ "{\"choices\":[],\"metrics\":{}}", SRVTIMING_NONE, -1, -1, -1 },
		{ "{\"choices\":[],\"metrics\":{\"gpu\":3}}", SRVTIMING_NONE, -1, -1, -1 },
		{ "{\"choices\":[],\"metrics\":[1,2]}", SRVTIMING_NONE, -1, -1, -1 },
		{ "{\"choices\":[],\"timings\":null}", SRVTIMING_NONE, -1, -1, -1 },
	};
	size_t c;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char ev[512];
		struct result r;
		struct meter m;

		snprintf(ev, sizeof(ev), "data: %s\n\n", cases[c].chunk);
		result_init(&r);
		meter_init(&m, &r, 0, 0);
		feed(&m, answer, 10);
		feed(&m, ev, 11);
		feed(&m, done, 12);
		meter_end_stream(&m, MS(12));
		CHECK(result_ok(&r));
		CHECK_EQ_INT(r.server.shape, cases[c].shape);
		CHECK_EQ_INT(r.server.queue_ns, cases[c].queue_ns);
		CHECK_EQ_INT(r.server.prefill_ns, cases[c].prefill_ns);
		CHECK_EQ_INT(r.server.decode_ns, cases[c].decode_ns);
		CHECK_EQ_INT(r.cached_tokens, -1);
		meter_release(&m);
		result_release(&r);
	}
}

/*
 * SGLang's meta_info in a non-streamed chat answer asked with
 * "return_meta_info": true, its server run with --enable-metrics (the
 * fixture follows the shape of SGLang's serving_chat.py and its request
 * time stats): the queue its queue_time, prefill from the scheduler's
 * forward entry to its prefill's end (31.25 ms), decode the rest of
 * inference_time (125 ms); cached tokens from meta_info where usage has
 * none. Without its timings (no --enable-metrics) it is no timings at all.
 */
TEST(sglang_meta_info_is_read_from_a_chat_body)
{
	size_t len;
	char *body = harness_slurp("tests/unit/fixtures", "sglang-chat-meta-info.json", &len);
	static const char untimed[] =
		"{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"x\"},"
		"\"meta_info\":{\"id\":\"a\",\"prompt_tokens\":3,\"completion_tokens\":1,"
		"\"cached_tokens\":0,\"e2e_latency\":0.2}}],"
		"\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1,\"total_tokens\":4}}";
	struct result r;
	struct meter m;

	CHECK(body != NULL);
	if (!body)
		return;
	result_init(&r);
	meter_init(&m, &r, 0, 0);
	meter_end_body(&m, body, len, MS(300));
	CHECK(result_ok(&r));
	CHECK_EQ_INT(r.server.shape, SRVTIMING_SGLANG);
	CHECK_EQ_INT(r.server.queue_ns, 3100000);
	CHECK_EQ_INT(r.server.prefill_ns, 31250000);
	CHECK_EQ_INT(r.server.decode_ns, MS(125));
	CHECK_EQ_INT(r.cached_tokens, 6);
	CHECK_EQ_INT(r.output_tokens, 8);
	CHECK(r.unstreamed);
	meter_release(&m);
	result_release(&r);
	free(body);

	result_init(&r);
	meter_init(&m, &r, 0, 0);
	meter_end_body(&m, untimed, sizeof(untimed) - 1, MS(300));
	CHECK(result_ok(&r));
	CHECK_EQ_INT(r.server.shape, SRVTIMING_NONE);
	CHECK_EQ_INT(r.server.prefill_ns, -1);
	meter_release(&m);
	result_release(&r);
}

/*
 * SGLang's meta_info, hostile or of an older server, each field on its own:
 * an older server's API-side instants (first token 62.5 ms after receipt,
 * 2.5 of them queued: prefill 60 ms; decode 125 ms); a negative queue, an
 * instant before 1970 or past the year 5138, a prefill that ends before it
 * begins, NaN-like strings and an inference time shorter than the prefill
 * (decode then from the instants) are left out, the request kept.
 */
TEST(hostile_sglang_meta_info_is_refused_field_by_field)
{
	static const struct {
		const char *mi;
		int64_t queue_ns, prefill_ns, decode_ns;
	} cases[] = {
		{ "{\"queue_time\":0.0025,\"request_received_ts\":1764850000.0,"
		  "\"prefill_finished_ts\":1764850000.0625,\"decode_finished_ts\":1764850000.1875}",
		  2500000, 60000000, 125000000 },
		{ "{\"queue_time\":-1,\"forward_entry_time\":1764850000.125,"
		  "\"prefill_finished_time\":1764850000.15625,\"inference_time\":0.25}",
		  -1, 31250000, 218750000 },
		{ "{\"queue_time\":1e300,\"forward_entry_time\":-5,"
		  "\"prefill_finished_time\":1764850000.15625,\"inference_time\":0.25}",
		  -1, -1, -1 },
		{ "{\"queue_time\":\"NaN\",\"forward_entry_time\":1764850000.25,"
		  "\"prefill_finished_time\":1764850000.125,\"inference_time\":0.25}",
		  -1, -1, -1 },
		{ "{\"queue_time\":0,\"forward_entry_time\":1e12,"
		  "\"prefill_finished_time\":1e12,\"inference_time\":0.25}",
		  0, -1, -1 },
		{ "{\"forward_entry_time\":1764850000.125,\"prefill_finished_time\":1764850000.25,"
		  "\"inference_time\":0.0625,\"request_finished_ts\":1764850000.375}",
		  -1, 125000000, 125000000 },
		{ "{\"queue_time\":0.001,\"request_received_ts\":1764850000.0,"
		  "\"prefill_finished_ts\":1764849999.0,\"decode_finished_ts\":[1]}",
		  1000000, -1, -1 },
	};
	size_t c;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char body[768];
		struct result r;
		struct meter m;

		snprintf(body, sizeof(body), "{\"choices\":[{\"index\":0,\"message\":"
			 "{\"role\":\"assistant\",\"content\":\"x\"},\"meta_info\":%s}],"
			 "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1,"
			 "\"total_tokens\":4}}", cases[c].mi);
		result_init(&r);
		meter_init(&m, &r, 0, 0);
		meter_end_body(&m, body, strlen(body), MS(300));
		CHECK(result_ok(&r));
		CHECK_EQ_INT(r.server.shape, SRVTIMING_SGLANG);
		CHECK_EQ_INT(r.server.queue_ns, cases[c].queue_ns);
		CHECK_EQ_INT(r.server.prefill_ns, cases[c].prefill_ns);
		CHECK_EQ_INT(r.server.decode_ns, cases[c].decode_ns);
		CHECK_EQ_INT(r.output_tokens, 1);
		meter_release(&m);
		result_release(&r);
	}
}

/* The non-streamed body of llama-server: cached_tokens 11 of 12. */
TEST(llama_server_body_reports_cached_tokens)
{
	size_t len;
	char *body = harness_slurp("tests/unit/fixtures", "llama-server-chat-nostream.json", &len);
	struct result r;
	struct meter m;

	CHECK(body != NULL);
	if (!body)
		return;
	result_init(&r);
	meter_init(&m, &r, 0, 0);
	meter_end_body(&m, body, len, MS(40));
	CHECK(result_ok(&r));
	CHECK_EQ_INT(r.cached_tokens, 11);
	CHECK_EQ_INT(r.input_tokens, 12);
	CHECK_EQ_INT(r.output_tokens, 5);
	meter_release(&m);
	result_release(&r);
	free(body);
}

/*
 * A cached count out of range marks the request as usage's other counts do;
 * one that is not a number at all is no count.
 */
TEST(hostile_cached_count)
{
	static const char negative[] =
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,"
		"\"prompt_tokens_details\":{\"cached_tokens\":-3}}}\n\n";
	static const char text[] =
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,"
		"\"prompt_tokens_details\":{\"cached_tokens\":\"3\"}}}\n\n";
	struct result r;
	struct meter m;

	result_init(&r);
	meter_init(&m, &r, 0, 0);
	feed(&m, answer, 1);
	feed(&m, negative, 2);
	feed(&m, done, 2);
	meter_end_stream(&m, MS(3));
	CHECK_STR(r.error, RESULT_ERR_MALFORMED);
	CHECK_EQ_INT(r.cached_tokens, -1);
	meter_release(&m);
	result_release(&r);

	result_init(&r);
	meter_init(&m, &r, 0, 0);
	feed(&m, answer, 1);
	feed(&m, text, 2);
	feed(&m, done, 2);
	meter_end_stream(&m, MS(3));
	CHECK(result_ok(&r));
	CHECK_EQ_INT(r.cached_tokens, -1);
	CHECK_EQ_INT(r.output_tokens, 2);
	meter_release(&m);
	result_release(&r);
}

/*
 * More tokens read from the cache than the server's own prompt count is no
 * count: the cached figure is left out, the request and its other counts
 * kept. Before: recorded as said, a cache hit of 10000% in the report.
 * Equal to the prompt is a figure.
 */
TEST(cached_count_above_the_prompt_left_out)
{
	static const char over[] =
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":16,\"completion_tokens\":2,"
		"\"prompt_tokens_details\":{\"cached_tokens\":1600}}}\n\n";
	static const char all[] =
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":16,\"completion_tokens\":2,"
		"\"prompt_tokens_details\":{\"cached_tokens\":16}}}\n\n";
	const char *const cases[] = { over, all };
	const int64_t want[] = { -1, 16 };
	size_t c;

	for (c = 0; c < 2; c++) {
		struct result r;
		struct meter m;

		result_init(&r);
		meter_init(&m, &r, 0, 0);
		feed(&m, answer, 1);
		feed(&m, cases[c], 2);
		feed(&m, done, 2);
		meter_end_stream(&m, MS(3));
		CHECK(result_ok(&r));
		CHECK_EQ_INT(r.input_tokens, 16);
		CHECK_EQ_INT(r.output_tokens, 2);
		CHECK_EQ_INT(r.cached_tokens, want[c]);
		meter_release(&m);
		result_release(&r);
	}
}

TEST(the_answer_is_kept_when_asked_and_cached_tokens_read)
{
	static const char other_choice[] =
		"data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\" no\"}}]}\n\n";
	static const char cached[] =
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3,"
		"\"prompt_tokens_details\":{\"cached_tokens\":8}}}\n\n";
	struct result r, plain;
	struct meter_answer kept = { 0 };
	struct meter m;

	result_init(&r);
	meter_init(&m, &r, MS(0), 0);
	m.keep = &kept;
	feed(&m, role, 1);
	feed(&m, reasoning, 2);         /* reasoning is not the answer */
	feed(&m, answer, 3);
	feed(&m, other_choice, 4);      /* nor another choice's */
	feed(&m, tool, 5);
	feed(&m, answer, 6);
	feed(&m, cached, 7);
	feed(&m, done, 7);
	meter_end_stream(&m, MS(8));
	CHECK(result_ok(&r));
	CHECK_STR(kept.content, " yes yes");
	CHECK_EQ_INT((long)kept.len, 8);
	CHECK_EQ_INT(r.cached_tokens, 8);
	meter_release(&m);
	meter_answer_release(&kept);
	result_release(&r);
	/* not asked (no keep): no details, cached tokens unknown */
	result_init(&plain);
	meter_init(&m, &plain, MS(0), 0);
	feed(&m, answer, 1);
	feed(&m, usage, 2);
	feed(&m, done, 2);
	meter_end_stream(&m, MS(3));
	CHECK_EQ_INT(plain.cached_tokens, -1);
	meter_release(&m);
	result_release(&plain);
	/* a non-streamed body: its message's content */
	result_init(&r);
	meter_init(&m, &r, MS(0), 0);
	m.keep = &kept;
	meter_end_body(&m, "{\"choices\":[{\"message\":{\"content\":\"whole\"}}]}", 45, MS(5));
	CHECK_STR(kept.content, "whole");
	meter_release(&m);
	meter_answer_release(&kept);
	result_release(&r);
}

TEST(tool_calls_are_assembled_from_their_fragments_when_asked)
{
	/* llama.cpp's stream of one call (id, type and name with empty
	 * arguments first, then the arguments in pieces, then a finish chunk
	 * "tool_calls"), and vLLM's second call interleaved */
	static const char *const chunks[] = {
		"data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null}}]}\n\n",
		"data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"v2dh\",\"type\":\"function\",\"function\":{\"name\":\"run_command\",\"arguments\":\"\"}}]}}]}\n\n",
		"data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"\"}}]}}]}\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"chatcmpl-tool-9\",\"type\":\"function\",\"function\":{\"name\":\"ls\"}}]}}]}\n\n",
		"data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"command\\\":\\\"pwd\\\"}\"}}]}}]}\n\n",
		"data: {\"choices\":[{\"index\":1,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"other choice\"}]}}]}\n\n",
		"data: {\"choices\":[{\"finish_reason\":\"tool_calls\",\"index\":0,\"delta\":{}}]}\n\n",
	};
	struct result r;
	struct meter_answer kept = { 0 };
	struct meter m;
	size_t i;

	result_init(&r);
	meter_init(&m, &r, MS(0), 0);
	m.keep = &kept;
	for (i = 0; i < sizeof(chunks) / sizeof(*chunks); i++)
		feed(&m, chunks[i], (int64_t)i + 1);
	feed(&m, done, 8);
	meter_end_stream(&m, MS(9));
	CHECK(result_ok(&r));
	CHECK(kept.content == NULL);
	CHECK_EQ_INT(r.token_events, 5);        /* the role and finish chunks carry none */
	CHECK_EQ_INT((long)kept.calls.n, 2);
	CHECK_STR(kept.calls.c[0].id, "v2dh");
	CHECK_STR(kept.calls.c[0].name, "run_command");
	CHECK_STR(kept.calls.c[0].args, "{\"command\":\"pwd\"}");
	CHECK_STR(kept.calls.c[1].id, "chatcmpl-tool-9");
	CHECK(kept.calls.c[1].args == NULL);
	meter_release(&m);
	meter_answer_release(&kept);
	result_release(&r);
	/* not asked (nowhere to keep it): the call's chunk measured alike, a
	 * token event, through the lean scan */
	result_init(&r);
	meter_init(&m, &r, MS(0), 0);
	feed(&m, chunks[1], 1);
	feed(&m, done, 2);
	meter_end_stream(&m, MS(3));
	CHECK(result_ok(&r));
	CHECK_EQ_INT(r.token_events, 1);
	meter_release(&m);
	result_release(&r);
	/* a whole body's message.tool_calls */
	result_init(&r);
	meter_init(&m, &r, MS(0), 0);
	m.keep = &kept;
	{
		static const char body[] = "{\"choices\":[{\"message\":{\"content\":null,\"tool_calls\":["
			"{\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}},"
			"{\"id\":\"b\",\"type\":\"function\",\"function\":{\"name\":\"g\",\"arguments\":\"[]\"}}]},"
			"\"finish_reason\":\"tool_calls\"}]}";

		meter_end_body(&m, body, sizeof(body) - 1, MS(5));
	}
	CHECK(result_ok(&r));
	CHECK_EQ_INT((long)kept.calls.n, 2);
	CHECK_STR(kept.calls.c[1].id, "b");
	CHECK_STR(kept.calls.c[1].args, "[]");
	meter_release(&m);
	meter_answer_release(&kept);
	result_release(&r);
	/* a hostile index fails the request as malformed */
	result_init(&r);
	meter_init(&m, &r, MS(0), 0);
	m.keep = &kept;
	feed(&m, "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1e9}]}}]}\n\n", 1);
	CHECK_STR(r.error, RESULT_ERR_MALFORMED);
	CHECK_STR(r.error_detail, "a tool call's index is not an integer from 0 to 127");
	meter_release(&m);
	meter_answer_release(&kept);
	result_release(&r);
}

/* replay --cancel tokens:N: the meter stops at the N-th token event,
 * also in the middle of bytes that carry more, and sets no error (the
 * caller says why it stopped). */
TEST(stop_tokens_stops_at_the_nth_event)
{
	char buf[1024];
	struct result r;
	struct meter m;

	snprintf(buf, sizeof(buf), "%s%s%s%s%s", role, answer, answer, answer, answer);
	result_init(&r);
	meter_init(&m, &r, MS(100), 0);
	m.stop_tokens = 2;
	CHECK_EQ_INT(meter_feed(&m, buf, strlen(buf), MS(150)), METER_STOPPED);
	CHECK_EQ_INT(m.token_events, 2);
	CHECK(result_ok(&r));
	meter_end_failed(&m, MS(151));
	CHECK_EQ_INT(r.output_tokens, 2);
	CHECK_EQ_INT(r.ttft_ns, MS(50));
	CHECK_EQ_INT(r.n_itl, 1);
	meter_release(&m);
	result_release(&r);
}

int main(void)
{
	RUN(tool_calls_are_assembled_from_their_fragments_when_asked);
	RUN(the_answer_is_kept_when_asked_and_cached_tokens_read);
	RUN(reasoning_then_answer);
	RUN(without_usage_tokens_are_counted_and_flagged);
	RUN(missing_done_is_incomplete);
	RUN(error_event_and_error_object_are_server_errors);
	RUN(garbage_event_is_malformed);
	RUN(event_over_the_cap_is_malformed);
	RUN(usage_out_of_range_marks_the_request);
	RUN(non_streamed_body_ttft_equals_e2e);
	RUN(llama_server_stream_reports_cached_tokens);
	RUN(llama_server_stream_without_usage_takes_cached_from_timings);
	RUN(llama_server_timings_are_read_from_every_shape);
	RUN(vllm_metrics_are_read_from_the_usage_chunk);
	RUN(hostile_timings_are_refused_field_by_field);
	RUN(sglang_meta_info_is_read_from_a_chat_body);
	RUN(hostile_sglang_meta_info_is_refused_field_by_field);
	RUN(llama_server_body_reports_cached_tokens);
	RUN(hostile_cached_count);
	RUN(cached_count_above_the_prompt_left_out);
	RUN(stop_tokens_stops_at_the_nth_event);
	return harness_done();
}
