/*
 * scrape.c - replay --metrics-url: a timer on replay's event loop starts a
 * GET of the server's /metrics (lib/transfer.h on a multi handle of its
 * own, lib/curlev.h), and each finished one becomes a "metrics" record
 * (schema/FORMAT.md) handed to replay to write; replay asks for the
 * scrapes at a level's start and end itself. See scrape.h.
 */
#include "replay/scrape.h"
#include "lib/clock.h"
#include "lib/curlev.h"
#include "lib/errmsg.h"
#include "lib/json.h"
#include "lib/prom.h"
#include "lib/redact.h"
#include "lib/result.h"
#include "lib/transfer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct scrape {
	struct scrape_options opt;
	char *source;             /* opt.url redacted: each record's "source" */
	struct event_base *base;
	struct curlev *cv;
	struct event *timer;
	scrape_record_fn fn;
	void *ctx;
	int64_t origin_ns;
	long level, repeat;
	int in_level;             /* the interval's scrapes are inside the level */
	/* the scrape in flight, if any */
	int busy;
	struct transfer t;
	struct result r;
	int64_t started_ns;
	long level_at_start, repeat_at_start;
	enum scrape_at at;
	/* a boundary scrape asked for: 'want' not yet started, 'waiting' its
	 * record not yet handed over; done_ev calls done once it has been */
	enum scrape_at want;
	int waiting;
	scrape_done_fn done;
	void *done_ctx;
	struct event *done_ev;
	long recorded, failed;
};

/* The "at" of a record for a; NULL for SCRAPE_AT_INTERVAL (no field). */
static const char *scrape_at_name(enum scrape_at a)
{
	switch (a) {
	case SCRAPE_AT_LEVEL_START: return "level_start";
	case SCRAPE_AT_LEVEL_END:   return "level_end";
	case SCRAPE_AT_BETWEEN:     return "between";
	default:                    return NULL;
	}
}

long scrape_timeout_ms(int64_t interval_ns)
{
	int64_t ms = interval_ns / NS_PER_MS * 3 / 4;

	if (ms < 1)
		ms = 1;
	return ms > 10000 ? 10000 : (long)ms;
}

/* A sample value for JSON, which has no NaN or infinity: those as strings. */
static cJSON *value_json(double v)
{
	if (isnan(v))
		return cJSON_CreateString("NaN");
	if (isinf(v))
		return cJSON_CreateString(v > 0 ? "+Inf" : "-Inf");
	return cJSON_CreateNumber(v);
}

cJSON *scrape_record(const char *source, int64_t t_ns, long level, long repeat,
		     enum scrape_at at, int64_t latency_ns, long status, const char *error,
		     const char *text, size_t len)
{
	cJSON *rec = cJSON_CreateObject(), *samples;
	struct prom_scrape ps;
	char series[1024], why[160];
	size_t i;
	int ok = rec != NULL;

	if (!rec)
		return NULL;
	cJSON_AddStringToObject(rec, "type", "metrics");
	if (source)
		cJSON_AddStringToObject(rec, "source", source);
	cJSON_AddNumberToObject(rec, "t_ns", (double)t_ns);
	cJSON_AddNumberToObject(rec, "level", (double)level);
	cJSON_AddNumberToObject(rec, "repeat", (double)repeat);
	if (scrape_at_name(at))
		cJSON_AddStringToObject(rec, "at", scrape_at_name(at));
	json_add_int64(rec, "latency_us", latency_ns / 1000, 0);
	cJSON_AddNumberToObject(rec, "status", (double)status);
	if (error) {
		cJSON_AddFalseToObject(rec, "ok");
		cJSON_AddStringToObject(rec, "error", error);
		return rec;
	}
	cJSON_AddTrueToObject(rec, "ok");
	prom_scrape_init(&ps);
	ps.max_samples = SCRAPE_MAX_SAMPLES;
	if (prom_parse(&ps, text, len, why, sizeof(why)) < 0) {
		prom_scrape_release(&ps);
		cJSON_Delete(rec);
		return NULL;
	}
	samples = cJSON_AddObjectToObject(rec, "samples");
	for (i = 0; ok && samples && i < ps.n; i++) {
		const struct prom_sample *x = &ps.samples[i];
		cJSON *v;

		/* a summary's quantiles are left out (their _sum and _count
		 * stay): they are the server's own over its own window, and
		 * cannot be taken over a level's. A histogram's buckets are
		 * kept, under the same series cap: their increase over a level
		 * gives the server's percentiles there (lib/bucketq.h). */
		if (x->type == PROM_SUMMARY && prom_label(x, "quantile"))
			continue;
		if (prom_series(x, series, sizeof(series)) >= sizeof(series) ||
		    cJSON_GetObjectItemCaseSensitive(samples, series)) {
			ps.bad_lines++;         /* too long a series to key, or twice */
			continue;
		}
		v = value_json(x->value);
		ok = v && cJSON_AddItemToObject(samples, series, v);
	}
	cJSON_AddNumberToObject(rec, "bad_lines", (double)ps.bad_lines);
	if (ps.first_bad) {
		snprintf(why, sizeof(why), "line %zu: %s", ps.first_bad, ps.why_bad);
		cJSON_AddStringToObject(rec, "first_bad", why);
	}
	prom_scrape_release(&ps);
	if (!ok || !samples) {
		cJSON_Delete(rec);
		return NULL;
	}
	return rec;
}

