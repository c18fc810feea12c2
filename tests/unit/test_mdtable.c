/*
 * test_mdtable.c - lib/mdtable.c, the reader of the reports' Markdown that
 * latex.c and htmltable.c share: a table's items in order (begin with the
 * separator's alignments, header row, body rows, end), cells trimmed with
 * "\|" as '|', ragged rows padded or cut to the separator's columns, and
 * everything else line by line as it stands.
 */
#include "harness.h"

#include <stdio.h>
#include <string.h>

#include "lib/mdtable.h"

/* Every item of md, one per line: "L <line>", "B <aligns>", "H|a|b|",
 * "R|a|b|", "E". */
static void items(const char *md, char *buf, size_t cap)
{
	struct mdtable t;
	size_t used = 0, k;

	buf[0] = '\0';
	mdtable_init(&t, md, strlen(md));
	while (mdtable_next(&t) == 1 && used < cap) {
		char *p = buf + used;
		size_t left = cap - used;
		int n = 0;

		switch (t.kind) {
		case MDTABLE_LINE:
			n = snprintf(p, left, "L %.*s\n", (int)t.line_len, t.line);
			break;
		case MDTABLE_BEGIN:
			n = snprintf(p, left, "B ");
			for (k = 0; k < t.n_cols && (size_t)n < left; k++)
				n += snprintf(p + n, left - (size_t)n, "%c",
					      "lrc"[t.align[k]]);
			n += snprintf(p + n, left - (size_t)n, "\n");
			break;
		case MDTABLE_ROW:
			n = snprintf(p, left, "%c|", t.header ? 'H' : 'R');
			for (k = 0; k < t.n_cols && (size_t)n < left; k++)
				n += snprintf(p + n, left - (size_t)n, "%.*s|",
					      (int)t.cells[k].n, t.cells[k].s);
			n += snprintf(p + n, left - (size_t)n, "\n");
			break;
		case MDTABLE_END:
			n = snprintf(p, left, "E\n");
			break;
		}
		used += (size_t)n;
	}
	mdtable_release(&t);
}

TEST(a_table_between_lines)
{
	char got[1024];

	items("### run\n\n| Run | C | Mid |\n|:--|--:|:-:|\n|  a\\|b | 1.5 | x |\n| c | 2 | y |\n"
	      "note: * few\n", got, sizeof(got));
	CHECK_STR(got, "L ### run\nL \nB lrc\nH|Run|C|Mid|\nR|a|b|1.5|x|\nR|c|2|y|\nE\n"
		  "L note: * few\n");
}

TEST(ragged_rows_are_padded_or_cut)
{
	char got[1024];

	items("| a | b |\n|---|---|\n| 1 |\n| 1 | 2 | 3 |\n|x", got, sizeof(got));
	CHECK_STR(got, "B ll\nH|a|b|\nR|1||\nR|1|2|\nR|x||\nE\n");
}

TEST(a_row_without_separator_is_a_line)
{
	char got[1024];

	items("| a | b |\n| 1 | 2 |\n|\n", got, sizeof(got));
	CHECK_STR(got, "L | a | b |\nL | 1 | 2 |\nL |\n");
	items("", got, sizeof(got));
	CHECK_STR(got, "");
	/* a table at the very end, without a newline or a body */
	items("| h |\n|--:|", got, sizeof(got));
	CHECK_STR(got, "B r\nH|h|\nE\n");
}

int main(void)
{
	RUN(a_table_between_lines);
	RUN(ragged_rows_are_padded_or_cut);
	RUN(a_row_without_separator_is_a_line);
	return harness_done();
}
