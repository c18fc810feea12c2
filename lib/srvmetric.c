/*
 * srvmetric.c - the known server metric names and a level's scrapes folded
 * into one set of figures; see srvmetric.h for the rules.
 */
#include "lib/srvmetric.h"
#include "lib/prom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
	{ "node_procs_running",                        SRVMETRIC_PROCS_RUNNING,   NULL },
	{ "process_cpu_seconds_total",                 SRVMETRIC_PROCESS_CPU,     NULL },
};

/* The latency histograms, by family (the sample names add _bucket, _sum,
 * _count). Sources: vLLM's metrics documentation (V1: inter-token latency
 * after 0.11, time per output token before) and SGLang's production
 * metrics. llama.cpp's server keeps no histogram (its /metrics has
 * counters and gauges only: tests/fixtures/llama-server/metrics.prom). */
static const struct {
	const char *family;
	enum srvmetric_hist_kind kind;
} hists[] = {
	{ "vllm:time_to_first_token_seconds",     SRVMETRIC_H_TTFT },
	{ "vllm:request_queue_time_seconds",      SRVMETRIC_H_QUEUE },
	{ "vllm:e2e_request_latency_seconds",     SRVMETRIC_H_E2E },
	{ "vllm:inter_token_latency_seconds",     SRVMETRIC_H_ITL },
	{ "vllm:time_per_output_token_seconds",   SRVMETRIC_H_ITL },
	{ "sglang:time_to_first_token_seconds",   SRVMETRIC_H_TTFT },
	{ "sglang:queue_time_seconds",            SRVMETRIC_H_QUEUE },
	{ "sglang:e2e_request_latency_seconds",   SRVMETRIC_H_E2E },
	{ "sglang:inter_token_latency_seconds",   SRVMETRIC_H_ITL },
	{ "sglang:time_per_output_token_seconds", SRVMETRIC_H_ITL },
};

const double srvmetric_quantiles[SRVMETRIC_NQ] = { 0.5, 0.9, 0.99 };

/* Which histogram a family name (without _bucket) is: 0 and *kind set,
 * -1 for one not in the table. */
static int srvmetric_hist_lookup(const char *family, enum srvmetric_hist_kind *kind)
{
	size_t i;

	for (i = 0; i < sizeof(hists) / sizeof(hists[0]); i++)
		if (!strcmp(hists[i].family, family)) {
			*kind = hists[i].kind;
			return 0;
		}
	return -1;
}

enum srvmetric_at srvmetric_at_parse(const char *at)
{
	if (!at)
		return SRVMETRIC_AT_INTERVAL;
	if (!strcmp(at, "level_start"))
		return SRVMETRIC_AT_START;
	if (!strcmp(at, "level_end"))
		return SRVMETRIC_AT_END;
	return SRVMETRIC_AT_BETWEEN;
}

/* Counters count their increase; the rest are gauges. */
static int is_counter(enum srvmetric_kind k)
{
	return k >= SRVMETRIC_PREFIX_QUERIES;
}

/* Whether a sample of kind k is one a server can mean: a share (KV-cache
 * use, a hit rate) from 0 to 1, anything else from 0 to
 * SRVMETRIC_MAX_VALUE, so that the sums over label sets and scrapes stay
 * finite. NaN is out of every range. */
static int srvmetric_in_range(enum srvmetric_kind k, double v)
{
	double max = k == SRVMETRIC_KV_USAGE || k == SRVMETRIC_HIT_RATE ? 1 : SRVMETRIC_MAX_VALUE;

	return v >= 0 && v <= max;
}

/* part / whole, NaN unless 0 <= part <= whole and whole > 0: more hits
 * than queries (or tokens accepted than drafted) is no rate. */
