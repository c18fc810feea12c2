/*
 * test_failures.c - why requests failed (replay/failures.c): the server's
 * own message out of its JSON error (llama.cpp's captured 400, vLLM's and
 * OpenAI's shapes), the first few kinds told, every one counted.
 */
#include "harness.h"
#include "replay/failures.h"

static void failed(struct result *r, const char *cls, int status, const char *detail)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->error, sizeof(r->error), "%s", cls);
	r->status = status;
	r->error_detail = detail ? strdup(detail) : NULL;
}

static char *read_fixture(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = calloc(1, 4096);

	if (f && buf)
		fread(buf, 1, 4095, f);
	if (f)
		fclose(f);
	return buf;
}

TEST(the_message_is_the_servers_own_words)
{
	struct result r;
	char buf[256], detail[4200], *body = read_fixture("tests/fixtures/llama-server/error-too-long.body");

	snprintf(detail, sizeof(detail), "HTTP 400: %s", body ? body : "");
	failed(&r, "http", 400, detail);
	failures_message(&r, buf, sizeof(buf));
	CHECK(!strcmp(buf, "HTTP 400: request (6002 tokens) exceeds the available context size "
		      "(4096 tokens), try increasing it"));
	free(r.error_detail);
	failed(&r, "http", 404, "HTTP 404: {\"object\":\"error\",\"message\":\"The model `x` does "
	       "not exist.\",\"type\":\"NotFoundError\",\"code\":404}\n");
	failures_message(&r, buf, sizeof(buf));
	CHECK(!strcmp(buf, "HTTP 404: The model `x` does not exist."));
	free(r.error_detail);
	/* not JSON: the detail, one line, cut */
	failed(&r, "timeout", 0, "Operation timed out\nafter 3000 ms");
	failures_message(&r, buf, sizeof(buf));
	CHECK(!strcmp(buf, "Operation timed out after 3000 ms"));
	free(r.error_detail);
	failed(&r, "connect", 0, NULL);
	failures_message(&r, buf, sizeof(buf));
	CHECK(!strcmp(buf, "connect"));
	free(body);
}

TEST(a_long_message_is_cut)
{
	struct result r;
	char buf[512], big[600];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	failed(&r, "http", 500, big);
	failures_message(&r, buf, sizeof(buf));
	CHECK_EQ_INT(strlen(buf), FAILURES_MESSAGE + 3);
	CHECK(!strcmp(buf + FAILURES_MESSAGE, "..."));
	free(r.error_detail);
}

TEST(the_first_kinds_are_told_and_every_one_counted)
{
	struct failures f;
	struct result r;
	char *told = NULL, sum[512];
	size_t len = 0, i;
	FILE *mem = open_memstream(&told, &len);
	static const int statuses[] = { 429, 429, 429, 500, 404, 503, 429 };

	memset(&f, 0, sizeof(f));
	f.out = mem;
	for (i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++) {
		failed(&r, "http", statuses[i], "HTTP: {\"error\":{\"message\":\"slow down\"}}");
		r.trace_id = (long)i;
		failures_note(&f, &r);
		free(r.error_detail);
	}
	failed(&r, "timeout", 0, "timed out");
	failures_note(&f, &r);
	free(r.error_detail);
	fclose(mem);
	/* 429, 500, 404 told as they came; then one line that more are counted */
	CHECK(strstr(told, "a request failed (http, trace request 0): HTTP 429: slow down\n") != NULL);
	CHECK(strstr(told, "(http, trace request 3): HTTP 500") != NULL);
	CHECK(strstr(told, "(http, trace request 4): HTTP 404") != NULL);
	CHECK(strstr(told, "503") == NULL);
	CHECK(strstr(told, "further kinds of failure are counted at the end, not shown\n") != NULL);
	CHECK_EQ_INT(failures_count(&f), 8);
	failures_summary(&f, sum, sizeof(sum));
	CHECK(!strcmp(sum, "4 http 429, 1 http 500, 1 http 404, 1 http 503, 1 timeout "
		      "(HTTP 429: slow down)"));
	free(told);
}

TEST(a_failed_warm_up_keeps_its_message)
{
	struct failures f;
	struct result r;

	memset(&f, 0, sizeof(f));
	failed(&r, "connect", 0, "Failed to connect to 127.0.0.1 port 1");
	r.warmup = true;
	failures_note(&f, &r);
	free(r.error_detail);
	CHECK(!strcmp(f.warmup, "Failed to connect to 127.0.0.1 port 1"));
}

/*
 * What a server said reaches the terminal as text only: its control bytes
 * (ESC, BEL: a title, a colour) as spaces, a C1 control or a byte that is
 * not UTF-8 as '?'. Before: one_line turned newlines and tabs into spaces
 * and printed ESC and BEL as the server sent them.
 */
TEST(a_servers_control_bytes_never_reach_the_terminal)
{
	struct result r;
	char buf[256];

	failed(&r, "server", 200, "{\"error\":{\"message\":\"bad\\u001b]0;pwned\\u0007"
	       "\\u001b[31mred\\u009b2J\\nline2\"}}");
	failures_message(&r, buf, sizeof(buf));
	CHECK_STR(buf, "HTTP 200: bad ]0;pwned  [31mred?2J line2");
	free(r.error_detail);
	failed(&r, "malformed", 0, "event is not a JSON object: \x1b[2J\xff\x7f");
	failures_message(&r, buf, sizeof(buf));
	CHECK_STR(buf, "event is not a JSON object:  [2J?");
	free(r.error_detail);
}

int main(void)
{
	RUN(the_message_is_the_servers_own_words);
	RUN(a_long_message_is_cut);
	RUN(the_first_kinds_are_told_and_every_one_counted);
	RUN(a_failed_warm_up_keeps_its_message);
	RUN(a_servers_control_bytes_never_reach_the_terminal);
	return harness_done();
}
