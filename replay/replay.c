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
#include "cancel.h"
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
#include "lib/typed.h"

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

/* The most connections a rate search keeps open between its probes. */
#define REPLAY_RATE_CONNECTIONS 1024

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
		start_probe_clock(&rp->o, &rp->cs);
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
	rp->lr.chain = rp->o.previous_response_id;
	return 0;
}

/* Whether the trace has a session of Responses API requests to chain. */
static int chains(const struct replay *rp)
{
	size_t i;

	for (i = 0; rp->sessions.n && i < rp->n_reqs; i++)
		if (rp->reqs[i].req.session >= 0 &&
		    typed_api_of_kind(rp->reqs[i].req.kind) == TYPED_RESPONSES)
			return 1;
	return 0;
}

/* An A/B run whose levels are too short for halves says so, of the
 * first such level. */
static void note_no_halves(const struct replay_options *o)
{
	long c = 0;

	if (replay_ab_halves(o, &c) == 1)
		fprintf(stderr, "tracebench replay: note: an A/B run runs each side's level in "
			"two halves, A B B A, so that a drift of the host divides out, when each "
			"half holds two waves; C=%ld's %ld requests do not: each block runs A B "
			"(-n 8x gives four waves a half)\n", c, replay_level_requests(o, c));
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
	if (rp->n_sides == 2)
		note_no_halves(&rp->o);
	if (rp->o.previous_response_id && !chains(rp))
		fprintf(stderr, "tracebench replay: warning: --previous-response-id: '%s' holds no "
			"session of Responses API requests: nothing is chained\n", rp->o.trace_path);
	/* Each run draws its salts so that it never finds an earlier run's
	 * prompts in the server's prefix cache; a seed given repeats them. */
	if (rp->o.salt_seed_given && !rp->o.no_salt)
		fprintf(stderr, "tracebench replay: warning: --salt-seed %llu sends the prompts of "
			"every run given that seed: a server that served one has them in its "
			"prefix cache, and this run's TTFT would read low; leave --salt-seed out "
			"unless the server is fresh\n", (unsigned long long)rp->o.salt_seed);
}

/*
 * Runs a level of load 'load', repeat rep against side sd, a table row
 * after it; 'first': the run's first level, which sends the warm-ups;
 * 'batch': its requests, 0 for the usual count. With --find-capacity
 * *good and *measured count the level's requests within the SLO and all
 * of them (warm-ups left out). Returns 0 or the exit status.
 */
int replay_run_one(struct replay *rp, struct load load, int first, int rep, struct run_side *sd,
		   long batch, long *good, long *measured)
{
	const struct replay_options *o = &rp->o;
	struct level_run *lr = &rp->lr;
	struct level_summary s;
	size_t k, peak;

	sides_use(rp, sd);
	lr->level = load;
	/* a closed loop's share of C (an open loop has no cap) */
	lr->cap = plan_worker_share(o, (size_t)lr->level.concurrency);
	lr->repeat = rep;
	lr->first = o->find_capacity ? rp->cursor : rp->from;
	plan_size_level(rp, lr, batch);
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
		rp->peak_rate = lr->level.rate;
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
	live_set_scaling(rp, sd, &s);
	if (o->repeat > 1 || rp->ab_halves > 1)
		s.repeat = rep;
	if ((s.requests || s.warmup) && live_keep_row(rp, sd, &s) < 0) {
		fprintf(stderr, "tracebench replay: out of memory\n");
		level_free_results(lr);
		return CLI_EXIT_FAILED;
	}
	if (o->open_loop)
		level_print_schedule_accuracy(o, lr);
	live_note_held_connections(lr, &s);
	live_note_client_limited(lr, &s);
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
			"their TTFT)\n", load_name(load_unrated(s.level), name, sizeof(name)),
			s.new_connections, s.requests, s.connect_ms);
	}
	level_free_results(lr);
	return 0;
}

/* A scraper per --metrics-url, its first scrape now (before the first
 * level), once a run. Returns 0 or the exit status. */
