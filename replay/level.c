/*
 * level.c - the level engine of replay: issuing a level's requests (closed
 * loop: C at a time; open loop: on their schedule), recording each as it
 * ends (its record queued, written when the loop is idle), the progress
 * line, the level's metrics window, the tick and the signals, and running
 * a level to its end. See level.h.
 */
#include "replay/level.h"
#include "replay/body.h"
#include "replay/client.h"
#include "replay/failures.h"
#include "lib/clock.h"
#include "lib/hostload.h"
#include "lib/stats.h"
#include "lib/summary.h"
#include "lib/trace.h"
#include "lib/tracefile.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile sig_atomic_t level_stop;
static int signals_seen;

void level_stop_own(void)
{
	if (level_stop == LEVEL_RUNNING)
		level_stop = LEVEL_STOP_OWN;
}

/*
 * Output tokens received so far: the finished requests' counts and, of
 * the streams in flight, their token events so far (the first, then one
 * per gap), so the rate moves while long answers stream instead of
 * reading 0 until they end.
 */
static int64_t tokens_received(struct level_run *lr)
{
	int64_t n = lr->tokens;
	size_t k;

	while (lr->live_from < lr->issued && lr->results[lr->live_from].e2e_ns > 0)
		lr->live_from++;
	for (k = lr->live_from; k < lr->issued; k++) {
		const struct result *r = &lr->results[k];

		if (r->e2e_ns == 0 && r->ttft_ns >= 0)  /* in flight, streaming */
			n += 1 + (int64_t)r->n_itl;
	}
	return n;
}

/*
 * The live line on stderr, once a second: the warm-ups, then the level's
 * measured requests done of its total, the rates over the last second,
 * errors and the time left: an open loop's from its schedule, a closed
 * loop's from its rate since the warm-ups (the last second's rate made it
 * jump 96 -> 23 -> 45 s from one line to the next). On a terminal it
 * rewrites itself; elsewhere (--progress into a log) it prints a line
 * each time.
 */
static void print_progress(struct level_run *lr, int final)
{
	int64_t now = clock_now_ns(), tokens;
	double dt = (double)(now - lr->progress_ns) / NS_PER_S;
	size_t done = lr->finished > lr->warmup ? lr->finished - lr->warmup : 0;
	double req_s, tok_s, eta = -1, since;
	int tty = isatty(STDERR_FILENO);
	char name[32];

	if (!lr->show_progress)
		return;
	if (final) {
		if (tty)
			fprintf(stderr, "\r\033[K");
		return;
	}
	if (dt <= 0)
		return;
	tokens = tokens_received(lr);
	req_s = (double)(lr->finished - lr->progress_finished) / dt;
	tok_s = tokens > lr->progress_tokens ? (double)(tokens - lr->progress_tokens) / dt : 0;
	since = lr->measure_ns ? (double)(now - lr->measure_ns) / NS_PER_S : 0;
	if (lr->sched && lr->n && lr->sched_origin_ns)   /* the schedule says when it ends */
		eta = (double)(lr->sched[lr->n - 1] - (now - lr->sched_origin_ns)) / NS_PER_S;
	else if (!lr->sched && done > 0 && since > 0)
		eta = (double)(lr->n - done) * since / (double)done;
	if (lr->sched)
		fprintf(stderr, "%sopen loop", tty ? "\r\033[K" : "");
	else
		fprintf(stderr, "%s%s", tty ? "\r\033[K" : "",
			load_name(lr->level, name, sizeof(name)));
	if (lr->finished < lr->warmup)
		fprintf(stderr, "  warm-up %zu/%zu", lr->finished, lr->warmup);
	else
		fprintf(stderr, "  %zu/%zu done", done, lr->n);
	fprintf(stderr, "  %.1f req/s  %.0f tok/s  %zu in flight  %zu errors",
		req_s, tok_s, lr->in_flight, lr->errors);
	if (eta >= 0)
		fprintf(stderr, "  ETA %.0f s", eta);
	if (!tty)
		fputc('\n', stderr);
	lr->progress_ns = now;
	lr->progress_finished = lr->finished;
	lr->progress_tokens = tokens;
}

