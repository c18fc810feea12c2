/*
 * test_srvmetric.c - a level's server metrics (lib/srvmetric.c): the real
 * llama.cpp capture parsed (lib/prom.c) and summarised, vLLM counters
 * over scrapes (with a restart), SGLang's gauges, unknown names counted.
 */
#include "tests/unit/harness.h"
#include "lib/prom.h"
#include "lib/srvmetric.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Adds every sample of text as scrape 'scrape'. */
static void add_text(struct srvmetric_level *l, long scrape, const char *text, size_t len)
{
	struct prom_scrape s;
	char err[64];
	size_t i;

	prom_scrape_init(&s);
	CHECK_EQ_INT(prom_parse(&s, text, len, err, sizeof(err)), 0);
	for (i = 0; i < s.n; i++)
		srvmetric_level_add(l, scrape, s.samples[i].name, s.samples[i].value);
	prom_scrape_release(&s);
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
	CHECK_EQ_INT(l.scrapes, 0);
	CHECK_EQ_INT(l.unknown, 2);
	CHECK(isnan(l.mean[SRVMETRIC_RUNNING]));
}

int main(void)
{
	RUN(llama_cpp_capture_summarised);
	RUN(vllm_counters_over_scrapes_and_a_restart);
	RUN(sglang_gauges_and_nothing_known);
	return harness_done();
}
