/*
 * meter.c - measuring a response as it streams; see meter.h.
 */
#include "meter.h"
#include "chunk.h"
#include "strbuf.h"
#include "trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

/* Most gaps kept per request; a longer stream still counts its tokens. */
#define MAX_ITL (1u << 20)

static void token_event(struct meter *m, int answer)
{
	struct result *r = m->result;
	int64_t since = m->now_ns - m->start_ns;

	if (r->ttft_ns < 0) {
		r->ttft_ns = since;
	} else if (r->n_itl < MAX_ITL) {
		if (r->n_itl == m->itl_cap) {
			size_t cap = m->itl_cap ? m->itl_cap * 2 : 64;
			int64_t *n = realloc(r->itl_ns, cap * sizeof(*n));

			if (!n)
				goto count;
			r->itl_ns = n;
			m->itl_cap = cap;
		}
		r->itl_ns[r->n_itl++] = m->now_ns - m->last_token_ns;
	}
count:
	if (answer && r->ttfa_ns < 0)
		r->ttfa_ns = since;
	m->last_token_ns = m->now_ns;
	m->token_events++;
}

/* True for a choice whose "index" is there and not 0. */
static int index_nonzero(const cJSON *choice)
{
	const cJSON *i = cJSON_GetObjectItemCaseSensitive(choice, "index");

	return cJSON_IsNumber(i) && i->valuedouble != 0;
}

static int nonempty_string(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) && v->valuestring[0];
}

/* True for a count a server may report: an integer in [0, RESULT_MAX_TOKENS]. */
static int token_count(double v)
{
	return v >= 0 && v <= (double)RESULT_MAX_TOKENS && v == floor(v);
}

/* Folds usage's counts into m, each NULL when it is absent or not a number. */
static void fold_usage(struct meter *m, const double *ct, const double *pt, const double *cached)
{
	if (!ct)
		return;
	if (!token_count(*ct) || (pt && !token_count(*pt)) || (cached && !token_count(*cached))) {
		result_set_error(m->result, RESULT_ERR_MALFORMED, "usage holds a token count that is "
			  "negative, fractional or over 1e9");
		return;
	}
	m->have_usage = 1;
	m->usage_completion = (int64_t)*ct;
	if (pt)
		m->usage_prompt = (int64_t)*pt;
	if (cached)
		m->usage_cached = (int64_t)*cached;
}

static const double *number_of(const cJSON *v)
{
	return cJSON_IsNumber(v) ? &v->valuedouble : NULL;
}

static void read_usage(struct meter *m, const cJSON *obj)
{
	const cJSON *usage = cJSON_GetObjectItemCaseSensitive(obj, "usage");
	const cJSON *ct = cJSON_GetObjectItemCaseSensitive(usage, "completion_tokens");
	const cJSON *pt = cJSON_GetObjectItemCaseSensitive(usage, "prompt_tokens");
	const cJSON *details = cJSON_GetObjectItemCaseSensitive(usage, "prompt_tokens_details");
	const cJSON *cached = cJSON_GetObjectItemCaseSensitive(details, "cached_tokens");

	fold_usage(m, number_of(ct), number_of(pt), number_of(cached));
}

/* An error object inside a chunk or body: {"error": {"message": ...}}. */
static int read_error(struct meter *m, const cJSON *obj)
{
	const cJSON *err = cJSON_GetObjectItemCaseSensitive(obj, "error");
	char *text;

	if (!err || cJSON_IsNull(err))
		return 0;
	text = cJSON_PrintUnformatted(err);
	result_set_error(m->result, RESULT_ERR_SERVER, text ? text : "error");
	cJSON_free(text);
	return 1;
}

/* Appends answer text to the kept answer (m->keep); past
 * METER_MAX_ANSWER the request fails as malformed. */
