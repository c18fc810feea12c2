/*
 * clocksync.c - this host's wall-clock offset from the server's, from the
 * boundaries of its Date header; see clocksync.h.
 *
 * Each probe sent at our wall time t0 and answered (its Date header seen)
 * at t1 with Date D says the server's clock read D..D+1 s at some instant
 * of [t0, t1]: the offset (server minus ours) lies in [D - t1, D + 1 s - t0).
 * Intersecting these intervals is all the arithmetic there is. The first
 * pass probes every 25 ms until the Date turns, which brackets one
 * boundary to 25 ms; each later pass waits for the next boundary where the
 * interval predicts it and probes across it more densely, down to
 * back-to-back probes, which leaves an interval about one round trip wide.
 */
#include "clocksync.h"
#include "lib/clock.h"

#include <curl/curl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define CLOCKSYNC_FIRST_SPACING_NS (25 * NS_PER_MS)
#define CLOCKSYNC_PROBES_PER_PASS 40
#define CLOCKSYNC_MAX_EDGES 5
#define CLOCKSYNC_PROBE_TIMEOUT_MS 2000L

struct probe {
	CURL *easy;
	int64_t date_ns;          /* the Date header, ns since 1970; -1 when none */
	int64_t t_date;           /* our wall time when it arrived */
};

/* libcurl header callback: notes the Date header and when it came. */
static size_t on_header(char *buf, size_t size, size_t n, void *arg)
{
	struct probe *p = arg;
	size_t len = size * n;
	char value[128];
	time_t t;

	if (len > 5 && strncasecmp(buf, "date:", 5) == 0 && len - 5 < sizeof(value)) {
		int64_t now = clock_wall_ns();

		memcpy(value, buf + 5, len - 5);
		value[len - 5] = '\0';
		t = curl_getdate(value, NULL);
		if (t > 0) {
			p->date_ns = (int64_t)t * NS_PER_S;
			p->t_date = now;
		}
	}
	return len;
}

static size_t on_body(char *buf, size_t size, size_t n, void *arg)
{
	(void)buf;
	(void)arg;
	return size * n;
}

/* Sleeps until our wall-clock instant 'wall_ns'. */
static void sleep_until_wall(int64_t wall_ns)
{
	int64_t wait = wall_ns - clock_wall_ns();

	if (wait > 0)
		clock_sleep_until_ns(clock_now_ns() + wait);
}

struct bounds {
	int64_t lo, hi;           /* the offset lies in [lo, hi) */
	int64_t rtt;              /* shortest t1 - t0 seen */
};

/*
 * One probe: narrows b, sets *date_ns (-1 when the answer had no Date).
 * Returns 0, or -1 with err filled when the request failed.
 */
static int probe_once(struct probe *p, struct bounds *b, int64_t *date_ns,
		      char *err, size_t errlen)
{
	int64_t t0, t1;
	CURLcode rc;

	p->date_ns = -1;
	t0 = clock_wall_ns();
	rc = curl_easy_perform(p->easy);
	if (rc != CURLE_OK) {
		snprintf(err, errlen, "%s", curl_easy_strerror(rc));
		return -1;
	}
	*date_ns = p->date_ns;
	if (p->date_ns < 0)
		return 0;
	t1 = p->t_date;
	if (t1 - t0 < b->rtt)
		b->rtt = t1 - t0;
	if (p->date_ns - t1 > b->lo)
		b->lo = p->date_ns - t1;
	if (p->date_ns + NS_PER_S - t0 < b->hi)
		b->hi = p->date_ns + NS_PER_S - t0;
	return 0;
}

/*
 * Waits for the next second boundary of the server's clock where b says it
 * falls, probing across it 'spacing' apart. Returns 1 when the Date turned
 * (bracketed), 2 when it did not turn where expected (a server whose Date
 * lags by a varying amount), 0 when the deadline comes first, -1 on a
 * failure.
 */
