/*
 * plot.c - `tracebench analyze plot`; see plot.h.
 *
 * The numbers come from report_summarize (lib/summary.c underneath), the
 * same as the report's table. gnuplot is started with fork and execvp in
 * the output directory, with an argv and no shell, and its exit status is
 * checked. Its absence is not an error: the script is still useful.
 */
#include "analyze/plot.h"
#include "lib/errmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze/report.h"
#include "lib/metric.h"
#include "lib/stats.h"
#include "lib/tmpfile.h"

#define PLOT_WIDTH  1000
#define PLOT_HEIGHT 600

/* One point of the TTFT timeline. */
struct plot_point {
	double t_s;      /* send time from the run's start, seconds */
	double ttft_ms;
	int warmup;
};

/* One turn of a session, for the TTFT by turn index. */
struct plot_turn {
	long turn;
	double ttft_ms;
};

/* One run: its summarized levels and its requests. */
struct plot_series {
	char *label;              /* owned */
	struct report_run run;
	double *ttft, *e2e;       /* owned, sorted: successful non-warm-up requests */
	size_t n_ttft, n_e2e;
	struct plot_point *pts;   /* owned: every request with a TTFT, sending order */
	size_t n_pts;
	struct db_metric_point *srv;  /* owned: the server's scrapes (--metrics-url) */
	size_t n_srv;
	int is_cap;               /* a run of replay --find-capacity: */
	struct capacity_options cap;   /* ... its search */
	struct metric_slo slo;    /* ... and SLO */
	struct plot_turn *turns;  /* owned: successful measured turns with a TTFT,
				   * by turn then TTFT */
	size_t n_turns;
};

struct plot_data {
	struct plot_series *series;  /* owned, n_series of them */
	size_t n_series;
	int *levels;                 /* owned: every concurrency of any run, ascending */
	size_t n_levels;
	enum plot_format fmt;
};

static const char *const plot_exts[] = { "png", "svg", "pdf" };

int plot_format_parse(const char *s, enum plot_format *out)
{
	size_t i;

	for (i = 0; i < sizeof(plot_exts) / sizeof(plot_exts[0]); i++) {
		if (strcmp(s, plot_exts[i]) == 0) {
			*out = (enum plot_format)i;
			return 0;
		}
	}
	return -1;
}

static void plot_data_release(struct plot_data *d)
{
	size_t i;

	for (i = 0; i < d->n_series; i++) {
		free(d->series[i].label);
		free(d->series[i].ttft);
		free(d->series[i].e2e);
		free(d->series[i].turns);
		free(d->series[i].pts);
		free(d->series[i].srv);
		report_run_release(&d->series[i].run);
	}
	free(d->series);
	free(d->levels);
	memset(d, 0, sizeof(*d));
}

/* Joins dir and name into buf (PATH_MAX bytes). Returns 0 or -1 if too long. */
static int plot_path(char *buf, const char *dir, const char *name, const char *suffix)
{
	int len = snprintf(buf, PATH_MAX, "%s/%s%s", dir, name, suffix);

	return len < 0 || len >= PATH_MAX ? -1 : 0;
}

/*
 * Creates dir unless it exists as a directory (one level, like mkdir).
 * A directory that cannot be made is an input error (exit 2), as an output
 * file that cannot be created is for the other commands.
 */
static int plot_make_dir(const char *dir, char *err, size_t errlen)
{
	struct stat sb;

	if (mkdir(dir, 0777) == 0)
		return DB_OK;
	if (errno == EEXIST && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
		return DB_OK;
	if (errno == EEXIST)
		errno = ENOTDIR;
	errmsg_set(err, errlen, "cannot create directory '%s': %s", dir, strerror(errno));
	return DB_ERR_INPUT;
}

static int plot_int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Collects the distinct concurrencies (no open loop) of all series into d->levels. */
static int plot_has_capacity(const struct plot_data *d);

static int plot_collect_levels(struct plot_data *d)
{
	size_t total = 0, i, j, n = 0;

	for (i = 0; i < d->n_series; i++)
		total += d->series[i].run.n_levels;
	d->levels = malloc((total ? total : 1) * sizeof(*d->levels));
	if (!d->levels)
		return -1;
	for (i = 0; i < d->n_series; i++)
		for (j = 0; j < d->series[i].run.n_levels; j++)
			if (metric_level_closed(d->series[i].run.levels[j].level))
				d->levels[n++] = d->series[i].run.levels[j].level;
	qsort(d->levels, n, sizeof(*d->levels), plot_int_cmp);
	for (i = 0, j = 0; i < n; i++)
		if (j == 0 || d->levels[j - 1] != d->levels[i])
			d->levels[j++] = d->levels[i];
	d->n_levels = j;
	return 0;
}

static int plot_point_cmp(const void *a, const void *b)
{
	double x = ((const struct plot_point *)a)->t_s, y = ((const struct plot_point *)b)->t_s;

	return (x > y) - (x < y);
}

static int plot_turn_cmp(const void *a, const void *b)
{
	const struct plot_turn *x = a, *y = b;

	if (x->turn != y->turn)
		return x->turn < y->turn ? -1 : 1;
	return (x->ttft_ms > y->ttft_ms) - (x->ttft_ms < y->ttft_ms);
}

/* Appends the requests of r to s's arrays (sized by the caller). */
static void plot_take_requests(struct plot_series *s, const struct result *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		double ttft = metric_ttft_ms(&r[i]);

		if (!isnan(ttft) && result_ok(&r[i])) {
			s->pts[s->n_pts].t_s = metric_ms(r[i].send_ns) / 1e3;
			s->pts[s->n_pts].ttft_ms = ttft;
			s->pts[s->n_pts++].warmup = r[i].warmup;
		}
		if (r[i].warmup || !result_ok(&r[i]))
			continue;
		if (r[i].session >= 0 && r[i].turn >= 0 && !isnan(ttft)) {
			s->turns[s->n_turns].turn = r[i].turn;
			s->turns[s->n_turns++].ttft_ms = ttft;
		}
		s->e2e[s->n_e2e++] = metric_e2e_ms(&r[i]);
		if (!isnan(ttft))
			s->ttft[s->n_ttft++] = ttft;
	}
}

