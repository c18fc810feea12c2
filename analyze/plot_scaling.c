/*
 * plot_scaling.c - throughput by concurrency: aggregate and per request;
 * see plot_figures.h.
 */
#include "analyze/plot_figures.h"

#include <math.h>
#include <stdio.h>

#include "analyze/plot_script.h"

static void plot_get_tps(const struct level_summary *s, double *v)
{
	v[0] = s->agg_tps;
	v[1] = s->per_req_tps;
}

static void plot_scaling_dat(FILE *f, const struct plot_data *d)
{
	fputs("# scaling.dat - written by tracebench analyze plot, read by scaling.gp.\n"
	      "# concurrency, then per run (in the order of scaling.gp's plot command):\n"
	      "# aggregate tok/s, per-request tok/s. '?' marks a missing value.\n", f);
	plot_level_table(f, d, 2, plot_get_tps);
}

/* The two curves of series j: aggregate (solid) and per-request (dashed). */
static void plot_write_curves(FILE *f, const struct plot_series *s, size_t j, int last)
{
	unsigned col = 2 + 2 * (unsigned)j;
	unsigned color = 1 + (unsigned)j;
	char agg[96] = ": aggregate", per[96] = ": per request";
	size_t i, est = 0, ok = 0;

	/* Token counts that are counted events, not the server's, say so. */
	for (i = 0; i < s->run.n_levels; i++) {
		est += s->run.levels[i].tokens_events;
		ok += s->run.levels[i].ok;
	}
	if (est) {
		snprintf(agg, sizeof(agg), ": aggregate (tokens of %zu of %zu estimated)", est, ok);
		snprintf(per, sizeof(per), ": per request (tokens of %zu of %zu estimated)", est, ok);
	}
	fprintf(f, "     '" PLOT_DAT_NAME "' using 1:%u with linespoints lc %u pt 7 dt 1 title ",
		col, color);
	plot_put_gp_title(f, "", s->label, agg);
	fputs(", \\\n", f);
	fprintf(f, "     '" PLOT_DAT_NAME "' using 1:%u with linespoints lc %u pt 6 dt 2 title ",
		col + 1, color);
	plot_put_gp_title(f, "", s->label, per);
	fputs(last ? "\n" : ", \\\n", f);
}

static void plot_scaling_gp(FILE *f, const struct plot_data *d)
{
	size_t i, last = 0;

	plot_preamble(f, d, "scaling", "throughput by concurrency", 2 * d->n_series);
	fputs("# Solid lines: aggregate tok/s of a level (all requests); dashed:\n"
	      "# mean tok/s of one request (its output tokens / (E2E - TTFT)).\n", f);
	plot_title(f, d, "Throughput by concurrency");
	plot_level_axis(f, d);
	fputs("set ylabel 'tok/s'\n"
	      "set yrange [0:*]\n"
	      "set grid\n"
	      "set key below\n"
	      "set datafile missing '?'\n"
	      "plot \\\n", f);
	for (i = 0; i < d->n_series; i++)
		if (plot_series_closed(&d->series[i]))
			last = i;
	/* (an open-loop run beside closed ones has no curve here) */
	for (i = 0; i < d->n_series; i++)
		if (plot_series_closed(&d->series[i]))
			plot_write_curves(f, &d->series[i], i, i == last);
}

static int plot_closed_wanted(const struct plot_data *d)
{
	return d->n_levels > 0;
}

const struct plot_figure plot_fig_scaling = {
	"scaling", plot_scaling_dat, plot_scaling_gp, plot_closed_wanted
};
