/*
 * mock.c - `tracebench mock`: a deterministic OpenAI-compatible streaming
 * server.
 *
 * It is the endpoint the demo and the tests replay against, and the way
 * tracebench measures its own overhead: every token leaves on a known
 * schedule, so whatever replay measures beyond that schedule is the
 * toolkit's (or the network's) doing, not the model's.
 *
 * One process, one libevent loop, one timer per in-flight request; nothing
 * ever sleeps, so thousands of concurrent streams cost a few kilobytes each.
 * HTTP is libevent's evhttp; request bodies are parsed with cJSON.
 *
 * Timing model (CLOCK_MONOTONIC, see lib/clock.h): token k of a request that
 * arrived at A is due at
 *
 *     A + ttft + k * itl
 *
 * Each due time is the previous one plus a gap, never "now" plus a gap, so a
 * late timer does not push later tokens back. With --profile batching, ttft
 * and each gap are stretched by 1 + slope * (active - 1), active being the
 * number of requests in flight when that timer is set: a continuous-batching
 * server shares its decode steps between the requests in its batch.
 *
 * With --noise (mock/noise.h) ttft, prefill and each gap are further
 * multiplied by the host's drift at the time (the wall clock's, so that
 * every mock on the host shares it), the instance's factor and the
 * request's jitter (drawn from --seed and the request's number), ttft and
 * prefill by the request's tail too, and a due time inside a stall moves
 * to the stall's end. Without it the schedule is the exact one above.
 *
 * Request lifecycle: on_request() (here) routes; parse_request()
 * (request.c) reads the body; stream_start() (stream.c, as every stream_
 * function) creates a struct mock_stream and arms its timer;
 * stream_tick() emits one token per firing; stream_finish() sends the tail
 * and frees the stream. If the client goes away first, on_conn_close() frees
 * it instead. Fault injection (error rates, resets, stalls) belongs in
 * stream_start() (decide per request) and stream_tick() (act per token);
 * faults of the byte stream (--trickle-us, --no-final-newline) in
 * stream_event(), through which every SSE event leaves. This file holds
 * the start-up, the routing, the small endpoints and the reply helpers;
 * server.h says which file holds what else.
 */
#include "mock/mock.h"
#include "mock/server.h"
#include "mock/noise.h"
#include "mock/options.h"
#include "lib/cli.h"
#include "lib/clock.h"
#include "lib/httpserver.h"
#include "lib/random.h"
#include "lib/strbuf.h"

#include <ctype.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <zlib.h>

#include <cjson/cJSON.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

/* The deterministic vocabulary: token k is " " + mock_words[k % 16]. */
const char *const mock_words[16] = {
	"the", "quick", "brown", "fox", "jumps", "over", "a", "lazy",
	"dog", "while", "mock", "tokens", "stream", "on", "time", "again",
};

/* The same with the space that leads each token on the wire. */
const char *const mock_spaced[16] = {
	" the", " quick", " brown", " fox", " jumps", " over", " a", " lazy",
	" dog", " while", " mock", " tokens", " stream", " on", " time", " again",
};

const char *token_word(long k)
{
	size_t nwords = sizeof(mock_words) / sizeof(mock_words[0]);

	return mock_words[(unsigned long)k % nwords];
}

/* Set once at start-up from --gzip; read by the reply helpers, which have
 * no server at hand. */
static int mock_gzip_on;

/* True when the request's Accept-Encoding names gzip (and --gzip is on). */
int wants_gzip(struct evhttp_request *req)
{
	const char *ae = evhttp_find_header(evhttp_request_get_input_headers(req),
					    "Accept-Encoding");

	return mock_gzip_on && ae && strstr(ae, "gzip") && !strstr(ae, "gzip;q=0");
}

/* A deflate stream writing the gzip format; NULL when out of memory. */
z_stream *gzip_new(void)
{
	z_stream *z = calloc(1, sizeof(*z));

	if (z && deflateInit2(z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
			      Z_DEFAULT_STRATEGY) != Z_OK) {
		free(z);
		z = NULL;
	}
	return z;
}

