/*
 * plot_turns.c - TTFT by turn of the sessions; see plot_figures.h.
 */
#include "analyze/plot_figures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/plot_script.h"
#include "lib/stats.h"

/*
 * ttft_by_turn.dat: per turn index (1 = the first turn), per run: the TTFT
 * P50 and P95 of its successful measured turns of that index, all levels
 * together. Where a server's prefix cache shows: later turns resend the
 * conversation so far.
 */
static void plot_turns_dat(FILE *f, const struct plot_data *d)
{
	long t, max = plot_max_turn(d);
	size_t i;

	fputs("# ttft_by_turn.dat - written by tracebench analyze plot.\n"
	      "# turn (1 = first), then per run: TTFT P50, P95 (ms) of the turns of that\n"
	      "# index. '?' is missing.\n", f);
	for (t = 0; t < max; t++) {
		fprintf(f, "%ld", t + 1);
		for (i = 0; i < d->n_series; i++) {
			const struct plot_series *s = &d->series[i];
			size_t a = 0, b;
			double p50 = NAN, p95 = NAN;

			while (a < s->n_turns && s->turns[a].turn < t)
				a++;
			for (b = a; b < s->n_turns && s->turns[b].turn == t; b++)
				;
			if (b > a) {
				double *v = malloc((b - a) * sizeof(*v));
				size_t k;

				for (k = 0; v && k < b - a; k++)
					v[k] = s->turns[a + k].ttft_ms;
				if (v) {
					p50 = stats_percentile(v, b - a, 50);
					p95 = stats_percentile(v, b - a, 95);
				}
				free(v);
			}
			plot_put_value(f, p50);
			plot_put_value(f, p95);
		}
		fputc('\n', f);
	}
}

static void plot_turns_gp(FILE *f, const struct plot_data *d)
{
	static const char *const names[] = { ": P50", ": P95" };
	size_t i, k;

	plot_preamble(f, d, "ttft_by_turn", "TTFT by turn index of the sessions", 2 * d->n_series);
	plot_title(f, d, "TTFT by turn of the session");
	fprintf(f, "set xlabel 'turn of the session'\n"
		"set xtics 1\n"
		"set xrange [0.5:%ld.5]\n"
		"set ylabel 'TTFT (ms)'\n"
		"set yrange [0:*]\n"
		"set grid\n"
		"set key below\n"
		"set datafile missing '?'\n"
		"plot \\\n", plot_max_turn(d));
	for (i = 0; i < d->n_series; i++) {
		for (k = 0; k < 2; k++) {
			fprintf(f, "     'ttft_by_turn.dat' using 1:%zu with linespoints "
				"lc %zu pt %zu dt %zu title ", 2 + 2 * i + k, i + 1, 5 + 2 * k, k + 1);
			plot_put_gp_title(f, "", d->series[i].label, names[k]);
			fputs(i + 1 == d->n_series && k == 1 ? "\n" : ", \\\n", f);
		}
	}
}

static int plot_turns_wanted(const struct plot_data *d)
{
	return plot_max_turn(d) > 0;
}

const struct plot_figure plot_fig_turns = {
	"ttft_by_turn", plot_turns_dat, plot_turns_gp, plot_turns_wanted
};
