/*
 * test_prom.c - the Prometheus exposition parser (lib/prom.c): the real
 * llama.cpp capture, every kind of bad line skipped and counted, the caps,
 * NaN and infinities, escaped label values.
 */
#include "tests/unit/harness.h"
#include "lib/prom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_str(struct prom_scrape *s, const char *text)
{
	char err[128];

	prom_scrape_init(s);
	return prom_parse(s, text, strlen(text), err, sizeof(err));
}

static const struct prom_sample *find(const struct prom_scrape *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->samples[i].name, name))
			return &s->samples[i];
	return NULL;
}

TEST(llama_cpp_capture_parses_whole)
{
	static char buf[1 << 16];
	FILE *f = fopen("tests/fixtures/llama-server/metrics.prom", "rb");
	struct prom_scrape s;
	const struct prom_sample *x;
	char err[128];
	size_t n;

	CHECK(f != NULL);
	if (!f)
		return;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	prom_scrape_init(&s);
	CHECK_EQ_INT(prom_parse(&s, buf, n, err, sizeof(err)), 0);
	CHECK_EQ_INT(s.n, 11);
	CHECK_EQ_INT(s.bad_lines, 0);
	CHECK_EQ_INT(s.lines, 33);
	x = find(&s, "llamacpp:prompt_tokens_total");
	CHECK(x && x->value == 7125 && x->type == PROM_COUNTER);
	x = find(&s, "llamacpp:tokens_predicted_seconds_total");
	CHECK(x && fabs(x->value - 17.552) < 1e-12);
	x = find(&s, "llamacpp:n_busy_slots_per_decode");
	CHECK(x && fabs(x->value - 2.92794) < 1e-12 && x->type == PROM_GAUGE);
	x = find(&s, "llamacpp:requests_deferred");
	CHECK(x && x->value == 0 && x->nlabels == 0);
	prom_scrape_release(&s);
}

TEST(labels_escapes_and_special_values)
{
	struct prom_scrape s;
	const struct prom_sample *x;
	char series[256];

	CHECK_EQ_INT(parse_str(&s,
		"# TYPE vllm:request_success counter\n"
		"vllm:request_success_total{finished_reason=\"stop\",model_name=\"a\\\"b\\\\c\\nd\",} 12 1700000000000\r\n"
		"# TYPE lat histogram\n"
		"lat_bucket{le=\"+Inf\"} +Inf\n"
		"lat_sum NaN\n"
		"lat_count -Inf\n"
		"  spaced   { a = \"1\" , b=\"2\" }   3.5e2  \n"
		"plain 1e400\n"), 0);
	CHECK_EQ_INT(s.n, 6);
	CHECK_EQ_INT(s.bad_lines, 0);
	x = find(&s, "vllm:request_success_total");
	CHECK(x && x->nlabels == 2 && x->value == 12 && x->type == PROM_COUNTER);
	CHECK(x && x->has_timestamp && x->timestamp_ms == 1700000000000LL);
	CHECK(x && prom_label(x, "model_name") && !strcmp(prom_label(x, "model_name"), "a\"b\\c\nd"));
	CHECK(x && prom_label(x, "nope") == NULL);
	if (x) {
		CHECK_EQ_INT(prom_series(x, series, sizeof(series)),
			     strlen("vllm:request_success_total{finished_reason=\"stop\",model_name=\"a\\\"b\\\\c\\nd\"}"));
		CHECK_STR(series, "vllm:request_success_total{finished_reason=\"stop\",model_name=\"a\\\"b\\\\c\\nd\"}");
		CHECK_EQ_INT(prom_series(x, series, 8), prom_series(x, NULL, 0));   /* truncated */
		CHECK_EQ_INT(strlen(series), 7);
	}
	x = find(&s, "lat_bucket");
	CHECK(x && isinf(x->value) && x->value > 0 && x->type == PROM_HISTOGRAM);
	x = find(&s, "lat_sum");
	CHECK(x && isnan(x->value));
	x = find(&s, "lat_count");
	CHECK(x && isinf(x->value) && x->value < 0);
	x = find(&s, "spaced");
	CHECK(x && x->value == 350 && x->nlabels == 2 && x->type == PROM_UNTYPED);
	x = find(&s, "plain");
	CHECK(x && isinf(x->value));
	prom_scrape_release(&s);
}

