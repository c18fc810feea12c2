/*
 * plot_rate.c - open-loop runs (--rate, a rate sweep, --timing trace, a
 * capture loaded as a run): latency against the offered rate, and the rate
 * achieved against the rate offered; see plot_figures.h.
 *
 * An open-loop level's latencies count from each request's scheduled time,
 * so a client or server that falls behind shows as latency, not as a
 * slower schedule; the fourth panel shows whether it fell behind: achieved
 * below offered.
 */
#include "analyze/plot_figures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/plot_script.h"

/* The metrics of the three latency panels, with their .dat columns. */
static const struct {
	enum plot_metric m;
	const char *ylabel;
} plot_rate_panels[] = {
	{ PLOT_TTFT, "TTFT (ms)" },
	{ PLOT_TPOT, "TPOT (ms)" },
	{ PLOT_E2E, "E2E (ms)" },
};

#define PLOT_RATE_PANELS (sizeof(plot_rate_panels) / sizeof(plot_rate_panels[0]))

/*
 * latency_by_rate.dat: per run with open-loop levels, a block of them in
 * order of offered rate: offered req/s, achieved req/s, then P50, P90, P99
 * of TTFT, TPOT and E2E (ms).
 */
static void plot_rate_dat(FILE *f, const struct plot_data *d)
{
	const struct level_summary **lv;
	size_t i, k, p, n;

	fputs("# latency_by_rate.dat - written by tracebench analyze plot.\n"
	      "# Per run with open-loop levels, a block in order of offered rate:\n"
	      "# offered req/s, achieved req/s, then P50, P90, P99 (ms) of TTFT, TPOT\n"
	      "# and E2E, counted from the schedule. '?' is missing.\n", f);
	for (i = 0; i < d->n_series; i++) {
		if (!(lv = plot_open_levels(&d->series[i], &n)))
			continue;
		fprintf(f, "# run %zu\n", i + 1);
		for (k = 0; k < n; k++) {
			fprintf(f, "%.4f", plot_offered_rps(lv[k]));
			plot_put_value(f, lv[k]->achieved_rps);
			for (p = 0; p < PLOT_RATE_PANELS; p++) {
				const struct stats_dist *s = plot_dist(lv[k], plot_rate_panels[p].m);

				plot_put_value(f, s->n ? s->p50 : NAN);
				plot_put_value(f, s->n ? s->p90 : NAN);
				plot_put_value(f, s->n ? s->p99 : NAN);
			}
			fputc('\n', f);
		}
		fputs("\n\n", f);
		free(lv);
	}
}

/* A log y axis when panel p's values span more than a decade and a half,
 * else a linear one from 0. */
static void plot_rate_axis(FILE *f, const struct plot_data *d, size_t p)
{
	const struct level_summary **lv;
	double lo = INFINITY, hi = 0;
	size_t i, k, n;

	for (i = 0; i < d->n_series; i++) {
		if (!(lv = plot_open_levels(&d->series[i], &n)))
			continue;
		for (k = 0; k < n; k++) {
			const struct stats_dist *s = plot_dist(lv[k], plot_rate_panels[p].m);

			if (s->n && s->p50 > 0 && s->p50 < lo)
				lo = s->p50;
			if (s->n && s->p99 > hi)
				hi = s->p99;
		}
		free(lv);
	}
	if (hi > 0 && lo < INFINITY && hi / lo > 30)
		fputs("set logscale y 10\nset yrange [*:*]\n", f);
	else
		fputs("unset logscale y\nset yrange [0:*]\n", f);
}

/* Has run s a value of panel p's metric at some open-loop level? */
static int plot_rate_has(const struct plot_series *s, size_t p)
{
	const struct level_summary **lv = plot_open_levels(s, &(size_t){ 0 });
	size_t k;
	int has = 0;

	for (k = 0; lv && lv[k]; k++)
		has |= plot_dist(lv[k], plot_rate_panels[p].m)->n > 0;
	free(lv);
	return has;
}

/* One latency panel: P50, P90, P99 of every run against the offered rate;
 * the key in the first panel only, where it says it for all three. A
 * panel without a value (TPOT of one-token answers) says so: gnuplot
 * refuses a plot with no point. */
