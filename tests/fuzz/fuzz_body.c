/*
 * fuzz_body.c - libFuzzer target for replay's request-body rewriting
 * (replay/body.c).
 *
 * Byte 0 picks the overrides (bit 0 --model, bit 1 --max-tokens, bit 2
 * --ignore-eos; bits 3-4 which model name; bits 5-6 the API: chat's, or
 * Messages or Responses, which get no stream_options and, Responses, its
 * max_output_tokens), byte 1 the --max-tokens value, the rest is the
 * body. Checked on every input:
 *   - no crash, no leak, BODY_OK; the output is NUL-terminated at out_len;
 *   - a body that is not a JSON object goes out byte for byte as it came;
 *   - a JSON object comes out a JSON object (nothing after it) in which
 *     each overridden member appears once with the asked value, a
 *     streamed chat body ("stream": true, the last one counting, as servers
 *     read it) has one stream_options object with one "include_usage":
 *     true and the other stream_options members it had, and every other
 *     member is there, in the same order, with the same value;
 *   - where body_salt_offset places the salt in the rewritten body (just
 *     after an opening quote), the salted body is still a JSON object.
 * A broken rule aborts, which libFuzzer reports as a crash.
 */
#include "replay/body.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *out)
{
	fprintf(stderr, "fuzz_body: %s\noutput: %s\n", what, out);
	abort();
}

/* The number of members of obj named key (case-sensitive). */
static int count(const cJSON *obj, const char *key)
{
	const cJSON *m;
	int n = 0;

	for (m = obj->child; m; m = m->next)
		n += strcmp(m->string, key) == 0;
	return n;
}

/* The last member of obj named key, or NULL. */
static const cJSON *last(const cJSON *obj, const char *key)
{
	const cJSON *m, *found = NULL;

	for (m = obj->child; m; m = m->next)
		if (strcmp(m->string, key) == 0)
			found = m;
	return found;
}

/* The next member from m on whose name is not in skip[], or NULL. */
static const cJSON *next_kept(const cJSON *m, const char *const *skip, int n_skip)
{
	int i;

	for (; m; m = m->next) {
		for (i = 0; i < n_skip && strcmp(m->string, skip[i]) != 0; i++)
			;
		if (i == n_skip)
			return m;
	}
	return NULL;
}

/*
 * a and b are the same value: same type, same members in the same order,
 * numbers equal as doubles (1e999 is infinity both times; cJSON_Compare
 * would call that unequal).
 */
static int same(const cJSON *a, const cJSON *b)
{
	if ((a->type & 0xff) != (b->type & 0xff))
		return 0;
	if (cJSON_IsNumber(a))
		return a->valuedouble == b->valuedouble ||
		       (isnan(a->valuedouble) && isnan(b->valuedouble));
	if (cJSON_IsString(a) || cJSON_IsRaw(a))
		return strcmp(a->valuestring, b->valuestring) == 0;
	for (a = a->child, b = b->child; a && b; a = a->next, b = b->next) {
		int named = a->string && b->string;

		if ((named ? strcmp(a->string, b->string) != 0 : a->string != b->string) ||
		    !same(a, b))
			return 0;
	}
	return !a && !b;
}

/* Members of a not named in skip[] are those of b, in order, equal. */
static int same_members(const cJSON *a, const cJSON *b, const char *const *skip, int n_skip)
{
	const cJSON *x = next_kept(a->child, skip, n_skip);
	const cJSON *y = next_kept(b->child, skip, n_skip);

	for (; x && y; x = next_kept(x->next, skip, n_skip), y = next_kept(y->next, skip, n_skip))
		if (strcmp(x->string, y->string) != 0 || !same(x, y))
			return 0;
	return !x && !y;
}

/*
 * The body parsed when it is one JSON object and nothing else (white
 * space aside), else NULL. body[len] must be '\0'.
 */
static cJSON *parse_object(const char *body, size_t len)
{
	const char *end = NULL;
	cJSON *j = cJSON_ParseWithLengthOpts(body, len + 1, &end, 1);

	if (cJSON_IsObject(j) && end == body + len)
		return j;
	cJSON_Delete(j);
	return NULL;
}