TEST(each_bad_line_is_skipped_and_counted)
{
	static const char *const bad[] = {
		"9name 1",                      /* bad metric name */
		"name",                         /* no value */
		"name abc",                     /* bad value */
		"name 0x10",                    /* hex is not a value */
		"name{a=1} 1",                  /* unquoted label */
		"name{a=\"1} 1",                /* unterminated */
		"name{a=\"\\t\"} 1",            /* unknown escape */
		"name{a=\"1\" b=\"2\"} 1",      /* no comma */
		"name{=\"1\"} 1",               /* no label name */
		"name{a=\"1\"",                 /* no closing brace */
		"name 1 12x",                   /* bad timestamp */
		"name 1 2 3",                   /* trailing junk */
		"# TYPE name bogus",            /* unknown type */
		"# TYPE 1x counter",            /* bad name in TYPE */
		"name{a=\"1\"}1",               /* no blank before the value */
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[256];
		struct prom_scrape s;

		snprintf(text, sizeof(text), "good 1\n%s\nafter 2\n", bad[i]);
		CHECK_EQ_INT(parse_str(&s, text), 0);
		if (s.n != 2 || s.bad_lines != 1 || s.first_bad != 2)
			printf("  line: %s\n", bad[i]);
		CHECK_EQ_INT(s.n, 2);
		CHECK_EQ_INT(s.bad_lines, 1);
		CHECK_EQ_INT(s.first_bad, 2);
		CHECK(s.why_bad[0] != '\0');
		prom_scrape_release(&s);
	}
}

TEST(caps_skip_long_lines_and_extra_samples)
{
	struct prom_scrape s;
	char *text = malloc(40000);
	char err[64];
	size_t at = 0, i;

	CHECK(text != NULL);
	if (!text)
		return;
	at += (size_t)sprintf(text, "short 1\nlong{v=\"");
	for (i = 0; i < 20000; i++)
		text[at++] = 'x';
	at += (size_t)sprintf(text + at, "\"} 1\n");
	for (i = 0; i < 10; i++)
		at += (size_t)sprintf(text + at, "s%zu %zu\n", i, i);
	prom_scrape_init(&s);
	s.max_samples = 5;
	CHECK_EQ_INT(prom_parse(&s, text, at, err, sizeof(err)), 0);
	CHECK_EQ_INT(s.n, 5);                   /* short, s0..s3 */
	CHECK_EQ_INT(s.bad_lines, 1 + 6);       /* the long line, s4..s9 */
	CHECK_EQ_INT(s.first_bad, 2);
	CHECK_STR(s.why_bad, "line too long");
	CHECK(find(&s, "long") == NULL);
	CHECK(find(&s, "s3") != NULL && find(&s, "s4") == NULL);
	prom_scrape_release(&s);
	free(text);
}

TEST(no_final_newline_and_nul_bytes)
{
	static const char text[] = "a 1\nb\0c 2\nlast 3";
	struct prom_scrape s;
	char err[64];

	prom_scrape_init(&s);
	CHECK_EQ_INT(prom_parse(&s, text, sizeof(text) - 1, err, sizeof(err)), 0);
	CHECK_EQ_INT(s.n, 2);                   /* a, last */
	CHECK_EQ_INT(s.bad_lines, 1);
	CHECK(find(&s, "last") && find(&s, "last")->value == 3);
	prom_scrape_release(&s);
}

int main(void)
{
	RUN(llama_cpp_capture_parses_whole);
	RUN(labels_escapes_and_special_values);
	RUN(each_bad_line_is_skipped_and_counted);
	RUN(caps_skip_long_lines_and_extra_samples);
	RUN(no_final_newline_and_nul_bytes);
	return harness_done();
}
