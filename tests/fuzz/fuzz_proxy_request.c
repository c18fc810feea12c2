/*
 * fuzz_proxy_request.c - libFuzzer target for record proxy's request
 * handling (record/capture.c): the checks a client's request passes and
 * the trace's copy of it. The input is read as a request: "METHOD TARGET"
 * on the first line, "Name: value" lines up to a blank one, then the body.
 * What the proxy would record must be a record replay accepts
 * (trace_request_from_json), and no value of a header or query parameter
 * outside the allowlist may reach it. A broken rule aborts.
 */
#include "record/capture.h"
#include "lib/redact.h"
#include "lib/trace.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_HEADERS 16

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_proxy_request: %s: %s\n", what, detail);
	abort();
}

/* True when every query parameter of path is a safe name or holds REDACTED. */
static int query_redacted(const char *path)
{
	const char *q = strchr(path, '?');

	while (q && *q) {
		const char *p = q + 1, *eq;
		size_t len = strcspn(p, "&");

		eq = memchr(p, '=', len);
		if (eq && !redact_query_is_safe(p, (size_t)(eq - p), NULL) &&
		    ((size_t)(p + len - eq - 1) != strlen(REDACT_MARK) ||
		     strncmp(eq + 1, REDACT_MARK, strlen(REDACT_MARK)) != 0))
			return 0;
		q = p[len] ? p + len : NULL;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char empty[1] = "";
	char *text = malloc(size + 1), *line, *save = NULL, *method, *uri, *body = empty;
	struct capture_header h[MAX_HEADERS];
	struct trace_request t, back;
	char why[256], err[256];
	size_t n = 0, i, body_len = 0;
	cJSON *rec = NULL, *parsed = NULL;
	char *json = NULL;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	trace_request_init(&t);
	trace_request_init(&back);
	/* the body starts after the first blank line */
	if ((line = strstr(text, "\n\n"))) {
		*line = '\0';
		body = line + 2;
		body_len = strlen(body);
	}
	method = strtok_r(text, "\n", &save);
	if (!method)
		goto out;
	uri = strchr(method, ' ');
	if (!uri)
		goto out;
	*uri++ = '\0';
	while (n < MAX_HEADERS && (line = strtok_r(NULL, "\n", &save))) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		*colon = '\0';
		h[n].name = line;
		h[n++].value = colon + 1 + strspn(colon + 1, " ");
	}
	if (capture_check(method, uri, h, n, body, body_len, why, sizeof(why)) != 0)
		goto out;       /* refused: nothing recorded */

	t.method = strdup(method);
	t.path = capture_path(uri, NULL);
	t.body = strdup(body);
	t.body_len = body_len;
	t.headers = calloc(n + 1, sizeof(char *));
	if (!t.method || !t.path || !t.body || !t.headers)
		goto out;
	for (i = 0; i < n; i++) {
		char *l;

		if (capture_header_line(h[i].name, h[i].value, NULL, &l) < 0)
			goto out;
		if (!l)
			continue;
		t.headers[t.n_headers++] = l;
		if (!redact_header_is_safe(h[i].name, strlen(h[i].name), NULL) &&
		    strcmp(strchr(l, ':') + 2, REDACT_MARK) != 0)
			fail("an unknown header kept its value", l);
		if (redact_header_is_secret(h[i].name, strlen(h[i].name)))
			fail("a credential header was recorded", l);
	}
	if (!query_redacted(t.path))
		fail("a query value outside the allowlist was recorded", t.path);
	rec = trace_request_to_json(&t);
	json = rec ? cJSON_PrintUnformatted(rec) : NULL;
	parsed = json ? cJSON_Parse(json) : NULL;
	if (parsed && trace_request_from_json(&back, parsed, err, sizeof(err)) != 0)
		fail("replay would refuse what the proxy records", err);
	if (parsed && (strcmp(back.method, t.method) || strcmp(back.path, t.path)))
		fail("the record does not read back the same", back.path);
out:
	cJSON_Delete(parsed);
	cJSON_free(json);
	cJSON_Delete(rec);
	trace_request_release(&back);
	trace_request_release(&t);
	free(text);
	return 0;
}
