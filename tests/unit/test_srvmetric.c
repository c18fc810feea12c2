/*
 * test_srvmetric.c - a level's server metrics (lib/srvmetric.c): the real
 * llama.cpp capture parsed (lib/prom.c) and summarised, vLLM counters
 * over scrapes (with a restart), SGLang's gauges, unknown names counted;
 * a level's window from its start to its end scrape (shards, repeats),
 * latency histograms' estimates and a hostile server's refused.
 */
#include "tests/unit/harness.h"
#include "lib/prom.h"
#include "lib/srvmetric.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Adds every sample of text as scrape 'scrape', standing at 'at'. */
static void add_text_at(struct srvmetric_level *l, long scrape, enum srvmetric_at at,
			const char *text, size_t len)
{
	struct prom_scrape s;
	char err[64], series[1024];
	size_t i;

	prom_scrape_init(&s);
	CHECK_EQ_INT(prom_parse(&s, text, len, err, sizeof(err)), 0);
	for (i = 0; i < s.n; i++) {
		prom_series(&s.samples[i], series, sizeof(series));
		srvmetric_level_add(l, scrape, at, s.samples[i].name, series, s.samples[i].value);
	}
	prom_scrape_release(&s);
}

/* Adds every sample of text as scrape 'scrape' (an interval's). */
static void add_text(struct srvmetric_level *l, long scrape, const char *text, size_t len)
{
	add_text_at(l, scrape, SRVMETRIC_AT_INTERVAL, text, len);
}

TEST(llama_cpp_capture_summarised)
{
	static char buf[1 << 16], later[1 << 16];
	FILE *f = fopen("tests/fixtures/llama-server/metrics.prom", "rb");
	struct srvmetric_level l;
	size_t n;
	int len;

	CHECK(f != NULL);
	if (!f)
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* a second scrape: the capture with its counters moved on and 3 busy */
	len = snprintf(later, sizeof(later), "%s", buf);
	CHECK(len > 0);
	{
		char *p = strstr(later, "llamacpp:prompt_tokens_total 7125");
		char *q = strstr(later, "llamacpp:requests_processing 0");

		CHECK(p && q);
		if (!p || !q)
			return;
		memcpy(p, "llamacpp:prompt_tokens_total 9125", 33);
		memcpy(q, "llamacpp:requests_processing 3", 30);
	}
	srvmetric_level_init(&l);
	add_text(&l, 0, buf, n);
	add_text(&l, 1, later, (size_t)len);
	srvmetric_level_finish(&l);
	CHECK_EQ_INT(l.scrapes, 2);
	CHECK(l.family && !strcmp(l.family, "llamacpp"));
	CHECK_NEAR(l.mean[SRVMETRIC_RUNNING], 1.5, 1e-12);
	CHECK_NEAR(l.max[SRVMETRIC_RUNNING], 3, 1e-12);
	CHECK_NEAR(l.mean[SRVMETRIC_WAITING], 0, 1e-12);
	CHECK_NEAR(l.delta[SRVMETRIC_PROMPT_TOKENS], 2000, 1e-9);
	CHECK_NEAR(l.delta[SRVMETRIC_GEN_TOKENS], 0, 1e-9);
	CHECK(isnan(l.mean[SRVMETRIC_KV_USAGE]));       /* this build has no KV gauge */
	CHECK(isnan(l.prefix_hit_rate));
	CHECK(isnan(l.delta[SRVMETRIC_PREEMPTIONS]));
	/* 11 samples a scrape, 4 of them known */
	CHECK_EQ_INT(l.unknown, 2 * 7);
}