static double srvmetric_rate(double part, double whole)
{
	return whole > 0 && part >= 0 && part <= whole ? part / whole : NAN;
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
		l->mean[k] = l->max[k] = l->end[k] = l->delta[k] = l->last[k] = NAN;
	l->prefix_hit_rate = l->spec_acceptance = NAN;
	l->cpu_busy = l->cpu_steal = l->process_cpu = NAN;
	for (k = 0; k < SRVMETRIC_H_N; k++) {
		size_t q;

		for (q = 0; q < SRVMETRIC_NQ; q++)
			l->hist[k].rc[q] = BUCKETQ_EMPTY;
	}
}

/*
 * Whether the increase from the last scrape to this one, at 'at', is the
 * level's: inside an open window, or (a file without windows) anywhere.
 */
static int counts(const struct srvmetric_level *l, enum srvmetric_at at)
{
	if (at == SRVMETRIC_AT_START)
		return l->open > 0;     /* another shard's window is open */
	return l->open > 0 || !l->windowed;
}

/* A histogram's scrape into its fold. */
static void end_hist(struct srvmetric_hist *h, int add)
{
	double inc[SRVMETRIC_MAX_BUCKETS];
	size_t i;

	if (!h->cur_has)
		return;
	if (h->has_last && add) {
		bucketq_increase(h->last, h->cur, h->n, inc);
		for (i = 0; i < h->n; i++)
			h->delta[i] += inc[i];
		h->pairs++;
	}
	memcpy(h->last, h->cur, h->n * sizeof(h->cur[0]));
	memset(h->cur, 0, sizeof(h->cur));
	h->has_last = 1;
	h->cur_has = 0;
}

/* Folds the scrape being read into the level. */
static void end_scrape(struct srvmetric_level *l)
{
	enum srvmetric_at at = l->cur_at;
	size_t k;
	int any = 0, add;

	if (!l->in_scrape)
		return;
	l->in_scrape = 0;
	if (at == SRVMETRIC_AT_BETWEEN) {
		memset(l->cur, 0, sizeof(l->cur));
		memset(l->cur_has, 0, sizeof(l->cur_has));
		for (k = 0; k < SRVMETRIC_H_N; k++) {
			memset(l->hist[k].cur, 0, sizeof(l->hist[k].cur));
			l->hist[k].cur_has = 0;
		}
		return;
	}
	if (at == SRVMETRIC_AT_START)
		l->windowed = 1;
	add = counts(l, at);
	for (k = 0; k < SRVMETRIC_N; k++) {
		double v = l->cur[k];

		if (!l->cur_has[k])
			continue;
		any = 1;
		if (!is_counter((enum srvmetric_kind)k)) {
			if (at == SRVMETRIC_AT_INTERVAL) {  /* the edges find the server idle */
				l->sum[k] += v;
				l->max[k] = l->gauge_seen[k] && l->max[k] >= v ? l->max[k] : v;
				l->gauge_seen[k]++;
			} else if (at == SRVMETRIC_AT_END) {
				l->end[k] = v;
			}
		} else if (l->seen[k] && add) {
			/* an increase since the last scrape; a drop is a restart */
			double inc = v >= l->last[k] ? v - l->last[k] : v;

			l->delta[k] = (isnan(l->delta[k]) ? 0 : l->delta[k]) + inc;
			l->pairs[k]++;
		}
		l->last[k] = v;
		l->seen[k]++;
		l->cur_has[k] = 0;
		l->cur[k] = 0;
	}
	for (k = 0; k < SRVMETRIC_H_N; k++) {
		any |= l->hist[k].cur_has;
		end_hist(&l->hist[k], add);
	}
	if (at == SRVMETRIC_AT_START)
		l->open++;
	else if (at == SRVMETRIC_AT_END && l->open > 0)
		l->open--;
	if (any)
		l->scrapes++;
}

/* The le of a bucket's series (name{...,le="0.05"}): 0, or -1 when it has
 * none or one that is not a number. */
