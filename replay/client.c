/*
 * client.c - concurrent streaming HTTP requests on libevent + libcurl multi;
 * see client.h.
 *
 * libcurl's multi handles run on the libevent loop through lib/curlev.c,
 * which reports each finished transfer to finish(). Response bytes arrive
 * in on_data, where they are stamped with the clock and handed to the
 * request's transfer (lib/transfer.h), whose meter updates its struct
 * result on the spot.
 */
#include "client.h"
#include "lib/clock.h"
#include "lib/curlev.h"
#include "lib/errmsg.h"
#include "lib/redact.h"
#include "lib/trace.h"
#include "lib/transfer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/time.h>
#include <curl/curl.h>

/* Values of the endpoints' URLs scrubbed from error details, at most. */
#define CLIENT_MAX_URL_SECRETS 16

/*
 * Connections one multi handle keeps, at most. To reuse a connection,
 * libcurl walks the list of the host's connections from its head, past
 * those in use: with one cache of C connections a request costs O(C) and
 * a first wave of C requests O(C^2), which at C = 1000 held the loop for
 * tens of milliseconds while tokens waited. Requests are spread over
 * several multi handles (shards) of at most this many connections each.
 */
#define CONNECTIONS_PER_SHARD 64

/* One multi handle on our loop, with its own cache of connections. */
struct shard {
	struct curlev *curlev;
	CURLM *multi;                     /* curlev's */
	size_t running;                   /* requests started on it, not ended */
	size_t opened;                    /* connections it holds, at most: the
					   * most requests it ran at once, up
					   * to its cache's size */
	size_t keeps;                     /* its cache's size */
};

struct client {
	struct event_base *base;
	struct shard *shards;
	size_t n_shards;
	struct client_options opt;
	struct transfer_options topt;     /* what every request is sent with */
	char *auth_header;                /* "Authorization: Bearer ...", or NULL */
	char *x_api_key_header;           /* "x-api-key: ...", or NULL */
	/* kept out of error details: the API key, then what redact_url takes
	 * out of the endpoints (userinfo, query values) that url_secrets owns */
	const char *secrets[2 + CLIENT_MAX_URL_SECRETS];
	size_t n_secrets;
	char *url_secrets[CLIENT_MAX_URL_SECRETS];
	size_t n_url_secrets;
	struct client_request *active;    /* doubly linked list of running requests */
	int warm_fresh;                   /* client_warm: open a new connection */
	/* per endpoint (an A/B run has two): the most connections its server
	 * held at once, when it held others back; 0 unknown */
	const char *held_endpoint[2];
	size_t held_limit[2];
	/* the loop's passes, for the read delay (on_data): the pass now
	 * running (libevent's time cached for it), the first and last stamps
	 * taken in it, and how long the one before was busy */
	int64_t pass_id, pass_first_ns, pass_last_ns, prev_busy_ns;
	/* ... and, while watched, how long the thread waited to run (runnable,
	 * not running: the kernel's run_delay, /proc/thread-self/schedstat)
	 * since the pass before began: bytes that came meanwhile waited so
	 * much more, and neither stamps nor the pass's age show it */
	struct clientbound_hist *token_reads;   /* client_watch_reads, or NULL */
	int schedstat_fd;                       /* -1: not watched, or no schedstat */
	int64_t run_delay_ns, pass_wait_ns;
};

struct client_request {
	struct client *client;
	struct shard *shard;     /* the multi handle it runs on */
	struct transfer t;       /* the request and its measured response */
	client_done_fn done;
	void *ctx;
	int64_t due_ns;          /* when it was due: its latencies count from it */
	struct event *cancel_timer;  /* --cancel after a time: its point, or NULL */
	struct client_request *prev, *next;
};

/* The calling thread's run_delay from its schedstat (fd open on
 * /proc/thread-self/schedstat): "<on cpu ns> <run_delay ns> <slices>".
 * -1 when it cannot be read. */
static int64_t run_delay_ns(int fd)
{
	char buf[96], *p, *end;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	long long v;

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strchr(buf, ' ');
	if (!p)
		return -1;
	v = strtoll(p + 1, &end, 10);
	return end > p + 1 && v >= 0 ? (int64_t)v : -1;
}

