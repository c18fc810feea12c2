/*
 * typed.h - the typed events of Anthropic's Messages API and OpenAI's
 * Responses API, read into the facts the meter folds.
 *
 * Chat and completions stream one shape of chunk, read by lib/meter.c
 * (and lib/chunk.h). The Messages API (POST /v1/messages) and the
 * Responses API (POST /v1/responses) stream typed events instead: each
 * event's JSON names its "type" (Messages also sends it as the SSE event
 * name), and what it means follows from that type: a delta of answer
 * text, of reasoning, of a tool call's arguments, the usage, the end of
 * the stream, an error. Neither ends with [DONE]: message_stop and
 * response.completed (or response.incomplete, a stream cut at
 * max_output_tokens) end them. This module knows those shapes and nothing
 * of timing: it tells what one event (or a whole non-streamed body) says,
 * and the meter decides what that does to TTFT, TTFA, gaps and tokens.
 * The event shapes are the APIs' published ones; schema/FORMAT.md and the
 * README's metrics table say how each is counted.
 */
#ifndef TB_TYPED_H
#define TB_TYPED_H

#include <stdbool.h>
#include <cjson/cJSON.h>

/* The API whose events a response carries; TYPED_NONE: OpenAI chunks. */
enum typed_api {
	TYPED_NONE,
	TYPED_MESSAGES,
	TYPED_RESPONSES,
};

/* What kind of token an event carries, if any. */
enum typed_token {
	TYPED_NO_TOKEN,
	TYPED_ANSWER,         /* answer text: text_delta, response.output_text.delta */
	TYPED_REASONING,      /* thinking_delta, response.reasoning_*text.delta */
	TYPED_TOOL,           /* a tool call's name or arguments */
};

/* What one event (or body) says. Pointers point into the cJSON tree read,
 * and live as long as it does. */
struct typed_event {
	enum typed_token token;
	const cJSON *text;        /* the answer's text of a TYPED_ANSWER, a string */
	bool end;                 /* the stream's last event: it is complete */
	/* usage, where the event carries it as numbers (not yet range-checked):
	 * output tokens; input tokens (cached ones included, as OpenAI counts
	 * prompt_tokens: a Messages usage's input_tokens,
	 * cache_creation_input_tokens and cache_read_input_tokens summed);
	 * of those, the ones read from the prefix cache */
	bool has_output, has_input, has_cached;
	double output, input, cached;
	/* a server error: its message (NULL when it gave none) and its type
	 * or code (NULL when none); 'error' says there was one */
	bool error;
	const char *error_type, *error_message;
	/* the Responses API's id of the response (response.created, completed
	 * or incomplete; a body's "id"), which a later request may name as
	 * its previous_response_id; NULL when none (not checked here) */
	const char *response_id;
};

/* The API of a request of trace kind 'kind' (lib/trace.h): TYPED_MESSAGES
 * for "messages", TYPED_RESPONSES for "responses", else TYPED_NONE. */
enum typed_api typed_api_of_kind(const char *kind);

/* The event's name in messages for the user: "message_stop" or
 * "response.completed", the event that ends a complete stream. */
const char *typed_end_name(enum typed_api api);

/*
 * Reads one streamed event of 'api' (not TYPED_NONE) into *e: obj is its
 * data, a JSON object; 'event' the SSE event name ("" when none), used
 * when the data names no "type". An event of a type this module does not
 * know says nothing (the APIs add types; a client must skip them).
 */
void typed_event_read(enum typed_api api, const char *event, const cJSON *obj,
		      struct typed_event *e);

/*
 * Reads a whole non-streamed response body of 'api' into *e: its usage
 * and error (never a token, never 'end'). Then typed_body_text gives its
 * answer's text parts, in order, each a cJSON string, to fn(ctx, text).
 */
void typed_body_read(enum typed_api api, const cJSON *obj, struct typed_event *e);
void typed_body_text(enum typed_api api, const cJSON *obj,
		     void (*fn)(void *ctx, const cJSON *text), void *ctx);

#endif