static void keep_answer(struct meter *m, const cJSON *text)
{
	struct meter_answer *a = m->keep;
	size_t len;

	if (!a || !cJSON_IsString(text) || !result_ok(m->result))
		return;
	len = strlen(text->valuestring);
	if (len > METER_MAX_ANSWER - a->len - a->calls.bytes) {
		result_set_error(m->result, RESULT_ERR_MALFORMED, "answer longer than a session's "
				 "history keeps (16 MiB)");
		return;
	}
	if (strbuf_append(&a->content, &a->len, &a->cap, text->valuestring, len) < 0)
		result_set_error(m->result, RESULT_ERR_MALFORMED, "out of memory keeping the answer");
}

/* Keeps the response's id (m->keep) when it is one a later request can
 * name: short, of the characters ids are made of; another is not kept (a
 * session's next turn then sends its history). The latest one given wins. */
static void keep_response_id(struct meter *m, const char *id)
{
	struct meter_answer *a = m->keep;
	size_t len;

	if (!a || !id || !result_ok(m->result))
		return;
	len = strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-");
	if (len == 0 || id[len] || len >= METER_RESPONSE_ID_MAX)
		return;
	if (a->response_id && strcmp(a->response_id, id) == 0)
		return;
	free(a->response_id);
	a->response_id = strdup(id);   /* out of memory: none, the history is sent */
}

/* Folds a tool_calls array of choice 0 into the kept answer (m->keep):
 * its calls share the answer's cap; a server breaking toolcall.h's rules
 * fails the request as malformed. */
static void keep_tool_calls(struct meter *m, const cJSON *arr)
{
	struct meter_answer *a = m->keep;
	const char *why;

	if (!a || !arr || !result_ok(m->result))
		return;
	a->calls.max_bytes = METER_MAX_ANSWER - a->len;
	if (toolcalls_feed(&a->calls, arr, &why) < 0)
		result_set_error(m->result, RESULT_ERR_MALFORMED, why);
}

/*
 * One streamed chunk. It carries a token when any choice has answer text
 * (delta.content, or text for /v1/completions), reasoning text
 * (delta.reasoning_content or delta.reasoning) or a tool call; a role-only
 * chunk carries none.
 */
static void handle_chunk(struct meter *m, const cJSON *obj)
{
	const cJSON *choices = cJSON_GetObjectItemCaseSensitive(obj, "choices");
	const cJSON *choice;
	int answer = 0, other = 0;

	if (read_error(m, obj))
		return;
	read_usage(m, obj);
	srvtiming_read(obj, &m->result->server);
	cJSON_ArrayForEach(choice, choices) {
		const cJSON *delta = cJSON_GetObjectItemCaseSensitive(choice, "delta");
		const cJSON *tools = cJSON_GetObjectItemCaseSensitive(delta, "tool_calls");

		if (nonempty_string(delta, "content") || nonempty_string(choice, "text"))
			answer = 1;
		if (!index_nonzero(choice)) {
			keep_answer(m, cJSON_GetObjectItemCaseSensitive(delta, "content"));
			keep_answer(m, cJSON_GetObjectItemCaseSensitive(choice, "text"));
			keep_tool_calls(m, tools);
		}
		if (nonempty_string(delta, "reasoning_content") || nonempty_string(delta, "reasoning") ||
		    cJSON_GetArraySize(tools) > 0 ||
		    cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(delta, "function_call")))
			other = 1;
	}
	if (answer || other)
		token_event(m, answer);
}

/*
 * One streamed chunk read by lib/chunk.h's lean scan, which agrees with
 * handle_chunk. Returns -1 when the chunk is left to handle_chunk: the
 * scan is unsure, the answer is kept (it needs cJSON's strings and tool
 * calls) or m->full_parse asks for it.
 */
