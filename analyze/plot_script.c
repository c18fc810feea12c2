/*
 * plot_script.c - what every figure's gnuplot script shares; see
 * plot_script.h.
 */
#include "analyze/plot_script.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/*
 * Sizes (plot_script.h): each figure is drawn at the size it is printed,
 * a paper's column (3.5 in) or its text width (7 in), with every word of
 * it (title, axis labels, ticks, key) in 8-point type. The SVG counts 144
 * units to the inch, so a column figure is 504 units wide with 16-unit
 * text, and keeps those proportions at any size it is shown. The cairo
 * terminals (PDF, PNG) draw a font asked for at N points at 2/3 N (their
 * text layout assumes 96 dots to the inch, the PDF's point is 1/72 in:
 * measured, tests/cli/t0312), so they are asked for 12 to give 8. The PNG
 * is 288 pixels to the inch, lines twice as wide, for print as well.
 */
#define PLOT_SVG_PER_IN   144
#define PLOT_PNG_PER_IN   288
#define PLOT_SVG_FONT     "sans,16"
#define PLOT_CAIRO_FONT   "sans,12"
#define PLOT_PNG_FONT     "sans,24"

static const char *const plot_exts[] = { "png", "svg", "pdf" };

const char *plot_ext(enum plot_format fmt)
{
	return plot_exts[fmt];
}

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

/* The byte offset of s's k-th character from its start (UTF-8: a
 * continuation byte is no character's start), or its length. */
static size_t gp_char_offset(const char *s, size_t len, size_t k)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80 && k-- == 0)
			break;
	return i;
}

/* A label of more than PLOT_LABEL_MAX characters as its first and last
 * ones around "...": a key entry of a column-wide figure must fit its
 * width, and runs often differ at the end of their labels. */
static void gp_string_label(struct gp_string *g, const char *label)
{
	size_t len = label ? strlen(label) : 0, chars = 0, i, head, tail;
	char buf[4 * PLOT_LABEL_MAX + 8];

	for (i = 0; i < len; i++)
		chars += ((unsigned char)label[i] & 0xc0) != 0x80;
	if (chars <= PLOT_LABEL_MAX) {
		gp_string_chars(g, label);
		return;
	}
	head = gp_char_offset(label, len, (PLOT_LABEL_MAX - 3) / 2 + 1);
	tail = gp_char_offset(label, len, chars - (PLOT_LABEL_MAX - 3) / 2);
	if (head + 3 + (len - tail) >= sizeof(buf)) {   /* overlong sequences */
		gp_string_chars(g, "...");
		return;
	}
	snprintf(buf, sizeof(buf), "%.*s...%s", (int)head, label, label + tail);
	gp_string_chars(g, buf);
}

/* Writes prefix, label (shortened to PLOT_LABEL_MAX characters) and
 * suffix as one gnuplot string expression. */
void plot_put_gp_title(FILE *f, const char *prefix, const char *label, const char *suffix)
{
	struct gp_string g = { f, 0, 0 };

	gp_string_chars(&g, prefix);
	gp_string_label(&g, label);
	gp_string_chars(&g, suffix);
	gp_string_end(&g);
}

/* A number for the .dat file, '?' (gnuplot's "missing") when there is none. */
void plot_put_value(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs(" ?", f);
	else
		fprintf(f, " %.3f", v);
}

void plot_preamble(FILE *f, const struct plot_data *d, const char *name, const char *what,
		   size_t key_lines)
{
	plot_preamble_sized(f, d, name, what, PLOT_COLUMN_IN, plot_keyed_height(key_lines));
}

double plot_keyed_height(size_t key_lines)
{
	/* a key below the graph takes a line of 8-point type and a half per
	 * entry when they go one a line: the figure grows by the lines past
	 * the second rather than squeezing the graph (ticks would overlap) */
	return PLOT_COLUMN_IN * 0.75 + (key_lines > 2 ? 0.16 * (double)(key_lines - 2) : 0);
}

