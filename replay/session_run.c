/*
 * session_run.c - the sessions engine of replay: a session's turns go out
 * one at a time, each due when the one before has ended plus its think
 * time, with the answers so far in its history (replay/session.h). See
 * level.h.
 */
#include "replay/level.h"
#include "replay/body.h"
#include "replay/client.h"
#include "replay/failures.h"
#include "lib/clock.h"
#include "lib/stats.h"
#include "lib/summary.h"
#include "lib/trace.h"
#include "lib/tracefile.h"
#include "lib/typed.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The trace request of turn 'turn' of session e. */
static const struct prepared *session_turn(const struct level_run *lr,
					   const struct session_entry *e, size_t turn)
{
	return &lr->reqs[lr->sessions->turns[e->first + turn]];
}

/* Ends a session: its answers and timer go, its place frees. */
void session_end(struct session_run *sr)
{
	size_t i;

	for (i = 0; sr->answers && i < sr->next; i++)
		meter_answer_release(&sr->answers[i]);
	free(sr->answers);
	sr->answers = NULL;
	free(sr->body);
	sr->body = NULL;
	if (sr->timer)
		event_free(sr->timer);
	sr->timer = NULL;
	if (sr->active) {
		sr->active = 0;
		sr->lr->sessions_done++;
	}
}

static void on_turn_done(void *ctx, struct result *r);

/*
 * Sends the next turn of sr, its latencies counted from start_ns (-1: the
 * send). Its history gets the answers so far. Returns 0, or -1 when the
 * turn could not start (recorded as failed; the session is over).
 */
static int session_send(struct session_run *sr, int64_t start_ns)
{
	struct level_run *lr = sr->lr;
	const struct prepared *p = session_turn(lr, sr->e, sr->next);
	/* the turns of a session begin alike: they share a salt, and a prefix */
	struct result *r = level_begin_request(lr, p, sr->pass, 0);
	char *salted = NULL;
	size_t salted_len = p->body_len, body_len = p->body_len;
	const char *body = p->body;
	struct meter_answer *keep;
	int fill = SESSION_ENOMEM;

	r->session = sr->e->id;
	r->turn = sr->e->id >= 0 ? (long)sr->next : -1;
	if (level_salted_body(lr, p, 0, sr->pass, r, &salted, &salted_len) == 0) {
		const char *src = salted ? salted : p->body;
		int chain = lr->chain && typed_api_of_kind(p->req.kind) == TYPED_RESPONSES;
		const char *prev = chain && sr->next ? sr->answers[sr->next - 1].response_id : NULL;

		if (prev)       /* the server holds the history: nothing to fill */
			fill = session_chain_body(src, salted_len, prev, &sr->body, &body_len);
		else
			fill = sr->next ? session_fill_body(src, salted_len, sr->answers, sr->next,
							    &sr->body, &body_len) : SESSION_ASIS;
		lr->chain_unlinked += chain && !prev && sr->next;   /* no id: its history goes */
		if (fill == SESSION_FILLED) {
			body = sr->body;
			free(salted);
		} else {
			sr->body = salted;     /* NULL: unsalted, the prepared body */
			body = src;
			body_len = salted_len;
		}
	}
	/* its answer is kept where the next turn's history reads it */
	keep = sr->next + 1 < sr->e->n_turns ? &sr->answers[sr->next] : NULL;
	sr->next++;
	if (level_send(lr, p, r, fill == SESSION_ENOMEM ? "out of memory filling the history" :
		       NULL, body, body_len, keep, start_ns, on_turn_done, sr) == 0)
		return 0;
	session_end(sr);
	return -1;
}

/* True when open loop's --max-concurrency holds what is due now. */
static int held(const struct level_run *lr)
{
	return lr->sched && lr->max_concurrency && lr->in_flight >= lr->max_concurrency;
}

/* The think time is over: the next turn is due. Under --max-concurrency
 * with the cap reached it waits, first in line for a free place (its
 * latencies still count from when it was due). */
static void on_think(evutil_socket_t fd, short events, void *arg)
{
	struct session_run *sr = arg;
	struct level_run *lr = sr->lr;

	(void)fd;
	(void)events;
	if (level_stop) {
		session_end(sr);
		level_issue(lr);
		return;
	}
	if (held(lr)) {
		sr->wait_next = NULL;
		if (lr->wait_tail)
			lr->wait_tail->wait_next = sr;
		else
			lr->wait_head = sr;
		lr->wait_tail = sr;
		return;
	}
	if (session_send(sr, sr->due_ns) < 0)
		level_issue(lr);
}

/*
 * A turn ended. A failed one ends its session (its record carries the
 * class); else the answer goes into the history and the next turn is due
 * after its think time, counted from now.
 */
