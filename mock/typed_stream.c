/*
 * typed_stream.c - the mock's answers in typed events: Anthropic's
 * Messages API (POST /v1/messages) and OpenAI's Responses API (POST
 * /v1/responses), streamed and whole.
 *
 * stream.c keeps the schedule (token k at ttft + k * itl, the faults, the
 * slots) for every API; this file only says how a token, the start and
 * the end look in these two APIs, as their documentation shows them. A
 * request's first --reasoning-tokens tokens are thinking (Messages: a
 * thinking block; Responses: a reasoning item), the rest the answer (a
 * text block; a message item); the opening events go out with token 0
 * and carry no token, so TTFT is token 0's time as in chat. One choice,
 * no tool calls.
 */
#include "mock/server.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <event2/http.h>

/* The model's name as a JSON string (malloc, caller frees), or NULL. */
static char *quoted_model(const struct mock_stream *s)
{
	cJSON *m = cJSON_CreateString(s->model);
	char *q = m ? cJSON_PrintUnformatted(m) : NULL;
	char *out = q ? strdup(q) : NULL;

	cJSON_free(q);
	cJSON_Delete(m);
	return out;
}

/* Sends event 'name' whose data is the printf of fmt. */
static void send_event(struct mock_stream *s, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void send_event(struct mock_stream *s, const char *name, const char *fmt, ...)
{
	char small[1024], *big = NULL;
	va_list ap;
	int n;

	/* the model's name is in some events, as long as --model is: an
	 * event is never cut (it would not be JSON), it is sized */
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		stream_send_typed(s, name, small);
		return;
	}
	if (!(big = malloc((size_t)n + 1)))
		return;
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	stream_send_typed(s, name, big);
	free(big);
}

/* Tokens k..k+count-1 as one string of words (a buffer of len bytes). */
static void words_of(long k, long count, char *buf, size_t len)
{
	size_t used = 0;
	long j;

	buf[0] = '\0';
	for (j = k; j < k + count && used + 8 < len; j++)
		used += (size_t)snprintf(buf + used, len - used, "%s", mock_spaced[(unsigned long)j % 16]);
}

/* ---- Messages ---------------------------------------------------------- */

/* Block 0 is the thinking when there is reasoning, the text after it. */
static long text_block(const struct mock_stream *s)
{
	return s->reasoning > 0 ? 1 : 0;
}

static void messages_start(struct mock_stream *s)
{
	char *model = quoted_model(s);

	send_event(s, "message_start", "{\"type\":\"message_start\",\"message\":{\"id\":"
		   "\"msg-mock-%llu\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],"
		   "\"model\":%s,\"stop_reason\":null,\"stop_sequence\":null,\"usage\":"
		   "{\"input_tokens\":%ld,\"cache_creation_input_tokens\":0,"
		   "\"cache_read_input_tokens\":%ld,\"output_tokens\":1}}}", s->id,
		   model ? model : "\"\"", s->prompt_tokens - s->cached, s->cached);
	free(model);
	send_event(s, "ping", "{\"type\":\"ping\"}");
}

static void messages_block_start(struct mock_stream *s, long index, int thinking)
{
	send_event(s, "content_block_start", thinking ?
		   "{\"type\":\"content_block_start\",\"index\":%ld,\"content_block\":"
		   "{\"type\":\"thinking\",\"thinking\":\"\"}}" :
		   "{\"type\":\"content_block_start\",\"index\":%ld,\"content_block\":"
		   "{\"type\":\"text\",\"text\":\"\"}}", index);
}

static void messages_block_stop(struct mock_stream *s, long index)
{
	send_event(s, "content_block_stop", "{\"type\":\"content_block_stop\",\"index\":%ld}",
		   index);
}

/* Tokens k..k+count-1, all of one side of the reasoning's end. */
static void messages_delta(struct mock_stream *s, long k, long count)
{
	char words[64 * 8];
	int thinking = k < s->reasoning;

	words_of(k, count, words, sizeof(words));
	send_event(s, "content_block_delta", thinking ?
		   "{\"type\":\"content_block_delta\",\"index\":%ld,\"delta\":"
		   "{\"type\":\"thinking_delta\",\"thinking\":\"%s\"}}" :
		   "{\"type\":\"content_block_delta\",\"index\":%ld,\"delta\":"
		   "{\"type\":\"text_delta\",\"text\":\"%s\"}}", thinking ? 0 : text_block(s), words);
}

static void messages_finish(struct mock_stream *s, int without_end)
{
	messages_block_stop(s, text_block(s));
	send_event(s, "message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
		   "\"%s\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":%ld}}",
		   s->stop ? "end_turn" : "max_tokens", s->n);
	if (!without_end)
		send_event(s, "message_stop", "{\"type\":\"message_stop\"}");
}