void gzip_free(z_stream *z)
{
	if (z) {
		deflateEnd(z);
		free(z);
	}
}

/*
 * Replaces the contents of b with their deflation through z, flushed
 * (Z_SYNC_FLUSH: the client can decode every event as it arrives) or, with
 * 'finish', ended. 'tmp' is a scratch buffer. Returns 0 or -1.
 */
int gzip_buffer(z_stream *z, struct evbuffer *b, struct evbuffer *tmp, int finish)
{
	size_t len = evbuffer_get_length(b);
	unsigned char *in = len ? evbuffer_pullup(b, -1) : NULL;
	struct evbuffer_iovec v;
	int zrc;

	z->next_in = in;
	z->avail_in = (uInt)len;
	do {
		if (evbuffer_reserve_space(tmp, 4096, &v, 1) < 1)
			return -1;
		z->next_out = v.iov_base;
		z->avail_out = (uInt)v.iov_len;
		zrc = deflate(z, finish ? Z_FINISH : Z_SYNC_FLUSH);
		v.iov_len -= z->avail_out;
		evbuffer_commit_space(tmp, &v, 1);
	} while (zrc == Z_OK && z->avail_out == 0);
	evbuffer_drain(b, len);
	evbuffer_add_buffer(b, tmp);
	return zrc == Z_OK || zrc == Z_STREAM_END || zrc == Z_BUF_ERROR ? 0 : -1;
}

/* printf into a new string (malloc, caller frees); NULL when out of memory. */
char *str_printf(const char *fmt, ...)
{
	va_list ap;
	char *out;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (len < 0 || !(out = malloc((size_t)len + 1)))
		return NULL;
	va_start(ap, fmt);
	vsnprintf(out, (size_t)len + 1, fmt, ap);
	va_end(ap);
	return out;
}

/* ---- replies ----------------------------------------------------------- */

/* Send 'obj' as the whole reply, as JSON (gzip'd for a client that asks,
 * with --gzip), then free it (cJSON_Delete). */
void reply_cjson(struct evhttp_request *req, int code,
			const char *reason, cJSON *obj)
{
	char *text;
	struct evbuffer *body, *tmp;
	z_stream *z;

	if (!wants_gzip(req)) {
		httpserver_reply_json(req, code, reason, obj);
		return;
	}
	text = obj ? cJSON_PrintUnformatted(obj) : NULL;
	body = evbuffer_new();
	tmp = evbuffer_new();
	z = gzip_new();
	if (text && body && tmp && z && evbuffer_add_printf(body, "%s\n", text) > 0 &&
	    gzip_buffer(z, body, tmp, 1) == 0) {
		evhttp_add_header(evhttp_request_get_output_headers(req),
				  "Content-Type", "application/json");
		evhttp_add_header(evhttp_request_get_output_headers(req),
				  "Content-Encoding", "gzip");
		evhttp_send_reply(req, code, reason, body);
	} else {
		evhttp_send_error(req, HTTP_INTERNAL, "out of memory");
	}
	if (body)
		evbuffer_free(body);
	if (tmp)
		evbuffer_free(tmp);
	gzip_free(z);
	cJSON_free(text);
	cJSON_Delete(obj);
}

/* vLLM's error: {"object":"error","message":...,"type":...,"param":...,"code":N}. */
void reply_vllm_error(struct evhttp_request *req, int code, const char *type,
			     const char *param, const char *fmt, ...)
{
	cJSON *root = cJSON_CreateObject();
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cJSON_AddStringToObject(root, "object", "error");
	cJSON_AddStringToObject(root, "message", msg);
	cJSON_AddStringToObject(root, "type", type);
	if (param)
		cJSON_AddStringToObject(root, "param", param);
	else
		cJSON_AddNullToObject(root, "param");
	cJSON_AddNumberToObject(root, "code", code);
	reply_cjson(req, code, code == 404 ? "Not Found" : "Bad Request", root);
}

/* An OpenAI-style error: {"error":{"message":...,"type":...,"code":N}}. */
void reply_error(struct evhttp_request *req, int code,
			const char *reason, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	httpserver_reply_error(req, code, reason,
			       code >= 500 ? "server_error" : "invalid_request_error", msg);
}