/* Reads every request of the run into s: CDF samples and timeline points. */
static int plot_load_requests(struct db *db, const char *label, struct plot_series *s,
			      char *err, size_t errlen)
{
	struct result *r = NULL;
	int *levels = NULL;
	size_t n_levels = 0, n = 0, i, cap = 0;
	void *p;
	int rc;

	rc = db_levels(db, label, &levels, &n_levels, err, errlen);
	for (i = 0; !rc && i < n_levels; i++) {
		rc = db_results(db, label, levels[i], &r, &n, err, errlen);
		if (rc)
			break;
		cap += n;
		if (!(p = realloc(s->ttft, (cap + 1) * sizeof(double))) || !(s->ttft = p) ||
		    !(p = realloc(s->e2e, (cap + 1) * sizeof(double))) || !(s->e2e = p) ||
		    !(p = realloc(s->pts, (cap + 1) * sizeof(*s->pts))) || !(s->pts = p) ||
		    !(p = realloc(s->turns, (cap + 1) * sizeof(*s->turns))) || !(s->turns = p)) {
			errmsg_set(err, errlen, "run '%s': out of memory", label);
			rc = DB_ERR_WORK;
		} else {
			plot_take_requests(s, r, n);
		}
		db_results_free(r, n);
		r = NULL;
	}
	free(levels);
	if (rc)
		return rc;
	stats_sort(s->ttft, s->n_ttft);
	stats_sort(s->e2e, s->n_e2e);
	if (s->n_pts > 1)
		qsort(s->pts, s->n_pts, sizeof(*s->pts), plot_point_cmp);
	if (s->n_turns > 1)
		qsort(s->turns, s->n_turns, sizeof(*s->turns), plot_turn_cmp);
	return DB_OK;
}

/* Adds the run 'label' (which must exist) to d. */
static int plot_add_series(struct plot_data *d, struct db *db, const char *label,
			   const char *params, char *err, size_t errlen)
{
	char spec[256];
	struct plot_series *s;
	int rc;

	s = realloc(d->series, (d->n_series + 1) * sizeof(*s));
	if (!s) {
		errmsg_set(err, errlen, "run '%s': out of memory", label);
		return DB_ERR_WORK;
	}
	d->series = s;
	s = &d->series[d->n_series];
	memset(s, 0, sizeof(*s));
	if (!(s->label = strdup(label))) {
		errmsg_set(err, errlen, "run '%s': out of memory", label);
		return DB_ERR_WORK;
	}
	s->is_cap = report_capacity_params(params, &s->cap, &s->slo, spec, sizeof(spec));
	rc = report_summarize(db, label, s->is_cap ? &s->slo : NULL, &s->run, err, errlen);
	if (!rc)
		rc = plot_load_requests(db, label, s, err, errlen);
	if (!rc)
		rc = db_metric_timeline(db, label, &s->srv, &s->n_srv, err, errlen);
	if (rc) {
		free(s->srv);
		free(s->label);
		free(s->ttft);
		free(s->e2e);
		free(s->pts);
		free(s->turns);
		report_run_release(&s->run);
		return rc;
	}
	d->n_series++;
	return DB_OK;
}

/* Summarizes the requested runs (all when n_labels is 0) into d. */
static int plot_load_data(struct db *db, const char *const *labels, size_t n_labels,
			  struct plot_data *d, char *err, size_t errlen)
{
	struct db_run *runs = NULL;
	size_t n = 0, i, k;
	int rc = DB_OK;

