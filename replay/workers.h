/*
 * workers.h - replay --workers W: the shards of a run as W processes on one
 * host (replay is one thread a process), started on one schedule and
 * merged into one results file.
 *
 * The parent forks the workers after loading the trace. Each worker sets
 * up, sends its warm-ups (worker 0 only), says it is ready and waits for
 * the start time the parent then sends to all (--start-at, or a moment
 * after the last is ready). Each writes its own results file; the parent
 * merges them in the order the requests ended, numbering worker w's k-th
 * request seq k*W+w, and prints the sweep table of the merged run.
 */
#ifndef TB_WORKERS_H
#define TB_WORKERS_H

#include <stddef.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "lib/summary.h"

struct workers;

/*
 * Forks n workers. In the parent returns 0 and sets *out (free with
 * workers_free); in worker w returns 1 with *index = w and the worker's ends
 * of the start handshake in fd[0..1] (pass to workers_ready). Returns -1 with a
 * message in err (errlen bytes) when fork or pipe fails (no worker left).
 */
int workers_spawn(int n, struct workers **out, int *index, int fd[2], char *err, size_t errlen);

/*
 * Worker side: tells the parent this worker is ready and returns the start
 * time (UNIX seconds) it sends, or -1 when the parent sent none (another
 * worker failed, or a signal stopped the parent: this worker should stop).
 */
double workers_ready(int fd[2]);

/*
 * Parent side: waits until every worker is ready, then sends them 'start_at'
 * (0: a moment from now) and returns it; -1 when a worker ended before
 * being ready (then none starts). A signal forwarded while waiting stops
 * the wait (returns -1).
 */
double workers_release(struct workers *w, double start_at);

/*
 * Parent side: waits for every worker to end, forwarding SIGINT and SIGTERM
 * sent to the parent alone (one from the terminal reaches every worker
 * already). Returns the worst exit status: the highest, 128+N for a worker
 * killed by signal N.
 */
int workers_wait(struct workers *w);

/* The first signal forwarded to the workers, 0 if none. */
int workers_signal(void);

void workers_free(struct workers *w);

/*
 * Merges the workers' results files paths[0..n-1] into 'output' (header
 * 'header', not taken; replaced only with 'force'), then prints the sweep
 * table of the merged run to 'table' in 'fmt' under 'label'. Sets *written
 * to the records written. Returns 0, or -1 with a message in err.
 */
int workers_merge(char *const *paths, int n, const char *output, const cJSON *header,
		  int force, FILE *table, enum table_format fmt, const char *label,
		  long *written, char *err, size_t errlen);

#endif
