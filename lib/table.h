/*
 * table.h - every table tracebench prints, rendered once: aligned text,
 * Markdown, CSV and JSON from one column list per table.
 *
 * A table is a static array of struct table_col, each naming a column
 * (heading and unit for text and Markdown, key for CSV and JSON), how to
 * show it and how to get its value from a row; a new column is one more
 * entry. Replay's live rows, analyze report, compare, runs and export all
 * print through here, so this file holds the only escapers of the tree:
 *
 *   text      control bytes (a newline, the ESC of a terminal escape
 *             sequence) become spaces, C1 controls and bytes that are not
 *             UTF-8 become '?': a label cannot move the cursor or recolour
 *             a terminal. Markdown also writes '|' as "\|".
 *   CSV       RFC 4180: a field holding , " CR or LF is quoted, " doubled;
 *             records end in LF (every reader accepts it, and grep, cut
 *             and diff like it better than CRLF).
 *             A text field that a spreadsheet would take for a formula
 *             (starting with = + - @ tab or CR, and not plain numbers: one,
 *             or a list "-4,-3" such as a run's levels)
 *             gets a leading "'", so opening an export cannot run one.
 *   JSON      " and \ escaped, control bytes as \u00XX, bytes that are not
 *             UTF-8 as U+FFFD: the output is always valid JSON and UTF-8.
 *
 * Missing values (NaN, a NULL string) print as "-" in text and Markdown, an
 * empty field in CSV and null in JSON. Numbers are printed with '.' as the
 * decimal point (the C locale the program runs in).
 */
#ifndef TB_TABLE_H
#define TB_TABLE_H

#include <stddef.h>
#include <stdio.h>

enum table_format {
	TABLE_TEXT,
	TABLE_MARKDOWN,
	TABLE_CSV,
	TABLE_JSON,
};

/* Parses "text", "markdown" (or "md"), "csv", "json". Returns 0 or -1. */
int table_format_parse(const char *s, enum table_format *out);

/* Flags of a column. */
#define TABLE_LEFT   1u   /* text and Markdown: left-aligned (default right) */
#define TABLE_SIGN   2u   /* text and Markdown: a '+' before positive numbers */
#define TABLE_BOOL   4u   /* a number that is a flag: JSON true or false */

struct table_col {
	const char *head;     /* text and Markdown heading; NULL: CSV and JSON only */
	const char *unit;     /* shown after head as " (unit)"; NULL: none */
	const char *key;      /* CSV header and JSON key; NULL: text and Markdown only */
	int width;            /* text: the least width (content widens it, table_fit) */
	int decimals;         /* text and Markdown decimals of a number */
	double scale;         /* text and Markdown show value * scale (0: 1) */
	const char *suffix;   /* after a text and Markdown number, e.g. "%" */
	int csv_decimals;     /* CSV and JSON decimals of a number */
	unsigned flags;       /* TABLE_LEFT, TABLE_SIGN */
	unsigned group;       /* 0: always shown; else only when in the table's groups */
	/* The value of row: a number (NaN: none), else a string (NULL: none).
	 * Exactly one of the two is set; 'arg' is passed along. */
	double (*num)(const void *row, size_t arg);
	const char *(*str)(const void *row, size_t arg);
	size_t arg;
	/* Text and Markdown: a mark after a number (NULL or NULL returned:
	 * none), e.g. "*" for a percentile from too few samples; CSV and JSON
	 * say it in a column of their own. */
	const char *(*mark)(const void *row, size_t arg);
};

#define TABLE_MAX_COLS 320

/* A table being printed; fill with table_init, then begin, rows, end. */
struct table {
	FILE *out;
	enum table_format fmt;
	const struct table_col *cols;
	size_t n_cols;
	unsigned groups;          /* optional column groups shown */
	const char *sep;          /* between text columns; default " " */
	int nested;               /* JSON: the array is a member of the caller's object */
	size_t rows;              /* rows printed so far */
	size_t last;              /* the last column shown */
	int width[TABLE_MAX_COLS];
};

/*
 * Sets t up to print the n_cols columns cols (at most TABLE_MAX_COLS,
 * kept, not copied) of the optional groups 'groups' to out in fmt.
 */
void table_init(struct table *t, FILE *out, enum table_format fmt,
		const struct table_col *cols, size_t n_cols, unsigned groups);

/* Text: widens the columns to fit row (call for every row before begin). */
void table_fit(struct table *t, const void *row);

/* The header (text, Markdown, CSV) or the opening '[' (JSON). */
void table_begin(struct table *t);

/* One row. */
void table_row(struct table *t, const void *row);

/* The closing ']' of JSON ("]\n" unless nested); nothing for the others. */
void table_end(struct table *t);

/* A whole table of the n rows of 'size' bytes each at rows: fitted, begun,
 * every row, ended. */
void table_print(struct table *t, const void *rows, size_t n, size_t size);

/* The escapers, for text around a table (headings, JSON wrappers). */
void table_put_text(FILE *out, const char *s);          /* terminal text */
void table_put_json_string(FILE *out, const char *s);   /* "..." or null for NULL */
void table_put_csv_field(FILE *out, const char *s);     /* nothing for NULL */

/* s made, in place, the text table_put_text shows: a control byte (a
 * newline, ESC, BEL, DEL) a space, a C1 control or a byte that is not
 * UTF-8 a '?'. For lines printed outside a table: what a server or a
 * file says must not reach a terminal as a control sequence. */
void table_clean_text(char *s);

#endif