/* ---- routing ----------------------------------------------------------- */

/* One entry of /v1/models; an adapter (parent non-NULL) names its base
 * model as vLLM lists a LoRA adapter. */
static void add_model_entry(cJSON *data, const struct mock_server *srv, const char *id,
			    const char *parent)
{
	cJSON *model = cJSON_CreateObject();

	cJSON_AddItemToArray(data, model);
	cJSON_AddStringToObject(model, "id", id);
	cJSON_AddStringToObject(model, "object", "model");
	cJSON_AddNumberToObject(model, "created", (double)time(NULL));
	cJSON_AddStringToObject(model, "owned_by", "tracebench");
	cJSON_AddStringToObject(model, "root", parent ? parent : id);
	if (parent)
		cJSON_AddStringToObject(model, "parent", parent);
	cJSON_AddNumberToObject(model, "max_model_len", (double)srv->opt.max_model_len);
}

static void reply_models(struct mock_server *srv, struct evhttp_request *req)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *data;
	size_t i;

	cJSON_AddStringToObject(root, "object", "list");
	data = cJSON_AddArrayToObject(root, "data");
	add_model_entry(data, srv, srv->opt.model, NULL);
	for (i = 0; i < srv->opt.models.n; i++)
		if (strcmp(srv->opt.models.e[i].name, srv->opt.model) != 0)
			add_model_entry(data, srv, srv->opt.models.e[i].name, srv->opt.model);
	reply_cjson(req, HTTP_OK, "OK", root);
}

/* POST /tokenize: {"prompt": ...} or {"messages": [...]} as vLLM answers it,
 * {"count":N,"max_model_len":M,"tokens":[ids]}, each word an id. */
static void reply_tokenize(struct mock_server *srv, struct evhttp_request *req)
{
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	cJSON *body = cJSON_ParseWithLength((char *)evbuffer_pullup(in, -1),
					    evbuffer_get_length(in));
	struct mock_tokens tk = { 0 };
	const char *why = "request body must be a JSON object";
	cJSON *root, *ids;
	size_t i;
	int one = 1;

	if (!cJSON_IsObject(body) ||
	    prompt_tokens(body, cJSON_GetObjectItemCaseSensitive(body, "messages") ?
			  MOCK_API_CHAT : MOCK_API_COMPLETIONS, &tk, &why) < 0) {
		reply_vllm_error(req, 400, "BadRequestError", NULL, "%s", why);
		free(tk.t);
		cJSON_Delete(body);
		return;
	}
	root = cJSON_CreateObject();
	cJSON_AddNumberToObject(root, "count", (double)tk.n);
	cJSON_AddNumberToObject(root, "max_model_len", (double)srv->opt.max_model_len);
	ids = cJSON_AddArrayToObject(root, "tokens");
	for (i = 0; ids && i < tk.n; i++)
		cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)(tk.t[i] % MOCK_VOCAB)));
	free(tk.t);
	cJSON_Delete(body);
	/* a long token list leaves in two segments; with Nagle on, the second
	 * waits out the client's delayed ACK (40 ms) on a kept-alive
	 * connection, which record --tokenizer-url reuses for every prompt */
	setsockopt(bufferevent_getfd(evhttp_connection_get_bufferevent(
			   evhttp_request_get_connection(req))), IPPROTO_TCP, TCP_NODELAY,
		   &one, sizeof(one));
	reply_cjson(req, HTTP_OK, "OK", root);
}

/* vLLM's (V1) bucket bounds, seconds: of time to first token, and of
 * the request latencies (end to end, queue time). */
static const double ttft_le[] = {
	0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
	7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0
};
static const double request_le[] = {
	0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
	120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0
};

static void hist_init(struct mock_hist *h, const double *le, size_t n)
{
	memset(h, 0, sizeof(*h));
	h->le = le;
	h->n = n < MOCK_HIST_MAX ? n : MOCK_HIST_MAX;
}