static void start_scrape(struct scrape *s, enum scrape_at at);

static size_t on_write(char *buf, size_t size, size_t n, void *arg)
{
	struct scrape *s = arg;

	if (transfer_feed(&s->t, buf, size * n, clock_now_ns()) < 0)
		return 0;       /* over the cap: libcurl stops the transfer */
	return size * n;
}

static void emit(struct scrape *s, const cJSON *rec)
{
	if (rec) {
		s->fn(s->ctx, rec);
		s->recorded++;
	}
}

/* A scrape ended (lib/curlev.h's callback). */
static void on_done(void *priv, CURLcode code)
{
	struct scrape *s = priv;
	int64_t now = clock_now_ns();
	char error[RESULT_DETAIL_MAX + 64];
	const char *why = NULL;
	cJSON *rec;

	transfer_finish(&s->t, code, now);
	if (code != CURLE_OK && !s->t.gave_up) {
		snprintf(error, sizeof(error), "%s: %s", s->r.error,
			 transfer_curl_message(&s->t, code));
		why = error;
	} else if (s->r.status < 200 || s->r.status >= 300) {
		snprintf(error, sizeof(error), "HTTP %d", s->r.status);
		why = error;
	} else if (s->t.gave_up) {
		snprintf(error, sizeof(error), "body larger than %ld bytes", SCRAPE_MAX_BODY);
		why = error;
	}
	rec = scrape_record(s->source, s->started_ns - s->origin_ns, s->level_at_start,
			    s->repeat_at_start, s->at, now - s->started_ns, s->r.status, why,
			    s->t.body ? s->t.body : "", s->t.body_len);
	if (why)
		s->failed++;
	emit(s, rec);
	cJSON_Delete(rec);
	transfer_release(&s->t);
	result_release(&s->r);
	s->busy = 0;
	if (s->at == SCRAPE_AT_LEVEL_START || s->at == SCRAPE_AT_LEVEL_END)
		event_active(s->done_ev, 0, 0);
	else if (s->want != SCRAPE_AT_INTERVAL)
		start_scrape(s, s->want);       /* the boundary waited for this one */
}

/* Hands a boundary scrape's end to whoever asked for it. */
static void on_boundary_done(evutil_socket_t fd, short what, void *arg)
{
	struct scrape *s = arg;
	scrape_done_fn done = s->done;

	(void)fd;
	(void)what;
	s->waiting = 0;
	s->done = NULL;
	if (done)
		done(s->done_ctx);
}

/* Starts a scrape marked at; one that cannot start is recorded failed at
 * once (a boundary's done then follows on the loop). */
