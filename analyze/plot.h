/*
 * plot.h - `tracebench analyze plot`: throughput by concurrency as a gnuplot
 * script with its data file, rendered to PNG when gnuplot is installed.
 *
 * DIR/scaling.dat holds numbers only (concurrency, then aggregate and
 * per-request tok/s per run, from lib/summary.c); DIR/scaling.gp is a
 * self-contained script that reads it relative to its own directory
 * (`cd DIR && gnuplot scaling.gp`) and writes DIR/scaling.png. Run labels
 * reach the script only as single-quoted gnuplot literals holding no quote
 * (plot_put_gp_string), so a label can never inject a gnuplot command.
 */
#ifndef TB_ANALYZE_PLOT_H
#define TB_ANALYZE_PLOT_H

#include <stddef.h>
#include <stdio.h>
#include "analyze/db.h"

#define PLOT_DAT_NAME    "scaling.dat"
#define PLOT_SCRIPT_NAME "scaling.gp"
#define PLOT_PNG_NAME    "scaling.png"

/* What plot_scaling did besides writing the script and data. */
struct plot_output {
	int rendered;         /* gnuplot ran and wrote PLOT_PNG_NAME */
	int gnuplot_missing;  /* no gnuplot on PATH: script and data only */
};

/*
 * Writes the scaling plot of the runs 'labels' (n_labels of them; all runs
 * when n_labels is 0) into 'dir', creating it if missing, then renders it
 * with gnuplot (run directly, never through a shell) when gnuplot is on
 * PATH. Returns DB_OK and fills *out; DB_ERR_INPUT for an unknown run or
 * nothing to plot; DB_ERR_WORK when a file cannot be written or gnuplot
 * fails. Files are written under a temporary name and renamed into place.
 */
int plot_scaling(struct db *db, const char *const *labels, size_t n_labels, const char *dir,
		 struct plot_output *out, char *err, size_t errlen);

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
