/*
 * test_result.c - a result's JSON form (lib/result.c): what result_to_json
 * writes reads back the same through result_from_json, gaps rounded to
 * whole microseconds (lib/gaps.c, and exact as the database keeps them),
 * every field of lib/result_field.c in schema/FORMAT.md, and a field out
 * of its range is refused by name.
 */
#include "harness.h"
#include "lib/gaps.h"
#include "lib/json.h"
#include "lib/result.h"
#include "lib/result_field.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* r as the file holds it: printed, then parsed again. */
static cJSON *as_written(const struct result *r)
{
	cJSON *o = result_to_json(r), *back;
	char *text = o ? cJSON_PrintUnformatted(o) : NULL;

	CHECK(text != NULL);
	back = text ? cJSON_Parse(text) : NULL;
	free(text);
	cJSON_Delete(o);
	return back;
}

TEST(a_result_reads_back_as_written)
{
	static const int64_t gaps[] = { 0, 499, 500, 1499, 1500, 123456789 };
	struct result r, back;
	char err[256];
	cJSON *o;

	result_init(&r);
	r.level = 8;
	r.seq = 41;
	r.trace_id = 7;
	r.status = 200;
	r.sched_ns = 1000;
	r.send_ns = 1200;
	r.ttft_ns = 5000000;
	r.ttfa_ns = 5000001;
	r.e2e_ns = 90000000;
	r.input_tokens = 12;
	r.output_tokens = 6;
	r.token_events = 6;
	r.session = 3;
	r.turn = 1;
	r.server.shape = SRVTIMING_VLLM;
	r.server.queue_ns = 0;
	r.server.prefill_ns = 4100000;
	r.server.decode_ns = -1;
	r.itl_ns = malloc(sizeof(gaps));
	CHECK(r.itl_ns != NULL);
	if (!r.itl_ns)
		return;
	memcpy(r.itl_ns, gaps, sizeof(gaps));
	r.n_itl = sizeof(gaps) / sizeof(gaps[0]);
	o = as_written(&r);
	CHECK(o != NULL);
	result_init(&back);
	CHECK_EQ_INT(result_from_json(&back, o, err, sizeof(err)), 0);
	CHECK_EQ_INT(back.level, 8);
	CHECK_EQ_INT(back.seq, 41);
	CHECK_EQ_INT(back.session, 3);
	CHECK_EQ_INT(back.turn, 1);
	CHECK_EQ_INT(back.ttft_ns, 5000000);
	CHECK_EQ_INT(back.e2e_ns, 90000000);
	CHECK_EQ_INT(back.output_tokens, 6);
	CHECK_EQ_INT(back.server.shape, SRVTIMING_VLLM);
	CHECK_EQ_INT(back.server.queue_ns, 0);
	CHECK_EQ_INT(back.server.prefill_ns, 4100000);
	CHECK_EQ_INT(back.server.decode_ns, -1);
	CHECK_EQ_INT((long)back.n_itl, 6);
	/* whole microseconds, rounded half up */
	if (back.n_itl == 6) {
		CHECK_EQ_INT(back.itl_ns[0], 0);
		CHECK_EQ_INT(back.itl_ns[1], 0);
		CHECK_EQ_INT(back.itl_ns[2], 1000);
		CHECK_EQ_INT(back.itl_ns[3], 1000);
		CHECK_EQ_INT(back.itl_ns[4], 2000);
		CHECK_EQ_INT(back.itl_ns[5], 123457000);
	}
	cJSON_Delete(o);
	result_release(&back);
	result_release(&r);
}

