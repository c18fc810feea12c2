/*
 * client.c - concurrent streaming HTTP requests on libevent + libcurl multi;
 * see client.h.
 *
 * libcurl's multi handle runs on the libevent loop through lib/curlev.c,
 * which reports each finished transfer to on_finished. Response bytes
 * arrive in on_data, where they are stamped with the clock and handed to
 * the request's meter (lib/meter.c), which updates its struct result on
 * the spot.
 */
#include "client.h"
#include "lib/clock.h"
#include "lib/curlev.h"
#include "lib/meter.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <curl/curl.h>

enum body_mode { MODE_UNKNOWN, MODE_SSE, MODE_BODY };

struct client {
	struct event_base *base;
	struct curlev *curlev;            /* the multi handle on our loop */
	CURLM *multi;                     /* curlev's */
	struct client_options opt;
	char *auth_header;                /* "Authorization: Bearer ...", or NULL */
	struct client_request *active;    /* doubly linked list of running requests */
	size_t n_active;
};

struct client_request {
	struct client *client;
	CURL *easy;
	struct curl_slist *headers;
	struct result *result;
	client_done_fn done;
	void *ctx;
	struct meter meter;      /* measures the response into result */
	enum body_mode mode;
	char *body;              /* non-SSE response body, capped */
	size_t body_len, body_cap;
	char abort_class[RESULT_ERROR_MAX];   /* why on_data stopped the transfer */
	char abort_detail[128];
	char errbuf[CURL_ERROR_SIZE];
	struct client_request *prev, *next;
};


static void set_error(struct result *r, const char *cls, const char *detail)
{
	if (result_ok(r))       /* the first error is the cause; keep it */
		result_set_error(r, cls, detail);
}

/* ---- libcurl callbacks ----------------------------------------------- */

static void decide_mode(struct client_request *q)
{
	long status = 0;
	char *ctype = NULL;

	curl_easy_getinfo(q->easy, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(q->easy, CURLINFO_CONTENT_TYPE, &ctype);
	q->result->status = (int)status;
	if (status >= 200 && status < 300 && ctype &&
	    strncasecmp(ctype, "text/event-stream", 17) == 0)
		q->mode = MODE_SSE;
	else
		q->mode = MODE_BODY;
}

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *userp)
{
	struct client_request *q = userp;
	size_t len = size * nmemb;
	int64_t now = clock_now_ns();    /* every event is stamped on arrival */

	if (q->mode == MODE_UNKNOWN)
		decide_mode(q);
	if (q->mode == MODE_SSE)
		return meter_feed(&q->meter, ptr, len, now) == SSE_OK ? len : 0;
	if (q->body_len + len > q->client->opt.max_event) {
		snprintf(q->abort_class, sizeof(q->abort_class), "%s", RESULT_ERR_MALFORMED);
		snprintf(q->abort_detail, sizeof(q->abort_detail),
			 "response body larger than %zu bytes", q->client->opt.max_event);
		return 0;
	}
	if (strbuf_append(&q->body, &q->body_len, &q->body_cap, ptr, len) < 0)
		return 0;
	return len;
}

static void request_free(struct client_request *q)
{
	curl_slist_free_all(q->headers);
	meter_release(&q->meter);
	free(q->body);
	free(q);
}

static void unlink_request(struct client *c, struct client_request *q)
{
	if (c->active == q)
		c->active = q->next;
	else if (q->prev)
		q->prev->next = q->next;
	if (q->next)
		q->next->prev = q->prev;
	c->n_active--;
}

/* Completes q's result from how the transfer ended and hands it over. */
static void finish(struct client_request *q, CURLcode code)
{
	struct client *c = q->client;
	struct result *r = q->result;
	client_done_fn done = q->done;
	void *ctx = q->ctx;

	int64_t now = clock_now_ns();

	if (q->mode == MODE_UNKNOWN)
		decide_mode(q);
	if (code != CURLE_OK) {
		if (q->abort_class[0])
			set_error(r, q->abort_class, q->abort_detail);
		else
			set_error(r, curlev_error_class(code),
				  q->errbuf[0] ? q->errbuf : curl_easy_strerror(code));
		meter_end_failed(&q->meter, now);
	} else if (r->status < 200 || r->status >= 300) {
		char detail[RESULT_DETAIL_MAX + 32];

		snprintf(detail, sizeof(detail), "HTTP %d: %.*s", r->status,
			 RESULT_DETAIL_MAX, q->body ? q->body : "");
		set_error(r, RESULT_ERR_HTTP, detail);
		meter_end_failed(&q->meter, now);
	} else if (q->mode == MODE_BODY) {
		meter_end_body(&q->meter, q->body, q->body_len, now);
	} else {
		meter_end_stream(&q->meter, now);
	}

	curl_multi_remove_handle(c->multi, q->easy);
	curl_easy_cleanup(q->easy);
	unlink_request(c, q);
	request_free(q);
	done(ctx, r);
}

static void on_finished(void *ctx, CURL *easy, CURLcode code)
{
	struct client_request *q;

	(void)ctx;
	curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&q);
	finish(q, code);
}

/* ---- public API ------------------------------------------------------ */

struct client *client_new(const struct client_options *o, char *err)
{
	struct event_config *cfg = NULL;
	struct client *c = calloc(1, sizeof(*c));

