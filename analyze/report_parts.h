/*
 * report_parts.h - the parts analyze/report.c puts together into a report,
 * for the report*.c files only (the public functions are in report.h),
 * and analyze/run.c, which fills each level's server figures with
 * report_server_fill.
 *
 * Each part prints to out in the format asked; those of text and Markdown
 * print nothing when they have nothing to say. None allocates anything
 * the caller must free.
 */
#ifndef TB_ANALYZE_REPORT_PARTS_H
#define TB_ANALYZE_REPORT_PARTS_H

#include <stdio.h>
#include "analyze/db.h"
#include "analyze/report.h"
#include "lib/capacity.h"
#include "lib/metric.h"
#include "lib/table.h"

/* report.c: DB_OK, or DB_ERR_WORK with a message when a write to out
 * failed (a closed pipe, a full disk). */
int report_check_output(FILE *out, char *err, size_t errlen);

/* ---- report_notes.c: the lines around a run's sweep table ------------ */

/* Above the table: "run 'L': endpoint E, model M, trace D" (text) or
 * "### L — ..." (Markdown); the params' "notes", a "note:" line each; where
 * the trace's input lengths came from, when a tokenizer was involved. */
void report_notes_heading(FILE *out, enum table_format fmt, const struct db_run *run);
void report_notes_params(FILE *out, enum table_format fmt, const struct run_params *param);
void report_notes_input_lengths(FILE *out, enum table_format fmt, const char *trace_path);

/* Under it: what the energy and cost columns mean; the SLO of goodput;
 * the warm-up; the errors by class; the open-loop levels' rates and lag;
 * per level of a run of sessions its figures (returns whether it printed). */
void report_notes_efficiency(FILE *out, const struct run *run);
void report_notes_slo(FILE *out, const struct metric_slo *slo);
void report_notes_warmup(FILE *out, const struct run *run);
void report_notes_errors(FILE *out, const struct run *run);
void report_notes_open_loop(FILE *out, const struct run *run);
int report_notes_sessions(FILE *out, enum table_format fmt, const struct run *run);

/* Whether a level of run had errors; whether one ran open loop. */
int report_notes_has_errors(const struct run *run);

/* "cancelled by replay --cancel 0.25:tokens:16 (seed 3): C=1: 6 cut; ..."
 * when the run's params have a cancel: how many each level cut and how
 * many it chose that ended first. Returns 1 when it printed the line. */
int report_notes_cancel(FILE *out, const struct run *run);
int report_notes_has_open_loop(const struct run *run);

/* ---- report_plan.c: a closed-loop run's plan against what it measured - */

/* Sets each measured level's planned requests where params tell them. */
void report_plan_mark(struct run *run);
/* Text and Markdown: the "interrupted: ..." line; returns 1 when printed. */
int report_plan_interrupted(FILE *out, const struct run *run);
/* CSV and JSON: a row into t for each planned level that measured nothing. */
void report_plan_unreached_rows(struct table *t, const char *label, const struct run *run);

/* ---- report_server.c: the server's own metrics ------------------------ */

/*
 * Text and Markdown: the server metrics of the run 'label' (replay
 * --metrics-url), a table per scraped source, and its latency histograms
 * beside the client's percentiles of run; *printed set to 1 when the run
 * scraped any. DB_OK or a DB_ERR_* code with a message in err.
 */
int report_server_metrics(FILE *out, enum table_format fmt, struct db *db,
			  const char *label, const struct run *run, int *printed,
			  char *err, size_t errlen);

/*
 * CSV and JSON: each level's server metrics and host figures (struct
 * summary_server) of the run 'label' into run's levels, each figure from
 * the first source, in --metrics-url order, that has it at the level.
 * DB_OK or a DB_ERR_* code.
 */
int report_server_fill(struct db *db, const char *label, struct run *run, char *err,
		       size_t errlen);

/* ---- report_capacity.c: a capacity search's load curve --------------- */

/*
 * The SLO of a run's goodput, one choice for every format: the command's
 * (--slo) when it gave one, else a capacity search's own, else none (use
 * NULL). A capacity search's load curve is judged against its own SLO
 * (param's slo and slo_spec) whatever the table's.
 */
struct report_slo_choice {
	const struct run_params *param;  /* the run's: is_capacity, capacity, slo */
	const struct metric_slo *use;    /* NULL, the command's, or &param->slo */
};

/*
 * Text and Markdown: the load curve of the capacity search c of the run
 * 'label', from run when its goodput was judged against the search's SLO,
 * else from the run summarized again. DB_OK or a DB_ERR_* code.
 */
int report_capacity_curve(FILE *out, enum table_format fmt, struct db *db,
			  const char *label, const struct run *run,
			  const struct report_slo_choice *c, char *err, size_t errlen);

/* ---- report_models.c: a run's requests by model ---------------------- */

/*
 * Text and Markdown: when the requests of the run 'label' went to more
 * than one model (replay --model-mix), a table of each level's figures
 * per model; nothing otherwise. DB_OK or a DB_ERR_* code.
 */
int report_models_print(FILE *out, enum table_format fmt, struct db *db, const char *label,
			char *err, size_t errlen);

#endif
