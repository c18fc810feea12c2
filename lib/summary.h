/*
 * summary.h - the per-level sweep table: one row per concurrency level.
 *
 * replay prints a row as each level ends; analyze report prints the same
 * rows from the database. Both compute them here from struct result arrays
 * with the definitions of lib/metric.h, and print them through one
 * column list (summary_table.c) with lib/table.c, so the numbers, the
 * columns and their order cannot drift apart.
 */
#ifndef TB_SUMMARY_H
#define TB_SUMMARY_H

#include <stdint.h>
#include <stdio.h>
#include "attribution.h"
#include "srvmetric.h"
#include "load.h"
#include "metric.h"
#include "result.h"
#include "stats.h"
#include "table.h"

/* Error classes a report counts apart, in the order of lib/result.h. */
#define SUMMARY_N_ERROR_CLASSES 9
extern const char *const summary_error_classes[SUMMARY_N_ERROR_CLASSES]; /* last: "other" */

#define SUMMARY_MAX_STATUSES 8

/*
 * The failed requests of a level counted by error class, and the HTTP
 * statuses of those of class "http" (a timeout after "200 OK" is not a
 * 200): the most SUMMARY_MAX_STATUSES distinct ones, the rest in
 * status_others. A 429 storm and a wrong model's 404
 * are both class "http"; only the status tells them apart.
 */
struct summary_errors {
	size_t by_class[SUMMARY_N_ERROR_CLASSES];
	int statuses[SUMMARY_MAX_STATUSES];
	size_t status_n[SUMMARY_MAX_STATUSES], n_statuses, status_others;
};

/* Counts the failed request r in e (its class, and its status if any). */
void summary_errors_add(struct summary_errors *e, const struct result *r);

/* "2 http, 1 timeout (HTTP 429 x2)" into buf (len bytes, cut to fit);
 * "" when e counts nothing. */
void summary_errors_format(const struct summary_errors *e, char *buf, size_t len);

/* "HTTP 429 x2, HTTP 404 x1" into buf: the statuses alone, "" none. */
void summary_errors_statuses(const struct summary_errors *e, char *buf, size_t len);

/*
 * A level's server metrics (lib/srvmetric.h) as the CSV and JSON rows of
 * analyze report carry them: each figure from the first --metrics-url (in
 * the order given) that has it at the level, the host's from replay's own
 * records. Shares are fractions (0.25 = 25%); times ms. NaN: none.
 */
struct summary_server {
	char source[160];         /* the first server source with a figure, "" none */
	double running_avg, running_max, waiting_avg, waiting_max;
	double kv_usage_avg, kv_usage_max, prefix_hit_rate, spec_acceptance;
	double preemptions, prompt_tokens, generation_tokens;   /* over the window */
	double cpu_busy, cpu_steal;       /* a server's node_exporter */
	/* the server's TTFT, queue, E2E and inter-token P50, P90, P99 from its
	 * histograms' buckets, with the bucket holding each (hi NaN: above
	 * the last finite bound) */
	double est[SRVMETRIC_H_N][SRVMETRIC_NQ];
	double est_lo[SRVMETRIC_H_N][SRVMETRIC_NQ], est_hi[SRVMETRIC_H_N][SRVMETRIC_NQ];
	double host_busy, host_steal, host_replay;   /* the host replay ran on */
};
/* The spread of one number across the repeats of a level. */
struct summary_spread {
	double min, max, lo, hi;   /* lo, hi: the 95% interval of the mean */
};

