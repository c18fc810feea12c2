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

TEST(a_session_turn_round_trips_and_its_fields_go_together)
{
	struct trace_request t, back;
	char err[256], *text;
	cJSON *o;

	CHECK_EQ_INT(parse(REC("\"path\":\"/v1/chat/completions\",\"session\":3,\"turn\":2,"
			       "\"think_ns\":-7"), &t), 0);
	CHECK_EQ_INT(t.session, 3);
	CHECK_EQ_INT(t.turn, 2);
	CHECK_EQ_INT(t.think_ns, -7);   /* read as it is: replay/session.c judges it */
	o = trace_request_to_json(&t);
	text = cJSON_PrintUnformatted(o);       /* as a file holds it */
	cJSON_Delete(o);
	o = cJSON_Parse(text);
	free(text);
	trace_request_init(&back);
	CHECK_EQ_INT(trace_request_from_json(&back, o, err, sizeof(err)), 0);
	CHECK_EQ_INT(back.session, 3);
	CHECK_EQ_INT(back.turn, 2);
	CHECK_EQ_INT(back.think_ns, -7);
	cJSON_Delete(o);
	trace_request_release(&back);
	trace_request_release(&t);
	/* a record without one is in no session, and writes none */
	CHECK_EQ_INT(parse(REC("\"path\":\"/v1/chat/completions\""), &t), 0);
	CHECK_EQ_INT(t.session, -1);
	CHECK_EQ_INT(t.turn, -1);
	o = trace_request_to_json(&t);
	CHECK(!cJSON_GetObjectItemCaseSensitive(o, "session"));
	CHECK(!cJSON_GetObjectItemCaseSensitive(o, "turn"));
	cJSON_Delete(o);
	trace_request_release(&t);
	CHECK(refused(REC("\"path\":\"/v1/chat/completions\",\"session\":3")));
	CHECK(refused(REC("\"path\":\"/v1/chat/completions\",\"turn\":0")));
	CHECK(refused(REC("\"path\":\"/v1/chat/completions\",\"session\":-2,\"turn\":0")));
	CHECK(refused(REC("\"path\":\"/v1/chat/completions\",\"session\":1,\"turn\":1.5")));
	CHECK(refused(REC("\"path\":\"/v1/chat/completions\",\"session\":1e12,\"turn\":0")));
	CHECK(refused(REC("\"path\":\"/v1/chat/completions\",\"session\":1,\"turn\":0,"
			  "\"think_ns\":\"soon\"")));
}

int main(void)
{
	RUN(a_plain_record_passes);
	RUN(injection_through_any_field_is_refused);
	RUN(dot_segments_cannot_climb_out_of_the_base_path);
	RUN(framing_routing_and_credentials_are_never_taken);
	RUN(a_session_turn_round_trips_and_its_fields_go_together);
	return harness_done();
}
