/*
 * latex.c - Markdown tables as LaTeX tabulars; see latex.h. The Markdown
 * is read by lib/mdtable.c; this file writes what it reads as LaTeX.
 */
#include "latex.h"
#include "mdtable.h"

/* One cell's text, escaped for LaTeX. */
static void latex_text(FILE *out, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char c = s[i];

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
static void latex_comment(FILE *out, const char *s, size_t n)
{
	size_t i;

	fputs("% ", out);
	for (i = 0; i < n; i++)
		fputc((unsigned char)s[i] < 0x20 ? ' ' : s[i], out);
}

static void latex_row(FILE *out, const struct mdtable *t)
{
	size_t k;

	for (k = 0; k < t->n_cols; k++) {
		if (k)
			fputs(" & ", out);
		latex_text(out, t->cells[k].s, t->cells[k].n);
	}
	fputs(" \\\\\n", out);
}

/* \begin{tabular}{...} with the separator's alignments. */
static void latex_begin(FILE *out, const struct mdtable *t)
{
	static const char col[] = { [MDTABLE_LEFT] = 'l', [MDTABLE_RIGHT] = 'r',
				    [MDTABLE_CENTER] = 'c' };
	size_t k;

	fputs("\\begin{tabular}{", out);
	for (k = 0; k < t->n_cols; k++)
		fputc(col[t->align[k]], out);
	fputs("}\n\\toprule\n", out);
}

int latex_from_markdown(FILE *out, const char *md, size_t len)
{
	struct mdtable t;
	int rc;

	mdtable_init(&t, md, len);
	while ((rc = mdtable_next(&t)) == 1) {
		switch (t.kind) {
		case MDTABLE_LINE:
			if (t.line_len)
				latex_comment(out, t.line, t.line_len);
			fputc('\n', out);
			break;
		case MDTABLE_BEGIN:
			latex_begin(out, &t);
			break;
		case MDTABLE_ROW:
			latex_row(out, &t);
			if (t.header)
				fputs("\\midrule\n", out);
			break;
		case MDTABLE_END:
			fputs("\\bottomrule\n\\end{tabular}\n", out);
			break;
		}
	}
	mdtable_release(&t);
	if (rc)
		return -1;
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
