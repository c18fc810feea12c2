/*
 * compare.h - `tracebench analyze compare BEFORE AFTER`: did a change make
 * the server faster, slower, or can the runs not tell?
 *
 * For each concurrency level both runs have, compare shows the median
 * (P50) and the P99 of TTFT, TTFA, TPOT, ITL and E2E and the aggregate
 * tok/s (tokens / wall time, the number replay and report show), before
 * and after, the change in percent with its 95% interval, and a verdict per
 * number: same, faster, slower or inconclusive against --min-effect.
 * The method is analyze/verdict.h's: repeats (replay --repeat) are the unit
 * of noise, requests are paired by trace id when both runs replayed the
 * same ones, and P99 is judged with 200 requests a side or more.
 */
#ifndef TB_ANALYZE_COMPARE_H
#define TB_ANALYZE_COMPARE_H

#include <stdio.h>
#include "analyze/db.h"
#include "analyze/verdict.h"
#include "lib/clientbound.h"
#include "lib/load.h"
#include "lib/summary.h"
#include "lib/table.h"

/* Runs at least this many make a history whose spread is noise. */
#define COMPARE_HISTORY_MIN_RUNS 3

struct compare_opts {
	double min_effect;      /* percent: smaller changes are "same"; < 0: the
				 * default of each level (compare_min_effect) */
	double noise_pct;       /* --noise: one run's relative SD, percent; < 0: measure it */
	unsigned resamples;
	uint64_t seed;
};

/* One verdict: a statistic of a metric at a level. */
struct compare_row {
	struct load level;      /* as report shows it (shards_load), no rate */
	const char *metric;     /* "TTFT", "TTFA", "TPOT", "ITL", "E2E", "Agg tok/s" (static) */
	const char *stat;       /* "P50", "P99"; "" for throughput (static) */
	const char *unit;       /* "ms", "tok/s" (static) */
	int higher_is_better;   /* throughput */
	int m;                  /* the metric, compare.c's; < 0 throughput */
	double p;               /* the percentile of a latency */
	int estimated;          /* rests on token counts a side estimated (no usage) */
	/* the two runs' bounds on their clients' own part of this number,
	 * summed, ms (analyze/compare_client.c); NaN: none */
	double client_bound_ms;
	struct verdict v;
};

/* What compare found at one level besides its rows. */
struct compare_level {
	struct load level;      /* as report shows it (shards_load), no rate */
	int level_before, level_after;  /* the codes stored (lib/load.h): a
					 * sharded run's per shard */
	int compared;           /* rows were made (both sides had successes) */
	size_t repeats_before, repeats_after;
	int paired;             /* both sides replayed the same trace requests */
	size_t ok_before, ok_after, failed_before, failed_after;
	/* replay --cancel's requests (cut, or ended before their point): in
	 * no sample, no failure */
	size_t cancelled_before, cancelled_after;
	/* the failed requests by class and HTTP status, summary_errors_format's
	 * "2 http (HTTP 429 x2)"; "" none */
	char errors_before[192], errors_after[192];
	int estimated_before, estimated_after;
	double min_effect;      /* percent: the threshold its verdicts used */
	enum verdict_noise noise;   /* where its run-to-run noise came from */
	size_t blocks;          /* an A/B run's blocks both sides have, else 0 */
	size_t history_runs;    /* runs the history's noise was measured over */
	/* where each side's time went, by the server's own timings
	 * (lib/attribution.h); n 0 where a server sent none */
	struct attribution att_before, att_after;
	/* what the tokens cost (analyze/efficiency.h), NaN where a run has
	 * no energy counter or no price */
	double tpj_before, tpj_after;           /* output tokens per joule */
	double cost_out_before, cost_out_after; /* per million output tokens */
	/* each side's bound on its client's own error (lib/clientbound.h),
	 * NaN where a run has none */
	struct clientbound client_before, client_after;
};

/* A model of both runs of a model mix at one level (compare_models.c):
 * its requests and medians, ms, before and after; each "after" follows its
 * "before" (the change column reads the pair). */
struct compare_model_row {
	struct load level;
	char model[RESULT_MODEL_MAX];
	size_t n_before, n_after;
	double ttft_before, ttft_after;
	double tpot_before, tpot_after;
	double e2e_before, e2e_after;
};