static int scan_chunk(struct meter *m, const char *data, size_t len)
{
	struct chunk c;

	if (m->full_parse || m->keep || chunk_scan(data, len, &c) != CHUNK_OK)
		return -1;
	fold_usage(m, c.has_completion ? &c.completion : NULL, c.has_prompt ? &c.prompt : NULL,
		   c.has_cached ? &c.cached : NULL);
	if (c.answer || c.reasoning)
		token_event(m, c.answer);
	return 0;
}

/* A server error of typed events: "type: message", or what there is. */
static void typed_error(struct meter *m, const struct typed_event *e)
{
	char detail[RESULT_DETAIL_MAX];

	if (e->error_type && e->error_message)
		snprintf(detail, sizeof(detail), "%s: %s", e->error_type, e->error_message);
	else
		snprintf(detail, sizeof(detail), "%s", e->error_message ? e->error_message :
			 e->error_type ? e->error_type : "error event without a message");
	result_set_error(m->result, RESULT_ERR_SERVER, detail);
}

/* Folds a typed event's usage into m: the input and cached counts when
 * given (message_start gives them before any output count), the output
 * count when given, each range-checked as fold_usage does. */
static void typed_usage(struct meter *m, const struct typed_event *e)
{
	if ((e->has_output && !token_count(e->output)) || (e->has_input && !token_count(e->input)) ||
	    (e->has_cached && !token_count(e->cached))) {
		result_set_error(m->result, RESULT_ERR_MALFORMED, "usage holds a token count that is "
			  "negative, fractional or over 1e9");
		return;
	}
	if (e->has_input)
		m->usage_prompt = (int64_t)e->input;
	if (e->has_cached)
		m->usage_cached = (int64_t)e->cached;
	if (e->has_output) {
		m->have_usage = 1;
		m->usage_completion = (int64_t)e->output;
	}
}

/* Whether obj's "type" is the string t. */
static int type_is(const cJSON *obj, const char *t)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, "type"));

	return v && strcmp(v, t) == 0;
}

/*
 * A Messages stream's tool use (m->keep), folded into the answer's
 * calls as chat's delta.tool_calls would bring them: a tool_use block's
 * start gives the call of the block's index its id and name, each
 * input_json_delta a piece of its arguments (the input's JSON).
 */
static void keep_messages_call(struct meter *m, const cJSON *obj)
{
	const cJSON *index = cJSON_GetObjectItemCaseSensitive(obj, "index");
	const cJSON *block = cJSON_GetObjectItemCaseSensitive(obj, "content_block");
	const cJSON *delta = cJSON_GetObjectItemCaseSensitive(obj, "delta");
	int start = type_is(obj, "content_block_start") && type_is(block, "tool_use");
	cJSON *arr, *call, *fn;

	if (!m->keep || !cJSON_IsNumber(index) ||
	    !(start || (type_is(obj, "content_block_delta") && type_is(delta, "input_json_delta"))))
		return;
	call = cJSON_CreateObject();
	fn = call ? cJSON_AddObjectToObject(call, "function") : NULL;
	if (!fn || !cJSON_AddItemToObject(call, "index", cJSON_Duplicate(index, 0))) {
		cJSON_Delete(call);
		result_set_error(m->result, RESULT_ERR_MALFORMED, "out of memory keeping a tool call");
		return;
	}
	if (start) {
		cJSON_AddItemToObject(call, "id",
				      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(block, "id"), 0));
		cJSON_AddItemToObject(fn, "name",
				      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(block, "name"), 0));
	} else {
		cJSON_AddItemToObject(fn, "arguments", cJSON_Duplicate(
			cJSON_GetObjectItemCaseSensitive(delta, "partial_json"), 0));
	}
	arr = cJSON_CreateArray();
	if (!arr || !cJSON_AddItemToArray(arr, call)) {
		cJSON_Delete(arr);
		cJSON_Delete(call);
		result_set_error(m->result, RESULT_ERR_MALFORMED, "out of memory keeping a tool call");
		return;
	}
	keep_tool_calls(m, arr);
	cJSON_Delete(arr);
}

