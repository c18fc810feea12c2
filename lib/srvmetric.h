/*
 * srvmetric.h - what a server's own Prometheus metrics say about a level:
 * the names of vLLM (vllm:), SGLang (sglang:), llama.cpp (llamacpp:) and
 * TGI (tgi_) mapped onto one set of figures, and a level's scrapes folded
 * into them (analyze report).
 *
 * Gauges (requests running and waiting, KV-cache use) are summed over
 * their label sets within a scrape (one server, several models or
 * engines), then averaged and maximised over the level's scrapes.
 * Counters (prefix-cache queries and hits, preemptions, speculative
 * tokens drafted and accepted, prompt and generated tokens) count their
 * increase over the level, scrape to scrape: a counter that went down (a
 * restart) counts from 0 again. Rates come from those increases: the
 * prefix-cache hit rate is hits / queries, the speculative acceptance
 * accepted / drafted. A server that reports a rate as a gauge (SGLang's
 * cache_hit_rate, spec_accept_length) has it averaged instead. Anything
 * a server does not report is NaN. Names not in the table are not
 * summarised; they stay in the database as they were scraped.
 *
 *   struct srvmetric_level l;
 *   srvmetric_level_init(&l);
 *   for each sample of each ok scrape, in scrape order:
 *       srvmetric_level_add(&l, scrape_id, name, value);
 *   srvmetric_level_finish(&l);
 */
#ifndef TB_SRVMETRIC_H
#define TB_SRVMETRIC_H

#include <stddef.h>

/* The figures a known name feeds. */
enum srvmetric_kind {
	SRVMETRIC_RUNNING,          /* gauge: requests being generated */
	SRVMETRIC_WAITING,          /* gauge: requests queued */
	SRVMETRIC_KV_USAGE,         /* gauge: KV-cache use, 0..1 */
	SRVMETRIC_HIT_RATE,         /* gauge: prefix-cache hit rate, 0..1 */
	SRVMETRIC_SPEC_LENGTH,      /* gauge: accepted speculative length */
	SRVMETRIC_PREFIX_QUERIES,   /* counter: tokens looked up */
	SRVMETRIC_PREFIX_HITS,      /* counter: of which cached */
	SRVMETRIC_PREEMPTIONS,      /* counter */
	SRVMETRIC_SPEC_DRAFT,       /* counter: speculative tokens drafted */
	SRVMETRIC_SPEC_ACCEPTED,    /* counter: of which accepted */
	SRVMETRIC_PROMPT_TOKENS,    /* counter */
	SRVMETRIC_GEN_TOKENS,       /* counter */
	SRVMETRIC_N
};

/* Which figure a sample name feeds and which server names it that way:
 * 0 and *kind, *family set; -1 for a name not in the table. */
int srvmetric_lookup(const char *name, enum srvmetric_kind *kind, const char **family);

/* One level's scrapes being folded. */
struct srvmetric_level {
	/* the result, after srvmetric_level_finish */
	size_t scrapes;             /* scrapes that had any known name */
	const char *family;         /* "vllm", "sglang", "llamacpp", "tgi"; NULL: none known */
	double mean[SRVMETRIC_N];   /* gauges: mean over scrapes */
	double max[SRVMETRIC_N];    /* gauges: largest */
	double delta[SRVMETRIC_N];  /* counters: increase over the level */
	double prefix_hit_rate;     /* from counters, else the gauge's mean */
	double spec_acceptance;     /* accepted / drafted */
	size_t unknown;             /* samples of names not in the table */
	/* the fold */
	long cur_scrape;
	int in_scrape;
	double cur[SRVMETRIC_N];
	int cur_has[SRVMETRIC_N];
	double sum[SRVMETRIC_N], last[SRVMETRIC_N];
	size_t seen[SRVMETRIC_N];
};

void srvmetric_level_init(struct srvmetric_level *l);

/* One sample of scrape 'scrape' (scrapes in order, each scrape's samples
 * together). A NaN or infinite value is left out. */
void srvmetric_level_add(struct srvmetric_level *l, long scrape, const char *name, double value);

/* Folds the last scrape in and computes the figures. */
void srvmetric_level_finish(struct srvmetric_level *l);

#endif