	for (k = 0; !rc && k < (n_labels ? n_labels : 1); k++) {
		rc = db_runs(db, n_labels ? labels[k] : NULL, &runs, &n, err, errlen);
		for (i = 0; !rc && i < n; i++)
			rc = plot_add_series(d, db, runs[i].label, runs[i].params, err, errlen);
		db_runs_free(runs, n);
		runs = NULL;
		n = 0;
	}
	if (rc)
		return rc;
	if (plot_collect_levels(d) != 0) {
		errmsg_set(err, errlen, "out of memory");
		return DB_ERR_WORK;
	}
	/* a search over rates has no concurrency levels, but its load curve */
	if (d->n_levels == 0 && !plot_has_capacity(d)) {
		errmsg_set(err, errlen, "nothing to plot: the runs have no concurrency "
			    "levels with measured requests");
		return DB_ERR_INPUT;
	}
	return DB_OK;
}

/*
 * A gnuplot string expression for untrusted text, built from single-quoted
 * literals (no backslash escapes, no `command` or @macro substitution in
 * them) that never contain a quote: each ' in the text becomes the variable
 * PLOT_GP_QUOTE_VAR, joined with the '.' operator. Doubling quotes inside
 * the literal is not enough: gnuplot 5.4 misreads a literal that starts
 * with two quotes or holds four in a row, and the script fails. Control
 * characters (a newline would end the command) become spaces.
 */
struct gp_string {
	FILE *f;
	int open;    /* inside a quoted literal */
	int parts;   /* literals and quote variables written so far */
};

static void gp_string_chars(struct gp_string *g, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\'') {
			if (g->open)
				fputc('\'', g->f);
			g->open = 0;
			fputs(g->parts++ ? " . " PLOT_GP_QUOTE_VAR : PLOT_GP_QUOTE_VAR, g->f);
			continue;
		}
		if (!g->open) {
			fputs(g->parts++ ? " . '" : "'", g->f);
			g->open = 1;
		}
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			fputc(' ', g->f);
		else
			fputc(*s, g->f);
	}
}

static void gp_string_end(struct gp_string *g)
{
	if (g->open)
		fputc('\'', g->f);
	else if (!g->parts)
		fputs("''", g->f);
}

void plot_put_gp_string(FILE *f, const char *s)
{
	struct gp_string g = { f, 0, 0 };

	gp_string_chars(&g, s);
	gp_string_end(&g);
}

/* Writes prefix, label and suffix as one gnuplot string expression. */
static void plot_put_gp_title(FILE *f, const char *prefix, const char *label,
			      const char *suffix)
{
	struct gp_string g = { f, 0, 0 };

	gp_string_chars(&g, prefix);
	gp_string_chars(&g, label);
	gp_string_chars(&g, suffix);
	gp_string_end(&g);
}

/* A number for the .dat file, '?' (gnuplot's "missing") when there is none. */
static void plot_put_value(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs(" ?", f);
	else
		fprintf(f, " %.3f", v);
}

static const struct level_summary *plot_find_level(const struct report_run *run, int level)
{
	size_t i;

	for (i = 0; i < run->n_levels; i++)
		if (run->levels[i].level == level)
			return &run->levels[i];
	return NULL;
}

/* The comment, quote variable, terminal and output that open every script. */
static void plot_preamble(FILE *f, const struct plot_data *d, const char *name,
			  const char *what)
{
	const char *ext = plot_exts[d->fmt];

	fprintf(f, "# %s.gp - %s, written by tracebench analyze plot.\n"
		"# Reads %s.dat and writes %s.%s in the current directory:\n"
		"#   cd DIR && gnuplot %s.gp\n", name, what, name, name, ext, name);
	fputs(PLOT_GP_QUOTE_VAR " = sprintf('%c', 39)   # a quote, for labels that hold one\n", f);
	switch (d->fmt) {
	case PLOT_PNG:
		fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
			"    set terminal pngcairo noenhanced size %d,%d\n"
			"} else {\n"
			"    set terminal png noenhanced size %d,%d\n"
			"}\n", PLOT_WIDTH, PLOT_HEIGHT, PLOT_WIDTH, PLOT_HEIGHT);
		break;
	case PLOT_SVG:
		fprintf(f, "set terminal svg noenhanced size %d,%d\n", PLOT_WIDTH, PLOT_HEIGHT);
		break;
	case PLOT_PDF:
		fputs("if (strstrt(GPVAL_TERMINALS, 'pdfcairo') > 0) {\n"
		      "    set terminal pdfcairo noenhanced size 10in,6in\n"
		      "} else {\n"
		      "    print 'this gnuplot has no pdfcairo terminal; try png or svg'\n"
		      "    exit status 1\n"
		      "}\n", f);
		break;
	}
	/* tracebench's own run renders to a fresh temporary name it renames
	 * into place (plot_render); run by hand, the script writes NAME.EXT */
	fprintf(f, "if (!exists(\"tb_output\")) tb_output = '%s.%s'\nset output tb_output\n",
		name, ext);
}

