/*
 * watch.h - replay watching itself while a level runs (issue 34): a probe
 * timer on the loop, every CLIENTBOUND_PROBE_MS, whose lateness shows a
 * loop held by work or a thread the kernel did not run (and the host's
 * own wake-up of the thread for the timer, which the read delay at each
 * firing tells apart: the loop's part), and the measuring
 * thread's CPU time over the level's wall time. With the requests' own
 * issue and read delays (replay/client.c) they give the level's bound on
 * the client's share of its TTFT and gaps (lib/clientbound.h), written
 * into its host record at its end (replay/level.c).
 */
#ifndef TB_REPLAY_WATCH_H
#define TB_REPLAY_WATCH_H

#include <stddef.h>
#include <stdint.h>
#include <event2/event.h>

#include "lib/clientbound.h"
#include "lib/result.h"
#include "replay/client.h"

/* The lags kept, at most: 9 minutes of probes; later ones are not kept. */
#define WATCH_MAX_PROBES (1u << 18)

struct watch {
	struct event *probe;      /* NULL when not watching */
	int64_t due_ns;           /* when the probe should fire next */
	double *lag_us;           /* owned: each probe's lateness ... */
	double *loop_us;          /* owned: ... and the part of it the loop
				   * and its thread account for */
	size_t n, cap;
	int64_t wall0_ns, cpu0_ns;  /* the level's start: clock, thread CPU */
	struct client *client;      /* whose token reads are counted ... */
	struct clientbound_hist *token_reads;   /* owned: ... here */
	int run_wait_read;          /* client_watch_reads' answer */
};

/* Starts watching client's loop and its token reads (w zeroed before, or
 * stopped). Returns 0, or -1 when out of memory (nothing watched; the
 * level runs all the same). */
int watch_start(struct watch *w, struct client *client);

/* Stops watching: what was watched over the level, with the n results'
 * issue and read delays (warm-ups left out) and the transport's round
 * trip (client_warm_info.fastest_ns; < 0 unknown), into out, and its bound into
 * b. Frees what w holds. Without a watch started, out has the results'
 * delays alone. Returns 0, or -1 when out of memory (out and b NaN). */
int watch_stop(struct watch *w, const struct result *r, size_t n, int64_t transport_ns,
	       struct clientbound_watch *out, struct clientbound *b);

#endif