static void check_object(const cJSON *in, const char *out, size_t out_len,
			 const struct body_overrides *ov)
{
	const char *skip[8];
	int n_skip = 0, streamed;
	const cJSON *v;
	cJSON *res = parse_object(out, out_len);

	if (!res)
		fail("a JSON object came out as something else", out);
	if (ov->model) {
		skip[n_skip++] = "model";
		v = cJSON_GetObjectItemCaseSensitive(res, "model");
		if (count(res, "model") != 1 || !cJSON_IsString(v) || strcmp(v->valuestring, ov->model))
			fail("model is not the one asked", out);
	}
	if (ov->max_tokens > 0) {
		/* a Responses body's limit is max_output_tokens, and only it */
		const char *name = ov->api == TYPED_RESPONSES ? "max_output_tokens" : "max_tokens";

		skip[n_skip++] = "max_tokens";
		skip[n_skip++] = "max_completion_tokens";
		if (ov->api == TYPED_RESPONSES)
			skip[n_skip++] = "max_output_tokens";
		v = cJSON_GetObjectItemCaseSensitive(res, name);
		if (count(res, name) != 1 || !cJSON_IsNumber(v) ||
		    v->valuedouble != (double)ov->max_tokens ||
		    (ov->api == TYPED_RESPONSES && count(res, "max_tokens") != 0))
			fail("max_tokens is not the one asked", out);
		v = cJSON_GetObjectItemCaseSensitive(res, "max_completion_tokens");
		if (count(res, "max_completion_tokens") != (count(in, "max_completion_tokens") > 0) ||
		    (v && (!cJSON_IsNumber(v) || v->valuedouble != (double)ov->max_tokens)))
			fail("max_completion_tokens is not the one asked", out);
	}
	if (ov->ignore_eos) {
		skip[n_skip++] = "ignore_eos";
		if (count(res, "ignore_eos") != 1 ||
		    !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "ignore_eos")))
			fail("ignore_eos is not true", out);
	}
	if (ov->store) {
		skip[n_skip++] = "store";
		if (count(res, "store") != 1 ||
		    !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "store")))
			fail("store is not true", out);
	}
	/* typed events bring usage unasked: their stream_options stay as sent */
	streamed = cJSON_IsTrue(last(in, "stream")) && ov->api == TYPED_NONE;
	if (streamed) {
		const cJSON *was = last(in, "stream_options");
		static const char *const usage[] = { "include_usage" };

		skip[n_skip++] = "stream_options";
		v = cJSON_GetObjectItemCaseSensitive(res, "stream_options");
		if (count(res, "stream_options") != 1 || !cJSON_IsObject(v) ||
		    count(v, "include_usage") != 1 ||
		    !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "include_usage")))
			fail("a streamed body does not ask for usage", out);
		if (cJSON_IsObject(was) && !same_members(was, v, usage, 1))
			fail("stream_options lost or changed a member", out);
	}
	if (!same_members(in, res, skip, n_skip))
		fail("a member not overridden was lost or changed", out);
	cJSON_Delete(res);
}

/* The salt goes inside a string and leaves the body a JSON object. */
static void check_salt(const char *out, size_t out_len)
{
	size_t off;
	char *salted = NULL;
	size_t salted_len = 0;
	cJSON *j;

	if (body_salt_offset(out, out_len, &off) != 0)
		return;
	if (off == 0 || off > out_len || out[off - 1] != '"')
		fail("the salt's offset is not just after an opening quote", out);
	if (body_insert(out, out_len, off, "0a1b2c-c1r0 ", &salted, &salted_len) != BODY_OK)
		return;   /* out of memory */
	j = parse_object(salted, salted_len);
	if (!j)
		fail("the salted body is not a JSON object", salted);
	cJSON_Delete(j);
	free(salted);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const models[] = { "llama", "", "m\"o\\d\ne\x01l", "mod\xc3\xa9le" };
	struct body_overrides ov = { NULL, 0, 0, TYPED_NONE, 0 };
	char *body, *out = NULL;
	size_t len, out_len = 0;
	cJSON *in;

	if (size < 2)
		return 0;
	if (data[0] & 1)
		ov.model = models[(data[0] >> 3) & 3];
	if (data[0] & 2)
		ov.max_tokens = 1 + (long)data[1] * 39000;
	ov.ignore_eos = (data[0] & 4) != 0;
	ov.store = (data[1] & 1) && (data[0] >> 5 & 3) == 2;   /* a chained Responses turn */
	ov.api = (data[0] >> 5 & 3) == 1 ? TYPED_MESSAGES : (data[0] >> 5 & 3) == 2 ?
		 TYPED_RESPONSES : TYPED_NONE;
	len = size - 2;
	body = malloc(len + 1);          /* NUL-terminated, as trace bodies are */
	if (!body)
		return 0;
	memcpy(body, data + 2, len);
	body[len] = '\0';

	if (body_rewrite(body, len, &ov, &out, &out_len) != BODY_OK)
		fail("body_rewrite failed", "(none)");
	if (out[out_len] != '\0')
		fail("output is not NUL-terminated at its length", out);
	in = parse_object(body, len);
	if (in)
		check_object(in, out, out_len, &ov);
	else if (out_len != len || memcmp(out, body, len) != 0)
		fail("a body that is not a JSON object was changed", out);
	cJSON_Delete(in);
	check_salt(out, out_len);
	free(out);
	free(body);
	return 0;
}
