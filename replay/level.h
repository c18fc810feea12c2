/*
 * level.h - running one level of a replay, internal to replay: the state
 * of the level being run, the engine that issues its requests, records
 * their results and ends the level (replay/level.c), and the sessions
 * engine that sends a session's turns one after another
 * (replay/session_run.c). replay.c sets a level up (its requests, salts
 * from replay/sides.c, schedule, connections), calls level_run_to_end and
 * reads its summary.
 */
#ifndef TB_REPLAY_LEVEL_H
#define TB_REPLAY_LEVEL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <event2/event.h>
#include <cjson/cJSON.h>

#include "replay/cancel.h"
#include "replay/client.h"
#include "replay/options.h"
#include "replay/prepared.h"
#include "replay/scrape.h"
#include "replay/session.h"
#include "replay/watch.h"
#include "lib/load.h"
#include "lib/result.h"
#include "lib/summary.h"

struct client;
struct failures;
struct tracefile_writer;

struct level_run;

/* A session in flight (session mode: the trace has sessions). Its turns go
 * out one at a time: the next is due when the last has ended plus its think
 * time, with the answers so far in its history (replay/session.h). */
struct session_run {
	struct level_run *lr;
	const struct session_entry *e;
	size_t next;              /* the turn to send next */
	struct meter_answer *answers;  /* the server's to turns 0 .. next-1 */
	char *body;               /* the filled body of the turn in flight, or NULL */
	struct event *timer;      /* the think time before the next turn */
	int64_t due_ns;           /* when the next turn is due (monotonic) */
	int active;
	struct session_run *wait_next;  /* open loop: due, held by --max-concurrency */
	size_t pass;              /* its pass over the trace's sessions (level_request_salt) */
};

/*
 * --metrics-url: a level's counters are counted over its window, from a
 * scrape before its first measured request (after the warm-ups) to one
 * after its last answer (replay/scrape.h). WINDOW_WANTED holds level_issue()
 * back until the start scrape is in.
 */
enum level_window {
	WINDOW_NONE,          /* no scrapes, or none at this level's edges */
	WINDOW_WANTED,        /* a start scrape is due before the first request */
	WINDOW_STARTING,      /* ... asked for, not yet in: nothing is sent */
	WINDOW_OPEN           /* in: the level runs */
};

/* The state of the level being run; the done callback drives it. */
struct level_run {
	struct client *client;
	struct tracefile_writer *out;
	const struct prepared *reqs;
	size_t n_reqs;
	long *seq;                /* next sequence number, shared across levels */
	int64_t origin_ns;        /* the run's start: offsets in results count from it */
	const char *host_source;  /* the source of the host's own metrics records
				   * at each level's edges (lib/hostload.h);
				   * NULL: none */
	int bound_only;           /* a --workers run's later worker: its record at
				   * a level's end carries its own watch and bound
				   * alone (the first worker's, the host's) */
	int no_watch;             /* --no-client-watch: no watch, no bound */
	int host_started;         /* this level's start record is written */
	struct watch watch;       /* replay watching itself from then on */
	/* what it saw by the level's end and the bound it gives; known: set */
	struct clientbound_watch client_w;
	struct clientbound client_b;
	int client_known;
	struct load level;        /* recorded (load_code, a probe's rate beside it) */
	size_t cap;               /* closed loop: requests in flight here (C / workers) */
	int repeat;
	char salt[RESULT_SALT_MAX];        /* tag of the level's measured requests, "" none */
	char warmup_salt[RESULT_SALT_MAX]; /* of its warm-ups */
	uint64_t salt_seed;       /* the run's (and side's), keying each request's salt */
	const struct cancel_spec *cancel;  /* --cancel, share 0 when not given */
	uint64_t cancel_seed;     /* --seed: which requests it cancels */
	size_t first;             /* position of the level's first request (make_salt) */
	const int64_t *sched;     /* open loop: due offsets of the n requests, else NULL */
	const size_t *req_index;  /* open loop: position of each of the n (open_schedule) */
	int64_t sched_origin_ns;  /* open loop: the instant offset 0 stands for */
	int64_t anchor_ns;        /* --start-at: sched_origin_ns fixed there, else 0 */
	size_t max_concurrency;   /* open loop cap, 0 = none */
	size_t connections;       /* opened before the level starts, 0 = none */
	struct client_warm_info warm;  /* what opening them found */
	struct event *due_timer;  /* open loop: wakes level_issue() when the next is due */
	const struct session_set *sessions;  /* session mode, else NULL */
	size_t n_sessions;        /* sessions to run in this level */
	size_t sessions_started, sessions_done;
	struct session_run *sruns; /* one per session started */
	struct session_run *wait_head, *wait_tail;  /* later turns due, held */
	int chain;                /* --previous-response-id: Responses turns chained */
	size_t chain_unlinked;    /* ... later turns sent whole: no id before them */
	struct result *results;   /* warmup + n of them */
	struct result **unwritten; /* finished, their records not yet written: a FIFO */
	size_t unwritten_head, n_unwritten;
	struct event *write_ev;   /* writes them when the loop has nothing else to do */
	char **bodies;            /* salted bodies of those sent, NULL: the prepared one */
	size_t warmup, n;
	size_t issued, finished, in_flight;
	size_t peak_in_flight;    /* most in flight at once, over the levels run */
	int write_failed;
	struct failures *failures;   /* told and counted as they come back */
	int show_progress;
	size_t errors;            /* of the level so far */
	size_t cancelled;         /* ... cut by --cancel, not counted in errors */
	int64_t tokens;           /* output tokens of the level so far */
	int64_t progress_ns;      /* when the progress line was last printed */
	int64_t measure_ns;       /* when the warm-ups were over, 0 before */
	size_t progress_finished;
	int64_t progress_tokens;  /* tokens received by then, streams in flight too */
	size_t live_from;         /* results before it have all ended */
	struct scrape *scrapes[REPLAY_MAX_METRICS_URLS];  /* one per --metrics-url */
	size_t n_scrapes;
	enum level_window window; /* --metrics-url: where the level's window stands */
	size_t edge_pending;      /* boundary scrapes asked for, not yet in */
	int window_ahead;         /* the next level's start scrape was asked for
				   * ahead of its anchor (level_window_ahead) */
	struct load ahead_level;  /* ... that level */
	scrape_done_fn edge_done; /* ... then called, once all are */
};

