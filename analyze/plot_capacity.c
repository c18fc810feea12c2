/*
 * plot_capacity.c - the load curve of a capacity search; see plot_figures.h.
 */
#include "analyze/plot_figures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/plot_script.h"

/* A level's achieved request rate: its requests over its wall time. */
static double plot_level_rps(const struct level_summary *s)
{
	return s->wall_s > 0 ? (double)s->requests / s->wall_s : NAN;
}

/* The levels of series s in order of load (the caller frees it), or NULL;
 * *n set to their number (levels of other kinds left out). */
static const struct level_summary **plot_curve_levels(const struct plot_series *s, size_t *n)
{
	const struct level_summary **v = calloc(s->run.n_levels + 1,
						sizeof(const struct level_summary *));
	size_t i, j;

	*n = 0;
	for (i = 0; v && i < s->run.n_levels; i++) {
		double x = report_level_load(&s->cap, &s->run.levels[i]);

		if (isnan(x))
			continue;
		/* insertion: a search has tens of levels */
		for (j = (*n)++; j > 0 && report_level_load(&s->cap, v[j - 1]) > x; j--)
			v[j] = v[j - 1];
		v[j] = &s->run.levels[i];
	}
	return v;
}

/* The verdict on level l of series s, as analyze report gives it (the
 * requests replay --cancel chose judged neither way). */
static enum capacity_verdict plot_verdict(const struct plot_series *s,
					  const struct level_summary *l)
{
	double lo, hi;

	return capacity_judge(&s->cap, report_level_load(&s->cap, l), (long)l->good,
			      (long)(l->requests - l->cancelled - l->cancel_ended), &lo, &hi);
}

/*
 * load_curve.dat: per capacity run, a block of its levels in order of load,
 * rows 'achieved req/s, P50 TTFT, P99 TTFT, P99 E2E (ms), load (C or
 * offered req/s), verdict, P99 TPOT, P99 TTFT' (verdict 1: meets the SLO,
 * 0: does not or is undecided), judged as analyze report judges them.
 */
static void plot_curve_dat(FILE *f, const struct plot_data *d)
{
	size_t i, k, n;

	fputs("# load_curve.dat - written by tracebench analyze plot.\n"
	      "# Per run of replay --find-capacity: achieved req/s, P50 TTFT, P99 TTFT,\n"
	      "# P99 E2E (ms), C or offered req/s, meets the SLO (1) or not (0),\n"
	      "# P99 TPOT, P99 TTFA (ms).\n", f);
	for (i = 0; i < d->n_series; i++) {
		const struct plot_series *s = &d->series[i];
		const struct level_summary **lv;

		if (!s->is_cap || !s->run.n_levels)
			continue;
		lv = plot_curve_levels(s, &n);
		for (k = 0; lv && k < n; k++) {
			fprintf(f, "%.4f", plot_level_rps(lv[k]));
			plot_put_value(f, lv[k]->ttft.p50);
			plot_put_value(f, lv[k]->ttft.p99);
			plot_put_value(f, lv[k]->e2e.p99);
			fprintf(f, " %.6g %d", report_level_load(&s->cap, lv[k]),
				plot_verdict(s, lv[k]) == CAPACITY_PASS);
			plot_put_value(f, lv[k]->tpot.p99);
			plot_put_value(f, lv[k]->ttfa.p99);
			fputc('\n', f);
		}
		free(lv);
		fputs("\n\n", f);
	}
}

/*
 * The bracket of s's search: *pass its highest level meeting the SLO (the
 * capacity), *fail its lowest level that does not; either NULL when there
 * is none.
 */
static void plot_bracket(const struct plot_series *s, const struct level_summary **pass,
			 const struct level_summary **fail)
{
	const struct level_summary *l;
	size_t k;
	double x;

	*pass = *fail = NULL;
	for (k = 0; k < s->run.n_levels; k++) {
		l = &s->run.levels[k];
		x = report_level_load(&s->cap, l);
		if (isnan(x))
			continue;
		if (plot_verdict(s, l) == CAPACITY_PASS) {
			if (!*pass || x > report_level_load(&s->cap, *pass))
				*pass = l;
		} else if (!*fail || x < report_level_load(&s->cap, *fail)) {
			*fail = l;
		}
	}
}

/* The percentile of d the SLO's share judges: a level passes when about
 * that share of its requests is within the limit. */
static double plot_at_share(const struct stats_dist *d, double share)
{
	if (share >= 0.99)
		return d->p99;
	if (share >= 0.95)
		return d->p95;
	return share >= 0.9 ? d->p90 : d->p50;
}

/* The stats_dist of limit k (TTFT, E2E, TPOT, TTFA) in l. */
static const struct stats_dist *plot_limit_dist(const struct level_summary *l, size_t k)
{
	const struct stats_dist *d[] = { &l->ttft, &l->e2e, &l->tpot, &l->ttfa };

	return d[k];
}

/*
 * Did limit k fail the search: is it exceeded (the level's percentile at
 * the SLO's share above it) at some level above the capacity that does
 * not meet the SLO? Any such level, not only the lowest: the search ends
 * where the verdict is close, so the lowest failing level is often
 * undecided, while the levels probed beyond it show plainly which limit
 * the load broke.
 */
