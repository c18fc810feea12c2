/*
 * srvmetric.h - what a server's own Prometheus metrics say about a level:
 * the names of vLLM (vllm:), SGLang (sglang:), llama.cpp (llamacpp:) and
 * TGI (tgi_) mapped onto one set of figures, and a level's scrapes folded
 * into them (analyze report).
 *
 * Gauges (requests running and waiting, KV-cache use) are summed over
 * their label sets within a scrape (one server, several models or
 * engines), then averaged and maximised over the level's interval
 * scrapes (not those at its start and end, which find the server idle).
 * Counters (prefix-cache queries and hits, preemptions, speculative
 * tokens drafted and accepted, prompt and generated tokens) count their
 * increase over the level's window, scrape to scrape: from its
 * level-start scrape to its level-end scrape (replay takes them before
 * its first request and after its last answer), or, for scrapes that
 * name no window (files before them), from the level's first scrape to
 * its last. A counter that went down (a restart) counts from 0 again.
 * Windows that overlap (the shards of a run, each with its own) are
 * counted as their union. Scrapes between levels are not folded at all.
 *
 * Histograms of the servers' request latencies (TTFT, queue time, E2E,
 * inter-token; vLLM's and SGLang's names, in seconds: llama.cpp has
 * none) count their buckets' increase over the same window, the whole
 * histogram restarting together (lib/bucketq.h), and give the level's
 * P50, P90 and P99 as bucket estimates, each with the bucket that holds
 * it. Rates come from the counters' increases: the
 * prefix-cache hit rate is hits / queries, the speculative acceptance
 * accepted / drafted. A server that reports a rate as a gauge (SGLang's
 * cache_hit_rate, spec_accept_length) has it averaged instead. Anything
 * a server does not report is NaN. What a server sends is hostile: a
 * sample out of its range (negative, a share of KV cache or a hit rate
 * past 1, a value past SRVMETRIC_MAX_VALUE) is left out as a NaN is, a
 * rate whose part exceeds its whole (hits over queries) is NaN, and a
 * histogram with a finite bucket bound past SRVMETRIC_MAX_VALUE seconds
 * gets no estimate (BUCKETQ_BAD_BOUNDS). Names
 * not in the table are not summarised; they stay in the database as they
 * were scraped.
 *
 * A host's own series (node_exporter's names, which replay writes for the
 * host it runs on: lib/hostload.h) fold the same way: node_cpu_seconds_total
 * summed over CPUs by mode, whose increase over the window gives the
 * share of the host's CPU time that was busy and that was stolen;
 * node_procs_running as a gauge; process_cpu_seconds_total (the scraped
 * process's own) as a share of the host's CPU time. They name no family.
 *
 *   struct srvmetric_level l;
 *   srvmetric_level_init(&l);
 *   for each sample of each ok scrape, in scrape order:
 *       srvmetric_level_add(&l, scrape_id, at, name, series, value);
 *   srvmetric_level_finish(&l);
 */
#ifndef TB_SRVMETRIC_H
#define TB_SRVMETRIC_H

#include <stddef.h>

#include "lib/bucketq.h"

/* The largest sample taken of a count or counter (requests, tokens,
 * preemptions), and the largest finite bucket bound (seconds): no server
 * counts 1e15 of anything nor waits 1e15 s, and sums of such samples, or
 * such bounds in ms, stay far inside a double's range. */
#define SRVMETRIC_MAX_VALUE 1e15

/* The figures a known name feeds. */
enum srvmetric_kind {
	SRVMETRIC_RUNNING,          /* gauge: requests being generated */
	SRVMETRIC_WAITING,          /* gauge: requests queued */
	SRVMETRIC_KV_USAGE,         /* gauge: KV-cache use, 0..1 */
	SRVMETRIC_HIT_RATE,         /* gauge: prefix-cache hit rate, 0..1 */
	SRVMETRIC_SPEC_LENGTH,      /* gauge: accepted speculative length */
	SRVMETRIC_PROCS_RUNNING,    /* gauge: a host's runnable tasks (node_exporter) */
	SRVMETRIC_PREFIX_QUERIES,   /* counter: tokens looked up */
	SRVMETRIC_PREFIX_HITS,      /* counter: of which cached */
	SRVMETRIC_PREEMPTIONS,      /* counter */
	SRVMETRIC_SPEC_DRAFT,       /* counter: speculative tokens drafted */
	SRVMETRIC_SPEC_ACCEPTED,    /* counter: of which accepted */
	SRVMETRIC_PROMPT_TOKENS,    /* counter */
	SRVMETRIC_GEN_TOKENS,       /* counter */
	SRVMETRIC_CPU_ALL,          /* counter: a host's CPU seconds, every mode */
	SRVMETRIC_CPU_IDLE,         /* counter: ... idle or waiting for I/O */
	SRVMETRIC_CPU_STEAL,        /* counter: ... taken by the hypervisor */
	SRVMETRIC_PROCESS_CPU,      /* counter: the scraped process's CPU seconds */
	SRVMETRIC_N
};

