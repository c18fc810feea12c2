/*
 * mdtable.c - the reports' Markdown as lines and tables; see mdtable.h.
 */
#include "mdtable.h"

#include <stdlib.h>
#include <string.h>

/* Where a reader stands: outside a table, after its BEGIN (the header row
 * due), or in its body. */
enum { MDTABLE_OUT, MDTABLE_HEAD, MDTABLE_BODY };

/* One line of the Markdown: [s, s + n). */
struct mdtable_line {
	const char *s;
	size_t n;
};

/* The next line of md from *pos (without its newline), or 0 at the end. */
static int mdtable_line_at(const struct mdtable *t, size_t *pos, struct mdtable_line *l)
{
	const char *nl;

	if (*pos >= t->len)
		return 0;
	l->s = t->md + *pos;
	nl = memchr(l->s, '\n', t->len - *pos);
	l->n = nl ? (size_t)(nl - l->s) : t->len - *pos;
	*pos += l->n + (nl != NULL);
	return 1;
}

static int mdtable_is_row(const struct mdtable_line *l)
{
	return l->n >= 2 && l->s[0] == '|';
}

/* A separator row: only '|', '-', ':' and spaces, at least one '-'. */
static int mdtable_is_separator(const struct mdtable_line *l)
{
	size_t i, dashes = 0;

	if (!mdtable_is_row(l))
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
 * '|' that are not escaped ("\|" is a '|' of the text). Returns how many
 * (at most MDTABLE_MAX_COLS).
 */
static size_t mdtable_split(const struct mdtable_line *l, size_t *start, size_t *len)
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
		if (n < MDTABLE_MAX_COLS) {
			start[n] = a;
			len[n++] = b - a;
		}
		a = i + 1;
	}
	return n;
}

/* The separator's column count and alignments into t. */
static void mdtable_columns(struct mdtable *t, const struct mdtable_line *sep)
{
	size_t start[MDTABLE_MAX_COLS], len[MDTABLE_MAX_COLS], k;

	t->n_cols = mdtable_split(sep, start, len);
	for (k = 0; k < t->n_cols; k++) {
		const char *c = sep->s + start[k];
		int left = len[k] && c[0] == ':', right = len[k] && c[len[k] - 1] == ':';

		t->align[k] = left && right ? MDTABLE_CENTER : right ? MDTABLE_RIGHT : MDTABLE_LEFT;
	}
}

/* Row l as t's cells: its text copied into t->buf with "\|" as '|', padded
 * with empty cells to n_cols. Returns 0, or -1 out of memory. */
static int mdtable_cells(struct mdtable *t, const struct mdtable_line *l)
{
	size_t start[MDTABLE_MAX_COLS], len[MDTABLE_MAX_COLS], n = mdtable_split(l, start, len);
	size_t k, i, used = 0;

	if (l->n + 1 > t->cap) {
		char *b = realloc(t->buf, l->n + 1);

		if (!b)
			return -1;
		t->buf = b;
		t->cap = l->n + 1;
	}
	for (k = 0; k < t->n_cols; k++) {
		t->cells[k].s = t->buf + used;
		t->cells[k].n = 0;
		if (k >= n)
			continue;
		for (i = 0; i < len[k]; i++) {
			const char *c = l->s + start[k] + i;

			if (c[0] == '\\' && i + 1 < len[k] && c[1] == '|')
				continue;   /* the '|' follows */
			t->buf[used++] = *c;
			t->cells[k].n++;
		}
	}
	return 0;
}

void mdtable_init(struct mdtable *t, const char *md, size_t len)
{
	memset(t, 0, sizeof(*t));
	t->md = md;
	t->len = len;
	t->state = MDTABLE_OUT;
}

int mdtable_next(struct mdtable *t)
{
	struct mdtable_line l, next;
	size_t after;

	t->header = 0;
	if (t->state == MDTABLE_HEAD) {
		l.s = t->head;
		l.n = t->head_len;
		if (mdtable_cells(t, &l))
			return -1;
		t->kind = MDTABLE_ROW;
		t->header = 1;
		t->state = MDTABLE_BODY;
		return 1;
	}
	if (t->state == MDTABLE_BODY) {
		after = t->pos;
		if (mdtable_line_at(t, &after, &l) && mdtable_is_row(&l)) {
			if (mdtable_cells(t, &l))
				return -1;
			t->pos = after;
			t->kind = MDTABLE_ROW;
			return 1;
		}
		t->kind = MDTABLE_END;
		t->state = MDTABLE_OUT;
		return 1;
	}
	if (!mdtable_line_at(t, &t->pos, &l))
		return 0;
	after = t->pos;
	if (mdtable_is_row(&l) && mdtable_line_at(t, &after, &next) &&
	    mdtable_is_separator(&next)) {
		t->pos = after;
		mdtable_columns(t, &next);
		t->head = l.s;
		t->head_len = l.n;
		t->kind = MDTABLE_BEGIN;
		t->state = MDTABLE_HEAD;
		return 1;
	}
	t->kind = MDTABLE_LINE;
	t->line = l.s;
	t->line_len = l.n;
	return 1;
}

void mdtable_release(struct mdtable *t)
{
	free(t->buf);
	t->buf = NULL;
	t->cap = 0;
}
