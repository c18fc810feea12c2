/*
 * test_table.c - the one table renderer of lib/table.c: a column list
 * printed as aligned text, Markdown, CSV and JSON, optional column groups,
 * fitting text columns to their content; and its escapers: terminal text
 * (control bytes, escape sequences, C1 controls, bytes that are not UTF-8),
 * Markdown's '|', RFC 4180 CSV with spreadsheet formulas neutralised, and
 * JSON that cJSON parses back to valid UTF-8.
 */
#include "harness.h"

#include <stdlib.h>

#include <cjson/cJSON.h>

#include "lib/table.h"

/* A row of the test table; the accessors read it through casts, which
 * cppcheck does not follow. */
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

static double col_value(const void *row, size_t scale)
{
	return ((const struct row *)row)->value * (double)scale;
}

static const struct table_col cols[] = {
	{ .head = "Name", .key = "name", .width = 4, .flags = TABLE_LEFT, .str = col_name },
	{ .head = "Time", .unit = "ms", .key = "time_ms", .width = 6, .decimals = 1,
	  .csv_decimals = 3, .num = col_value, .arg = 1 },
	{ .head = "Share", .key = "share", .scale = 100, .suffix = "%", .flags = TABLE_SIGN,
	  .csv_decimals = 2, .num = col_value, .arg = 1 },
	{ .key = "double", .csv_decimals = 0, .group = 1, .num = col_value, .arg = 2 },
};

/* Renders rows in fmt (groups shown: groups) and returns the text (caller frees). */
static char *render(enum table_format fmt, const struct row *rows, size_t n, unsigned groups,
		    int fit)
{
	struct table t;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *out = open_memstream(&buf, &len);

	table_init(&t, out, fmt, cols, sizeof(cols) / sizeof(cols[0]), groups);
	for (i = 0; fit && i < n; i++)
		table_fit(&t, &rows[i]);
	table_begin(&t);
	for (i = 0; i < n; i++)
		table_row(&t, &rows[i]);
	table_end(&t);
	fclose(out);
	return buf;
}

/* Writes s with put and returns what it wrote (caller frees). */
static char *put(void (*fn)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	fn(out, s);
	fclose(out);
	return buf;
}

TEST(one_column_list_in_four_formats)
{
	static const struct row rows[] = { { "a", 0.25 }, { NULL, NAN } };
	char *s;

	s = render(TABLE_TEXT, rows, 2, 0, 0);
	CHECK_STR(s, "Name Time (ms) Share\n"
		     "a          0.2  +25%\n"
		     "-            -     -\n");
	free(s);
	s = render(TABLE_MARKDOWN, rows, 2, 0, 0);
	CHECK_STR(s, "| Name | Time (ms) | Share |\n|:--|--:|--:|\n"
		     "| a | 0.2 | +25% |\n| - | - | - |\n");
	free(s);
	s = render(TABLE_CSV, rows, 2, 1, 0);
	CHECK_STR(s, "name,time_ms,share,double\na,0.250,0.25,0\n,,,\n");
	free(s);
	s = render(TABLE_JSON, rows, 2, 0, 0);
	CHECK_STR(s, "[\n  {\"name\": \"a\", \"time_ms\": 0.250, \"share\": 0.25},"
		     "\n  {\"name\": null, \"time_ms\": null, \"share\": null}\n]\n");
	free(s);
	s = render(TABLE_JSON, rows, 0, 0, 0);
	CHECK_STR(s, "[\n]\n");
	free(s);
}

TEST(text_columns_fit_their_content)
{
	static const struct row rows[] = { { "longer name", 12345.25 }, { "b", 1 } };
	char *s = render(TABLE_TEXT, rows, 2, 0, 1);

	CHECK_STR(s, "Name        Time (ms)     Share\n"
		     "longer name   12345.2 +1234525%\n"
		     "b                 1.0     +100%\n");
	free(s);
}

TEST(format_names_parse)
{
	enum table_format f = TABLE_TEXT;

	CHECK_EQ_INT(table_format_parse("md", &f), 0);
	CHECK_EQ_INT(f, TABLE_MARKDOWN);
	CHECK_EQ_INT(table_format_parse("json", &f), 0);
	CHECK_EQ_INT(f, TABLE_JSON);
	CHECK_EQ_INT(table_format_parse("xml", &f), -1);
}

