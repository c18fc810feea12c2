/*
 * test_body.c - replay's request-body rewriting (replay/body.c): the
 * overrides land once with the asked value, a streamed request asks for
 * usage, and everything else goes out as recorded, byte for byte.
 * The *_fuzz tests are the findings of tests/fuzz/fuzz_body.c.
 */
#include "harness.h"
#include "replay/body.h"

#include <stdlib.h>

static const struct body_overrides none = { NULL, 0, 0, TYPED_NONE, 0 };
static const struct body_overrides all = { "llama", 64, 1, TYPED_NONE, 0 };

/* The rewritten body (static, overwritten by the next call). */
static const char *rewrite(const char *body, const struct body_overrides *ov)
{
	static char last[1024];
	char *out = NULL;
	size_t len = 0;

	if (body_rewrite(body, strlen(body), ov, &out, &len) != BODY_OK)
		return "(failed)";
	if (strlen(out) != len)
		snprintf(last, sizeof(last), "(length %zu for %zu bytes)", len, strlen(out));
	else
		snprintf(last, sizeof(last), "%s", out);
	free(out);
	return last;
}

TEST(overrides_replace_the_members_and_keep_the_rest)
{
	CHECK_STR(rewrite("{\"model\":\"mock\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
			  "\"max_tokens\":40,\"temperature\":0.7}", &all),
		  "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"temperature\":0.7,"
		  "\"model\":\"llama\",\"max_tokens\":64,\"ignore_eos\":true}");
	/* no override asked, not streamed: the members as they were */
	CHECK_STR(rewrite("{\"model\":\"mock\",\"max_tokens\":40}", &none),
		  "{\"model\":\"mock\",\"max_tokens\":40}");
}

TEST(max_completion_tokens_is_set_only_when_the_body_has_it)
{
	CHECK_STR(rewrite("{\"max_completion_tokens\":5,\"prompt\":\"x\"}", &all),
		  "{\"prompt\":\"x\",\"model\":\"llama\",\"max_tokens\":64,"
		  "\"max_completion_tokens\":64,\"ignore_eos\":true}");
	CHECK_STR(rewrite("{\"prompt\":\"x\"}", &(struct body_overrides){ NULL, 7, 0, TYPED_NONE, 0 }),
		  "{\"prompt\":\"x\",\"max_tokens\":7}");
}

TEST(a_streamed_body_asks_for_usage)
{
	CHECK_STR(rewrite("{\"stream\":true}", &none),
		  "{\"stream\":true,\"stream_options\":{\"include_usage\":true}}");
	/* an existing stream_options keeps its place and its other members */
	CHECK_STR(rewrite("{\"stream\":true,\"stream_options\":{\"include_usage\":false,"
			  "\"continuous_usage_stats\":true},\"n\":1}", &none),
		  "{\"stream\":true,\"stream_options\":{\"continuous_usage_stats\":true,"
		  "\"include_usage\":true},\"n\":1}");
	/* one that is not an object is replaced */
	CHECK_STR(rewrite("{\"stream_options\":null,\"stream\":true}", &none),
		  "{\"stream\":true,\"stream_options\":{\"include_usage\":true}}");
	/* not streamed: left alone */
	CHECK_STR(rewrite("{\"stream\":false,\"stream_options\":null}", &none),
		  "{\"stream\":false,\"stream_options\":null}");
}

/* Messages and Responses streams bring their usage unasked, and their APIs
 * refuse a stream_options they do not know; a Responses body's limit is
 * max_output_tokens. */
TEST(typed_bodies_get_no_stream_options_and_their_own_limit)
{
	CHECK_STR(rewrite("{\"stream\":true,\"max_tokens\":5}",
			  &(struct body_overrides){ NULL, 9, 0, TYPED_MESSAGES, 0 }),
		  "{\"stream\":true,\"max_tokens\":9}");
	CHECK_STR(rewrite("{\"stream\":true,\"max_output_tokens\":5,\"input\":\"x\"}",
			  &(struct body_overrides){ NULL, 9, 0, TYPED_RESPONSES, 0 }),
		  "{\"stream\":true,\"input\":\"x\",\"max_output_tokens\":9}");
	CHECK_STR(rewrite("{\"stream\":true}", &(struct body_overrides){ NULL, 0, 0, TYPED_RESPONSES, 0 }),
		  "{\"stream\":true}");
}

/* --previous-response-id: a chained session's turn asks the server to
 * store it, whatever the trace said (a first turn: its input whole) */
TEST(stored_turns)
{
	CHECK_STR(rewrite("{\"input\":[{\"role\":\"user\",\"content\":\"a\"}],\"store\":false}",
			  &(struct body_overrides){ NULL, 0, 0, TYPED_RESPONSES, 1 }),
		  "{\"input\":[{\"role\":\"user\",\"content\":\"a\"}],\"store\":true}");
	CHECK_STR(rewrite("{\"input\":\"a\",\"store\":false}", &none),
		  "{\"input\":\"a\",\"store\":false}");
}

