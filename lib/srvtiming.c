/*
 * srvtiming.c - a server's own per-request timings; see srvtiming.h.
 */
#include "srvtiming.h"
#include "result.h"

#include <math.h>
#include <string.h>

static const char *const shape_names[] = {
	[SRVTIMING_NONE] = NULL,
	[SRVTIMING_LLAMACPP] = "llama.cpp",
	[SRVTIMING_VLLM] = "vllm",
	[SRVTIMING_SGLANG] = "sglang",
};

void srvtiming_init(struct srvtiming *t)
{
	t->shape = SRVTIMING_NONE;
	t->queue_ns = t->prefill_ns = t->decode_ns = t->cache_n = -1;
}

const char *srvtiming_shape_name(enum srvtiming_shape s)
{
	return (unsigned)s < sizeof(shape_names) / sizeof(shape_names[0]) ? shape_names[s] : NULL;
}

int srvtiming_shape_parse(const char *name)
{
	size_t i;

	if (!name)
		return SRVTIMING_NONE;
	for (i = 1; i < sizeof(shape_names) / sizeof(shape_names[0]); i++)
		if (strcmp(name, shape_names[i]) == 0)
			return (int)i;
	return -1;
}

/* obj's key as nanoseconds from milliseconds, -1 when absent or out of
 * [0, RESULT_MAX_NS]. */
static int64_t ms_field(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	double ns;

	if (!cJSON_IsNumber(v))
		return -1;
	ns = v->valuedouble * 1e6;
	if (!(ns >= 0 && ns <= (double)RESULT_MAX_NS))   /* NaN fails too */
		return -1;
	return llround(ns);
}

/* obj's key as a token count, -1 when absent, fractional or out of range. */
static int64_t count_field(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 &&
				    v->valuedouble <= (double)RESULT_MAX_TOKENS) ||
	    v->valuedouble != floor(v->valuedouble))
		return -1;
	return (int64_t)v->valuedouble;
}

/* obj's key as seconds to nanoseconds, -1 when absent or out of
 * [0, RESULT_MAX_NS]. */
static int64_t s_field(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	double ns;

	if (!cJSON_IsNumber(v))
		return -1;
	ns = v->valuedouble * 1e9;
	if (!(ns >= 0 && ns <= (double)RESULT_MAX_NS))
		return -1;
	return llround(ns);
}

/* The span from obj's wall-clock instant key `from` to `to` (seconds since
 * 1970), ns; -1 when either is absent, not a plausible instant (after 1970,
 * before SRVTIMING_MAX_UNIX_S) or the span out of [0, RESULT_MAX_NS]. */
static int64_t ts_span(const cJSON *obj, const char *from, const char *to)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, from);
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(obj, to);
	double ns;

	if (!cJSON_IsNumber(a) || !cJSON_IsNumber(b) ||
	    !(a->valuedouble > 0 && a->valuedouble < SRVTIMING_MAX_UNIX_S) ||
	    !(b->valuedouble > 0 && b->valuedouble < SRVTIMING_MAX_UNIX_S))
		return -1;
	ns = (b->valuedouble - a->valuedouble) * 1e9;
	if (!(ns >= 0 && ns <= (double)RESULT_MAX_NS))
		return -1;
	return llround(ns);
}

/* SGLang's meta_info has timings when its server runs with --enable-metrics:
 * its queue_time, or the instants its prefill began and ended. */
static int sglang_timed(const cJSON *mi)
{
	return cJSON_IsObject(mi) &&
	       (cJSON_GetObjectItemCaseSensitive(mi, "queue_time") ||
		cJSON_GetObjectItemCaseSensitive(mi, "forward_entry_time") ||
		cJSON_GetObjectItemCaseSensitive(mi, "prefill_finished_time") ||
		cJSON_GetObjectItemCaseSensitive(mi, "prefill_finished_ts"));
}

/*
 * SGLang's meta_info (see srvtiming.h). Newer servers give the scheduler's
 * instants: prefill from forward_entry_time to prefill_finished_time, decode
 * the rest of inference_time (forward entry to the answer's end). Older
 * ones give the API server's: prefill_finished_ts (its first token) less
 * request_received_ts and the queue, decode to decode_finished_ts.
 */
static void read_sglang(const cJSON *mi, struct srvtiming *t)
{
	int64_t inference = s_field(mi, "inference_time");

	srvtiming_init(t);
	t->shape = SRVTIMING_SGLANG;
	t->queue_ns = s_field(mi, "queue_time");
	t->prefill_ns = ts_span(mi, "forward_entry_time", "prefill_finished_time");
	if (t->prefill_ns >= 0) {
		if (inference >= t->prefill_ns)
			t->decode_ns = inference - t->prefill_ns;
		else
			t->decode_ns = ts_span(mi, "prefill_finished_time", "request_finished_ts");
	} else {
		int64_t first = ts_span(mi, "request_received_ts", "prefill_finished_ts");

		if (first >= 0 && t->queue_ns >= 0 && first >= t->queue_ns)
			t->prefill_ns = first - t->queue_ns;
		t->decode_ns = ts_span(mi, "prefill_finished_ts", "decode_finished_ts");
	}
	t->cache_n = count_field(mi, "cached_tokens");
}

int srvtiming_read(const cJSON *obj, struct srvtiming *t)
{
	const cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(obj, "choices"), 0);
	const cJSON *sglang = cJSON_GetObjectItemCaseSensitive(c0, "meta_info");

	const cJSON *llama = cJSON_GetObjectItemCaseSensitive(obj, "timings");
	const cJSON *vllm = cJSON_GetObjectItemCaseSensitive(obj, "metrics");

	if (cJSON_IsObject(llama)) {
		srvtiming_init(t);
		t->shape = SRVTIMING_LLAMACPP;
		t->prefill_ns = ms_field(llama, "prompt_ms");
		t->decode_ns = ms_field(llama, "predicted_ms");
		t->cache_n = count_field(llama, "cache_n");
		return 1;
	}
	/* "metrics" is a common word: only vLLM's fields make it timings */
	if (cJSON_IsObject(vllm) &&
	    (cJSON_GetObjectItemCaseSensitive(vllm, "queue_time_ms") ||
	     cJSON_GetObjectItemCaseSensitive(vllm, "time_to_first_token_ms") ||
	     cJSON_GetObjectItemCaseSensitive(vllm, "generation_time_ms"))) {
		srvtiming_init(t);
		t->shape = SRVTIMING_VLLM;
		t->queue_ns = ms_field(vllm, "queue_time_ms");
		t->prefill_ns = ms_field(vllm, "time_to_first_token_ms");
		t->decode_ns = ms_field(vllm, "generation_time_ms");
		return 1;
	}
	if (!cJSON_IsObject(sglang))     /* its native answers: at the root */
		sglang = cJSON_GetObjectItemCaseSensitive(obj, "meta_info");
	if (sglang_timed(sglang)) {
		read_sglang(sglang, t);
		return 1;
	}
	return 0;
}
