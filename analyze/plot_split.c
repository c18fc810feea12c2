/*
 * plot_split.c - where the time went, by level: a stacked bar per level of
 * the median queue, prefill, rest of TTFT, decode and rest of E2E, from
 * the server's own per-request timings (lib/attribution.h); see
 * plot_figures.h.
 *
 * The bar's lower three parts are the TTFT's split, the upper two the rest
 * of the request (the server's decode, and what the rest of E2E adds to
 * the rest of TTFT); each part is the median of that span over the level's
 * requests, so a bar's height is near, not equal to, the median E2E. A
 * growing queue under load, or a rest the server does not account for,
 * reads at a glance. Runs stand side by side, a block of bars each, named
 * above it. Only runs whose server sent its timings are drawn.
 */
#include "analyze/plot_figures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/plot_script.h"
#include "lib/attribution.h"
#include "lib/metric.h"

#define SPLIT_PARTS 5

/* The parts of a stack, bottom up: name and colour (the Okabe-Ito
 * palette's blue, orange, grey for the client's share, green, light grey). */
static const struct {
	const char *name, *rgb;
} plot_split_parts[SPLIT_PARTS] = {
	{ "server queue", "#0072B2" },
	{ "server prefill", "#E69F00" },
	/* (sending, the network, the client, a queue the server does not
	 * report: README's "Where the time went"; a longer name would not
	 * fit a column's key) */
	{ "rest of TTFT", "#555555" },
	{ "server decode", "#009E73" },
	{ "rest after the first token", "#BBBBBB" },
};

/* The median of each part of l's requests, 0 for a part not reported. The
 * rest of E2E holds the rest of TTFT: the top part is what it adds. */
static void plot_split_values(const struct level_summary *l, double v[SPLIT_PARTS])
{
	const struct stats_dist *d[SPLIT_PARTS] = { &l->att.queue, &l->att.prefill,
						     &l->att.rest_ttft, &l->att.decode,
						     &l->att.rest_e2e };
	size_t p;

	for (p = 0; p < SPLIT_PARTS; p++)
		v[p] = d[p]->n && d[p]->p50 > 0 ? d[p]->p50 : 0;
	v[4] = v[4] > v[2] ? v[4] - v[2] : 0;
}

static int plot_split_drawn(const struct plot_series *s)
{
	size_t k;

	for (k = 0; k < s->run.n_levels; k++)
		if (s->run.levels[k].att.n)
			return 1;
	return 0;
}

/* A bar: a level of a run, at x. */
struct plot_split_bar {
	const struct level_summary *l;
	size_t run, x;
};

/*
 * The bars of d, in order of x: per run whose server sent timings, a block
 * of its levels that have them, in the run's order, one x apart, a gap of
 * one between blocks. The caller frees them; NULL with *n 0 when none or
 * out of memory.
 */
static struct plot_split_bar *plot_split_bars(const struct plot_data *d, size_t *n)
{
	struct plot_split_bar *b;
	size_t i, k, total = 0, x = 0;

	*n = 0;
	for (i = 0; i < d->n_series; i++)
		total += d->series[i].run.n_levels;
	if (!total || !(b = calloc(total, sizeof(*b))))
		return NULL;
	for (i = 0; i < d->n_series; i++) {
		if (!plot_split_drawn(&d->series[i]))
			continue;
		for (k = 0; k < d->series[i].run.n_levels; k++) {
			if (!d->series[i].run.levels[k].att.n)
				continue;
			b[*n].l = &d->series[i].run.levels[k];
			b[*n].run = i;
			b[(*n)++].x = ++x;
		}
		x++;
	}
	return b;
}

/*
 * time_split.dat: a row per bar: its x position, then the top of each part
 * stacked (queue; + prefill; + rest of TTFT; + decode; + rest of E2E), ms.
 */
static void plot_split_dat(FILE *f, const struct plot_data *d)
{
	size_t n, j, p;
	struct plot_split_bar *b = plot_split_bars(d, &n);

	fprintf(f, "# time_split.dat - written by tracebench analyze plot.\n"
		"# A row per level with the server's timings: x, then the medians of queue,\n"
		"# prefill, rest of TTFT, decode and rest of E2E stacked (each the sum of\n"
		"# those below it and itself), ms.\n");
	for (j = 0; j < n; j++) {
		double v[SPLIT_PARTS], top = 0;

		plot_split_values(b[j].l, v);
		fprintf(f, "%zu", b[j].x);
		for (p = 0; p < SPLIT_PARTS; p++) {
			top += v[p];
			plot_put_value(f, top);
		}
		fputc('\n', f);
	}
	free(b);
}

static void plot_split_gp(FILE *f, const struct plot_data *d)
{
	size_t n, j, p;
	struct plot_split_bar *b = plot_split_bars(d, &n);
	char name[48];

	plot_preamble(f, d, "time_split", "where the time went, by level", SPLIT_PARTS);
	fputs("# Each part is the median of that span over the level's requests.\n", f);
	plot_title(f, d, "Where the time went (server timings)");
	fputs("set ylabel 'ms (median of each part)'\n"
	      "set yrange [0:*]\n"
	      "set style fill solid 0.9 border rgb '#FFFFFF'\n"
	      "set boxwidth 0.8\n"
	      "set grid ytics\n"
	      "set key below\n"
	      "set datafile missing '?'\n"
	      "set xtics nomirror (", f);
	for (j = 0; j < n; j++) {
		fputs(j ? ", " : "", f);
		plot_put_gp_string(f, load_name(plot_load(b[j].l), name, sizeof(name)));
		fprintf(f, " %zu", b[j].x);
	}
	fprintf(f, ")\nset xrange [0.3:%.1f]\n", n ? (double)b[n - 1].x + 0.7 : 1.0);
	/* each run's name above its block of bars, where there are several */
	for (j = 0; d->n_series > 1 && j < n; j++) {
		size_t last = j;

		while (last + 1 < n && b[last + 1].run == b[j].run)
			last++;
		fputs("set label ", f);
		plot_put_gp_title(f, "", d->series[b[j].run].label, "");
		fprintf(f, " at first %.1f, graph 1.03 center\n",
			((double)b[j].x + (double)b[last].x) / 2);
		j = last;
	}
	/* the tallest first, so each shorter stack paints its part over it */
	fputs("plot \\\n", f);
	for (p = SPLIT_PARTS; p-- > 0;)
		fprintf(f, "     'time_split.dat' using 1:%zu with boxes lc rgb '%s' title '%s'%s",
			p + 2, plot_split_parts[p].rgb, plot_split_parts[p].name,
			p ? ", \\\n" : "\n");
	free(b);
}

static int plot_split_wanted(const struct plot_data *d)
{
	size_t i;

	for (i = 0; i < d->n_series; i++)
		if (plot_split_drawn(&d->series[i]))
			return 1;
	return 0;
}

const struct plot_figure plot_fig_time_split = {
	"time_split", plot_split_dat, plot_split_gp, plot_split_wanted
};
