/*
 * plot.h - `tracebench analyze plot`: gnuplot scripts with their data files,
 * rendered (PNG, SVG or PDF) when gnuplot is installed.
 *
 * Each plot NAME is DIR/NAME.dat (numbers only) and DIR/NAME.gp, a
 * self-contained script that reads it relative to its own directory
 * (`cd DIR && gnuplot NAME.gp`) and writes DIR/NAME.png (.svg, .pdf):
 *   compare_forest   two runs: each change compare judged, interval, verdict
 *   scaling          aggregate and per-request tok/s by concurrency
 *   pareto           aggregate tok/s against tok/s per user, per concurrency
 *   latency_METRIC   TTFT, TTFA, TPOT, ITL, E2E by concurrency (P50, P90-P99)
 *   latency_by_rate  open loop: latency and achieved rate by offered rate
 *   latency_cdf      CDF of TTFT and of E2E, one curve per level and run
 *   ttft_timeline    TTFT of each request against run time, levels marked
 *   load_curve       a capacity search: latency against achieved load
 *   ttft_by_turn     sessions: TTFT by turn index
 * Several runs are overlaid on every plot, one colour per run. Run labels
 * reach a script only as single-quoted gnuplot literals holding no quote
 * (plot_put_gp_string), so a label can never inject a gnuplot command.
 */
#ifndef TB_ANALYZE_PLOT_H
#define TB_ANALYZE_PLOT_H

#include <stddef.h>
#include <stdio.h>
#include "analyze/db.h"

#define PLOT_DAT_NAME    "scaling.dat"

enum plot_format { PLOT_PNG, PLOT_SVG, PLOT_PDF };

/* Parses "png", "svg", "pdf". Returns 0 or -1. */
int plot_format_parse(const char *s, enum plot_format *out);

/* How analyze plot draws. */
struct plot_options {
	enum plot_format fmt;
	int force;   /* replace the files of an earlier plot in the directory */
	int gpus;    /* the Pareto view gives aggregate tok/s per GPU of this many; 0, 1: none */
};

#define PLOT_MAX_FILES 64

/* What plot_write did. */
struct plot_output {
	int rendered;         /* gnuplot ran and wrote every image */
	int gnuplot_missing;  /* no gnuplot on PATH: scripts and data only */
	size_t n_files;       /* files written in the directory, in order */
	char files[PLOT_MAX_FILES][64];
};

/*
 * Writes every plot of the runs 'labels' (n_labels of them; all runs when
 * n_labels is 0) into 'dir', creating it if missing, then renders each in
 * format opt->fmt with gnuplot (run directly, never through a shell) when
 * gnuplot is on PATH. Files of an earlier plot in 'dir' (NAME.dat, NAME.gp,
 * the image) are replaced only when opt->force is set; otherwise nothing is
 * written. Returns DB_OK and fills *out; DB_ERR_INPUT for an unknown run,
 * nothing to plot, a directory that cannot be created or a file that
 * exists; DB_ERR_WORK when a file cannot be written or gnuplot fails.
 * Files are written under a temporary name and renamed.
 */
int plot_write(struct db *db, const char *const *labels, size_t n_labels, const char *dir,
	       const struct plot_options *opt, struct plot_output *out, char *err, size_t errlen);

/* The variable scaling.gp defines as a single quote: sprintf('%c', 39). */
#define PLOT_GP_QUOTE_VAR "tb_quote"

/*
 * Writes s to f as a gnuplot string expression that evaluates to s, with
 * control characters (newlines) as spaces: single-quoted literals holding
 * no quote, each ' of s written as PLOT_GP_QUOTE_VAR, so "it's" becomes
 * 'it' . tb_quote . 's'. The script must define PLOT_GP_QUOTE_VAR first.
 */
void plot_put_gp_string(FILE *f, const char *s);

#endif