/*
 * A finished request's record is written (result_to_json, then handed to
 * the results file, whose own thread compresses it at idle priority:
 * zlib, most of the some 60 µs of a 100-token record, stays off this loop
 * and off the cores the loop and the server need; lib/tracefile.h) out of
 * the way of the measuring: write_ev has the loop's lowest priority, so
 * it runs in a pass with no socket, timer or signal event to serve,
 * WRITE_BATCH records at a time. When a closed loop's wave of C requests
 * ends at once, the next wave goes out and its first tokens are read
 * before those C records are written, not after. The once-a-second tick
 * writes whatever still waits and asks the file's thread for a flush,
 * waiting only for the one it asked a second before (long done, as a
 * rule): every request its progress line counts is on disk by the next
 * line, and a killed replay loses the last two seconds at most.
 */
#define WRITE_BATCH 8

/* The results file cannot take more: says why once and stops the run. */
static void write_failed(struct level_run *lr, const char *why)
{
	if (!lr->write_failed)
		fprintf(stderr, "\ntracebench replay: %s\n", why);
	lr->write_failed = 1;
	level_stop_own();
}

/* Writes the oldest n of the unwritten records (drops them once a write
 * has failed). */
static void write_records(struct level_run *lr, size_t n)
{
	for (; n > 0 && lr->n_unwritten > 0; n--, lr->n_unwritten--) {
		const struct result *r = lr->unwritten[lr->unwritten_head++];
		cJSON *rec;

		if (lr->write_failed)
			continue;
		if (!(rec = result_to_json(r)))
			write_failed(lr, "out of memory");
		else if (tracefile_writer_append(lr->out, rec) < 0)
			write_failed(lr, tracefile_writer_error(lr->out));
		cJSON_Delete(rec);
	}
	if (lr->n_unwritten == 0)
		lr->unwritten_head = 0;
}

void level_on_write(evutil_socket_t fd, short events, void *arg)
{
	struct level_run *lr = arg;

	(void)fd;
	(void)events;
	write_records(lr, WRITE_BATCH);
	if (lr->n_unwritten)
		event_active(lr->write_ev, 0, 0);
}

/* Counts a finished request and queues its record (r stays in
 * lr->results until the level's end writes what is left). */
void level_record_done(struct level_run *lr, struct result *r)
{
	lr->in_flight--;
	lr->finished++;
	if (result_ok(r)) {
		lr->tokens += r->output_tokens;
	} else if (result_cancelled(r)) {
		lr->cancelled++;        /* by intent: no failure */
		lr->tokens += r->output_tokens;
	} else {
		lr->errors++;
		if (lr->failures)
			failures_note(lr->failures, r);
	}
	lr->unwritten[lr->unwritten_head + lr->n_unwritten++] = r;
	if (lr->n_unwritten == 1)
		event_active(lr->write_ev, 0, 0);
}

/* A scrape's record (replay/scrape.h): into the file like a request's. */
void level_on_metrics(void *ctx, const cJSON *rec)
{
	struct level_run *lr = ctx;

	write_records(lr, lr->n_unwritten);     /* the file in the order things happened */
	if (tracefile_writer_append(lr->out, rec) < 0)
		write_failed(lr, tracefile_writer_error(lr->out));
}

void level_on_done(void *ctx, struct result *r)
{
	struct level_run *lr = ctx;

	level_record_done(lr, r);
	level_issue(lr);
}

/* Open loop: whether the k-th scheduled send is due (its time in *due,
 * from the level's first look at the clock); if not, the due timer is
 * armed for it. */
int level_sched_due(struct level_run *lr, size_t k, int64_t *due)
{
	int64_t now = clock_now_ns();

	if (!lr->sched_origin_ns)
		lr->sched_origin_ns = now;
	*due = lr->sched_origin_ns + lr->sched[k];
	if (*due > now) {
		struct timeval tv = {
			.tv_sec = (time_t)((*due - now) / NS_PER_S),
			.tv_usec = (suseconds_t)((*due - now) % NS_PER_S / 1000),
		};

		evtimer_add(lr->due_timer, &tv);
		return 0;
	}
	return 1;
}

/*
 * Picks the next request to send now, or returns NULL when it must wait:
 * for a free slot (closed loop, or the open loop's cap), for the warm-ups
 * to finish, or for its scheduled time (then the due timer is armed).
 * Sets *start_ns to the instant its latencies count from (-1: when sent).
 */
