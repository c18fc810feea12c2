/*
 * trace.c - a trace's request records and their JSON form; see trace.h
 * and schema/FORMAT.md ("Trace files").
 */
#include "trace.h"
#include "json.h"
#include "redact.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void trace_request_init(struct trace_request *t)
{
	memset(t, 0, sizeof(*t));
	t->input_tokens = t->output_tokens = -1;
	t->session = t->turn = -1;
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

/* RFC 9110 5.6.2: tchar, the bytes of a token (a method, a header name). */
static int is_tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

int trace_check_method(const char *m)
{
	size_t i;

	for (i = 0; m[i]; i++)
		if (!is_tchar((unsigned char)m[i]))
			return -1;
	return i > 0 && i <= 32 ? 0 : -1;
}

/* True when segment [s, s + n) is "." or "..", plain or percent-encoded. */
static int is_dot_segment(const char *s, size_t n)
{
	size_t dots = 0;

	while (n > 0) {
		if (*s == '.') {
			s++;
			n--;
		} else if (n >= 3 && s[0] == '%' && s[1] == '2' && (s[2] == 'e' || s[2] == 'E')) {
			s += 3;
			n -= 3;
		} else {
			return 0;
		}
		dots++;
	}
	return dots == 1 || dots == 2;
}

int trace_check_path(const char *path)
{
	const char *p, *end;

	if (path[0] != '/')
		return -1;
	for (p = path; *p; p++)
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f)
			return -1;
	end = path + strcspn(path, "?#");
	for (p = path; p < end;) {
		size_t n;

		p++;                    /* the '/' */
		n = strcspn(p, "/?#");
		if (p + n > end)
			n = (size_t)(end - p);
		if (is_dot_segment(p, n))
			return -1;
		p += n;
	}
	return 0;
}

int trace_check_header_name(const char *name)
{
	size_t n = 0;

	while (is_tchar((unsigned char)name[n]))
		n++;
	return n > 0 && n <= 256 && name[n] == '\0' ? 0 : -1;
}

/* 0 when "Name: value" h is a valid header line, setting *name_len; else -1. */
static int trace_check_header(const char *h, size_t *name_len)
{
	const unsigned char *p = (const unsigned char *)h;
	size_t n = 0;

	while (is_tchar(p[n]))
		n++;
	if (n == 0 || p[n] != ':')
		return -1;
	for (p += n + 1; *p; p++)     /* field-content, OWS: no CR, LF, NUL or DEL */
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			return -1;
	*name_len = n;
	return 0;
}

int trace_header_is_routing(const char *name, size_t len)
{
	static const char *const never[] = {
		"host", "content-length", "transfer-encoding", "connection", "keep-alive",
		"te", "trailer", "upgrade", "expect",
	};
	size_t i;

	if (len >= 6 && strncasecmp(name, "proxy-", 6) == 0)
		return 1;
	for (i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		if (strlen(never[i]) == len && strncasecmp(name, never[i], len) == 0)
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
	/* with the version: an Assistants thread's .../messages is not it */
	if (path_ends_with(path, "/v1/messages"))
		return TRACE_KIND_MESSAGES;
	if (path_ends_with(path, "/v1/responses"))
		return TRACE_KIND_RESPONSES;
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
		TRACE_KIND_CHAT, TRACE_KIND_COMPLETIONS, TRACE_KIND_EMBEDDINGS,
		TRACE_KIND_MESSAGES, TRACE_KIND_RESPONSES, TRACE_KIND_OTHER,
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

		if (!redact_header_is_secret(t->headers[i], nlen))
			cJSON_AddItemToArray(h, cJSON_CreateString(t->headers[i]));
	}
	cJSON_AddStringToObject(o, "body", t->body ? t->body : "");
	json_add_int64(o, "input_tokens", t->input_tokens, 1);
	json_add_int64(o, "output_tokens", t->output_tokens, 1);
	if (t->session >= 0) {
		json_add_int64(o, "session", t->session, 0);
		json_add_int64(o, "turn", t->turn, 0);
		json_add_int64(o, "think_ns", t->think_ns, 0);
	}
	return o;
}

