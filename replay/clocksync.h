/*
 * clocksync.h - how far this host's wall clock is from the server's, so
 * that shards on several hosts can tell whether they started together.
 *
 * Every HTTP server stamps its responses with a Date header (RFC 9110),
 * whole seconds of its own clock. One probe says little, but the instant
 * the header turns to the next second does: a probe answered "…:07" and the
 * next one "…:08" bracket the server's second boundary between the send of
 * the first and the answer of the second. Probing densely across a few
 * boundaries (GET /v1/models, a few dozen tiny requests a boundary) narrows
 * the offset to about one round trip, well under a millisecond on a LAN.
 * All shards of a run observe the same server, so their offsets against it
 * compare their clocks with each other, even when the server's own clock,
 * or its Date cache, is off.
 */
#ifndef TB_CLOCKSYNC_H
#define TB_CLOCKSYNC_H

#include <stddef.h>
#include <stdint.h>

struct clocksync_options {
	const char *endpoint;     /* base URL; the probes GET endpoint/v1/models */
	const char *api_key;      /* sent as a Bearer token; NULL = none */
	int http2, insecure;      /* as replay's client */
	int64_t budget_ns;        /* stop probing after this long (monotonic) */
};

struct clocksync_result {
	int measured;             /* 1: offset_ms and error_ms hold */
	double offset_ms;         /* the server's clock minus ours, midpoint */
	double error_ms;          /* half the width of the interval it lies in */
	double rtt_ms;            /* the shortest probe round trip */
	int probes;               /* requests sent */
	int edges;                /* second boundaries bracketed */
};

/*
 * Probes the server for at most o->budget_ns and fills *out. Returns 0
 * (out->measured 0 when the server sends no Date header or the budget
 * ends before the first boundary), or -1 with a message in err (errlen
 * bytes) when no probe got an answer. Blocks; runs before the replay's
 * event loop starts.
 */
int clocksync_measure(const struct clocksync_options *o, struct clocksync_result *out,
		      char *err, size_t errlen);

#endif
