/*
 * latex.h - tables for papers: the Markdown that the reports print, turned
 * into LaTeX tabulars in booktabs style (\toprule, \midrule, \bottomrule;
 * \usepackage{booktabs} in the paper's preamble).
 *
 * Every table of the Markdown (a row of cells between '|' followed by a
 * separator row) becomes a tabular whose columns keep the Markdown's
 * alignment; every other line becomes a LaTeX comment ("% " and the
 * line, control bytes as spaces: a carriage return would end it), so the
 * notes under a table (what a '*' means, the warm-up) stay
 * beside it without reaching the page. A cell's text is escaped for LaTeX
 * (\ & % $ # _ { } ~ ^ < > | as commands), so no run label can run a
 * LaTeX command; Markdown's "\|" in a cell is a '|'. The Markdown is
 * read by lib/mdtable.h, as for the HTML report's tables.
 */
#ifndef TB_LATEX_H
#define TB_LATEX_H

#include <stddef.h>
#include <stdio.h>

/* Writes the LaTeX of the len bytes of Markdown md to out. Returns 0, or
 * -1 when out cannot be written or memory runs out. */
int latex_from_markdown(FILE *out, const char *md, size_t len);

#endif
