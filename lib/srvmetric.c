/*
 * srvmetric.c - the known server metric names and a level's scrapes folded
 * into one set of figures; see srvmetric.h for the rules.
 */
#include "lib/srvmetric.h"

#include <math.h>
#include <string.h>

/* Each name a server publishes, as the exposition format spells the
 * sample (a counter with its _total). Sources: the servers' metrics
 * documentation (vLLM V0 and V1, SGLang, llama.cpp's server, TGI). */
static const struct {
	const char *name;
	enum srvmetric_kind kind;
	const char *family;
} names[] = {
	{ "vllm:num_requests_running",                 SRVMETRIC_RUNNING,         "vllm" },
	{ "vllm:num_requests_waiting",                 SRVMETRIC_WAITING,         "vllm" },
	{ "vllm:kv_cache_usage_perc",                  SRVMETRIC_KV_USAGE,        "vllm" },
	{ "vllm:gpu_cache_usage_perc",                 SRVMETRIC_KV_USAGE,        "vllm" },
	{ "vllm:prefix_cache_queries_total",           SRVMETRIC_PREFIX_QUERIES,  "vllm" },
	{ "vllm:prefix_cache_hits_total",              SRVMETRIC_PREFIX_HITS,     "vllm" },
	{ "vllm:gpu_prefix_cache_queries_total",       SRVMETRIC_PREFIX_QUERIES,  "vllm" },
	{ "vllm:gpu_prefix_cache_hits_total",          SRVMETRIC_PREFIX_HITS,     "vllm" },
	{ "vllm:gpu_prefix_cache_hit_rate",            SRVMETRIC_HIT_RATE,        "vllm" },
	{ "vllm:num_preemptions_total",                SRVMETRIC_PREEMPTIONS,     "vllm" },
	{ "vllm:spec_decode_num_draft_tokens_total",   SRVMETRIC_SPEC_DRAFT,      "vllm" },
	{ "vllm:spec_decode_num_accepted_tokens_total", SRVMETRIC_SPEC_ACCEPTED,  "vllm" },
	{ "vllm:prompt_tokens_total",                  SRVMETRIC_PROMPT_TOKENS,   "vllm" },
	{ "vllm:generation_tokens_total",              SRVMETRIC_GEN_TOKENS,      "vllm" },
	{ "sglang:num_running_reqs",                   SRVMETRIC_RUNNING,         "sglang" },
	{ "sglang:num_queue_reqs",                     SRVMETRIC_WAITING,         "sglang" },
	{ "sglang:token_usage",                        SRVMETRIC_KV_USAGE,        "sglang" },
	{ "sglang:cache_hit_rate",                     SRVMETRIC_HIT_RATE,        "sglang" },
	{ "sglang:spec_accept_length",                 SRVMETRIC_SPEC_LENGTH,     "sglang" },
	{ "sglang:prompt_tokens_total",                SRVMETRIC_PROMPT_TOKENS,   "sglang" },
	{ "sglang:generation_tokens_total",            SRVMETRIC_GEN_TOKENS,      "sglang" },
	{ "llamacpp:requests_processing",              SRVMETRIC_RUNNING,         "llamacpp" },
	{ "llamacpp:requests_deferred",                SRVMETRIC_WAITING,         "llamacpp" },
	{ "llamacpp:kv_cache_usage_ratio",             SRVMETRIC_KV_USAGE,        "llamacpp" },
	{ "llamacpp:prompt_tokens_total",              SRVMETRIC_PROMPT_TOKENS,   "llamacpp" },
	{ "llamacpp:tokens_predicted_total",           SRVMETRIC_GEN_TOKENS,      "llamacpp" },
	{ "tgi_batch_current_size",                    SRVMETRIC_RUNNING,         "tgi" },
	{ "tgi_queue_size",                            SRVMETRIC_WAITING,         "tgi" },
};

/* Counters count their increase; the rest are gauges. */
static int is_counter(enum srvmetric_kind k)
{
	return k >= SRVMETRIC_PREFIX_QUERIES;
}

int srvmetric_lookup(const char *name, enum srvmetric_kind *kind, const char **family)
{
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].name, name)) {
			*kind = names[i].kind;
			*family = names[i].family;
			return 0;
		}
	return -1;
}

void srvmetric_level_init(struct srvmetric_level *l)
{
	size_t k;

	memset(l, 0, sizeof(*l));
	for (k = 0; k < SRVMETRIC_N; k++)
		l->mean[k] = l->max[k] = l->delta[k] = l->last[k] = NAN;
	l->prefix_hit_rate = l->spec_acceptance = NAN;
}

/* Folds the scrape being read into the level. */
static void end_scrape(struct srvmetric_level *l)
{
	size_t k;
	int any = 0;

	if (!l->in_scrape)
		return;
	for (k = 0; k < SRVMETRIC_N; k++) {
		double v = l->cur[k];

		if (!l->cur_has[k])
			continue;
		any = 1;
		if (!is_counter((enum srvmetric_kind)k)) {
			l->sum[k] += v;
			l->max[k] = l->seen[k] && l->max[k] >= v ? l->max[k] : v;
		} else if (l->seen[k]) {
			/* an increase since the last scrape; a drop is a restart */
			double inc = v >= l->last[k] ? v - l->last[k] : v;

			l->delta[k] = (isnan(l->delta[k]) ? 0 : l->delta[k]) + inc;
		}
		l->last[k] = v;
		l->seen[k]++;
		l->cur_has[k] = 0;
		l->cur[k] = 0;
	}
	if (any)
		l->scrapes++;
	l->in_scrape = 0;
}

void srvmetric_level_add(struct srvmetric_level *l, long scrape, const char *name, double value)
{
	enum srvmetric_kind kind;
	const char *family;

	if (!l->in_scrape || scrape != l->cur_scrape) {
		end_scrape(l);
		l->in_scrape = 1;
		l->cur_scrape = scrape;
	}
	if (srvmetric_lookup(name, &kind, &family) < 0) {
		l->unknown++;
		return;
	}
	if (!isfinite(value))
		return;
	if (!l->family)
		l->family = family;
	l->cur[kind] += value;      /* summed over the label sets */
	l->cur_has[kind] = 1;
}

void srvmetric_level_finish(struct srvmetric_level *l)
{
	size_t k;

	end_scrape(l);
	for (k = 0; k < SRVMETRIC_N; k++) {
		if (is_counter((enum srvmetric_kind)k)) {
			if (l->seen[k] == 1)
				l->delta[k] = NAN;  /* one reading: no increase to tell */
			else if (l->seen[k] > 1 && isnan(l->delta[k]))
				l->delta[k] = 0;
		} else if (l->seen[k]) {
			l->mean[k] = l->sum[k] / (double)l->seen[k];
		}
	}
	if (l->delta[SRVMETRIC_PREFIX_QUERIES] > 0)
		l->prefix_hit_rate = l->delta[SRVMETRIC_PREFIX_HITS] /
				     l->delta[SRVMETRIC_PREFIX_QUERIES];
	else if (!isnan(l->mean[SRVMETRIC_HIT_RATE]))
		l->prefix_hit_rate = l->mean[SRVMETRIC_HIT_RATE];
	if (l->delta[SRVMETRIC_SPEC_DRAFT] > 0)
		l->spec_acceptance = l->delta[SRVMETRIC_SPEC_ACCEPTED] /
				     l->delta[SRVMETRIC_SPEC_DRAFT];
}
