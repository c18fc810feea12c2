/*
 * trace.h - one request of a trace, as record writes it and replay reads
 * it back (schema/FORMAT.md, "Trace records").
 *
 * The body is kept as the exact bytes the client sent, so that a trace
 * replays what was recorded; replay edits a parsed copy only when told to.
 */
#ifndef TB_TRACE_H
#define TB_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

struct trace_request {
	long id;                /* unique within the trace */
	int64_t arrival_ns;     /* offset from the trace's first arrival */
	char *method;           /* "POST" */
	char *path;             /* "/v1/chat/completions", query included */
	char **headers;         /* "Name: value" strings, secrets never stored */
	size_t n_headers;
	char *body;             /* exact request body, NUL-terminated */
	size_t body_len;
	int64_t input_tokens;   /* known or estimated prompt length, or -1 */
	int64_t output_tokens;  /* requested/recorded output length, or -1 */
};

void trace_request_init(struct trace_request *t);
void trace_request_release(struct trace_request *t);

/* The caller frees the returned object with cJSON_Delete. */
cJSON *trace_request_to_json(const struct trace_request *t);

/* Fills t (initialized) from a record. Returns 0, or -1 with err filled. */
int trace_request_from_json(struct trace_request *t, const cJSON *obj, char *err, size_t errlen);

/* True for header names that must never reach a file (Authorization, API keys, cookies). */
int trace_header_is_secret(const char *name, size_t len);

#endif
