/*
 * mdtable.h - reads the Markdown that the reports print (lib/table.c's
 * TABLE_MARKDOWN, with the headings and notes around the tables) as a
 * sequence of items, for the writers that turn it into another language:
 * LaTeX (lib/latex.c) and HTML (lib/htmltable.c). One reader, so that both
 * see the same tables.
 *
 * A table is a row of cells between '|' followed by a separator row (only
 * '|', '-', ':' and spaces); the separator gives the column count and each
 * column's alignment ("--:" right, ":-:" centre, else left), and the rows
 * that follow, up to the first line that is not a row, are its body. Rows
 * are padded with empty cells or cut to the separator's column count (a
 * ragged row is not refused: the writers keep a table's shape whatever
 * the input). Cells are trimmed, and Markdown's "\|" in a cell is a '|'.
 * Every other line is an MDTABLE_LINE, as it stands.
 */
#ifndef TB_MDTABLE_H
#define TB_MDTABLE_H

#include <stddef.h>

/* Most columns a table keeps; cells past it are dropped (the reports'
 * widest table has fewer than 40). */
#define MDTABLE_MAX_COLS 128

enum mdtable_align { MDTABLE_LEFT, MDTABLE_RIGHT, MDTABLE_CENTER };

enum mdtable_kind {
	MDTABLE_LINE,    /* a line outside any table: line, line_len */
	MDTABLE_BEGIN,   /* a table begins: n_cols, align */
	MDTABLE_ROW,     /* one of its rows: cells (n_cols of them), header */
	MDTABLE_END,     /* the table ends */
};

/* A cell's text: n bytes at s, without a NUL. */
struct mdtable_cell {
	const char *s;
	size_t n;
};

/*
 * The reader and its current item. The caller embeds it: mdtable_init,
 * mdtable_next until it returns 0, mdtable_release. The item's pointers
 * stay valid until the next call of mdtable_next.
 */
struct mdtable {
	/* the current item: which fields hold is by kind */
	enum mdtable_kind kind;
	const char *line;
	size_t line_len;
	size_t n_cols;
	enum mdtable_align align[MDTABLE_MAX_COLS];
	struct mdtable_cell cells[MDTABLE_MAX_COLS];
	int header;      /* the ROW is the table's header row */

	/* private */
	const char *md;
	size_t len, pos;
	const char *head;          /* BEGIN: the header row, due next */
	size_t head_len;
	int state;
	char *buf;                 /* the cells' text, "\|" undone */
	size_t cap;
};

/* Reads the len bytes of md, which the caller keeps until mdtable_release. */
void mdtable_init(struct mdtable *t, const char *md, size_t len);

/* The next item into t: returns 1, 0 at the end of the Markdown, or -1 out
 * of memory (t then holds no item). */
int mdtable_next(struct mdtable *t);

/* Frees what t holds (not md); t can be initialised again. */
void mdtable_release(struct mdtable *t);

#endif
