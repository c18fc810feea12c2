/*
 * test_chunk.c - the lean chunk scan (lib/chunk.h) reads real llama-server
 * chunks itself, with the facts the meter needs, and leaves to cJSON what
 * cJSON reads its own way; either way the meter's result is the one of
 * the cJSON reading alone (meter.full_parse).
 */
#include "harness.h"
#include "lib/chunk.h"
#include "lib/meter.h"

#include <stdlib.h>

static int scan(const char *json, struct chunk *c)
{
	return chunk_scan(json, strlen(json), c);
}

/* What the scan made of a stream's events. */
struct tally {
	int events, unsure, answer, reasoning;
	struct chunk last;     /* of the last event read */
};

static int tally_event(void *ctx, const char *event, const char *data, size_t len)
{
	struct tally *t = ctx;
	struct chunk c;

	(void)event;
	if (strcmp(data, "[DONE]") == 0)
		return 0;
	t->events++;
	if (chunk_scan(data, len, &c) != CHUNK_OK) {
		t->unsure++;
		return 0;
	}
	t->answer += c.answer;
	t->reasoning += c.reasoning;
	t->last = c;
	return 0;
}

static struct tally tally_file(const char *name)
{
	struct tally t = { 0 };
	struct sse_parser p;
	size_t len;
	char *sse = harness_slurp("tests/fixtures/llama-server", name, &len);

	CHECK(sse != NULL);
	if (!sse)
		return t;
	sse_parser_init(&p, 0, tally_event, &t);
	CHECK_EQ_INT(sse_parser_feed(&p, sse, len), SSE_OK);
	sse_parser_release(&p);
	free(sse);
	return t;
}

/* Meters the stream s in pieces of 'step' bytes, a millisecond apart,
 * with the scan (full 0) or cJSON alone (full 1). */
static void meter_stream(struct result *r, int full, const char *s, size_t len, size_t step)
{
	struct meter m;
	size_t off;

	result_init(r);
	meter_init(&m, r, 0, 0);
	m.full_parse = full;
	for (off = 0; off < len; off += step)
		meter_feed(&m, s + off, off + step < len ? step : len - off, (int64_t)(off + 1) * 1000000);
	meter_end_stream(&m, (int64_t)(len + 1) * 1000000);
	meter_release(&m);
}

/* True when the scan's and cJSON's results of stream s are the same. */
static int agree(const char *s, size_t len, size_t step, struct result *lean)
{
	struct result full;
	int same;
	size_t i;

	meter_stream(lean, 0, s, len, step);
	meter_stream(&full, 1, s, len, step);
	same = lean->ttft_ns == full.ttft_ns && lean->ttfa_ns == full.ttfa_ns &&
	       lean->e2e_ns == full.e2e_ns && lean->n_itl == full.n_itl &&
	       lean->token_events == full.token_events && lean->output_tokens == full.output_tokens &&
	       lean->input_tokens == full.input_tokens && lean->cached_tokens == full.cached_tokens &&
	       lean->tokens_source == full.tokens_source &&
	       lean->tokens_estimated == full.tokens_estimated &&
	       lean->server.shape == full.server.shape &&
	       lean->server.queue_ns == full.server.queue_ns &&
	       lean->server.prefill_ns == full.server.prefill_ns &&
	       lean->server.decode_ns == full.server.decode_ns &&
	       strcmp(lean->error, full.error) == 0 &&
	       !lean->error_detail == !full.error_detail &&
	       (!lean->error_detail || strcmp(lean->error_detail, full.error_detail) == 0);
	for (i = 0; same && i < lean->n_itl; i++)
		same = lean->itl_ns[i] == full.itl_ns[i];
	result_release(&full);
	return same;
}

/* Every chunk of llama-server's streams but the one with its timings is
 * read by the scan: answer and reasoning as the captures hold them. The
 * last, with usage and timings (lib/srvtiming.h), is left to cJSON: once a
 * stream, and test_meter.c reads both from it. */