static const struct prepared *next_request(struct level_run *lr, int64_t *start_ns,
					   size_t *pass)
{
	size_t k, q;
	int64_t due;

	*start_ns = -1;
	if (lr->issued < lr->warmup) {
		*pass = lr->issued / lr->n_reqs;
		return lr->in_flight ? NULL : &lr->reqs[lr->issued % lr->n_reqs];
	}
	if (lr->finished < lr->warmup)
		return NULL;
	k = lr->issued - lr->warmup;
	if (!lr->sched) {
		if (lr->in_flight >= lr->cap)
			return NULL;
		q = lr->first + k;
	} else {
		if (!level_sched_due(lr, k, &due))
			return NULL;
		if (lr->max_concurrency && lr->in_flight >= lr->max_concurrency)
			return NULL;    /* latency still counts from 'due': the wait is the server's */
		*start_ns = due;
		q = lr->first + lr->req_index[k];
	}
	*pass = q / lr->n_reqs;
	return &lr->reqs[q % lr->n_reqs];
}


/*
 * The salt of request p, sent in pass 'pass' over the trace: the level's
 * tag ("c4r1", "o", "o3r0", "w"; ".2" added for the third pass), after
 * eight hex digits keyed on the run's seed, that tag and the head of p's
 * prompt (body_prompt_head): "9c41e07a-c4r1". Requests whose prompts begin
 * alike share a salt, so the prefix the trace gives them stays shared;
 * the rest differ from the salt's first byte, so no salt is a prefix the
 * server finds cached (an 11-token salt shared by a whole level read as
 * 6% cache hits on a trace that shares nothing). "" when unsalted.
 */
#define SALT_HEAD 64     /* bytes of prompt keyed: about 16 tokens, a vLLM block */

void level_request_salt(const struct level_run *lr, const struct prepared *p, int warmup,
			 size_t pass, char *buf, size_t len)
{
	const char *tag = warmup ? lr->warmup_salt : lr->salt;
	char full[RESULT_SALT_MAX];
	size_t head, i;
	uint64_t h = 0xcbf29ce484222325ULL ^ lr->salt_seed;

	buf[0] = '\0';
	if (!tag[0] || !p->salt_ok)
		return;
	/* a tag is some 10 bytes: none is cut (a cut one would still differ) */
	if (snprintf(full, sizeof(full), pass ? "%s.%zu" : "%s", tag, pass) < 0)
		return;
	head = body_prompt_head(p->body, p->body_len, p->salt_off, SALT_HEAD);
	for (i = 0; full[i]; i++)
		h = (h ^ (unsigned char)full[i]) * 0x100000001b3ULL;
	for (i = 0; i < head; i++)
		h = (h ^ (unsigned char)p->body[p->salt_off + i]) * 0x100000001b3ULL;
	h ^= h >> 33;           /* FNV-1a's low bits mix poorly: fold */
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	if (snprintf(buf, len, "%08x-%s", (unsigned)(h & 0xffffffffu), full) < 0)
		buf[0] = '\0';
}

/* The level-start scrape is in: the level begins. */
static void on_window_start(void *ctx)
{
	struct level_run *lr = ctx;

	lr->window = WINDOW_OPEN;
	level_issue(lr);
}

/* --start-at: the level-start scrape is in; the level did not wait for it. */
static void on_window_asked(void *ctx)
{
	(void)ctx;
}

/* The level-end scrape is in: run_level goes on. */
static void on_window_end(void *ctx)
{
	struct level_run *lr = ctx;

	event_base_loopbreak(client_base(lr->client));
}

/* One scraper's boundary scrape is in; the level goes on once all are. */
static void on_edge_one(void *ctx)
{
	struct level_run *lr = ctx;

	if (lr->edge_pending && --lr->edge_pending == 0)
		lr->edge_done(lr);
}

/*
 * A boundary scrape (at a level's start or end) from every scraper, on
 * the same schedule, so that each source's counters run over the same
 * window; done(lr) once all are in. Returns 0, or -1 when none could be
 * asked for (done will not be called).
 */
