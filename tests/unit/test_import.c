/*
 * test_import.c - the pieces of record import and synth that parse input:
 * the CSV splitter and line reader, Azure timestamps, length specs, and
 * the command lines of record (record/options.c).
 */
#include "harness.h"
#include "record/csv.h"
#include "record/dist.h"
#include "record/import.h"
#include "record/options.h"
#include "record/words.h"
#include "lib/cli.h"

#include <stdlib.h>
#include <unistd.h>

static int split(const char *line, char **f, int max, char *buf, size_t len)
{
	snprintf(buf, len, "%s", line);
	return csv_split(buf, f, max);
}

TEST(csv_splits_plain_and_quoted_fields)
{
	char buf[256], *f[8];

	CHECK_EQ_INT(split("a,b,,d", f, 8, buf, sizeof(buf)), 4);
	CHECK_STR(f[0], "a");
	CHECK_STR(f[2], "");
	CHECK_STR(f[3], "d");
	CHECK_EQ_INT(split("\"1,300\",\"say \"\"hi\"\"\",x", f, 8, buf, sizeof(buf)), 3);
	CHECK_STR(f[0], "1,300");
	CHECK_STR(f[1], "say \"hi\"");
	CHECK_STR(f[2], "x");
	CHECK_EQ_INT(split("\"\"", f, 8, buf, sizeof(buf)), 1);
	CHECK_STR(f[0], "");
	CHECK_EQ_INT(split("", f, 8, buf, sizeof(buf)), 1);
	CHECK_EQ_INT(split("a,", f, 8, buf, sizeof(buf)), 2);
	CHECK_STR(f[1], "");
}

TEST(csv_refuses_malformed_quotes_and_too_many_fields)
{
	char buf[256], *f[3];

	CHECK_EQ_INT(split("\"open", f, 3, buf, sizeof(buf)), -1);
	CHECK_EQ_INT(split("\"a\"b,c", f, 3, buf, sizeof(buf)), -1);
	CHECK_EQ_INT(split("\"", f, 3, buf, sizeof(buf)), -1);
	CHECK_EQ_INT(split("a,b,c,d", f, 3, buf, sizeof(buf)), -2);
	CHECK_EQ_INT(split("a,b,c", f, 3, buf, sizeof(buf)), 3);
}

TEST(csv_line_reader_caps_lines)
{
	FILE *f = tmpfile();
	char buf[8];
	size_t len = 99;

	fputs("abc\r\n0123456789abc\nxy", f);
	rewind(f);
	CHECK_EQ_INT(csv_read_line(f, buf, sizeof(buf), &len), 1);
	CHECK_STR(buf, "abc");
	CHECK_EQ_INT(len, 3);
	CHECK_EQ_INT(csv_read_line(f, buf, sizeof(buf), &len), -1);
	CHECK_EQ_INT(csv_read_line(f, buf, sizeof(buf), &len), 1);
	CHECK_STR(buf, "xy");
	CHECK_EQ_INT(csv_read_line(f, buf, sizeof(buf), &len), 0);
	fclose(f);

	/* found by fuzzing: a NUL byte neither cuts a line short nor makes it
	 * look too long (which dropped the next line); 7 bytes fit in 8 */
	f = tmpfile();
	fwrite("a\0b\nnext\n1234567\n", 1, 18, f);
	rewind(f);
	CHECK_EQ_INT(csv_read_line(f, buf, sizeof(buf), &len), 1);
	CHECK_EQ_INT(len, 3);
	CHECK_EQ_INT(csv_read_line(f, buf, sizeof(buf), &len), 1);
	CHECK_STR(buf, "next");
	CHECK_EQ_INT(csv_read_line(f, buf, sizeof(buf), &len), 1);
	CHECK_STR(buf, "1234567");
	fclose(f);
}

TEST(azure_timestamps)
{
	int64_t ns = 0;

	CHECK_EQ_INT(import_parse_azure_time("1970-01-01 00:00:01", &ns), 0);
	CHECK_EQ_INT(ns, 1000000000LL);
	CHECK_EQ_INT(import_parse_azure_time("2023-11-16 18:15:46.6805900", &ns), 0);
	CHECK_EQ_INT(ns, 1700158546680590000LL);
	CHECK_EQ_INT(import_parse_azure_time("2024-02-29T00:00:00.000000001", &ns), 0);
	CHECK_EQ_INT(ns, 1709164800000000001LL);
	CHECK_EQ_INT(import_parse_azure_time("2023-11-31 00:00:00", &ns), -1);
	CHECK_EQ_INT(import_parse_azure_time("2023-11-16 24:00:00", &ns), -1);
	CHECK_EQ_INT(import_parse_azure_time("2023-11-16 18:15:46.", &ns), -1);
	CHECK_EQ_INT(import_parse_azure_time("2023-11-16 18:15:46.1234567890", &ns), -1);
	CHECK_EQ_INT(import_parse_azure_time("2023-11-16 18:15", &ns), -1);
	CHECK_EQ_INT(import_parse_azure_time("", &ns), -1);
	/* found by fuzzing: years whose nanoseconds overflow int64 */
	CHECK_EQ_INT(import_parse_azure_time("1011-11-16 18:15:46", &ns), -1);
	CHECK_EQ_INT(import_parse_azure_time("9999-12-31 23:59:59", &ns), -1);
	CHECK_EQ_INT(import_parse_azure_time("2200-12-31 23:59:59", &ns), 0);
}