static void hist_observe(struct mock_hist *h, int64_t ns)
{
	double v = (double)(ns > 0 ? ns : 0) / NS_PER_S;
	size_t i;

	for (i = 0; i < h->n && v > h->le[i]; i++)
		;
	if (i < h->n)
		h->below[i]++;
	h->count++;
	h->sum += v;
}

void mock_observe(struct mock_server *srv, const struct mock_stream *s, int64_t end_ns)
{
	hist_observe(&srv->hist.queue, s->admit_ns - s->arrival_ns);
	if (s->first_ns)
		hist_observe(&srv->hist.ttft, s->first_ns - s->arrival_ns);
	hist_observe(&srv->hist.e2e, end_ns - s->arrival_ns);
}

/* A histogram in the exposition format: its buckets (cumulative, +Inf
 * last), sum and count. Returns 0, or -1 when out of memory. */
static int hist_print(struct evbuffer *b, const char *name, const char *help,
		      const struct mock_hist *h, const char *model)
{
	unsigned long long cum = 0;
	size_t i;

	if (evbuffer_add_printf(b, "# HELP vllm:%s %s\n# TYPE vllm:%s histogram\n",
				name, help, name) < 0)
		return -1;
	for (i = 0; i < h->n; i++) {
		cum += h->below[i];
		if (evbuffer_add_printf(b, "vllm:%s_bucket{le=\"%g\",model_name=\"%s\"} %llu\n",
					name, h->le[i], model, cum) < 0)
			return -1;
	}
	return evbuffer_add_printf(b, "vllm:%s_bucket{le=\"+Inf\",model_name=\"%s\"} %llu\n"
				   "vllm:%s_sum{model_name=\"%s\"} %.6f\n"
				   "vllm:%s_count{model_name=\"%s\"} %llu\n",
				   name, model, h->count, name, model, h->sum, name, model,
				   h->count) < 0 ? -1 : 0;
}

/* With --models: the streams begun for each served model, so that a test
 * can hold what replay --model-mix sent against what arrived. */
static int print_model_requests(struct evbuffer *b, const struct mock_server *srv)
{
	size_t i;

	if (evbuffer_add_printf(b, "# HELP tracebench_mock_model_requests_total Generation "
				"requests begun, by the model they named.\n"
				"# TYPE tracebench_mock_model_requests_total counter\n"
				"tracebench_mock_model_requests_total{model=\"%s\"} %llu\n",
				srv->opt.model, srv->model_requests[0]) < 0)
		return -1;
	for (i = 0; i < srv->opt.models.n; i++)
		if (strcmp(srv->opt.models.e[i].name, srv->opt.model) != 0 &&
		    evbuffer_add_printf(b, "tracebench_mock_model_requests_total{model=\"%s\"} %llu\n",
					srv->opt.models.e[i].name, srv->model_requests[1 + i]) < 0)
			return -1;
	return 0;
}

/*
 * GET /metrics: the Prometheus text format with vLLM's (V1) names and the
 * mock's own state: requests in flight (waiting: held by --stall-ms, not
 * yet started, or queued for one of --slots; running: the rest), the prefix cache's fill as the KV-cache
 * use and its token lookups and hits, the token and request counters since
 * start, and the histograms of time to first token, end to end and queue
 * time with vLLM's bounds, filled with each request's true times as it
 * ends (so a test can hold the estimate from buckets against the truth).
 * The mock never preempts, so that counter stays 0; without a prefix
 * cache the cache figures are left out, not made up.
 */