static void on_turn_done(void *ctx, struct result *r)
{
	struct session_run *sr = ctx;
	struct level_run *lr = sr->lr;
	int64_t think;
	struct timeval tv;

	level_record_done(lr, r);
	free(sr->body);
	sr->body = NULL;
	if (!result_ok(r) || level_stop || sr->next >= sr->e->n_turns) {
		session_end(sr);
		level_issue(lr);
		return;
	}
	think = session_turn(lr, sr->e, sr->next)->req.think_ns;
	/*
	 * Counted from now, not from the loop pass's cached time: libevent adds
	 * a timer to the time it cached when the pass began, and on a busy
	 * host a long pass made the turn leave before it was due. The
	 * microseconds round up, so it never fires before due_ns.
	 */
	event_base_update_cache_time(client_base(lr->client));
	sr->due_ns = clock_now_ns() + think;
	think += 999;
	tv.tv_sec = (time_t)(think / NS_PER_S);
	tv.tv_usec = (suseconds_t)(think % NS_PER_S / 1000);
	if (!sr->timer || evtimer_add(sr->timer, &tv) < 0) {
		fprintf(stderr, "\ntracebench replay: out of memory\n");
		level_stop_own();
		session_end(sr);
	}
	level_issue(lr);     /* an open loop's first turns may wait for room */
}

/* Starts the session at position q (make_salt) as the level's next one,
 * its first turn due at start_ns (-1: now). Returns 0, or -1 when out of
 * memory. */
static int session_start(struct level_run *lr, size_t q, int64_t start_ns)
{
	struct session_run *sr = &lr->sruns[lr->sessions_started++];
	const struct session_entry *e = &lr->sessions->s[q % lr->sessions->n];

	memset(sr, 0, sizeof(*sr));
	sr->lr = lr;
	sr->e = e;
	sr->pass = q / lr->sessions->n;
	sr->active = 1;
	sr->answers = calloc(e->n_turns, sizeof(*sr->answers));
	sr->timer = evtimer_new(client_base(lr->client), on_think, sr);
	if (!sr->answers || !sr->timer) {
		session_end(sr);
		return -1;
	}
	session_send(sr, start_ns);
	return 0;
}

/* Sessions in flight: the closed loop's C, or all that the open loop started. */
size_t sessions_active(const struct level_run *lr)
{
	return lr->sessions_started - lr->sessions_done;
}

/*
 * Session mode's level_issue(): warm-ups first (the first turns of sessions, one
 * at a time); then closed loop keeps C sessions in flight, open loop starts
 * each session at its scheduled instant. Later turns leave from their think
 * timers. Ends the loop when every session of the level is over.
 */
void sessions_issue(struct level_run *lr)
{
	const struct session_set *set = lr->sessions;

	/* warm-ups: the first turns of the first sessions, as requests of their own */
	while (!level_stop && lr->issued < lr->warmup && !lr->in_flight) {
		const struct session_entry *e = &set->s[lr->issued % set->n];
		const struct prepared *p = session_turn(lr, e, 0);
		size_t pass = lr->issued / set->n, len;
		char **b = &lr->bodies[lr->issued];
		struct result *r = level_begin_request(lr, p, pass, 1);
		int salted = level_salted_body(lr, p, 1, pass, r, b, &len);

		if (level_send(lr, p, r, salted < 0 ? "out of memory" : NULL, *b ? *b : p->body, len,
			       NULL, -1, level_on_done, lr) == 0)
			return;
	}
	if (lr->finished < lr->warmup && !level_stop)
		return;
	/* later turns held by --max-concurrency go before new sessions */
	while (!level_stop && lr->wait_head && !held(lr)) {
		struct session_run *sr = lr->wait_head;

		if (!(lr->wait_head = sr->wait_next))
			lr->wait_tail = NULL;
		session_send(sr, sr->due_ns);
	}
	while (!level_stop && lr->sessions_started < lr->n_sessions) {
		size_t q;
		int64_t start_ns = -1;

		if (!lr->sched) {
			if (sessions_active(lr) >= lr->cap)
				break;
			q = lr->first + lr->sessions_started;
		} else {
			size_t k = lr->sessions_started;
			int64_t due;

			if (!level_sched_due(lr, k, &due))
				break;
			if (held(lr) || lr->wait_head)
				break;
			start_ns = due;
			q = lr->first + lr->req_index[k];
		}
		if (session_start(lr, q, start_ns) < 0) {
			fprintf(stderr, "\ntracebench replay: out of memory\n");
			level_stop_own();
		}
	}
	if (lr->in_flight == 0 &&
	    ((lr->sessions_started == lr->n_sessions && sessions_active(lr) == 0) || level_stop))
		event_base_loopbreak(client_base(lr->client));
}
