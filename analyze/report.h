/*
 * report.h - `tracebench analyze report` and `export`: the sweep table of
 * every run, and one CSV row per request, read from the analysis database.
 *
 * The table rows are a run's (analyze/run.h: lib/summary.c from its
 * requests, the code replay uses for its live table), so a report shows
 * the numbers replay printed, in the same columns. Every table is printed
 * by lib/table.c. Output goes to a FILE * so tests can read it. The code
 * is in the report*.c files, a concern each (report.c says which).
 * Functions return DB_OK or a DB_ERR_* code (db.h) with a message in 'err'.
 */
#ifndef TB_ANALYZE_REPORT_H
#define TB_ANALYZE_REPORT_H

#include <stdio.h>
#include "analyze/db.h"
#include "analyze/run.h"
#include "lib/capacity.h"
#include "lib/metric.h"
#include "lib/result.h"
#include "lib/summary.h"
#include "lib/turns.h"

/* The load of level s in the search k: its C, or for a search over rates
 * its offered rate (NaN for a level that is not a rate level). */
double report_level_load(const struct capacity_options *k, const struct level_summary *s);

/*
 * Prints the sweep table of each run (only 'label' when not NULL) to out,
 * with goodput columns against slo (NULL: none). Text and Markdown get per
 * run a heading, the table, then the warm-up line, the errors by class and
 * the latency table (summary_print_latency, with each percentile's 95%
 * interval when 'intervals'); CSV and JSON one table
 * covering all runs, the run label in the "run" column.
 */
int report_print(struct db *db, const char *label, enum table_format fmt,
		 const struct metric_slo *slo, int intervals, FILE *out, char *err,
		 size_t errlen);

/*
 * `analyze runs`: a row per run (label, created, endpoint, model, served
 * model, trace, mode, levels, requests without warm-ups, errors, tags) to
 * out; only those whose provenance carries every one of the n_tags tags
 * "KEY=VALUE" (none: all).
 */
int report_print_runs(struct db *db, enum table_format fmt, const char *const *tags,
		      size_t n_tags, FILE *out, char *err, size_t errlen);

/*
 * Writes one row per request (warm-ups included, flagged) of each run
 * (only 'label' when not NULL) to out. CSV: a header row; RFC 4180
 * quoting, an empty field for NULL, spreadsheet formulas neutralised
 * (lib/table.h). JSON Lines ('jsonl'): one object a line, null for NULL,
 * numbers as numbers. Columns: see db_export_rows ('gaps': with itl_us).
 */
int report_export(struct db *db, const char *label, int jsonl, int gaps, FILE *out,
		  char *err, size_t errlen);

/* A model of a run of replay --model-mix at one level: the summary of
 * the level's requests sent to it, and their share of the level's. */
struct report_model_row {
	const char *model;        /* into the models report_model_rows gives */
	struct level_summary s;
	double share;
};

/*
 * The rows of the run 'label', by level (as report names it) then model,
 * into *rows (*n) with the models they point into (*models, *n_models):
 * both the caller's to free(); none (0, NULL) for a run of fewer than two
 * models. DB_OK or a DB_ERR_* code.
 */
int report_model_rows(struct db *db, const char *label, struct db_model **models,
		      size_t *n_models, struct report_model_row **rows, size_t *n, char *err,
		      size_t errlen);

#endif
