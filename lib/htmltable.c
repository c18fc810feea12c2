/*
 * htmltable.c - Markdown tables and notes as HTML; see htmltable.h. The
 * Markdown is read by lib/mdtable.c; this file writes what it reads.
 */
#include "htmltable.h"
#include "mdtable.h"

/* The block a line of text is in: none, a <p> or a <ul>. */
enum { HT_NONE, HT_PARA, HT_LIST };

void htmltable_put_text(FILE *out, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			/* a control byte is a parse error in HTML: a space */
			fputc(c < 0x20 || c == 0x7f ? ' ' : c, out);
		}
	}
}

/* A line's text: escaped, Markdown's "\|" as '|'. */
static void ht_line_text(FILE *out, const char *s, size_t n)
{
	size_t i, from = 0;

	for (i = 0; i + 1 < n; i++) {
		if (s[i] == '\\' && s[i + 1] == '|') {
			htmltable_put_text(out, s + from, i - from);
			from = i + 1;
			i++;
		}
	}
	htmltable_put_text(out, s + from, n - from);
}

static void ht_close(FILE *out, int *block)
{
	if (*block == HT_PARA)
		fputs("</p>\n", out);
	else if (*block == HT_LIST)
		fputs("</ul>\n", out);
	*block = HT_NONE;
}

/* A line outside tables, into the open block or a new one. */
static void ht_line(FILE *out, const char *s, size_t n, int *block)
{
	size_t hashes = 0;

	while (n && s[n - 1] == ' ')
		n--;   /* Markdown's hard break, "  " at the end: every line is one */
	if (!n) {
		ht_close(out, block);
		return;
	}
	while (hashes < n && hashes < 7 && s[hashes] == '#')
		hashes++;
	if (hashes >= 1 && hashes <= 6 && hashes < n && s[hashes] == ' ') {
		int level = hashes < 2 ? 2 : (int)hashes;

		ht_close(out, block);
		fprintf(out, "<h%d>", level);
		ht_line_text(out, s + hashes + 1, n - hashes - 1);
		fprintf(out, "</h%d>\n", level);
		return;
	}
	if (n >= 2 && s[0] == '-' && s[1] == ' ') {
		if (*block != HT_LIST) {
			ht_close(out, block);
			fputs("<ul>\n", out);
			*block = HT_LIST;
		}
		fputs("<li>", out);
		ht_line_text(out, s + 2, n - 2);
		fputs("</li>\n", out);
		return;
	}
	if (*block == HT_PARA) {
		fputs("<br>\n", out);
	} else {
		ht_close(out, block);
		fputs("<p>", out);
		*block = HT_PARA;
	}
	ht_line_text(out, s, n);
}

static void ht_row(FILE *out, const struct mdtable *t, int *tbody)
{
	static const char *const cls[] = { [MDTABLE_LEFT] = "", [MDTABLE_RIGHT] = " class=\"num\"",
					   [MDTABLE_CENTER] = " class=\"mid\"" };
	const char *cell = t->header ? "th" : "td";
	size_t k;

	if (t->header) {
		fputs("<thead>\n", out);
	} else if (!*tbody) {
		fputs("<tbody>\n", out);
		*tbody = 1;
	}
	fputs("<tr>", out);
	for (k = 0; k < t->n_cols; k++) {
		fprintf(out, "<%s%s>", cell, cls[t->align[k]]);
		htmltable_put_text(out, t->cells[k].s, t->cells[k].n);
		fprintf(out, "</%s>", cell);
	}
	fputs("</tr>\n", out);
	if (t->header)
		fputs("</thead>\n", out);
}

int htmltable_from_markdown(FILE *out, const char *md, size_t len)
{
	struct mdtable t;
	int rc, block = HT_NONE, tbody = 0;

	mdtable_init(&t, md, len);
	while ((rc = mdtable_next(&t)) == 1) {
		switch (t.kind) {
		case MDTABLE_LINE:
			ht_line(out, t.line, t.line_len, &block);
			break;
		case MDTABLE_BEGIN:
			ht_close(out, &block);
			fputs("<table>\n", out);
			tbody = 0;
			break;
		case MDTABLE_ROW:
			ht_row(out, &t, &tbody);
			break;
		case MDTABLE_END:
			fputs(tbody ? "</tbody>\n</table>\n" : "</table>\n", out);
			break;
		}
	}
	mdtable_release(&t);
	if (rc)
		return -1;
	ht_close(out, &block);
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