	if (!c) {
		snprintf(err, 256, "out of memory");
		return NULL;
	}
	c->opt = *o;
	if (!c->opt.max_event)
		c->opt.max_event = SSE_DEFAULT_MAX_EVENT;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(err, 256, "cannot initialize libcurl");
		goto fail;
	}
	cfg = event_config_new();
	if (cfg)
		event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
	c->base = cfg ? event_base_new_with_config(cfg) : NULL;
	event_config_free(cfg);
	c->curlev = c->base ? curlev_new(c->base, on_finished, c) : NULL;
	if (!c->curlev) {
		snprintf(err, 256, "cannot set up the event loop");
		goto fail;
	}
	if (o->api_key && *o->api_key) {
		size_t len = strlen(o->api_key) + 32;

		c->auth_header = malloc(len);
		if (!c->auth_header) {
			snprintf(err, 256, "out of memory");
			goto fail;
		}
		snprintf(c->auth_header, len, "Authorization: Bearer %s", o->api_key);
	}
	c->multi = curlev_multi(c->curlev);
	curl_multi_setopt(c->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
	return c;

fail:
	client_free(c);
	return NULL;
}

void client_free(struct client *c)
{
	if (!c)
		return;
	while (c->active) {
		struct client_request *q = c->active;

		curl_multi_remove_handle(c->multi, q->easy);
		curl_easy_cleanup(q->easy);
		unlink_request(c, q);
		request_free(q);
	}
	curlev_free(c->curlev);
	if (c->base)
		event_base_free(c->base);
	if (c->auth_header) {
		memset(c->auth_header, 0, strlen(c->auth_header));
		free(c->auth_header);
	}
	free(c);
	curl_global_cleanup();
}

struct event_base *client_base(struct client *c)
{
	return c->base;
}

int client_start(struct client *c, const char *method, const char *path,
		 char *const *headers, size_t n_headers, const char *body, size_t body_len,
		 struct result *result, int64_t origin_ns, int64_t start_ns,
		 client_done_fn done, void *ctx)
{
	struct client_request *q = calloc(1, sizeof(*q));
	struct curl_slist *h;
	size_t i, url_len;
	char *url = NULL;
	int64_t now;

	if (!q)
		return -1;
	q->client = c;
	q->result = result;
	q->done = done;
	q->ctx = ctx;
	q->easy = curl_easy_init();
	url_len = strlen(c->opt.endpoint) + strlen(path) + 1;
	url = malloc(url_len);
	if (!q->easy || !url)
		goto fail;
	snprintf(url, url_len, "%s%s", c->opt.endpoint, path);

	/* "Expect:" stops libcurl from waiting for 100-continue on large bodies. */
	q->headers = curl_slist_append(NULL, "Expect:");
	for (i = 0; q->headers && i < n_headers; i++)
		if ((h = curl_slist_append(q->headers, headers[i])))
			q->headers = h;
	if (c->auth_header && (h = curl_slist_append(q->headers, c->auth_header)))
		q->headers = h;

	curl_easy_setopt(q->easy, CURLOPT_URL, url);
	if (!c->opt.http2)
		curl_easy_setopt(q->easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	else if (strncmp(url, "https:", 6) == 0)
		curl_easy_setopt(q->easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	else
		curl_easy_setopt(q->easy, CURLOPT_HTTP_VERSION,
				 (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE);
	if (c->opt.insecure) {
		curl_easy_setopt(q->easy, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(q->easy, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	curl_easy_setopt(q->easy, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(q->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
	if (strcmp(method, "POST") != 0)
		curl_easy_setopt(q->easy, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(q->easy, CURLOPT_HTTPHEADER, q->headers);
	curl_easy_setopt(q->easy, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(q->easy, CURLOPT_WRITEDATA, q);
	curl_easy_setopt(q->easy, CURLOPT_PRIVATE, q);
	curl_easy_setopt(q->easy, CURLOPT_ERRORBUFFER, q->errbuf);
	curl_easy_setopt(q->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(q->easy, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(q->easy, CURLOPT_TIMEOUT_MS, c->opt.timeout_ms);
	if (c->opt.connect_timeout_ms)
		curl_easy_setopt(q->easy, CURLOPT_CONNECTTIMEOUT_MS, c->opt.connect_timeout_ms);

	now = clock_now_ns();
	if (start_ns < 0)
		start_ns = now;
	meter_init(&q->meter, result, start_ns, c->opt.max_event);
	result->sched_ns = start_ns - origin_ns;
	result->send_ns = now - origin_ns;
	if (curl_multi_add_handle(c->multi, q->easy) != CURLM_OK)
		goto fail;
	free(url);
	q->next = c->active;
	if (c->active)
		c->active->prev = q;
	c->active = q;
	c->n_active++;
	return 0;

fail:
	free(url);
	if (q->easy)
		curl_easy_cleanup(q->easy);
	request_free(q);
	return -1;
}

void client_cancel_all(struct client *c)
{
	while (c->active) {
		struct client_request *q = c->active;

		snprintf(q->abort_class, sizeof(q->abort_class), "%s", RESULT_ERR_CANCELLED);
		snprintf(q->abort_detail, sizeof(q->abort_detail), "cancelled by a signal");
		/* finish() unlinks q from q->client, which is c, so c->active
		 * moves on before q is freed; the analyzer does not connect
		 * q->client with c. */
		finish(q, CURLE_ABORTED_BY_CALLBACK);  /* NOLINT(clang-analyzer-unix.Malloc) */
	}
}
