/*
 * run.h - one run of the database, read once: its parameters (the runs
 * row of its first results file, run_params.h), each level's sweep-table
 * row (lib/summary.c, the code replay prints its live table with), its
 * sessions, its warm-up, its scaling efficiency, its energy and price,
 * the server's and the client's figures per level, and each level's C as
 * the server saw it when the run was merged from shards (shards_load).
 * report, compare's energy and cost, the capacity search's table and plot
 * read runs through run_read; plot takes each level's requests on the way
 * (run_read_each), so every reader names a level alike.
 *
 * Functions return DB_OK or a DB_ERR_* code (db.h) with a message in 'err'.
 */
#ifndef TB_ANALYZE_RUN_H
#define TB_ANALYZE_RUN_H

#include <stddef.h>
#include "analyze/db.h"
#include "lib/load.h"
#include "lib/metric.h"
#include "lib/result.h"
#include "lib/summary.h"
#include "lib/turns.h"

/* One run summarized: its parameters, its levels and its warm-up. */
struct run {
	struct db_run *row;            /* owned: the runs row (db_runs), its
					* parameters in row->param */
	size_t n_rows;
	struct level_summary *levels;  /* owned; ascending; levels with measured requests */
	size_t n_levels;
	size_t warmups;                /* warm-up requests of the run */
	double cold_ttft_ms;           /* TTFT of the first warm-up, NaN if it had none */
	char cold_error[RESULT_ERROR_MAX]; /* error class of the first warm-up, "" if ok */
	size_t shards;                 /* closed loop merged from shards: their number,
					* each level's C multiplied by it; else 0 */
	struct turns_summary *turns;   /* owned; per level: its sessions (sessions 0:
					* none), first turns apart from later ones */
};

/*
 * Summarizes every level of the run 'label' with summary_compute, with
 * goodput against slo (NULL: none), and sets each level's scaling
 * efficiency when the run has a level C=1. A closed-loop run merged from S
 * shards reports C as the total in flight, S x C. An unknown label is
 * DB_ERR_INPUT. On success fills *out (release with run_release).
 */
int run_read(struct db *db, const char *label, const struct metric_slo *slo, struct run *out,
	     char *err, size_t errlen);

/*
 * run_read, handing each level's requests (its warm-ups among them) to
 * visit as they are read, so a caller that wants them too (analyze plot)
 * reads a run once; 'load' is the level's as the summary names it
 * (shards_load, no rate). A non-zero return from visit stops it: out of
 * memory.
 */
typedef int (*run_level_visit)(void *ctx, struct load load, const struct result *r, size_t n);
int run_read_each(struct db *db, const char *label, const struct metric_slo *slo,
		  run_level_visit visit, void *ctx, struct run *out, char *err, size_t errlen);

void run_release(struct run *r);

/* The summary of the level of load 'load' in run (load_same), or NULL
 * when the run measured none there. */
struct level_summary *run_level(const struct run *run, struct load load);

#endif
