/*
 * find_capacity.c - replay --find-capacity: the highest load that meets
 * an SLO. Each probe is an ordinary level of the run (replay_run_one), its
 * looks the level's repeats, each look going on in the trace where the
 * last one ended; lib/capacity.c judges each look and chooses the next
 * load. A concurrency probe is a closed-loop level of its C; the k-th rate
 * probe an open-loop level of its own (lib/load.h), its rate on each of
 * its records, each look a schedule of its own. What it finds is said on
 * stderr; analyze report draws the load curve from the results file.
 */
#include "replay/run.h"
#include "lib/capacity.h"
#include "lib/cli.h"
#include "lib/clock.h"
#include "lib/metric.h"

#include <stdio.h>
#include <stdlib.h>

/* The search's load x in a sentence: "C=4" or "12.5 req/s". Returns buf. */
static const char *search_load_name(const struct capacity_options *k, double x, char *buf,
				    size_t len)
{
	if (k->by_rate)
		snprintf(buf, len, "%.4g req/s", x);
	else
		snprintf(buf, len, "C=%ld", (long)x);
	return buf;
}

/* The verdict on load x, one line on stderr. */
static void print_probe(const struct capacity_options *k, double x, long good, long n,
			enum capacity_verdict v, double lo, double hi)
{
	char name[48];

	fprintf(stderr, "tracebench replay: capacity: %s: %ld of %ld requests within the SLO "
		"(%.1f%%; %.0f%% bounds %.1f%%..%.1f%%): %s the %.1f%% asked\n",
		search_load_name(k, x, name, sizeof(name)), good, n,
		n ? 100.0 * (double)good / (double)n : 0.0, 100 * k->confidence, 100 * lo, 100 * hi,
		v == CAPACITY_PASS ? "meets" : v == CAPACITY_FAIL ? "below" : "undecided on",
		100 * k->share);
}

/*
 * A rate probe's look: a schedule of 'batch' arrivals at rate r, its
 * process's seed moved on by the look's number so that no two looks send
 * the same gaps. Returns 0 or the exit status.
 */
static int plan_rate_look(struct replay *rp, double r, long batch, long look)
{
	struct replay_options *o = &rp->o;
	struct session_set *set = rp->sessions.n ? &rp->sessions : NULL;
	uint64_t seed = o->sched.seed;

	free(rp->sched);
	free(rp->sched_index);
	rp->sched = NULL;
	rp->sched_index = NULL;
	o->sched.rate = r;
	o->sched.max_requests = (size_t)batch;
	o->sched.seed = seed + 1000003u * (uint64_t)look;
	rp->n_sched = plan_open_schedule(o, rp->arrivals, set ? set->n : rp->n_reqs, &rp->sched,
					 &rp->sched_index);
	o->sched.seed = seed;
	if (!rp->n_sched) {
		fprintf(stderr, "tracebench replay: out of memory\n");
		return CLI_EXIT_FAILED;
	}
	return 0;
}

/* The search's end, one line on stderr. */
static void print_capacity(const struct capacity_options *k, const struct capacity_search *s,
			   enum capacity_verdict fail_v, long probes, long sent, double secs)
{
	char a[48], b[48];

	if (s->pass > 0 && s->fail > 0)
		fprintf(stderr, "tracebench replay: capacity: %s meets the SLO, %s %s "
			"(%ld probes, %ld requests, %.1f s)\n",
			search_load_name(k, s->pass, a, sizeof(a)),
			search_load_name(k, s->fail, b, sizeof(b)),
			fail_v == CAPACITY_FAIL ? "does not" : "is undecided (counted as not)",
			probes, sent, secs);
	else if (s->pass > 0)
		fprintf(stderr, "tracebench replay: capacity: every %s searched meets the SLO, up to "
			"%s (%ld probes, %ld requests, %.1f s)\n", k->by_rate ? "rate" : "C",
			search_load_name(k, s->pass, a, sizeof(a)), probes, sent, secs);
	else if (s->fail > 0)
		fprintf(stderr, "tracebench replay: capacity: no %s meets the SLO, not even %s "
			"(%ld probes, %ld requests, %.1f s)\n", k->by_rate ? "rate" : "C",
			search_load_name(k, s->fail, a, sizeof(a)), probes, sent, secs);
}

/*
 * A rate search that halves down from a failing start stops at a rate
 * whose requests ran mostly alone: fewer than CAPACITY_ALONE in flight on
 * average (their E2E summed over the probe's time, Little's law; at 0.5
 * a Poisson arrival finds the server empty 61% of the time). Below it the
 * server has hardly any load left to shed, and each halving doubles the
 * probe's time (20 requests at start / 64 req/s: 21 minutes at a start of
 * 1). Says so, and returns 1, when the probe at x was such a rate.
 */