static int window_edge(struct level_run *lr, enum scrape_at at, scrape_done_fn done)
{
	size_t i;

	lr->edge_done = done;
	lr->edge_pending = 0;
	for (i = 0; i < lr->n_scrapes; i++)
		lr->edge_pending++;
	/* counted first: a scraper's done comes on the loop, never from here */
	for (i = 0; i < lr->n_scrapes; i++)
		if (scrape_boundary(lr->scrapes[i], at, on_edge_one, lr) < 0)
			lr->edge_pending--;
	return lr->edge_pending ? 0 : -1;
}

/* Every scraper's level, repeat and whether its interval scrapes are in it. */
static void scrapes_set_level(struct level_run *lr, struct load load, long repeat, int inside)
{
	size_t i;

	for (i = 0; i < lr->n_scrapes; i++)
		scrape_set_level(lr->scrapes[i], load_code(load), repeat, inside);
}

/* The start scrape asked ahead of the anchor is in: until the level
 * starts, interval scrapes are between levels. */
static void on_window_ahead(void *ctx)
{
	struct level_run *lr = ctx;

	if (lr->window_ahead)
		scrapes_set_level(lr, lr->ahead_level, 0, 0);
}

void level_window_ahead(struct level_run *lr, struct load load)
{
	lr->ahead_level = load;
	scrapes_set_level(lr, load, 0, 0);
	lr->window_ahead = window_edge(lr, SCRAPE_AT_LEVEL_START, on_window_ahead) == 0;
}

/*
 * Whether level_issue() must wait for the level-start scrape: asks for it once
 * the warm-ups are over, and holds the level's first request until it is
 * in (on_window_start). Its wait (a scrape's latency) comes before the
 * level's clock starts.
 */
static int window_holds(struct level_run *lr)
{
	if (lr->window == WINDOW_STARTING)
		return 1;
	if (lr->window != WINDOW_WANTED || lr->finished < lr->warmup || lr->in_flight ||
	    level_stop)
		return 0;
	/* a level anchored by --start-at keeps its schedule: the start scrape
	 * is asked for as its warm-ups end, ahead of the anchor, not waited for */
	lr->window = lr->anchor_ns ? WINDOW_OPEN : WINDOW_STARTING;
	if (window_edge(lr, SCRAPE_AT_LEVEL_START,
			lr->anchor_ns ? on_window_asked : on_window_start) < 0) {
		lr->window = WINDOW_NONE;       /* cannot be: one boundary at a time */
		return 0;
	}
	return !lr->anchor_ns;
}

/*
 * The host's own condition (lib/hostload.h) at the level's start (its
 * warm-ups over) or end: a "metrics" record of source host_source, written
 * like a scrape's, so a level's CPU busy and steal shares come from the
 * two as a server's counters do. Read at once (tens of microseconds);
 * nothing is read inside the level. The start also starts replay's watch
 * of itself (replay/watch.h), and the end adds what it saw and the bound
 * it gives to the record (lib/clientbound.h).
 */
static void host_edge(struct level_run *lr, enum scrape_at at)
{
	char text[HOSTLOAD_TEXT_MAX + CLIENTBOUND_TEXT_MAX];
	int64_t t0 = clock_now_ns();
	int n;
	cJSON *rec;

	if (!lr->host_source || !(lr->n || lr->n_sessions))
		return;         /* none, or a round of warm-ups only */
	n = lr->bound_only ? 0 : hostload_read(text, HOSTLOAD_TEXT_MAX);
	if (at == SCRAPE_AT_LEVEL_START) {
		if (!lr->no_watch)
			watch_start(&lr->watch, lr->client);
		if (lr->bound_only) {   /* the host's counters are the first worker's */
			lr->host_started = 1;
			return;
		}
	} else {
		int k;

		lr->client_known = watch_stop(&lr->watch, lr->results, lr->issued,
					      lr->warm.fastest_ns, &lr->client_w,
					      &lr->client_b) == 0;
		if (lr->client_known && n >= 0 &&
		    (k = clientbound_format(&lr->client_w, &lr->client_b, text + n,
					    CLIENTBOUND_TEXT_MAX)) > 0)
			n += k;
		if (lr->bound_only && n == 0) {        /* nothing measured: nothing said */
			lr->host_started = 0;
			return;
		}
	}
	rec = scrape_record(lr->host_source, t0 - lr->origin_ns, load_code(lr->level), lr->repeat,
			    at, clock_now_ns() - t0, n < 0 ? 0 : 200,
			    n < 0 ? "cannot read /proc/stat" : NULL, n < 0 ? "" : text,
			    n < 0 ? 0 : (size_t)n);
	if (rec)
		level_on_metrics(lr, rec);
	cJSON_Delete(rec);
	lr->host_started = at == SCRAPE_AT_LEVEL_START;
}

