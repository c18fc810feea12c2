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
 * Request lifecycle: on_request() routes; parse_request() reads the body;
 * stream_start() creates a struct mock_stream and arms its timer;
 * stream_tick() emits one token per firing; stream_finish() sends the tail
 * and frees the stream. If the client goes away first, on_conn_close() frees
 * it instead. Fault injection (error rates, resets, stalls) belongs in
 * stream_start() (decide per request) and stream_tick() (act per token);
 * faults of the byte stream (--trickle-us, --no-final-newline) in
 * stream_event(), through which every SSE event leaves.
 */
#include "mock/mock.h"
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

#define MOCK_MAX_BODY    (16L * 1024 * 1024) /* request body cap, bytes */
#define MOCK_MAX_HEADERS (64L * 1024)        /* request headers cap, bytes */
#define MOCK_TIMEOUT_S   600                 /* idle or not-reading client */
#define MOCK_MAX_CHOICES 128                 /* n x prompts per request */
#define MOCK_BLOCK       16                  /* prefix cache block, tokens */
#define MOCK_VOCAB       32000               /* /tokenize ids are below it */

enum mock_api { MOCK_API_CHAT, MOCK_API_COMPLETIONS };


/* The prefix cache: hashes of prompt blocks, each chained to the blocks
 * before it, in an open-addressed table; emptied when full. */
struct mock_cache {
	uint64_t *slot;         /* 0: empty */
	size_t size, used;      /* size a power of two, used <= size / 2 */
};

struct mock_stream;
struct mock_delayed;

/* What GET /metrics reports besides the in-flight requests: counters since
 * start, under vLLM's names (reply_metrics()). */
struct mock_counters {
	unsigned long long prompt_tokens;       /* of requests admitted */
	unsigned long long generation_tokens;   /* tokens sent, every choice */
	unsigned long long success_stop;        /* requests ended by an EOS */
	unsigned long long success_length;      /* requests ended at max_tokens */
	unsigned long long cache_queries;       /* prompt tokens looked up */
	unsigned long long cache_hits;          /* of which found cached */
};

struct mock_server {
	struct mock_options opt;
	struct event_base *base;
	struct evhttp *http;
	struct event *sigint;
	struct event *sigterm;
	struct evbuffer *scratch;       /* reused to build each SSE event */
	char *batch;                    /* events of one stream's pass, not yet sent */
	size_t batch_len, batch_cap;
	struct mock_stream *batch_of;   /* whose they are */
	struct mock_stream *streams;    /* in-flight requests, for shutdown */
	long active;                    /* length of that list */
	unsigned long long next_id;     /* chatcmpl-mock-N / cmpl-mock-N */
	int cold_pending;               /* next request pays --cold-start-ms */
	unsigned long long requests;    /* generation requests seen */
	int64_t first_arrival_ns;       /* of the first one, for --stall-at-ms */
	struct mock_cache cache;
	struct evbuffer *zscratch;      /* --gzip: an event compressed */
	struct mock_counters count;
	struct mock_delayed *delayed;   /* --metrics-fault slow: replies held */
	/* --noise: the stalls count from the start; the drift reads the
	 * wall clock, monotonic time plus this offset */
	int64_t start_ns;
	double wall_offset_s;
	double instance;                /* the instance's factor */
};

/* A /metrics reply held back by --metrics-fault slow:MS. */
struct mock_delayed {
	struct mock_server *srv;
	struct evhttp_request *req;
	struct event *timer;
	struct mock_delayed *prev, *next;
};

/* One generation request in flight, streaming or not. */
struct mock_stream {
	struct mock_server *srv;
	struct evhttp_request *req;     /* libevent's; see on_conn_close() */
	struct event *timer;
	struct mock_stream *prev, *next;
	enum mock_api api;
	int stream;                     /* "stream": true */
	int include_usage;              /* stream_options.include_usage */
	long n;                         /* output tokens */
	long reasoning;                 /* of which reasoning: min(R, n) */
	long prompt_tokens;
	long k;                         /* next token to emit */
	int64_t due_ns;                 /* when token k is due */
	int64_t admit_ns;               /* when it starts: later when stalled */
	struct evbuffer *trickle;       /* --trickle-us: bytes not sent yet */
	struct event *trickle_timer;    /* sends the next of them */
	int ending;                     /* the tail is queued: end when sent */
	unsigned long long id;
	char *model;                    /* echoed in replies (malloc) */
	char *head;                     /* SSE event prefix (malloc) */
	long choices;                   /* n x prompts */
	long cached;                    /* prompt tokens found in the prefix cache */
	int stop;                       /* an end of sequence ended it: "stop" */
	int role_sent;                  /* chat: the role chunks are out */
	long long created;              /* UNIX time of arrival */
	z_stream *z;                    /* --gzip: the reply's deflate stream */
	int direct;                     /* chunked, no --gzip, no --trickle-us:
					 * the events of a pass go out together
					 * (stream_send, stream_push) */
	double slow;                    /* --noise: the instance's factor
					 * times the request's jitter */
	double tail;                    /* --noise: the request's on ttft */
	long tool_calls;                /* --tool-calls: the answer is calls */
	char *tool_names[MOCK_MAX_TOOL_CALLS];  /* their names, JSON-quoted (malloc) */
};

/* What parse_request() read from a request body. */
struct mock_request {
	enum mock_api api;
	int stream;
	int include_usage;
	long n;
	long prompt_tokens;
	const char *model;
	long choices;           /* n x prompts */
	long cached;            /* prompt tokens the prefix cache held */
	int ignore_eos;
	long tool_calls;        /* --tool-calls: calls to answer with, 0 none */
	const cJSON *tools;     /* the request's "tools" (in its body) */
};

/* The deterministic vocabulary: token k is " " + mock_words[k % 16]. */
static const char *const mock_words[] = {
	"the", "quick", "brown", "fox", "jumps", "over", "a", "lazy",
	"dog", "while", "mock", "tokens", "stream", "on", "time", "again",
};

/* The same with the space that leads each token on the wire. */
static const char *const mock_spaced[] = {
	" the", " quick", " brown", " fox", " jumps", " over", " a", " lazy",
	" dog", " while", " mock", " tokens", " stream", " on", " time", " again",
};

static const char *token_word(long k)
{
	size_t nwords = sizeof(mock_words) / sizeof(mock_words[0]);

	return mock_words[(unsigned long)k % nwords];
}

/* Set once at start-up from --gzip; read by the reply helpers, which have
 * no server at hand. */
static int mock_gzip_on;

/* True when the request's Accept-Encoding names gzip (and --gzip is on). */
static int wants_gzip(struct evhttp_request *req)
{
	const char *ae = evhttp_find_header(evhttp_request_get_input_headers(req),
					    "Accept-Encoding");

	return mock_gzip_on && ae && strstr(ae, "gzip") && !strstr(ae, "gzip;q=0");
}

/* A deflate stream writing the gzip format; NULL when out of memory. */
static z_stream *gzip_new(void)
{
	z_stream *z = calloc(1, sizeof(*z));

	if (z && deflateInit2(z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
			      Z_DEFAULT_STRATEGY) != Z_OK) {
		free(z);
		z = NULL;
	}
	return z;
}

