/*
 * htmltable.h - the Markdown that the reports print, turned into HTML for
 * the one-page report (analyze/html.c): every table a <table>, the lines
 * around it as headings, lists and paragraphs.
 *
 * The Markdown is read by lib/mdtable.h. A table becomes
 *   <table>, a <thead> with the header row as <th>, a <tbody> of <td>
 * and each cell of a right-aligned column (the Markdown's "--:", the
 * numbers) or a centred one carries class="num" or class="mid" for the
 * page's CSS. Rows have the table's columns (ragged rows padded or cut,
 * as mdtable does). Outside tables: "# " to "###### " a heading (h1 and h2
 * both as <h2>, the page has its own <h1>), "- " an item of a <ul>, other
 * lines a <p>, consecutive lines of one paragraph apart by <br> (the
 * reports' notes are one per line), a blank line ends it. Nothing else of
 * Markdown is read: '*' and '`' stay as they are, since the reports use
 * '*' as a mark ("12.5*").
 *
 * Every text is escaped (& < > " as character references, control bytes
 * as spaces), so a run label cannot open a tag; "\|" is a '|'.
 */
#ifndef TB_HTMLTABLE_H
#define TB_HTMLTABLE_H

#include <stddef.h>
#include <stdio.h>

/* Writes the n bytes of s as HTML text, escaped as above ("\|" kept). */
void htmltable_put_text(FILE *out, const char *s, size_t n);

/* Writes the HTML of the len bytes of Markdown md to out. Returns 0, or
 * -1 when out cannot be written or memory runs out. */
int htmltable_from_markdown(FILE *out, const char *md, size_t len);

#endif
