/*
 * run.h - a whole replay between its steps, internal to replay: struct
 * replay, what replay_main holds from reading the trace to closing the
 * results files, and struct run_side, one server and its results file (an
 * A/B run has two). replay/plan.c plans what it sends, replay/start.c
 * starts it (the server's clock, --start-at, the --workers parent),
 * replay.c runs its levels one after another through replay_run_one and
 * replay/live.c prints their rows; replay/sides.c keeps the sides (their
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
	size_t from;              /* else: the level's first position (an A/B half's) */
	int64_t busy_ns;          /* ... its probe's E2E summed over its requests */
	double peak_rate;         /* ... the rate at which lr.peak_in_flight was reached
				   * (0 or NaN: none yet) */
	struct run_side side[2];
	size_t n_sides;
	unsigned char *ab_order;  /* per level and repeat: B goes first */
	size_t n_blocks;          /* levels times repeats */
	int ab_halves;            /* the halves of a side's block (replay_ab_halves) */
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
 * Runs a level of load 'load', repeat rep against side sd, a table row
 * after it; 'first': the run's first level, which sends the warm-ups;
 * 'batch': its requests, 0 for the usual count. With --find-capacity
 * *good and *measured count the level's requests within the SLO and all
 * of them (warm-ups left out). Returns 0 or the exit status.
 */
int replay_run_one(struct replay *rp, struct load load, int first, int rep, struct run_side *sd,
		   long batch, long *good, long *measured);

/* A scraper per --metrics-url, its first scrape now (before the first
 * level), once a run. Returns 0 or the exit status. */
int replay_start_scrapers(struct replay *rp);

/* ---- replay/plan.c ---- */

/* Reads the trace and groups its sessions; fits the endpoint to its
 * paths. Returns 0 or the exit status. */
int plan_load(struct replay *rp);

/* Keeps what this process sends: this shard's requests, or the open-loop
 * schedule; and an A/B run's order. Returns 0 or the exit status. */
int plan_keep(struct replay *rp);

/*
 * The open-loop schedule of the n_reqs things (requests or sessions)
 * arriving at 'arrival', this shard's part: due offsets into *sched, the
 * position of each into *index (both the caller's to free). Returns how
 * many, 0 when nothing is due or out of memory.
 */
size_t plan_open_schedule(const struct replay_options *o, const int64_t *arrival,
			  size_t n_reqs, int64_t **sched, size_t **index);

/* Closed loop in a worker: its part of 'total' (C or -n). */
size_t plan_worker_share(const struct replay_options *o, size_t total);

/* How many connections level lr opens before its clock, and how many
 * requests it sends (results: with sessions, their turns). */
void plan_size_level(struct replay *rp, struct level_run *lr, long batch);

/* Says when a level sends more than the trace holds (each pass salted
 * apart). */
void plan_say_passes(const struct replay *rp);

/* ---- replay/fit.c ---- */

/* --tokenize: fits each request's prompt to its recorded input length by
 * the endpoint's tokenizer (o->fit says what it did). Returns 0 or the
 * exit status. */
int fit_prompts(struct replay *rp);

/* ---- replay/start.c ---- */

/* Returned by start_workers in a worker: go on replaying its shard. */
#define WORKER_GOES_ON (-1000)

/*
 * --workers W: forks W workers of shard K*W+w of M*W (K/M the --shard given,
 * else 0/1), each writing 'output'.wN; in the parent waits for them and
 * merges their files into o->output. Returns the exit status in the
 * parent, WORKER_GOES_ON in a worker (then *o is the worker's).
 */
int start_workers(struct replay_options *o, const cJSON *server,
		  const struct tracefile_id *trace_id, const struct prepared *reqs,
		  size_t n_reqs, char *tmp_output, size_t tmp_len);

/* Measures this host's clock against the server's while --start-at is
 * ahead (into *cs); says what it found. */
void start_probe_clock(const struct replay_options *o, struct clocksync_result *cs);

/* The monotonic instant at which this host's wall clock reads 'unix_s'. */
int64_t start_mono_at(double unix_s);

/* An anchored run (--start-at, or a worker): the warm-ups, then the wait
 * for the start. Returns 0 or the exit status. */
int start_anchored(struct replay *rp);

/* ---- replay/live.c ---- */

/* Prints the live table's header for row s (NULL: the end of a run
 * without rows) unless one with the same columns is out. */
void live_begin(struct replay *rp, const struct level_summary *s);

/* Keeps a finished level's row: the live table's, and the run's for its
 * end. Returns 0, or -1 when out of memory. */
int live_keep_row(struct replay *rp, const struct run_side *sd, const struct level_summary *s);

/* The scaling of row s of side sd against the side's C=1 level. */
void live_set_scaling(struct replay *rp, const struct run_side *sd, struct level_summary *s);

/* The notes after a level's row on stderr: connections the server held
 * back; a level the client distorted (lib/clientbound.h). */
void live_note_held_connections(const struct level_run *lr, const struct level_summary *s);
void live_note_client_limited(const struct level_run *lr, const struct level_summary *s);

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

/* The salts of a level of load 'load', repeat rep against side sd into rp->lr. */
void sides_set_salts(struct replay *rp, const struct run_side *sd, struct load load, int rep);

/* Runs a level of load 'load', repeat rep, against each side in the
 * order of block k ('first' as replay_run_one's); an A/B run's block in
 * rp->ab_halves halves (replay/schedule.h). Returns 0 or the exit status. */
int sides_run_block(struct replay *rp, struct load load, int first, int rep, size_t k);

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
