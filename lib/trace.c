/*
 * trace.c - a trace's request records and their JSON form; see trace.h
 * and schema/FORMAT.md ("Trace files").
 */
#include "trace.h"
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void trace_request_init(struct trace_request *t)
{
	memset(t, 0, sizeof(*t));
	t->input_tokens = t->output_tokens = -1;
}

void trace_request_release(struct trace_request *t)
{
	size_t i;

	for (i = 0; i < t->n_headers; i++)
		free(t->headers[i]);
	free(t->headers);
	free(t->method);
	free(t->path);
	free(t->body);
	trace_request_init(t);
}

int trace_request_set_json_post(struct trace_request *t, const char *path, char *body)
{
	t->body = body;
	t->body_len = body ? strlen(body) : 0;
	t->method = strdup("POST");
	t->path = strdup(path);
	t->headers = malloc(sizeof(*t->headers));
	if (t->headers && (t->headers[0] = strdup("Content-Type: application/json")))
		t->n_headers = 1;
	return body && t->method && t->path && t->n_headers == 1 ? 0 : -1;
}

int trace_header_is_secret(const char *name, size_t len)
{
	static const char *const secret[] = {
		"authorization", "proxy-authorization", "api-key", "x-api-key",
		"cookie", "set-cookie",
	};
	size_t i;

	for (i = 0; i < sizeof(secret) / sizeof(secret[0]); i++)
		if (strlen(secret[i]) == len && strncasecmp(name, secret[i], len) == 0)
			return 1;
	return 0;
}

/* True when path (up to '?') ends with suffix. */
static int path_ends_with(const char *path, const char *suffix)
{
	size_t len = strcspn(path, "?#"), sl = strlen(suffix);

	return len >= sl && memcmp(path + len - sl, suffix, sl) == 0;
}

const char *trace_kind_of(const char *method, const char *path)
{
	if (!method || !path || strcmp(method, "POST") != 0)
		return TRACE_KIND_OTHER;
	if (path_ends_with(path, "/chat/completions"))
		return TRACE_KIND_CHAT;
	if (path_ends_with(path, "/completions"))
		return TRACE_KIND_COMPLETIONS;
	if (path_ends_with(path, "/embeddings"))
		return TRACE_KIND_EMBEDDINGS;
	return TRACE_KIND_OTHER;
}

int trace_kind_is_inference(const char *kind)
{
	return kind && strcmp(kind, TRACE_KIND_OTHER) != 0;
}

/* The static string of a recorded kind; NULL for one this build does not know. */
static const char *trace_kind_known(const char *s)
{
	static const char *const kinds[] = {
		TRACE_KIND_CHAT, TRACE_KIND_COMPLETIONS, TRACE_KIND_EMBEDDINGS, TRACE_KIND_OTHER,
	};
	size_t i;

	for (i = 0; s && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(s, kinds[i]) == 0)
			return kinds[i];
	return NULL;
}

cJSON *trace_request_to_json(const struct trace_request *t)
{
	cJSON *o = cJSON_CreateObject(), *h;
	size_t i;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "id", (double)t->id);
	json_add_int64(o, "arrival_ns", t->arrival_ns, 0);
	cJSON_AddStringToObject(o, "method", t->method ? t->method : "POST");
	cJSON_AddStringToObject(o, "path", t->path ? t->path : "/");
	if (t->kind)
		cJSON_AddStringToObject(o, "kind", t->kind);
	h = cJSON_AddArrayToObject(o, "headers");
	for (i = 0; h && i < t->n_headers; i++) {
		const char *colon = strchr(t->headers[i], ':');
		size_t nlen = colon ? (size_t)(colon - t->headers[i]) : strlen(t->headers[i]);

		if (!trace_header_is_secret(t->headers[i], nlen))
			cJSON_AddItemToArray(h, cJSON_CreateString(t->headers[i]));
	}
	cJSON_AddStringToObject(o, "body", t->body ? t->body : "");
	json_add_int64(o, "input_tokens", t->input_tokens, 1);
	json_add_int64(o, "output_tokens", t->output_tokens, 1);
	return o;
}

int trace_request_from_json(struct trace_request *t, const cJSON *obj, char *err, size_t errlen)
{
	const cJSON *headers, *h;
	const char *method, *path, *body;
	int64_t id;
	size_t n = 0;

	if (json_get_int64(obj, "id", &id) != 1 || id < 0) {
		snprintf(err, errlen, "field 'id' is missing or not a non-negative integer");
		return -1;
	}
	t->id = (long)id;
	if (json_get_int64(obj, "arrival_ns", &t->arrival_ns) < 0 || t->arrival_ns < 0) {
		snprintf(err, errlen, "field 'arrival_ns' is not a non-negative integer");
		return -1;
	}
	if (json_get_int64(obj, "input_tokens", &t->input_tokens) < 0 ||
	    json_get_int64(obj, "output_tokens", &t->output_tokens) < 0) {
		snprintf(err, errlen, "field 'input_tokens' or 'output_tokens' is not an integer");
		return -1;
	}
	method = json_get_string(obj, "method");
	path = json_get_string(obj, "path");
	body = json_get_string(obj, "body");
	if (!path || path[0] != '/') {
		snprintf(err, errlen, "field 'path' is missing or does not start with '/'");
		return -1;
	}
	if (!body) {
		snprintf(err, errlen, "field 'body' is missing or not a string");
		return -1;
	}
	t->method = strdup(method ? method : "POST");
	t->path = strdup(path);
	/* A kind this build does not know goes by method and path. */
	t->kind = trace_kind_known(json_get_string(obj, "kind"));
	if (!t->kind)
		t->kind = trace_kind_of(t->method ? t->method : "POST", path);
	t->body_len = strlen(body);
	t->body = strdup(body);
	headers = cJSON_GetObjectItemCaseSensitive(obj, "headers");
	if (headers && !cJSON_IsArray(headers)) {
		snprintf(err, errlen, "field 'headers' is not an array");
		return -1;
	}
	if (cJSON_GetArraySize(headers) > 0)
		t->headers = calloc((size_t)cJSON_GetArraySize(headers), sizeof(char *));
	cJSON_ArrayForEach(h, headers) {
		if (!cJSON_IsString(h) || !strchr(h->valuestring, ':')) {
			snprintf(err, errlen, "field 'headers' holds something not \"Name: value\"");
			t->n_headers = n;
			return -1;
		}
		t->headers[n++] = strdup(h->valuestring);
	}
	t->n_headers = n;
	if (!t->method || !t->path || !t->body) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}