/* Why the run stops: LEVEL_RUNNING while it goes on, the number of the
 * first signal seen, or LEVEL_STOP_OWN for a reason of replay's own (a
 * write failed, out of memory), set by level_stop_own. */
enum { LEVEL_RUNNING = 0, LEVEL_STOP_OWN = -1 };
extern volatile sig_atomic_t level_stop;

/* Stops the run for a reason of replay's own, unless a signal stopped it
 * first (its number decides the exit status). */
void level_stop_own(void);

/* ---- replay/level.c ---- */

/* --cancel: marks r, replaying trace record 'trace_id' in pass 'pass' over
 * the trace, with its point when it is one of those cancelled (never a
 * warm-up). */
void level_choose_cancel(const struct level_run *lr, struct result *r, size_t pass);

/*
 * The one way a request of the level is sent, in three steps.
 * level_begin_request: the next result, for request p in pass 'pass' over
 * the trace: the fields every record carries set, --cancel's choice made,
 * counted as issued and in flight. level_salted_body: p's body with its
 * salt (level_request_salt) in front of its prompt into *out (malloc'd,
 * the caller frees; NULL: unsalted, p's own body goes) and *len, the salt
 * noted in r; 0, or -1 when out of memory. level_send: sends r (p's
 * method, path and headers, 'body' of len bytes), cut at its --cancel
 * point if chosen, its answer kept in 'keep' (NULL: not kept), its
 * latencies counted from start_ns (-1: the send), done(ctx, r) when it
 * ends; 0, or -1 after
 * recording r as failed ('why', or libcurl's refusal when NULL) without
 * calling done (a caller in a loop of refusals would go a level deeper
 * each time).
 */
struct result *level_begin_request(struct level_run *lr, const struct prepared *p, size_t pass,
				   int warmup);
int level_salted_body(const struct level_run *lr, const struct prepared *p, int warmup,
		      size_t pass, struct result *r, char **out, size_t *len);
int level_send(struct level_run *lr, const struct prepared *p, struct result *r, const char *why,
	       const char *body, size_t len, struct meter_answer *keep, int64_t start_ns,
	       client_done_fn done, void *ctx);

/* Sends what the level may send now (closed loop: up to its cap; open
 * loop: what is due), or the sessions engine's (sessions_issue); breaks
 * the loop when the level is over. */
void level_issue(struct level_run *lr);

/* A request of the level has ended (client_start's callback, ctx the
 * level run): recorded, and the next one issued. */
void level_on_done(void *ctx, struct result *r);

/* Open loop: whether the k-th scheduled send is due (its time in *due);
 * if not, the due timer is armed for it. */
int level_sched_due(struct level_run *lr, size_t k, int64_t *due);

/* r has ended: counts it and queues its record for writing. */
void level_record_done(struct level_run *lr, struct result *r);

/* The salt of request p (its position's pass, a warm-up's or the level's
 * tag) into buf; "" when the run sends none. */
void level_request_salt(const struct level_run *lr, const struct prepared *p, int warmup,
			size_t pass, char *buf, size_t len);

/* The loop's callbacks: the open loop's next due time, the second's tick
 * (flush, progress), a signal (stop after what is in flight; a second
 * one cancels it). arg is the struct level_run. */
void level_on_due(evutil_socket_t fd, short events, void *arg);
void level_on_tick(evutil_socket_t fd, short events, void *arg);
void level_on_signal(evutil_socket_t sig, short events, void *arg);
/*
 * --start-at, open loop: asks every scraper for the level-start scrape of
 * the level about to run (load 'load', repeat 0) now, ahead of its
 * anchor, so that the level neither waits for it nor starts its counters
 * late; that level's window then opens at once.
 */
void level_window_ahead(struct level_run *lr, struct load load);

/* The results file's writer when the loop is idle (arg: the level run),
 * and a scrape's record to write (ctx: the level run). */
void level_on_write(evutil_socket_t fd, short events, void *arg);
void level_on_metrics(void *ctx, const cJSON *rec);

/* Runs the level set up in lr to its end or to a stop and summarizes it
 * into s. Returns 0, or -1 when out of memory. */
int level_run_to_end(struct level_run *lr, struct level_summary *s);

/* Frees the level's results and bodies. */
void level_free_results(struct level_run *lr);

/* Open loop: how closely the sends kept to the schedule, on stderr. */
void level_print_schedule_accuracy(const struct replay_options *o, const struct level_run *lr);

/* ---- replay/session_run.c ---- */

/* Session mode's level_issue: warm-ups, then turns due, then new sessions. */
void sessions_issue(struct level_run *lr);

/* Sessions started and not yet ended. */
size_t sessions_active(const struct level_run *lr);

/* Ends sr: its think timer and its answers freed. */
void session_end(struct session_run *sr);

#endif
