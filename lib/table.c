/*
 * table.c - one renderer for every table, and the only text, CSV and JSON
 * escapers; see table.h for the rules each applies.
 */
#include "table.h"

#include <math.h>
#include <string.h>

int table_format_parse(const char *s, enum table_format *out)
{
	static const struct { const char *name; enum table_format fmt; } names[] = {
		{ "text", TABLE_TEXT }, { "markdown", TABLE_MARKDOWN },
		{ "md", TABLE_MARKDOWN }, { "csv", TABLE_CSV }, { "json", TABLE_JSON },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(s, names[i].name) == 0) {
			*out = names[i].fmt;
			return 0;
		}
	}
	return -1;
}

/*
 * The length (2 to 4) of the well-formed UTF-8 sequence of a code point
 * above U+007F at s, its code point in *cp; 0 when s does not start one
 * (a stray continuation byte, an overlong form, a surrogate, a cut-off
 * sequence: the NUL at the end is no continuation byte).
 */
static size_t table_utf8(const unsigned char *s, unsigned *cp)
{
	unsigned v, min;
	size_t n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2, v = s[0] & 0x1fu, min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3, v = s[0] & 0x0fu, min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4, v = s[0] & 0x07u, min = 0x10000;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3fu);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

/*
 * Writes s as terminal text (markdown: a Markdown cell) to out, when out
 * is not NULL; returns its width in characters.
 */
static size_t table_text(FILE *out, const char *s, int markdown)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t width = 0, len;
	unsigned cp;

	while (*p) {
		width++;
		if (*p < 0x20 || *p == 0x7f) {
			if (out)
				fputc(' ', out);
			p++;
		} else if (*p < 0x80) {
			if (out && markdown && *p == '|')
				fputc('\\', out);
			width += markdown && *p == '|';
			if (out)
				fputc(*p, out);
			p++;
		} else if (!(len = table_utf8(p, &cp)) || cp <= 0x9f) {
			if (out)
				fputc('?', out);
			p += len ? len : 1;
		} else {
			if (out)
				fwrite(p, 1, len, out);
			p += len;
		}
	}
	return width;
}

void table_clean_text(char *s)
{
	unsigned char *p = (unsigned char *)s, *w = p;
	size_t len;
	unsigned cp;

	while (p && *p) {
		if (*p < 0x20 || *p == 0x7f) {
			*w++ = ' ';
			p++;
		} else if (*p < 0x80) {
			*w++ = *p++;
		} else if (!(len = table_utf8(p, &cp)) || cp <= 0x9f) {
			*w++ = '?';     /* w <= p: len was measured before */
			p += len ? len : 1;
		} else {
			memmove(w, p, len);
			w += len;
			p += len;
		}
	}
	if (w)
		*w = '\0';
}

void table_put_text(FILE *out, const char *s)
{
	table_text(out, s ? s : "", 0);
}

void table_put_json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len;
	unsigned cp;

	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	while (*p) {
		if (*p == '"' || *p == '\\') {
			fprintf(out, "\\%c", *p++);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(out, "\\u%04x", *p++);
		} else if (*p < 0x80) {
			fputc(*p++, out);
		} else if ((len = table_utf8(p, &cp)) != 0) {
			fwrite(p, 1, len, out);
			p += len;
		} else {
			fputs("\\ufffd", out);
			p++;
		}
	}
	fputc('"', out);
}

/* The length of the plain decimal number s starts with,
 * [-+]digits[.digits][e[-+]digits]; 0 when it starts with none. */
