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

int srvtiming_read(const cJSON *obj, struct srvtiming *t)
{
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
	return 0;
}