TEST(terminal_text_cannot_carry_an_escape_sequence)
{
	char *s;

	/* ESC [ 2 J clears a screen; a newline would start a fake line. */
	s = put(table_put_text, "run\x1b[2J\nx\x7f");
	CHECK_STR(s, "run [2J x ");
	free(s);
	/* U+009B is the one-byte CSI of an 8-bit terminal; 0xff is no UTF-8. */
	s = put(table_put_text, "a\xc2\x9b" "1m\xff" "b");
	CHECK_STR(s, "a?1m?b");
	free(s);
	s = put(table_put_text, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80");   /* é € rocket */
	CHECK_STR(s, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80");
	free(s);
	s = put(table_put_text, "\xe2\x82");   /* cut off */
	CHECK_STR(s, "??");
	free(s);
}

TEST(markdown_cells_escape_the_pipe)
{
	static const struct row rows[] = { { "a|b\n", 1 } };
	char *s = render(TABLE_MARKDOWN, rows, 1, 0, 0);

	CHECK(strstr(s, "\n| a\\|b  | 1.0 | +100% |\n") != NULL);
	free(s);
}

TEST(csv_quotes_and_neutralises_formulas)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "plain", "plain" },
		{ "a,b", "\"a,b\"" },
		{ "say \"hi\"", "\"say \"\"hi\"\"\"" },
		{ "two\nlines", "\"two\nlines\"" },
		{ "=1+1", "\"'=1+1\"" },
		{ "@SUM(A1)", "\"'@SUM(A1)\"" },
		{ "+cmd|' /C calc'!A0", "\"'+cmd|' /C calc'!A0\"" },
		{ "-2+3", "\"'-2+3\"" },
		{ "\tx", "\"'\tx\"" },
		{ "-2.5", "-2.5" },           /* a number stays a number */
		{ "+1e-3", "+1e-3" },
		{ "-4,-3,-2", "\"-4,-3,-2\"" },   /* so does a list of numbers */
		{ "-1, 2.5", "\"-1, 2.5\"" },
		{ "-1,2+3", "\"'-1,2+3\"" },       /* not a list of numbers */
		{ "-1,", "\"'-1,\"" },
		{ "-1,,2", "\"'-1,,2\"" },
		{ "", "" },
	};
	size_t i;
	char *s;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = put(table_put_csv_field, cases[i].in);
		CHECK_STR(s, cases[i].out);
		free(s);
	}
	s = put(table_put_csv_field, NULL);
	CHECK_STR(s, "");
	free(s);
}

TEST(json_strings_are_valid_utf8_and_parse_back)
{
	static const char nasty[] = "q\" b\\ nl\n bel\x07 del\x7f bad\xff\xc0\x80 "
				    "sur\xed\xa0\x80 ok\xc3\xa9";
	cJSON *j;
	char *s = put(table_put_json_string, nasty), *doc;

	CHECK_STR(s, "\"q\\\" b\\\\ nl\\u000a bel\\u0007 del\\u007f bad\\ufffd\\ufffd\\ufffd "
		     "sur\\ufffd\\ufffd\\ufffd ok\xc3\xa9\"");
	doc = malloc(strlen(s) + 8);
	snprintf(doc, strlen(s) + 8, "[%s]", s);
	j = cJSON_Parse(doc);
	CHECK(cJSON_IsArray(j));
	CHECK(cJSON_IsString(cJSON_GetArrayItem(j, 0)));
	if (cJSON_IsString(cJSON_GetArrayItem(j, 0)))
		CHECK(strstr(cJSON_GetArrayItem(j, 0)->valuestring, "nl\n bel\x07") != NULL);
	cJSON_Delete(j);
	free(doc);
	free(s);
	s = put(table_put_json_string, NULL);
	CHECK_STR(s, "null");
	free(s);
}

int main(void)
{
	RUN(one_column_list_in_four_formats);
	RUN(text_columns_fit_their_content);
	RUN(format_names_parse);
	RUN(terminal_text_cannot_carry_an_escape_sequence);
	RUN(markdown_cells_escape_the_pipe);
	RUN(csv_quotes_and_neutralises_formulas);
	RUN(json_strings_are_valid_utf8_and_parse_back);
	return harness_done();
}
