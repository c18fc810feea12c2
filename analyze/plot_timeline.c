/*
 * plot_timeline.c - TTFT over the run, with the server's queue under it; see plot_figures.h.
 */
#include "analyze/plot_figures.h"

#include <math.h>
#include <stdio.h>

#include "analyze/plot_script.h"

/*
 * ttft_timeline.dat: per run, a block of measured requests then a block of
 * warm-ups, each only when not empty; rows 'seconds ttft-ms'. Then, per run
 * with scrapes, a block 'seconds running waiting kv-use-%' ('?' where
 * the server reports none).
 */
static void plot_timeline_dat(FILE *f, const struct plot_data *d)
{
	size_t i, k;
	int w;

	fputs("# ttft_timeline.dat - written by tracebench analyze plot.\n"
	      "# Per run: measured requests, then warm-ups (each block only when not\n"
	      "# empty), rows 'send time (s from run start) TTFT (ms)'.\n", f);
	for (i = 0; i < d->n_series; i++) {
		const struct plot_series *s = &d->series[i];

		for (w = 0; w < 2; w++) {
			size_t n = 0;

			for (k = 0; k < s->n_pts; k++) {
				if (s->pts[k].warmup != w)
					continue;
				fprintf(f, "%.6f %.3f\n", s->pts[k].t_s, s->pts[k].ttft_ms);
				n++;
			}
			if (n)
				fputs("\n\n", f);
		}
	}
	for (i = 0; i < d->n_series; i++) {
		const struct plot_series *s = &d->series[i];

		if (!s->n_srv)
			continue;
		fprintf(f, "# server metrics of run %zu: s, running, waiting, KV-cache use %%\n", i + 1);
		for (k = 0; k < s->n_srv; k++) {
			fprintf(f, "%.6f", s->srv[k].t_s);
			plot_put_value(f, s->srv[k].running);
			plot_put_value(f, s->srv[k].waiting);
			plot_put_value(f, s->srv[k].kv_usage * 100);
			fputc('\n', f);
		}
		fputs("\n\n", f);
	}
}

/* The last instant either panel shows, and the most requests the lower
 * one does: the two panels share their time axis. */
static void plot_timeline_extent(const struct plot_data *d, double *t_max, double *req_max)
{
	size_t i, k;

	*t_max = 0;
	*req_max = 1;
	for (i = 0; i < d->n_series; i++) {
		const struct plot_series *s = &d->series[i];

		for (k = 0; k < s->n_pts; k++)
			*t_max = s->pts[k].t_s > *t_max ? s->pts[k].t_s : *t_max;
		for (k = 0; k < s->n_srv; k++) {
			*t_max = s->srv[k].t_s > *t_max ? s->srv[k].t_s : *t_max;
			if (s->srv[k].running > *req_max)
				*req_max = s->srv[k].running;
			if (s->srv[k].waiting > *req_max)
				*req_max = s->srv[k].waiting;
		}
	}
}

/* The lower panel: requests running and waiting and the KV-cache use, as
 * the server reported them, on the TTFT panel's time axis. */
static void plot_timeline_server(FILE *f, const struct plot_data *d, size_t block)
{
	double t_max, req_max;
	size_t i;
	int first = 1;

	plot_timeline_extent(d, &t_max, &req_max);
	fprintf(f, "set title 'server: requests (left), KV-cache use (right)'\n"
		"set ylabel 'requests'\n"
		"unset logscale y\n"
		"set yrange [0:%.0f]\n", ceil(req_max * 1.15 + 0.5));
	fputs("set y2label 'KV-cache use (%)'\n"
	      "set y2range [0:100]\n"
	      "set y2tics\n"
	      "set ytics nomirror\n"
	      "plot \\\n", f);
	for (i = 0; i < d->n_series; i++) {
		const struct plot_series *s = &d->series[i];
		const char *what[] = { ": running", ": waiting", ": KV use" };
		int c;

		if (!s->n_srv)
			continue;
		for (c = 0; c < 3; c++) {
			fprintf(f, "%s     'ttft_timeline.dat' index %zu using 1:%d %swith steps "
				"lc %zu dt %d title ", first ? "" : ", \\\n", block, c + 2,
				c == 2 ? "axes x1y2 " : "", i + 1, c + 1);
			plot_put_gp_title(f, "", s->label, what[c]);
			first = 0;
		}
		block++;
	}
	fputc('\n', f);
}

