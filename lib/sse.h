/*
 * sse.h - an incremental parser for Server-Sent Events (text/event-stream),
 * the framing OpenAI-compatible servers stream tokens in.
 *
 * Bytes go in as the network delivers them, split anywhere; complete events
 * come out through a callback, in order. Follows the WHATWG event-stream
 * rules: LF, CRLF or CR end a line; a blank line ends an event; lines
 * starting with ':' are comments; several "data:" lines join with '\n'; one
 * space after the colon is dropped. Lines and events are size-capped so a
 * hostile server cannot exhaust memory.
 */
#ifndef TB_SSE_H
#define TB_SSE_H

#include <stddef.h>

/* Default cap on one event's data. */
#define SSE_DEFAULT_MAX_EVENT (1u << 20)

/* A line holds a field name, its colon and a space besides the value, so a
 * line may pass the event cap by this much: an event whose data is exactly
 * the cap long, sent as one "data: " line, is accepted. */
#define SSE_LINE_SLACK 64u

enum {
	SSE_OK = 0,
	SSE_ETOOBIG = -1,   /* an event's data (or a line) passed the cap */
	SSE_ENOMEM = -2,
};

/*
 * Called once per event. 'event' is the event type ("message" unless an
 * "event:" line named another); 'data' is NUL-terminated, without the final
 * newline. A non-zero return stops the parser and is returned by feed.
 */
typedef int (*sse_event_fn)(void *ctx, const char *event, const char *data, size_t len);

struct sse_parser {
	sse_event_fn on_event;
	void *ctx;
	size_t max_event;
	char *line;             /* current, unfinished line */
	size_t line_len, line_cap;
	char *data;             /* data of the event being built */
	size_t data_len, data_cap;
	int have_data;          /* a data: line was seen for this event */
	char event[64];         /* event type of the event being built */
	int after_cr;           /* last byte was CR: a following LF is part of it */
};

/* Prepares p to accept events of up to max_event bytes of data (lines of up
 * to max_event + SSE_LINE_SLACK); max_event 0 means SSE_DEFAULT_MAX_EVENT. */
void sse_parser_init(struct sse_parser *p, size_t max_event, sse_event_fn fn, void *ctx);

/* Frees the buffers; p may be initialized again. */
void sse_parser_release(struct sse_parser *p);

/* Feeds bytes. Returns SSE_OK, a negative SSE_E* code, or the callback's
 * non-zero return value. */
int sse_parser_feed(struct sse_parser *p, const char *buf, size_t len);

/* Bytes of an unfinished line or event held when the stream ended; such an
 * event is discarded, as the standard says. */
size_t sse_parser_pending(const struct sse_parser *p);

const char *sse_strerror(int code);

#endif