static void gzip_free(z_stream *z)
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
static int gzip_buffer(z_stream *z, struct evbuffer *b, struct evbuffer *tmp, int finish)
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
static char *str_printf(const char *fmt, ...)
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
static void reply_cjson(struct evhttp_request *req, int code,
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
static void reply_vllm_error(struct evhttp_request *req, int code, const char *type,
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
static void reply_error(struct evhttp_request *req, int code,
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

/* ---- streams ----------------------------------------------------------- */

/* How much slower generation runs with srv->active requests in flight. */
static double load_factor(const struct mock_server *srv)
{
	if (srv->opt.profile != MOCK_PROFILE_BATCHING || srv->active <= 1)
		return 1.0;
	return 1.0 + srv->opt.slope * (double)(srv->active - 1);
}

/*
 * --noise: how long a stretch of the schedule of 'ns' starting at 'at_ns'
 * (monotonic) takes for s: times the host's drift then and s's factors
 * (the tail's, too, when 'tail': the ttft's stretch).
 */
static int64_t noisy_ns(const struct mock_stream *s, double ns, int64_t at_ns, int tail)
{
	const struct mock_server *srv = s->srv;
	double wall = (double)at_ns / NS_PER_S + srv->wall_offset_s;

	return llround(ns * s->slow * (tail ? s->tail : 1) * noise_drift(&srv->opt.noise, wall));
}

/* --noise: a due time inside a stall moves to the stall's end. */
static int64_t stall_release(const struct mock_server *srv, int64_t due_ns)
{
	double t = (double)(due_ns - srv->start_ns) / NS_PER_S;
	double end = noise_stall_end(&srv->opt.noise, srv->opt.seed, t);

	return end > t ? srv->start_ns + (int64_t)ceil(end * NS_PER_S) : due_ns;
}

/* Arm the stream's timer for when token k is due (at once if overdue). */
static void stream_arm(struct mock_stream *s)
{
	int64_t us = (s->due_ns - clock_now_ns() + 999) / 1000; /* round up */
	struct timeval tv;

	if (us < 0)
		us = 0;
	tv.tv_sec = (time_t)(us / 1000000);
	tv.tv_usec = (suseconds_t)(us % 1000000);
	/* libevent adds tv to the time it cached when this loop pass began;
	 * refresh it, or a busy pass would make the timer fire early. */
	event_base_update_cache_time(s->srv->base);
	evtimer_add(s->timer, &tv);
}

/* Frees s, linked or not yet; the request itself is left to the caller. */
static void stream_free_unlinked(struct mock_stream *s)
{
	long j;

	if (s->srv->batch_of == s) {    /* a reset: what it batched is not sent */
		s->srv->batch_of = NULL;
		s->srv->batch_len = 0;
	}
	for (j = 0; j < s->tool_calls; j++)
		free(s->tool_names[j]);
	if (s->timer)
		event_free(s->timer);
	if (s->trickle_timer)
		event_free(s->trickle_timer);
	if (s->trickle)
		evbuffer_free(s->trickle);
	free(s->model);
	free(s->head);
	gzip_free(s->z);
	free(s);
}

/* Unlink and free s; the request itself is left to the caller. */
static void stream_free(struct mock_stream *s)
{
	struct mock_server *srv = s->srv;

	if (s->prev)
		s->prev->next = s->next;
	else
		srv->streams = s->next;
	if (s->next)
		s->next->prev = s->prev;
	srv->active--;
	stream_free_unlinked(s);
}

/* Sends the events s has batched (stream_send) as one HTTP chunk. */
static void stream_push(struct mock_stream *s)
{
	struct mock_server *srv = s->srv;

	if (srv->batch_of == s && srv->batch_len)
		httpserver_send_chunk(s->req, srv->batch, srv->batch_len);
	if (srv->batch_of == s)
		srv->batch_len = 0;
}

/* Send what is queued for s's client now (lib/httpserver.h). */
static void stream_flush(struct mock_stream *s)
{
	stream_push(s);
	httpserver_flush(evhttp_request_get_connection(s->req));
}

/* Arm the trickle timer for the next byte, --trickle-us from now. */
static void trickle_arm(struct mock_stream *s)
{
	int64_t us = s->srv->opt.trickle_ns / 1000;
	struct timeval tv = { (time_t)(us / 1000000), (suseconds_t)(us % 1000000) };

	event_base_update_cache_time(s->srv->base);
	evtimer_add(s->trickle_timer, &tv);
}

static void stream_end(struct mock_stream *s);

/*
 * Trickle timer callback: send the next queued byte as an HTTP chunk of its
 * own, written at once, so the client reads the body a byte at a time. When
 * the queue empties on a finished stream, end the reply (frees s).
 */
static void trickle_tick(evutil_socket_t fd, short what, void *arg)
{
	struct mock_stream *s = arg;
	struct evbuffer *b = s->srv->scratch;

	(void)fd;
	(void)what;
	if (evbuffer_remove_buffer(s->trickle, b, 1) == 1) {
		evhttp_send_reply_chunk(s->req, b);     /* moves b's contents out */
		evbuffer_drain(b, evbuffer_get_length(b));
		stream_flush(s);
	}
	if (evbuffer_get_length(s->trickle))
		trickle_arm(s);
	else if (s->ending)
		stream_end(s);
}

/* Flags of stream_event(). */
enum {
	EVENT_HEAD = 1,         /* the data starts with s->head */
	EVENT_UNENDED = 2,      /* no blank line after it (--no-final-newline) */
};

/*
 * Send one SSE event: "data: " + (EVENT_HEAD ? s->head : "") + the printf
 * of fmt + "\n\n" (nothing with EVENT_UNENDED), as one HTTP chunk; with
 * --trickle-us, queue it to leave a byte at a time.
 */
static void stream_queue(struct mock_stream *s, struct evbuffer *b);
static void stream_send(struct mock_stream *s, const char *data, size_t len);

static void stream_event(struct mock_stream *s, int flags,
			 const char *fmt, ...)
{
	struct evbuffer *b = s->srv->scratch;
	va_list ap;

	evbuffer_add(b, "data: ", 6);
	if (flags & EVENT_HEAD)
		evbuffer_add(b, s->head, strlen(s->head));
	va_start(ap, fmt);
	evbuffer_add_vprintf(b, fmt, ap);
	va_end(ap);
	if (!(flags & EVENT_UNENDED))
		evbuffer_add(b, "\n\n", 2);
	stream_queue(s, b);
}

/* Sends what b holds (compressed first with --gzip) as one HTTP chunk, or
 * queues it to trickle out; b is left empty. */
static void stream_queue(struct mock_stream *s, struct evbuffer *b)
{
	if (s->z)
		gzip_buffer(s->z, b, s->srv->zscratch, 0);
	if (s->trickle) {
		if (!evbuffer_get_length(s->trickle))
			trickle_arm(s);
		evbuffer_add_buffer(s->trickle, b);     /* moves b's contents */
		return;
	}
	if (s->direct)
		stream_send(s, (const char *)evbuffer_pullup(b, -1), evbuffer_get_length(b));
	else
		evhttp_send_reply_chunk(s->req, b);     /* moves b's contents out */
	evbuffer_drain(b, evbuffer_get_length(b));
}

/*
 * Sends len bytes of SSE events as stream_queue does. A direct stream
 * batches them instead, without copying them through evbuffers: the
 * events of one pass (the role chunk with the first token, the last token
 * with usage and [DONE]) leave in one write at stream_flush or stream_end,
 * as they would from a server that has them all at once.
 */
static void stream_send(struct mock_stream *s, const char *data, size_t len)
{
	struct mock_server *srv = s->srv;

	if (!s->direct) {
		evbuffer_add(srv->scratch, data, len);
		stream_queue(s, srv->scratch);
		return;
	}
	if (srv->batch_of != s && srv->batch_of)
		stream_push(srv->batch_of);     /* not left behind: never happens */
	srv->batch_of = s;
	if (strbuf_append(&srv->batch, &srv->batch_len, &srv->batch_cap, data, len) < 0) {
		stream_push(s);                 /* out of memory: all of it now */
		httpserver_send_chunk(s->req, data, len);
	}
}

/*
 * The common token event, put together without printf: choice 0, no
 * padding; the same bytes stream_send_token's formats make. Returns 0, or
 * -1 when it is longer than the line kept for it (a long model name): the
 * caller formats it then.
 */
static int stream_send_plain_token(struct mock_stream *s, const char *field, const char *word,
				   const char *finish)
{
	int chat = s->api == MOCK_API_CHAT;
	const char *parts[] = {
		"data: ", s->head, chat ? "\"choices\":[{\"index\":0,\"delta\":{\"" :
		"\"choices\":[{\"index\":0,\"text\":\"", chat ? field : "", chat ? "\":\"" : "",
		word, chat ? "\"},\"finish_reason\":" : "\",\"finish_reason\":", finish, "}]}\n\n",
	};
	char line[1024];
	size_t n = 0, i;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		size_t len = strlen(parts[i]);

		if (len > sizeof(line) - n)
			return -1;
		memcpy(line + n, parts[i], len);
		n += len;
	}
	stream_send(s, line, n);
	return 0;
}

/*
 * Send token k as its own event; the last one carries finish_reason. Token
 * --big-event-after has its text padded with spaces until the event's data
 * is --big-event-bytes long.
 */
static void stream_send_token(struct mock_stream *s, long k, long count, long index)
{
	static const char text[] = "\"choices\":[{\"index\":%ld,"
		"\"text\":\"%s%*s\",\"finish_reason\":%s}]}";
	static const char delta[] = "\"choices\":[{\"index\":%ld,"
		"\"delta\":{\"%s\":\"%s%*s\"},\"finish_reason\":%s}]}";
	static const char text0[] = "\"choices\":[{\"index\":0,"
		"\"text\":\"%s%*s\",\"finish_reason\":%s}]}";
	static const char delta0[] = "\"choices\":[{\"index\":0,"
		"\"delta\":{\"%s\":\"%s%*s\"},\"finish_reason\":%s}]}";
	const struct mock_options *o = &s->srv->opt;
	const char *finish = k + count < s->n ? "null" : s->stop ? "\"stop\"" : "\"length\"";
	const char *field = k < s->reasoning ? "reasoning_content" : "content";
	const char *word = mock_spaced[(unsigned long)k % 16];
	char words[64 * 8];
	long pad = 0, j;

	if (count > 1) {        /* several tokens in one event */
		size_t len = 0;

		for (j = k; j < k + count && len + 8 < sizeof(words); j++)
			len += (size_t)snprintf(words + len, sizeof(words) - len, "%s",
						mock_spaced[(unsigned long)j % 16]);
		word = words;
	}
	if (k == o->big_event_after && index == 0) {
		int len = s->api == MOCK_API_COMPLETIONS ?
			  snprintf(NULL, 0, text, index, word, 0, "", finish) :
			  snprintf(NULL, 0, delta, index, field, word, 0, "", finish);

		pad = o->big_event_bytes - (long)strlen(s->head) - len;
		if (pad < 0)
			pad = 0;
	}
	if (index == 0 && pad == 0 && stream_send_plain_token(s, field, word, finish) == 0)
		return;
	if (index == 0 && s->api == MOCK_API_COMPLETIONS)  /* no index to format */
		stream_event(s, EVENT_HEAD, text0, word, (int)pad, "", finish);
	else if (index == 0)
		stream_event(s, EVENT_HEAD, delta0, field, word, (int)pad, "", finish);
	else if (s->api == MOCK_API_COMPLETIONS)
		stream_event(s, EVENT_HEAD, text, index, word, (int)pad, "", finish);
	else
		stream_event(s, EVENT_HEAD, delta, index, field, word, (int)pad, "",
			     finish);
}

/* The chat role chunk of each choice: a delta without a token. */
static void stream_send_roles(struct mock_stream *s)
{
	long c;

	s->role_sent = 1;
	for (c = 0; c < s->choices; c++)
		stream_event(s, EVENT_HEAD, "\"choices\":[{\"index\":%ld,"
			     "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
			     "\"finish_reason\":null}]}", c);
}

/*
 * --tool-calls: the n tokens of the answer are spread over its calls, call
 * j (of c = min(calls, n)) taking tokens [j*n/c, (j+1)*n/c). Sets *first
 * and *end to token k's call's range and returns the call.
 */
static long tool_call_of(const struct mock_stream *s, long k, long *first, long *end)
{
	long c = s->tool_calls < s->n ? s->tool_calls : s->n, j = 0;

	while (j + 1 < c && (j + 1) * s->n / c <= k)
		j++;
	*first = j * s->n / c;
	*end = (j + 1) * s->n / c;
	return j;
}

/* The id of call j of choice c: "call-mock-<request>-<c * calls + j>". */
static char *tool_call_id(const struct mock_stream *s, long c, long j)
{
	return str_printf("call-mock-%llu-%ld", s->id, c * s->tool_calls + j);
}

/*
 * Token k of choice c as a tool call's fragment, as llama.cpp streams them:
 * a call's first token brings its index, id, type and name with empty
 * arguments ("{}" when the call has one token), the others the arguments
 * {"q":"<words>"} in pieces; finish_reason comes in a chunk of its own.
 */
static void stream_send_tool_token(struct mock_stream *s, long k, long c)
{
	long first, end, j = tool_call_of(s, k, &first, &end), p = k - first;

	if (p == 0) {
		char *id = tool_call_id(s, c, j);

		stream_event(s, EVENT_HEAD, "\"choices\":[{\"index\":%ld,\"delta\":{\"tool_calls\":["
			     "{\"index\":%ld,\"id\":\"%s\",\"type\":\"function\",\"function\":"
			     "{\"name\":%s,\"arguments\":\"%s\"}}]},\"finish_reason\":null}]}",
			     c, j, id ? id : "", s->tool_names[j], end - first == 1 ? "{}" : "");
		free(id);
		return;
	}
	stream_event(s, EVENT_HEAD, "\"choices\":[{\"index\":%ld,\"delta\":{\"tool_calls\":["
		     "{\"index\":%ld,\"function\":{\"arguments\":\"%s%s%s\"}}]},"
		     "\"finish_reason\":null}]}", c, j, p == 1 ? "{\\\"q\\\":\\\"" : "",
		     mock_spaced[(unsigned long)k % 16], p == end - first - 1 ? "\\\"}" : "");
}

/* Tokens from..to-1, each with its leading space (malloc, caller frees). */
static char *words_join(long from, long to)
{
	size_t len = 1;
	char *out, *p;
	long k;

	for (k = from; k < to; k++)
		len += 1 + strlen(token_word(k));
	if (!(out = malloc(len)))
		return NULL;
	for (p = out, k = from; k < to; k++) {
		size_t wl = strlen(token_word(k));

		*p++ = ' ';
		memcpy(p, token_word(k), wl);
		p += wl;
	}
	*p = '\0';
	return out;
}

/* The calls of choice c, whole, into arr (a non-streamed answer's
 * message.tool_calls). Returns arr, or NULL when out of memory. */
static cJSON *add_tool_calls(const struct mock_stream *s, long c, cJSON *arr)
{
	long k, first, end;

	if (!arr)
		return NULL;
	for (k = 0; k < s->n; k = end) {
		long j = tool_call_of(s, k, &first, &end);
		char *id = tool_call_id(s, c, j), *words = words_join(first + 1, end);
		char *args = end - first == 1 ? str_printf("{}") :
			     str_printf("{\"q\":\"%s\"}", words ? words : "");
		cJSON *call = cJSON_CreateObject(), *fn, *name = cJSON_Parse(s->tool_names[j]);
		int ok = id && words && args && call && name && cJSON_AddItemToArray(arr, call);

		if (!ok)
			cJSON_Delete(call);
		if (ok) {
			cJSON_AddStringToObject(call, "id", id);
			cJSON_AddStringToObject(call, "type", "function");
			fn = cJSON_AddObjectToObject(call, "function");
			ok = fn && cJSON_AddItemToObject(fn, "name", name);
			if (ok)
				name = NULL;
			cJSON_AddStringToObject(fn, "arguments", args);
		}
		cJSON_Delete(name);
		free(id);
		free(words);
		free(args);
		if (!ok)
			return NULL;
	}
	return arr;
}

/* The whole non-streaming response, sent when the last token is due. */
static void stream_reply_whole(struct mock_stream *s)
{
	int chat = s->api == MOCK_API_CHAT;
	char *content = words_join(s->reasoning, s->n);
	char *reasoning = words_join(0, s->reasoning);
	char *id = str_printf(chat ? "chatcmpl-mock-%llu" : "cmpl-mock-%llu",
			      s->id);
	cJSON *root = cJSON_CreateObject();
	cJSON *choices, *choice, *counts, *msg;
	long c;
	int oom = 0;

	cJSON_AddStringToObject(root, "id", id ? id : "");
	cJSON_AddStringToObject(root, "object",
				chat ? "chat.completion" : "text_completion");
	cJSON_AddNumberToObject(root, "created", (double)s->created);
	cJSON_AddStringToObject(root, "model", s->model);
	choices = cJSON_AddArrayToObject(root, "choices");
	for (c = 0; c < s->choices; c++) {
		choice = cJSON_CreateObject();
		cJSON_AddItemToArray(choices, choice);
		cJSON_AddNumberToObject(choice, "index", (double)c);
		if (chat && s->tool_calls) {
			msg = cJSON_AddObjectToObject(choice, "message");
			cJSON_AddStringToObject(msg, "role", "assistant");
			cJSON_AddNullToObject(msg, "content");
			oom |= !add_tool_calls(s, c, cJSON_AddArrayToObject(msg, "tool_calls"));
		} else if (chat) {
			msg = cJSON_AddObjectToObject(choice, "message");
			cJSON_AddStringToObject(msg, "role", "assistant");
			cJSON_AddStringToObject(msg, "content", content ? content : "");
			if (s->reasoning > 0)
				cJSON_AddStringToObject(msg, "reasoning_content",
							reasoning ? reasoning : "");
		} else {
			cJSON_AddStringToObject(choice, "text", content ? content : "");
		}
		cJSON_AddStringToObject(choice, "finish_reason", s->tool_calls ? "tool_calls" :
					s->stop ? "stop" : "length");
	}
	counts = cJSON_AddObjectToObject(root, "usage");
	cJSON_AddNumberToObject(counts, "prompt_tokens",
				(double)s->prompt_tokens);
	cJSON_AddNumberToObject(counts, "completion_tokens", (double)(s->n * s->choices));
	cJSON_AddNumberToObject(counts, "total_tokens",
				(double)(s->prompt_tokens + s->n * s->choices));
	if (s->srv->opt.cache_blocks)
		cJSON_AddNumberToObject(cJSON_AddObjectToObject(counts, "prompt_tokens_details"),
					"cached_tokens", (double)s->cached);
	if (s->reasoning > 0)
		cJSON_AddNumberToObject(cJSON_AddObjectToObject(counts,
					"completion_tokens_details"),
					"reasoning_tokens",
					(double)s->reasoning);
	if (!id || !content || !reasoning || oom) {    /* out of memory: say so */
		cJSON_Delete(root);
		root = NULL;
	}
	reply_cjson(s->req, HTTP_OK, "OK", root);
	free(id);
	free(content);
	free(reasoning);
}

/*
 * End a stream's reply and free s, once its tail is out: with --trickle-us
 * still queued, trickle_tick() calls this again when the queue empties.
 */
static void stream_end(struct mock_stream *s)
{
	if (s->z && !s->ending) {       /* --gzip: the stream's trailer */
		struct evbuffer *b = s->srv->scratch;

		gzip_buffer(s->z, b, s->srv->zscratch, 1);
		gzip_free(s->z);
		s->z = NULL;
		stream_queue(s, b);
	}
	if (s->trickle && evbuffer_get_length(s->trickle)) {
		s->ending = 1;
		return;
	}
	/* Ending the reply may close the connection, whose close callback
	 * must not find s: detach first. */
	httpserver_forget_conn(s->req, MOCK_TIMEOUT_S);
	if (s->direct) {        /* the last events and the end in one write */
		struct mock_server *srv = s->srv;
		size_t len = srv->batch_of == s ? srv->batch_len : 0;

		httpserver_end_chunks(s->req, srv->batch, len);
		if (srv->batch_of == s)
			srv->batch_len = 0;
	} else {
		stream_push(s);
		evhttp_send_reply_end(s->req);
	}
	stream_free(s);
}

/* After the last token: usage, [DONE] and the end of the reply; frees s
 * (with --trickle-us, once the tail has trickled out). */
static void stream_finish(struct mock_stream *s)
{
	const struct mock_options *o = &s->srv->opt;
	/* --no-final-newline: the stream's last event stops short */
	int last_flags = o->no_final_newline ? EVENT_UNENDED : 0;
	long c;

	if (s->stop)
		s->srv->count.success_stop++;
	else
		s->srv->count.success_length++;
	if (!s->stream) {
		httpserver_forget_conn(s->req, MOCK_TIMEOUT_S);  /* as in stream_end() */
		stream_reply_whole(s);
		stream_free(s);
		return;
	}
	for (c = 0; c < s->choices && s->tool_calls; c++)
		stream_event(s, EVENT_HEAD, "\"choices\":[{\"index\":%ld,\"delta\":{},"
			     "\"finish_reason\":\"tool_calls\"}]}", c);
	if (s->include_usage) {
		char details[80] = "", cached[64] = "";

		if (s->reasoning > 0)
			snprintf(details, sizeof(details),
				 ",\"completion_tokens_details\":"
				 "{\"reasoning_tokens\":%ld}", s->reasoning);
		if (o->cache_blocks)
			snprintf(cached, sizeof(cached), ",\"prompt_tokens_details\":"
				 "{\"cached_tokens\":%ld}", s->cached);
		stream_event(s, EVENT_HEAD | (o->no_done ? last_flags : 0),
			     "\"choices\":[],\"usage\":{"
			     "\"prompt_tokens\":%ld,"
			     "\"completion_tokens\":%ld,"
			     "\"total_tokens\":%ld%s%s}}",
			     s->prompt_tokens, s->n * s->choices,
			     s->prompt_tokens + s->n * s->choices, cached, details);
	}
	if (!o->no_done)
		stream_event(s, last_flags, "[DONE]");
	stream_end(s);
}

/*
 * Faults that strike once k tokens are out. Returns 1 when the stream is
 * over (reset: s is freed) or silent for good (stall: the client's timeout
 * or disconnect ends it, in on_conn_close()).
 */
static int stream_fault(struct mock_stream *s)
{
	const struct mock_options *o = &s->srv->opt;

	if (s->k == o->malformed_after)
		stream_event(s, 0, "{\"choices\": [not json");
	if (s->k == o->stall_after)
		return 1;
	if (s->k == o->reset_after) {
		struct evhttp_connection *conn = evhttp_request_get_connection(s->req);
		struct linger hard = { 1, 0 };   /* close() then sends RST, not FIN */

		httpserver_forget_conn(s->req, MOCK_TIMEOUT_S);
		setsockopt(bufferevent_getfd(evhttp_connection_get_bufferevent(conn)),
			   SOL_SOCKET, SO_LINGER, &hard, sizeof(hard));
		evhttp_connection_free(conn);    /* frees s->req with it */
		stream_free(s);
		return 1;
	}
	return 0;
}

/* Timer callback: token k is due. Emit it and schedule token k + 1. */
static void stream_tick(evutil_socket_t fd, short what, void *arg)
{
	struct mock_stream *s = arg;
	struct mock_server *srv = s->srv;

	(void)fd;
	(void)what;
	if (clock_now_ns() < s->due_ns) {       /* early: never send ahead */
		stream_arm(s);
		return;
	}
	if (s->stream && stream_fault(s))
		return;
	if (s->stream) {
		long per = srv->opt.tokens_per_event, c;

		if (per > s->n - s->k || s->tool_calls)
			per = s->tool_calls ? 1 : s->n - s->k;
		if (s->api == MOCK_API_CHAT && !s->role_sent)
			stream_send_roles(s);   /* with the first token, as vLLM */
		for (c = 0; c < s->choices; c++)
			if (s->tool_calls)
				stream_send_tool_token(s, s->k, c);
			else
				stream_send_token(s, s->k, per, c);
		s->k += per - 1;
		srv->count.generation_tokens += (unsigned long long)(per * s->choices);
	} else {
		srv->count.generation_tokens += (unsigned long long)s->choices;
	}
	if (++s->k >= s->n) {
		stream_finish(s);       /* the tail goes out the ordinary way */
		return;
	}
	if (s->stream)
		stream_flush(s);
	if (srv->opt.noisy)
		s->due_ns = stall_release(srv, s->due_ns + noisy_ns(s, (double)srv->opt.itl_ns *
								    load_factor(srv), s->due_ns, 0));
	else
		s->due_ns += llround((double)srv->opt.itl_ns * load_factor(srv));
	stream_arm(s);
}

/*
 * The connection of an unfinished request closed: the client went away, or
 * a write failed. Cancel and free the stream. libevent has then detached the
 * unfinished request from the connection and left it to us to free (were it
 * still attached, the connection would free it).
 */
static void on_conn_close(struct evhttp_connection *conn, void *arg)
{
	struct mock_stream *s = arg;

	(void)conn;
	httpserver_free_detached(s->req);
	stream_free(s);
}

/* ---- generation requests ----------------------------------------------- */

/* A prompt as tokens: every whitespace-separated word (or token id) is one,
 * hashed, so that equal prefixes have equal tokens. */
struct mock_tokens {
	uint64_t *t;
	size_t n, cap;
	size_t bounds[MOCK_MAX_CHOICES + 1];   /* prompt p is t[bounds[p], bounds[p+1]) */
	size_t prompts;
};

static int tokens_push(struct mock_tokens *tk, uint64_t h)
{
	if (tk->n == tk->cap) {
		size_t cap = tk->cap ? tk->cap * 2 : 256;
		uint64_t *nt = realloc(tk->t, cap * sizeof(*nt));

		if (!nt)
			return -1;
		tk->t = nt;
		tk->cap = cap;
	}
	tk->t[tk->n++] = h;
	return 0;
}

static uint64_t hash_bytes(const char *p, size_t len, uint64_t h)
{
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;     /* FNV-1a */
	return h;
}

/* The words of s, each a token. */
static int tokens_words(struct mock_tokens *tk, const char *s)
{
	while (*s) {
		size_t len;

		while (*s && isspace((unsigned char)*s))
			s++;
		len = 0;
		while (s[len] && !isspace((unsigned char)s[len]))
			len++;
		if (len && tokens_push(tk, hash_bytes(s, len, 0xcbf29ce484222325ULL)) < 0)
			return -1;
		s += len;
	}
	return 0;
}

/* A chat message's content: a string, or an array of parts. */
static int tokens_content(struct mock_tokens *tk, const cJSON *content)
{
	const cJSON *part, *text;

	if (cJSON_IsString(content))
		return tokens_words(tk, content->valuestring);
	cJSON_ArrayForEach(part, content) {
		text = cJSON_GetObjectItemCaseSensitive(part, "text");
		if (cJSON_IsString(part) && tokens_words(tk, part->valuestring) < 0)
			return -1;
		if (cJSON_IsString(text) && tokens_words(tk, text->valuestring) < 0)
			return -1;
	}
	return 0;
}

/* Ends prompt p: at least one token, as a tokenizer's BOS would make it. */
static int tokens_end_prompt(struct mock_tokens *tk)
{
	if (tk->n == tk->bounds[tk->prompts] && tokens_push(tk, 1) < 0)
		return -1;
	tk->bounds[++tk->prompts] = tk->n;
	return 0;
}

/* Token ids (numbers) of one prompt; -1 when one is not a number. */
static int tokens_ids(struct mock_tokens *tk, const cJSON *arr)
{
	const cJSON *el;

	cJSON_ArrayForEach(el, arr) {
		if (!cJSON_IsNumber(el))
			return -1;
		if (tokens_push(tk, (uint64_t)(el->valuedouble + 7) * 0x9e3779b97f4a7c15ULL) < 0)
			return -1;
	}
	return 0;
}

/*
 * The prompt(s) of a request as tokens: a chat's messages (role and
 * content), or a completion's prompt: a string, token ids, or a list of
 * either (one prompt each). Returns 0, or -1 with *why set.
 */
static int prompt_tokens(const cJSON *root, enum mock_api api, struct mock_tokens *tk,
			 const char **why)
{
	const cJSON *item, *el;

	*why = "out of memory";
	if (api == MOCK_API_CHAT) {
		item = cJSON_GetObjectItemCaseSensitive(root, "messages");
		if (!cJSON_IsArray(item) || !cJSON_GetArraySize(item)) {
			*why = "'messages' must be a non-empty array";
			return -1;
		}
		cJSON_ArrayForEach(el, item) {
			/* content words only: a chat template's tokens are not counted */
			if (tokens_content(tk, cJSON_GetObjectItemCaseSensitive(el, "content")) < 0)
				return -1;
		}
		return tokens_end_prompt(tk);
	}
	item = cJSON_GetObjectItemCaseSensitive(root, "prompt");
	if (cJSON_IsString(item))
		return tokens_words(tk, item->valuestring) < 0 ? -1 : tokens_end_prompt(tk);
	if (!cJSON_IsArray(item) || !cJSON_GetArraySize(item)) {
		*why = "'prompt' must be a string, token ids or a non-empty list of them";
		return -1;
	}
	if (cJSON_IsNumber(cJSON_GetArrayItem(item, 0))) {
		if (tokens_ids(tk, item) < 0) {
			*why = "'prompt' mixes token ids with something else";
			return -1;
		}
		return tokens_end_prompt(tk);
	}
	cJSON_ArrayForEach(el, item) {
		if (tk->prompts == MOCK_MAX_CHOICES) {
			*why = "too many prompts in one request";
			return -1;
		}
		if (cJSON_IsString(el)) {
			if (tokens_words(tk, el->valuestring) < 0)
				return -1;
		} else if (cJSON_IsArray(el)) {
			if (tokens_ids(tk, el) < 0) {
				*why = "a prompt of 'prompt' holds something other than token ids";
				return -1;
			}
		} else {
			*why = "'prompt' lists something other than strings or token ids";
			return -1;
		}
		if (tokens_end_prompt(tk) < 0)
			return -1;
	}
	return 0;
}

/* ---- the prefix cache -------------------------------------------------- */

static uint64_t *cache_find(struct mock_cache *c, uint64_t h)
{
	size_t i = (size_t)(h ^ (h >> 29)) & (c->size - 1);

	while (c->slot[i] && c->slot[i] != h)
		i = (i + 1) & (c->size - 1);
	return &c->slot[i];
}

/*
 * Looks the prompt tokens t[0..n) up block by block (each block's hash
 * chains the blocks before it, so a hit means the whole prefix matched),
 * then adds its full blocks. Returns the prompt tokens found cached: whole
 * blocks, never the last token (which is always computed, as in vLLM).
 */
static long cache_lookup_insert(struct mock_server *srv, const uint64_t *t, size_t n)
{
	struct mock_cache *c = &srv->cache;
	uint64_t h = 0x6a09e667f3bcc908ULL;
	size_t b, blocks = n / MOCK_BLOCK, hits = 0, k;
	int missed = 0;

	if (!srv->opt.cache_blocks)
		return 0;
	if (!c->slot) {
		for (c->size = 16; c->size < 2 * (size_t)srv->opt.cache_blocks; c->size *= 2)
			;
		if (!(c->slot = calloc(c->size, sizeof(*c->slot))))
			return 0;
	}
	for (b = 0; b < blocks; b++) {
		uint64_t *slot;

		for (k = 0; k < MOCK_BLOCK; k++)
			h = (h ^ t[b * MOCK_BLOCK + k]) * 0x100000001b3ULL;
		h |= 1;                 /* 0 marks an empty slot */
		slot = cache_find(c, h);
		if (*slot && !missed) {
			hits++;
			continue;
		}
		missed = 1;
		if (!*slot) {
			if (c->used >= (size_t)srv->opt.cache_blocks) {   /* full: empty it */
				memset(c->slot, 0, c->size * sizeof(*c->slot));
				c->used = 0;
				slot = cache_find(c, h);
			}
			*slot = h;
			c->used++;
		}
	}
	if (hits * MOCK_BLOCK >= n)
		hits = (n - 1) / MOCK_BLOCK;
	return (long)(hits * MOCK_BLOCK);
}

/* A whole-number field: 1 and *out set when present, 0 absent, -1 not an integer. */
static int get_integer(const cJSON *root, const char *key, double *out)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, key);

	if (!item || cJSON_IsNull(item))
		return 0;
	if (!cJSON_IsNumber(item) || item->valuedouble != floor(item->valuedouble))
		return -1;
	*out = item->valuedouble;
	return 1;
}