static void reply_metrics(struct mock_server *srv, struct evhttp_request *req)
{
	struct evbuffer *b = evbuffer_new();
	const struct mock_counters *c = &srv->count;
	const struct mock_stream *st;
	int64_t now = clock_now_ns();
	long waiting = 0;
	const char *m = srv->opt.model;
	int ok = b != NULL;

	for (st = srv->streams; st; st = st->next)
		if (!st->queued && st->admit_ns > now)
			waiting++;
#define METRIC(kind, name, help, fmt, ...) \
	(ok = ok && evbuffer_add_printf(b, "# HELP vllm:" name " " help "\n" \
		"# TYPE vllm:" name " %s\n" fmt, kind, __VA_ARGS__) > 0)
	METRIC("gauge", "num_requests_running", "Number of requests in model execution batches.",
	       "vllm:num_requests_running{model_name=\"%s\"} %ld\n", m, srv->active - waiting);
	METRIC("gauge", "num_requests_waiting", "Number of requests waiting to be processed.",
	       "vllm:num_requests_waiting{model_name=\"%s\"} %ld\n", m, waiting + srv->queued);
	if (srv->opt.cache_blocks) {
		METRIC("gauge", "kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.",
		       "vllm:kv_cache_usage_perc{model_name=\"%s\"} %.6f\n", m,
		       (double)srv->cache.used / (double)srv->opt.cache_blocks);
		METRIC("counter", "prefix_cache_queries", "Prefix cache queries, in terms of "
		       "number of queried tokens.",
		       "vllm:prefix_cache_queries_total{model_name=\"%s\"} %llu\n", m,
		       c->cache_queries);
		METRIC("counter", "prefix_cache_hits", "Prefix cache hits, in terms of number "
		       "of cached tokens.",
		       "vllm:prefix_cache_hits_total{model_name=\"%s\"} %llu\n", m, c->cache_hits);
	}
	METRIC("counter", "num_preemptions", "Cumulative number of preemption from the engine.",
	       "vllm:num_preemptions_total{model_name=\"%s\"} %d\n", m, 0);
	METRIC("counter", "prompt_tokens", "Number of prefill tokens processed.",
	       "vllm:prompt_tokens_total{model_name=\"%s\"} %llu\n", m, c->prompt_tokens);
	METRIC("counter", "generation_tokens", "Number of generation tokens processed.",
	       "vllm:generation_tokens_total{model_name=\"%s\"} %llu\n", m, c->generation_tokens);
	METRIC("counter", "request_success", "Count of successfully processed requests.",
	       "vllm:request_success_total{finished_reason=\"stop\",model_name=\"%s\"} %llu\n"
	       "vllm:request_success_total{finished_reason=\"length\",model_name=\"%s\"} %llu\n",
	       m, c->success_stop, m, c->success_length);
#undef METRIC
	/* A GPU exporter's energy counter (DCGM's field 156, millijoules since
	 * the driver loaded), as if one GPU drew --watts since the mock
	 * started: a level's joules are then W x its seconds, which a test
	 * can check tokens per joule against. */
	if (ok && srv->opt.watts > 0)
		ok = evbuffer_add_printf(b, "# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION Total energy "
					 "consumption since boot (in mJ).\n"
					 "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n"
					 "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\","
					 "modelName=\"mock\"} %.3f\n",
					 srv->opt.watts * (double)(now - srv->start_ns) / 1e6) > 0;
	if (ok && srv->opt.metrics_fault == METRICS_MALFORMED)
		ok = evbuffer_add_printf(b, "vllm:broken{model_name=\"%s} 1\n"
					 "this is not a sample\n"
					 "vllm:num_requests_running{model_name=\"%s\"} many\n", m, m) > 0;
	if (ok && srv->opt.models.n)
		ok = print_model_requests(b, srv) == 0;
	if (ok && srv->count.chained)
		ok = evbuffer_add_printf(b, "# HELP tracebench_mock_chained_requests_total Responses "
					 "requests that named a previous_response_id it gave.\n"
					 "# TYPE tracebench_mock_chained_requests_total counter\n"
					 "tracebench_mock_chained_requests_total %llu\n",
					 srv->count.chained) > 0;
	/* after the faults' lines, which --metrics-fault malformed's test finds
	 * by their line numbers */
	ok = ok && hist_print(b, "time_to_first_token_seconds", "Histogram of time to first "
			      "token in seconds.", &srv->hist.ttft, m) == 0;
	ok = ok && hist_print(b, "e2e_request_latency_seconds", "Histogram of e2e request "
			      "latency in seconds.", &srv->hist.e2e, m) == 0;
	ok = ok && hist_print(b, "request_queue_time_seconds", "Histogram of time spent in "
			      "WAITING phase for request.", &srv->hist.queue, m) == 0;
	if (ok) {
		evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
				  "text/plain; version=0.0.4; charset=utf-8");
		evhttp_send_reply(req, HTTP_OK, "OK", b);
	} else {
		evhttp_send_error(req, HTTP_INTERNAL, "out of memory");
	}
	if (b)
		evbuffer_free(b);
}