TEST(a_body_that_is_not_one_json_object_goes_out_as_recorded)
{
	CHECK_STR(rewrite("[{\"model\":\"m\"}]", &all), "[{\"model\":\"m\"}]");
	CHECK_STR(rewrite("model=m&stream=true", &all), "model=m&stream=true");
	CHECK_STR(rewrite("", &all), "");
	CHECK_STR(rewrite("{\"model\":", &all), "{\"model\":");
}

TEST(untouched_members_keep_their_bytes)
{
	/* cJSON would print 18446744073709551616, cut the prompt at \u0000,
	 * and turn \u00e9 into UTF-8 */
	CHECK_STR(rewrite("{\"seed\":18446744073709551615,\"prompt\":\"a\\u0000b \\u00e9\","
			  "\"x\" : [ 1 , 2.50 ]}", &all),
		  "{\"seed\":18446744073709551615,\"prompt\":\"a\\u0000b \\u00e9\","
		  "\"x\" : [ 1 , 2.50 ],\"model\":\"llama\",\"max_tokens\":64,\"ignore_eos\":true}");
	/* white space and a byte-order mark around the object are dropped */
	CHECK_STR(rewrite("\xef\xbb\xbf \n{ \"a\" :1 }\n", &none), "{\"a\" :1}");
}

TEST(the_model_name_is_escaped)
{
	CHECK_STR(rewrite("{}", &(struct body_overrides){ "m\"o\\d\nel", 0, 0, TYPED_NONE, 0 }),
		  "{\"model\":\"m\\\"o\\\\d\\nel\"}");
}

TEST(bytes_after_the_object_fuzz)
{
	/* was rewritten, dropping the bytes after the object */
	CHECK_STR(rewrite("{\"stream\":true} {\"x\":1}", &all), "{\"stream\":true} {\"x\":1}");
}

TEST(a_member_named_twice_fuzz)
{
	/* was: only the first removed, so the recorded value came first and
	 * a server reading the first one ignored --model */
	CHECK_STR(rewrite("{\"model\":\"a\",\"model\":\"b\"}", &(struct body_overrides){ "c", 0, 0, TYPED_NONE, 0 }),
		  "{\"model\":\"c\"}");
	/* "stream" counts at its last occurrence, as servers read it (was the first) */
	CHECK_STR(rewrite("{\"stream\":false,\"stream\":true}", &none),
		  "{\"stream\":false,\"stream\":true,\"stream_options\":{\"include_usage\":true}}");
	CHECK_STR(rewrite("{\"stream\":true,\"stream_options\":{\"a\":1},\"stream_options\":{\"b\":2}}",
			  &none),
		  "{\"stream\":true,\"stream_options\":{\"b\":2,\"include_usage\":true}}");
}

TEST(max_completion_tokens_in_another_case_fuzz)
{
	/* was: found case-insensitively, so a max_completion_tokens member
	 * was added that the body did not have */
	CHECK_STR(rewrite("{\"Max_Completion_Tokens\":3}", &(struct body_overrides){ NULL, 9, 0, TYPED_NONE, 0 }),
		  "{\"Max_Completion_Tokens\":3,\"max_tokens\":9}");
}

TEST(a_number_out_of_double_range_fuzz)
{
	/* was sent as null */
	CHECK_STR(rewrite("{\"stream\":true,\"t\":1e999}", &none),
		  "{\"stream\":true,\"t\":1e999,\"stream_options\":{\"include_usage\":true}}");
}

/* The body salted with "S " where the prompt starts, or "(none)". */
static const char *salted(const char *body)
{
	static char last[1024];
	size_t off, len;
	char *out = NULL;

	if (body_salt_offset(body, strlen(body), &off) < 0)
		return "(none)";
	if (body_insert(body, strlen(body), off, "S ", &out, &len) != BODY_OK)
		return "(failed)";
	snprintf(last, sizeof(last), "%s", strlen(out) == len ? out : "(bad length)");
	free(out);
	return last;
}

