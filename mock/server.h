/*
 * server.h - the mock's private header: the server, a request in flight
 * and what a request body says, shared by its files (not by any other
 * program):
 *
 *   mock.c     start-up, routing, the replies of the small endpoints
 *              (/v1/models, /tokenize, /metrics) and the reply helpers;
 *   stream.c   a generation request's life: its timing (the schedule,
 *              the load, --noise), its events, faults and end;
 *   typed_stream.c  the events and bodies of the Messages and Responses
 *              APIs, on stream.c's schedule;
 *   request.c  what a request body asks for: prompt tokens, the prefix
 *              cache, options checked as vLLM checks them;
 *   timings.c  --timings: a request's times as llama.cpp or vLLM tell them;
 *              --truth: its true times, as a client should have measured them.
 */
#ifndef TB_MOCK_SERVER_H
#define TB_MOCK_SERVER_H

#include "mock/options.h"

#include <stdint.h>
#include <stdio.h>
#include <zlib.h>

#include <cjson/cJSON.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>

#define MOCK_MAX_BODY    (16L * 1024 * 1024) /* request body cap, bytes */
#define MOCK_MAX_HEADERS (64L * 1024)        /* request headers cap, bytes */
#define MOCK_TIMEOUT_S   600                 /* idle or not-reading client */
#define MOCK_KEEPALIVE_MS 5000               /* --http-threads: cpp-httplib's idle timeout */
#define MOCK_MAX_CHOICES 128                 /* n x prompts per request */
#define MOCK_BLOCK       16                  /* prefix cache block, tokens */
#define MOCK_VOCAB       32000               /* /tokenize ids are below it */
#define MOCK_WORD_MAX    48                  /* --truth: the prompt's first word kept */
#define MOCK_TRUTH_TICKS 65536               /* --truth: token events timed, at most */

/* The APIs served: OpenAI's chunked chat and completions, and the two of
 * typed events (typed_stream.c): Anthropic's Messages, OpenAI's Responses. */
enum mock_api { MOCK_API_CHAT, MOCK_API_COMPLETIONS, MOCK_API_MESSAGES, MOCK_API_RESPONSES };

/* True for an API answered in typed events (typed_stream.c). */
#define MOCK_API_TYPED(api) ((api) == MOCK_API_MESSAGES || (api) == MOCK_API_RESPONSES)

/* The prefix cache: hashes of prompt blocks, each chained to the blocks
 * before it, in an open-addressed table; emptied when full. */
struct mock_cache {
	uint64_t *slot;         /* 0: empty */
	size_t size, used;      /* size a power of two, used <= size / 2 */
};

struct mock_stream;
struct mock_delayed;
struct mock_conn;

/* What GET /metrics reports besides the in-flight requests: counters since
 * start, under vLLM's names (reply_metrics()). */
struct mock_counters {
	unsigned long long prompt_tokens;       /* of requests admitted */
	unsigned long long generation_tokens;   /* tokens sent, every choice */
	unsigned long long success_stop;        /* requests ended by an EOS */
	unsigned long long success_length;      /* requests ended at max_tokens */
	unsigned long long cache_queries;       /* prompt tokens looked up */
	unsigned long long cache_hits;          /* of which found cached */
	unsigned long long chained;             /* Responses requests naming a
						 * previous_response_id */
};

/* One latency histogram of /metrics: cumulative counts of observations
 * <= each bound (seconds), their sum and count, as vLLM keeps them. */
#define MOCK_HIST_MAX 24
struct mock_hist {
	const double *le;               /* bounds, rising; +Inf implied */
	size_t n;
	unsigned long long below[MOCK_HIST_MAX];   /* per bound, not cumulative */
	unsigned long long count;
	double sum;
};

/* The histograms /metrics serves, filled as each request ends with its
 * true times (mock_observe in mock.c). */