/* One event of the Messages or Responses API (lib/typed.h). */
static void handle_typed(struct meter *m, const char *event, const cJSON *obj)
{
	struct typed_event e;

	typed_event_read(m->api, event, obj, &e);
	if (e.error) {
		typed_error(m, &e);
		return;
	}
	typed_usage(m, &e);
	keep_response_id(m, e.response_id);
	if (m->api == TYPED_MESSAGES && e.token == TYPED_TOOL)
		keep_messages_call(m, obj);
	if (e.end)
		m->done_seen = 1;
	if (e.token == TYPED_ANSWER)
		keep_answer(m, e.text);
	if (e.token != TYPED_NO_TOKEN)
		token_event(m, e.token == TYPED_ANSWER);
}

static int on_event_read(void *ctx, const char *event, const char *data, size_t len)
{
	struct meter *m = ctx;
	cJSON *obj;

	if (len == 6 && memcmp(data, "[DONE]", 6) == 0) {
		m->done_seen = 1;
		return 0;
	}
	if (m->api != TYPED_NONE) {     /* typed events: each one read by cJSON */
		obj = cJSON_ParseWithLength(data, len);
		if (cJSON_IsObject(obj))
			handle_typed(m, event, obj);
		else if (strcmp(event, "error") == 0)
			result_set_error(m->result, RESULT_ERR_SERVER, data);
		else
			result_set_error(m->result, RESULT_ERR_MALFORMED, "event is not a JSON object");
		cJSON_Delete(obj);
		return 0;
	}
	if (strcmp(event, "error") == 0) {
		result_set_error(m->result, RESULT_ERR_SERVER, data);
		return 0;
	}
	if (scan_chunk(m, data, len) == 0)
		return 0;
	obj = cJSON_ParseWithLength(data, len);
	if (!cJSON_IsObject(obj)) {
		char detail[96];

		snprintf(detail, sizeof(detail), "event is not a JSON object: %.60s", data);
		result_set_error(m->result, RESULT_ERR_MALFORMED, detail);
	} else {
		handle_chunk(m, obj);
	}
	cJSON_Delete(obj);
	return 0;
}

/*
 * The parser's callback: reads the event, then stops the parser once
 * stop_tokens token events are in, in the middle of a read of several
 * events if need be, so that a cancel after N tokens receives N (an
 * event carrying several tokens counts once).
 */
static int on_event(void *ctx, const char *event, const char *data, size_t len)
{
	struct meter *m = ctx;

	on_event_read(ctx, event, data, len);
	if (m->stop_tokens > 0 && m->token_events >= m->stop_tokens)
		return METER_STOPPED;
	return 0;
}

void meter_init(struct meter *m, struct result *r, int64_t start_ns, size_t max_event)
{
	memset(m, 0, sizeof(*m));
	m->result = r;
	m->start_ns = start_ns;
	m->usage_cached = -1;
	sse_parser_init(&m->sse, max_event, on_event, m);
}

void meter_set_kind(struct meter *m, const char *kind)
{
	m->plain = !trace_kind_is_inference(kind);
	m->api = typed_api_of_kind(kind);
}

void meter_answer_release(struct meter_answer *a)
{
	free(a->content);
	toolcalls_release(&a->calls);
	free(a->response_id);
	memset(a, 0, sizeof(*a));
}

void meter_release(struct meter *m)
{
	sse_parser_release(&m->sse);
}

int meter_feed(struct meter *m, const char *buf, size_t len, int64_t now_ns)
{
	int rc;

	m->now_ns = now_ns;
	rc = sse_parser_feed(&m->sse, buf, len);
	if (rc == METER_STOPPED)
		return rc;
	if (rc != SSE_OK) {
		char detail[128];

		if (rc == SSE_ETOOBIG)
			snprintf(detail, sizeof(detail), "SSE stream: %s (%zu bytes)",
				 sse_strerror(rc), m->sse.max_event);
		else
			snprintf(detail, sizeof(detail), "SSE stream: %s", sse_strerror(rc));
		result_set_error(m->result, RESULT_ERR_MALFORMED, detail);
	}
	return rc;
}

