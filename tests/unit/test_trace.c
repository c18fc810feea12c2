/*
 * test_trace.c - the gate every field of a trace passes before replay
 * sends it (trace_request_from_json): nothing read from a trace can
 * inject a header or a request, reroute one, or carry a credential.
 */
#include "harness.h"
#include "lib/trace.h"

#include <stdlib.h>

/* Parses one record given as JSON text; returns trace_request_from_json's result. */
static int parse(const char *json, struct trace_request *t)
{
	char err[256];
	cJSON *o = cJSON_Parse(json);
	int rc;

	trace_request_init(t);
	CHECK(o != NULL);
	rc = trace_request_from_json(t, o, err, sizeof(err));
	cJSON_Delete(o);
	return rc;
}

static int refused(const char *json)
{
	struct trace_request t;
	int rc = parse(json, &t);

	trace_request_release(&t);
	return rc < 0;
}

#define REC(fields) "{\"id\":1,\"arrival_ns\":0,\"body\":\"{}\"," fields "}"

TEST(a_plain_record_passes)
{
	struct trace_request t;

	CHECK_EQ_INT(parse(REC("\"method\":\"POST\",\"path\":\"/v1/chat/completions?a=1\","
			       "\"headers\":[\"Content-Type: application/json\",\"X-A:\",\"X-B: v\\tw\"]"), &t), 0);
	CHECK_STR(t.method, "POST");
	CHECK_EQ_INT(t.n_headers, 3);
	trace_request_release(&t);
}

TEST(injection_through_any_field_is_refused)
{
	CHECK(refused(REC("\"method\":\"POST /evil HTTP/1.1\\r\\nX: y\",\"path\":\"/v1\"")));
	CHECK(refused(REC("\"method\":\"\",\"path\":\"/v1\"")));
	CHECK(refused(REC("\"path\":\"/v1 HTTP/1.1\\r\\nHost: evil\\r\\n\\r\\nGET /x\"")));
	CHECK(refused(REC("\"path\":\"/v1\\n\"")));
	CHECK(refused(REC("\"path\":\"/v1/\\u00e9\"")));
	CHECK(refused(REC("\"path\":\"v1\"")));
	CHECK(refused(REC("\"path\":\"/v1\",\"headers\":[\"X-A: 1\\r\\nX-Injected: 2\"]")));
	CHECK(refused(REC("\"path\":\"/v1\",\"headers\":[\"X-A: 1\\n\"]")));
	CHECK(refused(REC("\"path\":\"/v1\",\"headers\":[\"X-A: \\u0001\"]")));
	CHECK(refused(REC("\"path\":\"/v1\",\"headers\":[\"X A: 1\"]")));
	CHECK(refused(REC("\"path\":\"/v1\",\"headers\":[\": 1\"]")));
	CHECK(refused(REC("\"path\":\"/v1\",\"headers\":[\"X-A 1\"]")));
}

TEST(dot_segments_cannot_climb_out_of_the_base_path)
{
	CHECK(refused(REC("\"path\":\"/../admin\"")));
	CHECK(refused(REC("\"path\":\"/v1/./x\"")));
	CHECK(refused(REC("\"path\":\"/v1/%2e%2E/x\"")));
	CHECK(refused(REC("\"path\":\"/v1/..\"")));
	CHECK(refused(REC("\"path\":\"/v1/..?x=1\"")));
	CHECK(!refused(REC("\"path\":\"/v1/...\"")));
	CHECK(!refused(REC("\"path\":\"/v1/x..y?p=/../\"")));
}

TEST(framing_routing_and_credentials_are_never_taken)
{
	struct trace_request t;
	size_t i;

	CHECK_EQ_INT(parse(REC("\"path\":\"/v1\",\"headers\":[\"Host: evil.example\","
			       "\"Content-Length: 5\",\"Transfer-Encoding: chunked\",\"Connection: close\","
			       "\"Authorization: Bearer trace-key\",\"x-api-key: k\",\"Proxy-Authorization: p\","
			       "\"Expect: 100-continue\",\"TE: trailers\",\"Upgrade: h2c\",\"Keep-Alive: 5\","
			       "\"User-Agent: kept\"]"), &t), 0);
	CHECK_EQ_INT(t.n_headers, 1);
	for (i = 0; i < t.n_headers; i++)
		CHECK_STR(t.headers[i], "User-Agent: kept");
	trace_request_release(&t);
}

int main(void)
{
	RUN(a_plain_record_passes);
	RUN(injection_through_any_field_is_refused);
	RUN(dot_segments_cannot_climb_out_of_the_base_path);
	RUN(framing_routing_and_credentials_are_never_taken);
	return harness_done();
}