TEST(vllm_counters_over_scrapes_and_a_restart)
{
	static const char *const scrapes[] = {
		"vllm:num_requests_running{model_name=\"a\"} 2\n"
		"vllm:num_requests_running{model_name=\"b\"} 1\n"
		"vllm:num_requests_waiting{model_name=\"a\"} 4\n"
		"vllm:kv_cache_usage_perc{model_name=\"a\"} 0.5\n"
		"vllm:prefix_cache_queries_total{model_name=\"a\"} 100\n"
		"vllm:prefix_cache_hits_total{model_name=\"a\"} 10\n"
		"vllm:num_preemptions_total{model_name=\"a\"} 1\n"
		"vllm:spec_decode_num_draft_tokens_total{model_name=\"a\"} 40\n"
		"vllm:spec_decode_num_accepted_tokens_total{model_name=\"a\"} 20\n",
		"vllm:num_requests_running{model_name=\"a\"} 5\n"
		"vllm:num_requests_waiting{model_name=\"a\"} 0\n"
		"vllm:kv_cache_usage_perc{model_name=\"a\"} 0.9\n"
		"vllm:prefix_cache_queries_total{model_name=\"a\"} 300\n"
		"vllm:prefix_cache_hits_total{model_name=\"a\"} 110\n"
		"vllm:num_preemptions_total{model_name=\"a\"} 3\n"
		"vllm:spec_decode_num_draft_tokens_total{model_name=\"a\"} 80\n"
		"vllm:spec_decode_num_accepted_tokens_total{model_name=\"a\"} 50\n",
		/* the server restarted: counters from 0 again */
		"vllm:num_requests_running{model_name=\"a\"} 1\n"
		"vllm:num_requests_waiting{model_name=\"a\"} NaN\n"
		"vllm:kv_cache_usage_perc{model_name=\"a\"} 0.1\n"
		"vllm:prefix_cache_queries_total{model_name=\"a\"} 50\n"
		"vllm:prefix_cache_hits_total{model_name=\"a\"} 40\n"
		"vllm:num_preemptions_total{model_name=\"a\"} 0\n"
		"some_other_metric 7\n",
	};
	struct srvmetric_level l;
	size_t i;

	srvmetric_level_init(&l);
	for (i = 0; i < 3; i++)
		add_text(&l, (long)i + 10, scrapes[i], strlen(scrapes[i]));
	srvmetric_level_finish(&l);
	CHECK_EQ_INT(l.scrapes, 3);
	CHECK(l.family && !strcmp(l.family, "vllm"));
	CHECK_NEAR(l.mean[SRVMETRIC_RUNNING], (3 + 5 + 1) / 3.0, 1e-12);  /* a + b summed */
	CHECK_NEAR(l.max[SRVMETRIC_RUNNING], 5, 1e-12);
	CHECK_NEAR(l.mean[SRVMETRIC_WAITING], 2, 1e-12);   /* the NaN left out */
	CHECK_NEAR(l.max[SRVMETRIC_KV_USAGE], 0.9, 1e-12);
	CHECK_NEAR(l.mean[SRVMETRIC_KV_USAGE], 0.5, 1e-12);
	/* queries +200 then +50 (restart), hits +100 then +40 */
	CHECK_NEAR(l.delta[SRVMETRIC_PREFIX_QUERIES], 250, 1e-9);
	CHECK_NEAR(l.delta[SRVMETRIC_PREFIX_HITS], 140, 1e-9);
	CHECK_NEAR(l.prefix_hit_rate, 140.0 / 250.0, 1e-12);
	CHECK_NEAR(l.delta[SRVMETRIC_PREEMPTIONS], 2, 1e-9);
	CHECK_NEAR(l.spec_acceptance, 30.0 / 40.0, 1e-12);
	CHECK_EQ_INT(l.unknown, 1);
}