static void start_scrape(struct scrape *s, enum scrape_at at)
{
	struct transfer_options to = { 0 };

	if (at == s->want)
		s->want = SCRAPE_AT_INTERVAL;   /* the boundary asked for, now started */
	to.timeout_ms = scrape_timeout_ms(s->opt.interval_ns);
	to.connect_timeout_ms = to.timeout_ms;
	to.insecure = s->opt.insecure;
	to.max_body = (size_t)SCRAPE_MAX_BODY;
	result_init(&s->r);
	s->started_ns = clock_now_ns();
	s->level_at_start = s->level;
	s->repeat_at_start = s->repeat;
	s->at = at;
	if (transfer_init(&s->t, &to, s->opt.url, "", &s->r, s->started_ns, on_write, s) < 0 ||
	    transfer_add_header(&s->t, "Accept: text/plain;version=0.0.4") < 0 ||
	    (transfer_set_request(&s->t, "GET", NULL, 0),
	     transfer_start(&s->t, curlev_multi(s->cv)) < 0)) {
		cJSON *rec = scrape_record(s->source, s->started_ns - s->origin_ns, s->level,
					   s->repeat, at, 0, 0, "cannot start the request", NULL, 0);

		s->failed++;
		emit(s, rec);
		cJSON_Delete(rec);
		transfer_release(&s->t);
		result_release(&s->r);
		if (at == SCRAPE_AT_LEVEL_START || at == SCRAPE_AT_LEVEL_END)
			event_active(s->done_ev, 0, 0);
		return;
	}
	s->busy = 1;
}

/* The interval's timer: start a scrape, unless one is still running (a
 * boundary's; the interval's own cannot be, its timeout being shorter)
 * or a boundary waits its turn: then this one is skipped. */
static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct scrape *s = arg;

	(void)fd;
	(void)what;
	if (s->busy || s->want != SCRAPE_AT_INTERVAL)
		return;
	start_scrape(s, s->in_level ? SCRAPE_AT_INTERVAL : SCRAPE_AT_BETWEEN);
}

int scrape_boundary(struct scrape *s, enum scrape_at at, scrape_done_fn done, void *ctx)
{
	if (s->waiting || (at != SCRAPE_AT_LEVEL_START && at != SCRAPE_AT_LEVEL_END))
		return -1;
	s->waiting = 1;
	s->done = done;
	s->done_ctx = ctx;
	s->want = at;
	s->in_level = at == SCRAPE_AT_LEVEL_START;
	if (!s->busy)
		start_scrape(s, at);
	return 0;
}

struct scrape *scrape_new(struct event_base *base, const struct scrape_options *o,
			  int64_t origin_ns, scrape_record_fn fn, void *ctx, char *err,
			  size_t errlen)
{
	struct scrape *s = calloc(1, sizeof(*s));

	if (!s || !(s->source = redact_url(o->url, NULL)) ||
	    !(s->cv = curlev_new(base, on_done)) ||
	    !(s->timer = event_new(base, -1, EV_PERSIST, on_tick, s)) ||
	    !(s->done_ev = event_new(base, -1, 0, on_boundary_done, s))) {
		scrape_free(s);
		errmsg_set(err, errlen, "out of memory setting up the metrics scraper");
		return NULL;
	}
	s->opt = *o;
	s->base = base;
	s->fn = fn;
	s->ctx = ctx;
	s->origin_ns = origin_ns;
	return s;
}

void scrape_set_level(struct scrape *s, long level, long repeat, int inside)
{
	s->level = level;
	s->repeat = repeat;
	s->in_level = inside;
}

int scrape_start(struct scrape *s)
{
	struct timeval tv;

	tv.tv_sec = (time_t)(s->opt.interval_ns / NS_PER_S);
	tv.tv_usec = (suseconds_t)(s->opt.interval_ns % NS_PER_S / 1000);
	if (event_add(s->timer, &tv) < 0)
		return -1;
	on_tick(-1, 0, s);
	return 0;
}

void scrape_stop(struct scrape *s)
{
	if (s->timer)
		event_del(s->timer);
	if (s->done_ev)
		event_del(s->done_ev);
	if (s->busy) {
		transfer_release(&s->t);
		result_release(&s->r);
		s->busy = 0;
	}
	s->want = SCRAPE_AT_INTERVAL;
	s->waiting = 0;
	s->done = NULL;
}

void scrape_counts(const struct scrape *s, long *recorded, long *failed)
{
	*recorded = s->recorded;
	*failed = s->failed;
}

const char *scrape_source(const struct scrape *s)
{
	return s->source;
}

void scrape_free(struct scrape *s)
{
	if (!s)
		return;
	scrape_stop(s);
	if (s->timer)
		event_free(s->timer);
	if (s->done_ev)
		event_free(s->done_ev);
	curlev_free(s->cv);
	free(s->source);
	free(s);
}
