/*
 * session.c - a trace's records grouped into checked sessions, and a later
 * turn's history filled with the server's answers; see session.h.
 */
#include "session.h"
#include "lib/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

/* Orders record indices by session, then by position in the file. */
static const struct session_key *sort_keys;

static int by_session(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	long x = sort_keys[i].session, y = sort_keys[j].session;

	if (x != y)
		return x < y ? -1 : 1;
	return (i > j) - (i < j);
}

/* Orders sessions by the position of their first record. */
static const size_t *sort_turns;

static int by_first(const void *a, const void *b)
{
	size_t i = sort_turns[((const struct session_entry *)a)->first];
	size_t j = sort_turns[((const struct session_entry *)b)->first];

	return (i > j) - (i < j);
}

/* The records idx[0 .. n) of one session (file order): 0 when they are
 * turns 0 .. n-1 with think times in range, else -1 with why and the
 * record at fault. */
static int check_session(const struct session_key *keys, const size_t *idx, size_t n,
			 char *why, size_t whylen, size_t *at)
{
	size_t j;

	for (j = 0; j < n; j++) {
		const struct session_key *k = &keys[idx[j]];

		*at = k->lineno;
		if (k->turn > (long)j) {
			size_t later;

			for (later = j + 1; later < n && keys[idx[later]].turn != (long)j; later++)
				;
			if (later < n)
				snprintf(why, whylen, "session %ld: turns out of order (turn %ld comes "
					 "before turn %zu)", k->session, k->turn, j);
			else if (j)
				snprintf(why, whylen, "session %ld: turn %zu missing (turn %ld follows "
					 "turn %zu)", k->session, j, k->turn, j - 1);
			else
				snprintf(why, whylen, "session %ld: turn 0 missing (turn %ld comes "
					 "first)", k->session, k->turn);
			return -1;
		}
		if (k->turn == (long)j - 1) {
			snprintf(why, whylen, "session %ld: turn %ld twice", k->session, k->turn);
			return -1;
		}
		if (k->turn < (long)j) {
			snprintf(why, whylen, "session %ld: turns out of order (turn %ld comes "
				 "after turn %zu)", k->session, k->turn, j - 1);
			return -1;
		}
		if (k->think_ns < 0 || k->think_ns > TRACE_MAX_THINK_NS) {
			snprintf(why, whylen, "session %ld: turn %ld has a think time of %lld ns, "
				 "outside 0 to a day", k->session, k->turn, (long long)k->think_ns);
			return -1;
		}
	}
	return 0;
}

int session_set_build(struct session_set *set, const struct session_key *keys, size_t n,
		      session_warn_fn warn, void *ctx)
{
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx));
	size_t i, j, kept = 0;

	memset(set, 0, sizeof(*set));
	set->turns = malloc((n ? n : 1) * sizeof(*set->turns));
	set->s = malloc((n ? n : 1) * sizeof(*set->s));
	if (!idx || !set->turns || !set->s) {
		free(idx);
		session_set_release(set);
		return -1;
	}
	for (i = 0; i < n; i++)
		idx[i] = i;
	sort_keys = keys;
	qsort(idx, n, sizeof(*idx), by_session);
	for (i = 0; i < n; i = j) {
		char why[160];
		size_t at = 0;

		j = i + 1;
		if (keys[idx[i]].session >= 0)
			while (j < n && keys[idx[j]].session == keys[idx[i]].session)
				j++;
		if (keys[idx[i]].session >= 0 &&
		    check_session(keys, idx + i, j - i, why, sizeof(why), &at) < 0) {
			warn(ctx, at, why);
			set->skipped++;
			continue;
		}
		set->s[set->n].id = keys[idx[i]].session;
		set->s[set->n].first = kept;
		set->s[set->n].n_turns = j - i;
		set->n++;
		memcpy(set->turns + kept, idx + i, (j - i) * sizeof(*idx));
		kept += j - i;
	}
	free(idx);
	sort_turns = set->turns;
	qsort(set->s, set->n, sizeof(*set->s), by_first);
	return 0;
}

void session_set_release(struct session_set *set)
{
	free(set->s);
	free(set->turns);
	memset(set, 0, sizeof(*set));
}