/* How a check of the request body ended: accepted, refused with a 400
 * whose message is *why, or refused with a reply already sent. */
enum check_end { CHECK_OK, CHECK_BAD, CHECK_REPLIED };

/* The body's model, max_tokens (into *max, *has_max), n, stream,
 * stream_options and ignore_eos. */
static enum check_end check_options(struct mock_server *srv, struct evhttp_request *req,
				    const cJSON *root, struct mock_request *r, double *n,
				    double *max, int *has_max, const char **why)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, "model");

	if (item && !cJSON_IsNull(item) && (!cJSON_IsString(item) ||
	    (*item->valuestring && strcmp(item->valuestring, srv->opt.model) != 0))) {
		reply_vllm_error(req, 404, "NotFoundError", "model",
				 "The model `%s` does not exist.",
				 cJSON_IsString(item) ? item->valuestring : "?");
		return CHECK_REPLIED;
	}
	r->model = srv->opt.model;
	/* max_completion_tokens (the current name) wins over max_tokens, and
	 * both over --tokens. */
	r->n = srv->opt.tokens;
	*has_max = get_integer(root, "max_completion_tokens", max);
	if (*has_max == 0)
		*has_max = get_integer(root, "max_tokens", max);
	if (*has_max < 0) {
		*why = "max_tokens must be an integer";
		return CHECK_BAD;
	}
	if (*has_max && *max < 1) {
		reply_vllm_error(req, 400, "BadRequestError", "max_tokens",
				 "max_tokens must be at least 1, got %.0f.", *max);
		return CHECK_REPLIED;
	}
	if (get_integer(root, "n", n) < 0 || *n < 1 || *n > MOCK_MAX_CHOICES) {
		*why = *n < 1 ? "n must be at least 1." : "n must be an integer up to 128";
		return CHECK_BAD;
	}
	item = cJSON_GetObjectItemCaseSensitive(root, "stream");
	if (item && !cJSON_IsNull(item) && !cJSON_IsBool(item)) {
		*why = "'stream' must be a boolean";
		return CHECK_BAD;
	}
	r->stream = cJSON_IsTrue(item);
	item = cJSON_GetObjectItemCaseSensitive(root, "stream_options");
	if (item && !cJSON_IsNull(item) && !r->stream) {
		*why = "Stream options can only be defined when `stream=True`.";
		return CHECK_BAD;
	}
	r->include_usage = r->stream &&
		cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(item, "include_usage"));
	r->ignore_eos = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "ignore_eos"));
	return CHECK_OK;
}

