/*
 * toolcall.c - tool calls assembled from a server's fragments under caps;
 * see toolcall.h.
 */
#include "toolcall.h"
#include "strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void toolcalls_init(struct toolcalls *t, size_t max_bytes)
{
	memset(t, 0, sizeof(*t));
	t->max_bytes = max_bytes;
}

void toolcalls_release(struct toolcalls *t)
{
	size_t i, max = t->max_bytes;

	for (i = 0; i < t->n; i++) {
		free(t->c[i].id);
		free(t->c[i].name);
		free(t->c[i].args);
	}
	free(t->c);
	toolcalls_init(t, max);
}

/* The call of 'index', made when new; NULL with *rc set when there is no
 * room for it. */
static struct toolcall *call_of(struct toolcalls *t, long index, int *rc, const char **why)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->c[i].index == index)
			return &t->c[i];
	if (t->n == TOOLCALLS_MAX) {
		*why = "more than 128 tool calls in one answer";
		*rc = TOOLCALLS_EINVAL;
		return NULL;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 4;
		struct toolcall *c = realloc(t->c, cap * sizeof(*c));

		if (!c) {
			*rc = TOOLCALLS_ENOMEM;
			return NULL;
		}
		t->c = c;
		t->cap = cap;
	}
	memset(&t->c[t->n], 0, sizeof(t->c[t->n]));
	t->c[t->n].index = index;
	return &t->c[t->n++];
}

/* Sets *field to a copy of v's string unless it has one: an id or name. */
static int take_name(struct toolcalls *t, char **field, const cJSON *v, const char **why)
{
	size_t len;

	if (*field || !cJSON_IsString(v))
		return TOOLCALLS_OK;
	len = strlen(v->valuestring);
	if (len > TOOLCALLS_MAX_NAME) {
		*why = "tool call id or function name longer than 256 bytes";
		return TOOLCALLS_EINVAL;
	}
	if (len > t->max_bytes - t->bytes) {
		*why = "tool calls longer than a session's history keeps";
		return TOOLCALLS_EINVAL;
	}
	if (!(*field = strdup(v->valuestring)))
		return TOOLCALLS_ENOMEM;
	t->bytes += len;
	return TOOLCALLS_OK;
}

/* One element of a tool_calls array, at position pos. */
static int feed_one(struct toolcalls *t, const cJSON *e, int pos, const char **why)
{
	const cJSON *index = cJSON_GetObjectItemCaseSensitive(e, "index");
	const cJSON *fn = cJSON_GetObjectItemCaseSensitive(e, "function");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(fn, "arguments");
	struct toolcall *c;
	long i = pos;
	int rc = TOOLCALLS_OK;

	if (!cJSON_IsObject(e)) {
		*why = "a tool call is not a JSON object";
		return TOOLCALLS_EINVAL;
	}
	if (index && !cJSON_IsNull(index)) {
		double v = cJSON_IsNumber(index) ? index->valuedouble : -1;

		if (v < 0 || v >= TOOLCALLS_MAX || v != floor(v)) {
			*why = "a tool call's index is not an integer from 0 to 127";
			return TOOLCALLS_EINVAL;
		}
		i = (long)v;
	}
	if (!(c = call_of(t, i, &rc, why)))
		return rc;
	if ((rc = take_name(t, &c->id, cJSON_GetObjectItemCaseSensitive(e, "id"), why)) < 0 ||
	    (rc = take_name(t, &c->name, cJSON_GetObjectItemCaseSensitive(fn, "name"), why)) < 0)
		return rc;
	if (cJSON_IsString(args)) {
		size_t len = strlen(args->valuestring);

		if (len > t->max_bytes - t->bytes) {
			*why = "tool calls longer than a session's history keeps";
			return TOOLCALLS_EINVAL;
		}
		if (strbuf_append(&c->args, &c->args_len, &c->args_cap, args->valuestring, len) < 0)
			return TOOLCALLS_ENOMEM;
		t->bytes += len;
	}
	return TOOLCALLS_OK;
}

int toolcalls_feed(struct toolcalls *t, const cJSON *arr, const char **why)
{
	const cJSON *e;
	int pos = 0, rc;

	*why = "";
	if (!cJSON_IsArray(arr))
		return TOOLCALLS_OK;
	cJSON_ArrayForEach(e, arr) {
		if ((rc = feed_one(t, e, pos++, why)) < 0) {
			if (rc == TOOLCALLS_ENOMEM)
				*why = "out of memory keeping the tool calls";
			return rc;
		}
	}
	return TOOLCALLS_OK;
}
