/*
 * plot_forest.c - the comparison of runs as a forest plot: every judged
 * number's change with its 95% interval; of two runs coloured by its
 * verdict, of three or more each run against the first in the run's own
 * colour, the verdict by the point's shape; see plot_figures.h.
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
#include <stdlib.h>
#include <string.h>

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

	for (i = 0; d->compared && d->compared[0] && i < d->cmp[0].n_rows; i++)
		n += plot_forest_drawn(&d->cmp[0].rows[i]);
	return n;
}

/* "TTFT P50 C=4" into buf: compare's own names of the row. */
static const char *plot_forest_name(const struct compare_row *r, char *buf, size_t len)
{
	char level[32];

	snprintf(buf, len, "%s%s%s %s", r->metric, r->stat[0] ? " " : "", r->stat,
		 load_name(r->level, level, sizeof(level)));
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

		for (i = 0, y = n; i < d->cmp[0].n_rows; i++) {
			const struct compare_row *r = &d->cmp[0].rows[i];

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

	for (l = 0; l < d->cmp[0].n_levels; l++) {
		const struct compare_level *lv = &d->cmp[0].levels[l];

		top = 0;
		bottom = 0;
		for (i = 0, y = n; i < d->cmp[0].n_rows; i++) {
			if (!plot_forest_drawn(&d->cmp[0].rows[i]))
				continue;
			if (load_same(d->cmp[0].rows[i].level, lv->level)) {
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

/* The x axis: over every comparison's drawn intervals, 0 and the
 * +-min-effect lines, with the tics plot_axis_tics picks (gnuplot's own
 * choice sets up to ten labels, which touch at 8 points a column wide). */
static void plot_forest_xtics(FILE *f, const struct plot_data *d)
{
	double lo = 0, hi = 0, step;
	size_t j, i;

	for (j = 0; j + 1 < d->n_series; j++) {
		for (i = 0; d->compared[j] && i < d->cmp[j].n_rows; i++) {
			const struct compare_row *r = &d->cmp[j].rows[i];

			if (!plot_forest_drawn(r))
				continue;
			lo = fmin(lo, r->v.lo);
			hi = fmax(hi, r->v.hi);
		}
		for (i = 0; d->compared[j] && i < d->cmp[j].n_levels; i++) {
			double me = d->cmp[j].levels[i].min_effect;

			if (me > 0 && isfinite(me)) {
				lo = fmin(lo, -me);
				hi = fmax(hi, me);
			}
		}
	}
	/* the range set, out to the tics, not autoscaled: that takes the
	 * points alone, and points all at 0 are an empty range gnuplot warns of */
	if (!(hi - lo > 1e-9)) {
		lo -= 1;
		hi += 1;
	}
	step = plot_axis_tics(f, "x", lo, hi);
	if (step > 0)
		fprintf(f, "set xrange [%.6g:%.6g]\n", floor(lo / step) * step, ceil(hi / step) * step);
}

static void plot_forest_gp(FILE *f, const struct plot_data *d)
{
	size_t n = plot_forest_count(d), i, k, y, block = 0;
	int first = 1;
	/* a row a line of 8-point type and a half, with room for the title,
	 * the axis and the key */
	double height = 1.0 + 0.17 * (double)n;
	char name[96];

	plot_preamble_sized(f, d, "compare_forest", "the comparison of two runs",
			    PLOT_COLUMN_IN, height < PLOT_COLUMN_IN * 0.75 ? PLOT_COLUMN_IN * 0.75 : height);
	fputs("# Each judged number's change with its 95% interval, as analyze compare\n"
	      "# gives it; dashed: +-min-effect of its level.\n", f);
	fputs("set title ", f);
	plot_put_gp_title(f, "Change of ", d->series[1].label, " against ");
	fputs(" . ", f);
	plot_put_gp_title(f, "", d->series[0].label, " (95% intervals)");
	fputc('\n', f);
	fprintf(f, "set xlabel 'change (%%), lower to the left'\n"
		"set yrange [0.3:%zu.7]\n"
		"set ytics nomirror\n"
		"set grid xtics\n"
		"set key below\n"
		"set arrow from 0, graph 0 to 0, graph 1 nohead lc rgb '#000000'\n", n);
	plot_forest_xtics(f, d);
	plot_forest_thresholds(f, d, n);
	fputs("set ytics (", f);
	for (i = 0, y = n; i < d->cmp[0].n_rows; i++) {
		if (!plot_forest_drawn(&d->cmp[0].rows[i]))
			continue;
		fprintf(f, "%s'%s' %zu", y == n ? "" : ", ",
			plot_forest_name(&d->cmp[0].rows[i], name, sizeof(name)), y);
		y--;
	}
	fputs(")\nplot \\\n", f);
	for (k = 0; k < PLOT_FOREST_KINDS; k++) {
		int any = 0;

		for (i = 0; i < d->cmp[0].n_rows; i++)
			any |= plot_forest_drawn(&d->cmp[0].rows[i]) &&
			       d->cmp[0].rows[i].v.outcome == plot_forest_kinds[k].v;
		if (!any)
			continue;
		fprintf(f, "%s     'compare_forest.dat' index %zu using 2:1:3:4 with xerrorbars "
			"pt 7 ps 1.2 lw 2 lc rgb '%s' title '%s'", first ? "" : ", \\\n", block++,
			plot_forest_kinds[k].colour, verdict_outcome_name(plot_forest_kinds[k].v));
		first = 0;
	}
	fputc('\n', f);
}

/*
 * Three runs or more: each later run against the first, its points in the
 * run's own colour (the colour it has in every other figure), its verdict
 * told by the point's shape; a row per judged number and level, each run's
 * point a little below the one before.
 */

/* The shape of each verdict (gnuplot point types). */
static const struct {
	enum verdict_outcome v;
	int pt;
} plot_forest_shapes[] = {
	{ VERDICT_FASTER, 7 },         /* filled circle */
	{ VERDICT_SLOWER, 5 },         /* filled square */
	{ VERDICT_INCONCLUSIVE, 12 },  /* open diamond */
	{ VERDICT_SAME, 6 },           /* open circle */
};

/* One row of the figure: a judged number at a level. */
struct plot_forest_key {
	struct load level;
	const char *metric, *stat;   /* compare's static strings */
	size_t seq;                  /* order of first appearance */
};

static int plot_forest_key_is(const struct plot_forest_key *k, const struct compare_row *r)
{
	return load_same(k->level, r->level) && !strcmp(k->metric, r->metric) &&
	       !strcmp(k->stat, r->stat);
}

static int plot_forest_key_cmp(const void *a, const void *b)
{
	const struct plot_forest_key *x = a, *y = b;
	int order = load_cmp(x->level, y->level);

	if (order)
		return order;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The rows some comparison drew, by level and then in compare's order;
 * *keys is malloc'd (NULL when none). Returns their number. */
static size_t plot_forest_keys(const struct plot_data *d, struct plot_forest_key **keys)
{
	struct plot_forest_key *k = NULL, *grown;
	size_t n = 0, cap = 0, j, i, e;

	*keys = NULL;
	for (j = 0; j + 1 < d->n_series; j++) {
		for (i = 0; d->compared[j] && i < d->cmp[j].n_rows; i++) {
			const struct compare_row *r = &d->cmp[j].rows[i];

			if (!plot_forest_drawn(r))
				continue;
			for (e = 0; e < n && !plot_forest_key_is(&k[e], r); e++)
				;
			if (e < n)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 32;
				if (!(grown = realloc(k, cap * sizeof(*k)))) {
					free(k);
					return 0;
				}
				k = grown;
			}
			k[n].level = r->level;
			k[n].metric = r->metric;
			k[n].stat = r->stat;
			k[n].seq = n;
			n++;
		}
	}
	if (n)
		qsort(k, n, sizeof(*k), plot_forest_key_cmp);
	*keys = k;
	return n;
}

/* The drawn row of comparison j for key, or NULL. */
static const struct compare_row *plot_forest_row(const struct plot_data *d, size_t j,
						 const struct plot_forest_key *key)
{
	size_t i;

	for (i = 0; d->compared[j] && i < d->cmp[j].n_rows; i++)
		if (plot_forest_drawn(&d->cmp[j].rows[i]) &&
		    plot_forest_key_is(key, &d->cmp[j].rows[i]))
			return &d->cmp[j].rows[i];
	return NULL;
}

/* How many runs were compared with the first; with slot, comparison j's
 * place among them. */
static size_t plot_forest_compared(const struct plot_data *d, size_t j, size_t *slot)
{
	size_t i, n = 0;

	for (i = 0; i + 1 < d->n_series; i++) {
		if (i == j && slot)
			*slot = n;
		n += d->compared[i] != 0;
	}
	return n;
}

/* Where comparison j's point of the row centred at y sits: the first
 * compared run's at the top of the row, each next one lower. */
static double plot_forest_y(const struct plot_data *d, size_t row_y, size_t j)
{
	size_t slot = 0;
	double m = (double)plot_forest_compared(d, j, &slot), step = 0.7 / m;

	return (double)row_y + ((m - 1) / 2.0 - (double)slot) * step;
}

/* Does comparison j have a drawn row judged v? */
static int plot_forest_has(const struct plot_data *d, size_t j, enum verdict_outcome v)
{
	size_t i;

	for (i = 0; d->compared[j] && i < d->cmp[j].n_rows; i++)
		if (plot_forest_drawn(&d->cmp[j].rows[i]) && d->cmp[j].rows[i].v.outcome == v)
			return 1;
	return 0;
}

#define PLOT_FOREST_SHAPES (sizeof(plot_forest_shapes) / sizeof(plot_forest_shapes[0]))

/*
 * compare_forest.dat of three runs or more: one block per compared run and
 * verdict that occurs (run 2 faster, run 2 slower, ..., run 3 faster, ...),
 * rows 'y change-% low-% high-%'.
 */
static void plot_forest_many_dat(FILE *f, const struct plot_data *d)
{
	struct plot_forest_key *keys;
	size_t n = plot_forest_keys(d, &keys), j, k, r;
	char name[96];

	fputs("# compare_forest.dat - written by tracebench analyze plot.\n"
	      "# Each run against the first, as analyze compare judges them: one block\n"
	      "# per run (the second, third, ...) and verdict (faster, slower,\n"
	      "# inconclusive, same; only those that occur), rows\n"
	      "# 'y change-% low-% high-%' (the 95% interval).\n", f);
	for (j = 0; j + 1 < d->n_series; j++) {
		for (k = 0; k < PLOT_FOREST_SHAPES; k++) {
			if (!plot_forest_has(d, j, plot_forest_shapes[k].v))
				continue;
			fprintf(f, "# run %zu: %s\n", j + 2,
				verdict_outcome_name(plot_forest_shapes[k].v));
			for (r = 0; r < n; r++) {
				const struct compare_row *row = plot_forest_row(d, j, &keys[r]);

				if (!row || row->v.outcome != plot_forest_shapes[k].v)
					continue;
				fprintf(f, "%.3f %.4f %.4f %.4f   # %s\n", plot_forest_y(d, n - r, j),
					row->v.change_pct, row->v.lo, row->v.hi,
					plot_forest_name(row, name, sizeof(name)));
			}
			fputs("\n\n", f);
		}
	}
	free(keys);
}

/* The dashed +-min-effect lines of each level over its rows, where every
 * comparison with that level used the same threshold (else none: the
 * tables give each). */
static void plot_forest_many_thresholds(FILE *f, const struct plot_data *d,
					const struct plot_forest_key *keys, size_t n)
{
	size_t r = 0, top, j, l;

	while (r < n) {
		struct load level = keys[r].level;
		int agree = 1;
		double me = -1;

		top = r;
		while (r < n && load_same(keys[r].level, level))
			r++;
		for (j = 0; j + 1 < d->n_series; j++) {
			for (l = 0; d->compared[j] && l < d->cmp[j].n_levels; l++) {
				const struct compare_level *lv = &d->cmp[j].levels[l];

				if (!load_same(lv->level, level) || !lv->compared)
					continue;
				if (me >= 0 && lv->min_effect != me)
					agree = 0;
				me = lv->min_effect;
			}
		}
		if (!agree || !(me > 0))
			continue;
		fprintf(f, "set arrow from %.3f, %zu - 0.45 to %.3f, %zu + 0.45 nohead dt 2 "
			"lc rgb '#404040'\n"
			"set arrow from %.3f, %zu - 0.45 to %.3f, %zu + 0.45 nohead dt 2 "
			"lc rgb '#404040'\n",
			-me, n - (r - 1), -me, n - top, me, n - (r - 1), me, n - top);
	}
}

static void plot_forest_many_gp(FILE *f, const struct plot_data *d)
{
	struct plot_forest_key *keys;
	size_t n = plot_forest_keys(d, &keys), j, k, r, block = 0;
	size_t m = d->n_series - 1;
	double row_in = 0.07 + 0.06 * (double)plot_forest_compared(d, 0, NULL), height = 1.1 + row_in * (double)n;
	char name[96];

	plot_preamble_sized(f, d, "compare_forest", "each run compared with the first",
			    PLOT_COLUMN_IN,
			    height < PLOT_COLUMN_IN * 0.75 ? PLOT_COLUMN_IN * 0.75 : height);
	fputs("# Each judged number's change with its 95% interval, as analyze compare\n"
	      "# gives it: colour the run (as in every figure), shape the verdict;\n"
	      "# dashed: +-min-effect of its level.\n", f);
	fputs("set title ", f);
	plot_put_gp_title(f, "Each run against ", d->series[0].label, " (95% intervals)");
	fprintf(f, "\nset xlabel 'change (%%), lower to the left'\n"
		"set yrange [0.5:%zu.5]\n"
		"set ytics nomirror\n"
		"set grid xtics\n"
		"set key below maxcols 2 maxrows 3 width 0\n"
		"set arrow from 0, graph 0 to 0, graph 1 nohead lc rgb '#000000'\n", n);
	plot_forest_xtics(f, d);
	plot_forest_many_thresholds(f, d, keys, n);
	fputs("set ytics (", f);
	for (r = 0; r < n; r++) {
		struct compare_row row = { 0 };

		row.level = keys[r].level;
		row.metric = keys[r].metric;
		row.stat = keys[r].stat;
		fprintf(f, "%s'%s' %zu", r ? ", " : "", plot_forest_name(&row, name, sizeof(name)),
			n - r);
	}
	fputs(")\nplot \\\n", f);
	for (j = 0; j < m; j++) {
		for (k = 0; k < PLOT_FOREST_SHAPES; k++) {
			if (!plot_forest_has(d, j, plot_forest_shapes[k].v))
				continue;
			fprintf(f, "     'compare_forest.dat' index %zu using 2:1:3:4 with xerrorbars "
				"pt %d ps 1 lc %zu notitle, \\\n", block++, plot_forest_shapes[k].pt,
				j + 2);
		}
	}
	/* the key: each run's colour, then each verdict's shape */
	for (j = 0, k = 0; j < m; j++) {
		if (!d->compared[j])
			continue;
		fprintf(f, "%s     keyentry with linespoints pt 7 ps 1.5 lc %zu title ",
			k++ ? ", \\\n" : "", j + 2);
		plot_put_gp_title(f, "", d->series[j + 1].label, "");
	}
	for (k = 0; k < PLOT_FOREST_SHAPES; k++) {
		for (j = 0; j < m && !plot_forest_has(d, j, plot_forest_shapes[k].v); j++)
			;
		if (j < m)   /* the verdicts that occur */
			fprintf(f, ", \\\n     keyentry with points pt %d ps 1.5 lc rgb '#000000' "
				"title '%s'", plot_forest_shapes[k].pt,
				verdict_outcome_name(plot_forest_shapes[k].v));
	}
	fputc('\n', f);
	free(keys);
}

/* How many rows the figure of three runs or more draws. */
static size_t plot_forest_many_count(const struct plot_data *d)
{
	struct plot_forest_key *keys;
	size_t n = plot_forest_keys(d, &keys);

	free(keys);
	return n;
}

static void plot_forest_dat_any(FILE *f, const struct plot_data *d)
{
	if (d->n_series > 2)
		plot_forest_many_dat(f, d);
	else
		plot_forest_dat(f, d);
}

static void plot_forest_gp_any(FILE *f, const struct plot_data *d)
{
	if (d->n_series > 2)
		plot_forest_many_gp(f, d);
	else
		plot_forest_gp(f, d);
}

static int plot_forest_wanted(const struct plot_data *d)
{
	if (d->n_series > 2)
		return plot_forest_many_count(d) > 0;
	return plot_forest_count(d) > 0;
}

const struct plot_figure plot_fig_forest = {
	"compare_forest", plot_forest_dat_any, plot_forest_gp_any, plot_forest_wanted
};
