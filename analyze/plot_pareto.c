/*
 * plot_pareto.c - throughput against interactivity: aggregate tok/s
 * against the tok/s each user sees, one point per concurrency; see
 * plot_figures.h.
 *
 * The view engine changes are usually argued in: more users at once buys
 * aggregate throughput with each user's speed, and a better engine moves
 * the whole curve up and right. With --gpus N the aggregate is per GPU, as
 * such figures are usually given. Each point is labelled with its C.
 */
#include "analyze/plot_figures.h"

#include <math.h>
#include <stdio.h>

#include "analyze/plot_script.h"

/* Is level l a point: both speeds known? (Another tool's file without
 * start times has no aggregate rate.) */
static int plot_pareto_point(const struct level_summary *l)
{
	return l && l->ok && isfinite(l->per_req_tps) && isfinite(l->agg_tps);
}

/* Does s have a point? gnuplot refuses a curve without one. */
static int plot_pareto_drawn(const struct plot_data *d, const struct plot_series *s)
{
	size_t k;

	for (k = 0; k < d->n_levels; k++)
		if (plot_pareto_point(run_level(&s->run, load_closed(d->levels[k]))))
			return 1;
	return 0;
}

/*
 * pareto.dat: per run with concurrency levels, a block of them in order of
 * C: per-user tok/s (the mean decoding speed of a request), aggregate tok/s
 * (per GPU with --gpus), C, output tokens per joule and the cost per
 * million output tokens (analyze/efficiency.h; '?' where the run scraped
 * no energy counter or has no price), for a user to plot against either.
 */
static void plot_pareto_dat(FILE *f, const struct plot_data *d)
{
	size_t i, k;

	fprintf(f, "# pareto.dat - written by tracebench analyze plot.\n"
		"# Per run, a block of its levels in order of concurrency: tok/s per user,\n"
		"# aggregate tok/s%s, concurrency, output tokens per joule, cost per\n"
		"# million output tokens. '?' is missing.\n",
		d->gpus > 1 ? " per GPU" : "");
	for (i = 0; i < d->n_series; i++) {
		const struct plot_series *s = &d->series[i];

		if (!plot_pareto_drawn(d, s))
			continue;
		fprintf(f, "# run %zu\n", i + 1);
		for (k = 0; k < d->n_levels; k++) {
			const struct level_summary *l = run_level(&s->run,
								  load_closed(d->levels[k]));

			if (!plot_pareto_point(l))
				continue;
			plot_put_value(f, l->per_req_tps);
			plot_put_value(f, l->agg_tps / d->gpus);
			fprintf(f, " %d", l->level.concurrency);
			plot_put_value(f, l->tokens_per_joule);
			plot_put_value(f, l->cost_per_m_out);
			fputc('\n', f);
		}
		fputs("\n\n", f);
	}
}

static void plot_pareto_gp(FILE *f, const struct plot_data *d)
{
	size_t i, block = 0, last = 0;

	for (i = 0; i < d->n_series; i++)
		if (plot_pareto_drawn(d, &d->series[i]))
			last = i;
	plot_preamble(f, d, "pareto", "aggregate throughput against per-user speed", d->n_series);
	fputs("# Up and to the right is better; each point is a concurrency.\n", f);
	plot_title(f, d, "Throughput against interactivity");
	/* the right offset: room for the last point's "C=NNN" label inside the frame */
	fprintf(f, "set xlabel 'tok/s per user (decoding speed of one request)'\n"
		"set ylabel 'aggregate tok/s%s'\n"
		"set xrange [0:*]\n"
		"set yrange [0:*]\n"
		"set offsets graph 0.05, graph 0.15, graph 0.1, 0\n"
		"set grid\n"
		"set key below\n"
		"set datafile missing '?'\n"
		"plot \\\n", d->gpus > 1 ? " per GPU" : "");
	for (i = 0; i < d->n_series; i++) {
		if (!plot_pareto_drawn(d, &d->series[i]))
			continue;
		fprintf(f, "     'pareto.dat' index %zu using 1:2 with linespoints lc %zu pt 7 "
			"lw 2 title ", block, i + 1);
		if (d->gpus > 1) {
			char what[48];

			snprintf(what, sizeof(what), " (%d GPUs)", d->gpus);
			plot_put_gp_title(f, "", d->series[i].label, what);
		} else {
			plot_put_gp_title(f, "", d->series[i].label, "");
		}
		fprintf(f, ", \\\n     'pareto.dat' index %zu using 1:2:(sprintf('C=%%d', $3)) "
			"with labels offset 0.6,0.6 left tc lt %zu notitle%s", block++, i + 1,
			i == last ? "\n" : ", \\\n");
	}
}

static int plot_pareto_wanted(const struct plot_data *d)
{
	size_t i;

	for (i = 0; i < d->n_series; i++)
		if (plot_pareto_drawn(d, &d->series[i]))
			return 1;
	return 0;
}

const struct plot_figure plot_fig_pareto = {
	"pareto", plot_pareto_dat, plot_pareto_gp, plot_pareto_wanted
};
