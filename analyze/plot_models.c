/*
 * plot_models.c - a run of replay --model-mix by model: the P50 TTFT and
 * P50 TPOT of each model's requests by concurrency, the numbers of the
 * report's table per model; see plot_figures.h.
 *
 * The models share one server and one load: the sweep's own figures draw
 * the load the server saw, this one how each model (a LoRA adapter, say)
 * fared under it. TTFT is drawn on the left axis (solid), TPOT on the
 * right (dashed), a colour per model of a run.
 */
#include "analyze/plot_figures.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze/plot_script.h"

/* The row of model m at concurrency c in s, or NULL. */
static const struct report_model_row *model_row(const struct plot_series *s,
						const struct db_model *m, int c)
{
	size_t k;

	for (k = 0; k < s->n_model_rows; k++)
		if (load_same(s->model_rows[k].s.level, load_closed(c)) &&
		    s->model_rows[k].model == m->name)
			return &s->model_rows[k];
	return NULL;
}

/* Curves drawn: one per model of each run of several. */
static size_t model_curves(const struct plot_data *d)
{
	size_t i, n = 0;

	for (i = 0; i < d->n_series; i++)
		n += d->series[i].n_model_rows ? d->series[i].n_models : 0;
	return n;
}

static void plot_models_dat(FILE *f, const struct plot_data *d)
{
	size_t i, j, m;

	fputs("# latency_by_model.dat - written by tracebench analyze plot.\n"
	      "# concurrency, then per run of several models (replay --model-mix), per\n"
	      "# model: its requests' TTFT P50 and TPOT P50 (ms). '?' is missing.\n", f);
	for (i = 0; i < d->n_series; i++)
		for (m = 0; d->series[i].n_model_rows && m < d->series[i].n_models; m++)
			fprintf(f, "# run '%s', model '%s'\n", d->series[i].label,
				d->series[i].models[m].name);
	for (j = 0; j < d->n_levels; j++) {
		fprintf(f, "%d", d->levels[j]);
		for (i = 0; i < d->n_series; i++) {
			const struct plot_series *s = &d->series[i];

			for (m = 0; s->n_model_rows && m < s->n_models; m++) {
				const struct report_model_row *r = model_row(s, &s->models[m],
									     d->levels[j]);

				plot_put_value(f, r && r->s.ttft.n ? r->s.ttft.p50 : NAN);
				plot_put_value(f, r && r->s.tpot.n ? r->s.tpot.p50 : NAN);
			}
		}
		fputc('\n', f);
	}
}

static void plot_models_gp(FILE *f, const struct plot_data *d)
{
	size_t i, m, col = 2, c = 0, n = model_curves(d);
	char suffix[160];

	plot_preamble(f, d, "latency_by_model", "TTFT and TPOT by model", 2 * n);
	fputs("# Per model of a run: P50 TTFT (solid, left axis), P50 TPOT (dashed, right axis).\n",
	      f);
	plot_title(f, d, "Latency by model");
	plot_level_axis(f, d);
	fputs("set ylabel 'P50 TTFT (ms), solid'\n"
	      "set y2label 'P50 TPOT (ms), dashed'\n"
	      "set yrange [0:*]\n"
	      "set y2range [0:*]\n"
	      "set ytics nomirror\n"
	      "set y2tics\n"
	      "set grid\n"
	      "set key below\n"
	      "set datafile missing '?'\n"
	      "plot \\\n", f);
	for (i = 0; i < d->n_series; i++) {
		const struct plot_series *s = &d->series[i];

		for (m = 0; s->n_model_rows && m < s->n_models; m++, col += 2) {
			c++;
			snprintf(suffix, sizeof(suffix), ": %s TTFT", s->models[m].name);
			fprintf(f, "     'latency_by_model.dat' using 1:%zu with linespoints lc %zu "
				"lw 2 pt 7 dt 1 title ", col, c);
			plot_put_gp_title(f, "", s->label, suffix);
			snprintf(suffix, sizeof(suffix), ": %s TPOT", s->models[m].name);
			fprintf(f, ", \\\n     'latency_by_model.dat' using 1:%zu axes x1y2 with "
				"linespoints lc %zu lw 2 pt 5 dt 2 title ", col + 1, c);
			plot_put_gp_title(f, "", s->label, suffix);
			fputs(c == n ? "\n" : ", \\\n", f);
		}
	}
}

const struct plot_figure plot_fig_models = {
	"latency_by_model", plot_models_dat, plot_models_gp, plot_has_models
};