/* True for a chat message of role 'role'. */
static int has_role(const cJSON *m, const char *role)
{
	const char *r = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "role"));

	return cJSON_IsObject(m) && r && strcmp(r, role) == 0;
}

static int is_assistant(const cJSON *m)
{
	return has_role(m, "assistant");
}

/* Sets obj's 'key' to item (taken; NULL: out of memory), replacing what
 * was there. Returns 0, or -1 when out of memory. */
static int set_item(cJSON *obj, const char *key, cJSON *item)
{
	if (!item)
		return -1;
	/* JSON names are case-sensitive: "Content" is another member (the
	 * case-blind test found it, the replace below did not, and the turn
	 * failed as out of memory) */
	if (cJSON_GetObjectItemCaseSensitive(obj, key) ?
	    cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item) :
	    cJSON_AddItemToObject(obj, key, item))
		return 0;
	cJSON_Delete(item);
	return -1;
}

/* Sets obj's 'key' to the string v (NULL: null). Returns 0 or -1. */
static int set_string(cJSON *obj, const char *key, const char *v)
{
	return set_item(obj, key, v ? cJSON_CreateString(v) : cJSON_CreateNull());
}

/* The recorded call of 'calls' whose id is 'id': its position, or -1. */
static int call_with_id(const cJSON *calls, const char *id)
{
	const cJSON *c;
	int j = 0;

	cJSON_ArrayForEach(c, calls) {
		const char *cid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "id"));

		if (cid && strcmp(cid, id) == 0)
			return j;
		j++;
	}
	return -1;
}

/*
 * The placeholder m's recorded tool_calls become the server's 'live' ones,
 * call by call, and the tool messages after m (up to the next assistant
 * message) answer the server's ids. Each tool message is matched against
 * the recorded ids before any changes, so that a live id equal to another
 * recorded one is not mapped twice. Returns 0, or -1 when out of memory.
 */
static int fill_calls(cJSON *m, const struct toolcalls *live)
{
	cJSON *calls = cJSON_GetObjectItemCaseSensitive(m, "tool_calls"), *c, *t;
	size_t j = 0;

	if (!cJSON_IsArray(calls) || !live->n)
		return 0;
	for (t = m->next; t && !is_assistant(t); t = t->next) {
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "tool_call_id"));
		int k;

		if (!has_role(t, "tool") || !id || (k = call_with_id(calls, id)) < 0 ||
		    (size_t)k >= live->n || !live->c[k].id)
			continue;
		if (set_string(t, "tool_call_id", live->c[k].id) < 0)
			return -1;
	}
	cJSON_ArrayForEach(c, calls) {
		const struct toolcall *lc;
		cJSON *fn;

		if (j >= live->n)
			break;
		lc = &live->c[j++];
		if (!cJSON_IsObject(c))
			continue;
		fn = cJSON_GetObjectItemCaseSensitive(c, "function");
		if (!cJSON_IsObject(fn)) {
			cJSON_DeleteItemFromObjectCaseSensitive(c, "function");
			if (!(fn = cJSON_AddObjectToObject(c, "function")))
				return -1;
		}
		if ((lc->id && set_string(c, "id", lc->id) < 0) ||
		    set_string(c, "type", "function") < 0 ||
		    (lc->name && set_string(fn, "name", lc->name) < 0) ||
		    (lc->args && set_string(fn, "arguments", lc->args) < 0))
			return -1;
	}
	return 0;
}

/* Deletes every member of m named 'name' after the first (a recorded body
 * may name one twice; a server reads the last, the fill sets the first). */
static void keep_first(cJSON *m, const char *name)
{
	cJSON *it = m->child, *next;
	int seen = 0;

	for (; it; it = next) {
		next = it->next;
		if (it->string && !strcmp(it->string, name) && seen++)
			cJSON_Delete(cJSON_DetachItemViaPointer(m, it));
	}
}

/* The index among content's tool_use blocks of the one of id 'id', or -1. */
static int tool_use_with_id(const cJSON *content, const char *id)
{
	const cJSON *b;
	int k = 0;

	cJSON_ArrayForEach(b, content) {
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "type"));
		const char *bid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "id"));

		if (!type || strcmp(type, "tool_use") != 0)
			continue;
		if (bid && strcmp(bid, id) == 0)
			return k;
		k++;
	}
	return -1;
}