/* The longest prompt and the answer asked for fit --max-model-len; else
 * vLLM's 400 is sent. */
static enum check_end check_context(struct mock_server *srv, struct evhttp_request *req,
				    const struct mock_tokens *tk, double max, int has_max)
{
	size_t p, longest = 0;

	for (p = 0; p < tk->prompts; p++)
		if (tk->bounds[p + 1] - tk->bounds[p] > longest)
			longest = tk->bounds[p + 1] - tk->bounds[p];
	if ((has_max && max + (double)longest > (double)srv->opt.max_model_len) ||
	    (long)longest >= srv->opt.max_model_len) {
		reply_vllm_error(req, 400, "BadRequestError", NULL,
				 "This model's maximum context length is %ld tokens. However, "
				 "you requested %.0f tokens (%zu in the messages, %.0f in the "
				 "completion). Please reduce the length of the messages or "
				 "completion.", srv->opt.max_model_len,
				 (double)longest + (has_max ? max : 0), longest, has_max ? max : 0);
		return CHECK_REPLIED;
	}
	return CHECK_OK;
}

/*
 * Read and check the request body into *r, as vLLM would: the served model
 * (404 otherwise), max_tokens at least 1 and within --max-model-len with
 * the prompt, n a positive integer, stream a boolean, stream_options only
 * with stream (400 otherwise, in vLLM's error shape). Returns the parsed
 * body (the caller frees it with cJSON_Delete; r->model points into it or
 * into srv->opt) or NULL after replying.
 */