void level_choose_cancel(const struct level_run *lr, struct result *r, size_t pass)
{
	const struct cancel_spec *c = lr->cancel;

	if (!c || r->warmup || !cancel_chosen(c, lr->cancel_seed, r->trace_id, pass))
		return;
	cancel_after_text(c, r->cancel, sizeof(r->cancel));
}

struct result *level_begin_request(struct level_run *lr, const struct prepared *p, size_t pass,
				   int warmup)
{
	struct result *r = &lr->results[lr->issued++];

	r->level = load_code(lr->level);
	r->rate = lr->level.kind == LOAD_RATE ? lr->level.rate : 0;
	r->repeat = lr->repeat;
	r->seq = (*lr->seq)++;
	r->trace_id = p->req.id;
	result_set_model(r, p->model);
	r->warmup = warmup;
	r->input_tokens = p->req.input_tokens;
	level_choose_cancel(lr, r, pass);
	if (++lr->in_flight > lr->peak_in_flight)
		lr->peak_in_flight = lr->in_flight;
	return r;
}

int level_salted_body(const struct level_run *lr, const struct prepared *p, int warmup,
		      size_t pass, struct result *r, char **out, size_t *len)
{
	char text[RESULT_SALT_MAX + 1], salt[RESULT_SALT_MAX];

	*out = NULL;
	*len = p->body_len;
	level_request_salt(lr, p, warmup, pass, salt, sizeof(salt));
	if (!salt[0])
		return 0;
	snprintf(text, sizeof(text), "%s ", salt);
	if (body_insert(p->body, p->body_len, p->salt_off, text, out, len) < 0)
		return -1;
	snprintf(r->salt, sizeof(r->salt), "%s", salt);
	return 0;
}

int level_send(struct level_run *lr, const struct prepared *p, struct result *r, const char *why,
	       const char *body, size_t len, struct meter_answer *keep, int64_t start_ns,
	       client_done_fn done, void *ctx)
{
	/* --cancel chose it (level_begin_request): its point */
	int cut = r->cancel[0] && lr->cancel;
	struct client_ask ask = {
		.cancel_after_ns = cut ? lr->cancel->after_ns : 0,
		.cancel_tokens = cut ? (long)lr->cancel->tokens : 0,
		.keep = keep,
	};

	if (!why && client_start(lr->client, p->req.method, p->req.path, p->headers,
				 p->n_headers, body, len, r, lr->origin_ns, start_ns, &ask, done,
				 ctx) == 0)
		return 0;
	result_set_error(r, RESULT_ERR_TRANSFER, why ? why : "libcurl refused the request");
	level_record_done(lr, r);
	return -1;
}

/* Starts what may start now; ends the loop when the level is over. */
void level_issue(struct level_run *lr)
{
	size_t total = lr->warmup + lr->n;
	const struct prepared *p;
	size_t pass;
	int64_t start_ns;

	if (window_holds(lr))
		return;
	if (!lr->measure_ns && lr->finished >= lr->warmup) {
		host_edge(lr, SCRAPE_AT_LEVEL_START);
		lr->measure_ns = clock_now_ns();        /* the warm-ups are over */
	}
	if (lr->sessions) {
		sessions_issue(lr);
		return;
	}
	while (!level_stop && lr->issued < total && (p = next_request(lr, &start_ns, &pass))) {
		int warmup = lr->issued < lr->warmup;
		struct result *r = level_begin_request(lr, p, pass, warmup);
		char **b = &lr->bodies[lr->issued - 1];
		size_t body_len;
		int salted = level_salted_body(lr, p, warmup, pass, r, b, &body_len);

		level_send(lr, p, r, salted < 0 ? "out of memory" : NULL, *b ? *b : p->body,
			   body_len, NULL, start_ns, level_on_done, lr);
	}
	if (lr->in_flight == 0 && (lr->issued == total || level_stop))
		event_base_loopbreak(client_base(lr->client));
}

