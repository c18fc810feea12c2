/*
 * srvtiming.h - what a server says of its own time for one request.
 *
 * Some servers put per-request timings in their answer, beside usage:
 *
 *   llama.cpp (and mlx-lm)  "timings": {"prompt_n", "prompt_ms", "cache_n",
 *                           "predicted_n", "predicted_ms", ...} on the
 *                           finish or usage chunk, or in the body;
 *   vLLM                    "metrics": {"queue_time_ms",
 *                           "time_to_first_token_ms", "generation_time_ms",
 *                           "mean_itl_ms", "tokens_per_second"} on the
 *                           final usage chunk or in the body, when served
 *                           with --enable-per-request-metrics;
 *   SGLang                  "meta_info" in each choice of a non-streamed
 *                           chat answer asked with "return_meta_info": true
 *                           (refused when streamed), or at the root of its
 *                           native answers; its timings only when served
 *                           with --enable-metrics: "queue_time" (s), the
 *                           scheduler's "forward_entry_time" and
 *                           "prefill_finished_time" (s since 1970) and
 *                           "inference_time" (s: forward entry to the end);
 *                           older servers "request_received_ts",
 *                           "prefill_finished_ts" (their first token) and
 *                           "decode_finished_ts" instead of the instants.
 *
 * Both become the same three spans: queue (arrival to scheduled: vLLM's
 * queue_time_ms; llama.cpp does not say), prefill (scheduled to the first
 * token: vLLM's time_to_first_token_ms, which counts from scheduling;
 * llama.cpp's prompt_ms) and decode (first token to last: vLLM's
 * generation_time_ms, llama.cpp's predicted_ms; SGLang's spans between its
 * instants). What the client measured
 * beyond them is the rest: send, network, the client, and a queue the
 * server does not report (docs/DESIGN.md, "Where the time went").
 *
 * What a server sends is hostile: each field is range-checked on its own
 * and one out of range (negative, fractional where a count, past 100 days,
 * not a number) is left out, the request and the other fields kept; an
 * instant must lie between 1970 and SRVTIMING_MAX_UNIX_S, a span between
 * two of them must not be negative.
 */
#ifndef TB_SRVTIMING_H
#define TB_SRVTIMING_H

#include <stdint.h>
#include <cjson/cJSON.h>

/* The shape a server's timings came in, as results files name it. */
enum srvtiming_shape {
	SRVTIMING_NONE,
	SRVTIMING_LLAMACPP,   /* "llama.cpp": a "timings" object */
	SRVTIMING_VLLM,       /* "vllm": a "metrics" object */
	SRVTIMING_SGLANG,     /* "sglang": a choice's "meta_info" */
};

/* SGLang's instants are seconds since 1970: none after this (year 5138). */
#define SRVTIMING_MAX_UNIX_S 1e11

struct srvtiming {
	enum srvtiming_shape shape;
	int64_t queue_ns, prefill_ns, decode_ns;   /* -1: not said (or refused) */
	int64_t cache_n;                           /* llama.cpp's cache_n, -1 none */
};

/* shape none, every field -1 */
void srvtiming_init(struct srvtiming *t);

/*
 * Reads the timings of a chunk or body object into *t, when it has them:
 * a "timings" object (llama.cpp), a "metrics" object with at least one
 * of vLLM's fields, or an SGLang "meta_info" with its timings (in the
 * first choice, else at the root). A later chunk's say replaces an earlier one's (with
 * llama.cpp's timings_per_token every chunk carries them, growing).
 * Returns 1 when obj had timings, else 0 (*t untouched).
 */
int srvtiming_read(const cJSON *obj, struct srvtiming *t);

/* "llama.cpp", "vllm", "sglang"; NULL for none. */
const char *srvtiming_shape_name(enum srvtiming_shape s);

/* The shape a name gives, SRVTIMING_NONE for NULL; -1 for an unknown name. */
int srvtiming_shape_parse(const char *name);

#endif