TEST(sglang_gauges_and_nothing_known)
{
	static const char sg[] =
		"sglang:num_running_reqs{model_name=\"m\"} 8\n"
		"sglang:num_queue_reqs{model_name=\"m\"} 2\n"
		"sglang:token_usage{model_name=\"m\"} 0.28\n"
		"sglang:cache_hit_rate{model_name=\"m\"} 0.25\n"
		"sglang:spec_accept_length{model_name=\"m\"} 2.5\n";
	static const char none[] = "process_cpu_seconds_total 3\nup 1\n";
	struct srvmetric_level l;

	srvmetric_level_init(&l);
	add_text(&l, 0, sg, strlen(sg));
	srvmetric_level_finish(&l);
	CHECK(l.family && !strcmp(l.family, "sglang"));
	CHECK_NEAR(l.mean[SRVMETRIC_RUNNING], 8, 1e-12);
	CHECK_NEAR(l.mean[SRVMETRIC_WAITING], 2, 1e-12);
	CHECK_NEAR(l.mean[SRVMETRIC_KV_USAGE], 0.28, 1e-12);
	CHECK_NEAR(l.prefix_hit_rate, 0.25, 1e-12);
	CHECK_NEAR(l.mean[SRVMETRIC_SPEC_LENGTH], 2.5, 1e-12);
	CHECK(isnan(l.delta[SRVMETRIC_PROMPT_TOKENS]));

	srvmetric_level_init(&l);
	add_text(&l, 0, none, strlen(none));
	srvmetric_level_finish(&l);
	CHECK(l.family == NULL);
	CHECK_EQ_INT(l.scrapes, 1);     /* its process CPU */
	CHECK_EQ_INT(l.unknown, 1);     /* up; process_cpu_seconds_total is known */
	CHECK(isnan(l.mean[SRVMETRIC_RUNNING]));
}

/* A vLLM scrape: generated tokens, running, and the TTFT histogram's
 * buckets at 20, 40, 60 ms and +Inf, of two models. */
static int vllm_scrape(char *buf, size_t len, int gen, int running, int b20, int b40, int b60,
		       int inf)
{
	return snprintf(buf, len,
			"vllm:generation_tokens_total{model_name=\"m\"} %d\n"
			"vllm:num_requests_running{model_name=\"m\"} %d\n"
			"vllm:time_to_first_token_seconds_bucket{le=\"0.02\",model_name=\"m\"} %d\n"
			"vllm:time_to_first_token_seconds_bucket{le=\"0.04\",model_name=\"m\"} %d\n"
			"vllm:time_to_first_token_seconds_bucket{le=\"0.06\",model_name=\"m\"} %d\n"
			"vllm:time_to_first_token_seconds_bucket{le=\"+Inf\",model_name=\"m\"} %d\n"
			"vllm:time_to_first_token_seconds_bucket{model_name=\"n\",le=\"0.04\"} 1\n"
			"vllm:time_to_first_token_seconds_bucket{model_name=\"n\",le=\"+Inf\"} 1\n"
			"vllm:time_to_first_token_seconds_count{model_name=\"m\"} %d\n",
			gen, running, b20, b40, b60, inf, inf);
}

/* Issue 35: the counters over a level run from its level-start scrape to
 * its level-end scrape, whatever the interval scrapes between caught; the
 * edges are not averaged into the gauges; scrapes between levels are
 * not folded at all; the histogram's buckets give the level's TTFT. */