struct mock_hists {
	struct mock_hist ttft, e2e, queue;
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
	long active;                    /* of them, those in a slot (not queued) */
	/* --slots: the requests waiting for a slot, first come first served */
	struct mock_stream *wait_head, *wait_tail;
	long queued;
	unsigned long long next_id;     /* chatcmpl-mock-N / cmpl-mock-N */
	int cold_pending;               /* next request pays --cold-start-ms */
	unsigned long long requests;    /* generation requests seen */
	/* streams begun per model: [0] --model's, [1 + i] --models' i-th */
	unsigned long long model_requests[MODELMIX_MAX + 1];
	int64_t first_arrival_ns;       /* of the first one, for --stall-at-ms */
	struct mock_cache cache;
	struct evbuffer *zscratch;      /* --gzip: an event compressed */
	struct mock_counters count;
	struct mock_hists hist;
	struct mock_delayed *delayed;   /* --metrics-fault slow: replies held */
	/* --noise: the stalls count from the start; the drift reads the
	 * wall clock, monotonic time plus this offset */
	int64_t start_ns;
	double wall_offset_s;
	double instance;                /* the instance's factor */
	/* --http-threads (conns.c): the connections held, the listener
	 * paused while they are N */
	struct evconnlistener *listener;
	struct mock_conn *conns;
	FILE *truth;                    /* --truth: the true times, a line a request */
	long n_conns;
	unsigned long long conns_accepted;
	int accept_paused;
	struct event *conn_sweep;
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
	int meta_info;                  /* "return_meta_info": true */
	long n;                         /* output tokens */
	long reasoning;                 /* of which reasoning: min(R, n) */
	long prompt_tokens;
	long k;                         /* next token to emit */
	int64_t due_ns;                 /* when token k is due */
	int64_t arrival_ns;             /* when it arrived */
	int64_t admit_ns;               /* when it starts: later when stalled */
	int64_t first_ns, last_ns;      /* when its first and last tokens went out */
	int queued;                     /* --slots: waiting for one (in srv's queue) */
	struct mock_stream *wait_next;
	struct evbuffer *trickle;       /* --trickle-us: bytes not sent yet */
	struct event *trickle_timer;    /* sends the next of them */
	int ending;                     /* the tail is queued: end when sent */
	unsigned long long id;
	char *model;                    /* echoed in replies (malloc) */
	double time_factor;             /* --models: its model's, on ttft and itl */
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
	long typed_seq;                 /* Responses: the next event's sequence_number */
	long tool_calls;                /* --tool-calls: the answer is calls */
	char *tool_names[MOCK_MAX_TOOL_CALLS];  /* their names, JSON-quoted (malloc) */
	/* --truth: the prompt's first word (a client's salt), and when each
	 * token event went out (the first MOCK_TRUTH_TICKS) */
	char first_word[MOCK_WORD_MAX];
	int64_t *ticks;
	long n_ticks;
};

/* What parse_request() read from a request body. */
struct mock_request {
	enum mock_api api;
	int stream;
	int include_usage;
	long n;
	long prompt_tokens;
	const char *model;
	int model_slot;         /* 0: --model; 1 + i: --models' i-th */
	double time_factor;     /* ... its factor on ttft and itl */
	long choices;           /* n x prompts */
	long cached;            /* prompt tokens the prefix cache held */
	int ignore_eos;
	int meta_info;          /* "return_meta_info": true (SGLang's) */
	long tool_calls;        /* --tool-calls: calls to answer with, 0 none */
	const cJSON *tools;     /* the request's "tools" (in its body) */
	int chained;            /* a Responses request continuing one it answered */
	char first_word[MOCK_WORD_MAX];   /* the prompt's first, as mock_tokens keeps it */
};

/* The deterministic vocabulary: token k is " " + mock_words[k % 16];
 * mock_spaced has the space that leads each token on the wire. */
extern const char *const mock_words[16];
extern const char *const mock_spaced[16];

/* A prompt as tokens: every whitespace-separated word (or token id) is one,
 * hashed, so that equal prefixes have equal tokens. */
struct mock_tokens {
	uint64_t *t;
	size_t n, cap;
	size_t bounds[MOCK_MAX_CHOICES + 1];   /* prompt p is t[bounds[p], bounds[p+1]) */
	size_t prompts;
	/* the first word of the first prompt, its bytes up to the first that
	 * is not a letter, digit, '.', '_' or '-' (so JSON-safe as it is) */
	char first_word[MOCK_WORD_MAX];
};

