/*
 * scrape.h - replay --metrics-url: the server's Prometheus /metrics read
 * every interval on replay's own event loop, each scrape one "metrics"
 * record of the results file (schema/FORMAT.md). replay runs one scraper
 * per --metrics-url (the engine, a GPU exporter), each record naming its
 * endpoint in "source".
 *
 * A scrape is one GET on a libcurl multi handle of its own, on the loop
 * the requests run on: nothing blocks, and its timeout is shorter than the
 * interval, so at most one scrape is ever in flight and a slow, failing
 * or malformed endpoint costs the replay nothing but the record that says
 * so (ok false and the error; bad lines counted). The body is capped
 * (SCRAPE_MAX_BODY) and parsed by lib/prom.c.
 *
 * Besides the interval's scrapes, replay asks for one at each level's
 * start (before its first measured request) and end (after its last
 * answer), so that a counter's increase over a level is what that level
 * did, not what fell between its first and last interval scrape (issue
 * 35: a 2.5-s level showed 128 generated tokens where the client received
 * 512). Those are marked "at" in their record; an interval scrape taken
 * between two levels is marked "between" and belongs to neither.
 */
#ifndef TB_SCRAPE_H
#define TB_SCRAPE_H

#include <stdint.h>

#include <cjson/cJSON.h>
#include <event2/event.h>

#define SCRAPE_MAX_BODY     (4L << 20)   /* bytes of one /metrics reply */
#define SCRAPE_MAX_SAMPLES  10000        /* samples kept of one scrape */

struct scrape;

/* Where a scrape stands against the levels ("at" of its record). */
enum scrape_at {
	SCRAPE_AT_INTERVAL,       /* the interval's, inside a level: no "at" */
	SCRAPE_AT_LEVEL_START,    /* "level_start": before the level's first request */
	SCRAPE_AT_LEVEL_END,      /* "level_end": after its last answer */
	SCRAPE_AT_BETWEEN         /* "between": the interval's, outside any level */
};

/* A boundary scrape's record has been handed over (ok or not). */
typedef void (*scrape_done_fn)(void *ctx);

/* Hands one finished scrape's record to the caller, who writes it; the
 * scraper frees record after the call. */
typedef void (*scrape_record_fn)(void *ctx, const cJSON *record);

struct scrape_options {
	const char *url;          /* not copied: must outlive the scraper; its
				   * records name it redacted (lib/redact.h) as
				   * their "source" */
	int64_t interval_ns;      /* between scrape starts, > 0 */
	int insecure;             /* do not verify a TLS certificate */
};

/* The timeout of one scrape for an interval: three quarters of it (at
 * most 10 s), so that a scrape always ends before the next is due. */
long scrape_timeout_ms(int64_t interval_ns);

/*
 * A scraper on base, offsets counted from origin_ns (the run's start, as
 * the request records count them). Returns NULL when out of memory
 * (err says so). Nothing is sent before scrape_start.
 */
struct scrape *scrape_new(struct event_base *base, const struct scrape_options *o,
			  int64_t origin_ns, scrape_record_fn fn, void *ctx, char *err,
			  size_t errlen);

/* The level and repeat the next scrapes are recorded under, and whether
 * the interval's scrapes are inside it from now on (else "between": its
 * warm-ups, the time after it). A level-start scrape puts them inside, a
 * level-end scrape outside. */
void scrape_set_level(struct scrape *s, long level, long repeat, int inside);

/*
 * A scrape now, marked at (SCRAPE_AT_LEVEL_START or _END), under the
 * level set, the interval's scrapes after it inside the level (start) or
 * outside (end); done(ctx) is called on the loop once its record has been
 * handed to the record function (a failed scrape's too). With a scrape
 * in flight, this one starts as soon as that one ends. Returns 0, or -1
 * when one is already asked for (done will not be called).
 */
int scrape_boundary(struct scrape *s, enum scrape_at at, scrape_done_fn done, void *ctx);

/* Scrapes now and then every interval. Returns 0, or -1 when the timer
 * cannot be set. */
int scrape_start(struct scrape *s);

/* Stops the timer and drops a scrape in flight (no record for it). */
void scrape_stop(struct scrape *s);

/* Scrapes recorded, and of them failed. */
void scrape_counts(const struct scrape *s, long *recorded, long *failed);

/* The endpoint as its records name it (redacted), owned by s. */
const char *scrape_source(const struct scrape *s);

/* Stops and frees s (NULL is a no-op). */
void scrape_free(struct scrape *s);

/*
 * The record of one scrape (caller frees): source the endpoint's URL as
 * its "source" (redacted by the caller; NULL: none), t_ns the start offset, level
 * and repeat, at where it stands against them, latency, error NULL for a
 * usable body (whose text, len bytes, is parsed into samples: a
 * histogram's buckets kept, a summary's quantiles left out) or the reason
 * it is not, status the HTTP status (0: none). Exposed for the tests.
 */
cJSON *scrape_record(const char *source, int64_t t_ns, long level, long repeat,
		     enum scrape_at at, int64_t latency_ns, long status, const char *error,
		     const char *text, size_t len);

#endif