static int plot_limit_failed(const struct plot_series *s, size_t k, double limit)
{
	const struct level_summary *pass, *fail;
	double cap, x;
	size_t j;

	plot_bracket(s, &pass, &fail);
	cap = pass ? report_level_load(&s->cap, pass) : -INFINITY;

	for (j = 0; j < s->run.n_levels; j++) {
		const struct level_summary *l = &s->run.levels[j];
		const struct stats_dist *d = plot_limit_dist(l, k);

		x = report_level_load(&s->cap, l);
		if (isnan(x) || x <= cap || plot_verdict(s, l) == CAPACITY_PASS || !d->n)
			continue;
		if (plot_at_share(d, s->cap.share) > limit)
			return 1;
	}
	return 0;
}

/*
 * Every limit of the SLO: TTFT and E2E against their curves, and TPOT and
 * TTFA each with a P99 curve of its own; a limit that failed the search
 * (plot_limit_failed) is drawn thick and named so.
 */
static void plot_curve_limits(FILE *f, const struct plot_series *s, size_t i, size_t block)
{
	static const char *const names[] = { "TTFT", "E2E", "TPOT", "TTFA" };
	static const int cols[] = { 0, 0, 8, 9 };   /* the P99 curve of its own, 0: none */
	const double limits[] = { s->slo.ttft_ms, s->slo.e2e_ms, s->slo.tpot_ms, s->slo.ttfa_ms };
	size_t k;

	for (k = 0; k < 4; k++) {
		int failed;

		if (!(limits[k] > 0))
			continue;
		failed = plot_limit_failed(s, k, limits[k]);
		if (cols[k]) {
			fprintf(f, ", \\\n     'load_curve.dat' index %zu using 1:%d with linespoints "
				"lc %zu dt %zu pt %zu title ", block, cols[k], i + 1, k + 2, k + 2);
			plot_put_gp_title(f, "", s->label, k == 2 ? ": P99 TPOT" : ": P99 TTFA");
		}
		fprintf(f, ", \\\n     %.3f with lines lc %zu dt %zu lw %d title 'SLO %s %g ms%s'",
			limits[k], i + 1, k + 4, failed ? 3 : 1, names[k], limits[k],
			failed ? " (exceeded where the search failed)" : "");
	}
}

/*
 * load_curve.gp: latency percentiles against the achieved rate, the SLO's
 * TTFT and E2E limits as lines, the highest level meeting it (the
 * capacity) as a vertical line, the lowest failing one dashed.
 */
static void plot_curve_gp(FILE *f, const struct plot_data *d)
{
	size_t i, block = 0;
	int first = 1, marks = 0;

	plot_preamble(f, d, "load_curve", "latency against achieved load, capacity marked",
		      4 * d->n_series + 4);
	plot_title(f, d, "Load curve (--find-capacity)");
	fputs("set xlabel 'achieved load (requests/s)'\n"
	      "set ylabel 'latency (ms)'\n"
	      "set logscale y\n"
	      "set grid\n"
	      "set key below\n", f);
	for (i = 0; i < d->n_series; i++) {
		const struct plot_series *s = &d->series[i];
		const struct level_summary *pass, *fail;
		char name[48];

		if (!s->is_cap)
			continue;
		plot_bracket(s, &pass, &fail);
		if (pass && !isnan(plot_level_rps(pass))) {
			marks++;
			fprintf(f, "set arrow %d from %.4f, graph 0 to %.4f, graph 1 nohead lc %zu lw 2\n"
				"set label %d 'capacity %s' at %.4f, graph 0.95 right offset -0.5,0\n",
				marks, plot_level_rps(pass), plot_level_rps(pass), i + 1, marks,
				load_name(pass->level, name, sizeof(name)),
				plot_level_rps(pass));
		}
		if (fail && (!pass || report_level_load(&s->cap, fail) >
			     report_level_load(&s->cap, pass)) && !isnan(plot_level_rps(fail))) {
			marks++;
			fprintf(f, "set arrow %d from %.4f, graph 0 to %.4f, graph 1 nohead lc %zu dt 2\n"
				"set label %d 'fails %s' at %.4f, graph 0.88 left offset 0.5,0\n",
				marks, plot_level_rps(fail), plot_level_rps(fail), i + 1, marks,
				load_name(fail->level, name, sizeof(name)),
				plot_level_rps(fail));
		}
	}
	fputs("plot \\\n", f);
	for (i = 0; i < d->n_series; i++) {
		const struct plot_series *s = &d->series[i];
		static const char *const what[] = { ": P50 TTFT", ": P99 TTFT", ": P99 E2E" };
		int c;

		if (!s->is_cap || !s->run.n_levels)
			continue;
		for (c = 0; c < 3; c++) {
			fprintf(f, "%s     'load_curve.dat' index %zu using 1:%d with linespoints "
				"lc %zu dt %d pt %d title ", first ? "" : ", \\\n", block, c + 2,
				i + 1, c + 1, 7 - c);
			plot_put_gp_title(f, "", s->label, what[c]);
			first = 0;
		}
		plot_curve_limits(f, s, i, block);
		block++;
	}
	fputc('\n', f);
}

const struct plot_figure plot_fig_load_curve = {
	"load_curve", plot_curve_dat, plot_curve_gp, plot_has_capacity
};