TEST(llama_server_chunks_are_read_lean)
{
	struct tally t = tally_file("chat-stream-usage.sse");

	/* role-only chunk ("content":null), 8 tokens, finish, usage chunk */
	CHECK_EQ_INT(t.events, 11);
	CHECK_EQ_INT(t.unsure, 1);
	CHECK_EQ_INT(t.answer, 8);
	CHECK_EQ_INT(t.reasoning, 0);

	t = tally_file("chat-reasoning.sse");
	CHECK_EQ_INT(t.unsure, 1);
	CHECK_EQ_INT(t.reasoning, 4);
	CHECK_EQ_INT(t.answer, 7);

	t = tally_file("completions-stream.sse");      /* "text", usage on the last */
	CHECK_EQ_INT(t.events, 7);
	CHECK_EQ_INT(t.unsure, 1);
	CHECK_EQ_INT(t.answer, 6);
}

/* The meter's results through the scan are cJSON's, cut any way. */
TEST(llama_server_streams_meter_as_with_cjson)
{
	static const char *const files[] = {
		"chat-stream-usage.sse", "chat-reasoning.sse", "completions-stream.sse",
	};
	static const size_t steps[] = { 1, 7, 4096 };
	size_t i, j, len;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *sse = harness_slurp("tests/fixtures/llama-server", files[i], &len);

		CHECK(sse != NULL);
		for (j = 0; sse && j < sizeof(steps) / sizeof(steps[0]); j++) {
			struct result r;

			CHECK(agree(sse, len, steps[j], &r));
			CHECK(result_ok(&r));
			CHECK_EQ_INT(r.tokens_source, RESULT_TOKENS_USAGE);
			CHECK(r.ttfa_ns >= r.ttft_ns && r.ttft_ns > 0);
			result_release(&r);
		}
		free(sse);
	}
}

/* The error object llama-server answers a too-long prompt with, as a
 * stream's event: cJSON's path prints it into the detail. */
TEST(error_event_is_left_to_cjson)
{
	char sse[512];
	size_t len;
	char *body = harness_slurp("tests/fixtures/llama-server", "error-too-long.body", &len);
	struct chunk c;
	struct result r;

	CHECK(body != NULL);
	if (!body)
		return;
	CHECK_EQ_INT(chunk_scan(body, len, &c), CHUNK_EUNSURE);
	snprintf(sse, sizeof(sse), "data: %s\n\ndata: [DONE]\n\n", body);
	CHECK(agree(sse, strlen(sse), 5, &r));
	CHECK_STR(r.error, RESULT_ERR_SERVER);
	CHECK(r.error_detail && strstr(r.error_detail, "exceed_context_size_error"));
	result_release(&r);
	free(body);
	/* a null error is none */
	CHECK_EQ_INT(scan("{\"error\":null,\"choices\":[]}", &c), CHUNK_OK);
}

