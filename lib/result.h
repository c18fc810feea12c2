/*
 * result.h - one replayed request's measurements, as replay writes them
 * into a results file and analyze reads them back (schema/FORMAT.md).
 *
 * Times are nanoseconds. sched_ns and send_ns are offsets from the run's
 * start; ttft/ttfa/e2e are measured from 'start' as docs/DESIGN.md
 * ("Metric definitions") defines it (closed loop: send time; open loop:
 * scheduled time). -1 means "none" (no token arrived, no answer token, ...).
 */
#ifndef TB_RESULT_H
#define TB_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "srvtiming.h"

/* Error classes; "" means the request succeeded. */
#define RESULT_ERR_HTTP       "http"        /* non-2xx status */
#define RESULT_ERR_CONNECT    "connect"     /* could not connect */
#define RESULT_ERR_TIMEOUT    "timeout"     /* request or connect timeout */
#define RESULT_ERR_TRANSFER   "transfer"    /* reset or broken mid-response */
#define RESULT_ERR_SERVER     "server"      /* an SSE error event / error object */
#define RESULT_ERR_MALFORMED  "malformed"   /* unparseable event or body */
#define RESULT_ERR_INCOMPLETE "incomplete"  /* stream ended without [DONE] */
#define RESULT_ERR_CANCELLED  "cancelled"   /* stopped by the user */

/* Range of every token count and time read from a server or a file: values
 * outside are refused where they enter (lib/meter.c, result_from_json) and
 * never reach arithmetic, so sums over a run cannot overflow. */
#define RESULT_MAX_TOKENS 1000000000LL          /* per request */
#define RESULT_MAX_RATE_LEVELS 100000           /* rate levels of one run */
#define RESULT_MAX_NS     (100LL * 86400 * 1000000000LL)  /* 100 days */

#define RESULT_ERROR_MAX 16
#define RESULT_DETAIL_MAX 512
#define RESULT_SALT_MAX 40
#define RESULT_CANCEL_MAX 24
#define RESULT_MODEL_MAX 128   /* lib/modelmix.h's MODELMIX_NAME_MAX */

/* Where a result's output token count came from (schema/FORMAT.md). */
enum result_tokens {
	RESULT_TOKENS_USAGE,     /* the server's usage.completion_tokens: exact */
	RESULT_TOKENS_TOKENIZE,  /* the server's /tokenize over the streamed text */
	RESULT_TOKENS_EVENTS,    /* token-carrying events counted: an estimate */
};

/* "usage", "tokenize", "events". */
const char *result_tokens_name(enum result_tokens t);

struct result {
	int level;               /* concurrency of the level; 0 in an open-loop run
				  * of one rate, -k for the k-th rate of a rate search */
	int repeat;              /* which repetition of the level (--repeat), from 0 */
	double rate;             /* offered req/s of a rate level (level < 0), else 0 */
	long seq;                /* order of sending within the run */
	long trace_id;           /* "id" of the trace record replayed */
	bool warmup;             /* sent before measuring; excluded from stats */
	int status;              /* HTTP status, 0 when no response */
	char error[RESULT_ERROR_MAX];  /* error class, "" when ok */
	char *error_detail;      /* owned; NULL or at most RESULT_DETAIL_MAX bytes */
	int64_t sched_ns;        /* scheduled send time, from run start */
	int64_t send_ns;         /* actual hand-over to the HTTP client */
	int64_t ttft_ns;         /* start -> first token of any kind, or -1 */
	int64_t ttfa_ns;         /* start -> first answer token, or -1 */
	int64_t e2e_ns;          /* start -> end of response */
	int64_t input_tokens;    /* usage.prompt_tokens, else the trace's, or -1 */
	int64_t output_tokens;   /* usage.completion_tokens, else counted events */
	bool tokens_estimated;   /* output_tokens counted from events (tokens_source) */
	enum result_tokens tokens_source;   /* where output_tokens came from */
	int64_t token_events;    /* events that carried a token, or -1 unknown */
	int64_t cached_tokens;   /* usage.prompt_tokens_details.cached_tokens, or -1 */
	char salt[RESULT_SALT_MAX];   /* prefix put before the prompt, "" none */
	char model[RESULT_MODEL_MAX]; /* the model a --model-mix sent it to, "" none */
	bool new_connection;     /* the request had to open its connection */
	int64_t connect_ns;      /* start -> TCP connected, -1 unless new_connection */
	int64_t tls_ns;          /* TCP connected -> TLS done, -1 unless new and TLS */
	bool unstreamed;         /* a whole JSON body, not SSE: TTFT = TTFA = E2E */
	/* The client's own delays (lib/clientbound.h), -1 unknown: from the
	 * request being due to libcurl starting to write it, and the age of
	 * the event-loop pass that stamped its first token. */
	int64_t issue_ns;
	int64_t read_ns;
	/* What the server said of its own time for the request: queue,
	 * prefill and decode (lib/srvtiming.h); shape SRVTIMING_NONE when it
	 * said nothing. cache_n is not written (it fills cached_tokens). */
	struct srvtiming server;
	int64_t *itl_ns;         /* owned: gaps between token events */
	size_t n_itl;
	/* replay --cancel (replay/cancel.h): the point this request was
	 * chosen to be cancelled at, "tokens:16" or "200ms" (written as
	 * "cancel"); "" when not chosen. A chosen request is the workload's,
	 * not the measurement's: no statistic takes it (result_measured). */
	char cancel[RESULT_CANCEL_MAX];
	long session;            /* the trace record's session, or -1 */
	long turn;               /* ... and its turn, or -1 */
	/* not owned, never written: credentials the request sent (the API
	 * key), scrubbed from every error detail by result_set_error */
	const char *const *secrets;
	size_t n_secrets;
};

void result_init(struct result *r);
/* Frees what r owns and re-initializes it. */
void result_release(struct result *r);

/* True when the request succeeded (no error class). */
bool result_ok(const struct result *r);

/* True when replay --cancel cut r at its point: chosen, class "cancelled"
 * (a signal's cancel is a failure: not chosen). */
bool result_cancelled(const struct result *r);

/* True when r counts in the statistics: not a warm-up, not chosen by
 * --cancel (cut, or ended before its point), and succeeded. */
bool result_measured(const struct result *r);

/*
 * Sets the error class and a detail message, unless r has an error
 * already: the first error is the cause, and what follows from it (a
 * broken stream, an aborted transfer) does not replace it. The detail is
 * copied and capped at RESULT_DETAIL_MAX bytes after every bearer token
 * and every one of r->secrets in it has been replaced (lib/redact.h):
 * every detail a file gets passes here.
 */
void result_set_error(struct result *r, const char *cls, const char *detail);

/* Class "http" with "HTTP <status>: <body>": the whole body is redacted
 * as above before it is cut to fit. */
void result_set_http_error(struct result *r, int status, const char *body, size_t len);

/* The model the request was sent to (NULL or "": none named), cut to fit. */
void result_set_model(struct result *r, const char *model);

/* Serializes r; the caller frees the returned object with cJSON_Delete. */
cJSON *result_to_json(const struct result *r);

/*
 * Fills r (already initialized) from a record object. Returns 0, or -1 with
 * a message naming the bad field in err (errlen bytes).
 */
int result_from_json(struct result *r, const cJSON *obj, char *err, size_t errlen);

#endif
