/*
 * traceout.h - a trace that record synth and record import write: a
 * record longer than a trace line may hold is left out and said, the first
 * write error ends the file, and the end says what was left out and what a
 * signal cut short. The file is whole whenever it ends.
 */
#ifndef TB_TRACEOUT_H
#define TB_TRACEOUT_H

#include "lib/tracefile.h"

#include <cjson/cJSON.h>
#include <stddef.h>

struct traceout {
	struct tracefile_writer *w;
	const char *prog;       /* "tracebench record synth": what stderr lines start with */
	const char *path;
	long written, too_long;
};

/* Creates the trace at path (see tracefile_writer_open). Returns 0 or -1. */
int traceout_open(struct traceout *t, const char *prog, const char *path, const cJSON *header,
		  int force, char *err, size_t errlen);

/*
 * Appends rec; NULL stands for a record that could not be made (out of
 * memory). A record too long for a line is left out, said on stderr as
 * "PROG: WHAT left out: why" (WHAT from fmt, "request 12"), and counted.
 * Returns 0, or -1 with err filled: the write cannot go on.
 */
int traceout_append(struct traceout *t, const cJSON *rec, char *err, size_t errlen,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/*
 * Closes the trace, with err filled unless ok is 0 (an earlier error is
 * kept), and says how many records were left out. With sig (the signal
 * that stopped the write after 'total' were asked for) err says what was
 * written; so does the earlier error when ok is 0 and records were
 * written ("...; wrote 16 of 100 requests to 'x' (a whole file)"), the
 * file closed whole. Returns 0, -1 or 128 + sig.
 */
int traceout_close(struct traceout *t, int ok, long total, int sig, char *err, size_t errlen);

#endif
