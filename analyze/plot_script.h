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

/* Writes prefix, label and suffix as one gnuplot string expression. */
void plot_put_gp_title(FILE *f, const char *prefix, const char *label, const char *suffix);

/* A number for the .dat file, '?' (gnuplot's "missing") when there is none. */
void plot_put_value(FILE *f, double v);

/* The comment, quote variable, terminal and output that open every script
 * NAME.gp, which draws 'what'. */
void plot_preamble(FILE *f, const struct plot_data *d, const char *name, const char *what);

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

/* log2 x axis with a tic at each concurrency of d. */
void plot_level_axis(FILE *f, const struct plot_data *d);

/* Per concurrency of d, per run: the 'nvals' (at most 8) values 'get'
 * gives (NaN: missing), one row per concurrency. */
void plot_level_table(FILE *f, const struct plot_data *d, size_t nvals,
		      void (*get)(const struct level_summary *, double *));

#endif