struct compare_result {
	struct compare_row *rows;   /* owned */
	size_t n_rows;
	struct compare_level *levels;   /* owned: every level of either run */
	size_t n_levels;
	char **warnings;        /* owned: different traces, parameters, levels */
	size_t n_warnings;
	double min_effect;      /* as given, or < 0: each level's default */
	int ab;                 /* the runs are the two sides of one A/B run: the
				 * repeats a block holds (2: its halves; 1 in
				 * files before them), else 0 */
	size_t history_runs;    /* runs of before's experiment (after not counted) */
	struct compare_model_row *models;   /* owned: per level and model, when a
					     * run sent to several models */
	size_t n_models;
};

void compare_result_release(struct compare_result *r);

/*
 * The --min-effect of a level: 'given' when it is >= 0, else the default,
 * VERDICT_MIN_EFFECT_REPEATS where the run-to-run noise is measured (an
 * A/B run's blocks, --noise, the history), VERDICT_MIN_EFFECT where not.
 */
double compare_min_effect(double given, int noise_measured);

/*
 * Compares the runs labelled 'before' and 'after'. Returns DB_OK and
 * fills *out (release with compare_result_release); DB_ERR_INPUT for an
 * unknown run (the message names it) or runs without a common level;
 * DB_ERR_WORK on SQLite or memory failure.
 */
int compare_runs(struct db *db, const char *before, const char *after,
		 const struct compare_opts *o, struct compare_result *out, char *err,
		 size_t errlen);

/*
 * Prints r in fmt: text and Markdown with the warnings, a line per level
 * that was not compared and a legend; CSV and JSON one record per row
 * (JSON with the warnings and levels too).
 */
void compare_print(FILE *out, enum table_format fmt, const char *before, const char *after,
		   const struct compare_result *r);

/*
 * The rows that fail a gate of limit percent: "slower" verdicts whose
 * change is worse than limit, and with 'client' those a client bound held
 * back from "slower" too. Returns how many; writes the first min(that,
 * max) row indices into idx, worst first.
 */
size_t compare_regressions(const struct compare_result *r, double limit, int client,
			   size_t *idx, size_t max);

/*
 * A change no larger than what the two runs' clients may have added to it
 * is not called faster or slower (analyze/compare_client.c): reads each
 * run's client bounds (replay's level-end host records) into r's levels
 * and rows and holds such verdicts back as inconclusive (client_held).
 * Returns DB_OK or a DB_ERR_* code with why in err.
 */
int compare_client_fill(struct db *db, const char *before, const char *after,
			struct compare_result *r, char *err, size_t errlen);

/*
 * Text and Markdown: where the change of each level's median TTFT went, by
 * the servers' own timings (analyze/compare_split.c): the change of the
 * median queue, prefill and rest, where both runs' servers sent timings.
 * Nothing otherwise. Returns 1 when it printed.
 */
int compare_print_split(FILE *out, enum table_format fmt, const struct compare_result *r);

/*
 * Each compared level's tokens per joule and cost per million output
 * tokens of both runs, as report shows them (analyze/compare_efficiency.c).
 * Returns DB_OK or a DB_ERR_* code with why in err.
 */
int compare_efficiency_fill(struct db *db, const struct db_run *before,
			    const struct db_run *after, struct compare_result *r, char *err,
			    size_t errlen);

/*
 * Text and Markdown: a row per level with either figure in both runs,
 * before, after and the change in percent; nothing otherwise. Returns 1
 * when it printed.
 */
int compare_print_efficiency(FILE *out, enum table_format fmt, const struct compare_result *r);

/*
 * When either run sent its requests to several models (replay
 * --model-mix): per compared level the medians of each model both runs
 * have, into r->models (analyze/compare_models.c). DB_OK or a DB_ERR_*.
 */
int compare_models_fill(struct db *db, const char *before, const char *after,
			struct compare_result *r, char *err, size_t errlen);

/* Text and Markdown: those rows, nothing without. Returns 1 when it printed. */
int compare_print_models(FILE *out, enum table_format fmt, const struct compare_result *r);

/* "ITL P99 at C=16 +26.0% [+19.2, +31.8]" into buf (len bytes). */
void compare_describe(const struct compare_row *w, char *buf, size_t len);

#endif
