/*
 * schedule.h - open-loop send schedules: when each request is due, as an
 * offset from one absolute start time.
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

enum arrival {
	ARRIVAL_CONSTANT,   /* every 1/rate seconds */
	ARRIVAL_POISSON,    /* exponential gaps, mean 1/rate */
	ARRIVAL_GAMMA,      /* gamma gaps, shape = burstiness, mean 1/rate */
	ARRIVAL_TRACE,      /* the trace's own arrival offsets / speed */
};

struct schedule_options {
	enum arrival arrival;
	double rate;          /* requests per second (not ARRIVAL_TRACE) */
	double burstiness;    /* gamma shape; 1 = Poisson, < 1 burstier */
	double speed;         /* ARRIVAL_TRACE: 2 = twice as fast */
	uint64_t seed;
	size_t max_requests;  /* stop after this many (0 = no limit) */
	int64_t duration_ns;  /* stop before this offset (0 = no limit) */
};

/* Parses "constant", "poisson", "gamma". Returns 0 or -1. */
int schedule_arrival_parse(const char *s, enum arrival *out);

/* Name of an arrival process, for headers and messages. */
const char *schedule_arrival_name(enum arrival a);

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

#endif
