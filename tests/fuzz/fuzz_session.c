/*
 * fuzz_session.c - libFuzzer target for replay's session bodies
 * (replay/session.c): a later turn's recorded body, from a trace, gets
 * the server's earlier answers in place of its recorded assistant
 * messages.
 *
 * Byte 0 picks how many answers there are (0 to 3) and whether they carry
 * tool calls; the rest is the recorded body. When the body is filled,
 * the result must be one JSON object whose "messages" (a Responses
 * body's "input") has the same
 * length, each of the last k assistant messages holding answer i's text
 * and no reasoning, every other message but the tool messages and those
 * of tool_result blocks (whose tool_call_id or tool_use_id may change) as
 * recorded; otherwise the body goes as
 * recorded, which needs it not to be an object with k assistant messages;
 * "out of memory" is a failure (the inputs are small). A broken rule
 * aborts.
 *
 * The same body is also chained (replay --previous-response-id): an
 * object comes back with "previous_response_id" set to the id given and
 * an "input" array cut to the items after the last one the model made
 * (printed as they were); anything else than an object goes as recorded.
 */
#include "replay/session.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_session: %s: %s\n", what, detail ? detail : "(null)");
	abort();
}

static int role_is(const cJSON *m, const char *role)
{
	const char *r = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "role"));

	return r && strcmp(r, role) == 0;
}

/* Answer i: a text (the third one empty) and, when asked, one tool call
 * as a server streams it. */
static void make_answer(struct meter_answer *a, size_t i, int calls)
{
	static const char *const texts[] = { "The first answer.", "Second, with \"quotes\"", "" };
	const char *why;
	char frag[160];
	cJSON *arr;

	memset(a, 0, sizeof(*a));
	a->content = strdup(texts[i]);
	toolcalls_init(&a->calls, 1 << 16);
	if (!calls)
		return;
	snprintf(frag, sizeof(frag), "[{\"index\":0,\"id\":\"call_live_%zu\",\"type\":\"function\","
		 "\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}]",
		 i);
	arr = cJSON_Parse(frag);
	if (toolcalls_feed(&a->calls, arr, &why) != TOOLCALLS_OK)
		fail("the target's own tool call refused", why);
	cJSON_Delete(arr);
}

/* True when a and b print the same: the body is parsed and printed again
 * (a number past a double's range prints as null either way). */
static int same_printed(const cJSON *a, const cJSON *b)
{
	char *pa = cJSON_PrintUnformatted(a), *pb = cJSON_PrintUnformatted(b);
	int same = !pa || !pb || strcmp(pa, pb) == 0;   /* out of memory: no verdict */

	free(pa);
	free(pb);
	return same;
}

/* The history of a body: its "messages", else (a Responses body) its
 * "input" items. */
static const cJSON *history(const cJSON *body)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(body, "messages");

	return cJSON_IsArray(m) ? m : cJSON_GetObjectItemCaseSensitive(body, "input");
}

/* The count of blocks of 'type' in a list of content blocks. */
static int blocks_of(const cJSON *content, const char *type)
{
	const cJSON *b;
	int n = 0;

	cJSON_ArrayForEach(b, content) {
		const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "type"));

		n += t && strcmp(t, type) == 0;
	}
	return n;
}

/* A placeholder's blocks (a tool_use kept for its tool_result): the
 * recorded tool_use blocks all there, no reasoning, the answer's text in
 * one text block, or none when it is empty. */
static int blocks_hold(const cJSON *in, const cJSON *out, const char *text)
{
	const cJSON *b;
	int texts = 0;

	if (blocks_of(out, "tool_use") != blocks_of(in, "tool_use") ||
	    blocks_of(out, "thinking") || blocks_of(out, "redacted_thinking"))
		return 0;
	cJSON_ArrayForEach(b, out) {
		const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "type"));
		const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "text"));

		if (t && (!strcmp(t, "text") || !strcmp(t, "output_text")) &&
		    (texts++ || !v || strcmp(v, text) != 0))
			return 0;
	}
	return texts == (text[0] != '\0');
}

