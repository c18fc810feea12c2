/*
 * test_cancel.c - replay --cancel's spec and choice (replay/cancel.h):
 * what parses and to what, what is refused and that the reason names the
 * part at fault; the choice seeded, independent of anything but the seed,
 * the trace record and the pass, and about P of the requests.
 */
#include "harness.h"
#include "replay/cancel.h"

#include <string.h>

TEST(parses_a_time)
{
	struct cancel_spec c;
	char err[256], after[CANCEL_TEXT_MAX];

	CHECK_EQ_INT(cancel_parse("0.1:200ms", &c, err, sizeof(err)), 0);
	CHECK_NEAR(c.share, 0.1, 1e-12);
	CHECK_EQ_INT(c.after_ns, 200000000);
	CHECK_EQ_INT(c.tokens, 0);
	cancel_after_text(&c, after, sizeof(after));
	CHECK_STR(after, "200ms");
	CHECK_EQ_INT(cancel_parse("1:1.5s", &c, err, sizeof(err)), 0);
	CHECK_NEAR(c.share, 1, 0);
	CHECK_EQ_INT(c.after_ns, 1500000000);
	cancel_after_text(&c, after, sizeof(after));
	CHECK_STR(after, "1500ms");
	CHECK_EQ_INT(cancel_parse(".5:250us", &c, err, sizeof(err)), 0);
	CHECK_EQ_INT(c.after_ns, 250000);
	cancel_after_text(&c, after, sizeof(after));
	CHECK_STR(after, "0.25ms");
	CHECK_EQ_INT(cancel_parse("0.5:86400s", &c, err, sizeof(err)), 0);
	CHECK_EQ_INT(c.after_ns, CANCEL_MAX_NS);
	cancel_after_text(&c, after, sizeof(after));
	CHECK_STR(after, "86400000ms");
	CHECK_EQ_INT(cancel_parse("0.5:1.000001ms", &c, err, sizeof(err)), 0);
	cancel_after_text(&c, after, sizeof(after));
	CHECK_STR(after, "1.000001ms");
	CHECK_EQ_INT(cancel_parse("0.5:0.0000015s", &c, err, sizeof(err)), 0);
	CHECK_EQ_INT(c.after_ns, 1500);
	cancel_after_text(&c, after, sizeof(after));
	CHECK_STR(after, "0.0015ms");
}

TEST(parses_tokens)
{
	struct cancel_spec c;
	char err[256], after[CANCEL_TEXT_MAX];

	CHECK_EQ_INT(cancel_parse("0.1:tokens:16", &c, err, sizeof(err)), 0);
	CHECK_NEAR(c.share, 0.1, 1e-12);
	CHECK_EQ_INT(c.tokens, 16);
	CHECK_EQ_INT(c.after_ns, 0);
	cancel_after_text(&c, after, sizeof(after));
	CHECK_STR(after, "tokens:16");
	CHECK_EQ_INT(cancel_parse("1:tokens:1000000000", &c, err, sizeof(err)), 0);
	CHECK_EQ_INT(c.tokens, CANCEL_MAX_TOKENS);
	cancel_after_text(&c, after, sizeof(after));
	CHECK_STR(after, "tokens:1000000000");
	CHECK(strlen(after) < CANCEL_TEXT_MAX);
}

