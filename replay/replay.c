/*
 * replay.c - `tracebench replay`: re-issue a trace against an endpoint and
 * write one result per request.
 *
 * Closed loop: at level C, C requests are in flight at all times until the
 * level's N are done; a request is issued the moment another finishes.
 * Open loop: requests leave on a schedule computed up front against one
 * absolute start (replay/schedule.c), whatever the server does, and their
 * latencies count from the scheduled instant, so queueing in a stalled
 * server shows instead of hiding (no coordinated omission).
 * Warm-up requests go first, one at a time, and are recorded with
 * "warmup": true so analyze can show the cold start apart. Each level ends
 * with a row of the sweep table on stdout (lib/summary.c); results stream
 * to the results file as requests finish (lib/tracefile.c), so an
 * interrupted run keeps what it measured. The command line is read in
 * replay/options.c; replay_main runs the steps below in order, over the
 * run's state in replay/run.h: the sides of the run (their servers,
 * results files, salts and A/B order) are replay/sides.c's, a capacity
 * search replay/find_capacity.c's, one level replay/level.c's.
 */
#include "replay.h"
#include "options.h"
#include "body.h"
#include "client.h"
#include "clocksync.h"
#include "failures.h"
#include "header.h"
#include "prepared.h"
#include "rerun.h"
#include "schedule.h"
#include "scrape.h"
#include "session.h"
#include "level.h"
#include "run.h"
#include "workers.h"
#include "lib/cli.h"
#include "lib/clock.h"
#include "lib/curlev.h"
#include "lib/stats.h"
#include "lib/summary.h"
#include "lib/redact.h"
#include "lib/trace.h"
#include "lib/tracefile.h"

#include <curl/curl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <unistd.h>

