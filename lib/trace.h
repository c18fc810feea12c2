/*
 * trace.h - one request of a trace, as record writes it and replay reads
 * it back (schema/FORMAT.md, "Trace records").
 *
 * The body is kept as the exact bytes the client sent, so that a trace
 * replays what was recorded; replay edits a parsed copy only when told to.
 *
 * Ownership, one rule for every caller: a struct trace_request owns every
 * string it points to (method, path, each header line and the array of
 * them, body), all from malloc, and trace_request_release frees them. Never
 * point one into static or stack storage; to write a record from strings
 * you keep, copy them in (trace_request_set_json_post does, for the record
 * generators).
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
	const char *kind;       /* TRACE_KIND_* (static), or NULL: unknown */
	/* A turn of a session (schema/FORMAT.md, "Sessions"), or session -1. */
	long session;           /* session id, >= 0; -1: not part of one */
	long turn;              /* turn index in its session, from 0; -1 if none */
	int64_t think_ns;       /* think time before the turn, after the last
				   one ended; as read (the session rules check it) */
};

/* Think times above this (a day) are refused as absurd. */
#define TRACE_MAX_THINK_NS (86400LL * 1000000000LL)

/*
 * What a request is. Inference calls are measured: chat completions,
 * completions, embeddings (never streamed), Anthropic's Messages API
 * (POST .../v1/messages) and OpenAI's Responses API (POST
 * .../v1/responses), the last two streamed as typed events
 * (lib/typed.h). Anything else (GET /v1/models, HEAD, a Messages
 * count_tokens) is "other": record proxy passes it through and records it
 * under that kind, replay skips it unless asked (--all-requests), and a
 * capture loaded as a run leaves it out. A trace's recorded kind can only
 * say "other": the kind is always the one its method and path give.
 */
#define TRACE_KIND_CHAT        "chat"
#define TRACE_KIND_COMPLETIONS "completions"
#define TRACE_KIND_EMBEDDINGS  "embeddings"
#define TRACE_KIND_MESSAGES    "messages"
#define TRACE_KIND_RESPONSES   "responses"
#define TRACE_KIND_OTHER       "other"

/* The kind of a request by its method and path (query ignored; any prefix
 * before the API path, such as a gateway's, allowed). Never NULL. */
const char *trace_kind_of(const char *method, const char *path);

/* True unless kind is TRACE_KIND_OTHER (NULL, unknown: classify first). */
int trace_kind_is_inference(const char *kind);

/* Empties t: no strings, token counts -1. */
void trace_request_init(struct trace_request *t);

/* Frees the strings t owns and empties it again. */
void trace_request_release(struct trace_request *t);

/*
 * Makes t (just initialized) a POST of 'body' to 'path' with the header
 * "Content-Type: application/json", the request record synth and import
 * write. t takes 'body' over (malloc'd, NUL-terminated; on failure too)
 * and copies 'path'. Returns 0, or -1 when out of memory (or body is NULL);
 * either way trace_request_release frees what t holds.
 */
int trace_request_set_json_post(struct trace_request *t, const char *path, char *body);

/* The caller frees the returned object with cJSON_Delete. */
cJSON *trace_request_to_json(const struct trace_request *t);

/*
 * Fills t (initialized) from a record: the one gate every field of a trace
 * passes before replay sends it. A record is refused (-1, err filled) when
 * its method is not a token, its path does not start with '/' or holds a
 * control byte, a space, a non-ASCII byte or a dot segment ("/../",
 * "/%2e%2e/"), or a header is not a token, a colon and a value free of
 * CR, LF and other control bytes (RFC 9110). Framing and routing headers
 * (trace_header_is_routing) and credentials (redact_header_is_secret) are
 * dropped: they are the sender's to set, never the trace's. Its "kind",
 * when absent (traces written before kinds, synthesized and imported
 * ones), comes from trace_kind_of. "session" and "turn" go together (one
 * without the other is refused) and "think_ns" is read as an integer of
 * any sign: the rules that span a session's records (turns in order, a
 * think time in range) are the reader's (replay/session.h). Returns 0.
 */
int trace_request_from_json(struct trace_request *t, const cJSON *obj, char *err, size_t errlen);

/* 0 when m is an HTTP method (a token of at most 32 bytes), else -1. */
int trace_check_method(const char *m);

/* 0 when path may be sent (the rules of trace_request_from_json), else -1. */
int trace_check_path(const char *path);

/* 0 when name is a header name (a token of at most 256 bytes), else -1. */
int trace_check_header_name(const char *name);

/* True for headers that frame or route a message (Host, Content-Length,
 * Transfer-Encoding, Connection and the other hop-by-hop ones, Expect):
 * set by the sender for its own connection, never copied from a trace. */
int trace_header_is_routing(const char *name, size_t len);

#endif
