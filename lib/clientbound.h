/*
 * clientbound.h - a bound on the client's own share of what a level
 * measured (issue 34): how much of its TTFT and of its inter-token gaps
 * replay itself may have added, from what replay watched while the level
 * ran, and whether that is a material part of what the level measured
 * (the level is then "client-limited", with the reason in words).
 *
 * What replay watches (replay/watch.c, replay/client.c), per level:
 *
 *   issue delay   per request, from its being due (its schedule, or the
 *                 hand-over of a closed loop's freed slot) to libcurl
 *                 starting to write it (CURLOPT_PREREQFUNCTION);
 *   read delay    per request, the age of the event-loop pass that
 *                 stamped its first token: the pass began when the loop
 *                 woke for its sockets, the token was stamped later by
 *                 the work done before it in the same pass (and the pass
 *                 before it was busy for a while, during which they may
 *                 have waited unread);
 *   token read    the same delay for every read that brought token
 *                 events, the first token's and every later one's: the
 *                 stamps a gap is the difference of (kept in a histogram,
 *                 struct clientbound_hist: a level has too many to keep);
 *   timer lag     how late a probe timer on the loop fires (every
 *                 CLIENTBOUND_PROBE_MS): a loop held by work, or a thread
 *                 the kernel did not run, shows as lag, and so does the
 *                 host's own wake-up of the thread for the timer;
 *   loop lag      the part of each probe's lateness the loop and its
 *                 thread account for: the read delay of bytes stamped as
 *                 it fired (at most its lateness);
 *   thread busy   the measuring thread's CPU time over the level's wall
 *                 time;
 *   transport     the fastest round trip of the level's connection
 *                 warm-ups (GET /v1/models, before its clock starts): the
 *                 floor of the way to the server and back, which a TTFT
 *                 holds once (request out, first token back).
 *
 * The bound at quantile q (P50, P99) is
 *
 *   TTFT  Q_q(issue + read) + Q_q(timer lag) + transport
 *   gap   Q_sqrt(q)(token read) + Q_q(timer lag)
 *
 * and the client's own part of the TTFT's, which alone decides whether a
 * level is client-limited, is Q_q(issue + read) + Q_q(loop lag), or the
 * timer lag where the thread's wait to run is not read (its schedstat):
 * then a thread the kernel did not run shows only there. The rest is not
 * the client's doing, but it is in what a user reads as TTFT less the
 * server's own times: the transport (and a server's own burst of writes,
 * which the warm-ups' round trip holds as the level's first wave does),
 * and the host's own wake-up of the thread for the timer (on a quiet
 * virtual machine 2 ms late at P99, where a socket's data woke a thread
 * within 0.1 ms: tests/bench/bench_floor.c wake), which the bound keeps:
 * without it, it fell short of the true error more often (BENCHMARKS.md
 * section 14).
 *
 * (a gap is the difference of two stamps, each late by its read delay,
 * d1 and d2 >= 0: its error |d2 - d1| is at most the larger of the two,
 * which, of two independent delays, is below their sqrt(q)-th quantile
 * with probability q: P70.7 for the gaps' P50, P99.5 for their P99; the
 * timer lag adds a wait the reads may not see: a read that came while the
 * loop was late for the probe, a thread the kernel did not run where its
 * schedstat cannot be read, the host slow to wake an idle CPU).
 *
 * The method and the measurements behind it are in docs/DESIGN.md
 * ("The client's own error"). Pure functions: replay computes the bound
 * when a level ends and writes it into the level's host record
 * (schema/FORMAT.md); analyze judges it against what the level measured.
 */
#ifndef TB_CLIENTBOUND_H
#define TB_CLIENTBOUND_H

#include <stddef.h>
#include <stdint.h>

/* The probe timer's period on replay's loop. */
#define CLIENTBOUND_PROBE_MS 2

/* A level is client-limited when its bound exceeds this share of what it
 * measured (TTFT P50 against the P50 bound, P99 against the P99 one). */
#define CLIENTBOUND_DEFAULT_SHARE 0.05

/* What replay watched over a level, in seconds (NaN: not known). */
struct clientbound_watch {
	double issue_p50, issue_p99;     /* issue delay */
	double read_p50, read_p99;       /* read delay */
	double tokread_p50, tokread_p99; /* token read delay */
	double gapread_p50, gapread_p99; /* ... at P70.7 and P99.5: a gap's */
	double sum_p50, sum_p99;         /* issue + read, per request */
	double lag_p50, lag_p99;         /* the probe timer's lateness */
	double loop_p50, loop_p99;       /* ... the loop's part of it */
	double thread_busy;              /* measuring thread CPU / level wall, 0..1+ */
	double transport;                /* fastest warm-up round trip; NaN: none */
	/* 1: the measuring thread's schedstat could not be read, and the
	 * bound sees a thread the kernel did not run only as timer lag; 0:
	 * the read delays include its wait to run; NaN: not known (files
	 * before it). 1 is the worse, as clientbound_merge_max takes it. */
	double run_wait_unread;
};

