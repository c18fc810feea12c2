/*
 * plot_latency.c - each latency metric by concurrency: TTFT, TTFA, TPOT,
 * ITL and E2E, one figure each; see plot_figures.h.
 *
 * A figure draws, per run in its colour, the P50 as a line and the P90 to
 * P99 as a band around the tail, so a change of the median and a change of
 * the tail read apart; where a level was repeated, a bar from the lowest to
 * the highest P50 of its repeats, each summarized alone, shows how far one
 * repeat's answer lay from another's. The y axis is not pinned to 0: a
 * 0.5 ms difference in a 20 ms TTFT must show. It is logarithmic when the
 * values span more than a decade and a half.
 */
#include "analyze/plot_figures.h"

#include <math.h>
#include <stdio.h>

#include "analyze/plot_script.h"

/* What a metric's figure is called and says. */
struct plot_latency {
	enum plot_metric m;
	const char *what, *title, *ylabel;
};

static const struct plot_latency plot_latencies[PLOT_N_METRICS] = {
	{ PLOT_TTFT, "TTFT by concurrency",
	  "Time to first token by concurrency", "TTFT (ms)" },
	{ PLOT_TTFA, "TTFA by concurrency",
	  "Time to first answer token (after reasoning) by concurrency", "TTFA (ms)" },
	{ PLOT_TPOT, "TPOT by concurrency",
	  "Time per output token by concurrency", "TPOT (ms)" },
	{ PLOT_ITL, "ITL by concurrency",
	  "Inter-token latency (every gap) by concurrency", "ITL (ms)" },
	{ PLOT_E2E, "E2E by concurrency",
	  "End-to-end latency by concurrency", "E2E (ms)" },
};

/* Values per run in the .dat: P50, P90, P99, lowest and highest P50 of the repeats. */
#define PLOT_LAT_COLS 5

/* Does any level of any run have a repeat range for metric m? */
static int plot_latency_has_bars(const struct plot_data *d, enum plot_metric m)
{
	size_t i, k;

	for (i = 0; i < d->n_series; i++)
		for (k = 0; k < d->series[i].n_lv; k++)
			if (!isnan(d->series[i].lv[k].p50_min[m]))
				return 1;
	return 0;
}

static void plot_latency_dat(FILE *f, const struct plot_data *d, const struct plot_latency *p,
			     const char *name)
{
	size_t i, j;

	fprintf(f, "# %s.dat - written by tracebench analyze plot.\n"
		"# concurrency, then per run: %s P50, P90, P99, and the lowest and\n"
		"# highest P50 of its repeats (ms). '?' is missing.\n", name, p->ylabel);
	for (i = 0; i < d->n_levels; i++) {
		fprintf(f, "%d", d->levels[i]);
		for (j = 0; j < d->n_series; j++) {
			struct load c = load_closed(d->levels[i]);
			const struct level_summary *s = run_level(&d->series[j].run, c);
			const struct plot_level *x = plot_find_extra(&d->series[j], c);
			const struct stats_dist *dist = s ? plot_dist(s, p->m) : NULL;

			plot_put_value(f, dist && dist->n ? dist->p50 : NAN);
			plot_put_value(f, dist && dist->n ? dist->p90 : NAN);
			plot_put_value(f, dist && dist->n ? dist->p99 : NAN);
			plot_put_value(f, x ? x->p50_min[p->m] : NAN);
			plot_put_value(f, x ? x->p50_max[p->m] : NAN);
		}
		fputc('\n', f);
	}
}

/*
 * The y axis: logarithmic when the drawn values span more than a decade
 * and a half; around the value when every drawn value is the same (a
 * deterministic server), where gnuplot's autoscale would warn of an empty
 * range.
 */
static void plot_latency_axis(FILE *f, const struct plot_data *d, enum plot_metric m)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t i, k;

	for (i = 0; i < d->n_series; i++)
		for (k = 0; k < d->series[i].run.n_levels; k++) {
			const struct level_summary *s = &d->series[i].run.levels[k];
			const struct stats_dist *dist = plot_dist(s, m);
			const struct plot_level *x = plot_find_extra(&d->series[i], s->level);
			const double v[] = { dist->p50, dist->p90, dist->p99,
					     x ? x->p50_min[m] : NAN, x ? x->p50_max[m] : NAN };
			size_t j;

			if (s->level.kind != LOAD_CLOSED || !dist->n)
				continue;
			for (j = 0; j < sizeof(v) / sizeof(v[0]); j++) {
				/* as the .dat has them: 3 decimals */
				double r = round(v[j] * 1000) / 1000;

				if (isnan(r))
					continue;
				lo = r < lo ? r : lo;
				hi = r > hi ? r : hi;
			}
		}
	if (!(hi >= lo))
		return;
	if (lo > 0 && hi / lo > 30)
		fputs("set logscale y 10\n", f);
	else if (hi - lo < 1e-9)
		fprintf(f, "set yrange [%.3f:%.3f]\n", lo - (fabs(lo) * 0.05 + 0.001),
			hi + fabs(hi) * 0.05 + 0.001);
}