TEST(length_specs)
{
	struct dist d;
	struct rng r;
	int i, lo = 1, hi = 1;

	CHECK_EQ_INT(dist_parse("512", &d), 0);
	rng_init(&r, 3);
	CHECK_EQ_INT(dist_sample(&d, &r), 512);
	CHECK_EQ_INT(dist_sample(&d, &r), 512);
	CHECK_EQ_INT(dist_parse("uniform:10:20", &d), 0);
	rng_init(&r, 3);
	for (i = 0; i < 1000; i++) {
		long v = dist_sample(&d, &r);

		lo &= v >= 10;
		hi &= v <= 20;
	}
	CHECK(lo && hi);
	CHECK_EQ_INT(dist_parse("lognormal:100:0", &d), 0);
	CHECK_EQ_INT(dist_sample(&d, &r), 100);
	CHECK_EQ_INT(dist_parse("normal:5:100", &d), 0);
	for (i = 0, lo = 1; i < 1000; i++)
		lo &= dist_sample(&d, &r) >= DIST_MIN;
	CHECK(lo);
	CHECK_EQ_INT(dist_parse("uniform:20:10", &d), -1);
	CHECK_EQ_INT(dist_parse("uniform:10.5:10.7", &d), -1);
	CHECK_EQ_INT(dist_parse("normal:0:1", &d), -1);
	CHECK_EQ_INT(dist_parse("normal:1", &d), -1);
	CHECK_EQ_INT(dist_parse("normal:1:2:3", &d), -1);
	CHECK_EQ_INT(dist_parse("0", &d), -1);
	CHECK_EQ_INT(dist_parse("", &d), -1);
}

TEST(words_are_counted_and_seeded)
{
	struct words_buf a = { 0 }, b = { 0 };
	struct rng r1, r2;

	rng_init(&r1, 42);
	rng_init(&r2, 42);
	CHECK_EQ_INT(words_append(&a, 100, &r1), 0);
	CHECK_EQ_INT(words_append(&b, 100, &r2), 0);
	CHECK_STR(a.p, b.p);
	CHECK_EQ_INT(words_count(a.p), 100);
	CHECK_EQ_INT(words_append(&a, 0, &r1), 0);
	CHECK_EQ_INT(words_count(a.p), 100);
	CHECK_EQ_INT(words_count("  two\twords\n"), 2);
	CHECK(rng_derive(1, 2) != rng_derive(1, 3));
	free(a.p);
	free(b.p);
}

static int parse_import(void *o, int argc, char **argv)
{
	return record_options_import(o, argc, argv);
}

static int parse_synth(void *o, int argc, char **argv)
{
	return record_options_synth(o, argc, argv);
}

/* True when err is exactly one line holding want. */
static int one_line_with(const char *err, const char *want)
{
	const char *nl = err ? strchr(err, '\n') : NULL;

	return nl && nl[1] == '\0' && strstr(err, want) != NULL;
}

TEST(record_options_import_window_and_checks)
{
	struct record_import_options o;
	struct record_synth_options so;
	char *err;

	CHECK_EQ_INT(harness_run_parse(parse_import, &o, (const char *[]){ "import", "--format", "azure",
		     "--time-window", "10-", "in.csv", "-o", "t", NULL }, &err), CLI_CONTINUE);
	free(err);
	CHECK_EQ_INT(o.format, IMPORT_AZURE);
	CHECK_STR(o.input, "in.csv");
	CHECK_NEAR(o.win_start, 10, 0);
	CHECK(isinf(o.win_end));
	CHECK_STR(o.model, "mock");
	CHECK_EQ_INT(harness_run_parse(parse_import, &o, (const char *[]){ "import", "--format", "azure",
		     "--time-window", "5-5", "in.csv", "-o", "t", NULL }, &err), CLI_EXIT_USAGE);
	CHECK(one_line_with(err, "invalid value '5-5' for --time-window"));
	free(err);
	CHECK_EQ_INT(harness_run_parse(parse_import, &o, (const char *[]){ "import", "in.csv", "-o", "t",
		     NULL }, &err), CLI_EXIT_USAGE);
	CHECK(one_line_with(err, "no input format"));
	free(err);
	CHECK_EQ_INT(harness_run_parse(parse_synth, &so, (const char *[]){ "synth", "--burstiness", "2",
		     "--rate", "1", "-o", "t", NULL }, &err), CLI_EXIT_USAGE);
	CHECK(one_line_with(err, "--burstiness needs --arrival gamma"));
	free(err);
}

int main(void)
{
	RUN(csv_splits_plain_and_quoted_fields);
	RUN(csv_refuses_malformed_quotes_and_too_many_fields);
	RUN(csv_line_reader_caps_lines);
	RUN(azure_timestamps);
	RUN(length_specs);
	RUN(words_are_counted_and_seeded);
	RUN(record_options_import_window_and_checks);
	return harness_done();
}
