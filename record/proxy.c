/*
 * proxy.c - `tracebench record proxy`: a streaming reverse proxy in front of
 * a real endpoint, writing what passes through as a trace; see proxy.h.
 *
 * One libevent loop, no threads. The listening side is evhttp (one generic
 * callback for every path); the upstream side is libcurl's multi socket
 * interface on the same loop, through lib/curlev.c as in replay's client,
 * which reports each finished transfer to on_finished().
 *
 * Request lifecycle: on_request() copies the request into a struct
 * proxy_request and starts its transfer; on_header() collects the
 * upstream's status and headers and starts the reply when they end;
 * on_data() passes each piece of the body on at once (and flushes it), and
 * feeds it to the request's meter (lib/meter.h), which measures TTFT, TTFA,
 * the gaps and the tokens on the spot; finish() ends the reply and appends
 * the trace record. If the client goes away first, on_conn_close() cancels
 * the transfer and records that instead.
 *
 * Secrets: every header goes upstream, but what reaches the file is
 * decided by an allowlist (record/capture.c, lib/redact.c): Authorization,
 * API keys and cookies never; a header or query parameter whose name is
 * not known to be harmless keeps its name with its value redacted, unless
 * --keep-header or --keep-query names it; the upstream's userinfo is never
 * written or printed; credentials the client sent are scrubbed from the
 * error bodies recorded.
 *
 * Memory: the request bodies in flight share one budget
 * (PROXY_BUDGET_BODIES times the body cap); a request beyond it gets 503
 * at once.
 */
#include "proxy.h"
#include "capture.h"
#include "session_join.h"
#include "upstream.h"
#include "lib/cli.h"
#include "lib/clock.h"
#include "lib/curlev.h"
#include "lib/httpserver.h"
#include "lib/result.h"
#include "lib/redact.h"
#include "lib/trace.h"
#include "lib/tracefile.h"
#include "lib/decode.h"
#include "lib/transfer.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#define PROXY_MAX_HEADERS   (64L * 1024)         /* request headers cap */
#define PROXY_MAX_MEASURED  (16u * 1024 * 1024)  /* non-SSE body kept to measure */
#define PROXY_HIGH_WATER    (4u * 1024 * 1024)   /* client output: pause upstream */
#define PROXY_IDLE_S        600                  /* idle client connection */
#define PROXY_STATUS_S      2                    /* status line period */
#define PROXY_MAX_IDLE_UPSTREAM 1024             /* upstream connections kept */
#define PROXY_BUDGET_BODIES 8                    /* memory budget, in body caps */
#define PROXY_MAX_SECRETS   32                   /* values scrubbed per request */

struct proxy {
	struct proxy_options opt;
	char *upstream;                    /* base URL, no trailing '/' (malloc) */
	char *upstream_shown;              /* the same without userinfo, for files and stderr */
	size_t held, budget;               /* request body bytes in flight; their cap */
	struct event_base *base;
	struct evhttp *http;
	struct evhttp_bound_socket *bound;
	struct curlev *curlev;          /* libcurl's multi handle on our loop */
	CURLM *multi;                   /* curlev's */
	struct event *flush_timer, *status_timer, *grace_timer,
		     *stop_timer, *sigint, *sigterm;
	struct evbuffer *scratch;          /* reused to pass each piece on */
	struct tracefile_writer *w;
	int64_t start_ns;
	long next_id;                      /* requests accepted so far */
	long n_done, n_errors;
	long n_recorded, n_unrecorded;     /* records written; requests left out */
	size_t n_active;
	struct proxy_request *active;      /* doubly linked */
	int draining;                      /* no longer accepting */
	int failed;                        /* the trace could not be written: proxying on */
	int status_shown;
	struct session_join sessions;      /* --session-header, --sessions prefix */
};

struct proxy_request {
	struct proxy *p;
	struct evhttp_request *req;        /* NULL once the client is gone */
	struct trace_request trace;        /* what the file gets; body sent upstream */
	char *uri;                         /* the target as the client sent it, for upstream */
	char *secrets[PROXY_MAX_SECRETS];  /* what the trace does not keep of the request
					    * (credentials, values it redacts), scrubbed
					    * from what the upstream sends back */
	size_t held;                       /* bytes counted in p->held */
	struct result result;              /* the upstream's outcome */
	struct transfer t;                 /* the upstream request, measured */
	int status;                        /* of the header block being read */
	char reason[64];
	int replied;                       /* evhttp_send_reply_start done */
	int paused;                        /* upstream paused: client reads slowly */
	char encoding[64];                 /* the upstream's Content-Encoding */
	struct decode dec;                 /* undoes it for the meter (lib/decode.h) */
	int decode_rc;                     /* DECODE_OK, or why measuring stopped */
	int64_t piece_ns;                  /* arrival of the piece being decoded */
	struct session_turn turn;          /* its session's, if in one */
	struct proxy_request *prev, *next;
};

/* ---- headers ------------------------------------------------------------ */

static int name_is(const char *name, size_t len, const char *what)
{
	return strlen(what) == len && strncasecmp(name, what, len) == 0;
}

/* Hop-by-hop headers (RFC 9110 7.6.1): they describe one connection, not
 * the message, so neither direction passes them on. */
