/*
 * test_latex.c - lib/latex.c: the Markdown of lib/table.c as booktabs
 * tabulars: the columns' alignment kept, every cell escaped for LaTeX (a
 * run label with every special character, and Markdown's escaped '|'),
 * the lines around a table as comments, rows padded or cut to the
 * table's columns.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#include "lib/latex.h"
#include "lib/table.h"

struct row {
	/* cppcheck-suppress unusedStructMember */
	const char *name;
	/* cppcheck-suppress unusedStructMember */
	double value;
};

static const char *col_name(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct row *)row)->name;
}

static double col_value(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct row *)row)->value;
}

static const struct table_col cols[] = {
	{ .head = "Run", .key = "run", .width = 3, .flags = TABLE_LEFT, .str = col_name },
	{ .head = "TTFT", .unit = "ms", .key = "ttft_ms", .width = 4, .decimals = 1,
	  .num = col_value },
	{ .head = "Share", .key = "share", .scale = 100, .suffix = "%", .decimals = 0,
	  .num = col_value },
};

/* The LaTeX of md (caller frees). */
static char *latex(const char *md)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	CHECK_EQ_INT(latex_from_markdown(out, md, strlen(md)), 0);
	fclose(out);
	return buf;
}

TEST(a_table_of_table_c_becomes_a_booktabs_tabular)
{
	static const struct row rows[] = {
		{ "a&b%c$d#e_f{g}h~i^j\\input{x}|k<l>", 0.25 },
		{ "plain", 0.5 },
	};
	char *md = NULL, *tex;
	size_t len = 0, i;
	FILE *out = open_memstream(&md, &len);
	struct table t;

	fputs("### runs\n\n", out);
	table_init(&t, out, TABLE_MARKDOWN, cols, sizeof(cols) / sizeof(cols[0]), 0);
	table_begin(&t);
	for (i = 0; i < 2; i++)
		table_row(&t, &rows[i]);
	table_end(&t);
	fputs("\n* a note | with a pipe & 100%\n", out);
	fclose(out);
	tex = latex(md);
	CHECK_STR(tex,
		  "% ### runs\n"
		  "\n"
		  "\\begin{tabular}{lrr}\n"
		  "\\toprule\n"
		  "Run & TTFT (ms) & Share \\\\\n"
		  "\\midrule\n"
		  "a\\&b\\%c\\$d\\#e\\_f\\{g\\}h\\textasciitilde{}i\\textasciicircum{}j"
		  "\\textbackslash{}input\\{x\\}\\textbar{}k\\textless{}l\\textgreater{} & 0.2 & 25\\% \\\\\n"
		  "plain & 0.5 & 50\\% \\\\\n"
		  "\\bottomrule\n"
		  "\\end{tabular}\n"
		  "\n"
		  "% * a note | with a pipe & 100%\n");
	free(tex);
	free(md);
}

TEST(rows_are_padded_or_cut_to_the_columns_and_lone_rows_are_text)
{
	char *tex = latex("| A | B |\n|:-:|---|\n| 1 |\n| 1 | 2 | 3 |\n\n| not | a table |\nend");

	CHECK_STR(tex,
		  "\\begin{tabular}{cl}\n"
		  "\\toprule\n"
		  "A & B \\\\\n"
		  "\\midrule\n"
		  "1 &  \\\\\n"
		  "1 & 2 \\\\\n"
		  "\\bottomrule\n"
		  "\\end{tabular}\n"
		  "\n"
		  "% | not | a table |\n"
		  "% end\n");
	free(tex);
}

TEST(empty_and_control_bytes)
{
	char *tex = latex("");

	CHECK_STR(tex, "");
	free(tex);
	tex = latex("| x |\n|--|\n| a\tb |");
	CHECK_STR(tex, "\\begin{tabular}{l}\n\\toprule\nx \\\\\n\\midrule\na b \\\\\n"
		  "\\bottomrule\n\\end{tabular}\n");
	free(tex);
}

int main(void)
{
	RUN(a_table_of_table_c_becomes_a_booktabs_tabular);
	RUN(rows_are_padded_or_cut_to_the_columns_and_lone_rows_are_text);
	RUN(empty_and_control_bytes);
	return harness_done();
}