TEST(gaps_are_written_whole_or_exact_and_read_back)
{
	static const int64_t v[] = { 0, 499, 500, 1499, 12345, -2500, -2501, 9000000000000000LL };
	int64_t *back = NULL;
	char *text = NULL;
	size_t cap = 0, n = 0;
	cJSON *arr;

	CHECK_EQ_INT(gaps_format(v, 8, GAPS_WHOLE, &text, &cap), 0);
	CHECK_STR(text, "[0,0,1,1,12,-2,-3,9000000000000]");
	CHECK_EQ_INT(gaps_format(v, 8, GAPS_EXACT, &text, &cap), 0);
	CHECK_STR(text, "[0,0.499,0.500,1.499,12.345,-2.500,-2.501,9000000000000]");
	/* the exact form reads back to the nanosecond, by cJSON */
	CHECK_EQ_INT(gaps_parse(text, &back, &n), 0);
	CHECK_EQ_INT((long)n, 8);
	CHECK(back && memcmp(back, v, sizeof(v)) == 0);
	free(back);
	/* exact past a double's three decimals (about 51 days), as written */
	CHECK_EQ_INT(gaps_parse("[4444444222222.901,-0.5]", &back, &n), 0);
	CHECK(n == 2 && back && back[0] == 4444444222222901LL && back[1] == -500);
	free(back);
	/* the whole form without cJSON, the same as through it */
	CHECK_EQ_INT(gaps_parse("[12,340,5]", &back, &n), 0);
	CHECK(n == 3 && back && back[0] == 12000 && back[1] == 340000 && back[2] == 5000);
	free(back);
	arr = cJSON_Parse("[12,340,5]");
	CHECK_EQ_INT(gaps_from_json(arr, &back, &n), 0);
	CHECK(n == 3 && back && back[0] == 12000 && back[1] == 340000 && back[2] == 5000);
	cJSON_Delete(arr);
	free(back);
	CHECK_EQ_INT(gaps_format(v, 0, GAPS_WHOLE, &text, &cap), 0);
	CHECK_STR(text, "[]");
	CHECK_EQ_INT(gaps_parse(text, &back, &n), 0);
	CHECK(n == 0 && back == NULL);
	/* past about 100 days, or no array of numbers: refused, by either path */
	CHECK_EQ_INT(gaps_parse("[90000000000000]", &back, &n), -1);
	CHECK_EQ_INT(gaps_parse("[1e14]", &back, &n), -1);
	CHECK_EQ_INT(gaps_parse("[1,\"2\"]", &back, &n), -1);
	CHECK_EQ_INT(gaps_parse("{}", &back, &n), -1);
	CHECK_EQ_INT(gaps_parse("[1,", &back, &n), -1);
	CHECK(back == NULL && n == 0);
	free(text);
}

/* Every field of the table has its row in schema/FORMAT.md's record
 * table: the format's reader finds each one there. */
TEST(every_field_is_in_the_format)
{
	size_t len = 0, i;
	char *doc = harness_slurp("schema", "FORMAT.md", &len), row[64];

	CHECK(doc != NULL);
	for (i = 0; doc && i < result_n_fields; i++) {
		snprintf(row, sizeof(row), "\n| `%s` |", result_fields[i].name);
		CHECK(strstr(doc, row) != NULL);
		if (!strstr(doc, row))
			fprintf(stderr, "  FORMAT.md has no row for '%s'\n", result_fields[i].name);
	}
	free(doc);
}

TEST(a_field_out_of_range_is_refused_by_name)
{
	static const char *const bad[][2] = {
		{ "\"e2e_ns\":-5", "'e2e_ns' is out of range" },
		{ "\"ttft_ns\":-2", "'ttft_ns' is out of range" },
		{ "\"output_tokens\":1e12", "'output_tokens' is out of range" },
		{ "\"level\":2000000", "'level' is out of range" },
		{ "\"session\":1", "'session' and 'turn' go together" },
		{ "\"server_timings\":\"tgi\"", "'server_timings' is not llama.cpp, vllm or sglang" },
		{ "\"server_timings\":1", "'server_timings' is not llama.cpp, vllm or sglang" },
		{ "\"server_prefill_ns\":5", "'server_*_ns' need 'server_timings'" },
		{ "\"server_decode_ns\":-7", "'server_decode_ns' is out of range" },
		{ "\"server_queue_ns\":8640000000000001", "'server_queue_ns' is out of range" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[512], err[256] = "";
		struct result r;
		cJSON *o;

		/* the field under test first: of two equal keys, the first is read */
		snprintf(text, sizeof(text), "{%s,\"level\":1,\"seq\":0,\"send_ns\":0,"
			 "\"e2e_ns\":1,\"output_tokens\":1}", bad[i][0]);
		o = cJSON_Parse(text);
		CHECK(o != NULL);
		result_init(&r);
		CHECK_EQ_INT(result_from_json(&r, o, err, sizeof(err)), -1);
		CHECK(strstr(err, bad[i][1]) != NULL);
		result_release(&r);
		cJSON_Delete(o);
	}
}

int main(void)
{
	RUN(a_result_reads_back_as_written);
	RUN(gaps_are_written_whole_or_exact_and_read_back);
	RUN(every_field_is_in_the_format);
	RUN(a_field_out_of_range_is_refused_by_name);
	return harness_done();
}