static int series_le(const char *series, double *le)
{
	struct prom_scrape ps;
	char line[1100], *stop;
	const char *v;
	int n, rc = -1;

	n = snprintf(line, sizeof(line), "%s 0\n", series);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -1;
	prom_scrape_init(&ps);
	if (prom_parse(&ps, line, (size_t)n, NULL, 0) == 0 && ps.n == 1 &&
	    (v = prom_label(&ps.samples[0], "le")) != NULL && *v) {
		*le = strtod(v, &stop);
		rc = *stop || isnan(*le) ? -1 : 0;
	}
	prom_scrape_release(&ps);
	return rc;
}

/* A bucket's count into histogram h's current scrape, its bound added in
 * order when new (a bound that appears late reads as counts that fall:
 * the estimate is then refused). */
static void add_bucket(struct srvmetric_hist *h, double le, double value)
{
	size_t i;

	for (i = 0; i < h->n && h->le[i] < le; i++)
		;
	if (i == h->n || h->le[i] != le) {
		if (h->n == SRVMETRIC_MAX_BUCKETS) {
			h->too_many = 1;
			return;
		}
		memmove(&h->le[i + 1], &h->le[i], (h->n - i) * sizeof(h->le[0]));
		memmove(&h->cur[i + 1], &h->cur[i], (h->n - i) * sizeof(h->cur[0]));
		memmove(&h->last[i + 1], &h->last[i], (h->n - i) * sizeof(h->last[0]));
		memmove(&h->delta[i + 1], &h->delta[i], (h->n - i) * sizeof(h->delta[0]));
		h->le[i] = le;
		h->cur[i] = h->last[i] = h->delta[i] = 0;
		h->n++;
	}
	h->cur[i] += value;         /* summed over the label sets */
	h->cur_has = 1;
}

/* A sample of a latency histogram's bucket: 1 when it was one. */
static int add_hist_sample(struct srvmetric_level *l, const char *name, const char *series,
			   double value)
{
	char family[256];
	size_t nl = strlen(name);
	enum srvmetric_hist_kind kind;
	struct srvmetric_hist *h;
	double le;
	size_t i;

	if (nl <= 7 || nl - 7 >= sizeof(family) || strcmp(name + nl - 7, "_bucket"))
		return 0;
	memcpy(family, name, nl - 7);
	family[nl - 7] = '\0';
	if (srvmetric_hist_lookup(family, &kind) < 0)
		return 0;
	h = &l->hist[kind];
	if (!h->name)       /* the first name of a kind wins: a server that
			     * keeps two (vLLM's old and new ITL) counts once */
		for (i = 0; i < sizeof(hists) / sizeof(hists[0]); i++)
			if (!strcmp(hists[i].family, family))
				h->name = hists[i].family;
	if (strcmp(h->name, family))
		return 1;
	if (!series || series_le(series, &le) < 0 || !isfinite(value))
		return 1;
	if (!isinf(le) && fabs(le) > SRVMETRIC_MAX_VALUE)
		h->bad_bound = 1;       /* no latency: refused, not shown as inf ms */
	else
		add_bucket(h, le, value);
	return 1;
}

/* A sample of node_cpu_seconds_total: every mode counts in the host's
 * CPU time; idle and iowait (a CPU with nothing to run) and steal each in
 * their own as well. Other labels (node_exporter's cpu="3") are summed. */
static void add_cpu_sample(struct srvmetric_level *l, const char *series, double value)
{
	static const char *const idle[] = { "mode=\"idle\"", "mode=\"iowait\"" };
	size_t i;

	if (!srvmetric_in_range(SRVMETRIC_CPU_ALL, value) || !series)
		return;
	l->cur[SRVMETRIC_CPU_ALL] += value;
	l->cur_has[SRVMETRIC_CPU_ALL] = 1;
	for (i = 0; i < 2; i++)
		if (strstr(series, idle[i])) {
			l->cur[SRVMETRIC_CPU_IDLE] += value;
			l->cur_has[SRVMETRIC_CPU_IDLE] = 1;
		}
	if (strstr(series, "mode=\"steal\"")) {
		l->cur[SRVMETRIC_CPU_STEAL] += value;
		l->cur_has[SRVMETRIC_CPU_STEAL] = 1;
	}
}

