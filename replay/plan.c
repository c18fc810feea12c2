/*
 * plan.c - what one replay process sends: the trace read and its sessions
 * grouped, this shard's (or worker's) part of it, the open-loop schedule,
 * and how many requests and connections each level takes. Its steps run
 * before the client exists; see run.h.
 */
#include "replay/run.h"
#include "replay/schedule.h"
#include "lib/cli.h"
#include "lib/clock.h"
#include "lib/redact.h"
#include "lib/trace.h"
#include "lib/tracefile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

/*
 * A base URL ending in /v1 (as OpenAI's clients take it) before trace
 * paths that begin with /v1/ would ask for /v1/v1/...: the /v1 is taken
 * off the endpoint (in place). Returns 0, or -1 after saying what to
 * change when some path does not begin with /v1/.
 */
static int fit_v1_endpoint(char *endpoint, const struct prepared *reqs, size_t n)
{
	size_t len = strlen(endpoint), i;

	if (len < 3 || strcmp(endpoint + len - 3, "/v1") != 0)
		return 0;
	for (i = 0; i < n; i++) {
		if (strncmp(reqs[i].req.path, "/v1/", 4) != 0) {
			/* the URL as the terminal gets it: no userinfo, no secrets */
			char *shown = redact_url(endpoint, NULL);
			size_t shown_len = shown ? strlen(shown) : 0;

			if (shown_len >= 3 && strcmp(shown + shown_len - 3, "/v1") == 0)
				shown_len -= 3;
			fprintf(stderr, "tracebench replay: --endpoint %s ends in /v1, but request %ld "
				"of the trace goes to '%s': give the server's base URL without /v1 "
				"(--endpoint %.*s)\n", shown ? shown : "", reqs[i].req.id,
				reqs[i].req.path, (int)shown_len, shown ? shown : "");
			free(shown);
			return -1;
		}
	}
	endpoint[len - 3] = '\0';
	return 0;
}

/* Orders arrivals, ties by position (a stable order). */
static const int64_t *sort_arrivals;

static int by_arrival(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int64_t x = sort_arrivals[i], y = sort_arrivals[j];

	if (x != y)
		return x < y ? -1 : 1;
	return (i > j) - (i < j);
}

/*
 * Builds the open-loop schedule of the n things (trace requests, or
 * sessions) arriving at 'arrival' and keeps this shard's part of it: the
 * due offsets in *sched and the position (make_salt) of the thing each
 * one sends in *index: its index in the trace's arrival order with
 * --timing trace, else its place in the schedule, past n when the
 * schedule is longer than the trace. Returns how many, 0 when nothing is
 * due (or out of memory).
 */
size_t plan_open_schedule(const struct replay_options *o, const int64_t *arrival, size_t n_reqs,
			  int64_t **sched, size_t **index)
{
	int64_t *arrivals = malloc(n_reqs * sizeof(*arrivals)), *all = NULL;
	size_t *order = malloc(n_reqs * sizeof(*order));
	size_t i, n_all, n = 0;

	if (!arrivals || !order) {
		free(arrivals);
		free(order);
		return 0;
	}
	/*
	 * Trace timing sends in arrival order, whatever the order of the
	 * records (a proxy writes them as responses end, not as requests came).
	 */
	for (i = 0; i < n_reqs; i++)
		order[i] = i;
	if (o->sched.arrival == ARRIVAL_TRACE) {
		sort_arrivals = arrival;
		qsort(order, n_reqs, sizeof(*order), by_arrival);
	}
	for (i = 0; i < n_reqs; i++)
		arrivals[i] = arrival[order[i]];
	n_all = schedule_build(&o->sched, arrivals, n_reqs, &all);
	free(arrivals);
	*index = n_all ? malloc(n_all * sizeof(**index)) : NULL;
	if (!*index) {
		free(all);
		free(order);
		return 0;
	}
	for (i = 0; i < n_all; i++) {
		if (o->shard_n > 1 && (long)(i % (size_t)o->shard_n) != o->shard_k)
			continue;
		all[n] = all[i];
		(*index)[n++] = o->sched.arrival == ARRIVAL_TRACE ? order[i] : i;
	}
	free(order);
	*sched = all;
	return n;
}

