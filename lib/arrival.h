/*
 * arrival.h - arrival processes: when each request of a generated load is
 * due, as offsets from the start of the load.
 *
 * Both programs that invent a load draw it here: `record synth` writes the
 * offsets into a trace, and replay's open loop (replay/schedule.h) sends on
 * them. So the same kind, rate and seed give the same offsets in both, to
 * the nanosecond, on every machine (lib/random.h).
 */
#ifndef TB_ARRIVAL_H
#define TB_ARRIVAL_H

#include <stdint.h>

#include "random.h"

enum arrival_kind {
	ARRIVAL_CONSTANT,   /* request i at exactly i / rate seconds */
	ARRIVAL_POISSON,    /* exponential gaps, mean 1/rate */
	ARRIVAL_GAMMA,      /* gamma gaps, shape = burstiness, mean 1/rate */
	ARRIVAL_TRACE,      /* a trace's own offsets (replay); not generated here */
};

/* Parses the generated kinds: "constant", "poisson", "gamma" ("trace" is
 * replay's --timing, not an arrival process). Returns 0, or -1 (*out
 * untouched). */
int arrival_parse(const char *s, enum arrival_kind *out);

/* The name of a kind ("trace" for ARRIVAL_TRACE), for headers and messages. */
const char *arrival_name(enum arrival_kind kind);

/* A generator of offsets; the caller embeds it (nothing to release). */
struct arrival {
	enum arrival_kind kind;
	double rate;          /* requests per second, > 0 */
	double burstiness;    /* gamma shape, > 0; 1 is Poisson, < 1 burstier */
	struct rng rng;
	int64_t n;            /* offsets given so far */
	double t;             /* seconds: running sum of the random gaps */
};

/* The stream of the user's seed that arrival gaps draw from. */
#define ARRIVAL_STREAM 2

/*
 * Starts a generated arrival process (not ARRIVAL_TRACE). 'seed' is the
 * user's --seed: the random gaps come from a stream derived from it
 * (rng_derive(seed, ARRIVAL_STREAM)), so other streams drawn from the same
 * seed (a synthetic trace's words and lengths) stay independent of it.
 */
void arrival_init(struct arrival *a, enum arrival_kind kind, double rate, double burstiness,
		  uint64_t seed);

/*
 * The next offset in nanoseconds; the first is 0. Constant offsets are
 * i / rate exactly (rounded once, never summed), random ones are rounded
 * from the exact running sum of their gaps: rounding never drifts.
 */
int64_t arrival_next(struct arrival *a);

#endif