void srvmetric_level_add(struct srvmetric_level *l, long scrape, enum srvmetric_at at,
			 const char *name, const char *series, double value)
{
	enum srvmetric_kind kind;
	const char *family;

	if (!l->in_scrape || scrape != l->cur_scrape) {
		end_scrape(l);
		l->in_scrape = 1;
		l->cur_scrape = scrape;
		l->cur_at = at;
	}
	if (!strcmp(name, "node_cpu_seconds_total")) {
		add_cpu_sample(l, series, value);
		return;
	}
	if (srvmetric_lookup(name, &kind, &family) < 0) {
		if (!add_hist_sample(l, name, series, value))
			l->unknown++;
		return;
	}
	if (!srvmetric_in_range(kind, value))
		return;         /* left out, as a NaN is */
	if (!l->family && family)
		l->family = family;
	l->cur[kind] += value;      /* summed over the label sets */
	l->cur_has[kind] = 1;
}

/* A histogram's quantiles from its increase over the window. */
static void finish_hist(struct srvmetric_hist *h)
{
	size_t q;

	for (q = 0; q < SRVMETRIC_NQ; q++) {
		if (h->too_many)
			h->rc[q] = SRVMETRIC_TOO_MANY_BUCKETS;
		else if (h->bad_bound)
			h->rc[q] = BUCKETQ_BAD_BOUNDS;
		else if (!h->pairs)
			h->rc[q] = BUCKETQ_EMPTY;
		else
			h->rc[q] = bucketq_quantile(h->le, h->delta, h->n, srvmetric_quantiles[q],
						    &h->q[q]);
	}
}

void srvmetric_level_finish(struct srvmetric_level *l)
{
	size_t k;

	end_scrape(l);
	for (k = 0; k < SRVMETRIC_N; k++) {
		if (is_counter((enum srvmetric_kind)k)) {
			if (l->seen[k] && !l->pairs[k])
				l->delta[k] = NAN;  /* one reading: no increase to tell */
			else if (l->pairs[k] && isnan(l->delta[k]))
				l->delta[k] = 0;
		} else if (l->gauge_seen[k]) {
			l->mean[k] = l->sum[k] / (double)l->gauge_seen[k];
		}
	}
	for (k = 0; k < SRVMETRIC_H_N; k++)
		finish_hist(&l->hist[k]);
	if (l->delta[SRVMETRIC_PREFIX_QUERIES] > 0)
		l->prefix_hit_rate = srvmetric_rate(l->delta[SRVMETRIC_PREFIX_HITS],
						    l->delta[SRVMETRIC_PREFIX_QUERIES]);
	else if (!isnan(l->mean[SRVMETRIC_HIT_RATE]))
		l->prefix_hit_rate = l->mean[SRVMETRIC_HIT_RATE];
	if (l->delta[SRVMETRIC_SPEC_DRAFT] > 0)
		l->spec_acceptance = srvmetric_rate(l->delta[SRVMETRIC_SPEC_ACCEPTED],
						    l->delta[SRVMETRIC_SPEC_DRAFT]);
	if (l->delta[SRVMETRIC_CPU_ALL] > 0) {
		double all = l->delta[SRVMETRIC_CPU_ALL];

		if (!isnan(l->delta[SRVMETRIC_CPU_IDLE]))
			l->cpu_busy = fmax(0, fmin(1, 1 - l->delta[SRVMETRIC_CPU_IDLE] / all));
		if (!isnan(l->delta[SRVMETRIC_CPU_STEAL]))
			l->cpu_steal = fmin(1, l->delta[SRVMETRIC_CPU_STEAL] / all);
		if (!isnan(l->delta[SRVMETRIC_PROCESS_CPU]))
			l->process_cpu = fmin(1, l->delta[SRVMETRIC_PROCESS_CPU] / all);
	}
}
