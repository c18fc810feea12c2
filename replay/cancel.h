/*
 * cancel.h - cancellation as a workload (replay --cancel P:AFTER): which
 * requests a run cancels, and when.
 *
 * A user who closes the tab, a client that gives up on a slow answer, an
 * agent that stops a generation once it has what it wanted: a server must
 * stop the work and free its slot. --cancel makes a share P of the
 * measured requests do that, AFTER a time from their start ("200ms",
 * "1.5s") or after N token-carrying events ("tokens:16").
 *
 * Which requests: a pure function of the run's --seed, the trace record's
 * id and the pass over the trace that sent it, never of the level, its
 * concurrency, the order of sending or the clock: a rerun with the same
 * seed cancels the same requests, and every level cancels the same trace
 * records. Each is chosen on its own with probability P (a Bernoulli
 * draw), so the count over n requests is about P x n, exactly the same
 * from run to run.
 */
#ifndef TB_REPLAY_CANCEL_H
#define TB_REPLAY_CANCEL_H

#include <stddef.h>
#include <stdint.h>

/* The longest time AFTER may be: a day. */
#define CANCEL_MAX_NS (86400LL * 1000000000LL)
/* The most tokens AFTER may wait for. */
#define CANCEL_MAX_TOKENS 1000000000LL
/* "tokens:1000000000", "86400000ms" and the NUL fit. */
#define CANCEL_TEXT_MAX 24

struct cancel_spec {
	double share;          /* P, in (0, 1]; 0: no --cancel */
	int64_t after_ns;      /* cancel this long after the request's start, or 0 */
	int64_t tokens;        /* ... or after this many token events, or 0 */
};

/*
 * Parses "P:AFTER": P a decimal in (0, 1] ("0.1", "1"), AFTER a positive
 * decimal with unit "us", "ms" or "s" ("200ms", "1.5s") up to a day, or
 * "tokens:N" with N a positive integer. Digits and at most one '.' only:
 * no sign, exponent, space or trailing text. Returns 0, or -1 with why
 * in err (errlen bytes; one line, which does not quote the spec: the
 * caller names it), *c then zeroed.
 */
int cancel_parse(const char *spec, struct cancel_spec *c, char *err, size_t errlen);

/* AFTER as the results file records it on a chosen request: "tokens:16",
 * or the time in ms to the nanosecond ("200ms", "0.25ms"), which
 * cancel_parse reads back to the same point; "" when c has none. */
void cancel_after_text(const struct cancel_spec *c, char *buf, size_t len);

/* Whether the request replaying trace record 'trace_id' in pass 'pass'
 * over the trace is one c cancels, under 'seed' (see the top). */
int cancel_chosen(const struct cancel_spec *c, uint64_t seed, long trace_id, size_t pass);

#endif