/* True when the tool_calls array 'calls' holds a call of id 'id'. */
static int has_call(const cJSON *calls, const char *id)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, calls) {
		const char *cid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "id"));

		if (cid && strcmp(cid, id) == 0)
			return 1;
	}
	return 0;
}

/*
 * --tool-calls: a chat request that offers tools is answered with calls
 * of them (r->tool_calls) while fewer than --tool-rounds assistant messages
 * with calls follow its last user message. Every tool message must answer
 * a call of the assistant message before it, as OpenAI's API checks.
 * Returns 0, or -1 with why for a 400.
 */
static int tool_request(const struct mock_server *srv, const cJSON *root,
			struct mock_request *r, char *why, size_t whylen)
{
	const cJSON *tools = cJSON_GetObjectItemCaseSensitive(root, "tools"), *m;
	const cJSON *calls = NULL;
	long rounds = 0, i = 0, j, nt = cJSON_GetArraySize(tools);

	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(root, "messages")) {
		const char *role = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "role"));
		const cJSON *mc = cJSON_GetObjectItemCaseSensitive(m, "tool_calls");
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "tool_call_id"));

		if (role && strcmp(role, "user") == 0) {
			rounds = 0;
			calls = NULL;
		} else if (role && strcmp(role, "assistant") == 0) {
			calls = cJSON_GetArraySize(mc) > 0 ? mc : NULL;
			rounds += calls != NULL;
		} else if (role && strcmp(role, "tool") == 0 && (!id || !calls || !has_call(calls, id))) {
			snprintf(why, whylen, "messages[%ld]: tool_call_id '%.64s' answers no tool call "
				 "of the assistant message before it", i, id ? id : "");
			return -1;
		}
		i++;
	}
	if (!cJSON_IsArray(tools) || nt == 0 || rounds >= srv->opt.tool_rounds)
		return 0;
	for (j = 0; j < srv->opt.tool_calls && j < nt; j++) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(tools, (int)j), "function"), "name");

		if (!cJSON_IsString(name) || !name->valuestring[0] || strlen(name->valuestring) > 256) {
			snprintf(why, whylen, "tools[%ld].function.name must be a string of 1 to 256 bytes", j);
			return -1;
		}
	}
	r->tool_calls = srv->opt.tool_calls;
	r->tools = tools;
	return 0;
}