#define CAPACITY_ALONE 0.5

static int ran_alone(const struct replay *rp, double x, int64_t span_ns)
{
	char name[48];
	double in_flight = span_ns > 0 ? (double)rp->busy_ns / (double)span_ns : 0;

	if (in_flight >= CAPACITY_ALONE)
		return 0;
	fprintf(stderr, "tracebench replay: capacity: lower rates not tried: at %s the requests "
		"averaged %.2f in flight, under %.1f (they ran mostly alone), so a lower rate takes "
		"little load off the server and the SLO is beyond it\n",
		search_load_name(&rp->o.capacity, x, name, sizeof(name)), in_flight,
		CAPACITY_ALONE);
	return 1;
}

/*
 * What a probe that meets the SLO costs at the search's start, said when
 * it is long: a level must send capacity_min_requests before it can pass,
 * which at a low rate takes minutes (--capacity-range starts nearer).
 */
static void say_capacity_time(const struct replay *rp)
{
	const struct capacity_options *k = &rp->o.capacity;
	long need = capacity_min_requests(k, k->start);
	char name[48];

	if (k->by_rate && need > 0 && (double)need / k->start > 60)
		fprintf(stderr, "tracebench replay: capacity: a rate is found to meet the SLO after "
			"%ld requests or more: %.0f s at %s; a --capacity-range that starts nearer "
			"the capacity spends less\n", need, (double)need / k->start,
			search_load_name(k, k->start, name, sizeof(name)));
}

/*
 * --find-capacity: each probe is an ordinary level, judged and the next
 * load chosen by lib/capacity.h; its looks are the level's repeats. A
 * concurrency probe is a closed-loop level of its C, the k-th rate probe
 * load_probe(k, rate); each look is a schedule of its own. An
 * interrupted search keeps the levels it finished. Returns 0 or the exit
 * status.
 */
int find_capacity_run(struct replay *rp)
{
	const struct capacity_options *k = &rp->o.capacity;
	struct capacity_search search = { 0, 0 };
	double x = k->start;
	long probes = 0, sent = 0;
	enum capacity_verdict fail_v = CAPACITY_FAIL;   /* of the lowest failing load */
	int64_t t0 = clock_now_ns();
	int first = 1, rc;
	size_t units;

	say_capacity_time(rp);
	while (x > 0 && !level_stop) {
		enum capacity_verdict v = CAPACITY_UNDECIDED;
		long good = 0, n = 0;
		double lo = 0, hi = 1;
		int look;
		struct load load = k->by_rate ? load_probe((int)(probes + 1), x) :
				   load_closed((int)x);
		int64_t span = 0;

		rp->busy_ns = 0;
		for (look = 0; v == CAPACITY_UNDECIDED && n < k->max_requests && !level_stop;
		     look++) {
			long batch = capacity_batch(k, x);

			if (batch > k->max_requests - n)
				batch = k->max_requests - n;
			if (k->by_rate && (rc = plan_rate_look(rp, x, batch, probes * 64 + look)))
				return rc;
			span -= clock_now_ns();
			rc = replay_run_one(rp, load, first, look, &rp->side[0], batch, &good, &n);
			span += clock_now_ns();
			if (rc)
				return rc;
			first = 0;
			v = capacity_judge(k, x, good, n, &lo, &hi);
		}
		if (level_stop)
			break;      /* an unfinished probe states nothing */
		probes++;
		sent += n;
		print_probe(k, x, good, n, v, lo, hi);
		if (v != CAPACITY_PASS && (!(search.fail > 0) || x < search.fail))
			fail_v = v;
		x = capacity_next(&search, k, x, v);
		if (x > 0 && x < search.fail && !(search.pass > 0) && k->by_rate &&
		    ran_alone(rp, search.fail, span))
			break;
		if (probes >= RESULT_MAX_RATE_LEVELS)
			break;
	}
	print_capacity(k, &search, fail_v, probes, sent,
		       (double)(clock_now_ns() - t0) / NS_PER_S);
	units = rp->sessions.n ? rp->sessions.n : rp->n_reqs;
	if (rp->cursor > units)
		fprintf(stderr, "tracebench replay: capacity: its looks went %.1f times over the "
			"trace's %zu %s, each look and pass under salts of its own\n",
			(double)rp->cursor / (double)units, units,
			rp->sessions.n ? "sessions" : "requests");
	if (level_stop)
		fprintf(stderr, "tracebench replay: capacity: search interrupted; the %ld levels "
			"finished are in the results file\n", probes);
	return 0;
}
