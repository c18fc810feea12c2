/*
 * test_htmltable.c - lib/htmltable.c: the reports' Markdown as HTML: a
 * table with its header row in <thead>, right-aligned (numeric) columns
 * marked class="num", every cell and line escaped (a run label that is a
 * script stays text), headings, items and paragraphs around the tables,
 * ragged rows padded or cut to the table's columns.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#include "lib/htmltable.h"
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
};

/* The HTML of md (caller frees). */
static char *html(const char *md)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	CHECK_EQ_INT(htmltable_from_markdown(out, md, strlen(md)), 0);
	fclose(out);
	return buf;
}

TEST(a_table_of_table_c_becomes_an_html_table)
{
	static const struct row rows[] = {
		{ "<script>alert(1)</script>|&\"", 12.25 },
		{ "plain", 0.5 },
	};
	char *md = NULL, *h;
	size_t len = 0, i;
	FILE *out = open_memstream(&md, &len);
	struct table t;

	fputs("### <b>run</b> \\| x\n\n", out);
	table_init(&t, out, TABLE_MARKDOWN, cols, sizeof(cols) / sizeof(cols[0]), 0);
	table_begin(&t);
	for (i = 0; i < 2; i++)
		table_row(&t, &rows[i]);
	table_end(&t);
	fputs("\nnote: one  \nnote: two  \n\n- an item\n- <i>another</i>\nA legend.\n", out);
	fclose(out);
	h = html(md);
	CHECK_STR(h,
		  "<h3>&lt;b&gt;run&lt;/b&gt; | x</h3>\n"
		  "<table>\n"
		  "<thead>\n"
		  "<tr><th>Run</th><th class=\"num\">TTFT (ms)</th></tr>\n"
		  "</thead>\n"
		  "<tbody>\n"
		  "<tr><td>&lt;script&gt;alert(1)&lt;/script&gt;|&amp;&quot;</td>"
		  "<td class=\"num\">12.2</td></tr>\n"
		  "<tr><td>plain</td><td class=\"num\">0.5</td></tr>\n"
		  "</tbody>\n"
		  "</table>\n"
		  "<p>note: one<br>\n"
		  "note: two</p>\n"
		  "<ul>\n"
		  "<li>an item</li>\n"
		  "<li>&lt;i&gt;another&lt;/i&gt;</li>\n"
		  "</ul>\n"
		  "<p>A legend.</p>\n");
	free(md);
	free(h);
}

TEST(ragged_rows_are_padded_or_cut_and_centre_is_kept)
{
	char *h = html("# top\n| a | b | c |\n|:-:|--:|---|\n| 1 |\n| 1 | 2 | 3 | 4 |\n");

	CHECK_STR(h,
		  "<h2>top</h2>\n"
		  "<table>\n"
		  "<thead>\n"
		  "<tr><th class=\"mid\">a</th><th class=\"num\">b</th><th>c</th></tr>\n"
		  "</thead>\n"
		  "<tbody>\n"
		  "<tr><td class=\"mid\">1</td><td class=\"num\"></td><td></td></tr>\n"
		  "<tr><td class=\"mid\">1</td><td class=\"num\">2</td><td>3</td></tr>\n"
		  "</tbody>\n"
		  "</table>\n");
	free(h);
}

TEST(empty_headless_and_control_bytes)
{
	char *h = html("");

	CHECK_STR(h, "");
	free(h);
	/* a table without body has no <tbody> (an HTML checker warns of an
	 * empty one); control bytes are spaces */
	h = html("| x\x01 |\n|--|\nline\r\n####### seven\n#nospace");
	CHECK_STR(h, "<table>\n<thead>\n<tr><th>x </th></tr>\n</thead>\n</table>\n"
		  "<p>line <br>\n####### seven<br>\n#nospace</p>\n");
	free(h);
}

int main(void)
{
	RUN(a_table_of_table_c_becomes_an_html_table);
	RUN(ragged_rows_are_padded_or_cut_and_centre_is_kept);
	RUN(empty_headless_and_control_bytes);
	return harness_done();
}