static void plot_rate_panel(FILE *f, const struct plot_data *d, size_t p)
{
	static const char *const pct[] = { ": P50", ": P90", ": P99" };
	const struct level_summary **lv;
	size_t i, k, n, block = 0;
	int first = 1, any = 0;

	for (i = 0; i < d->n_series; i++)
		any |= plot_rate_has(&d->series[i], p);
	if (!any) {
		fprintf(f, "set ylabel '%s'\nunset logscale y\nset yrange [0:1]\nunset key\n"
			"set label 1 'no request had one' at graph 0.5, 0.5 center\n"
			"plot NaN notitle\nunset label 1\n", plot_rate_panels[p].ylabel);
		return;
	}
	plot_rate_axis(f, d, p);
	fprintf(f, "set ylabel '%s'\n%s\nplot \\\n", plot_rate_panels[p].ylabel,
		p == 0 ? "set key bottom right" : "unset key");
	for (i = 0; i < d->n_series; i++) {
		if (!(lv = plot_open_levels(&d->series[i], &n)))
			continue;
		free(lv);
		if (!plot_rate_has(&d->series[i], p)) {
			block++;
			continue;
		}
		for (k = 0; k < 3; k++) {
			fprintf(f, "%s     'latency_by_rate.dat' index %zu using 1:%zu with "
				"linespoints lc %zu dt %zu pt %zu title ", first ? "" : ", \\\n",
				block, 3 + 3 * p + k, i + 1, k + 1, 7 - 2 * k);
			plot_put_gp_title(f, "", d->series[i].label, pct[k]);
			first = 0;
		}
		block++;
	}
	fputc('\n', f);
}

/* The highest offered rate of any open-loop level, for a shared x axis
 * (1 when none is known). */
static double plot_rate_max(const struct plot_data *d)
{
	const struct level_summary **lv;
	double max = 0;
	size_t i, k, n;

	for (i = 0; i < d->n_series; i++) {
		if (!(lv = plot_open_levels(&d->series[i], &n)))
			continue;
		for (k = 0; k < n; k++)
			if (plot_offered_rps(lv[k]) > max)
				max = plot_offered_rps(lv[k]);
		free(lv);
	}
	return max > 0 ? max : 1;
}

static void plot_rate_gp(FILE *f, const struct plot_data *d)
{
	const struct level_summary **lv;
	size_t i, p, n, block = 0;
	int first = 1;

	/* four panels: the text width of a page, each panel a column's */
	plot_preamble_sized(f, d, "latency_by_rate", "open-loop latency against the offered rate",
			    PLOT_PAGE_IN, PLOT_COLUMN_IN * 1.5);
	fputs("# Latencies count from each request's scheduled time.\n", f);
	fputs("set multiplot layout 2,2 title ", f);
	if (d->n_series == 1)
		plot_put_gp_title(f, "Open loop: latency against the offered rate: ",
				  d->series[0].label, "");
	else
		plot_put_gp_string(f, "Open loop: latency against the offered rate");
	fprintf(f, "\nset xlabel 'offered rate (requests/s)'\n"
		"set xrange [0:%.4g]\n", plot_rate_max(d) * 1.1);
	fputs("set xtics autofreq\n"
	      "set offsets 0, graph 0.08, graph 0.1, 0\n"
	      "set grid\n"
	      "set datafile missing '?'\n", f);
	for (p = 0; p < PLOT_RATE_PANELS; p++)
		plot_rate_panel(f, d, p);
	fputs("unset logscale y\n"
	      "set key top left\n"
	      "set ylabel 'achieved rate (requests/s)'\n"
	      "set yrange [0:*]\n"
	      "plot \\\n", f);
	for (i = 0; i < d->n_series; i++) {
		if (!(lv = plot_open_levels(&d->series[i], &n)))
			continue;
		free(lv);
		fprintf(f, "%s     'latency_by_rate.dat' index %zu using 1:2 with linespoints "
			"lc %zu pt 7 title ", first ? "" : ", \\\n", block++, i + 1);
		plot_put_gp_title(f, "", d->series[i].label, ": achieved");
		first = 0;
	}
	fputs(", \\\n     x with lines lc rgb '#808080' dt 2 title 'achieved = offered'\n"
	      "unset multiplot\n", f);
}

const struct plot_figure plot_fig_rate = {
	"latency_by_rate", plot_rate_dat, plot_rate_gp, plot_has_open
};
