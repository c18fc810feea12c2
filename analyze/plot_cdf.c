/*
 * plot_cdf.c - the latency CDF, one curve per level and run; see
 * plot_figures.h.
 *
 * Pooling every level would draw a staircase of levels, not a
 * distribution: each level is a curve of its own, in its run's colour,
 * told from the run's other levels by its dash pattern (and, when there
 * is one run, by its colour too).
 */
#include "analyze/plot_figures.h"

#include <math.h>
#include <stdio.h>

#include "analyze/plot_script.h"

/* Is the level drawn: does it have a TTFT and an E2E sample? */
static int plot_cdf_drawn(const struct plot_level *lv)
{
	return lv->n_ttft && lv->n_e2e;
}

/* Empirical CDF rows "value fraction" of n sorted values. */
static void plot_cdf_block(FILE *f, const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(f, "%.3f %.6f\n", v[i], (double)(i + 1) / (double)n);
	fputs("\n\n", f);
}

/*
 * latency_cdf.dat: index blocks, two per level with data, levels of each
 * run in the database's order, runs in order: TTFT then E2E.
 */
static void plot_cdf_dat(FILE *f, const struct plot_data *d)
{
	size_t i, k;
	char name[64];

	fputs("# latency_cdf.dat - written by tracebench analyze plot.\n"
	      "# Per run, per level with successful requests, two blocks (gnuplot\n"
	      "# 'index'): TTFT then E2E, rows 'ms cumulative-fraction'.\n", f);
	for (i = 0; i < d->n_series; i++)
		for (k = 0; k < d->series[i].n_lv; k++) {
			const struct plot_level *lv = &d->series[i].lv[k];

			if (!plot_cdf_drawn(lv))
				continue;
			fprintf(f, "# run %zu, %s\n", i + 1,
				plot_level_label(&d->series[i], lv->level, name, sizeof(name)));
			plot_cdf_block(f, lv->ttft, lv->n_ttft);
			plot_cdf_block(f, lv->e2e, lv->n_e2e);
		}
}

/* A log x axis when the panel's samples span more than a decade and a half. */
static void plot_cdf_axis(FILE *f, const struct plot_data *d, int which)
{
	double lo = INFINITY, hi = 0;
	size_t i, k;

	for (i = 0; i < d->n_series; i++)
		for (k = 0; k < d->series[i].n_lv; k++) {
			const struct plot_level *lv = &d->series[i].lv[k];
			const double *v = which ? lv->e2e : lv->ttft;
			size_t n = which ? lv->n_e2e : lv->n_ttft;

			if (!plot_cdf_drawn(lv))
				continue;
			if (v[0] > 0 && v[0] < lo)
				lo = v[0];
			if (v[n - 1] > hi)
				hi = v[n - 1];
		}
	if (hi > 0 && lo < INFINITY && hi / lo > 30) {
		fputs("set logscale x 10\nset xrange [*:*]\nset xtics autofreq\n", f);
	} else {
		fputs("unset logscale x\n", f);
		/* one value only (a deterministic server): around it, where
		 * autoscale would warn of an empty range */
		if (lo < INFINITY && round(hi * 1000) == round(lo * 1000)) {
			fprintf(f, "set xrange [%.3f:%.3f]\n", lo - (lo * 0.05 + 0.001),
				hi + hi * 0.05 + 0.001);
			plot_axis_tics(f, "x", lo - (lo * 0.05 + 0.001), hi + hi * 0.05 + 0.001);
		} else {
			fputs("set xrange [*:*]\n", f);
			plot_axis_tics(f, "x", lo, hi);
		}
	}
}

static void plot_cdf_panel(FILE *f, const struct plot_data *d, int which, const char *xlabel)
{
	size_t i, k, block = 0;
	int first = 1, dash;
	char name[64];

	plot_cdf_axis(f, d, which);
	fprintf(f, "set xlabel '%s'\n"
		"plot \\\n", xlabel);
	for (i = 0; i < d->n_series; i++) {
		dash = 1;
		for (k = 0; k < d->series[i].n_lv; k++) {
			const struct plot_level *lv = &d->series[i].lv[k];

			if (!plot_cdf_drawn(lv))
				continue;
			name[0] = ' ';
			plot_level_label(&d->series[i], lv->level, name + 1, sizeof(name) - 1);
			fprintf(f, "%s     'latency_cdf.dat' index %zu using 1:2 with steps "
				"lc %zu dt %d lw 1.5 title ", first ? "" : ", \\\n",
				2 * block + (size_t)which,
				d->n_series == 1 ? block + 1 : i + 1, dash);
			if (d->n_series == 1)
				plot_put_gp_string(f, name + 1);
			else
				plot_put_gp_title(f, "", d->series[i].label, name);
			first = 0;
			block++;
			dash = dash % 5 + 1;
		}
	}
	fputc('\n', f);
}

static void plot_cdf_gp(FILE *f, const struct plot_data *d)
{
	/* two panels side by side: the text width of a page */
	plot_preamble_sized(f, d, "latency_cdf", "TTFT and E2E distributions by level",
			    PLOT_PAGE_IN, PLOT_COLUMN_IN * 0.75);
	fputs("# One curve per level: the dash is the level, the colour the run (the\n"
	      "# level too when there is one run).\n"
	      "set multiplot layout 1,2 title 'Latency CDF by level (successful requests)'\n"
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
