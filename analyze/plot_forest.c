/*
 * plot_forest.c - the comparison of two runs as a forest plot: every
 * judged number's change with its 95% interval, coloured by its verdict;
 * see plot_figures.h.
 *
 * The rows are analyze compare's, computed by compare_runs with its
 * defaults, so the figure and the comparison's table can never disagree.
 * One row per judged statistic and level, grouped by level; a vertical
 * line at 0 and, per level, dashed lines at +-min-effect: an interval
 * wholly inside them is "same", wholly beyond one of them a change.
 * Rows compare could not judge (too few requests for a P99) are left out.
 */
#include "analyze/plot_figures.h"

#include <math.h>
#include <stdio.h>

#include "analyze/plot_script.h"

/* The outcomes drawn, each a colour readers tell apart (Okabe-Ito). */
static const struct {
	enum verdict_outcome v;
	const char *colour;
} plot_forest_kinds[] = {
	{ VERDICT_FASTER, "#0072B2" },
	{ VERDICT_SLOWER, "#D55E00" },
	{ VERDICT_INCONCLUSIVE, "#E69F00" },
	{ VERDICT_SAME, "#808080" },
};

#define PLOT_FOREST_KINDS (sizeof(plot_forest_kinds) / sizeof(plot_forest_kinds[0]))

/* Is row r drawn: judged, with a finite interval? */
static int plot_forest_drawn(const struct compare_row *r)
{
	return r->v.outcome != VERDICT_NA && isfinite(r->v.change_pct) && isfinite(r->v.lo) &&
	       isfinite(r->v.hi);
}

/* The rows drawn; row k of them sits at y = n - k, the first at the top. */
static size_t plot_forest_count(const struct plot_data *d)
{
	size_t i, n = 0;

	for (i = 0; d->compared && i < d->cmp.n_rows; i++)
		n += plot_forest_drawn(&d->cmp.rows[i]);
	return n;
}

/* "TTFT P50 C=4" into buf: compare's own names of the row. */
static const char *plot_forest_name(const struct compare_row *r, char *buf, size_t len)
{
	char level[32];

	snprintf(buf, len, "%s%s%s %s", r->metric, r->stat[0] ? " " : "", r->stat,
		 metric_level_name(r->level, level, sizeof(level)));
	return buf;
}

/*
 * compare_forest.dat: one block per outcome drawn (faster, slower,
 * inconclusive, same; a block only when some row has it), rows 'y, change
 * %, low, high' of the 95% interval.
 */
static void plot_forest_dat(FILE *f, const struct plot_data *d)
{
	size_t n = plot_forest_count(d), i, k, y;
	char name[96];

	fputs("# compare_forest.dat - written by tracebench analyze plot.\n"
	      "# The second run against the first, as analyze compare judges them: one\n"
	      "# block per verdict (faster, slower, inconclusive, same; only those that\n"
	      "# occur), rows 'y change-% low-% high-%' (the 95% interval).\n", f);
	for (k = 0; k < PLOT_FOREST_KINDS; k++) {
		int any = 0;

		for (i = 0, y = n; i < d->cmp.n_rows; i++) {
			const struct compare_row *r = &d->cmp.rows[i];

			if (!plot_forest_drawn(r))
				continue;
			if (r->v.outcome == plot_forest_kinds[k].v) {
				if (!any)
					fprintf(f, "# %s\n",
						verdict_outcome_name(plot_forest_kinds[k].v));
				fprintf(f, "%zu %.4f %.4f %.4f   # %s\n", y, r->v.change_pct, r->v.lo,
					r->v.hi, plot_forest_name(r, name, sizeof(name)));
				any = 1;
			}
			y--;
		}
		if (any)
			fputs("\n\n", f);
	}
}

/* The dashed +-min-effect lines of each level, over its rows only. */
static void plot_forest_thresholds(FILE *f, const struct plot_data *d, size_t n)
{
	size_t l, i, y, top, bottom;

	for (l = 0; l < d->cmp.n_levels; l++) {
		const struct compare_level *lv = &d->cmp.levels[l];

		top = 0;
		bottom = 0;
		for (i = 0, y = n; i < d->cmp.n_rows; i++) {
			if (!plot_forest_drawn(&d->cmp.rows[i]))
				continue;
			if (d->cmp.rows[i].level == lv->level) {
				if (!top)
					top = y;
				bottom = y;
			}
			y--;
		}
		if (!top || !(lv->min_effect > 0))
			continue;
		fprintf(f, "set arrow from %.3f, %zu - 0.45 to %.3f, %zu + 0.45 nohead dt 2 "
			"lc rgb '#404040'\n"
			"set arrow from %.3f, %zu - 0.45 to %.3f, %zu + 0.45 nohead dt 2 "
			"lc rgb '#404040'\n",
			-lv->min_effect, bottom, -lv->min_effect, top,
			lv->min_effect, bottom, lv->min_effect, top);
	}
}

static void plot_forest_gp(FILE *f, const struct plot_data *d)
{
	size_t n = plot_forest_count(d), i, k, y, block = 0;
	int first = 1, height = 120 + 22 * (int)n;
	char name[96];

	plot_preamble_sized(f, d, "compare_forest", "the comparison of two runs",
			    height < 400 ? 400 : height);
	fputs("# Each judged number's change with its 95% interval, as analyze compare\n"
	      "# gives it; dashed: +-min-effect of its level.\n", f);
	fputs("set title ", f);
	plot_put_gp_title(f, "Change of ", d->series[1].label, " against ");
	fputs(" . ", f);
	plot_put_gp_title(f, "", d->series[0].label, " (95% intervals)");
	fputc('\n', f);
	fprintf(f, "set xlabel 'change (%%): left is lower (for latency: faster; for tok/s: "
		"slower)'\n"
		"set yrange [0.3:%zu.7]\n"
		"set ytics nomirror\n"
		"set grid xtics\n"
		"set key below\n"
		"set arrow from 0, graph 0 to 0, graph 1 nohead lc rgb '#000000'\n", n);
	plot_forest_thresholds(f, d, n);
	fputs("set ytics (", f);
	for (i = 0, y = n; i < d->cmp.n_rows; i++) {
		if (!plot_forest_drawn(&d->cmp.rows[i]))
			continue;
		fprintf(f, "%s'%s' %zu", y == n ? "" : ", ",
			plot_forest_name(&d->cmp.rows[i], name, sizeof(name)), y);
		y--;
	}
	fputs(")\nplot \\\n", f);
	for (k = 0; k < PLOT_FOREST_KINDS; k++) {
		int any = 0;

		for (i = 0; i < d->cmp.n_rows; i++)
			any |= plot_forest_drawn(&d->cmp.rows[i]) &&
			       d->cmp.rows[i].v.outcome == plot_forest_kinds[k].v;
		if (!any)
			continue;
		fprintf(f, "%s     'compare_forest.dat' index %zu using 2:1:3:4 with xerrorbars "
			"pt 7 ps 1.2 lw 2 lc rgb '%s' title '%s'", first ? "" : ", \\\n", block++,
			plot_forest_kinds[k].colour, verdict_outcome_name(plot_forest_kinds[k].v));
		first = 0;
	}
	fputc('\n', f);
}

static int plot_forest_wanted(const struct plot_data *d)
{
	return plot_forest_count(d) > 0;
}

const struct plot_figure plot_fig_forest = {
	"compare_forest", plot_forest_dat, plot_forest_gp, plot_forest_wanted
};