/*
 * A Messages placeholder m's recorded tool_use blocks become the server's
 * live calls, block j call j (its id and name, and its input when the
 * call's arguments are a JSON object), and each tool_result after m (up
 * to the next assistant message) naming block j's recorded id names the
 * live one; each is matched against the recorded ids before any changes.
 * Live calls past the recorded ones are left out: no tool_result of the
 * trace answers them. Returns 0, or -1 when out of memory.
 */
static int fill_tool_uses(cJSON *m, cJSON *content, const struct toolcalls *live)
{
	cJSON *t, *b;
	size_t j = 0;

	if (!live->n)
		return 0;
	for (t = m->next; t && !is_assistant(t); t = t->next) {
		cJSON *parts = cJSON_GetObjectItemCaseSensitive(t, "content");

		if (!cJSON_IsArray(parts))
			continue;
		cJSON_ArrayForEach(b, parts) {
			const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "type"));
			const char *id = cJSON_GetStringValue(
				cJSON_GetObjectItemCaseSensitive(b, "tool_use_id"));
			int k;

			if (!type || strcmp(type, "tool_result") != 0 || !id ||
			    (k = tool_use_with_id(content, id)) < 0 || (size_t)k >= live->n ||
			    !live->c[k].id)
				continue;
			if (set_string(b, "tool_use_id", live->c[k].id) < 0)
				return -1;
		}
	}
	cJSON_ArrayForEach(b, content) {
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "type"));
		const struct toolcall *lc;
		cJSON *input;

		if (!type || strcmp(type, "tool_use") != 0)
			continue;
		if (j >= live->n)
			break;
		lc = &live->c[j++];
		if ((lc->id && set_string(b, "id", lc->id) < 0) ||
		    (lc->name && set_string(b, "name", lc->name) < 0))
			return -1;
		input = lc->args ? cJSON_Parse(lc->args) : NULL;
		if (!cJSON_IsObject(input))
			cJSON_Delete(input);    /* not an input: the recorded one stays */
		else if (set_item(b, "input", input) < 0)
			return -1;
	}
	return 0;
}

/* Whether a list of content blocks holds one that is no text nor
 * reasoning: a tool_use, which a later tool_result names. */
static int has_tool_block(const cJSON *content)
{
	const cJSON *b;

	cJSON_ArrayForEach(b, content) {
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "type"));

		if (type && strcmp(type, "tool_use") == 0)
			return 1;
	}
	return 0;
}

/*
 * A placeholder whose content is a list of blocks (Anthropic's Messages,
 * a Responses message's parts): the answer's text in one text block where
 * the first text block was (none when the text is empty), the reasoning
 * blocks left out, every other block (a tool_use, which a later
 * tool_result names) kept as recorded. Returns 0, or -1 when out of memory.
 */
static int fill_blocks(cJSON *content, const char *text)
{
	cJSON *b = content->child, *next, *part = NULL;
	const char *kind = "text";
	int placed = 0;

	for (; b; b = next) {
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "type"));

		next = b->next;
		if (type && (strcmp(type, "thinking") == 0 || strcmp(type, "redacted_thinking") == 0 ||
			     strcmp(type, "reasoning_text") == 0)) {
			cJSON_Delete(cJSON_DetachItemViaPointer(content, b));
		} else if (type && (strcmp(type, "text") == 0 || strcmp(type, "output_text") == 0)) {
			kind = type;
			if (placed++ || !text[0])
				cJSON_Delete(cJSON_DetachItemViaPointer(content, b));
			else if (set_string(b, "text", text) < 0)
				return -1;
		}
	}
	if (placed || !text[0])
		return 0;
	/* no text block was recorded: the answer's goes first */
	part = cJSON_CreateObject();
	if (!part || set_string(part, "type", kind) < 0 || set_string(part, "text", text) < 0) {
		cJSON_Delete(part);
		return -1;
	}
	if (content->child) {
		if (!cJSON_InsertItemInArray(content, 0, part)) {
			cJSON_Delete(part);
			return -1;
		}
	} else if (!cJSON_AddItemToArray(content, part)) {
		cJSON_Delete(part);
		return -1;
	}
	return 0;
}