int replay_start_scrapers(struct replay *rp)
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
			scrape_set_level(sc, load_code(replay_level_load(o, 0)), 0, 0);
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

	if ((rc = replay_start_scrapers(rp)) != 0)
		return rc;
	/* An A/B run's rows name their side; --repeat's, their repeat. The
	 * header waits for the first row (live_begin). */
	summary_table_init(&rp->live, stdout, o->format,
			   (o->repeat > 1 || rp->ab_halves > 1 ? SUMMARY_GROUP_REPEAT : 0) |
			   (o->cancel.share > 0 ? SUMMARY_GROUP_CANCEL : 0) |
			   (rp->n_sides == 2 ? SUMMARY_GROUP_RUN : 0));
	rp->rows_cap = (size_t)(o->open_loop ? 1 : o->n_levels) * (size_t)o->repeat * rp->n_sides *
		       (size_t)rp->ab_halves;
	rp->rows = calloc(rp->rows_cap + 1, sizeof(*rp->rows));   /* never 0 bytes */
	if (!rp->rows) {
		fprintf(stderr, "tracebench replay: out of memory\n");
		return CLI_EXIT_FAILED;
	}
	if (o->find_capacity && (rc = find_capacity_run(rp)))
		return rc;
	for (i = 0, k = 0; !o->find_capacity && i < (o->open_loop ? 1 : o->n_levels) && !level_stop; i++)
		for (rep = 0; rep < (int)o->repeat && !level_stop; rep++, k++)
			if ((rc = sides_run_block(rp, replay_level_load(o, i), i == 0, rep, k)))
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
	if (rp->o.cancel.share > 0 && !rp->total_cancelled && rp->total_cancel_ended) {
		char after[32];

		cancel_after_text(&rp->o.cancel, after, sizeof(after));
		fprintf(stderr, "tracebench replay: note: --cancel's point (%s) came after every "
			"chosen request had ended: nothing was cut; give a point inside the "
			"answers (the table's E2E and tokens say how long they are)\n", after);
	}
	if (rp->lr.chain_unlinked)
		fprintf(stderr, "tracebench replay: warning: --previous-response-id: %zu turn%s "
			"followed an answer without a response id the server could be asked for; "
			"%s sent with %s history\n", rp->lr.chain_unlinked,
			rp->lr.chain_unlinked == 1 ? "" : "s", rp->lr.chain_unlinked == 1 ? "it was" :
			"they were", rp->lr.chain_unlinked == 1 ? "its" : "their");
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
			load_name(load_unrated(rp->lr.level), name, sizeof(name)),
			rp->side[0].output);
	}
	if (rp->lr.write_failed || level_stop == LEVEL_STOP_OWN)   /* said why where it failed */
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
	if ((rc = plan_load(&rp)) || (rc = fit_prompts(&rp)) || (rc = sides_ask_servers(&rp)))
		goto cleanup;
	/* --workers: the parent ends here, with the merged results' status */
	if (rp.o.workers > 1 &&
	    (rc = start_workers(&rp.o, rp.server[0], &rp.trace_id, rp.reqs, rp.n_reqs, rp.worker_output,
				sizeof(rp.worker_output))) != WORKER_GOES_ON)
		goto cleanup;
	if ((rc = plan_keep(&rp)) || (rc = start_client(&rp)) || (rc = open_results(&rp)))
		goto cleanup;
	print_start(&rp);
	plan_say_passes(&rp);
	if (event_add(rp.tick, &(struct timeval){ 1, 0 }) < 0) {
		fprintf(stderr, "tracebench replay: cannot set up the event loop\n");
		rc = CLI_EXIT_FAILED;
		goto cleanup;
	}
	rp.lr.origin_ns = rp.o.start_at > 0 ? start_mono_at(rp.o.start_at) : clock_now_ns();
	/* One host record pair a level and host: a --workers run's first
	 * worker's; a shard's source says which shard's host it is. */
	if (rp.o.shard_n > 1 && rp.o.worker < 0)
		snprintf(rp.host_source, sizeof(rp.host_source), "host (shard %ld/%ld)",
			 rp.o.shard_k, rp.o.shard_n);
	else
		snprintf(rp.host_source, sizeof(rp.host_source), "host");
	/* a later worker: its own bound, on a record of its own (its host's
	 * counters are the first worker's) */
	if (rp.o.worker > 0)
		snprintf(rp.host_source, sizeof(rp.host_source), "client (worker %ld)", rp.o.worker);
	rp.lr.host_source = rp.host_source;
	rp.lr.bound_only = rp.o.worker > 0;
	rp.lr.no_watch = rp.o.no_client_watch;
	if (rp.anchored && (rc = start_anchored(&rp)))
		goto cleanup;
	if ((rc = run_levels(&rp)) == 0)
		rc = finish_run(&rp);
cleanup:
	replay_release(&rp);
	return rc;
}
