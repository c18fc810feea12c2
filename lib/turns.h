/*
 * turns.h - the figures of a replay of sessions (schema/FORMAT.md,
 * "Sessions"): first turns apart from later ones, where a server's prefix
 * cache shows, and what one session came to (its duration, turns, tokens,
 * the share of each turn's prompt the server had cached).
 *
 * Pure functions over struct result arrays, as lib/summary.c's: replay's
 * results read back by analyze report, compare and plot.
 */
#ifndef TB_TURNS_H
#define TB_TURNS_H

#include <stddef.h>
#include "result.h"

/* Cached-prompt shares kept by turn index; later turns go in the last. */
#define TURNS_MAX_INDEX 16

/* One group of turns (first, or later): successful non-warm-up ones. */
struct turns_group {
	size_t n;                 /* requests */
	double ttft_p50, ttft_p95;  /* ms; NaN when none had a TTFT */
	double e2e_p50;           /* ms */
	double cached_share;      /* cached / prompt tokens of those saying; NaN: none said */
};

struct turns_summary {
	size_t sessions;          /* session instances seen (0: no session results) */
	size_t ended_by_error;    /* ... that ended at a failed turn */
	double turns_mean;        /* turns sent per session */
	double duration_p50_s;    /* first turn's start to the last turn's end */
	double output_tokens_mean;  /* output tokens of a session's turns, summed */
	double context_mean;      /* prompt tokens of a session's last turn */
	struct turns_group first, later;
	/* per turn index (the last one: that index and beyond): the
	 * cached-prompt share, NaN when no request there said */
	double cached_share[TURNS_MAX_INDEX];
	size_t max_turn;          /* highest turn index seen, + 1 */
};

/*
 * Summarizes the n results of r (one level, any order; warm-ups left out).
 * Instances of a session are told apart by repeat and, within one, by
 * each turn 0 starting a new one in sending order. Returns 0, or -1 when
 * out of memory. out->sessions is 0 when no result was a turn.
 */
int turns_compute(const struct result *r, size_t n, struct turns_summary *out);

#endif