/* "set title 'WHAT'" or, for one run, "set title 'WHAT: LABEL'". */
static void plot_title(FILE *f, const struct plot_data *d, const char *what)
{
	fputs("set title ", f);
	if (d->n_series == 1)
		plot_put_gp_title(f, what, ": ", d->series[0].label);
	else
		plot_put_gp_string(f, what);
	fputc('\n', f);
}

/* log2 x axis with a tic at each level. */
static void plot_level_axis(FILE *f, const struct plot_data *d)
{
	int lo = d->levels[0], hi = d->levels[d->n_levels - 1];
	size_t i;

	fputs("set xlabel 'concurrency (requests in flight)'\n"
	      "set logscale x 2\n"
	      "set xtics (", f);
	for (i = 0; i < d->n_levels; i++)
		fprintf(f, "%s%d", i ? ", " : "", d->levels[i]);
	fprintf(f, ")\nset xrange [%g:%g]\n", lo / 1.25, hi * 1.25);
}

/* Per level, per run: the 'nvals' values 'get' gives (NaN: missing). */
static void plot_level_table(FILE *f, const struct plot_data *d, size_t nvals,
			     void (*get)(const struct level_summary *, double *))
{
	const struct level_summary *s;
	double v[8];
	size_t i, j, k;

	for (i = 0; i < d->n_levels; i++) {
		fprintf(f, "%d", d->levels[i]);
		for (j = 0; j < d->n_series; j++) {
			s = plot_find_level(&d->series[j].run, d->levels[i]);
			for (k = 0; k < nvals; k++)
				v[k] = NAN;
			if (s)
				get(s, v);
			for (k = 0; k < nvals; k++)
				plot_put_value(f, v[k]);
		}
		fputc('\n', f);
	}
}

static void plot_get_tps(const struct level_summary *s, double *v)
{
	v[0] = s->agg_tps;
	v[1] = s->per_req_tps;
}

static void plot_get_ttft(const struct level_summary *s, double *v)
{
	v[0] = s->ttft.p50;
	v[1] = s->ttft.p95;
	v[2] = s->ttft.p99;
}

static void plot_scaling_dat(FILE *f, const struct plot_data *d)
{
	fputs("# scaling.dat - written by tracebench analyze plot, read by scaling.gp.\n"
	      "# concurrency, then per run (in the order of scaling.gp's plot command):\n"
	      "# aggregate tok/s, per-request tok/s. '?' marks a missing value.\n", f);
	plot_level_table(f, d, 2, plot_get_tps);
}

/* The two curves of series j: aggregate (solid) and per-request (dashed). */
static void plot_write_curves(FILE *f, const struct plot_series *s, size_t j, int last)
{
	unsigned col = 2 + 2 * (unsigned)j;
	unsigned color = 1 + (unsigned)j;
	char agg[96] = ": aggregate", per[96] = ": per request";
	size_t i, est = 0, ok = 0;

	/* Token counts that are counted events, not the server's, say so. */
	for (i = 0; i < s->run.n_levels; i++) {
		est += s->run.levels[i].tokens_events;
		ok += s->run.levels[i].ok;
	}
	if (est) {
		snprintf(agg, sizeof(agg), ": aggregate (tokens of %zu of %zu estimated)", est, ok);
		snprintf(per, sizeof(per), ": per request (tokens of %zu of %zu estimated)", est, ok);
	}
	fprintf(f, "     '" PLOT_DAT_NAME "' using 1:%u with linespoints lc %u pt 7 dt 1 title ",
		col, color);
	plot_put_gp_title(f, "", s->label, agg);
	fputs(", \\\n", f);
	fprintf(f, "     '" PLOT_DAT_NAME "' using 1:%u with linespoints lc %u pt 6 dt 2 title ",
		col + 1, color);
	plot_put_gp_title(f, "", s->label, per);
	fputs(last ? "\n" : ", \\\n", f);
}

static void plot_scaling_gp(FILE *f, const struct plot_data *d)
{
	size_t i;

	plot_preamble(f, d, "scaling", "throughput by concurrency");
	fputs("# Solid lines: aggregate tok/s of a level (all requests); dashed:\n"
	      "# mean tok/s of one request (its output tokens / (E2E - TTFT)).\n", f);
	plot_title(f, d, "Throughput by concurrency");
	plot_level_axis(f, d);
	fputs("set ylabel 'tok/s'\n"
	      "set yrange [0:*]\n"
	      "set grid\n"
	      "set key below\n"
	      "set datafile missing '?'\n"
	      "plot \\\n", f);
	for (i = 0; i < d->n_series; i++)
		plot_write_curves(f, &d->series[i], i, i + 1 == d->n_series);
}

static void plot_ttft_dat(FILE *f, const struct plot_data *d)
{
	fputs("# ttft_percentiles.dat - written by tracebench analyze plot.\n"
	      "# concurrency, then per run: TTFT P50, P95, P99 (ms). '?' is missing.\n", f);
	plot_level_table(f, d, 3, plot_get_ttft);
}

