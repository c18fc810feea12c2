/*
 * meter.h - measures one OpenAI-compatible response as its bytes arrive.
 *
 * Both sides that watch a response stream use it: replay's client (which
 * sent the request) and record's proxy (which passes it on). Bytes go in
 * with the instant they arrived; the meter parses them as SSE, reads each
 * chunk and folds it into a struct result on the spot: TTFT (first token of
 * any kind), TTFA (first answer content), the gaps between token events,
 * usage (with the prompt tokens the server found in its prefix cache,
 * usage.prompt_tokens_details.cached_tokens), [DONE] and error events.
 * The Messages and Responses APIs stream typed events instead
 * (lib/typed.h): meter_set_kind tells the meter which API it reads.
 * Nothing is buffered but the event being parsed, so a long stream costs
 * no memory.
 */
#ifndef TB_METER_H
#define TB_METER_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"
#include "sse.h"
#include "toolcall.h"
#include "typed.h"

/* The longest answer kept (text and tool calls together), and the
 * longest response id kept, with its NUL. */
#define METER_MAX_ANSWER (16u << 20)
#define METER_RESPONSE_ID_MAX 128

/*
 * A response's answer, kept for a session's next turn to send back as
 * its history: the text of choice 0 (streamed content deltas, or a
 * body's message content), its tool calls (streamed delta.tool_calls, a
 * body's message.tool_calls, a Messages stream's tool_use blocks), and
 * the id the server gave the response (Responses API; replay
 * --previous-response-id names it instead of sending the history).
 */
struct meter_answer {
	char *content;            /* owned, NUL-terminated; NULL as "" */
	size_t len, cap;
	struct toolcalls calls;   /* owned */
	char *response_id;        /* owned: at most METER_RESPONSE_ID_MAX - 1
				   * bytes of [A-Za-z0-9_.:-]; NULL when none
				   * or another */
};

/* Frees what a owns and zeroes it. */
void meter_answer_release(struct meter_answer *a);

struct meter {
	struct result *result;   /* filled in place; owned by the caller */
	struct meter_answer *keep;   /* where the answer is kept (set after
				      * meter_init; not owned), or NULL */
	int64_t start_ns;        /* latencies count from this instant */
	int64_t now_ns;          /* arrival of the bytes being parsed */
	int64_t last_token_ns;
	long token_events;
	long stop_tokens;        /* stop reading after this many token events
				  * (replay --cancel tokens:N); 0: never */
	size_t itl_cap;
	int done_seen;           /* data: [DONE] arrived */
	int plain;               /* not an inference call (lib/trace.h kinds):
				  * its status says all, its body is not read */
	enum typed_api api;      /* typed events, or TYPED_NONE: OpenAI chunks */
	int have_usage;
	int64_t usage_completion, usage_prompt;
	int64_t usage_cached;    /* prompt_tokens_details.cached_tokens, -1 none */
	int full_parse;          /* parse every chunk with cJSON, without
				  * lib/chunk.h's lean scan first (set after
				  * meter_init; the fuzzers compare the two) */
	struct sse_parser sse;
};

/* Starts measuring into r (initialized) from start_ns; max_event caps one
 * event (0: SSE_DEFAULT_MAX_EVENT). */
void meter_init(struct meter *m, struct result *r, int64_t start_ns, size_t max_event);

/* The request is of trace kind 'kind' (lib/trace.h; NULL: other): a
 * plain request's body is not read, a Messages or Responses one is read
 * as that API's typed events. Call after meter_init, before feeding. */
void meter_set_kind(struct meter *m, const char *kind);

/* Frees the parser's buffers (not the result). */
void meter_release(struct meter *m);

/* meter_feed: stop_tokens token events are in; what followed them in
 * the bytes fed is not read. */
#define METER_STOPPED 1

/*
 * Feeds streamed (text/event-stream) bytes that arrived at now_ns. Returns
 * 0, METER_STOPPED (stop feeding; no error set), or a negative SSE_E* code
 * when the stream broke the size cap (the result then carries a
 * "malformed" error; stop feeding).
 */
int meter_feed(struct meter *m, const char *buf, size_t len, int64_t now_ns);

/* The stream ended at now_ns, cleanly as far as the transport knows: sets
 * E2E, an "incomplete" error when no [DONE] came (for typed events: no
 * message_stop, no response.completed or .incomplete), and the token
 * counts. */
void meter_end_stream(struct meter *m, int64_t now_ns);

/* A whole non-streamed JSON body arrived by now_ns: its usage; TTFT and
 * TTFA equal E2E. For a plain request (any body, even none, as HEAD's)
 * only E2E is set and no token counted. */
void meter_end_body(struct meter *m, const char *body, size_t len, int64_t now_ns);

/* The transfer failed at now_ns: sets E2E and the token counts so far
 * (the caller sets the error class). */
void meter_end_failed(struct meter *m, int64_t now_ns);

#endif