static void delayed_free(struct mock_delayed *d)
{
	if (d->prev)
		d->prev->next = d->next;
	else
		d->srv->delayed = d->next;
	if (d->next)
		d->next->prev = d->prev;
	event_free(d->timer);
	free(d);
}

/* --metrics-fault slow: the held reply is due. */
static void on_delayed_metrics(evutil_socket_t fd, short what, void *arg)
{
	struct mock_delayed *d = arg;

	(void)fd;
	(void)what;
	mock_conn_forget(d->srv, d->req);
	reply_metrics(d->srv, d->req);
	delayed_free(d);
}

/* The client of a held reply went away first (a scraper's timeout). */
static void on_delayed_close(struct evhttp_connection *conn, void *arg)
{
	struct mock_delayed *d = arg;

	(void)conn;
	httpserver_free_detached(d->req);
	delayed_free(d);
}

/* GET /metrics with its --metrics-fault, if any. */
static void route_metrics(struct mock_server *srv, struct evhttp_request *req)
{
	const struct mock_options *o = &srv->opt;
	struct mock_delayed *d;
	struct timeval tv;

	if (o->metrics_fault == METRICS_STATUS) {
		reply_error(req, (int)o->metrics_fault_arg, "Injected Fault",
			    "injected by --metrics-fault");
		return;
	}
	if (o->metrics_fault != METRICS_SLOW) {
		reply_metrics(srv, req);
		return;
	}
	if (!(d = calloc(1, sizeof(*d))) ||
	    !(d->timer = evtimer_new(srv->base, on_delayed_metrics, d))) {
		free(d);
		reply_error(req, HTTP_INTERNAL, "Internal Server Error", "out of memory");
		return;
	}
	d->srv = srv;
	d->req = req;
	d->next = srv->delayed;
	if (d->next)
		d->next->prev = d;
	srv->delayed = d;
	tv.tv_sec = o->metrics_fault_arg / 1000;
	tv.tv_usec = (suseconds_t)(o->metrics_fault_arg % 1000) * 1000;
	mock_conn_busy(srv, evhttp_request_get_connection(req));
	mock_conn_watch(srv, evhttp_request_get_connection(req), on_delayed_close, d);
	evtimer_add(d->timer, &tv);
}

/* A method's name for messages; "?" for one we do not name. */
static const char *method_name(enum evhttp_cmd_type m)
{
	const char *name = httpserver_method_name(m);

	return name ? name : "?";
}