struct level_summary {
	struct load level;     /* the level's load; a rate probe's rate is its
				* records' (NaN when they carry none) */
	size_t requests;       /* non-warm-up requests */
	size_t planned;        /* requests the run's parameters planned at this
				* level, 0 unknown: analyze report sets it, and a
				* level with fewer requests was cut short */
	size_t ok;             /* of which succeeded */
	size_t errors;         /* of which failed */
	size_t cancelled;      /* of which replay --cancel cut at their point:
				* no failure, in no statistic */
	size_t cancel_ended;   /* of which --cancel chose, ended (well) before
				* their point: in no statistic either */
	size_t warmup;         /* warm-up requests of this level */
	double warmup_ttft_ms; /* cold start: TTFT of the first warm-up sent, NaN if none */
	int64_t tokens;        /* output tokens of successful requests */
	double wall_s;         /* metric_wall_s of the level */
	double agg_tps;        /* metric_agg_tps(tokens, wall_s) */
	double per_req_tps;    /* mean metric_req_tps of successful requests */
	/* The full distributions, in ms, of successful non-warm-up requests.
	 * itl pools every gap of those requests (as vLLM's benchmark does). */
	struct stats_dist ttft, ttfa, tpot, itl, e2e;
	/* Of those, the streamed ones whose first answer token came after
	 * other tokens (reasoning, a tool call's): their TTFA is not their
	 * TTFT. Every streamed answer has a TTFA, so ttfa.n cannot tell. */
	size_t reasoned;
	struct summary_errors failed;   /* the errors by class and status */
	double scaling_eff;    /* metric_scaling; NaN unless set (summary_set_scaling) */
	int repeats;           /* distinct repeats (--repeat) among the requests, >= 1 */
	/* Open loop (some request sent later than scheduled): latencies count
	 * from the schedule; the service view counts from the actual send. */
	int open_loop;
	double sched_rps;      /* requests / span of their scheduled times */
	double achieved_rps;   /* requests / span of their actual send times */
	struct stats_dist lag, ttft_service, e2e_service;   /* ms */
	size_t good;           /* requests within every SLO (with one) */
	double goodput_share;  /* good / requests; NaN without an SLO */
	double good_rps;       /* good / wall_s; NaN without an SLO */
	char slo[96];          /* the SLO good was judged against (metric_slo_format), "" none */
	/* Where the output tokens of the successful requests came from
	 * (lib/result.h): events are an estimate, flagged in every table. */
	size_t tokens_usage, tokens_tokenize, tokens_events;
	double tokens_per_event;  /* output tokens / token events (streamed), NaN none */
	size_t cache_reported;    /* successful requests that said their cached tokens */
	double cache_hit_share;   /* their cached / prompt tokens, NaN when none said */
	size_t new_connections;   /* non-warm-up requests that opened their connection */
	double connect_ms;        /* their mean connect time, NaN when none */
	/* Across the repeats of the level (replay --repeat): min, max and the
	 * 95% interval of the mean; NaN with fewer than two repeats. Of the
	 * aggregate tok/s, and of each repeat's own P50, P90, P95 and P99
	 * (stats_dist_pcts order) of every latency: the noise between runs,
	 * where a stats_dist's lo and hi are one run's sampling error. */
	struct summary_spread spread_agg_tps;
	struct summary_spread spread_ttft[4], spread_ttfa[4], spread_tpot[4], spread_itl[4],
			      spread_e2e[4];
	int repeat;               /* a row of one repeat (replay's live rows), -1: all */
	struct attribution att;   /* where the time went, by the server's timings */
	/* Energy and price: summary_compute leaves them NaN (energy_rc
	 * ENERGY_NOT_SCRAPED); analyze/efficiency.c fills them from the
	 * run's scrapes (lib/energy.h) and its --price-per-hour. */
	int64_t input_tokens;     /* prompt tokens of the successful requests */
	double energy_j;          /* over the level's windows, of energy_source */
	double energy_window_s;   /* ... start scrape to end scrape, summed */
	double tokens_per_joule;  /* output tokens / energy_j */
	double joules_per_request;   /* energy_j / requests (failed ones too) */
	int energy_rc;            /* 0, or why no figure (energy_strerror) */
	char energy_source[160];  /* the --metrics-url it came from, "" none */
	double cost_per_m_in, cost_per_m_out;   /* per million tokens (metric_cost_per_mtok) */
	/* The server's own metrics and the host replay ran on, over the
	 * level's window, for CSV and JSON: summary_compute leaves them NaN
	 * (source ""); analyze report fills them from the run's scrapes. */
	struct summary_server srv;
	/* The client's own error (lib/clientbound.h): summary_compute leaves
	 * them NaN and client_limited -1 (not judged); analyze report fills
	 * them from the level's host records. Milliseconds. */
	double client_ttft_p50, client_ttft_p99, client_gap_p50, client_gap_p99;
	int client_limited;       /* 1 client-limited, 0 not, -1 not judged */
	char client_why[200];     /* the reason in words, "" none */
	/* 1: replay could not read its thread's wait to run (the bound sees
	 * it only as timer lag), 0: it could, -1: not known */
	int client_blind;
};

/* Summarizes the n results of one level of load load (warm-ups included
 * in r, counted apart), with goodput against slo when slo is not NULL.
 * load's rate is not used: out->level's is the records'. */
void summary_compute(const struct result *r, size_t n, struct load load,
		     const struct metric_slo *slo, struct level_summary *out);

