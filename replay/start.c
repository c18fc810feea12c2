/*
 * start.c - the start of a replay: the server's clock probed before
 * --start-at, the warm-ups and the wait for an anchored start, and the
 * --workers parent, which forks the workers, releases them at one instant
 * and merges their files; see run.h.
 */
#include "replay/run.h"
#include "replay/client.h"
#include "replay/header.h"
#include "replay/workers.h"
#include "lib/cli.h"
#include "lib/clock.h"
#include "lib/redact.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
int64_t start_mono_at(double unix_s)
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
void start_probe_clock(const struct replay_options *o, struct clocksync_result *cs)
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
int start_workers(struct replay_options *o, const cJSON *server,
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
		start_probe_clock(o, &cs);
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

/*
 * An anchored run (--start-at, or a worker): the warm-ups first, one at a
 * time at negative offsets, then the wait for the start. Returns 0 or the
 * exit status.
 */
int start_anchored(struct replay *rp)
{
	struct replay_options *o = &rp->o;
	struct level_run *lr = &rp->lr;
	int64_t origin, late;
	size_t t;

	for (t = 0; rp->warmups && t < rp->n_sides && !level_stop; t++) {
		struct level_summary s;

		sides_use(rp, &rp->side[t]);
		lr->level = replay_level_load(o, 0);
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

		if (at < 0) {
			fprintf(stderr, "tracebench replay: worker %ld: the parent replay went away "
				"before the start\n", o->worker);
			level_stop_own();
		} else
			o->start_at = at;
	}
	if (level_stop)
		return 0;
	origin = start_mono_at(o->start_at);
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
		if ((rc = replay_start_scrapers(rp)) != 0)
			return rc;
		level_window_ahead(lr, load_open(NAN));
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
