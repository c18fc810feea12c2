/*
 * client.h - the HTTP side of replay: many concurrent streaming requests on
 * one libevent loop, driven through libcurl's multi socket interface.
 *
 * Every SSE event is timestamped when libcurl hands its bytes over, on the
 * monotonic clock, and folded into a struct result as it arrives: no
 * response is buffered whole, and no measurement waits for the end.
 */
#ifndef TB_CLIENT_H
#define TB_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <event2/event.h>

#include "lib/clientbound.h"
#include "lib/result.h"

struct client;
struct client_request;

/* The anthropic-version a Messages request says when its trace does not. */
#define CLIENT_ANTHROPIC_VERSION "2023-06-01"

struct client_options {
	const char *endpoint;     /* base URL, "http://127.0.0.1:8000" */
	long timeout_ms;          /* whole request; 0 = none */
	long connect_timeout_ms;  /* 0 = libcurl's default */
	const char *api_key;      /* sent as a Bearer token; NULL = none */
	const char *anthropic_key; /* sent as x-api-key on Messages requests
				    * instead of the Bearer token; NULL = none */
	size_t max_event;         /* cap on one SSE event / response body */
	int http2;                /* HTTP/2 (prior knowledge on http://), multiplexed */
	int insecure;             /* do not verify the server's TLS certificate */
	size_t max_connections;   /* kept open between requests (at least this many) */
};

/*
 * What a request asks of the client besides its measurements. A request
 * chosen by replay --cancel is cut at its point: cancel_after_ns after
 * its start, or once cancel_tokens token events are in (0: not so); it
 * ends then as class "cancelled", its connection closed, with what it
 * received so far, and done is called at once. A session's turn has its
 * answer kept in 'keep' (lib/meter.h), which its next turn sends back.
 */
struct client_ask {
	int64_t cancel_after_ns;
	long cancel_tokens;
	struct meter_answer *keep;   /* not owned; NULL: keep nothing */
};

/*
 * Called when a request ends, successfully or not; 'result' is the one given
 * to client_start, now filled. The callback may start more requests.
 */
typedef void (*client_done_fn)(void *ctx, struct result *result);

/* Creates a client on its own event loop. Returns NULL, with why in err
 * (lib/errmsg.h), when libcurl or libevent cannot be set up. */
struct client *client_new(const struct client_options *o, char *err, size_t errlen);

/* Frees the client; requests still running are abandoned. NULL is a no-op. */
void client_free(struct client *c);

/* The event loop, for the caller's own timers and signals. Its events have
 * priority CLIENT_PRIORITY_IO unless set otherwise (event_priority_set);
 * one of CLIENT_PRIORITY_IDLE runs only in a pass of the loop with no
 * socket, timer or signal event to serve. */
struct event_base *client_base(struct client *c);

/* From now on, counts in h (NULL: nowhere) the read delay of every read
 * that brings token events (lib/clientbound.h); h outlives the counting.
 * Returns 1 when the delays include the thread's wait to run (its
 * /proc/thread-self/schedstat read), 0 when they cannot (or h is NULL). */
int client_watch_reads(struct client *c, struct clientbound_hist *h);

/* Notes that the loop ran a pass at now_ns (lib/clock.h; the watch's
 * probe timer): bytes read in a later pass came after this one began, so
 * the thread's waits to run before it are not theirs. Returns the read
 * delay of bytes stamped now (lib/clientbound.h: the pass's age, the busy
 * span of the pass before, the thread's wait to run since), -1 unknown. */
int64_t client_pass_mark(struct client *c, int64_t now_ns);

enum {
	CLIENT_PRIORITY_IO = 1,     /* libevent's default with 3 priorities */
	CLIENT_PRIORITY_IDLE = 2,
};

/*
 * Starts one request: 'method' and 'path' against the endpoint, with
 * 'headers' ("Name: value", n of them) and 'body' (not copied: it must live
 * until done is called). Measurements go into 'result', which must stay
 * valid until then; its sched_ns/send_ns are set relative to 'origin_ns'.
 * 'start_ns' is the instant latencies are measured from (the send time for
 * closed loop, the scheduled time for open loop); pass -1 for "now".
 * 'ask' (NULL: nothing) says what else the request wants of the client.
 * Returns 0, or -1 when libcurl refuses the request (nothing started).
 */
int client_start(struct client *c, const char *method, const char *path,
		 char *const *headers, size_t n_headers, const char *body, size_t body_len,
		 struct result *result, int64_t origin_ns, int64_t start_ns,
		 const struct client_ask *ask, client_done_fn done, void *ctx);

/*
 * Sends the requests started from now on to 'endpoint' (a base URL, not
 * copied: it must outlive them) instead of the one the client was made
 * with. Connections to both stay in one pool, so an A/B run alternates
 * between two servers on one event loop. What the endpoint's URL must not
 * show (userinfo, query values) joins the secrets scrubbed from error
 * details. Returns 0, or -1 when out of memory (the endpoint is set all
 * the same).
 */
int client_set_endpoint(struct client *c, const char *endpoint);

/* What client_warm found: a server that held connections back. */
struct client_warm_info {
	size_t served;      /* connections it answered on, when it held others */
	size_t held;        /* requests it left unanswered, given up; 0: none */
	double waited_s;    /* how long the round waited before giving up */
	size_t capped;      /* connections not opened, past what it held before */
	int64_t fastest_ns; /* the fastest answer's round trip; -1 none answered */
};

/*
 * Opens n connections before a level starts, so that its measured requests
 * find them open: n GET /v1/models at once (a cheap request every
 * OpenAI-compatible server answers; an error status still leaves its
 * connection open), run to their end on the client's loop, nothing
 * recorded. Connections already open are reused and count. A server that
 * answers some and holds the rest back (a fixed pool of connection
 * threads, each kept by an idle connection until its keep-alive timeout)
 * is not waited for: once no answer has come for a second (and 20 times
 * the slowest answer), the rest are given up, their connections closed,
 * and said in *info; later calls open no more than it answered then.
 * Returns 0 (also when the server could not be reached: the level's
 * requests will say so), or -1 when out of memory. A signal that breaks
 * the loop ends the wait early.
 */
int client_warm(struct client *c, size_t n, struct client_warm_info *info);

/* Ends every request in flight now, recording them as cancelled. */
void client_cancel_all(struct client *c);

#endif
