/*
 * plot_cdf.c - the latency CDF; see plot_figures.h.
 */
#include "analyze/plot_figures.h"

#include <stdio.h>

#include "analyze/plot_script.h"

/* Empirical CDF rows "value fraction" of n sorted values. */
static void plot_cdf_block(FILE *f, const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(f, "%.3f %.6f\n", v[i], (double)(i + 1) / (double)n);
	fputs("\n\n", f);
}

/*
 * latency_cdf.dat: index blocks, two per run with data: TTFT then E2E.
 * A run with no successful request has no blocks (and no curve).
 */
static void plot_cdf_dat(FILE *f, const struct plot_data *d)
{
	size_t i;

	fputs("# latency_cdf.dat - written by tracebench analyze plot.\n"
	      "# Per run with successful requests, two blocks (gnuplot 'index'):\n"
	      "# TTFT then E2E, rows 'ms cumulative-fraction'.\n", f);
	for (i = 0; i < d->n_series; i++)
		if (d->series[i].n_ttft && d->series[i].n_e2e) {
			plot_cdf_block(f, d->series[i].ttft, d->series[i].n_ttft);
			plot_cdf_block(f, d->series[i].e2e, d->series[i].n_e2e);
		}
}

static void plot_cdf_panel(FILE *f, const struct plot_data *d, int which, const char *xlabel)
{
	size_t i, block = 0;
	int first = 1;

	fprintf(f, "set xlabel '%s'\n"
		"plot \\\n", xlabel);
	for (i = 0; i < d->n_series; i++) {
		if (!d->series[i].n_ttft || !d->series[i].n_e2e)
			continue;
		fprintf(f, "%s     'latency_cdf.dat' index %zu using 1:2 with steps lc %zu title ",
			first ? "" : ", \\\n", 2 * block + (size_t)which, i + 1);
		plot_put_gp_string(f, d->series[i].label);
		first = 0;
		block++;
	}
	fputc('\n', f);
}

static void plot_cdf_gp(FILE *f, const struct plot_data *d)
{
	plot_preamble(f, d, "latency_cdf", "TTFT and E2E distributions");
	fputs("set multiplot layout 1,2 title 'Latency CDF (successful requests, all levels)'\n"
	      "set ylabel 'fraction of requests'\n"
	      "set yrange [0:1]\n"
	      "set grid\n"
	      "set key bottom right\n", f);
	plot_cdf_panel(f, d, 0, "TTFT (ms)");
	plot_cdf_panel(f, d, 1, "E2E (ms)");
	fputs("unset multiplot\n", f);
}

const struct plot_figure plot_fig_cdf = {
	"latency_cdf", plot_cdf_dat, plot_cdf_gp, plot_has_requests
};