static int is_hop_by_hop(const char *name, size_t len)
{
	return name_is(name, len, "connection") || name_is(name, len, "keep-alive") ||
	       (len >= 6 && strncasecmp(name, "proxy-", 6) == 0) ||
	       name_is(name, len, "te") || name_is(name, len, "trailer") ||
	       name_is(name, len, "transfer-encoding") || name_is(name, len, "upgrade");
}

/* True when 'name' appears in the comma-separated Connection header value. */
static int named_by_connection(const char *connection, const char *name)
{
	size_t nlen = strlen(name);
	const char *s = connection;

	while (s && *s) {
		size_t len;

		s += strspn(s, " \t,");
		len = strcspn(s, " \t,");
		if (len && len == nlen && strncasecmp(s, name, len) == 0)
			return 1;
		s += len;
	}
	return 0;
}

/* ---- small helpers ------------------------------------------------------ */

/* The proxy's own error: {"error":{"message":...,"type":"proxy_error"}}. */
static void reply_proxy_error(struct evhttp_request *req, int code, const char *reason,
			      const char *message)
{
	httpserver_reply_error(req, code, reason, "proxy_error", message);
}

/*
 * Hear about the client closing while the upstream has not answered yet.
 * evhttp stops reading a connection once the request is in, so a client
 * that hangs up during a long TTFT would go unnoticed until the first write;
 * reading with no read callback (what evhttp itself does while it writes a
 * reply) turns that EOF into the connection's close callback.
 */
static void conn_watch_close(struct evhttp_connection *conn)
{
	struct bufferevent *bev = evhttp_connection_get_bufferevent(conn);
	bufferevent_data_cb readcb, writecb;
	bufferevent_event_cb eventcb;
	void *arg;

	bufferevent_getcb(bev, &readcb, &writecb, &eventcb, &arg);
	bufferevent_setcb(bev, NULL, writecb, eventcb, arg);
	bufferevent_enable(bev, EV_READ);
}

/* Pass on what is queued for q's client now (lib/httpserver.h), so a token
 * leaves as soon as it came in. */
static void flush_client(struct proxy_request *q)
{
	httpserver_flush(evhttp_request_get_connection(q->req));
}

static size_t client_backlog(struct proxy_request *q)
{
	struct evhttp_connection *conn = evhttp_request_get_connection(q->req);

	return conn ? evbuffer_get_length(bufferevent_get_output(
			      evhttp_connection_get_bufferevent(conn))) : 0;
}

/* ---- the trace ---------------------------------------------------------- */

static void begin_stop(struct proxy *p, const char *why, long grace_s);

/*
 * The trace cannot be written any more (a full disk): say so loudly and
 * stop recording, but keep proxying, so the clients do not lose their
 * endpoint; the proxy exits 1 at the end.
 */
static void stop_recording(struct proxy *p, const char *why)
{
	if (p->failed)
		return;
	p->failed = 1;
	fprintf(stderr, "%stracebench record proxy: %s\n"
		"tracebench record proxy: RECORDING STOPPED after %ld requests; still proxying "
		"(the trace holds what came before; the proxy will exit 1)\n",
		p->status_shown ? "\n" : "", why, p->n_recorded);
	p->status_shown = 0;
}

/* A request proxied but left out of the trace, said on stderr. */
static void not_recorded(struct proxy *p, const struct proxy_request *q, const char *why)
{
	fprintf(stderr, "%stracebench record proxy: request %ld not recorded: %s\n",
		p->status_shown ? "\n" : "", q->trace.id, why);
	p->status_shown = 0;
	p->n_unrecorded++;
}

/* Appends q's record: the request and, under "recorded", its outcome. */
static void record(struct proxy *p, struct proxy_request *q)
{
	cJSON *rec, *outcome;
	int rc;

	if (result_ok(&q->result)) {
		q->trace.output_tokens = q->result.output_tokens;
		q->trace.input_tokens = q->result.input_tokens;
	} else {
		p->n_errors++;
	}
	p->n_done++;
	session_join_end(&q->turn, &q->trace, clock_now_ns());
	if (p->failed)
		return;
	rec = trace_request_to_json(&q->trace);
	outcome = result_to_json(&q->result);
	if (!rec || !outcome) {
		cJSON_Delete(rec);
		cJSON_Delete(outcome);
		not_recorded(p, q, "out of memory");
		return;
	}
	cJSON_AddItemToObject(rec, "recorded", outcome);
	rc = tracefile_writer_append(p->w, rec);
	if (rc == TRACEFILE_ETOOLONG)
		not_recorded(p, q, tracefile_writer_error(p->w));
	else if (rc < 0)
		stop_recording(p, tracefile_writer_error(p->w));
	else
		p->n_recorded++;
	cJSON_Delete(rec);
}

/* ---- one request's life ------------------------------------------------- */

static void unlink_request(struct proxy *p, struct proxy_request *q)
{
	if (q->prev)
		q->prev->next = q->next;
	else
		p->active = q->next;
	if (q->next)
		q->next->prev = q->prev;
	p->n_active--;
}