/* The bound, in seconds (NaN where an input is). */
struct clientbound {
	double ttft_p50, ttft_p99;       /* the client's and the transport's */
	double own_ttft_p50, own_ttft_p99;   /* the client's own part */
	double gap_p50, gap_p99;
};

/* Sets every field of w to NaN. */
void clientbound_watch_init(struct clientbound_watch *w);

/*
 * The quantiles of the n issue and read delays (nanoseconds; a negative
 * one is unknown and left out of its own and of the sum's) and of the m
 * timer lags and their loop's parts (microseconds; a negative part is
 * unknown and left out) into w, whose thread_busy is left as it is. The
 * arrays are sorted in place (tmp holds n values, for the sums).
 */
void clientbound_observe(struct clientbound_watch *w, const double *issue_ns,
			 const double *read_ns, size_t n, double *tmp,
			 double *lag_us, double *loop_us, size_t m);

/*
 * A histogram of delays (nanoseconds), 8 bins an octave: a quantile read
 * from it is the upper edge of its bin, at most 1/8 above the true one
 * and never below it. Zeroed, it is empty.
 */
#define CLIENTBOUND_HIST_BINS 512
struct clientbound_hist {
	uint64_t n;
	uint64_t count[CLIENTBOUND_HIST_BINS];
};

/* Counts one delay of ns nanoseconds (a negative one as 0). */
void clientbound_hist_add(struct clientbound_hist *h, int64_t ns);

/* The q-th percentile (0 < q <= 100) of h in seconds, by the nearest
 * rank; NaN when h is empty. */
double clientbound_hist_percentile(const struct clientbound_hist *h, double q);

/* The token read delays' P50 and P99 from h into w, and the quantiles a
 * gap's P50 and P99 take (NaN when h is empty). */
void clientbound_observe_tokens(struct clientbound_watch *w, const struct clientbound_hist *h);

/* The bound from what was watched. */
void clientbound_compute(const struct clientbound_watch *w, struct clientbound *b);

/* What the level itself measured and the host it ran on, for the judge;
 * NaN where unknown. */
struct clientbound_level {
	double ttft_p50, ttft_p99;      /* seconds */
	double host_busy, host_steal;   /* shares of the host's CPU time, 0..1 */
};

/*
 * Whether the level is client-limited: the client's own part of the TTFT
 * bound (own_ttft_p50, own_ttft_p99) over 'share' of the TTFT percentile
 * it bounds. The gaps' bound is stated, not judged: 5% of a 10-ms gap is
 * less than one wake-up of a thread on a busy host, and the true error of
 * a gap holds the server's own timer's as much as the client's. Returns 1 and the reason
 * in words in why ("bound 3.1 ms = 6% of TTFT P99 62 ms: timers 2.9 ms
 * late (P99); host CPUs 98% busy"), 0 when not (why then says what the
 * largest share was), -1 when nothing can be judged (no bound; why "").
 */
int clientbound_judge(const struct clientbound *b, const struct clientbound_watch *w,
		      const struct clientbound_level *lv, double share, char *why, size_t len);

#endif

/*
 * The watch and its bound as Prometheus text, the series of a level's
 * host record at its end (schema/FORMAT.md): "tracebench_client_..."
 * gauges in seconds (thread busy as a ratio), NaN ones left out. Writes
 * at most cap bytes, NUL-terminated; returns the length, or -1 when cap
 * is too small (CLIENTBOUND_TEXT_MAX always suffices).
 */
#define CLIENTBOUND_TEXT_MAX 2048
int clientbound_format(const struct clientbound_watch *w, const struct clientbound *b,
		       char *out, size_t cap);

/*
 * One sample of that text read back (analyze: a level_end host record's
 * samples): sets the field 'name' names in w or b. Returns 1 when it
 * named one, 0 when the name is not one of them. A value out of range
 * (negative, not finite, over a day) is left out as NaN.
 */
int clientbound_take(const char *name, double value, struct clientbound_watch *w,
		     struct clientbound *b);

/* Each figure of w and b raised to that of ow and ob where it is larger
 * or w's or b's is NaN: the worst of several records (repeats, shards). */
void clientbound_merge_max(struct clientbound_watch *w, struct clientbound *b,
			   const struct clientbound_watch *ow, const struct clientbound *ob);

/* Sets every field of b to NaN. */
void clientbound_init(struct clientbound *b);