static cJSON *parse_request(struct mock_server *srv,
			    struct evhttp_request *req, struct mock_request *r)
{
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	size_t len = evbuffer_get_length(in), p;
	const char *why = "request body is not valid JSON";
	enum check_end end = CHECK_BAD;
	char tool_why[160];
	struct mock_tokens tk = { 0 };
	double max = 0, n = 1;
	int has_max = 0;
	cJSON *root;

	root = cJSON_ParseWithLength((char *)evbuffer_pullup(in, -1), len);
	if (root && !cJSON_IsObject(root))
		why = "request body must be a JSON object";
	else if (root)
		end = check_options(srv, req, root, r, &n, &max, &has_max, &why);
	if (end == CHECK_OK)
		end = prompt_tokens(root, r->api, &tk, &why) < 0 ? CHECK_BAD :
		      check_context(srv, req, &tk, max, has_max);
	if (end == CHECK_OK && r->api == MOCK_API_CHAT && srv->opt.tool_calls &&
	    tool_request(srv, root, r, tool_why, sizeof(tool_why)) < 0) {
		why = tool_why;
		end = CHECK_BAD;
	}
	r->prompt_tokens = (long)tk.n;
	if (has_max)
		r->n = max > MOCK_MAX_TOKENS ? MOCK_MAX_TOKENS : (long)max;
	r->choices = (long)n * (long)tk.prompts;
	if (end == CHECK_OK && r->choices > MOCK_MAX_CHOICES) {
		why = "n times the prompts must be at most 128";
		end = CHECK_BAD;
	}
	if (end != CHECK_OK) {
		if (end == CHECK_BAD)
			reply_vllm_error(req, 400, "BadRequestError", NULL, "%s", why);
		free(tk.t);
		cJSON_Delete(root);
		return NULL;
	}
	for (p = 0; p < tk.prompts; p++)
		r->cached += cache_lookup_insert(srv, tk.t + tk.bounds[p],
						 tk.bounds[p + 1] - tk.bounds[p]);
	if (srv->opt.cache_blocks) {
		srv->count.cache_queries += (unsigned long long)tk.n;
		srv->count.cache_hits += (unsigned long long)r->cached;
	}
	free(tk.t);
	return root;
}