TEST(the_salt_goes_where_the_prompt_starts)
{
	/* chat: the first message's content, a string ... */
	CHECK_STR(salted("{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},"
			 "{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}"),
		  "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"S be brief\"},"
		  "{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}");
	/* ... or its first text part */
	CHECK_STR(salted("{\"messages\": [ {\"content\": [{\"type\":\"image_url\",\"image_url\":{}},"
			 " {\"type\":\"text\",\"text\":\"look\"}]}]}"),
		  "{\"messages\": [ {\"content\": [{\"type\":\"image_url\",\"image_url\":{}},"
		  " {\"type\":\"text\",\"text\":\"S look\"}]}]}");
	/* completions: the prompt, or the first prompt of a list */
	CHECK_STR(salted("{\"prompt\":\"Once\",\"max_tokens\":4}"),
		  "{\"prompt\":\"S Once\",\"max_tokens\":4}");
	CHECK_STR(salted("{\"prompt\":[\"a\",\"b\"]}"), "{\"prompt\":[\"S a\",\"b\"]}");
	/* Messages and Responses: the system prompt, before the messages */
	CHECK_STR(salted("{\"system\":\"be brief\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"),
		  "{\"system\":\"S be brief\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
	CHECK_STR(salted("{\"system\":[{\"type\":\"text\",\"text\":\"sys\"}],\"messages\":[]}"),
		  "{\"system\":[{\"type\":\"text\",\"text\":\"S sys\"}],\"messages\":[]}");
	CHECK_STR(salted("{\"input\":\"hi\",\"instructions\":\"be brief\"}"),
		  "{\"input\":\"hi\",\"instructions\":\"S be brief\"}");
	CHECK_STR(salted("{\"input\":[{\"role\":\"user\",\"content\":\"hi\"}]}"),
		  "{\"input\":[{\"role\":\"user\",\"content\":\"S hi\"}]}");
	/* a key that only contains "prompt" is not the prompt */
	CHECK_STR(salted("{\"prompt_x\":\"no\",\"prompt\":\"yes\"}"),
		  "{\"prompt_x\":\"no\",\"prompt\":\"S yes\"}");
	/* the last of a member named twice, as servers read it */
	CHECK_STR(salted("{\"prompt\":\"old\",\"prompt\":\"new\"}"),
		  "{\"prompt\":\"old\",\"prompt\":\"S new\"}");
}

TEST(a_body_without_prompt_text_is_not_salted)
{
	CHECK_STR(salted("{\"prompt\":[1,2,3]}"), "(none)");      /* token ids */
	CHECK_STR(salted("{\"messages\":[]}"), "(none)");
	CHECK_STR(salted("{\"messages\":[{\"role\":\"user\"}]}"), "(none)");
	CHECK_STR(salted("{\"model\":\"m\"}"), "(none)");
	CHECK_STR(salted("not json"), "(none)");
	CHECK_STR(salted("{\"prompt\":\"a\"} trailing"), "(none)");
	CHECK_STR(salted(""), "(none)");
}

/* The head of the prompt at the body's salt offset, as a string. */
static const char *head(const char *body, size_t max)
{
	static char last[256];
	size_t off, n;

	if (body_salt_offset(body, strlen(body), &off) < 0)
		return "(none)";
	n = body_prompt_head(body, strlen(body), off, max);
	snprintf(last, sizeof(last), "%.*s", (int)n, body + off);
	return last;
}

TEST(the_prompt_head_keys_the_salt)
{
	/* the first string's text, up to its closing quote or max bytes */
	CHECK_STR(head("{\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},"
		       "{\"role\":\"user\",\"content\":\"hi\"}]}", 64), "be brief");
	CHECK_STR(head("{\"prompt\":\"Once upon a time\"}", 4), "Once");
	/* an escaped quote or backslash is text, not the end */
	CHECK_STR(head("{\"prompt\":\"say \\\"hi\\\" \\\\\",\"n\":1}", 64),
		  "say \\\"hi\\\" \\\\");
	CHECK_STR(head("{\"prompt\":\"\",\"n\":1}", 64), "");
	/* the turns of a session open with the same first message: one head */
	CHECK_STR(head("{\"messages\":[{\"role\":\"user\",\"content\":\"q1\"},"
		       "{\"role\":\"assistant\",\"content\":\"a1\"}]}", 64), "q1");
}

int main(void)
{
	RUN(overrides_replace_the_members_and_keep_the_rest);
	RUN(max_completion_tokens_is_set_only_when_the_body_has_it);
	RUN(a_streamed_body_asks_for_usage);
	RUN(typed_bodies_get_no_stream_options_and_their_own_limit);
	RUN(stored_turns);
	RUN(a_body_that_is_not_one_json_object_goes_out_as_recorded);
	RUN(untouched_members_keep_their_bytes);
	RUN(the_model_name_is_escaped);
	RUN(bytes_after_the_object_fuzz);
	RUN(a_member_named_twice_fuzz);
	RUN(max_completion_tokens_in_another_case_fuzz);
	RUN(a_number_out_of_double_range_fuzz);
	RUN(the_salt_goes_where_the_prompt_starts);
	RUN(a_body_without_prompt_text_is_not_salted);
	RUN(the_prompt_head_keys_the_salt);
	return harness_done();
}
