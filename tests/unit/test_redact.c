/*
 * test_redact.c - the allowlist of what reaches a file (lib/redact.c):
 * unknown names lose their values, userinfo never survives, and error
 * text loses every bearer token and every named secret, even one that
 * straddles the cap a detail is cut to.
 */
#include "harness.h"
#include "lib/redact.h"
#include "lib/result.h"

#include <stdlib.h>

static void check_url(const char *in, const char *want)
{
	char *out = redact_url(in, NULL);

	CHECK_STR(out, want);
	free(out);
}

TEST(urls_lose_userinfo_and_unknown_query_values)
{
	static const char *const keep_names[] = { "Keepme" };
	struct redact_keep keep = { keep_names, 1 };
	char *out;

	check_url("http://user:PW@host:8000/v1", "http://host:8000/v1");
	check_url("https://u@h/", "https://h/");
	check_url("http://a:b@c@host/x?y=1", "http://host/x?y=REDACTED");
	check_url("http://host:8000", "http://host:8000");
	check_url("/v1/chat/completions?api_key=S1&key=S2&token=S3&api-version=2024-02-01",
		  "/v1/chat/completions?api_key=REDACTED&key=REDACTED&token=REDACTED&api-version=2024-02-01");
	check_url("/x?flag&limit=5&=v&Order=asc#frag=secret", "/x?flag&limit=5&=REDACTED&Order=asc");
	check_url("/x?a=1&&b=2&", "/x?a=REDACTED&&b=REDACTED&");
	check_url("/no/at@sign/here?q=1", "/no/at@sign/here?q=REDACTED");
	check_url("not a url: user:pw@x", "not a url: user:pw@x");
	out = redact_url("/x?keepme=1&other=2", &keep);
	CHECK_STR(out, "/x?keepme=1&other=REDACTED");
	free(out);
}

TEST(headers_by_allowlist)
{
	static const char *const keep_names[] = { "X-Session-Kind", "Authorization" };
	struct redact_keep keep = { keep_names, 2 };
	static const char *const unknown[] = {
		"Cf-Access-Jwt-Assertion", "X-Bearer", "X-Client-Cert", "X-Session-Kind", "X-Foo",
	};
	size_t i;

	for (i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
		CHECK(!redact_header_is_safe(unknown[i], strlen(unknown[i]), NULL));
	CHECK(redact_header_is_safe("Content-Type", 12, NULL));
	CHECK(redact_header_is_safe("x-stainless-lang", 16, NULL));
	CHECK(!redact_header_is_safe("x-stainless-", 12, NULL));
	CHECK(redact_header_is_safe("x-session-kind", 14, &keep));
	/* a kept name can never be a secret one */
	CHECK(!redact_header_is_safe("authorization", 13, &keep));
	CHECK(redact_header_is_secret("Proxy-Authorization", 19));
	CHECK(redact_header_is_secret("COOKIE", 6));
}

TEST(text_loses_bearer_tokens_and_secrets)
{
	static const char *const secrets[] = { "sk-live-0123456789", "abc" };
	char *out;

	const char *a = "bad key sk-live-0123456789 (Authorization: Bearer sk-live-0123456789)";
	const char *b = "{\"m\":\"BEARER   tok.en-1\",\"abc\":1}";

	out = redact_text(a, strlen(a), secrets, 2);
	CHECK_STR(out, "bad key REDACTED (Authorization: Bearer REDACTED)");
	free(out);
	out = redact_text(b, strlen(b), secrets, 2);
	CHECK_STR(out, "{\"m\":\"BEARER   REDACTED\",\"abc\":1}");   /* 'abc' too short to scrub */
	free(out);
	out = redact_text("Bearer", 6, NULL, 0);
	CHECK_STR(out, "Bearer");
	free(out);
	out = redact_text("", 0, NULL, 0);
	CHECK_STR(out, "");
	free(out);
}

TEST(result_details_are_redacted_before_they_are_cut)
{
	static const char *const secrets[] = { "sk-0123456789abcdef0123456789" };
	struct result r;
	char body[RESULT_DETAIL_MAX + 64];
	size_t i;

	result_init(&r);
	r.secrets = secrets;
	r.n_secrets = 1;
	/* the key straddles the cap: cut first, a prefix of it would remain */
	for (i = 0; i < RESULT_DETAIL_MAX - 20; i++)
		body[i] = 'x';
	snprintf(body + i, sizeof(body) - i, "%s", secrets[0]);
	result_set_http_error(&r, 401, body, strlen(body));
	CHECK(strstr(r.error_detail, "sk-0123") == NULL);
	CHECK(strlen(r.error_detail) <= RESULT_DETAIL_MAX);
	CHECK(strncmp(r.error_detail, "HTTP 401: xxx", 13) == 0);
	result_release(&r);
	result_set_error(&r, RESULT_ERR_SERVER, "echo: Bearer abc.def");
	CHECK_STR(r.error_detail, "echo: Bearer REDACTED");
	result_release(&r);
}

TEST(url_values_are_collected_as_written_and_decoded)
{
	char *out[8];
	size_t n = 0, i;

	CHECK_EQ_INT(redact_url_values("http://user:pw-secret@h/x?api_key=a%2Bb-key&limit=5&t=ab",
				       NULL, out, &n, 8), 0);
	/* the password, the userinfo, the key as written and decoded; limit is
	 * kept by redact_url and "ab" is too short to scrub */
	CHECK_EQ_INT((int)n, 4);
	CHECK_STR(out[0], "pw-secret");
	CHECK_STR(out[1], "user:pw-secret");
	CHECK_STR(out[2], "a%2Bb-key");
	CHECK_STR(out[3], "a+b-key");
	/* already there: not added twice; max is kept */
	CHECK_EQ_INT(redact_url_values("/y?key=a%2Bb-key&token=zzzzzz", NULL, out, &n, 5), 0);
	CHECK_EQ_INT((int)n, 5);
	CHECK_STR(out[4], "zzzzzz");
	for (i = 0; i < n; i++)
		free(out[i]);
}

int main(void)
{
	RUN(urls_lose_userinfo_and_unknown_query_values);
	RUN(headers_by_allowlist);
	RUN(text_loses_bearer_tokens_and_secrets);
	RUN(result_details_are_redacted_before_they_are_cut);
	RUN(url_values_are_collected_as_written_and_decoded);
	return harness_done();
}