/* '{"id":"chatcmpl-mock-N","object":"...","created":0,"model":"M",', the
 * common prefix of s's SSE events (malloc, caller frees). */
static char *make_head(const struct mock_stream *s)
{
	int chat = s->api == MOCK_API_CHAT;
	cJSON *model = cJSON_CreateString(s->model);
	char *quoted = model ? cJSON_PrintUnformatted(model) : NULL;
	char *head = NULL;

	if (quoted)
		head = str_printf("{\"id\":\"%s-mock-%llu\",\"object\":\"%s\","
				  "\"created\":%lld,\"model\":%s,",
				  chat ? "chatcmpl" : "cmpl", s->id, chat ?
				  "chat.completion.chunk" : "text_completion",
				  s->created, quoted);
	cJSON_free(quoted);
	cJSON_Delete(model);
	return head;
}

/* --fail-every: answers every Nth request with the fault; 1 when it did. */
static int inject_fault(struct mock_server *srv, struct evhttp_request *req)
{
	const struct mock_options *o = &srv->opt;
	const char *auth;

	if (!o->fail_every || srv->requests % (unsigned long long)o->fail_every != 0)
		return 0;
	auth = evhttp_find_header(evhttp_request_get_input_headers(req), "Authorization");
	/* as OpenAI's 401 does, the body echoes the credential it got: what a
	 * client records of it must not */
	if (o->fail_status == 401)
		reply_error(req, 401, "Unauthorized", "Incorrect API key provided: %.200s "
			    "(Authorization: %.200s)", auth && strlen(auth) > 7 ? auth + 7 : "",
			    auth ? auth : "");
	else
		reply_error(req, (int)o->fail_status, "Injected Fault", "injected by --fail-every");
	return 1;
}

/* --eos-prob: each token may be the last, a draw per token seeded by
 * --seed and the request's number, so a run repeats exactly. */
static void draw_eos(struct mock_stream *s, double eos_prob)
{
	struct rng g;
	long k;

	rng_init(&g, rng_derive(s->srv->opt.seed, s->id));
	for (k = 0; k < s->n - 1; k++) {
		if (rng_uniform(&g) < eos_prob) {
			s->n = k + 1;
			s->stop = 1;
			break;
		}
	}
	if (s->reasoning > s->n)
		s->reasoning = s->n;
}

/* --tool-calls: call j of s is of tool j (mod the tools r offers), its
 * name kept JSON-quoted for the events. Returns 0, or -1 when out of
 * memory (the names so far are s's to free). */
static int stream_tool_names(struct mock_stream *s, const struct mock_request *r)
{
	int nt = cJSON_GetArraySize(r->tools);

	s->reasoning = 0;
	for (s->tool_calls = 0; s->tool_calls < r->tool_calls; s->tool_calls++) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
			cJSON_GetArrayItem(r->tools, (int)(s->tool_calls % nt)), "function"), "name");
		char *quoted = cJSON_PrintUnformatted(name);

		s->tool_names[s->tool_calls] = quoted ? strdup(quoted) : NULL;
		cJSON_free(quoted);
		if (!s->tool_names[s->tool_calls])
			return -1;
	}
	return 0;
}

/* A stream for request r, not yet linked or started; NULL when out of memory. */
static struct mock_stream *stream_new(struct mock_server *srv, struct evhttp_request *req,
				      const struct mock_request *r)
{
	const struct mock_options *o = &srv->opt;
	struct mock_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->srv = srv;
	s->req = req;
	s->api = r->api;
	s->stream = r->stream;
	s->include_usage = r->include_usage;
	s->n = r->n;
	if (r->api == MOCK_API_CHAT)
		s->reasoning = o->reasoning_tokens < r->n ? o->reasoning_tokens : r->n;
	s->prompt_tokens = r->prompt_tokens;
	s->choices = r->choices > 0 ? r->choices : 1;
	s->cached = r->cached;
	s->created = (long long)time(NULL);
	s->id = srv->next_id + 1;
	if (o->eos_prob > 0 && !r->ignore_eos)
		draw_eos(s, o->eos_prob);
	if (r->tool_calls && stream_tool_names(s, r) < 0) {
		stream_free_unlinked(s);
		return NULL;
	}
	s->model = strdup(r->model);
	s->timer = evtimer_new(srv->base, stream_tick, s);
	if (s->stream && s->model)
		s->head = make_head(s);
	if (s->stream && o->trickle_ns) {
		s->trickle = evbuffer_new();
		s->trickle_timer = evtimer_new(srv->base, trickle_tick, s);
	}
	if (!s->model || !s->timer || (s->stream && !s->head) ||
	    (s->stream && o->trickle_ns && (!s->trickle || !s->trickle_timer))) {
		stream_free_unlinked(s);
		return NULL;
	}
	return s;
}

/*
 * --noise: s's factors, and a header that shows them, so that a client can
 * tell what the mock meant without timing it: "X-Mock-Noise: jitter=J
 * tail=T instance=I drift=D" (D the host's drift at arrival).
 */
static void noise_draw(struct mock_stream *s, int64_t arrival_ns)
{
	const struct mock_server *srv = s->srv;
	double jitter = noise_jitter(&srv->opt.noise, srv->opt.seed, s->id);
	double tail = noise_tail(&srv->opt.noise, srv->opt.seed, s->id);
	double drift = noise_drift(&srv->opt.noise, (double)arrival_ns / NS_PER_S +
				   srv->wall_offset_s);
	char v[128];

	s->slow = srv->instance * jitter;
	s->tail = tail;
	snprintf(v, sizeof(v), "jitter=%.6f tail=%.6f instance=%.6f drift=%.6f", jitter, tail,
		 srv->instance, drift);
	evhttp_add_header(evhttp_request_get_output_headers(s->req), "X-Mock-Noise", v);
}