/* conns.c: the client connections. mock_conns_init sets the idle timeout
 * and, with --http-threads, the pool (0, or -1 when out of memory);
 * mock_conns_release frees the records. mock_conn_seen: call first for
 * every request. mock_conn_watch: cb(conn, arg) when conn closes, as
 * evhttp_connection_set_closecb; mock_conn_forget: no longer (req's reply
 * is over or about to be), the idle timeout back; mock_conn_busy: a reply
 * is being produced (httpserver_busy). */
struct evhttp_bound_socket;
int mock_conns_init(struct mock_server *srv, struct evhttp_bound_socket *bound);
void mock_conns_release(struct mock_server *srv);
void mock_conn_seen(struct mock_server *srv, struct evhttp_request *req);
void mock_conn_watch(struct mock_server *srv, struct evhttp_connection *conn,
		     void (*cb)(struct evhttp_connection *, void *), void *arg);
void mock_conn_forget(struct mock_server *srv, struct evhttp_request *req);
void mock_conn_busy(struct mock_server *srv, struct evhttp_connection *conn);

/* mock.c: the reply helpers. */
const char *token_word(long k);
int wants_gzip(struct evhttp_request *req);
z_stream *gzip_new(void);
void gzip_free(z_stream *z);
int gzip_buffer(z_stream *z, struct evbuffer *b, struct evbuffer *tmp, int finish);
char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void reply_cjson(struct evhttp_request *req, int code, const char *reason, cJSON *obj);
void reply_vllm_error(struct evhttp_request *req, int code, const char *type,
		      const char *param, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void reply_error(struct evhttp_request *req, int code, const char *reason,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* mock.c: a request that ended, its true times into the histograms of
 * /metrics (from stream.c when its last token is out). */
void mock_observe(struct mock_server *srv, const struct mock_stream *s, int64_t end_ns);

/* stream.c: a generation request that parse_request read, from its
 * arrival to its end; stream_free ends one at shutdown. */
void stream_start(struct mock_server *srv, struct evhttp_request *req,
		  const struct mock_request *r, int64_t arrival_ns);
void stream_free(struct mock_stream *s);
/* stream.c, for typed_stream.c: one SSE event "event: NAME\ndata: DATA\n\n"
 * sent as stream_event sends its own (batched, gzipped, trickled); tokens
 * from..to-1, each with its leading space (malloc, caller frees). */
void stream_send_typed(struct mock_stream *s, const char *name, const char *data);
char *words_join(long from, long to);

/* timings.c: --timings, s's times as the server of that shape tells them:
 * as a member to put after others (",\"timings\":{...}") into buf, ""
 * without --timings; or the same members added to a whole body's root. */
void timings_member(const struct mock_stream *s, char *buf, size_t len);
void timings_add(const struct mock_stream *s, cJSON *root);

/* timings.c: --truth. truth_open opens the file to append to (0, or -1
 * with err set); truth_tick notes that a token event of s goes out now;
 * truth_write appends s's line once its last token is out. */
int truth_open(struct mock_server *srv, char *err, size_t errlen);
void truth_tick(struct mock_stream *s, int64_t now_ns);
void truth_write(const struct mock_stream *s);
/* --timings sglang: SGLang's meta_info added to a chat body's choice, when
 * the request asked for it ("return_meta_info": true). */
void timings_add_choice(const struct mock_stream *s, cJSON *choice);

/* typed_stream.c: a Messages or Responses request's events: tokens k..k+
 * count-1 as deltas (the opening events with token 0, a new block where
 * the reasoning ends), the closing events (the last one left out with
 * --no-done: a stream cut short), or the whole non-streamed body. */
void typed_stream_token(struct mock_stream *s, long k, long count);
void typed_stream_finish(struct mock_stream *s, int without_end);
void typed_reply_whole(struct mock_stream *s);

/* request.c: the body of a generation request, checked: its root (the
 * caller frees it) and what it asks in *r; NULL when it was answered
 * with an error already. prompt_tokens reads a body's prompts into tk
 * (0, or -1 with *why). */
cJSON *parse_request(struct mock_server *srv, struct evhttp_request *req,
		     struct mock_request *r);
int prompt_tokens(const cJSON *root, enum mock_api api, struct mock_tokens *tk,
		  const char **why);

#endif