/* The arrival offsets of the trace requests, or of the sessions (the
 * first turn's), for plan_open_schedule; NULL when out of memory. */
static int64_t *arrivals_of(const struct prepared *reqs, size_t n_reqs,
			    const struct session_set *set)
{
	size_t i, n = set ? set->n : n_reqs;
	int64_t *a = malloc((n ? n : 1) * sizeof(*a));

	for (i = 0; a && i < n; i++)
		a[i] = reqs[set ? set->turns[set->s[i].first] : i].req.arrival_ns;
	return a;
}

/* Closed loop in a session trace: keeps the sessions of this shard (every
 * N-th from K). */
static void keep_session_shard(const struct replay_options *o, struct session_set *set)
{
	size_t i, n = 0;

	for (i = 0; o->shard_n > 1 && i < set->n; i++)
		if ((long)(i % (size_t)o->shard_n) == o->shard_k)
			set->s[n++] = set->s[i];
	if (o->shard_n > 1)
		set->n = n;
}

/* Turns of the first n sessions (cycling): the results a level of them
 * may write. */
static size_t session_turns(const struct session_set *set, size_t first, size_t n)
{
	size_t i, turns = 0;

	for (i = first; i < first + n; i++)
		turns += set->s[i % set->n].n_turns;
	return turns;
}

/* session_warn_fn: a session refused, said once with the line at fault. */
struct warn_ctx {
	const char *path;
	size_t shown;
};

static void warn_session(void *ctx, size_t lineno, const char *why)
{
	struct warn_ctx *w = ctx;

	if (++w->shown <= PREPARED_SKIPS_SHOWN)
		fprintf(stderr, "tracebench replay: warning: '%s' line %zu: %s; session skipped\n",
			w->path, lineno, why);
}

/*
 * Groups a trace with sessions (any record naming one) into *set; a trace
 * without leaves set->n 0. Returns 0, or -1 after saying why.
 */
static int group_sessions(const struct replay_options *o, const struct prepared *reqs, size_t n_reqs,
			  struct session_set *set)
{
	struct warn_ctx w = { o->trace_path, 0 };
	struct session_key *keys;
	size_t i, in_sessions = 0;

	memset(set, 0, sizeof(*set));
	for (i = 0; i < n_reqs; i++)
		in_sessions += reqs[i].req.session >= 0;
	if (!in_sessions)
		return 0;
	keys = malloc(n_reqs * sizeof(*keys));
	if (!keys) {
		fprintf(stderr, "tracebench replay: '%s': out of memory\n", o->trace_path);
		return -1;
	}
	for (i = 0; i < n_reqs; i++) {
		keys[i].session = reqs[i].req.session;
		keys[i].turn = reqs[i].req.turn;
		keys[i].think_ns = reqs[i].req.think_ns;
		keys[i].lineno = reqs[i].lineno;
	}
	if (session_set_build(set, keys, n_reqs, warn_session, &w) < 0) {
		free(keys);
		fprintf(stderr, "tracebench replay: '%s': out of memory\n", o->trace_path);
		return -1;
	}
	free(keys);
	if (set->skipped)
		fprintf(stderr, "tracebench replay: warning: '%s': %zu session%s skipped\n",
			o->trace_path, set->skipped, set->skipped == 1 ? "" : "s");
	if (!set->n) {
		fprintf(stderr, "tracebench replay: '%s' holds no session that can be replayed\n",
			o->trace_path);
		return -1;
	}
	return 0;
}

/* Closed loop: keeps the trace requests of this shard (every N-th from K). */
static size_t keep_shard(const struct replay_options *o, struct prepared *reqs, size_t n_reqs)
{
	size_t i, n = 0;

	if (o->shard_n <= 1)
		return n_reqs;
	for (i = 0; i < n_reqs; i++) {
		if ((long)(i % (size_t)o->shard_n) == o->shard_k) {
			reqs[n++] = reqs[i];
		} else {
			trace_request_release(&reqs[i].req);
			free(reqs[i].body);
			free(reqs[i].headers);
		}
	}
	return n;
}