/* id, arrival time, token counts, and the session's turn and think time. */
static int read_numbers(struct trace_request *t, const cJSON *obj, char *err, size_t errlen)
{
	int64_t id, session = -1, turn = -1;

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
	if (json_get_int64(obj, "session", &session) < 0 || json_get_int64(obj, "turn", &turn) < 0 ||
	    json_get_int64(obj, "think_ns", &t->think_ns) < 0) {
		snprintf(err, errlen, "field 'session', 'turn' or 'think_ns' is not an integer");
		return -1;
	}
	if ((session >= 0) != (turn >= 0) || session < -1 || turn < -1 ||
	    (session == -1 && cJSON_GetObjectItemCaseSensitive(obj, "session")) ||
	    session > 0x7fffffffL || turn > 0x7fffffffL) {
		snprintf(err, errlen, "fields 'session' and 'turn' go together, each an integer "
			 "from 0 to 2147483647");
		return -1;
	}
	t->session = (long)session;
	t->turn = (long)turn;
	return 0;
}

static int check_headers(const cJSON *headers, char *err, size_t errlen)
{
	const cJSON *h;

	if (headers && !cJSON_IsArray(headers)) {
		snprintf(err, errlen, "field 'headers' is not an array");
		return -1;
	}
	cJSON_ArrayForEach(h, headers) {
		size_t nlen;

		if (!cJSON_IsString(h) || trace_check_header(h->valuestring, &nlen) < 0) {
			snprintf(err, errlen, "field 'headers' holds something not \"Name: value\" "
				 "(a token, a colon, a value without CR, LF or other control bytes)");
			return -1;
		}
	}
	return 0;
}

/* Copies the checked headers but framing, routing and credentials, which
 * are never taken from a trace. */
static int copy_headers(struct trace_request *t, const cJSON *headers)
{
	const cJSON *h;

	if (cJSON_GetArraySize(headers) == 0)
		return 0;
	t->headers = calloc((size_t)cJSON_GetArraySize(headers), sizeof(char *));
	if (!t->headers)
		return -1;
	cJSON_ArrayForEach(h, headers) {
		size_t nlen = strcspn(h->valuestring, ":");

		if (trace_header_is_routing(h->valuestring, nlen) ||
		    redact_header_is_secret(h->valuestring, nlen))
			continue;
		if (!(t->headers[t->n_headers] = strdup(h->valuestring)))
			return -1;
		t->n_headers++;
	}
	return 0;
}

int trace_request_from_json(struct trace_request *t, const cJSON *obj, char *err, size_t errlen)
{
	const cJSON *headers = cJSON_GetObjectItemCaseSensitive(obj, "headers");
	const char *method = json_get_string(obj, "method");
	const char *path = json_get_string(obj, "path");
	const char *body = json_get_string(obj, "body");

	if (read_numbers(t, obj, err, errlen) < 0)
		return -1;
	if (method && trace_check_method(method) < 0) {
		snprintf(err, errlen, "field 'method' is not an HTTP method (a token)");
		return -1;
	}
	if (!path || trace_check_path(path) < 0) {
		snprintf(err, errlen, "field 'path' is missing, does not start with '/', holds a "
			 "control byte, a space or a non-ASCII byte, or a '.' or '..' segment");
		return -1;
	}
	if (!body) {
		snprintf(err, errlen, "field 'body' is missing or not a string");
		return -1;
	}
	if (check_headers(headers, err, errlen) < 0)
		return -1;
	t->method = strdup(method ? method : "POST");
	t->path = strdup(path);
	/* The kind goes by method and path: a recorded one may only say
	 * "other" (a request the recorder chose not to measure), never make
	 * inference of what is not (a hostile trace's GET of an admin path
	 * marked "chat" would be replayed with the user's key). */
	t->kind = trace_kind_known(json_get_string(obj, "kind"));
	if (!t->kind || strcmp(t->kind, TRACE_KIND_OTHER) != 0)
		t->kind = trace_kind_of(t->method ? t->method : "POST", path);
	t->body_len = strlen(body);
	t->body = strdup(body);
	if (copy_headers(t, headers) < 0 || !t->method || !t->path || !t->body) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}