/*
 * Where each level of each run begins (its first send, warm-ups included):
 * a dotted line in the run's colour, named at the top, so queueing that
 * grows level by level reads as such. A run of one level has none.
 */
static void plot_timeline_levels(FILE *f, const struct plot_data *d)
{
	size_t i, k;
	char name[64];

	for (i = 0; i < d->n_series; i++) {
		const struct plot_series *s = &d->series[i];

		if (s->n_lv < 2)
			continue;
		for (k = 0; k < s->n_lv; k++) {
			double t = s->lv[k].t_start_s;

			if (isnan(t))
				continue;
			fprintf(f, "set arrow from %.6f, graph 0 to %.6f, graph 1 nohead lc %zu "
				"dt 3\nset label ", t, t, i + 1);
			plot_put_gp_string(f, plot_level_label(s, s->lv[k].level, name,
								sizeof(name)));
			fprintf(f, " at %.6f, graph %.2f left offset 0.3,0 tc lt %zu front\n", t,
				0.96 - 0.05 * (double)(i % 4), i + 1);
		}
	}
}

static void plot_timeline_gp(FILE *f, const struct plot_data *d)
{
	size_t i, k, block = 0;
	int w, first = 1;

	/* with the server's panel under it, twice as high */
	plot_preamble_sized(f, d, "ttft_timeline", "TTFT of each request over the run",
			    PLOT_COLUMN_IN, plot_keyed_height(2 * d->n_series) +
					    (plot_has_server(d) ? PLOT_COLUMN_IN * 0.75 : 0));
	fputs("# Shows the cold start (warm-ups, hollow) and queueing over time;\n"
	      "# dotted lines mark where each level begins.\n", f);
	if (plot_has_server(d)) {
		double t_max, req_max;

		plot_timeline_extent(d, &t_max, &req_max);
		fprintf(f, "# Under it, the server's own queue and KV-cache use (--metrics-url).\n"
			"set multiplot layout 2,1\n"
			"set lmargin 10\n"
			"set rmargin 10\n"
			"set xrange [0:%.3f]\n", t_max * 1.02 + 0.001);
	}
	plot_title(f, d, "TTFT over the run");
	plot_timeline_levels(f, d);
	fputs("set xlabel 'send time (s from the start of the run)'\n"
	      "set ylabel 'TTFT (ms)'\n"
	      "set logscale y\n"
	      "set grid\n"
	      "set key below\n"
	      "plot \\\n", f);
	for (i = 0; i < d->n_series; i++) {
		const struct plot_series *s = &d->series[i];

		for (w = 0; w < 2; w++) {
			size_t n = 0;

			for (k = 0; k < s->n_pts; k++)
				n += s->pts[k].warmup == w;
			if (!n)
				continue;
			fprintf(f, "%s     'ttft_timeline.dat' index %zu using 1:2 with points "
				"lc %zu pt %d title ", first ? "" : ", \\\n", block++, i + 1,
				w ? 6 : 7);
			plot_put_gp_title(f, "", s->label, w ? ": warm-up" : "");
			first = 0;
		}
	}
	fputc('\n', f);
	if (plot_has_server(d)) {
		plot_timeline_server(f, d, block);
		fputs("unset multiplot\n", f);
	}
}

const struct plot_figure plot_fig_timeline = {
	"ttft_timeline", plot_timeline_dat, plot_timeline_gp, plot_has_requests
};