/* Closed loop in a worker: its part of 'total' (C or -n), the rest spread
 * one each over the first workers. */
size_t plan_worker_share(const struct replay_options *o, size_t total)
{
	size_t w = o->worker >= 0 ? (size_t)o->worker : 0, n = o->worker >= 0 ? (size_t)o->workers : 1;

	return total / n + (w < total % n);
}

/* Reads the trace. Returns 0 or the exit status. */
int plan_load(struct replay *rp)
{
	struct replay_options *o = &rp->o;

	rp->reqs = prepared_load(o->trace_path, o, &rp->n_reqs, &rp->trace_id);
	if (!rp->reqs || group_sessions(o, rp->reqs, rp->n_reqs, &rp->sessions) < 0)
		return CLI_EXIT_USAGE;
	if (rp->rerun.trace_id.digest[0] &&
	    !tracefile_same_trace(rp->rerun.trace_id.digest, rp->rerun.trace_id.crc32[0] ?
				  rp->rerun.trace_id.crc32 : NULL, rp->trace_id.digest,
				  rp->trace_id.crc32)) {
		fprintf(stderr, "tracebench replay: '%s' is not the trace '%s' replayed (digest %s, "
			"recorded %s); give the trace it replayed\n", o->trace_path, o->rerun,
			rp->trace_id.digest, rp->rerun.trace_id.digest);
		return CLI_EXIT_USAGE;
	}
	if (fit_v1_endpoint(o->endpoint_buf[0], rp->reqs, rp->n_reqs) < 0 ||
	    (o->endpoint_b && fit_v1_endpoint(o->endpoint_buf[1], rp->reqs, rp->n_reqs) < 0))
		return CLI_EXIT_USAGE;
	/* In a session trace the unit is the session: -n counts sessions. */
	if (o->open_loop && o->sched.arrival != ARRIVAL_TRACE && !o->sched.max_requests &&
	    !o->sched.duration_ns)
		o->sched.max_requests = rp->sessions.n ? rp->sessions.n : rp->n_reqs;
	return 0;
}

/* Keeps what this process sends: this shard's requests, or the open-loop
 * schedule; and an A/B run's order. Returns 0 or the exit status. */
