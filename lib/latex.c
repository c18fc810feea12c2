/*
 * latex.c - Markdown tables as LaTeX tabulars; see latex.h.
 */
#include "latex.h"

#include <string.h>

/* Most columns a table keeps; cells past it are dropped (the reports'
 * widest table has fewer than 40). */
#define LATEX_MAX_COLS 128

/* One line of the Markdown: [s, s + n). */
struct latex_line {
	const char *s;
	size_t n;
};

/* The next line of md from *pos (without its newline), or 0 at the end. */
static int latex_next_line(const char *md, size_t len, size_t *pos, struct latex_line *l)
{
	const char *nl;

	if (*pos >= len)
		return 0;
	l->s = md + *pos;
	nl = memchr(l->s, '\n', len - *pos);
	l->n = nl ? (size_t)(nl - l->s) : len - *pos;
	*pos += l->n + (nl != NULL);
	return 1;
}

static int latex_is_row(const struct latex_line *l)
{
	return l->n >= 2 && l->s[0] == '|';
}

/* A separator row: only '|', '-', ':' and spaces, at least one '-'. */
static int latex_is_separator(const struct latex_line *l)
{
	size_t i, dashes = 0;

	if (!latex_is_row(l))
		return 0;
	for (i = 0; i < l->n; i++) {
		if (!strchr("|-: ", l->s[i]))
			return 0;
		dashes += l->s[i] == '-';
	}
	return dashes > 0;
}

/*
 * Splits row l into its cells: start and length of each, trimmed, between
 * '|' that are not escaped ("\|" is a '|' of the text). Returns how many.
 */
static size_t latex_cells(const struct latex_line *l, size_t *start, size_t *len)
{
	size_t i = 1, n = 0, a = 1, b;

	for (; i <= l->n; i++) {
		if (i < l->n && !(l->s[i] == '|' && l->s[i - 1] != '\\'))
			continue;
		if (i == l->n && a >= l->n)
			break;   /* the row's closing '|' */
		b = i;
		while (a < b && l->s[a] == ' ')
			a++;
		while (b > a && l->s[b - 1] == ' ')
			b--;
		if (n < LATEX_MAX_COLS) {
			start[n] = a;
			len[n++] = b - a;
		}
		a = i + 1;
	}
	return n;
}

/* One cell's text, escaped for LaTeX. */
static void latex_text(FILE *out, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c == '\\' && i + 1 < n && s[i + 1] == '|') {
			fputs("\\textbar{}", out);
			i++;
			continue;
		}
		switch (c) {
		case '\\': fputs("\\textbackslash{}", out); break;
		case '&': case '%': case '$': case '#': case '_': case '{': case '}':
			fputc('\\', out);
			fputc(c, out);
			break;
		case '~': fputs("\\textasciitilde{}", out); break;
		case '^': fputs("\\textasciicircum{}", out); break;
		case '<': fputs("\\textless{}", out); break;
		case '>': fputs("\\textgreater{}", out); break;
		case '|': fputs("\\textbar{}", out); break;
		default:
			/* control bytes (table.c writes none) as spaces */
			fputc((unsigned char)c < 0x20 ? ' ' : c, out);
		}
	}
}

/* A line that is not a table, as a comment; control bytes (a carriage
 * return would end the comment for TeX) as spaces. */
static void latex_comment(FILE *out, const struct latex_line *l)
{
	size_t i;

	fputs("% ", out);
	for (i = 0; i < l->n; i++)
		fputc((unsigned char)l->s[i] < 0x20 ? ' ' : l->s[i], out);
}

static void latex_row(FILE *out, const struct latex_line *l, size_t n_cols)
{
	size_t start[LATEX_MAX_COLS], len[LATEX_MAX_COLS], n = latex_cells(l, start, len), k;

	for (k = 0; k < n_cols; k++) {
		if (k)
			fputs(" & ", out);
		if (k < n)
			latex_text(out, l->s + start[k], len[k]);
	}
	fputs(" \\\\\n", out);
}

/* \begin{tabular}{...} with the separator's alignments; its column count. */
static size_t latex_begin(FILE *out, const struct latex_line *sep)
{
	size_t start[LATEX_MAX_COLS], len[LATEX_MAX_COLS], n = latex_cells(sep, start, len), k;

	fputs("\\begin{tabular}{", out);
	for (k = 0; k < n; k++) {
		const char *c = sep->s + start[k];
		int left = len[k] && c[0] == ':', right = len[k] && c[len[k] - 1] == ':';

		fputc(left && right ? 'c' : right ? 'r' : 'l', out);
	}
	fputs("}\n\\toprule\n", out);
	return n;
}

int latex_from_markdown(FILE *out, const char *md, size_t len)
{
	struct latex_line l, next;
	size_t pos = 0, n_cols, after;

	while (latex_next_line(md, len, &pos, &l)) {
		after = pos;
		if (latex_is_row(&l) && latex_next_line(md, len, &after, &next) &&
		    latex_is_separator(&next)) {
			pos = after;
			n_cols = latex_begin(out, &next);
			latex_row(out, &l, n_cols);
			fputs("\\midrule\n", out);
			for (after = pos; latex_next_line(md, len, &after, &next) &&
			     latex_is_row(&next); pos = after)
				latex_row(out, &next, n_cols);
			fputs("\\bottomrule\n\\end{tabular}\n", out);
			continue;
		}
		if (l.n)
			latex_comment(out, &l);
		fputc('\n', out);
	}
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
