/*
 * watch.c - the level's watch of replay itself; see watch.h.
 *
 * The probe re-arms itself each time it fires, from the instant it did,
 * so one late firing is counted once (a persistent timer would catch up,
 * counting the lag of several). It costs a wake-up of the loop every
 * CLIENTBOUND_PROBE_MS and one read of the clock; per read that brings
 * tokens, one more read of the clock and a count (replay/client.c).
 */
#include "replay/watch.h"
#include "lib/clock.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return -1;
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static void arm(struct watch *w, int64_t now)
{
	struct timeval tv = { 0, CLIENTBOUND_PROBE_MS * 1000 };

	w->due_ns = now + CLIENTBOUND_PROBE_MS * NS_PER_MS;
	evtimer_add(w->probe, &tv);
}

/* Keeps one probe's lateness and the loop's part of it; false when full. */
static int keep(struct watch *w, double lag_us, double loop_us)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 4096;
		double *lag, *loop;

		if (w->cap >= WATCH_MAX_PROBES)
			return 0;
		lag = realloc(w->lag_us, cap * sizeof(*lag));
		if (lag)
			w->lag_us = lag;
		loop = lag ? realloc(w->loop_us, cap * sizeof(*loop)) : NULL;
		if (!loop)
			return 0;
		w->loop_us = loop;
		w->cap = cap;
	}
	w->lag_us[w->n] = lag_us;
	w->loop_us[w->n++] = loop_us;
	return 1;
}

/*
 * The probe fired 'lag' late. Of that, the loop and its thread account
 * for the read delay of bytes stamped now (the pass's age, the pass
 * before busy, the thread's wait to run since): what the reads of a
 * socket's data would have waited too, the client's own part. The rest
 * is the host's own wake-up of the thread for the timer (an idle virtual
 * CPU's: 1.6 ms at P99 on a quiet 2-core machine, 0.09 ms beside busy
 * loops, where a socket's data woke a thread within 0.12-0.14 ms; section
 * 14 of BENCHMARKS.md), which stays in the bound, not in the own part.
 */
static void on_probe(evutil_socket_t fd, short what, void *arg)
{
	struct watch *w = arg;
	int64_t now = clock_now_ns();
	int64_t lag = now - w->due_ns, seen = client_pass_mark(w->client, now);
	int64_t part = lag > 0 ? lag : 0;

	(void)fd;
	(void)what;
	if (seen >= 0 && seen < part)
		part = seen;
	keep(w, (double)lag / 1e3, seen < 0 ? -1 : (double)part / 1e3);
	arm(w, now);
}

int watch_start(struct watch *w, struct client *client)
{
	memset(w, 0, sizeof(*w));
	w->token_reads = calloc(1, sizeof(*w->token_reads));
	w->probe = w->token_reads ? evtimer_new(client_base(client), on_probe, w) : NULL;
	if (!w->probe) {
		free(w->token_reads);
		w->token_reads = NULL;
		return -1;
	}
	w->client = client;
	w->run_wait_read = client_watch_reads(client, w->token_reads);
	w->wall0_ns = clock_now_ns();
	w->cpu0_ns = thread_cpu_ns();
	arm(w, w->wall0_ns);
	return 0;
}

int watch_stop(struct watch *w, const struct result *r, size_t n, int64_t transport_ns,
	       struct clientbound_watch *out, struct clientbound *b)
{
	double *issue = malloc((n ? n : 1) * sizeof(double));
	double *read = malloc((n ? n : 1) * sizeof(double));
	double *tmp = malloc((n ? n : 1) * sizeof(double));
	size_t i, k = 0;
	int rc = -1;

	clientbound_watch_init(out);
	clientbound_init(b);
	if (transport_ns >= 0)
		out->transport = (double)transport_ns / 1e9;
	if (w->probe) {
		int64_t wall = clock_now_ns() - w->wall0_ns, cpu = thread_cpu_ns();

		event_free(w->probe);
		client_watch_reads(w->client, NULL);
		clientbound_observe_tokens(out, w->token_reads);
		if (wall > 0 && cpu >= 0 && w->cpu0_ns >= 0)
			out->thread_busy = (double)(cpu - w->cpu0_ns) / (double)wall;
		out->run_wait_unread = !w->run_wait_read;
	}
	if (issue && read && tmp) {
		for (i = 0; i < n; i++) {
			if (r[i].warmup)
				continue;
			issue[k] = (double)r[i].issue_ns;
			read[k++] = (double)r[i].read_ns;
		}
		clientbound_observe(out, issue, read, k, tmp, w->lag_us, w->loop_us, w->n);
		clientbound_compute(out, b);
		rc = 0;
	}
	free(issue);
	free(read);
	free(tmp);
	free(w->lag_us);
	free(w->loop_us);
	free(w->token_reads);
	memset(w, 0, sizeof(*w));
	return rc;
}
