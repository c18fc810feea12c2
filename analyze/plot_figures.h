/*
 * plot_figures.h - the figures of analyze plot, one file each (or one file
 * per family): each writes NAME.dat (numbers only) and NAME.gp (the
 * script that draws them) from struct plot_data. Internal to analyze plot;
 * plot.c lists them in the order they are written.
 */
#ifndef TB_ANALYZE_PLOT_FIGURES_H
#define TB_ANALYZE_PLOT_FIGURES_H

#include <stdio.h>
#include "analyze/plot_data.h"

struct plot_figure {
	const char *name;   /* NAME.dat, NAME.gp and the image NAME.png (.svg, .pdf) */
	void (*dat)(FILE *f, const struct plot_data *d);
	void (*gp)(FILE *f, const struct plot_data *d);
	int (*wanted)(const struct plot_data *d);   /* anything to draw it from? */
};

extern const struct plot_figure plot_fig_scaling;     /* plot_scaling.c */
extern const struct plot_figure plot_fig_pareto;      /* plot_pareto.c */
extern const struct plot_figure plot_fig_ttft;        /* plot_latency.c */
extern const struct plot_figure plot_fig_ttfa;        /* plot_latency.c */
extern const struct plot_figure plot_fig_tpot;        /* plot_latency.c */
extern const struct plot_figure plot_fig_itl;         /* plot_latency.c */
extern const struct plot_figure plot_fig_e2e;         /* plot_latency.c */
extern const struct plot_figure plot_fig_rate;        /* plot_rate.c */
extern const struct plot_figure plot_fig_cdf;         /* plot_cdf.c */
extern const struct plot_figure plot_fig_timeline;    /* plot_timeline.c */
extern const struct plot_figure plot_fig_load_curve;  /* plot_capacity.c */
extern const struct plot_figure plot_fig_turns;       /* plot_turns.c */
extern const struct plot_figure plot_fig_models;      /* plot_models.c */
extern const struct plot_figure plot_fig_forest;      /* plot_forest.c */
extern const struct plot_figure plot_fig_time_split;  /* plot_split.c */

#endif