static int probe_edge(struct probe *p, struct bounds *b, int64_t deadline, int *probes,
		      char *err, size_t errlen)
{
	int64_t now = clock_wall_ns(), date, first, last, spacing, k;

	/* The first boundary K whose window starts after now. */
	k = (now + b->hi + b->rtt) / NS_PER_S + 1;
	first = k * NS_PER_S - b->hi - b->rtt;
	last = k * NS_PER_S - b->lo + 2 * b->rtt;
	if (clock_now_ns() + (last - now) > deadline)
		return 0;
	spacing = (b->hi - b->lo + 2 * b->rtt) / CLOCKSYNC_PROBES_PER_PASS - b->rtt;
	if (spacing < 0)
		spacing = 0;
	sleep_until_wall(first);
	for (;;) {
		int64_t sent = clock_wall_ns();

		if (probe_once(p, b, &date, err, errlen) < 0)
			return -1;
		(*probes)++;
		if (date >= k * NS_PER_S)
			return 1;
		if (date < 0 || clock_wall_ns() > last + spacing)
			return 2;
		if (spacing)
			sleep_until_wall(sent + spacing);
	}
}

int clocksync_measure(const struct clocksync_options *o, struct clocksync_result *out,
		      char *err, size_t errlen)
{
	struct probe p = { NULL, -1, 0 };
	struct bounds b = { INT64_MIN / 4, INT64_MAX / 4, INT64_MAX / 4 };
	struct curl_slist *headers = NULL;
	int64_t deadline = clock_now_ns() + o->budget_ns, date, prev;
	char url[1100], auth[1024];
	int rc = -1, got;

	memset(out, 0, sizeof(*out));
	if (snprintf(url, sizeof(url), "%s/v1/models", o->endpoint) >= (int)sizeof(url)) {
		snprintf(err, errlen, "endpoint too long");
		return -1;
	}
	p.easy = curl_easy_init();
	if (!p.easy) {
		snprintf(err, errlen, "cannot initialize libcurl");
		return -1;
	}
	if (o->api_key && *o->api_key) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", o->api_key);
		headers = curl_slist_append(NULL, auth);
	}
	curl_easy_setopt(p.easy, CURLOPT_URL, url);
	curl_easy_setopt(p.easy, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(p.easy, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(p.easy, CURLOPT_HEADERDATA, &p);
	curl_easy_setopt(p.easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(p.easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(p.easy, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(p.easy, CURLOPT_TIMEOUT_MS, CLOCKSYNC_PROBE_TIMEOUT_MS);
	curl_easy_setopt(p.easy, CURLOPT_CONNECTTIMEOUT_MS, CLOCKSYNC_PROBE_TIMEOUT_MS);
	if (o->http2)
		curl_easy_setopt(p.easy, CURLOPT_HTTP_VERSION, strncmp(o->endpoint, "https://", 8) ?
				 (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE : (long)CURL_HTTP_VERSION_2TLS);
	else
		curl_easy_setopt(p.easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	if (o->insecure) {
		curl_easy_setopt(p.easy, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(p.easy, CURLOPT_SSL_VERIFYHOST, 0L);
	}

	/* The first probe also opens the connection the others reuse. */
	if (probe_once(&p, &b, &prev, err, errlen) < 0)
		goto cleanup;
	out->probes = 1;
	rc = 0;
	if (prev < 0)
		goto cleanup;
	/* Pass one: every 25 ms until the Date turns. */
	while (clock_now_ns() + CLOCKSYNC_FIRST_SPACING_NS < deadline) {
		clock_sleep_until_ns(clock_now_ns() + CLOCKSYNC_FIRST_SPACING_NS);
		if (probe_once(&p, &b, &date, err, errlen) < 0)
			goto done;
		out->probes++;
		if (date != prev) {
			out->edges++;
			break;
		}
	}
	/* Then boundary after boundary, each probed more densely. */
	while (out->edges && out->edges < CLOCKSYNC_MAX_EDGES && b.hi - b.lo > b.rtt) {
		got = probe_edge(&p, &b, deadline, &out->probes, err, errlen);
		if (got <= 0)
			break;
		out->edges += got == 1;
	}
done:
	out->measured = 1;
	out->offset_ms = ((double)b.lo + (double)b.hi) / 2e6;
	out->error_ms = fabs((double)b.hi - (double)b.lo) / 2e6;
	out->rtt_ms = (double)b.rtt / 1e6;
cleanup:
	curl_slist_free_all(headers);
	curl_easy_cleanup(p.easy);
	return rc;
}