static void count_tokens(struct meter *m, int64_t now_ns)
{
	struct result *r = m->result;

	r->e2e_ns = now_ns - m->start_ns;
	r->output_tokens = m->have_usage ? m->usage_completion : m->token_events;
	r->tokens_estimated = !m->have_usage;
	r->tokens_source = m->have_usage ? RESULT_TOKENS_USAGE : RESULT_TOKENS_EVENTS;
	r->token_events = m->token_events;
	r->cached_tokens = m->have_usage ? m->usage_cached : -1;
	if (r->cached_tokens < 0)       /* llama.cpp says it in its timings too */
		r->cached_tokens = r->server.cache_n;
	if (m->have_usage && m->usage_prompt > 0) {
		r->input_tokens = m->usage_prompt;
		/* more of the prompt read from the cache than the prompt the
		 * same server counted is no count: left out, the rest kept */
		if (r->cached_tokens > m->usage_prompt)
			r->cached_tokens = -1;
	}
}

void meter_end_stream(struct meter *m, int64_t now_ns)
{
	if (!m->done_seen) {
		char detail[96];

		snprintf(detail, sizeof(detail), "stream ended %swithout %s",
			 sse_parser_pending(&m->sse) ? "inside an event, " : "",
			 typed_end_name(m->api));
		result_set_error(m->result, RESULT_ERR_INCOMPLETE, detail);
	}
	count_tokens(m, now_ns);
}

static void keep_body_text(void *ctx, const cJSON *text)
{
	keep_answer(ctx, text);
}

/* A whole Messages or Responses body: its usage, error and answer. */
static void typed_body(struct meter *m, const cJSON *obj, int64_t now_ns)
{
	struct result *r = m->result;
	struct typed_event e;

	typed_body_read(m->api, obj, &e);
	if (e.error) {
		typed_error(m, &e);
		return;
	}
	typed_usage(m, &e);
	keep_response_id(m, e.response_id);
	typed_body_text(m->api, obj, keep_body_text, m);
	r->ttft_ns = r->ttfa_ns = now_ns - m->start_ns;
	r->unstreamed = true;
	m->token_events = 1;
}

void meter_end_body(struct meter *m, const char *body, size_t len, int64_t now_ns)
{
	struct result *r = m->result;
	cJSON *obj;

	if (m->plain) {
		r->unstreamed = true;
		r->e2e_ns = now_ns - m->start_ns;
		r->output_tokens = 0;
		return;
	}
	obj = cJSON_ParseWithLength(body ? body : "", len);
	if (!cJSON_IsObject(obj)) {
		result_set_error(r, RESULT_ERR_MALFORMED, "response body is not a JSON object");
	} else if (m->api != TYPED_NONE) {
		typed_body(m, obj, now_ns);
	} else if (!read_error(m, obj)) {
		const cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(obj, "choices"), 0);
		const cJSON *msg = cJSON_GetObjectItemCaseSensitive(c0, "message");

		read_usage(m, obj);
		srvtiming_read(obj, &r->server);
		keep_answer(m, cJSON_GetObjectItemCaseSensitive(msg, "content"));
		keep_tool_calls(m, cJSON_GetObjectItemCaseSensitive(msg, "tool_calls"));
		keep_answer(m, cJSON_GetObjectItemCaseSensitive(c0, "text"));
		r->ttft_ns = r->ttfa_ns = now_ns - m->start_ns;
		r->unstreamed = true;
		m->token_events = 1;
	}
	cJSON_Delete(obj);
	count_tokens(m, now_ns);
}

void meter_end_failed(struct meter *m, int64_t now_ns)
{
	count_tokens(m, now_ns);
}