static void request_free(struct proxy_request *q)
{
	size_t i;

	q->p->held -= q->held;
	for (i = 0; i < PROXY_MAX_SECRETS && q->secrets[i]; i++) {
		memset(q->secrets[i], 0, strlen(q->secrets[i]));
		free(q->secrets[i]);
	}
	free(q->uri);
	transfer_release(&q->t);
	decode_release(&q->dec);
	result_release(&q->result);
	trace_request_release(&q->trace);
	free(q);
}

/* q is over (its reply ended or abandoned): record it and free it. */
static void retire(struct proxy_request *q)
{
	struct proxy *p = q->p;

	transfer_release(&q->t);        /* off the multi handle before anything else */
	record(p, q);
	unlink_request(p, q);
	request_free(q);
	if (p->draining && p->n_active == 0) {
		/* one more pass writes the last replies' tails */
		struct timeval soon = { 0, 100000 };

		event_base_loopexit(p->base, &soon);
	}
}

/* Ends q's transfer now and records it as cancelled with 'why'; its client
 * connection, if still there, is closed (a partial reply must not look whole). */
static void cancel(struct proxy_request *q, const char *why)
{
	struct evhttp_connection *conn = q->req ? evhttp_request_get_connection(q->req) : NULL;

	result_set_error(&q->result, RESULT_ERR_CANCELLED, why);
	transfer_finish(&q->t, CURLE_ABORTED_BY_CALLBACK, clock_now_ns());
	httpserver_forget_conn(q->req, PROXY_IDLE_S * 1000L);
	if (conn)
		evhttp_connection_free(conn);   /* frees q->req with it */
	q->req = NULL;
	retire(q);
}

/*
 * The client's connection closed before the reply ended: it went away, or a
 * write failed. libevent has detached the unfinished request from the
 * connection and left it to us to free (as in mock/mock.c).
 */
static void on_conn_close(struct evhttp_connection *conn, void *arg)
{
	struct proxy_request *q = arg;

	(void)conn;
	httpserver_free_detached(q->req);
	q->req = NULL;
	cancel(q, "the client closed the connection");
}

/* The upstream's headers are all in: decide how to measure, start the reply. */
static void start_reply(struct proxy_request *q)
{
	q->replied = 1;
	transfer_response_starts(&q->t);
	q->decode_rc = decode_init(&q->dec, q->encoding, 0);
	if (!q->req)
		return;
	evhttp_send_reply_start(q->req, q->status, q->reason[0] ? q->reason : NULL);
	flush_client(q);
}

/* An "HTTP/x nnn reason" status line: q's status and reason, and the
 * headers collected so far (an interim block's) are dropped. */
static void read_status_line(struct proxy_request *q, const char *line, const char *end)
{
	const char *sp = memchr(line, ' ', (size_t)(end - line));
	size_t rlen;

	q->status = sp ? (int)strtol(sp + 1, NULL, 10) : 0;  /* digits end before 'end' */
	q->reason[0] = '\0';
	q->encoding[0] = '\0';
	if (sp && (sp = memchr(sp + 1, ' ', (size_t)(end - sp - 1)))) {
		rlen = (size_t)(end - sp - 1);
		if (rlen >= sizeof(q->reason))
			rlen = sizeof(q->reason) - 1;
		memcpy(q->reason, sp + 1, rlen);
		q->reason[rlen] = '\0';
	}
	if (q->req)
		evhttp_clear_headers(evhttp_request_get_output_headers(q->req));
}

/*
 * libcurl: one header line of the upstream's response (not NUL-terminated).
 * Headers come back unchanged whatever their length (libcurl caps a line at
 * CURL_MAX_HTTP_HEADER); when one cannot be copied, the request fails (502)
 * rather than reach the client without it.
 */
