/*
 * schedule.h - open-loop send schedules: when each request is due, as an
 * offset from one absolute start time. The generated kinds are
 * lib/arrival.h's, the same as `record synth` writes into a trace.
 *
 * The whole schedule is computed before the first request leaves, so a
 * slow server cannot stretch it: a request is due at its offset whatever
 * happened to the ones before it (no sleep-after-previous drift), and its
 * latency is measured from that offset (no coordinated omission).
 */
#ifndef TB_SCHEDULE_H
#define TB_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/arrival.h"

/* The schedule's horizon: a request due later (a huge trace arrival slowed
 * by --speed) ends it, rather than overflowing a 64-bit nanosecond count. */
#define SCHEDULE_MAX_NS 1e17    /* about three years */

struct schedule_options {
	enum arrival_kind arrival;   /* ARRIVAL_TRACE: the trace's offsets / speed */
	double rate;          /* requests per second (not ARRIVAL_TRACE) */
	double burstiness;    /* gamma shape; 1 = Poisson, < 1 burstier */
	double speed;         /* ARRIVAL_TRACE: 2 = twice as fast */
	uint64_t seed;        /* the user's --seed (lib/arrival.h derives its stream) */
	size_t max_requests;  /* stop after this many (0 = no limit) */
	int64_t duration_ns;  /* stop before this offset (0 = no limit) */
};

/*
 * Computes the due offsets (ns, non-decreasing, the first one 0 unless the
 * trace says otherwise). ARRIVAL_TRACE takes 'trace_arrivals' (n_trace of
 * them, in trace order); other kinds ignore them. At least one of
 * max_requests and duration_ns must be set for the generated kinds.
 * Returns the number of offsets written to *out (the caller frees it), or
 * 0 when nothing is due (or out of memory).
 */
size_t schedule_build(const struct schedule_options *o, const int64_t *trace_arrivals,
		      size_t n_trace, int64_t **out);

/*
 * The order of an A/B run (replay with two endpoints): its n blocks, one
 * per level and repeat, each run against A and against B. Sets b_first[k]
 * to 1 when B goes first in block k. Blocks go in twos of opposite orders
 * (AB BA or BA AB, a coin from 'seed' choosing), so each side goes first
 * equally often (an odd last block aside). The same seed gives the same
 * order.
 */
void schedule_ab_order(size_t n, uint64_t seed, unsigned char *b_first);

/*
 * Inside a block each side runs its level in SCHEDULE_AB_HALVES halves, in
 * the order X Y Y X (X the side that goes first): a drift of the host's
 * speed that is linear over the block falls on both sides alike and
 * divides out of the block's ratio, as it does not when each side runs
 * once, X Y (computed from the noisy mock's drift function: an SD of 1.6%
 * between two halves 1.5 s apart against 0.3% for X Y Y X; replayed, a
 * 10% TPOT change at C=4 seen 19 of 20 times against 16, BENCHMARKS.md
 * section 11). Half h of block r is the
 * results files' repeat 2r + h: the level's first N/2 requests, then the
 * rest. A half starts as a level does, C transfers at once, so a run is
 * halved only when every level makes two waves a half (N >= 4 C,
 * replay_ab_halves): a half of one wave is all burst, and on the
 * deterministic mock its client noise cost more than the drift it saved
 * (BENCHMARKS.md section 8). Else X Y, and a repeat is a block.
 */
#define SCHEDULE_AB_HALVES 2

#endif