void plot_preamble_sized(FILE *f, const struct plot_data *d, const char *name, const char *what,
			 double width_in, double height_in)
{
	const char *ext = plot_ext(d->fmt);
	int png_w = (int)lround(width_in * PLOT_PNG_PER_IN);
	int png_h = (int)lround(height_in * PLOT_PNG_PER_IN);

	fprintf(f, "# %s.gp - %s, written by tracebench analyze plot.\n"
		"# Reads %s.dat and writes %s.%s in the current directory:\n"
		"#   cd DIR && gnuplot %s.gp\n"
		"# Drawn at its printed size, %.2f x %.2f in, in 8-point type.\n", name, what,
		name, name, ext, name, width_in, height_in);
	fputs(PLOT_GP_QUOTE_VAR " = sprintf('%c', 39)   # a quote, for labels that hold one\n", f);
	switch (d->fmt) {
	case PLOT_PNG:
		fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
			"    set terminal pngcairo noenhanced size %d,%d font '" PLOT_PNG_FONT "' "
			"linewidth 2\n"
			"} else {\n"
			"    set terminal png noenhanced size %d,%d\n"
			"}\n", png_w, png_h, png_w, png_h);
		break;
	case PLOT_SVG:
		fprintf(f, "set terminal svg noenhanced size %d,%d font '" PLOT_SVG_FONT "'\n",
			(int)lround(width_in * PLOT_SVG_PER_IN),
			(int)lround(height_in * PLOT_SVG_PER_IN));
		break;
	case PLOT_PDF:
		fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pdfcairo') > 0) {\n"
			"    set terminal pdfcairo noenhanced size %.3fin,%.3fin font '"
			PLOT_CAIRO_FONT "'\n"
			"} else {\n"
			"    print 'this gnuplot has no pdfcairo terminal; try png or svg'\n"
			"    exit status 1\n"
			"}\n", width_in, height_in);
		break;
	}
	/* one colour per run in every figure: the Okabe-Ito palette, which
	 * readers with any common colour-vision deficiency tell apart */
	fputs("set linetype 1 lc rgb '#0072B2'\n"
	      "set linetype 2 lc rgb '#D55E00'\n"
	      "set linetype 3 lc rgb '#009E73'\n"
	      "set linetype 4 lc rgb '#CC79A7'\n"
	      "set linetype 5 lc rgb '#E69F00'\n"
	      "set linetype 6 lc rgb '#56B4E9'\n"
	      "set linetype 7 lc rgb '#000000'\n"
	      "set linetype 8 lc rgb '#F0E442'\n"
	      "set linetype cycle 8\n", f);
	/* gnuplot reckons a key entry a sixth wider than 8-point sans
	 * draws it (measured: "two<script>alert(1)</script>: per request"
	 * warned at a column's width below width -6): taken back six
	 * characters, with a shorter sample, labels of 40 characters fit;
	 * longer ones may run past the figure's edge, and gnuplot says so.
	 * One entry a line: two side by side would then touch, and the
	 * figure's height counts a line an entry (plot_keyed_height). */
	fputs("set key samplen 3 width -6 maxcols 1\n", f);
	/* tracebench's own run renders to a fresh temporary name it renames
	 * into place (plot_render); run by hand, the script writes NAME.EXT */
	fprintf(f, "if (!exists(\"tb_output\")) tb_output = '%s.%s'\nset output tb_output\n",
		name, ext);
}

double plot_axis_tics(FILE *f, const char *axis, double lo, double hi)
{
	static const double nice[] = { 1, 2, 2.5, 5, 10 };
	double raw = (hi - lo) / 4, mag, step = 0;
	size_t i;

	if (!(raw > 0) || !isfinite(raw)) {
		fprintf(f, "set %stics autofreq\n", axis);
		return NAN;
	}
	mag = pow(10, floor(log10(raw)));
	for (i = 0; i < sizeof(nice) / sizeof(nice[0]) && !(step >= raw); i++)
		step = nice[i] * mag;
	fprintf(f, "set %stics %.6g\n", axis, step);
	return step;
}

/* "set title 'WHAT'" or, for one run, "set title 'WHAT: LABEL'". */
void plot_title(FILE *f, const struct plot_data *d, const char *what)
{
	fputs("set title ", f);
	if (d->n_series == 1)
		plot_put_gp_title(f, what, ": ", d->series[0].label);
	else
		plot_put_gp_string(f, what);
	fputc('\n', f);
}

/* log2 x axis with a tic at each level. */
void plot_level_axis(FILE *f, const struct plot_data *d)
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
void plot_level_table(FILE *f, const struct plot_data *d, size_t nvals,
		      void (*get)(const struct level_summary *, double *))
{
	const struct level_summary *s;
	double v[8];
	size_t i, j, k;

	for (i = 0; i < d->n_levels; i++) {
		fprintf(f, "%d", d->levels[i]);
		for (j = 0; j < d->n_series; j++) {
			s = run_level(&d->series[j].run, load_closed(d->levels[i]));
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
