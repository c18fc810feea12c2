/*
 * run.h - a whole replay between its steps, internal to replay: struct
 * replay, what replay_main holds from reading the trace to closing the
 * results files, and struct run_side, one server and its results file (an
 * A/B run has two). replay.c plans the run and runs its levels one after
 * another through replay_run_one; replay/sides.c keeps the sides (their
 * servers, files, salts and A/B order) and replay/find_capacity.c runs a
 * --find-capacity search, each probe an ordinary level. Running one level
 * is replay/level.h's.
 */
#ifndef TB_REPLAY_RUN_H
#define TB_REPLAY_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <event2/event.h>
#include <cjson/cJSON.h>

#include "replay/clocksync.h"
#include "replay/failures.h"
#include "replay/level.h"
#include "replay/options.h"
#include "replay/prepared.h"
#include "replay/rerun.h"
#include "replay/session.h"
#include "lib/summary.h"
#include "lib/table.h"

struct client;
struct tracefile_writer;

/* One side of a run: the server, its run's label and results file. An A/B
 * run has two, and alternates between them level by level. */
struct run_side {
	const char *endpoint, *label, *output;
	char *shown;              /* endpoint as files and stderr get it (lib/redact.h) */
	struct tracefile_writer *out;
	long seq;                 /* next sequence number of this side */
};

/* Everything a replay holds between its steps. */
struct replay {
	struct replay_options o;
	struct prepared *reqs;
	size_t n_reqs;
	struct session_set sessions;  /* a trace with sessions: them; else n = 0 */
	int64_t *arrivals;        /* open loop: of each request or session */
	struct tracefile_id trace_id;
	char worker_output[1100]; /* a worker's own results file */
	char host_source[48];     /* level_run.host_source */
	int64_t *sched;           /* open loop: due offsets, else NULL */
	size_t *sched_index, n_sched;
	size_t rate_connections;  /* a rate search: the most connections it keeps */
	size_t cursor;            /* a capacity search: position its next look starts at */
	int64_t busy_ns;          /* ... its probe's E2E summed over its requests */
	double peak_rate;         /* ... the rate at which lr.peak_in_flight was reached */
	struct run_side side[2];
	size_t n_sides;
	unsigned char *ab_order;  /* per level and repeat: B goes first */
	size_t n_blocks;          /* levels times repeats */
	size_t warmups;           /* warm-up requests this process sends */
	int anchored;             /* one schedule for all shards, from --start-at */
	int scrapers_started;     /* start_scrapers ran (before the anchor, or the levels) */
	int table;                /* prints the sweep table (not a worker) */
	struct clocksync_result cs;
	cJSON *server[2];         /* per side: the server as it described itself */
	struct rerun rerun;       /* --rerun: the expanded command line (o points into it) */
	struct failures failures; /* why requests failed */
	int said_closes;          /* said that the server closes kept connections */
	struct client *client;
	struct event *tick, *sigint, *sigterm;
	struct level_run lr;
	size_t total_ok, total;   /* measured requests (not warm-ups); ok: not failed */
	size_t total_cancelled, total_cancel_ended;   /* --cancel's, cut and not */
	struct level_summary warmup;
	struct table live;        /* the sweep table on stdout */
	int live_begun;           /* its header is out (live_begin) */
	struct level_summary *rows;   /* its rows, for the notes under it */
	size_t n_rows, rows_cap;
	/* per side: the C=1 level's tokens and wall time, its repeats
	 * pooled as the report pools them (scaling's base) */
	int64_t base_tokens[2];
	double base_wall_s[2];
};

/* ---- replay/replay.c ---- */

/*
 * Runs level 'level', repeat rep against side sd, a table row after it;
 * 'first': the run's first level, which sends the warm-ups; 'batch': its
 * requests, 0 for the usual count. With --find-capacity *good and
 * *measured count the level's requests within the SLO and all of them
 * (warm-ups left out). Returns 0 or the exit status.
 */
int replay_run_one(struct replay *rp, int level, int first, int rep, struct run_side *sd,
		   long batch, long *good, long *measured);

/*
 * The open-loop schedule of the n_reqs things (requests or sessions)
 * arriving at 'arrival', this shard's part: due offsets into *sched, the
 * position of each into *index (both the caller's to free). Returns how
 * many, 0 when nothing is due or out of memory.
 */
size_t replay_open_schedule(const struct replay_options *o, const int64_t *arrival,
			    size_t n_reqs, int64_t **sched, size_t **index);

/* ---- replay/sides.c ---- */

/* Asks each side's server what it is (rp->server[t]). Returns 0, or the
 * exit status when out of memory. */
int sides_ask_servers(struct replay *rp);

/* An A/B run's order: which side goes first in each level and repeat
 * (rp->ab_order, one block for an open loop). Returns 0 or the exit status. */
int sides_plan_order(struct replay *rp);

/* Creates the results file of each side with its header. Returns 0 or the
 * exit status. */
int sides_open(struct replay *rp);

/* Points the level run at side sd: its file, numbering, server. */
void sides_use(struct replay *rp, struct run_side *sd);

/* The salts of level (its C), repeat rep against side sd into rp->lr. */
void sides_set_salts(struct replay *rp, const struct run_side *sd, int level, int rep);

/* Runs level 'level', repeat rep, against each side in the order of
 * block k ('first' as replay_run_one's). Returns 0 or the exit status. */
int sides_run_block(struct replay *rp, int level, int first, int rep, size_t k);

/* Closes each side's results file; 0, or the exit status after saying why. */
int sides_close(struct replay *rp);

/* Closes what sides_open left open and frees the sides' memory. */
void sides_release(struct replay *rp);

/* ---- replay/find_capacity.c ---- */

/*
 * --find-capacity: each probe an ordinary level, judged and the next load
 * chosen by lib/capacity.h. Returns 0 or the exit status.
 */
int find_capacity_run(struct replay *rp);

#endif