/* ---- the run --------------------------------------------------------- */

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
size_t replay_open_schedule(const struct replay_options *o, const int64_t *arrival, size_t n_reqs,
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
 * first turn's), for replay_open_schedule; NULL when out of memory. */
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

/* The most connections a rate search keeps open between its probes. */
#define REPLAY_RATE_CONNECTIONS 1024

/* Ends the wait for the start (the loop's only event then). */
static void on_start_time(evutil_socket_t fd, short events, void *arg)
{
	(void)fd;
	(void)events;
	event_base_loopbreak(arg);
}

/*
 * Waits for the monotonic instant 'at_ns' in the event loop, so that a
 * signal ends the wait at once (level_on_signal breaks the loop) instead of after
 * the first requests.
 */
static void wait_until(struct event_base *base, int64_t at_ns)
{
	int64_t wait = at_ns - clock_now_ns();
	struct timeval tv;
	struct event *timer;

	if (wait <= 0)
		return;
	tv.tv_sec = (time_t)(wait / NS_PER_S);
	tv.tv_usec = (suseconds_t)(wait % NS_PER_S / 1000);
	timer = evtimer_new(base, on_start_time, base);
	if (!timer || evtimer_add(timer, &tv) < 0)    /* cannot happen; wait anyway */
		clock_sleep_until_ns(at_ns);
	else
		event_base_dispatch(base);
	if (timer)
		event_free(timer);
	/* The timer fires up to a millisecond early or late: keep to the instant. */
	if (!level_stop)
		clock_sleep_until_ns(at_ns);
}

/* The monotonic instant at which this host's wall clock reads 'unix_s'. */
static int64_t mono_at(double unix_s)
{
	int64_t wall = clock_wall_ns(), mono = clock_now_ns();

	return mono + (int64_t)(unix_s * 1e9 - (double)wall);
}

/* At most this long probing the server's clock before --start-at. */
#define CLOCK_PROBE_BUDGET_NS (3 * NS_PER_S)

/*
 * Measures this host's clock against the server's while --start-at is
 * ahead, leaving half a second for the warm-ups; says what it found.
 */
static void probe_server_clock(const struct replay_options *o, struct clocksync_result *cs)
{
	struct clocksync_options co = { o->endpoint, getenv(o->api_key_env), o->http2,
					o->insecure, CLOCK_PROBE_BUDGET_NS };
	int64_t ahead = (int64_t)(o->start_at * 1e9) - clock_wall_ns() - NS_PER_S / 2;
	char err[256];

	memset(cs, 0, sizeof(*cs));
	if (ahead < co.budget_ns)
		co.budget_ns = ahead;
	if (co.budget_ns < NS_PER_S / 4) {
		fprintf(stderr, "tracebench replay: no time before --start-at to probe the "
			"server's clock; not measured\n");
		return;
	}
	if (clocksync_measure(&co, cs, err, sizeof(err)) < 0) {
		fprintf(stderr, "tracebench replay: warning: cannot probe the server's clock: %s\n", err);
		return;
	}
	if (!cs->measured)
		fprintf(stderr, "tracebench replay: the server sends no Date header: clock "
			"offset not measured\n");
	else
		fprintf(stderr, "tracebench replay: clock %+.3f ms from the server's (+- %.3f ms; "
			"%d probes, round trip %.3f ms)\n", -cs->offset_ms, cs->error_ms, cs->probes,
			cs->rtt_ms);
}

/* Returned by start_workers in a worker: go on replaying its shard. */
#define WORKER_GOES_ON (-1000)

/*
 * --workers W: forks W workers of shard K*W+w of M*W (K/M the --shard given,
 * else 0/1), each writing 'output'.wN; in the parent waits for them and
 * merges their files into o->output. Returns the exit status in the
 * parent, WORKER_GOES_ON in a worker (then *o is the worker's).
 */
static int start_workers(struct replay_options *o, const cJSON *server,
			 const struct tracefile_id *trace_id,
			 const struct prepared *reqs, size_t n_reqs, char *tmp_output, size_t tmp_len)
{
	long w_n = o->workers, k = o->shard_n > 1 ? o->shard_k : 0, m = o->shard_n > 1 ? o->shard_n : 1;
	struct clocksync_result cs = { 0 };
	struct workers *ws = NULL;
	char err[1024], **paths = NULL;
	double start_at;
	cJSON *header = NULL;
	long written = 0;
	int index, rc = 1, i, status;

	if (!o->force && access(o->output, F_OK) == 0) {
		fprintf(stderr, "tracebench replay: '%s' exists; give --force to replace it\n",
			o->output);
		return 2;
	}
	if (o->start_at > 0)
		probe_server_clock(o, &cs);
	if (workers_spawn((int)w_n, &ws, &index, o->handshake, err, sizeof(err)) < 0) {
		fprintf(stderr, "tracebench replay: %s\n", err);
		return 1;
	}
	if (index >= 0) {
		o->worker = index;
		o->shard_k = k * w_n + index;
		o->shard_n = m * w_n;
		snprintf(tmp_output, tmp_len, "%s.w%d", o->output, index);
		o->output = tmp_output;
		o->force = 1;
		o->progress = 0;
		return WORKER_GOES_ON;
	}
	start_at = workers_release(ws, o->start_at);
	status = workers_wait(ws);
	paths = calloc((size_t)w_n, sizeof(*paths));
	for (i = 0; paths && i < w_n; i++) {
		size_t len = strlen(o->output) + 16;

		paths[i] = malloc(len);
		if (paths[i])
			snprintf(paths[i], len, "%s.w%d", o->output, i);
	}
	{
		char *shown = redact_url(o->endpoint, NULL);   /* no userinfo in the file */

		header = shown ? header_create(o, NULL, o->label, shown, server, trace_id, NULL, 0,
					       reqs[0].body, n_reqs) :
			 NULL;
		free(shown);
	}
	if (header)
		header_add_clock(header, start_at > 0 ? start_at : (double)clock_wall_ns() / 1e9, &cs);
	if (start_at < 0) {
		fprintf(stderr, "tracebench replay: %s; no results written\n", workers_signal() ?
			"stopped before the start" : "a worker failed before the start");
		rc = workers_signal() ? 128 + workers_signal() : 1;
	} else if (!paths || !header) {
		fprintf(stderr, "tracebench replay: out of memory\n");
	} else if (workers_merge(paths, (int)w_n, o->output, header, o->force, stdout, o->format,
				 o->label, &written, err, sizeof(err)) < 0) {
		fprintf(stderr, "tracebench replay: cannot merge the workers' results: %s\n", err);
	} else {
		fprintf(stderr, "tracebench replay: merged %ld results of %ld workers into '%s'\n",
			written, w_n, o->output);
		rc = workers_signal() ? 128 + workers_signal() : status;
	}
	for (i = 0; paths && i < w_n; i++) {
		if (paths[i])
			unlink(paths[i]);
		free(paths[i]);
	}
	free(paths);
	cJSON_Delete(header);
	workers_free(ws);
	return rc;
}

/* Closed loop in a worker: its part of 'total' (C or -n), the rest spread
 * one each over the first workers. */
static size_t worker_share(const struct replay_options *o, size_t total)
{
	size_t w = o->worker >= 0 ? (size_t)o->worker : 0, n = o->worker >= 0 ? (size_t)o->workers : 1;

	return total / n + (w < total % n);
}

/* Reads the trace. Returns 0 or the exit status. */
static int load_requests(struct replay *rp)
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
static int plan_requests(struct replay *rp)
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
		rp->n_sched = rp->arrivals ? replay_open_schedule(o, rp->arrivals, set ? set->n : rp->n_reqs,
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

/* The client, its event loop, the server's clock (--start-at) and the
 * signal handlers. Returns 0 or the exit status. */
static int start_client(struct replay *rp)
{
	struct client_options co = { 0 };
	char err[TRACEFILE_ERRLEN];
	struct event_base *base;
	long need = 0, have = cli_raise_fd_limit();
	int i;

	/* One descriptor per connection: a limit that cannot hold the
	 * concurrency asked for would show as the server refusing connections. */
	for (i = 0; i < rp->o.n_levels && !rp->o.open_loop; i++)
		if (rp->o.levels[i] > need)
			need = rp->o.levels[i];
	if (rp->o.open_loop)
		need = rp->o.max_concurrency;
	if (rp->o.find_capacity && !rp->o.capacity.by_rate)
		need = (long)rp->o.capacity.max;
	if (have > 0 && need + CLI_FD_RESERVE > have) {
		fprintf(stderr, "tracebench replay: %ld requests in flight need about %ld open "
			"files; the limit is %ld (raise it with ulimit -n%s)\n", need,
			need + CLI_FD_RESERVE, have, rp->o.open_loop ? ", or lower --max-concurrency" :
			", or lower -c");
		return CLI_EXIT_USAGE;
	}
	co.endpoint = rp->o.endpoint;
	co.timeout_ms = rp->o.timeout_s * 1000;
	co.connect_timeout_ms = rp->o.connect_timeout_s * 1000;
	co.max_event = (size_t)rp->o.max_event_bytes;
	co.api_key = getenv(rp->o.api_key_env);
	co.anthropic_key = replay_anthropic_key(&rp->o);
	co.http2 = rp->o.http2;
	co.insecure = rp->o.insecure;
	for (i = 0; i < rp->o.n_levels; i++)
		if ((size_t)rp->o.levels[i] > co.max_connections)
			co.max_connections = (size_t)rp->o.levels[i];
	if ((size_t)rp->o.max_concurrency > co.max_connections)
		co.max_connections = (size_t)rp->o.max_concurrency;
	/*
	 * A capacity search keeps the connections its probes open (the cache
	 * would close those past its size, and the next probe pay for them):
	 * C's range, or as many as descriptors allow for a rate's requests in
	 * flight, at most REPLAY_RATE_CONNECTIONS. An open loop without
	 * --max-concurrency has no bound of its own either: a small cache
	 * would close each connection as its request ends, and every later
	 * request would pay for a handshake inside its TTFT.
	 */
	if (rp->o.find_capacity && !rp->o.capacity.by_rate)
		co.max_connections = (size_t)rp->o.capacity.max;
	else if ((rp->o.find_capacity || rp->o.open_loop) && !rp->o.max_concurrency) {
		long room = have > 0 ? have - CLI_FD_RESERVE : REPLAY_RATE_CONNECTIONS;

		room = room < CLI_FD_RESERVE ? CLI_FD_RESERVE : room;
		co.max_connections = (size_t)(room < REPLAY_RATE_CONNECTIONS ? room :
					      REPLAY_RATE_CONNECTIONS);
	}
	rp->rate_connections = co.max_connections;
	rp->client = client_new(&co, err, sizeof(err));
	if (!rp->client) {
		fprintf(stderr, "tracebench replay: %s\n", err);
		return CLI_EXIT_FAILED;
	}
	/* Before the signals are handled: a signal while probing ends replay
	 * at once, and no results file exists yet. */
	if (rp->o.start_at > 0 && rp->o.worker < 0)
		probe_server_clock(&rp->o, &rp->cs);
	base = client_base(rp->client);
	/* Signals are handled before the results file exists: one arriving
	 * in between would end the process and leave the file unfinished. */
	rp->sigint = evsignal_new(base, SIGINT, level_on_signal, &rp->lr);
	rp->sigterm = evsignal_new(base, SIGTERM, level_on_signal, &rp->lr);
	rp->tick = event_new(base, -1, EV_PERSIST, level_on_tick, &rp->lr);
	rp->lr.due_timer = evtimer_new(base, level_on_due, &rp->lr);
	rp->lr.write_ev = event_new(base, -1, 0, level_on_write, &rp->lr);
	if (!rp->sigint || !rp->sigterm || !rp->tick || !rp->lr.due_timer || !rp->lr.write_ev ||
	    event_priority_set(rp->lr.write_ev, CLIENT_PRIORITY_IDLE) < 0 ||
	    event_add(rp->sigint, NULL) < 0 || event_add(rp->sigterm, NULL) < 0) {
		fprintf(stderr, "tracebench replay: cannot set up the event loop\n");
		return CLI_EXIT_FAILED;
	}
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* Creates the results file of each side (sides_open) and points the level
 * run at the first. Returns 0 or the exit status. */
static int open_results(struct replay *rp)
{
	int rc = sides_open(rp);

	if (rc)
		return rc;
	rp->lr.client = rp->client;
	rp->failures.out = stderr;
	rp->lr.failures = &rp->failures;
	rp->lr.out = rp->side[0].out;
	rp->lr.sessions = rp->sessions.n ? &rp->sessions : NULL;
	rp->lr.seq = &rp->side[0].seq;
	rp->lr.reqs = rp->reqs;
	rp->lr.n_reqs = rp->n_reqs;
	rp->lr.show_progress = rp->o.progress < 0 ? isatty(STDERR_FILENO) : rp->o.progress;
	rp->lr.max_concurrency = (size_t)rp->o.max_concurrency;
	rp->lr.cancel = rp->o.cancel.share > 0 ? &rp->o.cancel : NULL;
	rp->lr.cancel_seed = rp->o.sched.seed;
	return 0;
}

/* What is about to run, on stderr. */
static void print_start(const struct replay *rp)
{
	const struct run_side *a = &rp->side[0], *b = &rp->side[1];

	if (rp->n_sides == 2)
		fprintf(stderr, "tracebench replay: %zu requests in '%s', A/B run: endpoint %s as "
			"'%s', endpoint %s as '%s'\n", rp->n_reqs, rp->o.trace_path, a->shown,
			a->label, b->shown, b->label);
	else
		fprintf(stderr, "tracebench replay: %zu requests in '%s', endpoint %s, run '%s'\n",
			rp->n_reqs, rp->o.trace_path, a->shown, a->label);
	/* Each run draws its salts so that it never finds an earlier run's
	 * prompts in the server's prefix cache; a seed given repeats them. */
	if (rp->o.salt_seed_given && !rp->o.no_salt)
		fprintf(stderr, "tracebench replay: warning: --salt-seed %llu sends the prompts of "
			"every run given that seed: a server that served one has them in its "
			"prefix cache, and this run's TTFT would read low; leave --salt-seed out "
			"unless the server is fresh\n", (unsigned long long)rp->o.salt_seed);
}

/*
 * Says when a level sends more than the trace holds (-n past its length):
 * it goes over the trace again, each pass salted apart (make_salt). A
 * capacity search says it at its end.
 */
static void say_passes(const struct replay *rp)
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
		long n = o->requests ? o->requests : (o->levels[i] * 2 > 4 ? o->levels[i] * 2 : 4);

		if ((size_t)n > most)
			most = (size_t)n;
	}
	if (most > units)
		fprintf(stderr, "tracebench replay: a level sends %zu %s, the trace holds %zu: it "
			"is sent %.1f times over, each pass under a salt of its own%s\n", most,
			rp->sessions.n ? "sessions" : "requests", units, (double)most / (double)units,
			o->no_salt ? " (but --no-salt: a later pass may find the first cached)" : "");
}

static int start_scrapers(struct replay *rp);

/*
 * An anchored run (--start-at, or a worker): the warm-ups first, one at a
 * time at negative offsets, then the wait for the start. Returns 0 or the
 * exit status.
 */
static int start_anchored(struct replay *rp)
{
	struct replay_options *o = &rp->o;
	struct level_run *lr = &rp->lr;
	int64_t origin, late;
	size_t t;

	for (t = 0; rp->warmups && t < rp->n_sides && !level_stop; t++) {
		struct level_summary s;

		sides_use(rp, &rp->side[t]);
		lr->level = o->open_loop ? METRIC_OPEN_LOOP_LEVEL : (int)o->levels[0];
		sides_set_salts(rp, &rp->side[t], lr->level, 0);
		lr->connections = 1;
		lr->cap = 1;
		lr->warmup = rp->warmups;
		lr->n = lr->n_sessions = 0;
		lr->sched = NULL;
		if (level_run_to_end(lr, &s) < 0) {
			fprintf(stderr, "tracebench replay: out of memory\n");
			return CLI_EXIT_FAILED;
		}
		rp->warmup = s;
		level_free_results(lr);
	}
	if (o->worker >= 0 && !level_stop) {
		double at = workers_ready(o->handshake);

		if (at < 0)
			level_stop = level_stop ? level_stop : -1;
		else
			o->start_at = at;
	}
	if (level_stop)
		return 0;
	origin = mono_at(o->start_at);
	lr->origin_ns = origin;
	lr->anchor_ns = o->open_loop ? origin : 0;
	if (origin - clock_now_ns() > NS_PER_S / 10 && o->worker < 0)
		fprintf(stderr, "tracebench replay: starting in %.3f s\n",
			(double)(origin - clock_now_ns()) / NS_PER_S);
	/* An open loop's schedule cannot wait for its level-start scrape: the
	 * scrapers start now and ask for it ahead of the anchor, during the
	 * wait (one side's run: an A/B run's levels take their turns). */
	if (o->open_loop && o->n_metrics_urls && rp->n_sides == 1) {
		int rc;

		sides_use(rp, &rp->side[0]);
		if ((rc = start_scrapers(rp)) != 0)
			return rc;
		level_window_ahead(lr, METRIC_OPEN_LOOP_LEVEL);
	}
	wait_until(client_base(rp->client), origin);
	late = clock_now_ns() - origin;
	if (late > NS_PER_MS && !level_stop)
		fprintf(stderr, "tracebench replay: warning: starting %.3f s after the start "
			"time%s; the schedule stays anchored there, so its requests are late "
			"by as much\n", (double)late / NS_PER_S, rp->warmups ?
			" (the warm-up took longer than the wait)" : "");
	return 0;
}

/* How many connections level lr opens before its clock, and how many
 * requests it sends (results: with sessions, their turns). */
static void size_level(struct replay *rp, struct level_run *lr, long batch)
{
	const struct replay_options *o = &rp->o;

	lr->connections = o->open_loop ? (size_t)o->max_concurrency : lr->cap;
	/* a rate probe: twice the most requests in flight so far, open before
	 * its clock (an open loop has no C to open them for) */
	if (lr->rate > 0 && !o->max_concurrency) {
		double want = 2 * (double)lr->peak_in_flight *
			      (rp->peak_rate > 0 && lr->rate > rp->peak_rate ? lr->rate / rp->peak_rate : 1) + 4;

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
		lr->n = worker_share(o, o->requests ? (size_t)o->requests :
				     (size_t)(lr->level * 2 > 4 ? lr->level * 2 : 4));
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

/*
 * Prints the live table's header for the row s (NULL: the end of a run
 * without rows) unless one with the same columns is out. The header waits
 * for the first row: only answers tell whether the server reasons, and
 * the P50 TTFA column shows from the first level that did on
 * (summary_groups), as analyze report shows it for the whole run. A later
 * level that is the first to reason starts the table again under a header
 * with the column (text and Markdown: CSV and JSON have TTFA in every
 * row); the rows above had no answer after reasoning, so their TTFA was
 * their TTFT.
 */
static void live_begin(struct replay *rp, const struct level_summary *s)
{
	enum table_format fmt = rp->o.format;
	unsigned groups = rp->live.groups | (s ? summary_groups(s, 1) : 0);
	size_t t;

	if (rp->live_begun && (groups == rp->live.groups ||
			       (fmt != TABLE_TEXT && fmt != TABLE_MARKDOWN)))
		return;
	if (rp->live_begun) {
		table_end(&rp->live);
		fputc('\n', stdout);   /* a Markdown table ends at a blank line */
	}
	summary_table_init(&rp->live, stdout, fmt, groups);
	for (t = 0; t < rp->n_sides; t++)
		summary_table_fit_run(&rp->live, rp->side[t].label);
	table_begin(&rp->live);
	rp->live_begun = 1;
}

/* Keeps a finished level's row: the live table's, and the run's for its
 * end. Returns 0, or -1 when out of memory. */
static int keep_row(struct replay *rp, const struct run_side *sd, const struct level_summary *s)
{
	if (rp->table) {
		live_begin(rp, s);
		summary_table_row(&rp->live, sd->label, s);
	}
	if (rp->n_rows == rp->rows_cap) {   /* a capacity search's levels are not known */
		struct level_summary *grown = realloc(rp->rows, 2 * rp->rows_cap * sizeof(*s));

		if (!grown)
			return -1;
		rp->rows = grown;
		rp->rows_cap *= 2;
	}
	rp->rows[rp->n_rows++] = *s;
	return 0;
}

/*
 * The scaling of row s of side sd: its aggregate tok/s against C times the
 * side's C=1 level, that level's repeats pooled (their tokens over their
 * summed wall time, as analyze report pools them). A C=1 row is its own
 * base, 100% by construction: a repeat set against the first would read
 * the server's noise (101-104%) as scaling. Levels run in order and each
 * level's repeats one after another, so a C > 1 row comes after every
 * repeat of C=1 when C=1 is listed first; before C=1, a row has no base.
 * A capacity search's looks have none either: each is a batch from an
 * idle server at a load the search chose, not a step of a sweep (the
 * load curve of analyze report sets its levels side by side).
 */
static void set_row_scaling(struct replay *rp, const struct run_side *sd, struct level_summary *s)
{
	size_t side = (size_t)(sd - rp->side);

	if (rp->o.find_capacity) {
		summary_set_scaling(s, NAN);
		return;
	}
	if (s->level == 1 && s->wall_s > 0) {
		rp->base_tokens[side] += s->tokens;
		rp->base_wall_s[side] += s->wall_s;
		summary_set_scaling(s, s->agg_tps);
		return;
	}
	summary_set_scaling(s, rp->base_wall_s[side] > 0 ?
			    metric_agg_tps((double)rp->base_tokens[side], rp->base_wall_s[side]) : NAN);
}

/*
 * A server that held connections back when the level's were opened (a
 * fixed pool of connection threads, each kept by an idle connection until
 * its keep-alive timeout): one line after the level's row, with how many
 * it served at once and what the measured requests on new connections,
 * held back in turn, waited beyond the others' TTFT at the median.
 */
static void note_held_connections(const struct level_run *lr, const struct level_summary *s)
{
	const struct client_warm_info *w = &lr->warm;
	size_t k, n_new = 0, n_old = 0;
	double *v;
	char name[32], wait[96] = "";

	if (!w->held && !w->capped)
		return;
	v = calloc(lr->issued ? lr->issued : 1, sizeof(*v));
	for (k = 0; v && k < lr->issued; k++) {
		const struct result *r = &lr->results[k];

		if (r->warmup || r->ttft_ns < 0 || !result_ok(r))
			continue;
		if (r->new_connection)
			v[n_new++] = (double)r->ttft_ns / NS_PER_MS;
	}
	for (k = 0; v && k < lr->issued; k++) {
		const struct result *r = &lr->results[k];

		if (r->warmup || r->ttft_ns < 0 || !result_ok(r) || r->new_connection)
			continue;
		v[n_new + n_old++] = (double)r->ttft_ns / NS_PER_MS;
	}
	if (n_new && n_old)
		snprintf(wait, sizeof(wait), ", TTFT P50 %.0f ms against %.0f ms on the connections "
			 "it held", stats_select_percentile(v, n_new, 50),
			 stats_select_percentile(v + n_new, n_old, 50));
	free(v);
	metric_level_name(s->level, name, sizeof(name));
	if (w->held)
		fprintf(stderr, "tracebench replay: note: at %s the server served only %zu "
			"connections at once: %zu more waited %.1f s unanswered before the level "
			"and were given up (a server with a fixed pool of connection threads, "
			"each held by an idle kept-alive connection until its timeout); %zu "
			"measured requests waited for a connection%s\n", name, w->served, w->held,
			w->waited_s, n_new, wait);
	else
		fprintf(stderr, "tracebench replay: note: at %s %zu connections were not opened "
			"before the level: the server served only %zu at once before; %zu "
			"measured requests waited for a connection%s\n", name, w->capped,
			lr->connections - w->capped, n_new, wait);
}

/*
 * A level the client distorted (lib/clientbound.h): one line after its
 * row, the reason in words, as analyze report judges it (the host's busy
 * and steal shares are the report's to add: they need both edges' records
 * read back).
 */
static void note_client_limited(const struct level_run *lr, const struct level_summary *s)
{
	struct clientbound_level m = { s->ttft.p50 / 1e3, s->ttft.p99 / 1e3, NAN, NAN };
	char name[32], why[200];

	if (!lr->client_known ||
	    clientbound_judge(&lr->client_b, &lr->client_w, &m, CLIENTBOUND_DEFAULT_SHARE, why,
			      sizeof(why)) != 1)
		return;
	fprintf(stderr, "tracebench replay: note: %s is client-limited: %s\n",
		metric_level_name(s->level, name, sizeof(name)), why);
}

/*
 * Runs level 'level', repeat rep against side sd, a table row after it;
 * 'first': the run's first level, which sends the warm-ups; 'batch': its
 * requests, 0 for the usual count. With --find-capacity *good and
 * *measured count the level's requests within the SLO and all of them
 * (warm-ups left out). Returns 0 or the exit status.
 */
int replay_run_one(struct replay *rp, int level, int first, int rep, struct run_side *sd,
		   long batch, long *good, long *measured)
{
	const struct replay_options *o = &rp->o;
	struct level_run *lr = &rp->lr;
	struct level_summary s;
	size_t k, peak;

	sides_use(rp, sd);
	lr->level = level;
	lr->cap = worker_share(o, (size_t)lr->level);
	lr->repeat = rep;
	lr->first = o->find_capacity ? rp->cursor : 0;
	size_level(rp, lr, batch);
	peak = lr->peak_in_flight;
	sides_set_salts(rp, sd, lr->level, rep);
	lr->warmup = !rp->anchored && first && rep == 0 ? rp->warmups : 0;
	lr->sched = rp->sched;
	lr->req_index = rp->sched_index;
	lr->client_known = 0;
	if (level_run_to_end(lr, &s) < 0) {
		fprintf(stderr, "tracebench replay: out of memory\n");
		return CLI_EXIT_FAILED;
	}
	if (lr->peak_in_flight > peak)
		rp->peak_rate = lr->rate;
	/* the next look goes on from here: an open loop's schedule of 'batch'
	 * places (every shard's), a closed loop's requests or sessions */
	rp->cursor += o->open_loop ? (size_t)o->sched.max_requests :
		      lr->sessions ? lr->n_sessions : lr->n;
	for (k = 0; good && k < lr->issued; k++) {
		if (lr->results[k].warmup)
			continue;
		rp->busy_ns += lr->results[k].e2e_ns > 0 ? lr->results[k].e2e_ns : 0;
		if (lr->results[k].cancel[0])
			continue;       /* --cancel's: judged neither way */
		(*measured)++;
		*good += metric_within_slo(&lr->results[k], &o->slo) ? 1 : 0;
	}
	set_row_scaling(rp, sd, &s);
	if (o->repeat > 1)
		s.repeat = rep;
	if ((s.requests || s.warmup) && keep_row(rp, sd, &s) < 0) {
		fprintf(stderr, "tracebench replay: out of memory\n");
		level_free_results(lr);
		return CLI_EXIT_FAILED;
	}
	if (o->open_loop)
		level_print_schedule_accuracy(o, lr);
	note_held_connections(lr, &s);
	note_client_limited(lr, &s);
	if (s.warmup)
		rp->warmup = s;
	/* a request --cancel chose is no failure, cut or not */
	rp->total_ok += s.ok + s.cancelled + s.cancel_ended;
	rp->total_cancelled += s.cancelled;
	rp->total_cancel_ended += s.cancel_ended;
	rp->total += s.requests;
	/* A level's connections are open before it starts; a server that
	 * closes them after each answer makes most requests open their own,
	 * inside their TTFT: said once. */
	if (!rp->said_closes && !o->open_loop && s.requests >= 4 && s.new_connections * 2 > s.requests &&
	    !lr->warm.held && !lr->warm.capped) {   /* those said above */
		char name[32];

		rp->said_closes = 1;
		fprintf(stderr, "tracebench replay: note: the server closes kept connections: at %s "
			"%zu of %zu requests opened a new one (connect %.2f ms on average, inside "
			"their TTFT)\n", metric_level_name(s.level, name, sizeof(name)),
			s.new_connections, s.requests, s.connect_ms);
	}
	level_free_results(lr);
	return 0;
}

/* A scraper per --metrics-url, its first scrape now (before the first
 * level), once a run. Returns 0 or the exit status. */
static int start_scrapers(struct replay *rp)
{
	const struct replay_options *o = &rp->o;
	int i;

	if (rp->scrapers_started)
		return 0;
	rp->scrapers_started = 1;
	for (i = 0; i < (int)o->n_metrics_urls && !level_stop; i++) {
		struct scrape_options so = { o->metrics_urls[i], o->metrics_interval_ns, o->insecure };
		struct scrape *sc;
		char err[256];

		sc = scrape_new(client_base(rp->client), &so, rp->lr.origin_ns, level_on_metrics, &rp->lr,
				err, sizeof(err));
		if (sc) {   /* the first scrape, now, is before the first level */
			rp->lr.scrapes[rp->lr.n_scrapes++] = sc;
			scrape_set_level(sc, o->open_loop ? METRIC_OPEN_LOOP_LEVEL : o->levels[0], 0,
					 0);
		}
		if (!sc || scrape_start(sc) < 0) {
			fprintf(stderr, "tracebench replay: %s\n", sc ? "cannot set up "
				"the metrics timer" : err);
			return CLI_EXIT_FAILED;
		}
	}
	return 0;
}

/* Runs every level and repeat (or the open-loop run), against each side
 * in the A/B order. Returns 0 or the exit status. */
static int run_levels(struct replay *rp)
{
	const struct replay_options *o = &rp->o;
	int i, rep, rc;
	size_t k;

	if ((rc = start_scrapers(rp)) != 0)
		return rc;
	/* An A/B run's rows name their side; --repeat's, their repeat. The
	 * header waits for the first row (live_begin). */
	summary_table_init(&rp->live, stdout, o->format,
			   (o->repeat > 1 ? SUMMARY_GROUP_REPEAT : 0) |
			   (o->cancel.share > 0 ? SUMMARY_GROUP_CANCEL : 0) |
			   (rp->n_sides == 2 ? SUMMARY_GROUP_RUN : 0));
	rp->rows_cap = (size_t)(o->open_loop ? 1 : o->n_levels) * (size_t)o->repeat * rp->n_sides;
	rp->rows = calloc(rp->rows_cap + 1, sizeof(*rp->rows));   /* never 0 bytes */
	if (!rp->rows) {
		fprintf(stderr, "tracebench replay: out of memory\n");
		return CLI_EXIT_FAILED;
	}
	if (o->find_capacity && (rc = find_capacity_run(rp)))
		return rc;
	for (i = 0, k = 0; !o->find_capacity && i < (o->open_loop ? 1 : o->n_levels) && !level_stop; i++)
		for (rep = 0; rep < (int)o->repeat && !level_stop; rep++, k++)
			if ((rc = sides_run_block(rp, o->open_loop ? METRIC_OPEN_LOOP_LEVEL :
						  (int)o->levels[i], i == 0, rep, k)))
				return rc;
	if (rp->table) {
		live_begin(rp, NULL);
		table_end(&rp->live);
		summary_print_notes(stdout, o->format, rp->rows, rp->n_rows);
		fflush(stdout);
	}
	for (k = 0; k < rp->lr.n_scrapes; k++) {
		long scraped, failed;

		scrape_stop(rp->lr.scrapes[k]);
		scrape_counts(rp->lr.scrapes[k], &scraped, &failed);
		fprintf(stderr, "tracebench replay: %ld metrics scrape%s recorded, %ld failed%s%s\n",
			scraped, scraped == 1 ? "" : "s", failed,
			rp->lr.n_scrapes > 1 ? " of --metrics-url " : "",
			rp->lr.n_scrapes > 1 ? scrape_source(rp->lr.scrapes[k]) : "");
	}
	if (rp->warmup.warmup && !isnan(rp->warmup.warmup_ttft_ms))
		fprintf(stderr, "warm-up: %zu request%s, cold-start TTFT %.1f ms\n",
			rp->warmup.warmup, rp->warmup.warmup == 1 ? "" : "s",
			rp->warmup.warmup_ttft_ms);
	else if (rp->warmup.warmup)
		fprintf(stderr, "warm-up: %zu request%s, no cold-start TTFT: the first failed (%s)\n",
			rp->warmup.warmup, rp->warmup.warmup == 1 ? "" : "s",
			rp->failures.warmup[0] ? rp->failures.warmup : "no answer");
	return 0;
}

/* Closes the results files and says what was written. Returns the exit
 * status of the run. */
static int finish_run(struct replay *rp)
{
	struct rusage ru;
	int rc = sides_close(rp);

	if (rc)
		return rc;
	/* The client's own cost, so a reader can see it was not the bottleneck. */
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "tracebench replay: wrote %ld results to '%s'", rp->side[0].seq,
		rp->side[0].output);
	if (rp->n_sides == 2)
		fprintf(stderr, " and %ld to '%s'", rp->side[1].seq, rp->side[1].output);
	fprintf(stderr, " (client cpu %.2f s, peak RSS %.1f MiB)\n",
		(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		(double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
		(double)ru.ru_maxrss / 1024.0);
	if (rp->o.cancel.share > 0)
		fprintf(stderr, "tracebench replay: --cancel cut %zu request%s at their point, "
			"%zu chosen ended before it: neither failures nor measured\n",
			rp->total_cancelled, rp->total_cancelled == 1 ? "" : "s",
			rp->total_cancel_ended);
	if (failures_count(&rp->failures)) {
		char why[1024];

		failures_summary(&rp->failures, why, sizeof(why));
		if (rp->total > 0 && rp->total_ok == 0)
			fprintf(stderr, "tracebench replay: every request failed: %s\n", why);
		else
			fprintf(stderr, "tracebench replay: %zu request%s failed: %s\n",
				failures_count(&rp->failures),
				failures_count(&rp->failures) == 1 ? "" : "s", why);
	} else if (rp->total > 0 && rp->total_ok == 0) {
		fprintf(stderr, "tracebench replay: every request failed\n");
	}
	if (level_stop > 0) {
		char name[32];

		fprintf(stderr, "tracebench replay: stopped by signal %d during %s: '%s' holds a "
			"partial run (analyze report marks the levels cut short)\n", level_stop,
			metric_level_name(rp->lr.level, name, sizeof(name)), rp->side[0].output);
	}
	if (rp->lr.write_failed)
		return CLI_EXIT_FAILED;
	if (level_stop > 0)
		return 128 + level_stop;
	return rp->total > 0 && rp->total_ok == 0 ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}

static void replay_release(struct replay *rp)
{
	size_t t, k;

	for (t = 0; t < 2; t++)
		cJSON_Delete(rp->server[t]);
	rerun_release(&rp->rerun);

	for (k = 0; k < rp->lr.n_scrapes; k++)
		scrape_free(rp->lr.scrapes[k]);
	level_free_results(&rp->lr);
	free(rp->rows);
	sides_release(rp);
	if (rp->lr.due_timer)
		event_free(rp->lr.due_timer);
	if (rp->lr.write_ev)
		event_free(rp->lr.write_ev);
	if (rp->tick)
		event_free(rp->tick);
	if (rp->sigint)
		event_free(rp->sigint);
	if (rp->sigterm)
		event_free(rp->sigterm);
	client_free(rp->client);
	prepared_free(rp->reqs, rp->n_reqs);
	free(rp->sched);
	free(rp->sched_index);
	free(rp->arrivals);
	session_set_release(&rp->sessions);
}

int replay_main(int argc, char **argv)
{
	char err[1024];
	struct replay rp;
	int rc;

	memset(&rp, 0, sizeof(rp));
	/* --rerun RESULTS: the recorded command line, then this one's words */
	if ((rc = rerun_expand(argc, argv, &rp.rerun, err, sizeof(err))) < 0) {
		fprintf(stderr, "tracebench replay: %s\n", err);
		rerun_release(&rp.rerun);
		return CLI_EXIT_USAGE;
	}
	if (rc > 0) {
		argc = rp.rerun.argc;
		argv = rp.rerun.argv;
	}
	if ((rc = replay_options_parse(&rp.o, argc, argv)) != CLI_CONTINUE) {
		rerun_release(&rp.rerun);
		return rc;
	}
	rp.o.rerun_of = rp.rerun.of;
	rp.n_sides = rp.o.endpoint_b ? 2 : 1;
	if ((rc = load_requests(&rp)) || (rc = sides_ask_servers(&rp)))
		goto cleanup;
	/* --workers: the parent ends here, with the merged results' status */
	if (rp.o.workers > 1 &&
	    (rc = start_workers(&rp.o, rp.server[0], &rp.trace_id, rp.reqs, rp.n_reqs, rp.worker_output,
				sizeof(rp.worker_output))) != WORKER_GOES_ON)
		goto cleanup;
	if ((rc = plan_requests(&rp)) || (rc = start_client(&rp)) || (rc = open_results(&rp)))
		goto cleanup;
	print_start(&rp);
	say_passes(&rp);
	if (event_add(rp.tick, &(struct timeval){ 1, 0 }) < 0) {
		fprintf(stderr, "tracebench replay: cannot set up the event loop\n");
		rc = CLI_EXIT_FAILED;
		goto cleanup;
	}
	rp.lr.origin_ns = rp.o.start_at > 0 ? mono_at(rp.o.start_at) : clock_now_ns();
	/* One host record pair a level and host: a --workers run's first
	 * worker's; a shard's source says which shard's host it is. */
	if (rp.o.shard_n > 1 && rp.o.worker < 0)
		snprintf(rp.host_source, sizeof(rp.host_source), "host (shard %ld/%ld)",
			 rp.o.shard_k, rp.o.shard_n);
	else
		snprintf(rp.host_source, sizeof(rp.host_source), "host");
	rp.lr.host_source = rp.o.worker > 0 ? NULL : rp.host_source;
	if (rp.anchored && (rc = start_anchored(&rp)))
		goto cleanup;
	if ((rc = run_levels(&rp)) == 0)
		rc = finish_run(&rp);
cleanup:
	replay_release(&rp);
	return rc;
}
