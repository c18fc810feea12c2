/*
 * typed.c - reading the typed events of the Messages and Responses APIs;
 * see typed.h.
 *
 * Each API's events are looked up by type in a table of its own, the
 * handler reading the members that event type has. A member that is
 * absent or of another JSON type reads as absent: what a server left out
 * cannot make a token, and counts that are not numbers are not counts.
 */
#include "typed.h"
#include "trace.h"

#include <string.h>

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static const char *string_of(const cJSON *o, const char *key)
{
	return cJSON_GetStringValue(get(o, key));
}

static bool nonempty(const cJSON *o, const char *key)
{
	const char *s = string_of(o, key);

	return s && s[0];
}

/* Adds o's number 'key' to *sum, setting *has; absent or not a number:
 * nothing. */
static void add_count(const cJSON *o, const char *key, bool *has, double *sum)
{
	const cJSON *v = get(o, key);

	if (!cJSON_IsNumber(v))
		return;
	*sum = *has ? *sum + v->valuedouble : v->valuedouble;
	*has = true;
}

/* A token of kind 'token' when o's 'key' is a non-empty string; an answer
 * keeps the string for the session's history. */
static void token_if(struct typed_event *e, const cJSON *o, const char *key,
		     enum typed_token token)
{
	if (!nonempty(o, key))
		return;
	e->token = token;
	if (token == TYPED_ANSWER)
		e->text = get(o, key);
}

/* An error object: {"type" or "code": ..., "message": ...}; a Responses
 * error event has its fields beside its own "type": "error". */
static void read_error(struct typed_event *e, const cJSON *err)
{
	e->error = true;
	e->error_type = string_of(err, "type");
	if (!e->error_type || strcmp(e->error_type, "error") == 0)
		e->error_type = string_of(err, "code");
	e->error_message = string_of(err, "message");
}

/* ---- Anthropic Messages ------------------------------------------------ */

/* A Messages usage object. input_tokens counts only what follows the last
 * cache breakpoint; the prompt is it plus what was written to and read
 * from the cache. message_start's output_tokens is a count so far (1, or
 * 0), never the answer's: only message_delta's is read. */
static void messages_usage(struct typed_event *e, const cJSON *usage, bool output)
{
	add_count(usage, "input_tokens", &e->has_input, &e->input);
	add_count(usage, "cache_creation_input_tokens", &e->has_input, &e->input);
	add_count(usage, "cache_read_input_tokens", &e->has_input, &e->input);
	add_count(usage, "cache_read_input_tokens", &e->has_cached, &e->cached);
	if (output)
		add_count(usage, "output_tokens", &e->has_output, &e->output);
}

/* A content block as content_block_start opens it: its first text, its
 * first thinking, or a tool's name (a call's first token, as chat's first
 * tool_calls fragment). */
static void messages_block(struct typed_event *e, const cJSON *block)
{
	const char *type = string_of(block, "type");

	if (!type)
		return;
	if (strcmp(type, "text") == 0)
		token_if(e, block, "text", TYPED_ANSWER);
	else if (strcmp(type, "thinking") == 0)
		token_if(e, block, "thinking", TYPED_REASONING);
	else if (strcmp(type, "tool_use") == 0 || strcmp(type, "server_tool_use") == 0)
		e->token = TYPED_TOOL;
}

/* content_block_delta's delta. signature_delta and citations_delta carry
 * no token. */
static void messages_delta(struct typed_event *e, const cJSON *delta)
{
	const char *type = string_of(delta, "type");

	if (!type)
		return;
	if (strcmp(type, "text_delta") == 0)
		token_if(e, delta, "text", TYPED_ANSWER);
	else if (strcmp(type, "thinking_delta") == 0)
		token_if(e, delta, "thinking", TYPED_REASONING);
	else if (strcmp(type, "input_json_delta") == 0)
		token_if(e, delta, "partial_json", TYPED_TOOL);
}

static void messages_event(const char *type, const cJSON *obj, struct typed_event *e)
{
	if (strcmp(type, "content_block_delta") == 0)
		messages_delta(e, get(obj, "delta"));
	else if (strcmp(type, "content_block_start") == 0)
		messages_block(e, get(obj, "content_block"));
	else if (strcmp(type, "message_start") == 0)
		messages_usage(e, get(get(obj, "message"), "usage"), false);
	else if (strcmp(type, "message_delta") == 0)
		messages_usage(e, get(obj, "usage"), true);
	else if (strcmp(type, "message_stop") == 0)
		e->end = true;
	else if (strcmp(type, "error") == 0)
		read_error(e, get(obj, "error"));
	/* ping, content_block_stop and types to come: nothing */
}

/* ---- OpenAI Responses -------------------------------------------------- */