/* For requests without start times (another tool's file): s's wall time
 * and every rate over it (Agg tok/s, good req/s, send rates, their spread
 * across repeats) become NaN, shown as missing, not as a number. */
void summary_forget_wall(struct level_summary *s);

/* Sets s->scaling_eff against base_tps, the aggregate tok/s at C=1. */
void summary_set_scaling(struct level_summary *s, double base_tps);

/* Optional column groups of the sweep table. */
#define SUMMARY_GROUP_SLO    1u   /* goodput (analyze report --slo) */
#define SUMMARY_GROUP_REPEAT 2u   /* text: the repeat of a live row (replay --repeat) */
#define SUMMARY_GROUP_SPREAD 4u   /* text: the spread across repeats (analyze report) */
#define SUMMARY_GROUP_RUN    8u   /* text: the run of a row (replay's A/B rows) */
#define SUMMARY_GROUP_TTFA  16u   /* text: P50 TTFA, when a level reasoned (summary_groups) */
#define SUMMARY_GROUP_EFFICIENCY 32u  /* tokens per joule, cost per million tokens, when
				       * a level has an energy counter or a price */
#define SUMMARY_GROUP_SERVER 64u  /* CSV, JSON: the server's metrics (summary_server) */
#define SUMMARY_GROUP_HOST 128u   /* CSV, JSON: the host replay ran on */
#define SUMMARY_GROUP_CANCEL 256u /* requests replay --cancel chose (summary_groups) */

/* The groups the n levels' own numbers ask for: SUMMARY_GROUP_TTFA when
 * any level has a request that reasoned before answering (reasoned > 0),
 * SUMMARY_GROUP_EFFICIENCY when any has an energy counter (a figure or
 * the reason it has none) or a cost, SUMMARY_GROUP_SERVER when any has a
 * server source, SUMMARY_GROUP_HOST when any has the host's figures.
 * A table's rows decide it together, so that every row has the column. */
unsigned summary_groups(const struct level_summary *levels, size_t n);

/*
 * The sweep table (replay's live rows, analyze report), one row per level:
 * the seed benchmark's columns first (C, Agg tok/s, Per-req tok/s, Avg
 * TTFT, Tokens, Wall(s), Ok), then TPOT P50, TTFA P50 (SUMMARY_GROUP_TTFA:
 * where it can differ from TTFT), TTFT P50, P95, P99 (each percentile
 * marked "*" when from too few samples for its rank, lib/stats.h; TPOT
 * and TTFA P50 are text and Markdown only, CSV and JSON have them with
 * the other fields below), Err, scaling, where
 * the numbers came from (estimated token counts "n/ok", tokens per event,
 * the prefix cache's hit share, measured requests that had to connect)
 * and the groups asked for. CSV and JSON rows have "run" first, those
 * columns, then every other field of struct level_summary (n, mean, p50,
 * p90, p95, p99, max of ttft, ttfa, tpot, itl, e2e; errors by class;
 * and the HTTP statuses in "error_statuses"; "planned_requests" and
 * "interrupted" where the plan is known; open-loop rates; token sources;
 * the percentiles from too few samples in "few_samples"; the spread
 * across repeats). Print with table_begin,
 * summary_table_row for each level, table_end.
 */
void summary_table_init(struct table *t, FILE *out, enum table_format fmt, unsigned groups);
void summary_table_row(struct table *t, const char *run, const struct level_summary *s);

/* Text: widens the Run column (SUMMARY_GROUP_RUN) to fit run; call
 * before table_begin for every run the rows will name. */
void summary_table_fit_run(struct table *t, const char *run);

/*
 * Text and Markdown: the lines under a sweep table that say what its marks
 * mean for these levels: how many requests' tokens were estimated, tokens
 * per event above 1, the percentiles from too few samples (with their
 * counts: TTFT's, and TPOT's or TTFA's where their P50 is marked; TTFA
 * only where summary_groups shows it). Nothing when there is nothing to say, nor in CSV and JSON,
 * whose columns carry it.
 */
void summary_print_notes(FILE *out, enum table_format fmt, const struct level_summary *levels,
			 size_t n);

/*
 * Text and Markdown only: the latency table of one run, a row per metric
 * (TTFT, TTFA, TPOT, ITL, E2E) and level with n, mean, P50, P90, P95, P99
 * and max in ms, then a legend line saying how ITL is pooled; with
 * intervals, each percentile with its 95% interval (struct stats_dist).
 */
void summary_print_latency(FILE *out, enum table_format fmt,
			   const struct level_summary *levels, size_t n, int intervals);

#endif