/* evhttp's callback for every complete request. */
static void on_request(struct evhttp_request *req, void *arg)
{
	enum route { CHAT, COMPLETIONS, MESSAGES, RESPONSES, MODELS, HEALTH, TOKENIZE, METRICS,
		     VERSION, NROUTES };
	static const struct {
		const char *path;
		enum evhttp_cmd_type method;
	} routes[NROUTES] = {
		[CHAT]        = { "/v1/chat/completions", EVHTTP_REQ_POST },
		[COMPLETIONS] = { "/v1/completions",      EVHTTP_REQ_POST },
		[MESSAGES]    = { "/v1/messages",         EVHTTP_REQ_POST },
		[RESPONSES]   = { "/v1/responses",        EVHTTP_REQ_POST },
		[MODELS]      = { "/v1/models",           EVHTTP_REQ_GET },
		[HEALTH]      = { "/health",              EVHTTP_REQ_GET },
		[TOKENIZE]    = { "/tokenize",            EVHTTP_REQ_POST },
		[METRICS]     = { "/metrics",             EVHTTP_REQ_GET },
		[VERSION]     = { "/version",             EVHTTP_REQ_GET },
	};
	struct mock_server *srv = arg;
	int64_t arrival_ns = clock_now_ns();
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	enum evhttp_cmd_type method = evhttp_request_get_command(req);
	struct mock_request r = { .api = MOCK_API_CHAT, .time_factor = 1 };
	cJSON *body;
	int i;

	if (!path)
		path = "";
	mock_conn_seen(srv, req);
	httpserver_add_date(req);
	/* evhttp closes the connection once a reply saying so is sent */
	if (srv->opt.close_after)
		evhttp_add_header(evhttp_request_get_output_headers(req),
				  "Connection", "close");
	for (i = 0; i < NROUTES && strcmp(path, routes[i].path); i++)
		;
	if (i == NROUTES) {
		reply_error(req, HTTP_NOTFOUND, "Not Found",
			    "invalid URL (%s %s)", method_name(method), path);
		return;
	}
	/* HEAD wherever GET goes (evhttp sends the headers only). */
	if (method != routes[i].method &&
	    !(method == EVHTTP_REQ_HEAD && routes[i].method == EVHTTP_REQ_GET)) {
		evhttp_add_header(evhttp_request_get_output_headers(req),
				  "Allow", method_name(routes[i].method));
		reply_error(req, HTTP_BADMETHOD, "Method Not Allowed",
			    "method %s not allowed on %s",
			    method_name(method), path);
		return;
	}
	switch ((enum route)i) {
	case COMPLETIONS:
	case MESSAGES:
	case RESPONSES:
		r.api = i == COMPLETIONS ? MOCK_API_COMPLETIONS : i == MESSAGES ?
			MOCK_API_MESSAGES : MOCK_API_RESPONSES;
		/* fall through */
	case CHAT:
		if ((body = parse_request(srv, req, &r))) {
			stream_start(srv, req, &r, arrival_ns);
			cJSON_Delete(body);
		}
		break;
	case MODELS:
		reply_models(srv, req);
		break;
	case TOKENIZE:
		reply_tokenize(srv, req);
		break;
	case METRICS:
		route_metrics(srv, req);
		break;
	case VERSION:
		/* as vLLM's /version; replay records it (replay/server_info.h) */
		httpserver_reply_json(req, HTTP_OK, "OK",
				      cJSON_Parse("{\"version\":\"" TB_VERSION "\"}"));
		break;
	default:
		httpserver_reply_json(req, HTTP_OK, "OK",
			    cJSON_Parse("{\"status\":\"ok\"}"));
		break;
	}
}

/* ---- start-up and shutdown --------------------------------------------- */

/* libevent's own warnings (accept failures, mostly), in our format. */
static void on_libevent_log(int severity, const char *msg)
{
	if (severity >= EVENT_LOG_WARN)
		fprintf(stderr, "tracebench mock: libevent: %s\n", msg);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct mock_server *srv = arg;

	(void)sig;
	(void)what;
	event_base_loopbreak(srv->base);
}

static void print_banner(const struct mock_options *o)
{
	int v6 = strchr(o->host, ':') != NULL;

	fprintf(stderr, "tracebench mock: listening on http://%s%s%s:%d "
		"(ttft %g ms, itl %g ms, profile %s",
		v6 ? "[" : "", o->host, v6 ? "]" : "", o->port,
		(double)o->ttft_ns / NS_PER_MS, (double)o->itl_ns / NS_PER_MS,
		o->profile == MOCK_PROFILE_BATCHING ? "batching" : "none");
	if (o->profile == MOCK_PROFILE_BATCHING)
		fprintf(stderr, ", slope %g", o->slope);
	if (o->reasoning_tokens)
		fprintf(stderr, ", reasoning %ld tokens", o->reasoning_tokens);
	if (o->cold_start_ns)
		fprintf(stderr, ", cold start %g ms",
			(double)o->cold_start_ns / NS_PER_MS);
	if (o->noisy) {
		char spec[256];

		noise_spec_format(&o->noise, spec, sizeof(spec));
		fprintf(stderr, ", noise %s, seed %llu", spec, (unsigned long long)o->seed);
	}
	fputs(")\n", stderr);
}