static void plot_latency_gp(FILE *f, const struct plot_data *d, const struct plot_latency *p,
			    const char *name)
{
	int bars = plot_latency_has_bars(d, p->m);
	size_t i, col, last = 0;

	plot_preamble(f, d, name, p->what, 2 * d->n_series);
	fputs("# Per run: P50 (line), P90 to P99 (band)", f);
	fputs(bars ? ", range of the repeats' P50s (bars).\n" : ".\n", f);
	plot_title(f, d, p->title);
	plot_level_axis(f, d);
	fprintf(f, "set ylabel '%s'\n"
		"set grid\n"
		"set key below\n"
		"set datafile missing '?'\n"
		"set style fill transparent solid 0.18 noborder\n", p->ylabel);
	plot_latency_axis(f, d, p->m);
	fputs("plot \\\n", f);
	for (i = 0; i < d->n_series; i++)
		if (plot_series_closed(&d->series[i]))
			last = i;
	for (i = 0; i < d->n_series; i++) {
		/* an open-loop run beside closed ones: no curve (its own figure
		 * is latency_by_rate) */
		if (!plot_series_closed(&d->series[i]))
			continue;
		col = 2 + PLOT_LAT_COLS * i;
		fprintf(f, "     '%s.dat' using 1:%zu:%zu with filledcurves lc %zu title ",
			name, col + 1, col + 2, i + 1);
		plot_put_gp_title(f, "", d->series[i].label, ": P90-P99");
		fprintf(f, ", \\\n     '%s.dat' using 1:%zu with linespoints lc %zu lw 2 pt 7 "
			"title ", name, col, i + 1);
		plot_put_gp_title(f, "", d->series[i].label, ": P50");
		if (bars)
			fprintf(f, ", \\\n     '%s.dat' using 1:%zu:%zu:%zu with yerrorbars lc %zu "
				"pt 7 notitle", name, col, col + 3, col + 4, i + 1);
		fputs(i == last ? "\n" : ", \\\n", f);
	}
}

/* Any concurrency level with a value of metric m? */
static int plot_latency_any(const struct plot_data *d, enum plot_metric m)
{
	size_t i, k;

	for (i = 0; i < d->n_series; i++)
		for (k = 0; k < d->series[i].run.n_levels; k++)
			if (d->series[i].run.levels[k].level.kind == LOAD_CLOSED &&
			    plot_dist(&d->series[i].run.levels[k], m)->n)
				return 1;
	return 0;
}

/*
 * TTFA is drawn only when some answer began after the first token (a
 * reasoning model): otherwise it is TTFT again.
 */
static int plot_ttfa_differs(const struct plot_data *d)
{
	size_t i, k;

	for (i = 0; i < d->n_series; i++)
		for (k = 0; k < d->series[i].run.n_levels; k++) {
			const struct level_summary *s = &d->series[i].run.levels[k];

			if (s->level.kind == LOAD_CLOSED && s->ttfa.n &&
			    s->ttfa.max > s->ttft.max + 1e-3)
				return 1;
		}
	return 0;
}

/* The three functions of the figure var of metric M, and var itself. */
#define PLOT_LATENCY_FIGURE(var, M, NAME)                                          \
	static void var##_dat(FILE *f, const struct plot_data *d)                  \
	{                                                                          \
		plot_latency_dat(f, d, &plot_latencies[M], NAME);                  \
	}                                                                          \
	static void var##_gp(FILE *f, const struct plot_data *d)                   \
	{                                                                          \
		plot_latency_gp(f, d, &plot_latencies[M], NAME);                   \
	}                                                                          \
	static int var##_wanted(const struct plot_data *d)                         \
	{                                                                          \
		return plot_latency_any(d, M) && ((M) != PLOT_TTFA || plot_ttfa_differs(d)); \
	}                                                                          \
	const struct plot_figure var = { NAME, var##_dat, var##_gp, var##_wanted }

PLOT_LATENCY_FIGURE(plot_fig_ttft, PLOT_TTFT, "latency_ttft");
PLOT_LATENCY_FIGURE(plot_fig_ttfa, PLOT_TTFA, "latency_ttfa");
PLOT_LATENCY_FIGURE(plot_fig_tpot, PLOT_TPOT, "latency_tpot");
PLOT_LATENCY_FIGURE(plot_fig_itl, PLOT_ITL, "latency_itl");
PLOT_LATENCY_FIGURE(plot_fig_e2e, PLOT_E2E, "latency_e2e");
