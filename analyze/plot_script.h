/*
 * plot_script.h - the parts every figure's gnuplot script shares: untrusted
 * text as gnuplot strings (plot_put_gp_string in plot.h), numbers for the
 * .dat files, the preamble that picks the terminal and output, the title
 * and the concurrency axis. Internal to analyze plot.
 */
#ifndef TB_ANALYZE_PLOT_SCRIPT_H
#define TB_ANALYZE_PLOT_SCRIPT_H

#include <stddef.h>
#include <stdio.h>
#include "analyze/plot_data.h"

/* "png", "svg" or "pdf". */
const char *plot_ext(enum plot_format fmt);

/* A run's label in a key or title: at most this many characters, a longer
 * one its first and last around "..." (the whole in the .dat comments and
 * the report's tables). */
#define PLOT_LABEL_MAX 24

/* Writes prefix, label (shortened to PLOT_LABEL_MAX characters) and
 * suffix as one gnuplot string expression. */
void plot_put_gp_title(FILE *f, const char *prefix, const char *label, const char *suffix);

/* A number for the .dat file, '?' (gnuplot's "missing") when there is none. */
void plot_put_value(FILE *f, double v);

/* The comment, quote variable, terminal and output that open every script
 * NAME.gp, which draws 'what': a column wide, high enough for a key below
 * it of key_lines entries. */
void plot_preamble(FILE *f, const struct plot_data *d, const char *name, const char *what,
		   size_t key_lines);

/* The height, inches, of a column-wide figure with key_lines entries in
 * its key below the graph. */
double plot_keyed_height(size_t key_lines);

/* Printed sizes, inches: a paper's column and its full text width. Every
 * figure's text is 8-point at these sizes (plot_script.c). */
#define PLOT_COLUMN_IN 3.5
#define PLOT_PAGE_IN   7.0

/* The same for a figure width_in x height_in inches as printed (a
 * column-wide figure by plot_preamble: PLOT_COLUMN_IN x 3/4 of it). */
void plot_preamble_sized(FILE *f, const struct plot_data *d, const char *name, const char *what,
			 double width_in, double height_in);

/* "set title 'WHAT'" or, for one run, "set title 'WHAT: LABEL'". */
void plot_title(FILE *f, const struct plot_data *d, const char *what);

/* "set AXIStics STEP" for a linear axis over [lo, hi]: a round step (1, 2,
 * 2.5 or 5 times a power of ten) giving at most five intervals, so that
 * labels at 8 points a column wide never touch (gnuplot's own choice
 * gives up to ten); autofreq when the range is empty. Returns the step,
 * NaN for autofreq. */
double plot_axis_tics(FILE *f, const char *axis, double lo, double hi);

/* log2 x axis with a tic at each concurrency of d. */
void plot_level_axis(FILE *f, const struct plot_data *d);

/* Per concurrency of d, per run: the 'nvals' (at most 8) values 'get'
 * gives (NaN: missing), one row per concurrency. */
void plot_level_table(FILE *f, const struct plot_data *d, size_t nvals,
		      void (*get)(const struct level_summary *, double *));

#endif