void level_on_due(evutil_socket_t fd, short events, void *arg)
{
	(void)fd;
	(void)events;
	level_issue(arg);
}

/* Writes the records that wait and flushes the results file: waiting
 * for it ('wait'), or as the tick does (tracefile_writer_flush_soon). */
static void flush_results(struct level_run *lr, int wait)
{
	write_records(lr, lr->n_unwritten);
	if ((wait ? tracefile_writer_flush(lr->out) : tracefile_writer_flush_soon(lr->out)) < 0)
		write_failed(lr, tracefile_writer_error(lr->out));
}

void level_on_tick(evutil_socket_t fd, short events, void *arg)
{
	struct level_run *lr = arg;

	(void)fd;
	(void)events;
	flush_results(lr, 0);
	print_progress(lr, 0);
}

void level_on_signal(evutil_socket_t sig, short events, void *arg)
{
	struct level_run *lr = arg;

	(void)events;
	signals_seen++;
	if (level_stop == LEVEL_RUNNING)
		level_stop = (int)sig;
	if (signals_seen == 1) {
		fprintf(stderr, "\ntracebench replay: stopping: waiting for %zu request%s in flight "
			"(signal again to cancel %s)\n", lr->in_flight, lr->in_flight == 1 ? "" : "s",
			lr->in_flight == 1 ? "it" : "them");
		if (lr->in_flight == 0)
			event_base_loopbreak(client_base(lr->client));
	} else {
		client_cancel_all(lr->client);
	}
}

/* Open loop: how closely the sends kept to the schedule, on stderr. */
void level_print_schedule_accuracy(const struct replay_options *o, const struct level_run *lr)
{
	double *lag = malloc((lr->n ? lr->n : 1) * sizeof(double));
	int64_t first = INT64_MAX, last = INT64_MIN, first_sched = INT64_MAX, last_sched = 0;
	size_t i, n = 0;

	if (!lag)
		return;
	for (i = lr->warmup; i < lr->issued; i++) {
		const struct result *r = &lr->results[i];

		if (r->send_ns < first)
			first = r->send_ns;
		if (r->send_ns > last)
			last = r->send_ns;
		if (r->sched_ns > last_sched)
			last_sched = r->sched_ns;
		if (r->sched_ns < first_sched)
			first_sched = r->sched_ns;
		lag[n++] = (double)(r->send_ns - r->sched_ns) / NS_PER_MS;
	}
	stats_sort(lag, n);
	/*
	 * A Poisson or gamma schedule's own rate differs from the target by
	 * chance; what the sender controls is keeping to the schedule, so the
	 * achieved rate is shown beside both.
	 */
	if (n >= 2 && last > first && last_sched > first_sched) {
		double achieved = (double)(n - 1) * NS_PER_S / (double)(last - first);
		double scheduled = (double)(n - 1) * NS_PER_S / (double)(last_sched - first_sched);

		fprintf(stderr, "open loop (%s): ", arrival_name(o->sched.arrival));
		if (o->sched.arrival != ARRIVAL_TRACE)
			fprintf(stderr, "target %.2f req/s, ", o->sched.rate /
				(o->shard_n > 1 ? (double)o->shard_n : 1.0));
		fprintf(stderr, "scheduled %.2f req/s, achieved %.2f req/s; "
			"send lag P50 %.3f ms, P99 %.3f ms, max %.3f ms\n", scheduled, achieved,
			stats_percentile(lag, n, 50), stats_percentile(lag, n, 99), lag[n - 1]);
	}
	free(lag);
}