/*
 * Notes a stamp 'now' taken in the loop's current pass (one libevent
 * caches a time for; reading it is no system call): a new pass ends the
 * last one, whose busy span (first stamp to last) is kept, and, while
 * watched, takes the thread's wait to run since the last pass began (one
 * pread a pass).
 */
static void pass_mark(struct client *c, int64_t now)
{
	struct timeval tv;
	int64_t id;

	if (event_base_gettimeofday_cached(c->base, &tv) != 0)
		return;
	id = (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
	if (id != c->pass_id) {
		c->prev_busy_ns = c->pass_first_ns ? c->pass_last_ns - c->pass_first_ns : 0;
		c->pass_id = id;
		c->pass_first_ns = now;
		c->pass_wait_ns = 0;
		if (c->schedstat_fd >= 0) {
			int64_t d = run_delay_ns(c->schedstat_fd);

			if (d >= c->run_delay_ns && c->run_delay_ns >= 0)
				c->pass_wait_ns = d - c->run_delay_ns;
			c->run_delay_ns = d;
		}
	}
	c->pass_last_ns = now;
}

/* --cancel: records q as cut at its point (replay/cancel.h), 'what' the
 * kind of point ("tokens", "time"); the caller ends the transfer. */
static void cancel_here(struct client_request *q, const char *what)
{
	struct result *r = q->t.result;
	char detail[96];

	snprintf(detail, sizeof(detail), "cancelled by --cancel after %s (%s)",
		 r->cancel, what);
	result_set_error(r, RESULT_ERR_CANCELLED, detail);
}

/*
 * The read delay of bytes stamped now (lib/clientbound.h): how long the
 * loop's pass had run before it got to them (against libevent's time
 * cached when the pass began: one more read of the clock, a vDSO call),
 * how long the pass before it was busy, and how long the thread waited
 * to run since then, during which they may have waited unread. -1 when
 * libevent has no cached time.
 */
static int64_t read_delay(const struct client *c)
{
	struct timeval pass, wall;
	int64_t age;

	if (event_base_gettimeofday_cached(c->base, &pass) != 0 ||
	    gettimeofday(&wall, NULL) != 0)
		return -1;
	age = ((int64_t)wall.tv_sec - pass.tv_sec) * NS_PER_S +
	      ((int64_t)wall.tv_usec - pass.tv_usec) * 1000;
	return (age > 0 ? age : 0) + c->prev_busy_ns + c->pass_wait_ns;
}

/*
 * libcurl: response bytes, stamped with the clock the moment they arrive.
 * A response that cannot be measured any more stops the transfer, as does
 * --cancel's N-th token event (after its read delay is stamped). When
 * they carry the first token, its read delay is the request's; when they
 * carry any token and the level is watched, it is counted among the
 * token reads, whose stamps the gaps are made of.
 */
static size_t on_data(char *ptr, size_t size, size_t nmemb, void *userp)
{
	struct client_request *q = userp;
	struct result *r = q->t.result;
	size_t len = size * nmemb;
	int first = r->ttft_ns < 0, rc;
	int64_t now = clock_now_ns();
	long events = q->t.meter.token_events;

	pass_mark(q->client, now);
	rc = transfer_feed(&q->t, ptr, len, now);
	if (rc < 0)
		return 0;
	if (first && r->ttft_ns >= 0)
		r->read_ns = read_delay(q->client);
	if (q->client->token_reads && q->t.meter.token_events > events) {
		int64_t d = first && r->ttft_ns >= 0 ? r->read_ns : read_delay(q->client);

		if (d >= 0)
			clientbound_hist_add(q->client->token_reads, d);
	}
	if (rc == METER_STOPPED) {      /* --cancel's N-th token is in */
		cancel_here(q, "tokens");
		return 0;       /* libcurl aborts the transfer (CURLE_WRITE_ERROR) */
	}
	return len;
}

/* libcurl: the request's connection is ready and its bytes are about to
 * be written: the issue delay (lib/clientbound.h) ends here. */
static int on_prereq(void *userp, char *primary_ip, char *local_ip, int primary_port,
		     int local_port)
{
	struct client_request *q = userp;
	int64_t now = clock_now_ns(), d = now - q->due_ns;

	pass_mark(q->client, now);
	(void)primary_ip;
	(void)local_ip;
	(void)primary_port;
	(void)local_port;
	q->t.result->issue_ns = d > 0 ? d : 0;
	return CURL_PREREQFUNC_OK;
}

static void unlink_request(struct client *c, struct client_request *q)
{
	if (c->active == q)
		c->active = q->next;
	else if (q->prev)
		q->prev->next = q->next;
	if (q->next)
		q->next->prev = q->prev;
}

struct warm;
static void on_warm_done(void *ctx, struct result *r);
static void note_warm_socket(struct warm *w, CURL *easy);

/* Frees q. Releasing its transfer removes its easy handle: one removed
 * before its response ended has its connection closed by libcurl, never
 * put back in the cache, so no later request reads the rest of it. */
static void request_free(struct client_request *q)
{
	if (q->cancel_timer)
		event_free(q->cancel_timer);
	transfer_release(&q->t);
	free(q);
}

/* lib/curlev: q's transfer ended with 'code'. Completes its result and
 * hands it over; the pass was busy until the caller had taken it (its
 * record written, the next request sent), which a stamp then marks. */
static void finish(void *priv, CURLcode code)
{
	struct client_request *q = priv;
	struct client *c = q->client;
	struct result *r = q->t.result;
	client_done_fn done = q->done;
	void *ctx = q->ctx;
	int64_t now = clock_now_ns();

	pass_mark(c, now);
	transfer_finish(&q->t, code, now);
	if (done == on_warm_done)
		note_warm_socket(ctx, q->t.easy);
	q->shard->running--;
	unlink_request(c, q);
	request_free(q);
	done(ctx, r);
	pass_mark(c, clock_now_ns());
}

/* --cancel after a time: q's point has come. The transfer ends here, its
 * connection closed, and done() is called at once, so a closed loop's
 * slot goes to the next request in this pass of the loop. */
static void on_cancel_timer(evutil_socket_t fd, short what, void *arg)
{
	struct client_request *q = arg;

	(void)fd;
	(void)what;
	cancel_here(q, "time");
	finish(q, CURLE_ABORTED_BY_CALLBACK);
}

/* Arms what cancels q as ask says, if anything: a timer at its start
 * plus the time, or the meter's stop after N token events. Returns 0,
 * or -1 when out of memory. */
static int arm_cancel(struct client_request *q, const struct client_ask *ask, int64_t now)
{
	int64_t wait;
	struct timeval tv;

	if (ask->cancel_tokens > 0)
		q->t.meter.stop_tokens = ask->cancel_tokens;
	if (ask->cancel_after_ns <= 0)
		return 0;
	wait = q->due_ns + ask->cancel_after_ns - now;
	if (wait < 0)
		wait = 0;
	tv.tv_sec = (time_t)(wait / NS_PER_S);
	tv.tv_usec = (suseconds_t)((wait % NS_PER_S + 999) / 1000);
	if (tv.tv_usec >= 1000000) {
		tv.tv_sec++;
		tv.tv_usec -= 1000000;
	}
	q->cancel_timer = evtimer_new(q->client->base, on_cancel_timer, q);
	/* libevent adds a timer to the time cached when the loop's pass
	 * began, which may be well before 'now': from now, not early */
	event_base_update_cache_time(q->client->base);
	return q->cancel_timer && evtimer_add(q->cancel_timer, &tv) == 0 ? 0 : -1;
}

/* The multi handles: one per CONNECTIONS_PER_SHARD connections kept (one
 * for HTTP/2, whose one connection carries every stream). */
static int shards_new(struct client *c, const struct client_options *o)
{
	size_t keep = o->max_connections > 0 ? o->max_connections : 8;
	size_t i, per;

	c->n_shards = o->http2 ? 1 : (keep + CONNECTIONS_PER_SHARD - 1) / CONNECTIONS_PER_SHARD;
	per = (keep + c->n_shards - 1) / c->n_shards;
	c->shards = calloc(c->n_shards, sizeof(*c->shards));
	if (!c->shards)
		return -1;
	for (i = 0; i < c->n_shards; i++) {
		struct shard *sh = &c->shards[i];

		sh->curlev = curlev_new(c->base, finish);
		if (!sh->curlev)
			return -1;
		sh->multi = curlev_multi(sh->curlev);
		curl_multi_setopt(sh->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
		/* libcurl would size its cache of idle connections by the
		 * transfers running, closing those a level opened before it
		 * warmed them. */
		sh->keeps = per + 8;
		curl_multi_setopt(sh->multi, CURLMOPT_MAXCONNECTS, (long)sh->keeps);
	}
	return 0;
}

/*
 * The shard a new request runs on: one with an idle connection, the most
 * idle first; when every connection is busy, the shard with the fewest,
 * which opens one, so that shards grow evenly (a warm-up's round fills
 * them one after the other).
 */
static struct shard *pick_shard(struct client *c)
{
	struct shard *idle = NULL, *fewest = &c->shards[0];
	size_t i;

	for (i = 0; i < c->n_shards; i++) {
		struct shard *sh = &c->shards[i];

		if (sh->opened > sh->running &&
		    (!idle || sh->opened - sh->running > idle->opened - idle->running))
			idle = sh;
		if (sh->opened < fewest->opened)
			fewest = sh;
	}
	return idle ? idle : fewest;
}

/* ---- public API ------------------------------------------------------ */

static int client_endpoint_secrets(struct client *c, const char *endpoint);

struct client *client_new(const struct client_options *o, char *err, size_t errlen)
{
	struct event_config *cfg = NULL;
	struct client *c = calloc(1, sizeof(*c));

	if (!c) {
		errmsg_set(err, errlen, "out of memory");
		return NULL;
	}
	c->schedstat_fd = -1;
	c->opt = *o;
	c->topt.timeout_ms = o->timeout_ms;
	c->topt.connect_timeout_ms = o->connect_timeout_ms;
	c->topt.http2 = o->http2;
	c->topt.insecure = o->insecure;
	c->topt.max_event = c->topt.max_body = o->max_event ? o->max_event : SSE_DEFAULT_MAX_EVENT;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		errmsg_set(err, errlen, "cannot initialize libcurl");
		goto fail;
	}
	cfg = event_config_new();
	if (cfg)
		event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
	c->base = cfg ? event_base_new_with_config(cfg) : NULL;
	event_config_free(cfg);
	if (!c->base || event_base_priority_init(c->base, CLIENT_PRIORITY_IDLE + 1) < 0 ||
	    shards_new(c, o) < 0) {
		errmsg_set(err, errlen, "cannot set up the event loop");
		goto fail;
	}
	if (o->api_key && *o->api_key) {
		size_t len = strlen(o->api_key) + 32;

		c->auth_header = malloc(len);
		if (!c->auth_header) {
			errmsg_set(err, errlen, "out of memory");
			goto fail;
		}
		snprintf(c->auth_header, len, "Authorization: Bearer %s", o->api_key);
		c->secrets[c->n_secrets++] = c->auth_header + strlen("Authorization: Bearer ");
	}
	if (o->anthropic_key && *o->anthropic_key) {
		size_t len = strlen(o->anthropic_key) + 16;

		c->x_api_key_header = malloc(len);
		if (!c->x_api_key_header) {
			errmsg_set(err, errlen, "out of memory");
			goto fail;
		}
		snprintf(c->x_api_key_header, len, "x-api-key: %s", o->anthropic_key);
		c->secrets[c->n_secrets++] = c->x_api_key_header + strlen("x-api-key: ");
	}
	if (client_endpoint_secrets(c, o->endpoint)) {
		errmsg_set(err, errlen, "out of memory");
		goto fail;
	}
	return c;

fail:
	client_free(c);
	return NULL;
}

void client_free(struct client *c)
{
	size_t i;

	if (!c)
		return;
	while (c->active) {
		struct client_request *q = c->active;

		unlink_request(c, q);
		request_free(q);
	}
	for (i = 0; c->shards && i < c->n_shards; i++)
		curlev_free(c->shards[i].curlev);
	free(c->shards);
	if (c->base)
		event_base_free(c->base);
	if (c->schedstat_fd >= 0)
		close(c->schedstat_fd);
	free(c->auth_header);
	free(c->x_api_key_header);
	for (i = 0; i < c->n_url_secrets; i++)
		free(c->url_secrets[i]);
	free(c);
	curl_global_cleanup();
}

/* Adds what redact_url takes out of endpoint to the secrets scrubbed
 * from error details (an echoing server sends the query back). */
static int client_endpoint_secrets(struct client *c, const char *endpoint)
{
	size_t i, before = c->n_url_secrets;

	if (!endpoint)
		return 0;
	if (redact_url_values(endpoint, NULL, c->url_secrets, &c->n_url_secrets,
			      CLIENT_MAX_URL_SECRETS))
		return -1;
	for (i = before; i < c->n_url_secrets; i++)
		c->secrets[c->n_secrets++] = c->url_secrets[i];
	return 0;
}

int client_set_endpoint(struct client *c, const char *endpoint)
{
	c->opt.endpoint = endpoint;
	return client_endpoint_secrets(c, endpoint);
}

int64_t client_pass_mark(struct client *c, int64_t now_ns)
{
	pass_mark(c, now_ns);
	return read_delay(c);
}

int client_watch_reads(struct client *c, struct clientbound_hist *h)
{
	c->token_reads = h;
	if (h && c->schedstat_fd < 0)
		c->schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	else if (!h && c->schedstat_fd >= 0) {
		close(c->schedstat_fd);
		c->schedstat_fd = -1;
	}
	c->run_delay_ns = c->schedstat_fd >= 0 ? run_delay_ns(c->schedstat_fd) : -1;
	c->pass_wait_ns = 0;
	return c->run_delay_ns >= 0;
}

struct event_base *client_base(struct client *c)
{
	return c->base;
}

/* True when one of the n headers ("Name: value") is named 'name'. */
static int has_header(char *const *headers, size_t n, const char *name)
{
	size_t i, len = strlen(name);

	for (i = 0; i < n; i++)
		if (strncasecmp(headers[i], name, len) == 0 && headers[i][len] == ':')
			return 1;
	return 0;
}

/*
 * The headers that say who is asking: Anthropic's Messages API takes its
 * key as x-api-key and wants the API version it speaks (the one its
 * streams are documented in, unless the trace or -H names one); every
 * other request, and a Messages one without an Anthropic key (a gateway
 * such as vLLM's takes the Bearer token), the Bearer token.
 */
static int add_auth(struct client *c, struct transfer *t, const char *kind,
		    char *const *headers, size_t n_headers)
{
	if (strcmp(kind, TRACE_KIND_MESSAGES) != 0)
		return c->auth_header ? transfer_add_header(t, c->auth_header) : 0;
	if (!has_header(headers, n_headers, "anthropic-version") &&
	    transfer_add_header(t, "anthropic-version: " CLIENT_ANTHROPIC_VERSION) < 0)
		return -1;
	if (c->x_api_key_header)
		return transfer_add_header(t, c->x_api_key_header);
	return c->auth_header ? transfer_add_header(t, c->auth_header) : 0;
}

int client_start(struct client *c, const char *method, const char *path,
		 char *const *headers, size_t n_headers, const char *body, size_t body_len,
		 struct result *result, int64_t origin_ns, int64_t start_ns,
		 const struct client_ask *ask, client_done_fn done, void *ctx)
{
	static const struct client_ask none = { 0, 0, NULL };
	struct client_request *q = calloc(1, sizeof(*q));
	int64_t now = clock_now_ns();
	size_t i;
	int rc;

	if (!q)
		return -1;
	q->client = c;
	result->secrets = c->secrets;
	result->n_secrets = c->n_secrets;
	q->done = done;
	q->ctx = ctx;
	if (!ask)
		ask = &none;
	if (start_ns < 0)
		start_ns = now;
	q->due_ns = start_ns;
	rc = transfer_init(&q->t, &c->topt, c->opt.endpoint, path, result, start_ns, on_data, q);
	for (i = 0; rc == 0 && i < n_headers; i++)
		rc = transfer_add_header(&q->t, headers[i]);
	if (rc == 0)
		rc = add_auth(c, &q->t, trace_kind_of(method, path), headers, n_headers);
	if (rc == 0) {
		transfer_set_request(&q->t, method, body, body_len);
		/* Whatever Content-Encoding the server picks among those libcurl
		 * decodes, the meter reads plain SSE or JSON (replay drops a
		 * recorded Accept-Encoding: libcurl's list is what it reads). */
		curl_easy_setopt(q->t.easy, CURLOPT_ACCEPT_ENCODING, "");
		meter_set_kind(&q->t.meter, trace_kind_of(method, path));
		q->t.meter.keep = ask->keep;
		curl_easy_setopt(q->t.easy, CURLOPT_PREREQFUNCTION, on_prereq);
		curl_easy_setopt(q->t.easy, CURLOPT_PREREQDATA, q);
	}
	if (rc == 0 && c->warm_fresh)
		curl_easy_setopt(q->t.easy, CURLOPT_FRESH_CONNECT, 1L);
	if (rc == 0)
		rc = arm_cancel(q, ask, now);
	result->sched_ns = start_ns - origin_ns;
	result->send_ns = now - origin_ns;
	q->shard = pick_shard(c);
	if (rc < 0 || transfer_start(&q->t, q->shard->multi) < 0) {
		request_free(q);
		return -1;
	}
	if (++q->shard->running > q->shard->opened)
		q->shard->opened = q->shard->running < q->shard->keeps ? q->shard->running :
				   q->shard->keeps;
	q->next = c->active;
	if (c->active)
		c->active->prev = q;
	c->active = q;
	return 0;
}

/*
 * The warm-up of the connections: how many requests are still running and
 * the distinct sockets (connections) they ran on.
 */
struct warm {
	struct event_base *base;
	size_t left;
	curl_socket_t *socks;
	size_t n_socks, cap;
	int64_t start_ns, last_end_ns;   /* the round's start, its last answer */
	int64_t first_ns;               /* its first answer came this long after
					 * the start: the server's pace, least
					 * delayed by a busy client (the round
					 * before's until one came) */
	size_t ended;
	int held;               /* the rest were held back: given up */
	int64_t fastest_ns;     /* the fastest answer, send to end; -1 none */
};

static void on_warm_done(void *ctx, struct result *r)
{
	struct warm *w = ctx;
	int64_t now = clock_now_ns();

	/* the round trip from its bytes going out (no connecting, no wait
	 * behind the round's other starts) to its end */
	if (r->e2e_ns > 0 && r->issue_ns >= 0 && r->e2e_ns > r->issue_ns &&
	    (w->fastest_ns < 0 || r->e2e_ns - r->issue_ns < w->fastest_ns))
		w->fastest_ns = r->e2e_ns - r->issue_ns;
	w->ended++;
	w->last_end_ns = now;
	if (w->ended == 1)
		w->first_ns = now - w->start_ns;
	if (--w->left == 0)
		event_base_loopbreak(w->base);
}

/*
 * A server that holds a fixed number of connections (one thread of a pool
 * each, kept by an idle connection until its keep-alive timeout, as
 * llama.cpp's server does) answers the first of the round at once and
 * leaves the rest unread. No answer for 20 times the first answer took,
 * but for at least CLIENT_WARM_HELD_NS and at most CLIENT_WARM_HELD_MAX_NS,
 * while some came back: the rest are held back, and the round gives them
 * up rather than wait for the server's timeout. (A server that answers one
 * at a time answers the next within about the time the first took. Not
 * the slowest answer: on a busy host the client reads the last of a round
 * late, and 20 times that outgrew a 4-s keep-alive timeout. Nor the first
 * alone: read 200 ms late by a stalled client, it did too — hence the
 * ceiling, below the servers' keep-alive timeouts, 5 s in llama.cpp's.)
 * A round of fresh connections may get no answer at all: the round before
 * ran on fewer connections than it had requests (one that ended lent its
 * connection to one not yet sent, as a slow client's do), and those, idle
 * now, hold every thread of the server. Some answers of the warm-up are
 * enough: the round before's.
 */
#define CLIENT_WARM_HELD_NS     (1000 * NS_PER_MS)
#define CLIENT_WARM_HELD_MAX_NS (2000 * NS_PER_MS)

static void on_warm_check(evutil_socket_t fd, short what, void *arg)
{
	struct warm *w = arg;
	int64_t quiet = clock_now_ns() - w->last_end_ns;
	int64_t enough = 20 * w->first_ns;

	(void)fd;
	(void)what;
	if (enough < CLIENT_WARM_HELD_NS)
		enough = CLIENT_WARM_HELD_NS;
	if (enough > CLIENT_WARM_HELD_MAX_NS)
		enough = CLIENT_WARM_HELD_MAX_NS;
	if ((w->ended || w->n_socks) && w->left && quiet >= enough) {
		w->held = 1;
		event_base_loopbreak(w->base);
	}
}

/* A warm-up request ran on 'easy': notes its connection's socket. */
static void note_warm_socket(struct warm *w, CURL *easy)
{
	curl_socket_t s = CURL_SOCKET_BAD;
	size_t i;

	if (curl_easy_getinfo(easy, CURLINFO_ACTIVESOCKET, &s) != CURLE_OK ||
	    s == CURL_SOCKET_BAD)
		return;
	for (i = 0; i < w->n_socks; i++)
		if (w->socks[i] == s)
			return;
	if (w->n_socks < w->cap)
		w->socks[w->n_socks++] = s;
}

/* n warm-up requests at once, on new connections when 'fresh'; runs the
 * loop until they end. */
static void warm_round(struct client *c, struct warm *w, size_t n, int fresh)
{
	struct result *scratch = calloc(n ? n : 1, sizeof(*scratch));
	struct event *check = event_new(c->base, -1, EV_PERSIST, on_warm_check, w);
	struct timeval every = { 0, 100000 };
	struct client_request *q, *next;
	size_t i;

	if (!scratch || !check || event_add(check, &every) < 0) {
		free(scratch);
		if (check)
			event_free(check);
		return;
	}
	w->start_ns = w->last_end_ns = clock_now_ns();
	w->ended = 0;
	for (i = 0; i < n; i++) {
		result_init(&scratch[i]);
		c->warm_fresh = fresh;
		if (client_start(c, "GET", "/v1/models", NULL, 0, NULL, 0, &scratch[i], 0, -1, NULL,
				 on_warm_done, w) == 0)
			w->left++;
	}
	c->warm_fresh = 0;
	if (w->left)
		event_base_dispatch(c->base);
	event_free(check);
	if (w->held)
		w->held = (int)w->left;
	/* a signal broke the loop, or the server held them back: the rest
	 * are abandoned (their connections closed), not recorded */
	for (q = c->active; q && w->left; q = next) {
		next = q->next;
		if (q->done != on_warm_done)
			continue;
		unlink_request(c, q);
		request_free(q);
		w->left--;
	}
	for (i = 0; i < n; i++)
		result_release(&scratch[i]);
	free(scratch);
}

/* The held-connections limit of the current endpoint's server, or NULL
 * past the endpoints it keeps. */
static size_t *held_limit(struct client *c)
{
	size_t i;

	for (i = 0; i < 2; i++) {
		if (!c->held_endpoint[i])
			c->held_endpoint[i] = c->opt.endpoint;
		if (c->held_endpoint[i] == c->opt.endpoint)
			return &c->held_limit[i];
	}
	return NULL;
}

int client_warm(struct client *c, size_t n, struct client_warm_info *info)
{
	size_t *limit = held_limit(c);

	struct warm w = { c->base, 0, NULL, 0, 0, 0, 0, 0, 0, 0, -1 };

	memset(info, 0, sizeof(*info));
	info->fastest_ns = -1;
	if (c->opt.http2)
		n = n ? 1 : 0;    /* one connection carries every stream */
	/* no more than a server that held connections back took before */
	if (limit && *limit && n > *limit) {
		info->capped = n - *limit;
		n = *limit;
	}
	w.socks = calloc(n ? n : 1, sizeof(*w.socks));
	if (!w.socks)
		return -1;
	w.cap = n;
	/*
	 * First on the connections open already; a request that ends before
	 * the others start lends its connection to one of them, so the rest
	 * are opened fresh.
	 */
	warm_round(c, &w, n, 0);
	if (w.n_socks < n && !w.held)
		warm_round(c, &w, n - w.n_socks, 1);
	if (w.held) {
		info->held = (size_t)w.held;
		info->served = w.n_socks;
		info->waited_s = (double)(clock_now_ns() - w.start_ns) / NS_PER_S;
		if (limit && w.n_socks && (!*limit || w.n_socks < *limit))
			*limit = w.n_socks;
	}
	info->fastest_ns = w.fastest_ns;
	free(w.socks);
	return 0;
}

void client_cancel_all(struct client *c)
{
	while (c->active) {
		struct client_request *q = c->active;

		/* a signal's cancel is a failure, even of a request --cancel
		 * chose (which then never reached its point): not chosen */
		q->t.result->cancel[0] = '\0';  /* NOLINT(clang-analyzer-unix.Malloc) */
		/* finish() unlinks q from q->client, which is c, so c->active
		 * moves on before q is freed; the analyzer does not connect
		 * q->client with c. */
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
		result_set_error(q->t.result, RESULT_ERR_CANCELLED, "cancelled by a signal");
		finish(q, CURLE_ABORTED_BY_CALLBACK);  /* NOLINT(clang-analyzer-unix.Malloc) */
	}
}