TEST(window_from_level_start_to_level_end)
{
	struct srvmetric_level l;
	char buf[2048];
	int n;

	srvmetric_level_init(&l);
	n = vllm_scrape(buf, sizeof(buf), 900, 7, 50, 50, 50, 50);  /* the warm-ups' */
	add_text_at(&l, 0, SRVMETRIC_AT_BETWEEN, buf, (size_t)n);
	n = vllm_scrape(buf, sizeof(buf), 1000, 0, 100, 100, 100, 100);
	add_text_at(&l, 1, SRVMETRIC_AT_START, buf, (size_t)n);
	n = vllm_scrape(buf, sizeof(buf), 1128, 4, 101, 102, 104, 104);
	add_text_at(&l, 2, SRVMETRIC_AT_INTERVAL, buf, (size_t)n);
	n = vllm_scrape(buf, sizeof(buf), 1512, 0, 102, 106, 108, 110);
	add_text_at(&l, 3, SRVMETRIC_AT_END, buf, (size_t)n);
	n = vllm_scrape(buf, sizeof(buf), 9999, 9, 900, 900, 900, 900);
	add_text_at(&l, 4, SRVMETRIC_AT_BETWEEN, buf, (size_t)n);
	srvmetric_level_finish(&l);
	CHECK(l.windowed);
	CHECK_NEAR(l.delta[SRVMETRIC_GEN_TOKENS], 512, 0);
	CHECK_NEAR(l.mean[SRVMETRIC_RUNNING], 4, 0);       /* the interval scrape's only */
	CHECK_EQ_INT(l.scrapes, 3);
	/* 10 first tokens: 2 <= 20 ms, 6 <= 40, 8 <= 60, 2 above; model n's
	 * unchanged bucket adds nothing */
	CHECK(l.hist[SRVMETRIC_H_TTFT].name &&
	      !strcmp(l.hist[SRVMETRIC_H_TTFT].name, "vllm:time_to_first_token_seconds"));
	CHECK_EQ_INT(l.hist[SRVMETRIC_H_TTFT].rc[0], 0);
	CHECK_NEAR(l.hist[SRVMETRIC_H_TTFT].q[0].value, 0.02 + 0.02 * 3 / 4, 1e-12);
	CHECK_NEAR(l.hist[SRVMETRIC_H_TTFT].q[0].lo, 0.02, 1e-15);
	CHECK_NEAR(l.hist[SRVMETRIC_H_TTFT].q[0].hi, 0.04, 1e-15);
	CHECK_NEAR(l.hist[SRVMETRIC_H_TTFT].q[0].count, 10, 0);
	CHECK_EQ_INT(l.hist[SRVMETRIC_H_TTFT].rc[1], 0);   /* P90: the +Inf bucket */
	CHECK(isinf(l.hist[SRVMETRIC_H_TTFT].q[1].hi));
	CHECK_NEAR(l.hist[SRVMETRIC_H_TTFT].q[1].value, 0.06, 1e-15);
	CHECK(l.hist[SRVMETRIC_H_E2E].name == NULL);
	CHECK_EQ_INT(l.hist[SRVMETRIC_H_E2E].rc[0], BUCKETQ_EMPTY);
}

/* Two shards' windows overlap: their union is counted once; repeats of
 * a level are two windows, the gap between them not counted. */
TEST(windows_of_shards_and_repeats)
{
	static const struct { enum srvmetric_at at; int gen; } seq[] = {
		{ SRVMETRIC_AT_START, 100 }, { SRVMETRIC_AT_START, 110 },
		{ SRVMETRIC_AT_INTERVAL, 150 }, { SRVMETRIC_AT_END, 190 }, { SRVMETRIC_AT_END, 200 },
		/* another side's level ran here: 200 -> 500 is not this level's */
		{ SRVMETRIC_AT_START, 500 }, { SRVMETRIC_AT_END, 600 },
	};
	struct srvmetric_level l;
	char buf[256];
	size_t i;
	int n;

	srvmetric_level_init(&l);
	for (i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		n = snprintf(buf, sizeof(buf), "vllm:generation_tokens_total %d\n", seq[i].gen);
		add_text_at(&l, (long)i, seq[i].at, buf, (size_t)n);
	}
	srvmetric_level_finish(&l);
	CHECK_NEAR(l.delta[SRVMETRIC_GEN_TOKENS], 100 + 100, 0);
}

/* A server's buckets that fall from one bound to the next are refused,
 * never estimated from; so are more bounds than the cap; a server with
 * vLLM's old and new inter-token names counts one of them. */