/* ---- Responses --------------------------------------------------------- */

/* Output item 0 is the reasoning when there is any, the message after it. */
static long message_item(const struct mock_stream *s)
{
	return s->reasoning > 0 ? 1 : 0;
}

static void responses_item_added(struct mock_stream *s, long index, int reasoning)
{
	if (reasoning) {
		send_event(s, "response.output_item.added", "{\"type\":\"response.output_item.added\","
			   "\"sequence_number\":%ld,\"output_index\":%ld,\"item\":{\"id\":"
			   "\"rs-mock-%llu\",\"type\":\"reasoning\",\"summary\":[]}}",
			   s->typed_seq++, index, s->id);
		return;
	}
	send_event(s, "response.output_item.added", "{\"type\":\"response.output_item.added\","
		   "\"sequence_number\":%ld,\"output_index\":%ld,\"item\":{\"id\":\"msg-mock-%llu\","
		   "\"type\":\"message\",\"status\":\"in_progress\",\"role\":\"assistant\","
		   "\"content\":[]}}", s->typed_seq++, index, s->id);
	send_event(s, "response.content_part.added", "{\"type\":\"response.content_part.added\","
		   "\"sequence_number\":%ld,\"item_id\":\"msg-mock-%llu\",\"output_index\":%ld,"
		   "\"content_index\":0,\"part\":{\"type\":\"output_text\",\"text\":\"\","
		   "\"annotations\":[]}}", s->typed_seq++, s->id, index);
}

static void responses_start(struct mock_stream *s)
{
	char *model = quoted_model(s);

	send_event(s, "response.created", "{\"type\":\"response.created\",\"sequence_number\":%ld,"
		   "\"response\":{\"id\":\"resp-mock-%llu\",\"object\":\"response\",\"created_at\":"
		   "%lld,\"status\":\"in_progress\",\"model\":%s,\"output\":[],\"usage\":null}}",
		   s->typed_seq++, s->id, s->created, model ? model : "\"\"");
	free(model);
}

static void responses_delta(struct mock_stream *s, long k, long count)
{
	char words[64 * 8];

	words_of(k, count, words, sizeof(words));
	if (k < s->reasoning)
		send_event(s, "response.reasoning_text.delta", "{\"type\":"
			   "\"response.reasoning_text.delta\",\"sequence_number\":%ld,\"item_id\":"
			   "\"rs-mock-%llu\",\"output_index\":0,\"content_index\":0,\"delta\":\"%s\"}",
			   s->typed_seq++, s->id, words);
	else
		send_event(s, "response.output_text.delta", "{\"type\":\"response.output_text.delta\","
			   "\"sequence_number\":%ld,\"item_id\":\"msg-mock-%llu\",\"output_index\":%ld,"
			   "\"content_index\":0,\"delta\":\"%s\"}", s->typed_seq++, s->id,
			   message_item(s), words);
}

/* The usage of a response: its prompt with the cached part, its tokens
 * with the reasoning part. */
static void responses_usage(const struct mock_stream *s, char *buf, size_t len)
{
	snprintf(buf, len, "{\"input_tokens\":%ld,\"input_tokens_details\":{\"cached_tokens\":%ld},"
		 "\"output_tokens\":%ld,\"output_tokens_details\":{\"reasoning_tokens\":%ld},"
		 "\"total_tokens\":%ld}", s->prompt_tokens, s->cached, s->n, s->reasoning,
		 s->prompt_tokens + s->n);
}

/* A response cut at max_output_tokens ends incomplete, as OpenAI's does. */
static void responses_finish(struct mock_stream *s, int without_end)
{
	const char *status = s->stop ? "completed" : "incomplete";
	char usage[256];

	if (without_end)
		return;
	responses_usage(s, usage, sizeof(usage));
	send_event(s, s->stop ? "response.completed" : "response.incomplete",
		   "{\"type\":\"response.%s\",\"sequence_number\":%ld,\"response\":{\"id\":"
		   "\"resp-mock-%llu\",\"object\":\"response\",\"created_at\":%lld,\"status\":\"%s\","
		   "%s\"usage\":%s}}", status, s->typed_seq++, s->id, s->created, status,
		   s->stop ? "" : "\"incomplete_details\":{\"reason\":\"max_output_tokens\"},", usage);
}

/* ---- the interface ----------------------------------------------------- */