/* Sends a streamed reply's status and headers (and the early role). */
static void stream_open(struct mock_stream *s)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(s->req);

	evhttp_add_header(h, "Content-Type", "text/event-stream");
	evhttp_add_header(h, "Cache-Control", "no-cache");
	if (wants_gzip(s->req) && (s->z = gzip_new()))
		evhttp_add_header(h, "Content-Encoding", "gzip");
	evhttp_send_reply_start(s->req, HTTP_OK, "OK");
	s->direct = !s->z && !s->trickle && httpserver_chunked(s->req);
	if (s->api == MOCK_API_CHAT && s->srv->opt.early_role)   /* role only: not a token */
		stream_send_roles(s);
	stream_flush(s);
}

/*
 * Start serving a parsed generation request that arrived at 'arrival_ns'.
 * The stream joins srv->streams and lives until stream_finish() or
 * on_conn_close() frees it. Per-request fault decisions go here.
 */
static void stream_start(struct mock_server *srv, struct evhttp_request *req,
			 const struct mock_request *r, int64_t arrival_ns)
{
	struct evhttp_connection *conn = evhttp_request_get_connection(req);
	const struct mock_options *o = &srv->opt;
	struct mock_stream *s;

	if (srv->requests++ == 0)
		srv->first_arrival_ns = arrival_ns;
	if (inject_fault(srv, req))
		return;
	if (o->stall_ns) {      /* a stalled server starts nothing until it recovers */
		int64_t from = srv->first_arrival_ns + o->stall_at_ns;

		if (arrival_ns >= from && arrival_ns < from + o->stall_ns)
			arrival_ns = from + o->stall_ns;
	}
	s = stream_new(srv, req, r);
	if (!s) {
		reply_error(req, HTTP_INTERNAL, "Internal Server Error", "out of memory");
		return;
	}
	if (o->noisy)
		noise_draw(s, arrival_ns);
	srv->next_id++;
	s->next = srv->streams;
	if (s->next)
		s->next->prev = s;
	srv->streams = s;
	srv->active++;
	s->admit_ns = arrival_ns;
	srv->count.prompt_tokens += (unsigned long long)r->prompt_tokens;

	/* Prefill: the uncached prompt tokens cost --prefill-us-per-token each. */
	if (o->noisy)
		s->due_ns = arrival_ns + noisy_ns(s, (double)o->ttft_ns * load_factor(srv) +
						  (double)(r->prompt_tokens - r->cached) *
						  (double)o->prefill_ns, arrival_ns, 1);
	else
		s->due_ns = arrival_ns + llround((double)o->ttft_ns * load_factor(srv)) +
			    (int64_t)(r->prompt_tokens - r->cached) * o->prefill_ns;
	if (srv->cold_pending) {
		s->due_ns += o->cold_start_ns;
		srv->cold_pending = 0;
	}
	if (o->noisy)
		s->due_ns = stall_release(srv, s->due_ns);
	httpserver_busy(conn, 1, MOCK_TIMEOUT_S);
	if (s->stream)
		stream_open(s);
	evhttp_connection_set_closecb(conn, on_conn_close, s);
	stream_arm(s);
}

/* ---- routing ----------------------------------------------------------- */

static void reply_models(struct mock_server *srv, struct evhttp_request *req)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *model = cJSON_CreateObject();

	cJSON_AddStringToObject(root, "object", "list");
	cJSON_AddItemToArray(cJSON_AddArrayToObject(root, "data"), model);
	cJSON_AddStringToObject(model, "id", srv->opt.model);
	cJSON_AddStringToObject(model, "object", "model");
	cJSON_AddNumberToObject(model, "created", (double)time(NULL));
	cJSON_AddStringToObject(model, "owned_by", "tracebench");
	cJSON_AddStringToObject(model, "root", srv->opt.model);
	cJSON_AddNumberToObject(model, "max_model_len", (double)srv->opt.max_model_len);
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
	reply_cjson(req, HTTP_OK, "OK", root);
}

/*
 * GET /metrics: the Prometheus text format with vLLM's (V1) names and the
 * mock's own state: requests in flight (waiting: held by --stall-ms, not
 * yet started; running: the rest), the prefix cache's fill as the KV-cache
 * use and its token lookups and hits, the token and request counters since
 * start. The mock never preempts, so that counter stays 0; without a
 * prefix cache the cache figures are left out, not made up.
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
		if (st->admit_ns > now)
			waiting++;
#define METRIC(kind, name, help, fmt, ...) \
	(ok = ok && evbuffer_add_printf(b, "# HELP vllm:" name " " help "\n" \
		"# TYPE vllm:" name " %s\n" fmt, kind, __VA_ARGS__) > 0)
	METRIC("gauge", "num_requests_running", "Number of requests in model execution batches.",
	       "vllm:num_requests_running{model_name=\"%s\"} %ld\n", m, srv->active - waiting);
	METRIC("gauge", "num_requests_waiting", "Number of requests waiting to be processed.",
	       "vllm:num_requests_waiting{model_name=\"%s\"} %ld\n", m, waiting);
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
	if (ok && srv->opt.metrics_fault == METRICS_MALFORMED)
		ok = evbuffer_add_printf(b, "vllm:broken{model_name=\"%s} 1\n"
					 "this is not a sample\n"
					 "vllm:num_requests_running{model_name=\"%s\"} many\n", m, m) > 0;
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
	httpserver_forget_conn(d->req, MOCK_TIMEOUT_S);
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
	httpserver_busy(evhttp_request_get_connection(req), 1, MOCK_TIMEOUT_S);
	evhttp_connection_set_closecb(evhttp_request_get_connection(req), on_delayed_close, d);
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
	enum route { CHAT, COMPLETIONS, MODELS, HEALTH, TOKENIZE, METRICS, NROUTES };
	static const struct {
		const char *path;
		enum evhttp_cmd_type method;
	} routes[NROUTES] = {
		[CHAT]        = { "/v1/chat/completions", EVHTTP_REQ_POST },
		[COMPLETIONS] = { "/v1/completions",      EVHTTP_REQ_POST },
		[MODELS]      = { "/v1/models",           EVHTTP_REQ_GET },
		[HEALTH]      = { "/health",              EVHTTP_REQ_GET },
		[TOKENIZE]    = { "/tokenize",            EVHTTP_REQ_POST },
		[METRICS]     = { "/metrics",             EVHTTP_REQ_GET },
	};
	struct mock_server *srv = arg;
	int64_t arrival_ns = clock_now_ns();
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	enum evhttp_cmd_type method = evhttp_request_get_command(req);
	struct mock_request r = { .api = MOCK_API_CHAT };
	cJSON *body;
	int i;

	if (!path)
		path = "";
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
		r.api = MOCK_API_COMPLETIONS;
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
	if (!httpserver_listen(srv.http, srv.opt.host, &srv.opt.port, NULL, err, sizeof(err)) ||
	    (srv.opt.port_file &&
	     httpserver_write_port_file(srv.opt.port_file, srv.opt.port, err, sizeof(err)) < 0)) {
		fprintf(stderr, "tracebench mock: %s\n", err);
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
		httpserver_forget_conn(srv.streams->req, MOCK_TIMEOUT_S);  /* NOLINT(clang-analyzer-unix.Malloc) */
		stream_free(srv.streams);
	}
	while (srv.delayed) {
		httpserver_forget_conn(srv.delayed->req, MOCK_TIMEOUT_S);  /* NOLINT(clang-analyzer-unix.Malloc) */
		delayed_free(srv.delayed);
	}
	if (srv.http)
		evhttp_free(srv.http);  /* closes connections, frees requests */
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
	if (srv.base)
		event_base_free(srv.base);
	return rc;
}