TEST(hostile_histograms_refused)
{
	static const char *const falling[] = {
		"vllm:e2e_request_latency_seconds_bucket{le=\"0.5\"} 0\n"
		"vllm:e2e_request_latency_seconds_bucket{le=\"1\"} 0\n"
		"vllm:e2e_request_latency_seconds_bucket{le=\"+Inf\"} 0\n",
		"vllm:e2e_request_latency_seconds_bucket{le=\"0.5\"} 9\n"
		"vllm:e2e_request_latency_seconds_bucket{le=\"1\"} 3\n"
		"vllm:e2e_request_latency_seconds_bucket{le=\"+Inf\"} 10\n"
		"vllm:inter_token_latency_seconds_bucket{le=\"0.01\"} 5\n"
		"vllm:inter_token_latency_seconds_bucket{le=\"+Inf\"} 5\n"
		"vllm:time_per_output_token_seconds_bucket{le=\"0.01\"} 0\n"
		"vllm:time_per_output_token_seconds_bucket{le=\"+Inf\"} 5\n",
		"vllm:e2e_request_latency_seconds_bucket{le=\"0.5\"} 9\n"
		"vllm:e2e_request_latency_seconds_bucket{le=\"1\"} 3\n"
		"vllm:e2e_request_latency_seconds_bucket{le=\"+Inf\"} 10\n"
		"vllm:inter_token_latency_seconds_bucket{le=\"0.01\"} 9\n"
		"vllm:inter_token_latency_seconds_bucket{le=\"+Inf\"} 9\n"
		"vllm:time_per_output_token_seconds_bucket{le=\"0.01\"} 0\n"
		"vllm:time_per_output_token_seconds_bucket{le=\"+Inf\"} 9\n",
	};
	struct srvmetric_level l;
	char many[8192];
	size_t i, at = 0;
	int k;

	srvmetric_level_init(&l);
	for (i = 0; i < 3; i++)
		add_text_at(&l, (long)i, SRVMETRIC_AT_INTERVAL, falling[i], strlen(falling[i]));
	srvmetric_level_finish(&l);
	CHECK_EQ_INT(l.hist[SRVMETRIC_H_E2E].rc[0], BUCKETQ_NOT_MONOTONIC);
	CHECK(l.hist[SRVMETRIC_H_ITL].name &&
	      !strcmp(l.hist[SRVMETRIC_H_ITL].name, "vllm:inter_token_latency_seconds"));
	CHECK_EQ_INT(l.hist[SRVMETRIC_H_ITL].rc[0], 0);
	CHECK_NEAR(l.hist[SRVMETRIC_H_ITL].q[0].count, 4, 0);   /* 5 -> 9 */
	CHECK_NEAR(l.hist[SRVMETRIC_H_ITL].q[0].hi, 0.01, 1e-15);

	srvmetric_level_init(&l);
	for (k = 0; k < SRVMETRIC_MAX_BUCKETS + 1; k++)
		at += (size_t)snprintf(many + at, sizeof(many) - at,
				       "sglang:time_to_first_token_seconds_bucket{le=\"%d\"} 1\n", k + 1);
	at += (size_t)snprintf(many + at, sizeof(many) - at,
			       "sglang:time_to_first_token_seconds_bucket{le=\"+Inf\"} 1\n");
	add_text_at(&l, 0, SRVMETRIC_AT_START, many, at);
	add_text_at(&l, 1, SRVMETRIC_AT_END, many, at);
	srvmetric_level_finish(&l);
	CHECK_EQ_INT(l.hist[SRVMETRIC_H_TTFT].rc[0], SRVMETRIC_TOO_MANY_BUCKETS);

	/* a bound no latency has, past SRVMETRIC_MAX_VALUE seconds: its
	 * estimates were 5e307 s, "inf" ms in the report. Refused. */
	for (k = 0; k < 2; k++) {
		static const char *const far[] = {
			"vllm:e2e_request_latency_seconds_bucket{le=\"0.1\"} %d\n"
			"vllm:e2e_request_latency_seconds_bucket{le=\"1e308\"} %d\n"
			"vllm:e2e_request_latency_seconds_bucket{le=\"+Inf\"} %d\n",
			"vllm:e2e_request_latency_seconds_bucket{le=\"-1e300\"} %d\n"
			"vllm:e2e_request_latency_seconds_bucket{le=\"1\"} %d\n"
			"vllm:e2e_request_latency_seconds_bucket{le=\"+Inf\"} %d\n",
		};

		srvmetric_level_init(&l);
		at = (size_t)snprintf(many, sizeof(many), far[k], 0, 0, 0);
		add_text_at(&l, 0, SRVMETRIC_AT_START, many, at);
		at = (size_t)snprintf(many, sizeof(many), far[k], 1, 2, 3);
		add_text_at(&l, 1, SRVMETRIC_AT_END, many, at);
		srvmetric_level_finish(&l);
		CHECK_EQ_INT(l.hist[SRVMETRIC_H_E2E].rc[0], BUCKETQ_BAD_BOUNDS);
	}
}