/* Chunks the scan reads itself, and what it reads. */
TEST(what_the_scan_reads)
{
	static const struct {
		const char *json;
		int answer, reasoning;
	} ok[] = {
		{ "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}", 0, 0 },
		{ "{\"choices\":[{\"delta\":{\"content\":\"a\\u00e9\\n\\\"\"}}]}", 1, 0 },
		{ "{\"choices\":[{\"delta\":{\"content\":\"\\n\"}}]}", 1, 0 },     /* a token that is an escape */
		{ "{\"choices\":[{\"delta\":{\"reasoning_content\":\"\\u0001\"}}]}", 0, 1 },
		{ " {\"choices\" : [ {\"delta\":{\"reasoning\":\"r\"}} , {\"text\":\"t\"} ] }\r\n", 1, 1 },
		{ "{\"choices\":[{\"delta\":{\"content\":null,\"tool_calls\":[],\"function_call\":null}}]}", 0, 0 },
		{ "{\"choices\":[1,\"x\",null,[{\"text\":\"in an array\"}]],\"delta\":{\"content\":\"top\"}}", 0, 0 },
		{ "{\"choices\":[{\"delta\":[{\"content\":\"x\"}],\"text\":7}]}", 0, 0 },
		{ "{\"choices\":[{\"text\":\"\xC3\xA9\"}],\"x\":{\"text\":\"not a choice\"}}", 1, 0 },
		{ "{\"a\":[true,false,null,-0.5e+3,0,{\"b\":{}}],\"choices\":\"none\"}", 0, 0 },
	};
	struct chunk c;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int rc = scan(ok[i].json, &c);

		CHECK_EQ_INT(rc, CHUNK_OK);
		if (rc != CHUNK_OK)
			printf("  not read: %s\n", ok[i].json);
		CHECK_EQ_INT(c.answer, ok[i].answer);
		CHECK_EQ_INT(c.reasoning, ok[i].reasoning);
	}
	/* usage: plain integers, exact up to 15 digits */
	CHECK_EQ_INT(scan("{\"usage\":{\"completion_tokens\":999999999999999,\"prompt_tokens\":0,"
			  "\"prompt_tokens_details\":{\"cached_tokens\":7}}}", &c), CHUNK_OK);
	CHECK(c.has_completion && c.has_prompt && c.has_cached);
	CHECK_NEAR(c.completion, 999999999999999.0, 0);
	CHECK_NEAR(c.prompt, 0, 0);
	CHECK_NEAR(c.cached, 7, 0);
	CHECK_EQ_INT(scan("{\"usage\":{\"completion_tokens\":\"3\",\"prompt_tokens_details\":[1]}}",
			  &c), CHUNK_OK);
	CHECK(!c.has_completion && !c.has_cached);
}

/*
 * What the scan leaves to cJSON, and the meter's result then: cJSON's
 * (where cJSON and a strict reading differ, the comment says how).
 */