int plan_keep(struct replay *rp)
{
	struct replay_options *o = &rp->o;
	int rc;

	/* The server's cold start is one: shard 0 alone warms it up. */
	rp->warmups = o->shard_n > 1 && o->shard_k > 0 ? 0 : (size_t)o->warmup;
	/* One schedule for all shards: anchored at --start-at (or the start the
	 * workers' parent sends), whatever each one's warm-up took. */
	rp->anchored = o->start_at > 0 || o->worker >= 0;
	rp->table = o->worker < 0;
	if (!o->salt_seed_given && (o->shard_n > 1 || o->worker >= 0)) {
		/* The shards of one run salt alike, so the prefixes the trace
		 * shares across shards stay shared: a seed from what they share. */
		uint64_t x = (uint64_t)(o->start_at * 1000);
		const char *c;

		for (c = rp->trace_id.digest; *c; c++)
			x = x * 1099511628211ULL ^ (unsigned char)*c;
		o->salt_seed = (x ^ (x >> 31)) & 0x7fffffff;
	} else if (!o->salt_seed_given) {
		uint32_t seed;

		if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
			seed = (uint32_t)clock_now_ns() ^ (uint32_t)getpid();
		o->salt_seed = seed & 0x7fffffff;
	}
	rc = sides_plan_order(rp);
	if (rc)
		return rc;
	if (o->open_loop) {
		struct session_set *set = rp->sessions.n ? &rp->sessions : NULL;

		rp->arrivals = arrivals_of(rp->reqs, rp->n_reqs, set);
		rp->n_sched = rp->arrivals ?
			      plan_open_schedule(o, rp->arrivals, set ? set->n : rp->n_reqs,
						 &rp->sched, &rp->sched_index) : 0;
		if (!rp->n_sched) {
			fprintf(stderr, "tracebench replay: nothing to send: the schedule is empty\n");
			return CLI_EXIT_USAGE;
		}
		return 0;
	}
	if (rp->sessions.n) {
		keep_session_shard(o, &rp->sessions);
		if (!rp->sessions.n) {
			fprintf(stderr, "tracebench replay: shard %ld/%ld of '%s' holds no sessions\n",
				o->shard_k, o->shard_n, o->trace_path);
			return CLI_EXIT_USAGE;
		}
		return 0;
	}
	rp->n_reqs = keep_shard(o, rp->reqs, rp->n_reqs);
	if (!rp->n_reqs) {
		fprintf(stderr, "tracebench replay: shard %ld/%ld of '%s' holds no requests\n",
			o->shard_k, o->shard_n, o->trace_path);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

/*
 * Says when a level sends more than the trace holds (-n past its length):
 * it goes over the trace again, each pass salted apart (make_salt). A
 * capacity search says it at its end.
 */
void plan_say_passes(const struct replay *rp)
{
	const struct replay_options *o = &rp->o;
	size_t units = rp->sessions.n ? rp->sessions.n : rp->n_reqs, most = 0, k;
	int i;

	if (o->find_capacity || !units)
		return;
	for (k = 0; o->open_loop && k < rp->n_sched; k++)
		if (rp->sched_index[k] + 1 > most)
			most = rp->sched_index[k] + 1;
	for (i = 0; !o->open_loop && i < o->n_levels; i++) {
		long n = replay_level_requests(o, o->levels[i]);

		if ((size_t)n > most)
			most = (size_t)n;
	}
	if (most > units)
		fprintf(stderr, "tracebench replay: a level sends %zu %s, the trace holds %zu: it "
			"is sent %.1f times over, each pass under a salt of its own%s\n", most,
			rp->sessions.n ? "sessions" : "requests", units, (double)most / (double)units,
			o->no_salt ? " (but --no-salt: a later pass may find the first cached)" : "");
}

/* How many connections level lr opens before its clock, and how many
 * requests it sends (results: with sessions, their turns). */
void plan_size_level(struct replay *rp, struct level_run *lr, long batch)
{
	const struct replay_options *o = &rp->o;

	lr->connections = o->open_loop ? (size_t)o->max_concurrency : lr->cap;
	/* a rate probe: twice the most requests in flight so far, open before
	 * its clock (an open loop has no C to open them for) */
	if (lr->level.kind == LOAD_RATE && lr->level.rate > 0 && !o->max_concurrency) {
		double rate = lr->level.rate;
		double grow = rp->peak_rate > 0 && rate > rp->peak_rate ? rate / rp->peak_rate : 1;
		double want = 2 * (double)lr->peak_in_flight * grow + 4;

		lr->connections = want < (double)rp->rate_connections ? (size_t)want :
				  rp->rate_connections;
	}
	if (o->open_loop)
		lr->n = rp->n_sched;
	else if (!lr->cap)
		lr->n = 0;   /* C below the workers: this one sits the level out */
	else if (batch > 0)
		lr->n = (size_t)batch;
	else
		lr->n = plan_worker_share(o, (size_t)replay_level_requests(o,
									   lr->level.concurrency));
	if (lr->sessions && o->open_loop) {
		size_t j;

		lr->n_sessions = rp->n_sched;
		for (lr->n = 0, j = 0; j < rp->n_sched; j++)
			lr->n += rp->sessions.s[(lr->first + rp->sched_index[j]) %
						rp->sessions.n].n_turns;
	} else if (lr->sessions) {
		/* -n counts sessions; the results, their turns */
		lr->n_sessions = lr->n;
		lr->n = session_turns(&rp->sessions, lr->first, lr->n);
	}
}