static size_t on_header(char *line, size_t size, size_t nitems, void *userp)
{
	struct proxy_request *q = userp;
	size_t len = size * nitems, nlen;
	const char *colon, *v, *end;
	char *copy;
	int rc;

	if (q->replied)         /* trailers: evhttp cannot send them; drop */
		return len;
	end = line + len;
	while (end > line && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	if (end == line) {      /* the blank line: the block is over */
		if (q->status >= 200 || q->status == 0)
			start_reply(q);
		return len;     /* 1xx: an interim block; the real one follows */
	}
	if (len > 5 && strncmp(line, "HTTP/", 5) == 0) {
		read_status_line(q, line, end);
		return len;
	}
	if (line[0] == ' ' || line[0] == '\t' ||
	    !(colon = memchr(line, ':', (size_t)(end - line))))
		return len;     /* obsolete folding or garbage: drop */
	nlen = (size_t)(colon - line);
	/* the proxy frames the reply itself (chunked): the upstream's length
	 * would make a reply cut short by a broken upstream look whole */
	if (nlen == 0 || is_hop_by_hop(line, nlen) || !q->req ||
	    (name_is(line, nlen, "content-length") && strcmp(q->trace.method, "HEAD") != 0))
		return len;
	for (v = colon + 1; v < end && (*v == ' ' || *v == '\t'); v++)
		;
	if (!(copy = malloc((size_t)(end - line) + 2)))
		return 0;       /* libcurl fails the transfer: a 502 */
	memcpy(copy, line, nlen);
	copy[nlen] = '\0';
	memcpy(copy + nlen + 1, v, (size_t)(end - v));
	copy[nlen + 1 + (end - v)] = '\0';
	if (strcasecmp(copy, "content-encoding") == 0)
		snprintf(q->encoding, sizeof(q->encoding), "%.*s", (int)sizeof(q->encoding) - 1,
			 copy + nlen + 1);
	rc = evhttp_add_header(evhttp_request_get_output_headers(q->req), copy, copy + nlen + 1);
	free(copy);
	return rc == 0 ? len : 0;
}

/* evhttp: q's client took everything queued; resume a paused upstream. */
static void on_drained(struct evhttp_connection *conn, void *arg)
{
	struct proxy_request *q = arg;

	(void)conn;
	if (q->paused) {
		q->paused = 0;
		curl_easy_pause(q->t.easy, CURLPAUSE_CONT);
	}
}

/* lib/decode: a run of the body's decoded bytes, measured; stops the
 * decoding once the response cannot be measured. */
static int measure(void *ctx, const char *buf, size_t len)
{
	struct proxy_request *q = ctx;

	return transfer_feed(&q->t, buf, len, q->piece_ns) == 0 ? 0 : 1;
}

/* libcurl: a piece of the upstream's body. Passed on first, then measured. */
static size_t on_data(char *ptr, size_t size, size_t nmemb, void *userp)
{
	struct proxy_request *q = userp;
	size_t len = size * nmemb;
	int64_t now = clock_now_ns();   /* every piece is stamped on arrival */

	if (!q->replied)
		start_reply(q);
	if (q->req) {
		if (client_backlog(q) > PROXY_HIGH_WATER) {
			q->paused = 1;   /* libcurl hands this piece again on resume */
			return CURL_WRITEFUNC_PAUSE;
		}
		evbuffer_add(q->p->scratch, ptr, len);
		evhttp_send_reply_chunk_with_cb(q->req, q->p->scratch, on_drained, q);
		evbuffer_drain(q->p->scratch, evbuffer_get_length(q->p->scratch));
		flush_client(q);
	}
	q->piece_ns = now;
	if (q->decode_rc == DECODE_OK) {       /* unmeasurable: still passed on */
		int rc = decode_feed(&q->dec, ptr, len, measure, q);

		if (rc < 0)
			q->decode_rc = rc;
	}
	return len;
}

/* lib/curlev: the upstream transfer ended with 'code': end the reply,
 * record, free. */
static void finish(void *priv, CURLcode code)
{
	struct proxy_request *q = priv;
	struct evhttp_connection *conn = q->req ? evhttp_request_get_connection(q->req) : NULL;

	if (code == CURLE_OK && !q->replied)
		start_reply(q);
	if (code == CURLE_OK && q->decode_rc != DECODE_OK && q->t.result->status >= 200 &&
	    q->t.result->status < 300) {
		char detail[160];

		/* first: the meter's view of a body it could not read is not the cause */
		snprintf(detail, sizeof(detail), "Content-Encoding '%s': %s (passed on whole, "
			 "not measured)", q->encoding, decode_strerror(q->decode_rc));
		result_set_error(&q->result, RESULT_ERR_MALFORMED, detail);
	}
	transfer_finish(&q->t, code, clock_now_ns());
	if (q->req && code != CURLE_OK && !q->replied) {
		char msg[CURL_ERROR_SIZE + 64];
		int timeout = code == CURLE_OPERATION_TIMEDOUT;

		snprintf(msg, sizeof(msg), "upstream %s: %s", timeout ? "timed out" : "failed",
			 transfer_curl_message(&q->t, code));
		httpserver_forget_conn(q->req, PROXY_IDLE_S * 1000L);
		reply_proxy_error(q->req, timeout ? 504 : 502,
				  timeout ? "Gateway Timeout" : "Bad Gateway", msg);
	} else if (q->req && code != CURLE_OK) {
		/* the reply started: cut the connection, as the upstream did */
		httpserver_forget_conn(q->req, PROXY_IDLE_S * 1000L);
		if (conn)
			evhttp_connection_free(conn);
	} else if (q->req) {
		httpserver_forget_conn(q->req, PROXY_IDLE_S * 1000L);
		evhttp_send_reply_end(q->req);
	}
	q->req = NULL;
	retire(q);
}

/* ---- accepting requests ------------------------------------------------- */

/* Copies the request line and body into q->trace (its query redacted:
 * record/capture.c), with room for its headers. Returns 0, or -1 when out
 * of memory. */
static int copy_request(struct proxy *p, struct proxy_request *q, struct evhttp_request *req,
			const char *method, const char *uri)
{
	struct redact_keep keep_query = { p->opt.keep_query, p->opt.n_keep_query };
	struct evkeyvalq *in = evhttp_request_get_input_headers(req);
	struct evbuffer *body = evhttp_request_get_input_buffer(req);
	struct evkeyval *h;
	size_t n = 0;

	q->trace.method = strdup(method);
	q->uri = strdup(uri);
	q->trace.path = capture_path(uri, &keep_query);    /* query values redacted */
	q->trace.body_len = evbuffer_get_length(body);
	q->trace.body = malloc(q->trace.body_len + 1);
	for (h = in->tqh_first; h; h = h->next.tqe_next)
		n++;
	q->trace.headers = calloc(n ? n : 1, sizeof(char *));
	if (!q->trace.method || !q->uri || !q->trace.path || !q->trace.body || !q->trace.headers)
		return -1;
	evbuffer_copyout(body, q->trace.body, q->trace.body_len);
	q->trace.body[q->trace.body_len] = '\0';
	return 0;
}

/* Passes the client's headers on upstream (hop-by-hop ones excepted) and
 * copies them into q->trace as record/capture.c allows (values outside the
 * allowlist redacted, credentials left out). Whatever the trace does not
 * keep - credentials, redacted header values, redacted query values - is
 * kept aside to be scrubbed from error details: an upstream that echoes
 * the request must not bring it back into the file. Returns 0 or -1. */
static int copy_headers(struct proxy *p, struct proxy_request *q, struct evhttp_request *req)
{
	struct evkeyvalq *in = evhttp_request_get_input_headers(req);
	const char *connection = evhttp_find_header(in, "Connection");
	struct redact_keep keep = { p->opt.keep, p->opt.n_keep };
	struct redact_keep keep_query = { p->opt.keep_query, p->opt.n_keep_query };
	int have_accept = 0, have_ctype = 0, rc;
	size_t n_secrets = 0;
	struct evkeyval *h;

	for (h = in->tqh_first; h; h = h->next.tqe_next) {
		size_t nlen = strlen(h->key), len = nlen + strlen(h->value) + 3;
		char *line;

		if (name_is(h->key, nlen, "host") || name_is(h->key, nlen, "content-length") ||
		    name_is(h->key, nlen, "expect") || is_hop_by_hop(h->key, nlen) ||
		    named_by_connection(connection, h->key))
			continue;
		if (redact_header_is_secret(h->key, nlen) && n_secrets < PROXY_MAX_SECRETS) {
			/* "Bearer sk-...": the credential is what follows the scheme */
			const char *v = strchr(h->value, ' ');

			v = v ? v + strspn(v, " ") : h->value;
			if (strlen(v) >= 4 && !(q->secrets[n_secrets++] = strdup(v)))
				return -1;
		}
		if (!(line = malloc(len)))
			return -1;
		have_accept |= name_is(h->key, nlen, "accept");
		have_ctype |= name_is(h->key, nlen, "content-type");
		/* "Name;" is libcurl's way to send a header with an empty value */
		snprintf(line, len, h->value[0] ? "%s: %s" : "%s;", h->key, h->value);
		rc = transfer_add_header(&q->t, line);
		memset(line, 0, len);
		free(line);
		if (rc < 0 || capture_header_line(h->key, h->value, &keep, &line) < 0)
			return -1;
		if (line)
			q->trace.headers[q->trace.n_headers++] = line;
		/* a value recorded as REDACTED is a secret of this request too */
		if (line && !redact_header_is_secret(h->key, nlen) &&
		    !redact_header_is_safe(h->key, nlen, &keep) && strlen(h->value) >= 4 &&
		    n_secrets < PROXY_MAX_SECRETS && !(q->secrets[n_secrets++] = strdup(h->value)))
			return -1;
	}
	if (redact_url_values(q->uri, &keep_query, q->secrets, &n_secrets, PROXY_MAX_SECRETS))
		return -1;
	q->result.secrets = (const char *const *)q->secrets;
	q->result.n_secrets = n_secrets;
	/* Headers libcurl would add on its own are switched off: the upstream
	 * sees what the client sent. */
	if ((!have_accept && transfer_add_header(&q->t, "Accept:") < 0) ||
	    (!have_ctype && transfer_add_header(&q->t, "Content-Type:") < 0))
		return -1;
	return 0;
}

/* Sets up q's upstream transfer for the copied request, measured from
 * 'arrival'. Returns 0, or -1 when out of memory. */
static int setup_transfer(struct proxy *p, struct proxy_request *q, struct evhttp_request *req,
			  int64_t arrival)
{
	struct transfer_options o = {
		.timeout_ms = p->opt.timeout_s * 1000L,
		.connect_timeout_ms = p->opt.connect_timeout_s * 1000L,
		.insecure = p->opt.insecure,
		.max_body = PROXY_MAX_MEASURED,
	};

	if (transfer_init(&q->t, &o, p->upstream, q->uri, &q->result, arrival,
			  on_data, q) < 0 || copy_headers(p, q, req) < 0)
		return -1;
	transfer_set_request(&q->t, q->trace.method, q->trace.body, q->trace.body_len);
	meter_set_kind(&q->t.meter, q->trace.kind);
	curl_easy_setopt(q->t.easy, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(q->t.easy, CURLOPT_HEADERDATA, q);
	return 0;
}

/*
 * Checks req (record/capture.c) and the memory budget. Returns 0, or
 * replies with the refusal and returns -1.
 */
static int check_request(struct proxy *p, struct evhttp_request *req, const char *method,
			 const char *uri)
{
	struct evkeyvalq *in = evhttp_request_get_input_headers(req);
	struct evbuffer *body = evhttp_request_get_input_buffer(req);
	struct capture_header hs[256];
	struct evkeyval *h;
	size_t n = 0, len = evbuffer_get_length(body);
	char why[256];
	int status;

	for (h = in->tqh_first; h && n < sizeof(hs) / sizeof(hs[0]); h = h->next.tqe_next) {
		hs[n].name = h->key;
		hs[n++].value = h->value;
	}
	if (h) {
		reply_proxy_error(req, 431, "Request Header Fields Too Large",
				  "more than 256 request headers");
		return -1;
	}
	status = capture_check(method, uri, hs, n, (const char *)evbuffer_pullup(body, -1),
			       len, why, sizeof(why));
	if (status) {
		reply_proxy_error(req, status, status == 413 ? "Payload Too Large" : "Bad Request",
				  why);
		return -1;
	}
	if (p->held + len > p->budget) {
		snprintf(why, sizeof(why), "the proxy's memory budget (%zu MiB of request bodies) "
			 "is taken by the requests in flight; retry later", p->budget >> 20);
		reply_proxy_error(req, 503, "Service Unavailable", why);
		return -1;
	}
	return 0;
}

/* evhttp's callback for every complete request, whatever its path. */
static void on_request(struct evhttp_request *req, void *arg)
{
	struct proxy *p = arg;
	int64_t arrival = clock_now_ns();
	const char *method = httpserver_method_name(evhttp_request_get_command(req));
	const char *uri = evhttp_request_get_uri(req);
	struct evhttp_connection *conn = evhttp_request_get_connection(req);
	struct proxy_request *q;

	if (p->draining) {
		reply_proxy_error(req, 503, "Service Unavailable", "the proxy is shutting down");
		return;
	}
	if (!method || !uri) {
		reply_proxy_error(req, 400, "Bad Request", "the proxy cannot read this request");
		return;
	}
	if (check_request(p, req, method, uri) < 0)
		return;
	if (!(q = calloc(1, sizeof(*q))))
		goto oom;
	q->p = p;
	q->held = evbuffer_get_length(evhttp_request_get_input_buffer(req));
	p->held += q->held;
	trace_request_init(&q->trace);
	result_init(&q->result);
	q->trace.kind = trace_kind_of(method, uri);
	q->trace.id = p->next_id;
	q->trace.arrival_ns = arrival - p->start_ns;
	q->result.seq = q->result.trace_id = p->next_id;
	q->result.sched_ns = q->result.send_ns = arrival - p->start_ns;
	if (copy_request(p, q, req, method, uri) < 0 || setup_transfer(p, q, req, arrival) < 0 ||
	    session_join(&p->sessions, evhttp_request_get_input_headers(req), &q->trace, arrival,
			 &q->turn) < 0 ||
	    transfer_start(&q->t, p->multi) < 0) {
		request_free(q);
		goto oom;
	}
	p->next_id++;
	q->req = req;
	q->next = p->active;
	if (p->active)
		p->active->prev = q;
	p->active = q;
	p->n_active++;
	httpserver_busy(conn, 1, PROXY_IDLE_S * 1000L);
	conn_watch_close(conn);
	evhttp_connection_set_closecb(conn, on_conn_close, q);
	if (p->opt.max_requests && p->next_id >= p->opt.max_requests)
		begin_stop(p, NULL, 0);
	return;
oom:
	reply_proxy_error(req, 500, "Internal Server Error", "the proxy is out of memory");
}

/* ---- stopping ----------------------------------------------------------- */

/* cancel() unlinks the head from its q->p, which is p, so p->active moves
 * on before q is freed; the analyzer does not connect q->p with p. */
static void cancel_all(struct proxy *p, const char *why)
{
	while (p->active)
		cancel(p->active, why);  /* NOLINT(clang-analyzer-unix.Malloc) */
	event_base_loopexit(p->base, NULL);
}

static void on_grace_over(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	cancel_all(arg, "the proxy stopped (grace period over)");
}

/*
 * Stops accepting; open requests may finish within grace_s seconds (0: no
 * limit), then the loop ends. 'why' (may be NULL) is said on stderr.
 */
static void begin_stop(struct proxy *p, const char *why, long grace_s)
{
	if (p->draining)
		return;
	p->draining = 1;
	if (p->bound) {
		evhttp_del_accept_socket(p->http, p->bound);
		p->bound = NULL;
	}
	if (why && p->n_active > 0)
		fprintf(stderr, "%stracebench record proxy: %s; letting %zu open request%s "
			"finish (up to %ld s; again to end them now)\n",
			p->status_shown ? "\n" : "", why, p->n_active,
			p->n_active == 1 ? "" : "s", grace_s);
	p->status_shown = 0;
	if (p->n_active == 0) {
		event_base_loopexit(p->base, NULL);
	} else if (grace_s > 0) {
		struct timeval tv = { grace_s, 0 };

		evtimer_add(p->grace_timer, &tv);
	}
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct proxy *p = arg;

	(void)what;
	if (p->draining)
		cancel_all(p, "the proxy stopped (second signal)");
	else
		begin_stop(p, sig == SIGINT ? "interrupted" : "terminated", p->opt.grace_s);
}

static void on_duration(evutil_socket_t fd, short what, void *arg)
{
	struct proxy *p = arg;

	(void)fd;
	(void)what;
	begin_stop(p, "--duration reached", p->opt.grace_s);
}

static void on_flush_timer(evutil_socket_t fd, short what, void *arg)
{
	struct proxy *p = arg;

	(void)fd;
	(void)what;
	if (!p->failed && tracefile_writer_flush(p->w) < 0)
		stop_recording(p, tracefile_writer_error(p->w));
}

static void on_status_timer(evutil_socket_t fd, short what, void *arg)
{
	struct proxy *p = arg;

	(void)fd;
	(void)what;
	fprintf(stderr, "\r\033[Ktracebench record proxy: %.0f s, %ld requests, %zu open, "
		"%ld errors%s", (double)(clock_now_ns() - p->start_ns) / NS_PER_S,
		p->n_done, p->n_active, p->n_errors, p->draining ? ", stopping" : "");
	p->status_shown = 1;
}

/* ---- start-up ----------------------------------------------------------- */

/* Write "PORT\n" to path.tmp, then rename it to path. Returns 0 or -1 (printed). */
static cJSON *make_header(const struct proxy *p)
{
	cJSON *h = cJSON_CreateObject();
	cJSON *src = cJSON_AddObjectToObject(h, "source");
	char created[32];

	clock_utc_iso8601(created, sizeof(created));
	if (p->opt.session_header || p->opt.session_prefix)   /* session records (FORMAT.md) */
		cJSON_AddNumberToObject(h, "version", 2);
	cJSON_AddStringToObject(h, "created", created);
	cJSON_AddStringToObject(h, "tool", "tracebench " TB_VERSION);
	cJSON_AddStringToObject(src, "kind", "proxy");
	cJSON_AddStringToObject(src, "upstream", p->upstream_shown);
	if (p->opt.session_header)
		cJSON_AddStringToObject(src, "session_header", p->opt.session_header);
	if (p->opt.session_prefix)
		cJSON_AddStringToObject(src, "sessions", "prefix");
	return h;
}

static void on_libevent_log(int severity, const char *msg)
{
	if (severity >= EVENT_LOG_WARN)
		fprintf(stderr, "tracebench record proxy: libevent: %s\n", msg);
}

/* The event loop, the listening side and libcurl's side of it. Returns
 * 0, or -1 after saying why. */
static int setup_loop(struct proxy *p)
{
	p->base = httpserver_base_new();
	if (p->base) {
		p->http = httpserver_new(p->base, on_request, p, p->opt.max_body, PROXY_MAX_HEADERS,
					 PROXY_IDLE_S);
		p->curlev = curlev_new(p->base, finish);
		p->flush_timer = event_new(p->base, -1, EV_PERSIST, on_flush_timer, p);
		p->status_timer = event_new(p->base, -1, EV_PERSIST, on_status_timer, p);
		p->grace_timer = evtimer_new(p->base, on_grace_over, p);
		p->stop_timer = evtimer_new(p->base, on_duration, p);
		p->sigint = evsignal_new(p->base, SIGINT, on_signal, p);
		p->sigterm = evsignal_new(p->base, SIGTERM, on_signal, p);
	}
	p->multi = p->curlev ? curlev_multi(p->curlev) : NULL;
	p->scratch = evbuffer_new();
	if (!p->http || !p->curlev || !p->flush_timer || !p->status_timer || !p->grace_timer ||
	    !p->stop_timer || !p->sigint || !p->sigterm || !p->multi || !p->scratch) {
		fprintf(stderr, "tracebench record proxy: cannot set up the event loop\n");
		return -1;
	}
	/* libcurl sizes its connection cache by the transfers in flight, so
	 * the upstream connections of a finished burst would be closed and the
	 * next burst would pay for new ones: keep them. */
	curl_multi_setopt(p->multi, CURLMOPT_MAXCONNECTS, (long)PROXY_MAX_IDLE_UPSTREAM);
	evhttp_set_default_content_type(p->http, NULL);  /* add nothing of our own */
	evhttp_set_allowed_methods(p->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD |
				   EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS |
				   EVHTTP_REQ_PATCH);
	return 0;
}

/*
 * Listens, refuses an upstream that is the proxy itself, creates the trace
 * and announces the port. Returns 0 or the exit status (printed).
 */
static int open_proxy(struct proxy *p, const char *up_host, long up_port)
{
	struct sockaddr_storage self;
	char err[TRACEFILE_ERRLEN] = "";
	cJSON *header;

	p->bound = httpserver_listen(p->http, p->opt.host, &p->opt.port, &self, err, sizeof(err));
	if (!p->bound) {
		fprintf(stderr, "tracebench record proxy: %s\n", err);
		return CLI_EXIT_FAILED;
	}
	if (upstream_is_self((struct sockaddr *)&self, up_host, up_port)) {
		fprintf(stderr, "tracebench record proxy: the upstream '%s' is this proxy's own "
			"address; it would forward to itself\n", p->upstream_shown);
		return CLI_EXIT_USAGE;
	}
	/* Signals are handled before the trace exists and the port is
	 * announced: one arriving in between would end the process and leave
	 * the file unfinished. */
	evsignal_add(p->sigint, NULL);
	evsignal_add(p->sigterm, NULL);
	header = make_header(p);
	p->w = tracefile_writer_open(p->opt.output, TRACEFILE_KIND_TRACE, header, p->opt.force,
				     err, sizeof(err));
	cJSON_Delete(header);
	if (!p->w) {
		fprintf(stderr, "tracebench record proxy: %s\n", err);
		return CLI_EXIT_USAGE;
	}
	if (p->opt.port_file &&
	    httpserver_write_port_file(p->opt.port_file, p->opt.port, err, sizeof(err)) < 0) {
		fprintf(stderr, "tracebench record proxy: %s\n", err);
		return CLI_EXIT_FAILED;
	}
	return 0;
}

/* The flush and status timers and --duration's. */
static void start_timers(struct proxy *p)
{
	struct timeval second = { 1, 0 }, status = { PROXY_STATUS_S, 0 };
	int progress = p->opt.progress < 0 ? isatty(STDERR_FILENO) : p->opt.progress;

	evtimer_add(p->flush_timer, &second);
	if (progress)
		evtimer_add(p->status_timer, &status);
	if (p->opt.duration_s > 0) {
		struct timeval d;

		d.tv_sec = (time_t)p->opt.duration_s;
		d.tv_usec = (suseconds_t)((p->opt.duration_s - (double)d.tv_sec) * 1e6);
		evtimer_add(p->stop_timer, &d);
	}
}

/* Closes the trace (saying what it holds when rc is 0) and frees the
 * rest. Returns rc, or 1 when the trace could not be finished. */
static int release_proxy(struct proxy *p, int rc)
{
	char err[TRACEFILE_ERRLEN] = "";

	while (p->active)       /* the loop failed: nothing more to send */
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): as in cancel_all */
		cancel(p->active, "the proxy stopped");
	if (p->w) {
		if (tracefile_writer_close(p->w, err, sizeof(err)) < 0) {
			fprintf(stderr, "tracebench record proxy: %s\n", err);
			rc = CLI_EXIT_FAILED;
		} else if (p->failed) {
			fprintf(stderr, "%stracebench record proxy: proxied %ld request%s; only the "
				"first %ld are in '%s' (recording stopped)\n", p->status_shown ? "\n" : "",
				p->n_done, p->n_done == 1 ? "" : "s", p->n_recorded, p->opt.output);
		} else if (rc == 0) {
			fprintf(stderr, "%stracebench record proxy: recorded %ld request%s "
				"(%ld failed) to '%s'\n", p->status_shown ? "\n" : "", p->n_recorded,
				p->n_recorded == 1 ? "" : "s", p->n_errors, p->opt.output);
			if (p->n_unrecorded)
				fprintf(stderr, "tracebench record proxy: %ld request%s proxied but "
					"not recorded (said above)\n", p->n_unrecorded,
					p->n_unrecorded == 1 ? "" : "s");
		}
	}
	if (p->http)
		evhttp_free(p->http);   /* closes connections, frees their requests */
	curlev_free(p->curlev);
	if (p->scratch)
		evbuffer_free(p->scratch);
	if (p->flush_timer)
		event_free(p->flush_timer);
	if (p->status_timer)
		event_free(p->status_timer);
	if (p->grace_timer)
		event_free(p->grace_timer);
	if (p->stop_timer)
		event_free(p->stop_timer);
	if (p->sigint)
		event_free(p->sigint);
	if (p->sigterm)
		event_free(p->sigterm);
	if (p->base)
		event_base_free(p->base);
	session_join_release(&p->sessions);
	free(p->upstream);
	free(p->upstream_shown);
	return rc;
}

int proxy_run(const struct proxy_options *o)
{
	struct proxy p;
	char *up_host = NULL;
	long up_port = 0;
	int rc;

	memset(&p, 0, sizeof(p));
	p.opt = *o;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fprintf(stderr, "tracebench record proxy: cannot initialize libcurl\n");
		return CLI_EXIT_FAILED;
	}
	rc = CLI_EXIT_USAGE;
	if (upstream_parse(p.opt.upstream, &p.upstream, &p.upstream_shown, &up_host, &up_port) != 0)
		goto cleanup;
	p.budget = (size_t)p.opt.max_body * PROXY_BUDGET_BODIES;
	if (session_join_init(&p.sessions, p.opt.session_header, p.opt.session_prefix) < 0) {
		fprintf(stderr, "tracebench record proxy: out of memory\n");
		rc = CLI_EXIT_FAILED;
		goto cleanup;
	}
	signal(SIGPIPE, SIG_IGN);       /* a vanished client is not fatal */
	event_set_log_callback(on_libevent_log);
	cli_raise_fd_limit();   /* a few thousand streams open two sockets each */
	if (setup_loop(&p) < 0) {
		rc = CLI_EXIT_FAILED;
		goto cleanup;
	}
	if ((rc = open_proxy(&p, up_host, up_port)) != 0)
		goto cleanup;
	start_timers(&p);
	p.start_ns = clock_now_ns();
	fprintf(stderr, "tracebench record proxy: listening on http://%s%s%s:%d, forwarding to %s, "
		"recording to '%s'\n", strchr(p.opt.host, ':') ? "[" : "", p.opt.host,
		strchr(p.opt.host, ':') ? "]" : "", p.opt.port, p.upstream_shown, p.opt.output);
	if (event_base_dispatch(p.base) < 0) {
		fprintf(stderr, "tracebench record proxy: event loop failed\n");
		rc = CLI_EXIT_FAILED;
		goto cleanup;
	}
	rc = p.failed ? CLI_EXIT_FAILED : CLI_EXIT_OK;
cleanup:
	rc = release_proxy(&p, rc);
	curl_free(up_host);
	curl_global_cleanup();
	return rc;
}