static void plot_ttft_gp(FILE *f, const struct plot_data *d)
{
	static const char *const names[] = { ": P50", ": P95", ": P99" };
	static const int dash[] = { 1, 2, 3 };
	size_t i, k;

	plot_preamble(f, d, "ttft_percentiles", "TTFT percentiles by concurrency");
	plot_title(f, d, "Time to first token by concurrency");
	plot_level_axis(f, d);
	fputs("set ylabel 'TTFT (ms)'\n"
	      "set yrange [0:*]\n"
	      "set grid\n"
	      "set key below\n"
	      "set datafile missing '?'\n"
	      "plot \\\n", f);
	for (i = 0; i < d->n_series; i++) {
		for (k = 0; k < 3; k++) {
			fprintf(f, "     'ttft_percentiles.dat' using 1:%zu with linespoints "
				"lc %zu pt %zu dt %d title ", 2 + 3 * i + k, i + 1, 5 + 2 * k, dash[k]);
			plot_put_gp_title(f, "", d->series[i].label, names[k]);
			fputs(i + 1 == d->n_series && k == 2 ? "\n" : ", \\\n", f);
		}
	}
}

/* Empirical CDF rows "value fraction" of n sorted values. */
static void plot_cdf_block(FILE *f, const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(f, "%.3f %.6f\n", v[i], (double)(i + 1) / (double)n);
	fputs("\n\n", f);
}

/*
 * latency_cdf.dat: index blocks, two per run with data: TTFT then E2E.
 * A run with no successful request has no blocks (and no curve).
 */
static void plot_cdf_dat(FILE *f, const struct plot_data *d)
{
	size_t i;

	fputs("# latency_cdf.dat - written by tracebench analyze plot.\n"
	      "# Per run with successful requests, two blocks (gnuplot 'index'):\n"
	      "# TTFT then E2E, rows 'ms cumulative-fraction'.\n", f);
	for (i = 0; i < d->n_series; i++)
		if (d->series[i].n_ttft && d->series[i].n_e2e) {
			plot_cdf_block(f, d->series[i].ttft, d->series[i].n_ttft);
			plot_cdf_block(f, d->series[i].e2e, d->series[i].n_e2e);
		}
}

static void plot_cdf_panel(FILE *f, const struct plot_data *d, int which, const char *xlabel)
{
	size_t i, block = 0;
	int first = 1;

	fprintf(f, "set xlabel '%s'\n"
		"plot \\\n", xlabel);
	for (i = 0; i < d->n_series; i++) {
		if (!d->series[i].n_ttft || !d->series[i].n_e2e)
			continue;
		fprintf(f, "%s     'latency_cdf.dat' index %zu using 1:2 with steps lc %zu title ",
			first ? "" : ", \\\n", 2 * block + (size_t)which, i + 1);
		plot_put_gp_string(f, d->series[i].label);
		first = 0;
		block++;
	}
	fputc('\n', f);
}

static void plot_cdf_gp(FILE *f, const struct plot_data *d)
{
	plot_preamble(f, d, "latency_cdf", "TTFT and E2E distributions");
	fputs("set multiplot layout 1,2 title 'Latency CDF (successful requests, all levels)'\n"
	      "set ylabel 'fraction of requests'\n"
	      "set yrange [0:1]\n"
	      "set grid\n"
	      "set key bottom right\n", f);
	plot_cdf_panel(f, d, 0, "TTFT (ms)");
	plot_cdf_panel(f, d, 1, "E2E (ms)");
	fputs("unset multiplot\n", f);
}

/* Does any run have the server's scrapes for the timeline's lower panel? */
static int plot_has_server(const struct plot_data *d)
{
	size_t i;

	for (i = 0; i < d->n_series; i++)
		if (d->series[i].n_srv)
			return 1;
	return 0;
}

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
	fprintf(f, "set title 'server: requests running and waiting (left), KV-cache use (right)'\n"
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

static void plot_timeline_gp(FILE *f, const struct plot_data *d)
{
	size_t i, k, block = 0;
	int w, first = 1;

	plot_preamble(f, d, "ttft_timeline", "TTFT of each request over the run");
	fputs("# Shows the cold start (warm-ups, hollow) and queueing over time.\n", f);
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

/* Is any run a capacity search, for the load curve? */
static int plot_has_capacity(const struct plot_data *d)
{
	size_t i;

	for (i = 0; i < d->n_series; i++)
		if (d->series[i].is_cap && d->series[i].run.n_levels)
			return 1;
	return 0;
}

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

/* The verdict on level l of series s, as analyze report gives it. */
static enum capacity_verdict plot_verdict(const struct plot_series *s,
					  const struct level_summary *l)
{
	double lo, hi;

	return capacity_judge(&s->cap, report_level_load(&s->cap, l), (long)l->good,
			      (long)l->requests, &lo, &hi);
}

/*
 * load_curve.dat: per capacity run, a block of its levels in order of load,
 * rows 'achieved req/s, P50 TTFT, P99 TTFT, P99 E2E (ms), load (C or
 * offered req/s), verdict' (1 meets the SLO, 0 does not or is undecided),
 * judged as analyze report judges them.
 */
static void plot_curve_dat(FILE *f, const struct plot_data *d)
{
	size_t i, k, n;

	fputs("# load_curve.dat - written by tracebench analyze plot.\n"
	      "# Per run of replay --find-capacity: achieved req/s, P50 TTFT, P99 TTFT,\n"
	      "# P99 E2E (ms), C or offered req/s, meets the SLO (1) or not (0).\n", f);
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
			fprintf(f, " %.6g %d\n", report_level_load(&s->cap, lv[k]),
				plot_verdict(s, lv[k]) == CAPACITY_PASS);
		}
		free(lv);
		fputs("\n\n", f);
	}
}