int mock_main(int argc, char **argv)
{
	struct mock_server srv;
	struct evhttp_bound_socket *bound;
	char err[512];
	int rc;

	memset(&srv, 0, sizeof(srv));
	if ((rc = mock_options_parse(&srv.opt, argc, argv)) != CLI_CONTINUE)
		return rc;
	rc = CLI_EXIT_FAILED;
	srv.cold_pending = srv.opt.cold_start_ns > 0;
	srv.start_ns = clock_now_ns();
	srv.wall_offset_s = (double)(clock_wall_ns() - srv.start_ns) / NS_PER_S;
	srv.instance = noise_instance(&srv.opt.noise, srv.opt.seed);
	hist_init(&srv.hist.ttft, ttft_le, sizeof(ttft_le) / sizeof(ttft_le[0]));
	hist_init(&srv.hist.e2e, request_le, sizeof(request_le) / sizeof(request_le[0]));
	hist_init(&srv.hist.queue, request_le, sizeof(request_le) / sizeof(request_le[0]));
	signal(SIGPIPE, SIG_IGN);       /* a vanished client is not fatal */
	event_set_log_callback(on_libevent_log);

	srv.base = httpserver_base_new();
	if (srv.base) {
		srv.http = httpserver_new(srv.base, on_request, &srv, MOCK_MAX_BODY,
					  MOCK_MAX_HEADERS, MOCK_TIMEOUT_S);
		srv.sigint = evsignal_new(srv.base, SIGINT, on_signal, &srv);
		srv.sigterm = evsignal_new(srv.base, SIGTERM, on_signal, &srv);
	}
	srv.scratch = evbuffer_new();
	srv.zscratch = evbuffer_new();
	mock_gzip_on = srv.opt.gzip;
	if (!srv.http || !srv.scratch || !srv.zscratch || !srv.sigint || !srv.sigterm ||
	    evsignal_add(srv.sigint, NULL) || evsignal_add(srv.sigterm, NULL)) {
		fprintf(stderr, "tracebench mock: cannot set up the event "
			"loop\n");
		goto cleanup;
	}
	if (srv.opt.truth && truth_open(&srv, err, sizeof(err)) < 0) {
		fprintf(stderr, "tracebench mock: %s\n", err);
		goto cleanup;
	}
	if (!(bound = httpserver_listen(srv.http, srv.opt.host, &srv.opt.port, NULL, err,
					sizeof(err))) ||
	    (srv.opt.port_file &&
	     httpserver_write_port_file(srv.opt.port_file, srv.opt.port, err, sizeof(err)) < 0)) {
		fprintf(stderr, "tracebench mock: %s\n", err);
		goto cleanup;
	}
	if (mock_conns_init(&srv, bound) < 0) {
		fprintf(stderr, "tracebench mock: cannot set up --http-threads\n");
		goto cleanup;
	}
	if (!srv.opt.quiet)
		print_banner(&srv.opt);

	if (event_base_dispatch(srv.base) != 0) {
		fprintf(stderr, "tracebench mock: event loop failed\n");
		goto cleanup;
	}
	rc = 0;
cleanup:
	/* stream_free unlinks the head from s->srv, which is &srv, so
	 * srv.streams moves on; the analyzer does not connect the two. */
	while (srv.streams) {
		mock_conn_forget(&srv, srv.streams->req);  /* NOLINT(clang-analyzer-unix.Malloc) */
		stream_free(srv.streams);
	}
	while (srv.delayed) {
		mock_conn_forget(&srv, srv.delayed->req);  /* NOLINT(clang-analyzer-unix.Malloc) */
		delayed_free(srv.delayed);
	}
	srv.listener = NULL;            /* evhttp_free frees it first */
	if (srv.http)
		evhttp_free(srv.http);  /* closes connections, frees requests */
	mock_conns_release(&srv);
	if (srv.sigint)
		event_free(srv.sigint);
	if (srv.sigterm)
		event_free(srv.sigterm);
	if (srv.scratch)
		evbuffer_free(srv.scratch);
	free(srv.batch);
	if (srv.zscratch)
		evbuffer_free(srv.zscratch);
	free(srv.cache.slot);
	if (srv.truth)
		fclose(srv.truth);
	if (srv.base)
		event_base_free(srv.base);
	return rc;
}