/* A response's usage: input_tokens counts the cached ones too. */
static void responses_usage(struct typed_event *e, const cJSON *usage)
{
	add_count(usage, "input_tokens", &e->has_input, &e->input);
	add_count(get(usage, "input_tokens_details"), "cached_tokens", &e->has_cached, &e->cached);
	add_count(usage, "output_tokens", &e->has_output, &e->output);
}

static void responses_event(const char *type, const cJSON *obj, struct typed_event *e)
{
	static const char prefix[] = "response.";
	const char *t;

	if (strncmp(type, prefix, sizeof(prefix) - 1) != 0) {
		if (strcmp(type, "error") == 0)     /* the fields at the top, or nested */
			read_error(e, cJSON_IsObject(get(obj, "error")) ? get(obj, "error") : obj);
		return;
	}
	t = type + sizeof(prefix) - 1;
	if (strcmp(t, "output_text.delta") == 0 || strcmp(t, "refusal.delta") == 0)
		token_if(e, obj, "delta", TYPED_ANSWER);
	else if (strcmp(t, "reasoning_text.delta") == 0 ||
		 strcmp(t, "reasoning_summary_text.delta") == 0)
		token_if(e, obj, "delta", TYPED_REASONING);
	else if (strcmp(t, "function_call_arguments.delta") == 0)
		token_if(e, obj, "delta", TYPED_TOOL);
	else if (strcmp(t, "output_item.added") == 0) {
		const char *item = string_of(get(obj, "item"), "type");

		if (item && strcmp(item, "function_call") == 0)    /* its name */
			e->token = TYPED_TOOL;
	} else if (strcmp(t, "created") == 0) {
		e->response_id = string_of(get(obj, "response"), "id");
	} else if (strcmp(t, "completed") == 0 || strcmp(t, "incomplete") == 0) {
		responses_usage(e, get(get(obj, "response"), "usage"));
		e->response_id = string_of(get(obj, "response"), "id");
		e->end = true;
	} else if (strcmp(t, "failed") == 0) {
		const cJSON *err = get(get(obj, "response"), "error");

		responses_usage(e, get(get(obj, "response"), "usage"));
		read_error(e, err);
	}
}

/* ---- the interface ----------------------------------------------------- */

enum typed_api typed_api_of_kind(const char *kind)
{
	if (kind && strcmp(kind, TRACE_KIND_MESSAGES) == 0)
		return TYPED_MESSAGES;
	if (kind && strcmp(kind, TRACE_KIND_RESPONSES) == 0)
		return TYPED_RESPONSES;
	return TYPED_NONE;
}

const char *typed_end_name(enum typed_api api)
{
	return api == TYPED_MESSAGES ? "message_stop" : api == TYPED_RESPONSES ?
	       "response.completed" : "[DONE]";
}

void typed_event_read(enum typed_api api, const char *event, const cJSON *obj,
		      struct typed_event *e)
{
	const char *type = string_of(obj, "type");

	memset(e, 0, sizeof(*e));
	if (!type)
		type = event ? event : "";
	if (api == TYPED_MESSAGES)
		messages_event(type, obj, e);
	else if (api == TYPED_RESPONSES)
		responses_event(type, obj, e);
}

void typed_body_read(enum typed_api api, const cJSON *obj, struct typed_event *e)
{
	const cJSON *err = get(obj, "error");

	memset(e, 0, sizeof(*e));
	if (err && !cJSON_IsNull(err)) {
		read_error(e, err);
		return;
	}
	if (api == TYPED_MESSAGES)
		messages_usage(e, get(obj, "usage"), true);
	else if (api == TYPED_RESPONSES) {
		responses_usage(e, get(obj, "usage"));
		e->response_id = string_of(obj, "id");
	}
}

/* The text parts of 'content' (an array) of type 'type', to fn. */
static void each_text(const cJSON *content, const char *type,
		      void (*fn)(void *ctx, const cJSON *text), void *ctx)
{
	const cJSON *part;

	cJSON_ArrayForEach(part, content) {
		const char *t = string_of(part, "type");

		if (t && strcmp(t, type) == 0 && cJSON_IsString(get(part, "text")))
			fn(ctx, get(part, "text"));
	}
}

void typed_body_text(enum typed_api api, const cJSON *obj,
		     void (*fn)(void *ctx, const cJSON *text), void *ctx)
{
	const cJSON *item;

	if (!cJSON_IsArray(get(obj, api == TYPED_MESSAGES ? "content" : "output")))
		return;
	if (api == TYPED_MESSAGES) {
		each_text(get(obj, "content"), "text", fn, ctx);
		return;
	}
	cJSON_ArrayForEach(item, get(obj, "output")) {
		const char *t = string_of(item, "type");

		if (t && strcmp(t, "message") == 0)
			each_text(get(item, "content"), "output_text", fn, ctx);
	}
}