/* spec, and a word the one-line reason must hold */
static const struct { const char *spec, *why; } bad[] = {
	{ "", "P:AFTER" }, { "0.1", "P:AFTER" }, { "0.1200ms", "P:AFTER" },
	{ "0:200ms", "(0, 1]" }, { "1.5:200ms", "(0, 1]" }, { "-0.1:200ms", "(0, 1]" },
	{ "+0.1:200ms", "(0, 1]" }, { "1e-1:200ms", "(0, 1]" }, { "nan:200ms", "(0, 1]" },
	{ "0.1.2:200ms", "(0, 1]" }, { " 0.1:200ms", "(0, 1]" }, { ":200ms", "(0, 1]" },
	{ "0.1:", "not a time" }, { "0.1:200", "unit" }, { "0.1:200 ms", "unit" },
	{ "0.1:200min", "unit" }, { "0.1:200msx", "unit" }, { "0.1:ms", "not a time" },
	{ "0.1:-5ms", "not a time" }, { "0.1:0ms", "1us to a day" }, { "0.1:0.5us", "1us to a day" },
	{ "0.1:86401s", "1us to a day" }, { "0.1:1e3ms", "unit" }, { "0.1:inf", "not a time" },
	{ "0.1:tokens:0", "whole number" }, { "0.1:tokens:", "whole number" },
	{ "0.1:tokens:1.5", "whole number" }, { "0.1:tokens:-1", "whole number" },
	{ "0.1:tokens:16x", "whole number" }, { "0.1:tokens:1000000001", "whole number" },
	{ "0.1:tokens: 16", "whole number" }, { "0.1:tokens", "not a time" },
	{ "0.1:Tokens:16", "not a time" },
};

TEST(refuses_bad_specs_with_a_reason)
{
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cancel_spec c = { 0.5, 1, 1 };
		char err[256] = "";

		CHECK_EQ_INT(cancel_parse(bad[i].spec, &c, err, sizeof(err)), -1);
		CHECK(strstr(err, bad[i].why) != NULL);
		CHECK(strchr(err, '\n') == NULL);
		CHECK(c.share == 0 && c.after_ns == 0 && c.tokens == 0);
		if (!strstr(err, bad[i].why))
			printf("  '%s': %s\n", bad[i].spec, err);
	}
}

TEST(chooses_about_p_of_the_requests)
{
	struct cancel_spec c = { 0.1, 200000000, 0 };
	size_t n = 0, i;

	for (i = 0; i < 20000; i++)
		n += (size_t)cancel_chosen(&c, 1, (long)i, 0);
	/* binomial: SD sqrt(20000 * 0.1 * 0.9) = 42 */
	CHECK(n > 2000 - 200 && n < 2000 + 200);
	c.share = 1;
	for (i = 0, n = 0; i < 1000; i++)
		n += (size_t)cancel_chosen(&c, 7, (long)i, 3);
	CHECK_EQ_INT(n, 1000);
	c.share = 0;
	CHECK_EQ_INT(cancel_chosen(&c, 1, 1, 0), 0);
}

TEST(the_choice_is_the_seeds_and_the_records)
{
	struct cancel_spec c = { 0.5, 0, 16 };
	size_t i, same_seed = 0, other_seed = 0, other_pass = 0;

	for (i = 0; i < 1000; i++) {
		int a = cancel_chosen(&c, 1, (long)i, 0);

		same_seed += a == cancel_chosen(&c, 1, (long)i, 0);
		other_seed += a == cancel_chosen(&c, 2, (long)i, 0);
		other_pass += a == cancel_chosen(&c, 1, (long)i, 1);
	}
	CHECK_EQ_INT(same_seed, 1000);
	/* another seed or pass: a draw of its own, half of them agree */
	CHECK(other_seed > 400 && other_seed < 600);
	CHECK(other_pass > 400 && other_pass < 600);
}

TEST(a_smaller_share_cancels_a_subset)
{
	struct cancel_spec lo = { 0.1, 1000, 0 }, hi = { 0.3, 1000, 0 };
	long i;

	for (i = 0; i < 2000; i++)
		if (cancel_chosen(&lo, 5, i, 0))
			CHECK(cancel_chosen(&hi, 5, i, 0));
}

int main(void)
{
	RUN(parses_a_time);
	RUN(parses_tokens);
	RUN(refuses_bad_specs_with_a_reason);
	RUN(chooses_about_p_of_the_requests);
	RUN(the_choice_is_the_seeds_and_the_records);
	RUN(a_smaller_share_cancels_a_subset);
	return harness_done();
}