/* Runs one level (or the open-loop run) to its end or to a stop. */
int level_run_to_end(struct level_run *lr, struct level_summary *s)
{
	struct event_base *base = client_base(lr->client);
	size_t k;

	lr->issued = lr->finished = lr->in_flight = lr->errors = 0;
	lr->tokens = lr->progress_tokens = 0;
	lr->progress_finished = lr->live_from = 0;
	lr->measure_ns = 0;
	lr->sched_origin_ns = lr->anchor_ns;
	/* At least one: a worker sitting a level out sends nothing, and
	 * calloc(0) may return NULL, which would read as out of memory. */
	lr->results = calloc(lr->warmup + lr->n > 0 ? lr->warmup + lr->n : 1, sizeof(*lr->results));
	lr->unwritten = calloc(lr->warmup + lr->n > 0 ? lr->warmup + lr->n : 1, sizeof(struct result *));
	lr->unwritten_head = lr->n_unwritten = 0;
	lr->bodies = calloc(lr->warmup + lr->n > 0 ? lr->warmup + lr->n : 1, sizeof(*lr->bodies));
	lr->sessions_started = lr->sessions_done = 0;
	lr->wait_head = lr->wait_tail = NULL;
	lr->sruns = lr->sessions ? calloc(lr->n_sessions + 1, sizeof(*lr->sruns)) : NULL;
	if (!lr->results || !lr->unwritten || !lr->bodies || (lr->sessions && !lr->sruns))
		return -1;
	for (k = 0; k < lr->warmup + lr->n; k++)
		result_init(&lr->results[k]);
	/*
	 * The level's connections are opened before its clock starts, so no
	 * measured request pays for TCP or TLS set-up: as many as will be in
	 * flight at once (closed loop: C, or this worker's share; open loop:
	 * --max-concurrency).
	 */
	memset(&lr->warm, 0, sizeof(lr->warm));
	lr->warm.fastest_ns = -1;
	if (lr->connections && client_warm(lr->client, lr->connections, &lr->warm) < 0)
		return -1;
	lr->progress_ns = clock_now_ns();
	/*
	 * The level's window: a scrape at its start and at its end (in a
	 * level anchored by --start-at, the start one not waited for: see
	 * window_holds). Not in a level of warm-ups only.
	 */
	lr->window = lr->n_scrapes && (lr->n || lr->n_sessions) ? WINDOW_WANTED : WINDOW_NONE;
	if (lr->window == WINDOW_WANTED && lr->window_ahead)
		lr->window = WINDOW_OPEN;       /* its start scrape is in, or on its way */
	lr->window_ahead = 0;
	scrapes_set_level(lr, lr->level, lr->repeat, lr->window != WINDOW_WANTED);
	level_issue(lr);
	if (lr->in_flight || evtimer_pending(lr->due_timer, NULL) ||
	    (lr->sessions && sessions_active(lr)) || lr->window == WINDOW_STARTING)
		event_base_dispatch(base);
	/* after the last answer: the level-end scrape, the loop run until it is in */
	if (lr->window == WINDOW_OPEN && !level_stop && !lr->edge_pending &&
	    window_edge(lr, SCRAPE_AT_LEVEL_END, on_window_end) == 0)
		event_base_dispatch(base);
	scrapes_set_level(lr, lr->level, lr->repeat, 0);
	lr->window = WINDOW_NONE;
	if (lr->host_started)
		host_edge(lr, SCRAPE_AT_LEVEL_END);
	if (lr->watch.probe) {      /* a level of warm-ups only: nothing to say */
		struct clientbound_watch w;
		struct clientbound b;

		watch_stop(&lr->watch, NULL, 0, -1, &w, &b);
	}
	evtimer_del(lr->due_timer);
	/* stopped: the sessions still thinking end here */
	for (k = 0; lr->sruns && k < lr->sessions_started; k++)
		session_end(&lr->sruns[k]);
	event_del(lr->write_ev);
	/* On disk before the next level, which may be another side's file
	 * (A/B) and whose first tick is a second away: its row below says
	 * its records are safe. */
	flush_results(lr, 1);
	print_progress(lr, 1);
	summary_compute(lr->results, lr->finished, lr->level, NULL, s);
	return 0;
}

void level_free_results(struct level_run *lr)
{
	size_t k;

	for (k = 0; lr->results && k < lr->warmup + lr->n; k++)
		result_release(&lr->results[k]);
	for (k = 0; lr->bodies && k < lr->warmup + lr->n; k++)
		free(lr->bodies[k]);
	free(lr->results);
	free(lr->unwritten);
	free(lr->bodies);
	lr->results = NULL;
	lr->unwritten = NULL;
	lr->bodies = NULL;
	free(lr->sruns);
	lr->sruns = NULL;
}