void typed_stream_token(struct mock_stream *s, long k, long count)
{
	int messages = s->api == MOCK_API_MESSAGES;

	if (k == 0) {
		if (messages) {
			messages_start(s);
			messages_block_start(s, 0, s->reasoning > 0);
		} else {
			responses_start(s);
			responses_item_added(s, 0, s->reasoning > 0);
		}
	}
	while (count > 0) {
		/* a group that crosses the reasoning's end goes out as two */
		long part = k < s->reasoning && k + count > s->reasoning ? s->reasoning - k : count;

		if (k == s->reasoning && k > 0) {
			if (messages) {
				messages_block_stop(s, 0);
				messages_block_start(s, 1, 0);
			} else {
				responses_item_added(s, 1, 0);
			}
		}
		if (messages)
			messages_delta(s, k, part);
		else
			responses_delta(s, k, part);
		k += part;
		count -= part;
	}
}

void typed_stream_finish(struct mock_stream *s, int without_end)
{
	if (s->api == MOCK_API_MESSAGES)
		messages_finish(s, without_end);
	else
		responses_finish(s, without_end);
}

/* A content part {"type": type, key: text} appended to arr. */
static void add_part(cJSON *arr, const char *type, const char *key, const char *text)
{
	cJSON *part = cJSON_CreateObject();

	if (!part || !cJSON_AddItemToArray(arr, part)) {
		cJSON_Delete(part);
		return;
	}
	cJSON_AddStringToObject(part, "type", type);
	cJSON_AddStringToObject(part, key, text ? text : "");
}

static cJSON *messages_whole(const struct mock_stream *s, const char *reasoning,
			     const char *answer)
{
	cJSON *root = cJSON_CreateObject(), *content, *usage;
	char id[48];

	snprintf(id, sizeof(id), "msg-mock-%llu", s->id);
	cJSON_AddStringToObject(root, "id", id);
	cJSON_AddStringToObject(root, "type", "message");
	cJSON_AddStringToObject(root, "role", "assistant");
	cJSON_AddStringToObject(root, "model", s->model);
	content = cJSON_AddArrayToObject(root, "content");
	if (s->reasoning > 0)
		add_part(content, "thinking", "thinking", reasoning);
	add_part(content, "text", "text", answer);
	cJSON_AddStringToObject(root, "stop_reason", s->stop ? "end_turn" : "max_tokens");
	cJSON_AddNullToObject(root, "stop_sequence");
	usage = cJSON_AddObjectToObject(root, "usage");
	cJSON_AddNumberToObject(usage, "input_tokens", (double)(s->prompt_tokens - s->cached));
	cJSON_AddNumberToObject(usage, "cache_creation_input_tokens", 0);
	cJSON_AddNumberToObject(usage, "cache_read_input_tokens", (double)s->cached);
	cJSON_AddNumberToObject(usage, "output_tokens", (double)s->n);
	return root;
}

static cJSON *responses_whole(const struct mock_stream *s, const char *reasoning,
			      const char *answer)
{
	cJSON *root = cJSON_CreateObject(), *output, *item, *content, *usage;
	char id[48], usage_json[256];

	snprintf(id, sizeof(id), "resp-mock-%llu", s->id);
	cJSON_AddStringToObject(root, "id", id);
	cJSON_AddStringToObject(root, "object", "response");
	cJSON_AddNumberToObject(root, "created_at", (double)s->created);
	cJSON_AddStringToObject(root, "status", s->stop ? "completed" : "incomplete");
	cJSON_AddNullToObject(root, "error");
	cJSON_AddStringToObject(root, "model", s->model);
	output = cJSON_AddArrayToObject(root, "output");
	if (s->reasoning > 0 && (item = cJSON_CreateObject()) && cJSON_AddItemToArray(output, item)) {
		cJSON_AddStringToObject(item, "type", "reasoning");
		add_part(cJSON_AddArrayToObject(item, "content"), "reasoning_text", "text", reasoning);
	}
	if ((item = cJSON_CreateObject()) && cJSON_AddItemToArray(output, item)) {
		cJSON_AddStringToObject(item, "type", "message");
		cJSON_AddStringToObject(item, "role", "assistant");
		cJSON_AddStringToObject(item, "status", "completed");
		content = cJSON_AddArrayToObject(item, "content");
		add_part(content, "output_text", "text", answer);
	}
	responses_usage(s, usage_json, sizeof(usage_json));
	if ((usage = cJSON_Parse(usage_json)) && !cJSON_AddItemToObject(root, "usage", usage))
		cJSON_Delete(usage);
	return root;
}

void typed_reply_whole(struct mock_stream *s)
{
	char *answer = words_join(s->reasoning, s->n);
	char *reasoning = words_join(0, s->reasoning);
	cJSON *root = NULL;

	if (answer && reasoning)
		root = s->api == MOCK_API_MESSAGES ? messages_whole(s, reasoning, answer) :
		       responses_whole(s, reasoning, answer);
	reply_cjson(s->req, HTTP_OK, "OK", root);      /* NULL: out of memory, said */
	free(answer);
	free(reasoning);
}