TEST(the_rest_is_left_to_cjson)
{
	static const char *const unsure[] = {
		"{\"choices\":[{\"delta\":{\"content\":\"\\u0000x\"}}]}",   /* cJSON: "" */
		"{\"choices\":[{\"delta\":{\"content\":\"x\\u0000\"}}]}",
		"{\"choices\":[{\"delta\":{\"content\":\"\\ud83d\\ude00\"}}]}",
		"{\"choices\":[{\"delta\":{\"content\":\"x\\udc00\"}}]}",   /* cJSON: refused */
		"{\"choices\":[{\"delta\":{\"content\":\"\\x\"}}]}",        /* no such escape */
		"{\"choices\":[{\"delta\":{\"content\":\"\\u00zz\"}}]}",
		"{\"choices\":[{\"delta\":{\"content\":\"a\tb\"}}]}",       /* raw control byte */
		"{\"choices\":[],\"choices\":[{\"delta\":{\"content\":\"x\"}}]}",   /* cJSON: the first */
		"{\"choices\":[{\"delta\":{\"content\":\"\"},\"delta\":{\"content\":\"x\"}}]}",
		"{\"usage\":{\"completion_tokens\":1,\"completion_tokens\":2}}",
		"{\"choices\":[]}x",                                       /* cJSON: bytes after it */
		"{\"choices\":[]}{}",
		"\xEF\xBB\xBF{\"choices\":[]}",                            /* cJSON: a BOM */
		"{\"choices\":\v[]}",                                      /* cJSON: any byte <= 32 */
		"{\"a\":01}",                                              /* cJSON: 1 */
		"{\"a\":1.}", "{\"a\":.5}", "{\"a\":-}", "{\"a\":1e}", "{\"a\":+1}",
		"{\"a\":1234567890123456789012345678901234567890}",        /* past 32 bytes */
		"{\"a\":[1,]}", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{\"a\":tru}", "{\"a\":nul",
		"{\"choices\":[", "", "   ", "[]", "\"x\"", "7", "null",
		"{\"error\":{\"message\":\"boom\"}}", "{\"error\":\"\"}",
		"{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0}]}}]}",
		"{\"choices\":[{\"delta\":{\"tool_calls\":{}}}]}",
		"{\"choices\":[{\"delta\":{\"function_call\":{}}}]}",
		"{\"choices\":{\"a\":{\"text\":\"x\"}}}",                  /* cJSON: walks it */
		"{\"us\\u0061ge\":{\"completion_tokens\":3}}",             /* cJSON: "usage" */
		"{\"usage\":{\"completion_tokens\":-1}}",
		"{\"usage\":{\"completion_tokens\":2.5}}",
		"{\"usage\":{\"completion_tokens\":1e3}}",
		"{\"usage\":{\"completion_tokens\":1000000000000000}}",   /* 16 digits */
		"{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":-0}}}",
		/* a server's own timings, once a request (lib/srvtiming.h) */
		"{\"choices\":[],\"timings\":{\"prompt_ms\":2.5,\"predicted_ms\":9}}",
		"{\"choices\":[],\"metrics\":{\"queue_time_ms\":1,\"generation_time_ms\":2}}",
		"{\"choices\":[],\"metrics\":{}}",
	};
	char deep[2 * (CHUNK_MAX_DEPTH + 1) + 16], sse[256];
	struct chunk c;
	struct result r;
	size_t i, n;

	for (i = 0; i < sizeof(unsure) / sizeof(unsure[0]); i++) {
		CHECK_EQ_INT(scan(unsure[i], &c), CHUNK_EUNSURE);
		snprintf(sse, sizeof(sse), "data: %s\n\ndata: [DONE]\n\n", unsure[i]);
		CHECK(agree(sse, strlen(sse), 3, &r));
		result_release(&r);
	}
	/* where the readings differ, the result is cJSON's */
	snprintf(sse, sizeof(sse), "data: %s\n\ndata: [DONE]\n\n", unsure[0]);
	agree(sse, strlen(sse), 64, &r);
	CHECK(result_ok(&r));
	CHECK_EQ_INT(r.token_events, 0);        /* "\u0000x" is "" to cJSON */
	result_release(&r);
	snprintf(sse, sizeof(sse), "data: %s\n\ndata: [DONE]\n\n", unsure[8]);
	agree(sse, strlen(sse), 64, &r);
	CHECK_EQ_INT(r.token_events, 0);        /* the first "choices" */
	result_release(&r);
	snprintf(sse, sizeof(sse), "data: {\"choices\":[{\"text\":\"x\"}]}x\n\ndata: [DONE]\n\n");
	agree(sse, strlen(sse), 64, &r);
	CHECK(result_ok(&r));                   /* bytes after the value pass */
	CHECK_EQ_INT(r.token_events, 1);
	result_release(&r);

	/* nesting: CHUNK_MAX_DEPTH levels are read, one more is not */
	for (n = 0; n < 2; n++) {
		size_t depth = CHUNK_MAX_DEPTH - 1 + n, k, at = 0;

		at += (size_t)snprintf(deep, sizeof(deep), "{\"a\":");
		for (k = 0; k < depth; k++)
			deep[at++] = '[';
		for (k = 0; k < depth; k++)
			deep[at++] = ']';
		deep[at++] = '}';
		deep[at] = '\0';
		CHECK_EQ_INT(chunk_scan(deep, at, &c), n ? CHUNK_EUNSURE : CHUNK_OK);
	}
	/* data not NUL-terminated at len: not read */
	CHECK_EQ_INT(chunk_scan("{}x", 2, &c), CHUNK_EUNSURE);
	CHECK_EQ_INT(chunk_scan("{}", 2, &c), CHUNK_OK);
}

int main(void)
{
	RUN(llama_server_chunks_are_read_lean);
	RUN(llama_server_streams_meter_as_with_cjson);
	RUN(error_event_is_left_to_cjson);
	RUN(what_the_scan_reads);
	RUN(the_rest_is_left_to_cjson);
	return harness_done();
}
