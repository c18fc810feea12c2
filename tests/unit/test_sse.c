/*
 * test_sse.c - the SSE parser gives the same events however the bytes are
 * split, with LF, CRLF and CR line ends, comments and multi-line data.
 */
#include "harness.h"
#include "lib/sse.h"

#include <stdlib.h>

#define MAX_EVENTS 16

struct collected {
	int n;
	char event[MAX_EVENTS][32];
	char data[MAX_EVENTS][256];
};

static int collect(void *ctx, const char *event, const char *data, size_t len)
{
	struct collected *c = ctx;

	if (c->n < MAX_EVENTS) {
		snprintf(c->event[c->n], sizeof(c->event[0]), "%s", event);
		snprintf(c->data[c->n], sizeof(c->data[0]), "%.*s", (int)len, data);
	}
	c->n++;
	return 0;
}

/* A stream as OpenAI-compatible servers send it, with the oddities allowed. */
static const char stream_lf[] =
	": keep-alive comment\n"
	"data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n"
	"\n"
	"data:{\"choices\":[{\"delta\":{\"content\":\" hi\"}}]}\n"
	"\n"
	"event: error\n"
	"data: line one\n"
	"data: line two\n"
	"id: 7\n"
	"\n"
	"data: [DONE]\n"
	"\n";

static void check_events(const struct collected *c)
{
	CHECK_EQ_INT(c->n, 4);
	CHECK_STR(c->event[0], "message");
	CHECK_STR(c->data[0], "{\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}");
	CHECK_STR(c->data[1], "{\"choices\":[{\"delta\":{\"content\":\" hi\"}}]}");
	CHECK_STR(c->event[2], "error");
	CHECK_STR(c->data[2], "line one\nline two");
	CHECK_STR(c->event[3], "message");
	CHECK_STR(c->data[3], "[DONE]");
}

/* stream_lf with every "\n" replaced by 'eol'. */
static char *with_line_end(const char *eol)
{
	size_t n = 0, i, el = strlen(eol);
	char *out = malloc(sizeof(stream_lf) * el + 1);

	for (i = 0; stream_lf[i]; i++) {
		if (stream_lf[i] == '\n') {
			memcpy(out + n, eol, el);
			n += el;
		} else {
			out[n++] = stream_lf[i];
		}
	}
	out[n] = '\0';
	return out;
}

static void parse_split_everywhere(const char *eol)
{
	char *s = with_line_end(eol);
	size_t len = strlen(s), cut;

	for (cut = 0; cut <= len; cut++) {
		struct collected c = { 0 };
		struct sse_parser p;

		sse_parser_init(&p, 0, collect, &c);
		CHECK_EQ_INT(sse_parser_feed(&p, s, cut), SSE_OK);
		CHECK_EQ_INT(sse_parser_feed(&p, s + cut, len - cut), SSE_OK);
		check_events(&c);
		CHECK_EQ_INT(sse_parser_pending(&p), 0);
		sse_parser_release(&p);
	}
	free(s);
}

TEST(lf_split_at_every_byte)
{
	parse_split_everywhere("\n");
}

TEST(crlf_split_at_every_byte)
{
	parse_split_everywhere("\r\n");
}

TEST(cr_split_at_every_byte)
{
	parse_split_everywhere("\r");
}

TEST(one_byte_at_a_time)
{
	char *s = with_line_end("\r\n");
	struct collected c = { 0 };
	struct sse_parser p;
	size_t i;

	sse_parser_init(&p, 0, collect, &c);
	for (i = 0; s[i]; i++)
		CHECK_EQ_INT(sse_parser_feed(&p, s + i, 1), SSE_OK);
	check_events(&c);
	sse_parser_release(&p);
	free(s);
}

TEST(unfinished_event_is_pending_not_dispatched)
{
	static const char s[] = "data: {\"a\":1}\n\ndata: {\"b\":";
	struct collected c = { 0 };
	struct sse_parser p;

	sse_parser_init(&p, 0, collect, &c);
	CHECK_EQ_INT(sse_parser_feed(&p, s, sizeof(s) - 1), SSE_OK);
	CHECK_EQ_INT(c.n, 1);
	CHECK(sse_parser_pending(&p) > 0);
	sse_parser_release(&p);
}

TEST(event_over_the_cap_is_refused)
{
	char big[300];
	struct collected c = { 0 };
	struct sse_parser p;

	memset(big, 'x', sizeof(big));
	/* NOLINTNEXTLINE(bugprone-not-null-terminated-result): bytes, not a string */
	memcpy(big, "data: ", 6);
	sse_parser_init(&p, 100, collect, &c);
	CHECK_EQ_INT(sse_parser_feed(&p, big, sizeof(big)), SSE_ETOOBIG);
	CHECK_EQ_INT(c.n, 0);
	sse_parser_release(&p);

	/* Many small data lines adding up past the cap are refused too. */
	sse_parser_init(&p, 100, collect, &c);
	for (int i = 0; i < 20; i++) {
		int rc = sse_parser_feed(&p, "data: 0123456789\n", 17);

		if (rc != SSE_OK) {
			CHECK_EQ_INT(rc, SSE_ETOOBIG);
			break;
		}
		CHECK(i < 10);
	}
	sse_parser_release(&p);
}

/* The cap is on the data: "data: " and the value on one line, the value
 * exactly the cap long, passes, whole or a byte at a time; one more byte
 * does not. */
TEST(event_of_exactly_the_cap_passes)
{
	enum { CAP = 100 };
	char line[6 + CAP + 1 + 3], xs[CAP + 2];
	struct collected c;
	struct sse_parser p;
	size_t i;
	int rc;

	memset(xs, 'x', CAP + 1);
	xs[CAP + 1] = '\0';
	for (int extra = 0; extra <= 1; extra++) {
		for (int split = 0; split <= 1; split++) {
			size_t n = 6 + CAP + (size_t)extra;

			snprintf(line, sizeof(line), "data: %.*s\n\n", CAP + extra, xs);
			n += 2;
			memset(&c, 0, sizeof(c));
			sse_parser_init(&p, CAP, collect, &c);
			rc = SSE_OK;
			if (split)
				for (i = 0; i < n && rc == SSE_OK; i++)
					rc = sse_parser_feed(&p, line + i, 1);
			else
				rc = sse_parser_feed(&p, line, n);
			CHECK_EQ_INT(rc, extra ? SSE_ETOOBIG : SSE_OK);
			CHECK_EQ_INT(c.n, extra ? 0 : 1);
			sse_parser_release(&p);
		}
	}
}

TEST(field_without_colon_and_empty_data)
{
	static const char s[] = "data\n\ndata:\n\n";
	struct collected c = { 0 };
	struct sse_parser p;

	sse_parser_init(&p, 0, collect, &c);
	CHECK_EQ_INT(sse_parser_feed(&p, s, sizeof(s) - 1), SSE_OK);
	CHECK_EQ_INT(c.n, 2);
	CHECK_STR(c.data[0], "");
	CHECK_STR(c.data[1], "");
	sse_parser_release(&p);
}

int main(void)
{
	RUN(lf_split_at_every_byte);
	RUN(crlf_split_at_every_byte);
	RUN(cr_split_at_every_byte);
	RUN(one_byte_at_a_time);
	RUN(unfinished_event_is_pending_not_dispatched);
	RUN(event_over_the_cap_is_refused);
	RUN(event_of_exactly_the_cap_passes);
	RUN(field_without_colon_and_empty_data);
	return harness_done();
}