/* Which figure a sample name feeds and which server names it that way:
 * 0 and *kind, *family set; -1 for a name not in the table. */
int srvmetric_lookup(const char *name, enum srvmetric_kind *kind, const char **family);

/* The latency histograms a server keeps of its requests, in seconds. */
enum srvmetric_hist_kind {
	SRVMETRIC_H_TTFT,           /* arrival to first token */
	SRVMETRIC_H_QUEUE,          /* waiting to be scheduled */
	SRVMETRIC_H_E2E,            /* arrival to last token */
	SRVMETRIC_H_ITL,            /* between tokens */
	SRVMETRIC_H_N
};

/* Where a scrape stands against its level (a results record's "at"). */
enum srvmetric_at {
	SRVMETRIC_AT_INTERVAL,      /* inside the level; or a file that does not say */
	SRVMETRIC_AT_START,         /* before its first request */
	SRVMETRIC_AT_END,           /* after its last answer */
	SRVMETRIC_AT_BETWEEN        /* outside any level: not folded */
};

/* SRVMETRIC_AT_ of a record's or a row's "at" (NULL: interval). */
enum srvmetric_at srvmetric_at_parse(const char *at);

#define SRVMETRIC_MAX_BUCKETS 64    /* bounds of one histogram; more: refused */
#define SRVMETRIC_NQ 3              /* the quantiles: P50, P90, P99 */

/* The quantiles estimated, in srvmetric_hist's q[] order. */
extern const double srvmetric_quantiles[SRVMETRIC_NQ];

/* One latency histogram of a level. */
struct srvmetric_hist {
	/* the result, after srvmetric_level_finish */
	const char *name;           /* the family folded; NULL: the server has none */
	int rc[SRVMETRIC_NQ];       /* 0, or why no estimate (a BUCKETQ_ code;
				     * SRVMETRIC_TOO_MANY_BUCKETS) */
	struct bucketq_estimate q[SRVMETRIC_NQ];   /* seconds, with its bucket */
	/* the fold: bounds rising, the current scrape's counts (label sets
	 * summed), the last scrape's and the increase over the window */
	size_t n;
	double le[SRVMETRIC_MAX_BUCKETS];
	double cur[SRVMETRIC_MAX_BUCKETS], last[SRVMETRIC_MAX_BUCKETS];
	double delta[SRVMETRIC_MAX_BUCKETS];
	int cur_has, has_last, too_many;
	int bad_bound;              /* a finite bound past SRVMETRIC_MAX_VALUE s */
	size_t pairs;               /* increases added */
};

#define SRVMETRIC_TOO_MANY_BUCKETS (-100)

/* One level's scrapes being folded. */
struct srvmetric_level {
	/* the result, after srvmetric_level_finish */
	size_t scrapes;             /* scrapes that had any known name */
	const char *family;         /* "vllm", "sglang", "llamacpp", "tgi"; NULL: none known */
	double mean[SRVMETRIC_N];   /* gauges: mean over scrapes */
	double max[SRVMETRIC_N];    /* gauges: largest */
	double end[SRVMETRIC_N];    /* gauges at the last level-end scrape: what
				     * the server still held once the level was
				     * over (running requests not freed); NaN none */
	double delta[SRVMETRIC_N];  /* counters: increase over the level */
	double prefix_hit_rate;     /* from counters, else the gauge's mean */
	double spec_acceptance;     /* accepted / drafted */
	/* a host's (lib/hostload.h, or a node_exporter's), NaN when not
	 * scraped: shares of its CPU time over the level's window */
	double cpu_busy;            /* 1 - idle / all */
	double cpu_steal;           /* steal / all */
	double process_cpu;         /* the process's CPU seconds / all the host's */
	size_t unknown;             /* samples of names not in the table */
	int windowed;               /* the counters ran over level-start..end scrapes */
	struct srvmetric_hist hist[SRVMETRIC_H_N];
	/* the fold */
	long cur_scrape;
	int in_scrape;
	enum srvmetric_at cur_at;
	int open;                   /* windows open (shards overlap) */
	double cur[SRVMETRIC_N];
	int cur_has[SRVMETRIC_N];
	double sum[SRVMETRIC_N], last[SRVMETRIC_N];
	size_t seen[SRVMETRIC_N], gauge_seen[SRVMETRIC_N], pairs[SRVMETRIC_N];
};

void srvmetric_level_init(struct srvmetric_level *l);

/* One sample of scrape 'scrape' (scrapes in order, each scrape's samples
 * together), the scrape standing at 'at' against the level: name the
 * sample's (vllm:..._bucket), series it with its labels, as
 * prom_series() spells it (a bucket's le is read from it; NULL: no
 * labels). A NaN or infinite value is left out (a bucket's +Inf bound is
 * its le, not its value). */
void srvmetric_level_add(struct srvmetric_level *l, long scrape, enum srvmetric_at at,
			 const char *name, const char *series, double value);

/* Folds the last scrape in and computes the figures. */
void srvmetric_level_finish(struct srvmetric_level *l);

#endif