static size_t table_number_len(const char *s)
{
	const char *start = s;
	int digits = 0;

	s += *s == '-' || *s == '+';
	for (; *s >= '0' && *s <= '9'; s++)
		digits++;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits++;
	if (digits && (*s == 'e' || *s == 'E')) {
		s++;
		s += *s == '-' || *s == '+';
		if (!(*s >= '0' && *s <= '9'))
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return digits ? (size_t)(s - start) : 0;
}

/*
 * True when s is numbers alone, one or a list ("-2.5", "-4,-3,-2", "1, 2"):
 * a spreadsheet can take no formula from it, so it needs no guard. A
 * single number and a list are one class: a level list of rate levels
 * starts with '-' as a negative number does.
 */
static int table_is_numbers(const char *s)
{
	size_t n;

	for (;;) {
		if (!(n = table_number_len(s)))
			return 0;
		s += n;
		if (!*s)
			return 1;
		if (*s++ != ',')
			return 0;
		while (*s == ' ')
			s++;
	}
}

void table_put_csv_field(FILE *out, const char *s)
{
	int formula;

	if (!s)
		return;
	formula = *s && strchr("=+-@\t\r", *s) && !table_is_numbers(s);
	if (!formula && !strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	if (formula)
		fputc('\'', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* Is column i printed in t's format and groups? */
static int table_shows(const struct table *t, size_t i)
{
	const struct table_col *c = &t->cols[i];

	if (c->group && !(c->group & t->groups))
		return 0;
	return t->fmt == TABLE_TEXT || t->fmt == TABLE_MARKDOWN ? c->head != NULL : c->key != NULL;
}

void table_init(struct table *t, FILE *out, enum table_format fmt,
		const struct table_col *cols, size_t n_cols, unsigned groups)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	t->out = out;
	t->fmt = fmt;
	t->cols = cols;
	t->n_cols = n_cols < TABLE_MAX_COLS ? n_cols : TABLE_MAX_COLS;
	t->groups = groups;
	t->sep = " ";
	for (i = 0; i < t->n_cols; i++) {
		size_t w = cols[i].head ? table_text(NULL, cols[i].head, 0) : 0;

		if (cols[i].unit)
			w += 3 + table_text(NULL, cols[i].unit, 0);
		t->width[i] = cols[i].width > (int)w ? cols[i].width : (int)w;
	}
	for (i = 0; i < t->n_cols; i++)
		if (table_shows(t, i))
			t->last = i;
}

/* The text and Markdown cell of a number into buf: "-" for NaN. */
static const char *table_num_cell(char *buf, size_t len, const struct table_col *c, double v)
{
	if (isnan(v) || isinf(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, c->flags & TABLE_SIGN ? "%+.*f%s" : "%.*f%s", c->decimals,
			 v * (c->scale != 0 ? c->scale : 1), c->suffix ? c->suffix : "");
	return buf;
}

/* The text or Markdown cell of column i of row: its text, in buf for a number. */
static const char *table_cell(const struct table *t, size_t i, const void *row, char *buf,
			      size_t len)
{
	const struct table_col *c = &t->cols[i];
	const char *s;

	if (c->num) {
		const char *mark = c->mark ? c->mark(row, c->arg) : NULL;

		table_num_cell(buf, len, c, c->num(row, c->arg));
		if (mark)
			snprintf(buf + strlen(buf), len - strlen(buf), "%s", mark);
		return buf;
	}
	s = c->str(row, c->arg);
	return s ? s : "-";
}

void table_fit(struct table *t, const void *row)
{
	char buf[64];
	size_t i, w;

	for (i = 0; i < t->n_cols; i++) {
		w = table_text(NULL, table_cell(t, i, row, buf, sizeof(buf)), 0);
		if ((int)w > t->width[i])
			t->width[i] = (int)w;
	}
}

/* Writes one text or Markdown cell s (head: with its unit) of column i. */
static void table_put_cell(struct table *t, size_t i, const char *s, const char *unit,
			   int first)
{
	size_t w = table_text(NULL, s, t->fmt == TABLE_MARKDOWN);
	int left = (t->cols[i].flags & TABLE_LEFT) != 0;

	if (unit)
		w += 3 + table_text(NULL, unit, 0);
	if (t->fmt == TABLE_MARKDOWN) {
		fputs("| ", t->out);
	} else {
		if (!first)
			fputs(t->sep, t->out);
		for (; !left && (int)w < t->width[i]; w++)
			fputc(' ', t->out);
	}
	table_text(t->out, s, t->fmt == TABLE_MARKDOWN);
	if (unit) {
		fputs(" (", t->out);
		table_text(t->out, unit, t->fmt == TABLE_MARKDOWN);
		fputc(')', t->out);
	}
	if (t->fmt == TABLE_MARKDOWN)
		fputc(' ', t->out);
	else
		for (; left && (int)w < t->width[i] && i != t->last; w++)
			fputc(' ', t->out);
}

void table_begin(struct table *t)
{
	size_t i;
	int first = 1;

	if (t->fmt == TABLE_JSON) {
		fputc('[', t->out);
		return;
	}
	for (i = 0; i < t->n_cols; i++) {
		if (!table_shows(t, i))
			continue;
		if (t->fmt == TABLE_CSV)
			fprintf(t->out, "%s%s", first ? "" : ",", t->cols[i].key);
		else
			table_put_cell(t, i, t->cols[i].head, t->cols[i].unit, first);
		first = 0;
	}
	if (t->fmt == TABLE_MARKDOWN) {
		fputs("|\n", t->out);
		for (i = 0; i < t->n_cols; i++)
			if (table_shows(t, i))
				fputs(t->cols[i].flags & TABLE_LEFT ? "|:--" : "|--:", t->out);
		fputc('|', t->out);
	}
	fputc('\n', t->out);
}

/* One CSV or JSON value of column i of row. */
static void table_put_value(const struct table *t, size_t i, const void *row)
{
	const struct table_col *c = &t->cols[i];
	double v;

	if (c->str) {
		if (t->fmt == TABLE_CSV)
			table_put_csv_field(t->out, c->str(row, c->arg));
		else
			table_put_json_string(t->out, c->str(row, c->arg));
		return;
	}
	v = c->num(row, c->arg);
	if (t->fmt == TABLE_JSON && (c->flags & TABLE_BOOL) && !isnan(v))
		fputs(v != 0 ? "true" : "false", t->out);
	else if (isnan(v) || isinf(v))
		fputs(t->fmt == TABLE_JSON ? "null" : "", t->out);
	else
		fprintf(t->out, "%.*f", c->csv_decimals, v);
}

void table_row(struct table *t, const void *row)
{
	char buf[64];
	size_t i;
	int first = 1;

	if (t->fmt == TABLE_JSON)
		fprintf(t->out, "%s\n  {", t->rows ? "," : "");
	for (i = 0; i < t->n_cols; i++) {
		if (!table_shows(t, i))
			continue;
		if (t->fmt == TABLE_TEXT || t->fmt == TABLE_MARKDOWN) {
			table_put_cell(t, i, table_cell(t, i, row, buf, sizeof(buf)), NULL, first);
		} else if (t->fmt == TABLE_CSV) {
			if (!first)
				fputc(',', t->out);
			table_put_value(t, i, row);
		} else {
			fprintf(t->out, "%s\"%s\": ", first ? "" : ", ", t->cols[i].key);
			table_put_value(t, i, row);
		}
		first = 0;
	}
	fputs(t->fmt == TABLE_JSON ? "}" : t->fmt == TABLE_MARKDOWN ? "|\n" : "\n", t->out);
	t->rows++;
}

void table_end(struct table *t)
{
	if (t->fmt == TABLE_JSON)
		fputs(t->nested ? "\n]" : "\n]\n", t->out);
	fflush(t->out);
}

void table_print(struct table *t, const void *rows, size_t n, size_t size)
{
	const char *r = rows;
	size_t i;

	for (i = 0; i < n; i++)
		table_fit(t, r + i * size);
	table_begin(t);
	for (i = 0; i < n; i++)
		table_row(t, r + i * size);
	table_end(t);
}