static void check_filled(const cJSON *in, const char *out, const struct meter_answer *answers,
			 size_t k)
{
	cJSON *o = cJSON_Parse(out);
	const cJSON *mi, *mo, *msgs_in = history(in);
	const cJSON *msgs_out = history(o);
	size_t assistants = 0, seen = 0;

	if (!cJSON_IsObject(o) || !cJSON_IsArray(msgs_out) ||
	    cJSON_GetArraySize(msgs_out) != cJSON_GetArraySize(msgs_in))
		fail("a filled body is not one object with as many messages", out);
	cJSON_ArrayForEach(mi, msgs_in)
		assistants += role_is(mi, "assistant");
	for (mi = msgs_in->child, mo = msgs_out->child; mi && mo; mi = mi->next, mo = mo->next) {
		if (role_is(mi, "assistant") && seen++ >= assistants - k) {
			const struct meter_answer *a = &answers[seen - 1 - (assistants - k)];
			const cJSON *c = cJSON_GetObjectItemCaseSensitive(mo, "content");

			if (!role_is(mo, "assistant") ||
			    cJSON_GetObjectItemCaseSensitive(mo, "reasoning_content") ||
			    cJSON_GetObjectItemCaseSensitive(mo, "reasoning"))
				fail("a placeholder keeps its reasoning or loses its role", out);
			if (cJSON_IsArray(c) ? !blocks_hold(cJSON_GetObjectItemCaseSensitive(mi,
								"content"), c, a->content) :
			    cJSON_IsString(c) ? strcmp(c->valuestring, a->content) != 0 :
			    !(cJSON_IsNull(c) && !a->content[0]))
				fail("a placeholder does not hold its answer's text", out);
		} else if (!role_is(mi, "tool") &&
			   !blocks_of(cJSON_GetObjectItemCaseSensitive(mi, "content"), "tool_result") &&
			   !same_printed(mi, mo)) {
			/* (a tool message, or a message of tool_result blocks, may
			 * name the server's call instead of the recorded one) */
			fail("a message that is no placeholder changed", out);
		}
	}
	cJSON_Delete(o);
}

/* An item the model made: an assistant message, a function call, reasoning. */
static int by_model(const cJSON *item)
{
	const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(item, "type"));

	return role_is(item, "assistant") || (t && (!strcmp(t, "function_call") ||
						    !strcmp(t, "reasoning")));
}

static void check_chain(const cJSON *in, const char *body, size_t len, const char *id)
{
	char *out = NULL;
	size_t out_len = 0;
	int rc = session_chain_body(body, len, id, &out, &out_len);
	const cJSON *items = cJSON_GetObjectItemCaseSensitive(in, "input"), *from = NULL, *it, *mo;
	const char *named;
	cJSON *o;

	if (rc == SESSION_ASIS) {
		if (cJSON_IsObject(in))
			fail("a chained object sent as recorded", NULL);
		return;
	}
	if (rc != SESSION_FILLED || !out || out_len != strlen(out))
		fail("a chained body failed, or of another length", out);
	o = cJSON_Parse(out);
	named = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "previous_response_id"));
	if (!named || strcmp(named, id) != 0)
		fail("a chained body does not name the response before", out);
	if (cJSON_IsArray(items)) {
		from = items->child;
		cJSON_ArrayForEach(it, items)
			if (by_model(it))
				from = it->next;
		mo = cJSON_GetObjectItemCaseSensitive(o, "input")->child;
		for (it = from; it || mo; it = it ? it->next : NULL, mo = mo ? mo->next : NULL)
			if (!it || !mo || !same_printed(it, mo))
				fail("a chained input is not what followed the model's last item", out);
	}
	cJSON_Delete(o);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct meter_answer answers[3];
	size_t k, i, out_len = 0, assistants = 0;
	char *out = NULL;
	cJSON *in, *m;
	int rc;

	if (size < 1)
		return 0;
	k = data[0] % 4;
	for (i = 0; i < k; i++)
		make_answer(&answers[i], i, (data[0] >> 2) & 1);
	rc = session_fill_body((const char *)data + 1, size - 1, answers, k, &out, &out_len);
	in = cJSON_ParseWithLength((const char *)data + 1, size - 1);
	cJSON_ArrayForEach(m, history(in))
		assistants += role_is(m, "assistant");
	if (rc == SESSION_FILLED) {
		if (!k || !out || out_len != strlen(out))
			fail("a body filled without answers, or of another length", out);
		check_filled(in, out, answers, k);
	} else if (rc == SESSION_ASIS) {
		if (k && cJSON_IsArray(history(in)) && assistants >= k)
			fail("a body with its placeholders sent as recorded", NULL);
	} else {
		/* a body of at most 64 KiB cannot exhaust memory */
		fail("out of memory claimed, or an unknown return code", NULL);
	}
	check_chain(in, (const char *)data + 1, size - 1, "resp_1");
	free(out);
	cJSON_Delete(in);
	for (i = 0; i < k; i++)
		meter_answer_release(&answers[i]);
	return 0;
}