/*
 * load_curve.gp: latency percentiles against the achieved rate, the SLO's
 * TTFT and E2E limits as lines, the highest level meeting it (the
 * capacity) as a vertical line, the lowest failing one dashed.
 */
static void plot_curve_gp(FILE *f, const struct plot_data *d)
{
	size_t i, k, block = 0;
	int first = 1, marks = 0;

	plot_preamble(f, d, "load_curve", "latency against achieved load, capacity marked");
	plot_title(f, d, "Load curve (replay --find-capacity)");
	fputs("set xlabel 'achieved load (requests/s)'\n"
	      "set ylabel 'latency (ms)'\n"
	      "set logscale y\n"
	      "set grid\n"
	      "set key below\n", f);
	for (i = 0; i < d->n_series; i++) {
		const struct plot_series *s = &d->series[i];
		const struct level_summary *pass = NULL, *fail = NULL, *l;
		double x;
		char name[48];

		if (!s->is_cap)
			continue;
		for (k = 0; k < s->run.n_levels; k++) {
			l = &s->run.levels[k];
			x = report_level_load(&s->cap, l);
			if (isnan(x))
				continue;
			if (plot_verdict(s, l) == CAPACITY_PASS &&
			    (!pass || x > report_level_load(&s->cap, pass)))
				pass = l;
			else if (plot_verdict(s, l) != CAPACITY_PASS &&
				 (!fail || x < report_level_load(&s->cap, fail)))
				fail = l;
		}
		if (pass && !isnan(plot_level_rps(pass))) {
			marks++;
			fprintf(f, "set arrow %d from %.4f, graph 0 to %.4f, graph 1 nohead lc %zu lw 2\n"
				"set label %d 'capacity %s' at %.4f, graph 0.95 right offset -0.5,0\n",
				marks, plot_level_rps(pass), plot_level_rps(pass), i + 1, marks,
				metric_load_name(pass->level, pass->offered_rps, name, sizeof(name)),
				plot_level_rps(pass));
		}
		if (fail && (!pass || report_level_load(&s->cap, fail) >
			     report_level_load(&s->cap, pass)) && !isnan(plot_level_rps(fail))) {
			marks++;
			fprintf(f, "set arrow %d from %.4f, graph 0 to %.4f, graph 1 nohead lc %zu dt 2\n"
				"set label %d 'fails %s' at %.4f, graph 0.88 left offset 0.5,0\n",
				marks, plot_level_rps(fail), plot_level_rps(fail), i + 1, marks,
				metric_load_name(fail->level, fail->offered_rps, name, sizeof(name)),
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
		if (s->slo.ttft_ms > 0)
			fprintf(f, ", \\\n     %.3f with lines lc %zu dt 4 title 'SLO TTFT %g ms'",
				s->slo.ttft_ms, i + 1, s->slo.ttft_ms);
		if (s->slo.e2e_ms > 0)
			fprintf(f, ", \\\n     %.3f with lines lc %zu dt 5 title 'SLO E2E %g ms'",
				s->slo.e2e_ms, i + 1, s->slo.e2e_ms);
		block++;
	}
	fputc('\n', f);
}

/* The highest turn index of any run's sessions, + 1 (0: no sessions). */
static long plot_max_turn(const struct plot_data *d)
{
	long max = 0;
	size_t i;

	for (i = 0; i < d->n_series; i++)
		if (d->series[i].n_turns &&
		    d->series[i].turns[d->series[i].n_turns - 1].turn + 1 > max)
			max = d->series[i].turns[d->series[i].n_turns - 1].turn + 1;
	return max;
}

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

	plot_preamble(f, d, "ttft_by_turn", "TTFT by turn index of the sessions");
	plot_title(f, d, "Time to first token by turn of the session");
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

/* Does the run set have anything for the timeline and CDF plots? */
static int plot_has_requests(const struct plot_data *d)
{
	size_t i;

	for (i = 0; i < d->n_series; i++)
		if (d->series[i].n_ttft && d->series[i].n_e2e)
			return 1;
	return 0;
}

/* Writes dir/name through an exclusive temporary file renamed into place
 * (lib/tmpfile.h: a planted link is never followed). */
static int plot_write_file(const char *dir, const char *name,
			   void (*fill)(FILE *, const struct plot_data *),
			   const struct plot_data *d, char *err, size_t errlen)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	FILE *f;

	if (plot_path(path, dir, name, "")) {
		errmsg_set(err, errlen, "cannot write '%s/%s': path too long", dir, name);
		return DB_ERR_WORK;
	}
	f = tmpfile_create(path, tmp, sizeof(tmp));
	if (!f) {
		errmsg_set(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		return DB_ERR_WORK;
	}
	fill(f, d);
	if (tmpfile_commit(f, tmp, path) != 0) {
		errmsg_set(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		return DB_ERR_WORK;
	}
	return DB_OK;
}

/* What the child reports through the pipe when it cannot exec gnuplot. */
struct plot_exec_failure {
	int in_chdir;   /* 1: chdir(dir) failed, 0: execvp failed */
	int errnum;
};

/* In the child: go to dir, stdin from /dev/null, exec gnuplot with the
 * image's temporary name set. Never returns. */
static void plot_child(const char *dir, const char *script, const char *set_output,
		       int report_fd)
{
	char *argv[] = { (char *)"gnuplot", (char *)"-e", (char *)set_output, (char *)script,
			 NULL };
	struct plot_exec_failure why = { 1, 0 };
	int null_fd;

	if (chdir(dir) == 0) {
		why.in_chdir = 0;
		null_fd = open("/dev/null", O_RDONLY);
		if (null_fd >= 0 && null_fd != STDIN_FILENO) {
			dup2(null_fd, STDIN_FILENO);
			close(null_fd);
		}
		execvp(argv[0], argv);
	}
	why.errnum = errno;
	if (write(report_fd, &why, sizeof(why)) < 0)
		_exit(127);
	_exit(127);
}

static int plot_gnuplot(const char *dir, const char *script, const char *set_output,
			int *missing, char *err, size_t errlen);

/*
 * Renders the script in dir into its image, dir/image: gnuplot writes a
 * file created exclusively under a fresh name (lib/tmpfile.h), renamed
 * into place when it succeeded, so a link planted at the image's name is
 * replaced, never written through. Sets *missing when gnuplot is not on
 * PATH.
 */
static int plot_render(const char *dir, const char *script, const char *image, int *missing,
		       char *err, size_t errlen)
{
	char path[PATH_MAX], tmp[PATH_MAX + sizeof(TMPFILE_SUFFIX)], set[PATH_MAX + 32];
	const char *base;
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, image);
	if (!(f = tmpfile_create(path, tmp, sizeof(tmp)))) {
		errmsg_set(err, errlen, "cannot create '%s': %s", path, strerror(errno));
		return DB_ERR_WORK;
	}
	fclose(f);
	base = strrchr(tmp, '/') ? strrchr(tmp, '/') + 1 : tmp;
	snprintf(set, sizeof(set), "tb_output = '%s'", base);
	rc = plot_gnuplot(dir, script, set, missing, err, errlen);
	if (rc == DB_OK && !*missing && rename(tmp, path) != 0) {
		errmsg_set(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		rc = DB_ERR_WORK;
	}
	if (rc != DB_OK || *missing)
		unlink(tmp);
	return rc;
}

/*
 * Runs gnuplot on the script in dir and waits for it. Sets *missing when
 * gnuplot is not on PATH. The close-on-exec pipe tells an exec failure
 * (the child writes why) from gnuplot's own exit status (EOF).
 */
static int plot_gnuplot(const char *dir, const char *script, const char *set_output,
			int *missing, char *err, size_t errlen)
{
	struct plot_exec_failure why;
	int fds[2];
	ssize_t got;
	pid_t pid;
	int status;

	*missing = 0;
	if (pipe(fds) != 0 || fcntl(fds[1], F_SETFD, FD_CLOEXEC) != 0) {
		errmsg_set(err, errlen, "cannot run gnuplot: %s", strerror(errno));
		return DB_ERR_WORK;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		errmsg_set(err, errlen, "cannot run gnuplot: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return DB_ERR_WORK;
	}
	if (pid == 0) {
		close(fds[0]);
		plot_child(dir, script, set_output, fds[1]);
	}
	close(fds[1]);
	do
		got = read(fds[0], &why, sizeof(why));
	while (got < 0 && errno == EINTR);
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			errmsg_set(err, errlen, "cannot wait for gnuplot: %s", strerror(errno));
			return DB_ERR_WORK;
		}
	}
	if (got == (ssize_t)sizeof(why)) {
		if (!why.in_chdir && why.errnum == ENOENT) {
			*missing = 1;
			return DB_OK;
		}
		errmsg_set(err, errlen, why.in_chdir ? "cannot enter '%s': %s"
			    : "cannot run gnuplot in '%s': %s", dir, strerror(why.errnum));
		return DB_ERR_WORK;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return DB_OK;
	if (WIFEXITED(status))
		errmsg_set(err, errlen, "gnuplot failed on '%s/%s' (exit status %d)", dir,
			    script, WEXITSTATUS(status));
	else
		errmsg_set(err, errlen, "gnuplot failed on '%s/%s' (signal %d)", dir, script,
			    WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return DB_ERR_WORK;
}

/* One plot: its name and how to write its data and script. */
struct plot_kind {
	const char *name;
	void (*dat)(FILE *, const struct plot_data *);
	void (*gp)(FILE *, const struct plot_data *);
	int per_request;   /* needs requests with TTFT and E2E */
	int capacity;      /* needs a run of replay --find-capacity */
	int sessions;      /* needs turns of sessions */
	int closed;        /* needs concurrency levels */
};

/* Is there anything to draw plot p from? */
static int plot_wanted(const struct plot_kind *p, const struct plot_data *d)
{
	if (p->per_request && !plot_has_requests(d))
		return 0;
	if (p->sessions && !plot_max_turn(d))
		return 0;
	if (p->closed && !d->n_levels)
		return 0;
	return !p->capacity || plot_has_capacity(d);
}

static const struct plot_kind plot_kinds[] = {
	{ "scaling", plot_scaling_dat, plot_scaling_gp, 0, 0, 0, 1 },
	{ "ttft_percentiles", plot_ttft_dat, plot_ttft_gp, 0, 0, 0, 1 },
	{ "latency_cdf", plot_cdf_dat, plot_cdf_gp, 1, 0, 0, 0 },
	{ "ttft_timeline", plot_timeline_dat, plot_timeline_gp, 1, 0, 0, 0 },
	{ "load_curve", plot_curve_dat, plot_curve_gp, 0, 1, 0, 0 },
	{ "ttft_by_turn", plot_turns_dat, plot_turns_gp, 0, 0, 1, 0 },
};

/*
 * Refuses (DB_ERR_INPUT) when any file plot_write would write in dir is
 * there already: NAME.dat, NAME.gp and the image of each plot. Checked
 * before anything is written, so a refused plot leaves dir as it was.
 */
static int plot_check_free(const char *dir, const struct plot_data *d, char *err,
			   size_t errlen)
{
	static const char *const kinds[] = { "dat", "gp", NULL };
	char path[PATH_MAX], suffix[8];
	struct stat sb;
	size_t k, e;

	for (k = 0; k < sizeof(plot_kinds) / sizeof(plot_kinds[0]); k++) {
		if (!plot_wanted(&plot_kinds[k], d))
			continue;
		for (e = 0; e < 3; e++) {
			snprintf(suffix, sizeof(suffix), ".%s", kinds[e] ? kinds[e] : plot_exts[d->fmt]);
			if (plot_path(path, dir, plot_kinds[k].name, suffix))
				continue;   /* plot_write_file says so */
			if (lstat(path, &sb) == 0) {
				errmsg_set(err, errlen, "'%s' already exists (use --force to replace it)",
					    path);
				return DB_ERR_INPUT;
			}
		}
	}
	return DB_OK;
}

static void plot_note_file(struct plot_output *out, const char *name, const char *ext)
{
	if (out->n_files < PLOT_MAX_FILES)
		snprintf(out->files[out->n_files++], sizeof(out->files[0]), "%s.%s", name, ext);
}

int plot_write(struct db *db, const char *const *labels, size_t n_labels, const char *dir,
	       enum plot_format fmt, int force, struct plot_output *out, char *err,
	       size_t errlen)
{
	struct plot_data d = { NULL, 0, NULL, 0, fmt };
	char name[64], image[64];
	size_t k;
	int missing = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = plot_load_data(db, labels, n_labels, &d, err, errlen);
	if (rc)
		goto cleanup;
	rc = plot_make_dir(dir, err, errlen);
	if (rc)
		goto cleanup;
	if (!force && (rc = plot_check_free(dir, &d, err, errlen)))
		goto cleanup;
	for (k = 0; k < sizeof(plot_kinds) / sizeof(plot_kinds[0]); k++) {
		const struct plot_kind *p = &plot_kinds[k];

		if (!plot_wanted(p, &d))
			continue;
		snprintf(name, sizeof(name), "%s.dat", p->name);
		rc = plot_write_file(dir, name, p->dat, &d, err, errlen);
		if (rc)
			goto cleanup;
		plot_note_file(out, p->name, "dat");
		snprintf(name, sizeof(name), "%s.gp", p->name);
		rc = plot_write_file(dir, name, p->gp, &d, err, errlen);
		if (rc)
			goto cleanup;
		plot_note_file(out, p->name, "gp");
		if (missing)
			continue;
		snprintf(image, sizeof(image), "%s.%s", p->name, plot_exts[fmt]);
		rc = plot_render(dir, name, image, &missing, err, errlen);
		if (rc)
			goto cleanup;
		if (!missing)
			plot_note_file(out, p->name, plot_exts[fmt]);
	}
	out->rendered = !missing;
	out->gnuplot_missing = missing;
cleanup:
	plot_data_release(&d);
	return rc;
}