/* Placeholder m gets answer a: its text (null when empty and m keeps tool
 * calls; in a list of blocks, fill_blocks), the server's tool calls, no
 * reasoning. Returns 0, or -1 when out of memory. */
static int fill_message(cJSON *m, const struct meter_answer *a)
{
	const char *text = a->content ? a->content : "";
	cJSON *content;

	keep_first(m, "content");
	keep_first(m, "tool_calls");
	keep_first(m, "reasoning_content");
	keep_first(m, "reasoning");

	if (!text[0] && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(m, "tool_calls")) > 0)
		text = NULL;
	content = cJSON_GetObjectItemCaseSensitive(m, "content");
	if (cJSON_IsArray(content) && cJSON_GetArraySize(content) > 0 && has_tool_block(content)) {
		if (fill_blocks(content, text ? text : "") < 0 ||
		    fill_tool_uses(m, content, &a->calls) < 0)
			return -1;
	} else if (set_string(m, "content", text) < 0) {
		return -1;
	}
	if (fill_calls(m, &a->calls) < 0)
		return -1;
	cJSON_DeleteItemFromObjectCaseSensitive(m, "reasoning_content");
	cJSON_DeleteItemFromObjectCaseSensitive(m, "reasoning");
	return 0;
}

int session_fill_body(const char *body, size_t len, const struct meter_answer *answers,
		      size_t n_answers, char **out, size_t *out_len)
{
	cJSON *root, *msgs, *m;
	size_t n = 0, seen = 0;
	int rc = SESSION_ASIS;

	if (n_answers == 0)
		return SESSION_ASIS;
	root = cJSON_ParseWithLength(body, len);
	msgs = cJSON_GetObjectItemCaseSensitive(root, "messages");
	if (!cJSON_IsArray(msgs))       /* a Responses body's history: its input items */
		msgs = cJSON_GetObjectItemCaseSensitive(root, "input");
	if (!cJSON_IsArray(msgs))
		goto cleanup;
	cJSON_ArrayForEach(m, msgs)
		n += is_assistant(m);
	if (n < n_answers)
		goto cleanup;
	/* the last n_answers assistant messages, in order, get the answers */
	cJSON_ArrayForEach(m, msgs) {
		if (!is_assistant(m) || seen++ < n - n_answers)
			continue;
		if (fill_message(m, &answers[seen - 1 - (n - n_answers)]) < 0) {
			rc = SESSION_ENOMEM;
			goto cleanup;
		}
	}
	*out = cJSON_PrintUnformatted(root);
	if (!*out) {
		rc = SESSION_ENOMEM;
		goto cleanup;
	}
	*out_len = strlen(*out);
	rc = SESSION_FILLED;
cleanup:
	cJSON_Delete(root);
	return rc;
}

/* Whether a Responses input item is one the model made: an assistant
 * message, a function call or a reasoning item (the server holds those of
 * a stored response). */
static int made_by_model(const cJSON *item)
{
	const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(item, "type"));

	return is_assistant(item) || (type && (strcmp(type, "function_call") == 0 ||
					       strcmp(type, "reasoning") == 0));
}

int session_chain_body(const char *body, size_t len, const char *previous_id, char **out,
		       size_t *out_len)
{
	cJSON *root = cJSON_ParseWithLength(body, len), *input, *item, *last = NULL;
	int rc = SESSION_ASIS;

	input = cJSON_GetObjectItemCaseSensitive(root, "input");
	if (!cJSON_IsObject(root))
		goto cleanup;
	if (cJSON_IsArray(input))
		cJSON_ArrayForEach(item, input)
			if (made_by_model(item))
				last = item;
	/* what the server holds goes: every item up to the model's last */
	while (last && input->child) {
		int at_last = input->child == last;

		cJSON_Delete(cJSON_DetachItemViaPointer(input, input->child));
		if (at_last)
			break;
	}
	rc = SESSION_ENOMEM;
	if (set_string(root, "previous_response_id", previous_id) < 0 ||
	    !(*out = cJSON_PrintUnformatted(root)))
		goto cleanup;
	*out_len = strlen(*out);
	rc = SESSION_FILLED;
cleanup:
	cJSON_Delete(root);
	return rc;
}