/*
 * Figures no server can mean: a negative count of requests, a KV-cache
 * use or hit rate outside 0..1, a count near 1.8e308 (two summed are
 * +inf), more prefix hits than queries, more speculative tokens accepted
 * than drafted. Each sample out of its range is left out, as a NaN is; a
 * rate whose parts contradict each other is NaN. Before: the report
 * showed -6 requests waiting, -1000% KV use, a 1400% hit rate, "-"
 * running requests (+inf), a 1000% prefix hit rate.
 */
TEST(out_of_range_samples_left_out)
{
	static const char *const scrapes[] = {
		"vllm:num_requests_running{i=\"0\"} 1.7e308\n"
		"vllm:num_requests_running{i=\"1\"} 1.7e308\n"
		"vllm:num_requests_waiting{i=\"0\"} -3\n"
		"vllm:num_requests_waiting{i=\"1\"} 2\n"
		"vllm:kv_cache_usage_perc{i=\"0\"} -5\n"
		"vllm:gpu_prefix_cache_hit_rate{i=\"0\"} 7\n"
		"vllm:prefix_cache_queries_total 100\n"
		"vllm:prefix_cache_hits_total 10\n"
		"vllm:spec_decode_num_draft_tokens_total 40\n"
		"vllm:spec_decode_num_accepted_tokens_total 20\n"
		"vllm:generation_tokens_total -1\n",
		"vllm:num_requests_running{i=\"0\"} 4\n"
		"vllm:num_requests_waiting{i=\"0\"} 1\n"
		"vllm:kv_cache_usage_perc{i=\"0\"} 0.25\n"
		"vllm:kv_cache_usage_perc{i=\"1\"} 1.5\n"
		"vllm:prefix_cache_queries_total 200\n"
		"vllm:prefix_cache_hits_total 1010\n"
		"vllm:spec_decode_num_draft_tokens_total 50\n"
		"vllm:spec_decode_num_accepted_tokens_total 120\n"
		"vllm:generation_tokens_total 1e300\n",
	};
	struct srvmetric_level l;
	size_t i;

	srvmetric_level_init(&l);
	for (i = 0; i < 2; i++)
		add_text(&l, (long)i, scrapes[i], strlen(scrapes[i]));
	srvmetric_level_finish(&l);
	CHECK_NEAR(l.mean[SRVMETRIC_RUNNING], 4, 1e-12);    /* the second scrape's alone */
	CHECK_NEAR(l.max[SRVMETRIC_RUNNING], 4, 1e-12);
	CHECK_NEAR(l.mean[SRVMETRIC_WAITING], 1.5, 1e-12);  /* 2, then 1: the -3 left out */
	CHECK_NEAR(l.mean[SRVMETRIC_KV_USAGE], 0.25, 1e-12);
	CHECK_NEAR(l.max[SRVMETRIC_KV_USAGE], 0.25, 1e-12);
	CHECK(isnan(l.mean[SRVMETRIC_HIT_RATE]));
	CHECK(isnan(l.prefix_hit_rate));        /* +1000 hits of +100 queries */
	CHECK(isnan(l.spec_acceptance));        /* +100 accepted of +10 drafted */
	CHECK(isnan(l.delta[SRVMETRIC_GEN_TOKENS]));   /* -1, then 1e300: no reading */
}

int main(void)
{
	RUN(llama_cpp_capture_summarised);
	RUN(vllm_counters_over_scrapes_and_a_restart);
	RUN(sglang_gauges_and_nothing_known);
	RUN(window_from_level_start_to_level_end);
	RUN(windows_of_shards_and_repeats);
	RUN(hostile_histograms_refused);
	RUN(out_of_range_samples_left_out);
	return harness_done();
}
