/*
 * fuzz_redact.c - libFuzzer target for the redaction rules (lib/redact.c)
 * and the error details that pass them (result_set_error,
 * result_set_http_error in lib/result.c).
 *
 * The input is read as lines: a URL or path; names to keep
 * (--keep-query, --keep-header), comma-separated; secrets the request
 * sent (an API key, header values), comma-separated; and the rest, up to
 * a NUL byte, as what a server sends back. Byte 0 of the input is the
 * most values redact_url_values may collect. The rules checked:
 *
 *   redact_url       no fragment, no userinfo; the same parameters in the
 *                    same order, each one kept or its value REDACTED, as
 *                    the allowlist says; a second pass changes nothing;
 *   redact_url_values  at most the values asked, none short, none twice,
 *                    and every value redact_url took out among them;
 *   redact_text      no secret given survives (those that could be spelt
 *                    across the mark or inside "Bearer " are left out of
 *                    the check), every bearer token goes;
 *   result_set_*error  the detail fits RESULT_DETAIL_MAX and holds no
 *                    secret given, the URL's values included;
 *   the allowlists   a secret header name is never safe, whatever is kept;
 *                    a kept name is safe; case does not matter.
 *
 * A broken rule aborts.
 */
#include "lib/redact.h"
#include "lib/result.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_NAMES 8
#define MAX_VALUES 16
#define MARK_LEN (sizeof(REDACT_MARK) - 1)

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_redact: %s: %s\n", what, detail ? detail : "(null)");
	abort();
}

/* Splits s at each ',' into at most max names; returns how many. */
static size_t split_list(char *s, const char **names, size_t max)
{
	size_t n = 0;
	char *p = s;

	while (p && *p && n < max) {
		char *comma = strchr(p, ',');

		if (comma)
			*comma = '\0';
		names[n++] = p;
		p = comma ? comma + 1 : NULL;
	}
	return n;
}

/* The query of a URL as both redact functions find it: after the first
 * '?' that comes before any '#', up to the next '#'; NULL when none. */
static const char *query_of(const char *url, size_t *len)
{
	const char *q = url + strcspn(url, "?#");

	if (*q != '?')
		return NULL;
	*len = strcspn(q + 1, "#");
	return q + 1;
}

/* The parameter after p (within end), its length in *plen. */
static const char *next_param(const char *p, const char *end, size_t *plen)
{
	const char *amp = memchr(p, '&', (size_t)(end - p));

	*plen = amp ? (size_t)(amp - p) : (size_t)(end - p);
	return p;
}

static int in_list(char *const *list, size_t n, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(list[i]) == len && memcmp(list[i], s, len) == 0)
			return 1;
	return 0;
}

/* The userinfo of url (before the last '@' of an authority), or NULL. */
static const char *userinfo_of(const char *url, size_t *len)
{
	const char *scheme = strstr(url, "://"), *auth, *end, *at = NULL, *p;

	if (!scheme || (size_t)(scheme - url) >= strcspn(url, "/?#"))
		return NULL;
	auth = scheme + 3;
	end = auth + strcspn(auth, "/?#");
	for (p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	if (!at)
		return NULL;
	*len = (size_t)(at - auth);
	return auth;
}

static void check_url(const char *url, const struct redact_keep *keep, size_t max)
{
	char *out = redact_url(url, keep), *again, *values[MAX_VALUES];
	const char *qi, *qo, *ei, *eo, *ui;
	size_t li = 0, lo = 0, n = 0, i, pi, po;
	int full;

	if (!out)
		return;   /* out of memory */
	if (strchr(out, '#'))
		fail("a fragment kept", out);
	if (userinfo_of(out, &li))
		fail("userinfo kept", out);
	again = redact_url(out, keep);
	if (again && strcmp(again, out) != 0)
		fail("a second redact_url changes the URL", again);
	free(again);
	if (redact_url_values(url, keep, values, &n, max) != 0)
		goto cleanup;   /* out of memory */
	if (n > max)
		fail("more values than asked", url);
	for (i = 0; i < n; i++) {
		if (strlen(values[i]) < 4)
			fail("a short value collected", values[i]);
		if (in_list(values, i, values[i], strlen(values[i])))
			fail("a value collected twice", values[i]);
	}
	full = n == max;
	if ((ui = userinfo_of(url, &li)) && li >= 4 && !full && !in_list(values, n, ui, li))
		fail("userinfo not collected", url);
	/* parameter by parameter, the input's against the output's */
	qi = query_of(url, &li);
	qo = query_of(out, &lo);
	if (!qi != !qo)
		fail("a query added or lost", out);
	if (qi) {
		ei = qi + li;
		eo = qo + lo;
		for (;;) {
			const char *eqi, *eqo;

			next_param(qi, ei, &pi);
			next_param(qo, eo, &po);
			eqi = memchr(qi, '=', pi);
			eqo = memchr(qo, '=', po);
			if (!eqi || redact_query_is_safe(qi, (size_t)(eqi - qi), keep)) {
				if (pi != po || memcmp(qi, qo, pi) != 0)
					fail("a safe parameter changed", out);
			} else {
				size_t nl = (size_t)(eqi - qi), vl = pi - nl - 1;

				if (!eqo || (size_t)(eqo - qo) != nl || memcmp(qi, qo, nl) != 0 ||
				    po != nl + 1 + MARK_LEN || memcmp(eqo + 1, REDACT_MARK, MARK_LEN) != 0)
					fail("a parameter not redacted as the allowlist says", out);
				if (vl >= 4 && !full && !in_list(values, n, eqi + 1, vl))
					fail("a redacted value not collected", url);
			}
			qi += pi;
			qo += po;
			if ((qi == ei) != (qo == eo))
				fail("a parameter added or lost", out);
			if (qi == ei)
				break;
			qi++;   /* the '&' */
			qo++;
		}
	}
cleanup:
	for (i = 0; i < n; i++)
		free(values[i]);
	free(out);
}

/* Whether the check that a secret never survives holds for s: not when it
 * is part of the mark REDACTED or holds its first or last letter (it
 * could be spelt across the mark), nor when it is made of the letters of
 * "bearer " alone (the words before a token are kept as they are). */
static int checkable(const char *s)
{
	return strlen(s) >= 4 && !strstr(REDACT_MARK, s) && !strpbrk(s, "RD") &&
	       s[strspn(s, "bBeEaArR ")] != '\0';
}

/* Fails when a checkable secret of the n is in text. */
static void check_no_secret(const char *text, const char *const *secrets, size_t n,
			    const char *what)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (checkable(secrets[i]) && strstr(text, secrets[i]))
			fail(what, secrets[i]);
}

/* Fails when a word "Bearer " (any case) in text is followed by a token
 * that is not REDACTED: after the spaces, the text ends, or a byte that
 * ends a token comes (space, quotes, comma, backslash, ')', ';', a
 * control byte), or the mark. Another pass could change the text (a
 * token that was the mark and a secret after it is redacted as one), so
 * this is checked rather than that a second pass changes nothing. */
static void check_bearer(const char *text)
{
	const char *p;

	for (p = text; *p; p++) {
		const char *t = p + 7;

		if (strncasecmp(p, "bearer ", 7) != 0)
			continue;
		while (*t == ' ')
			t++;
		if (*t && !strchr(" \"',\\);", *t) && (unsigned char)*t > 0x20 &&
		    strncmp(t, REDACT_MARK, MARK_LEN) != 0)
			fail("a bearer token kept", p);
	}
}

static void check_text(const char *text, const char *const *secrets, size_t n)
{
	const char *ok[MAX_NAMES + MAX_VALUES];
	size_t i, k = 0;
	char *out;

	for (i = 0; i < n; i++)
		if (checkable(secrets[i]))
			ok[k++] = secrets[i];
	if (!(out = redact_text(text, strlen(text), ok, k)))
		return;
	check_no_secret(out, ok, k, "redact_text kept a secret");
	check_bearer(out);
	free(out);
}

static void check_details(const char *text, const char *const *secrets, size_t n, int status)
{
	struct result r;

	result_init(&r);
	r.secrets = secrets;
	r.n_secrets = n;
	result_set_error(&r, "http", text);
	if (!r.error_detail || strlen(r.error_detail) > RESULT_DETAIL_MAX)
		fail("a detail past its cap", r.error_detail);
	check_no_secret(r.error_detail, secrets, n, "result_set_error kept a secret");
	result_release(&r);
	result_init(&r);
	r.secrets = secrets;
	r.n_secrets = n;
	result_set_http_error(&r, status, text, strlen(text));
	if (!r.error_detail || strlen(r.error_detail) > RESULT_DETAIL_MAX)
		fail("an HTTP detail past its cap", r.error_detail);
	check_no_secret(r.error_detail, secrets, n, "result_set_http_error kept a secret");
	result_release(&r);
}

/* kept: the names are those of 'keep'. */
static void check_names(const char *const *names, size_t n, const struct redact_keep *keep,
			int kept)
{
	char flipped[256];
	size_t i, k, len;

	for (i = 0; i < n; i++) {
		len = strlen(names[i]);
		if (redact_header_is_secret(names[i], len) &&
		    redact_header_is_safe(names[i], len, keep))
			fail("a secret header kept", names[i]);
		if (kept && !redact_header_is_secret(names[i], len) &&
		    !redact_header_is_safe(names[i], len, keep))
			fail("a header named by --keep-header not kept", names[i]);
		if (kept && !redact_query_is_safe(names[i], len, keep))
			fail("a parameter named by --keep-query not kept", names[i]);
		if (len >= sizeof(flipped))
			continue;
		for (k = 0; k < len; k++) {
			unsigned char c = (unsigned char)names[i][k];

			flipped[k] = (char)(isupper(c) ? tolower(c) : toupper(c));
		}
		if (redact_header_is_secret(flipped, len) != redact_header_is_secret(names[i], len) ||
		    redact_header_is_safe(flipped, len, NULL) != redact_header_is_safe(names[i], len, NULL) ||
		    redact_query_is_safe(flipped, len, NULL) != redact_query_is_safe(names[i], len, NULL))
			fail("the answer depends on case", names[i]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy, *url, *keep_line = NULL, *secret_line = NULL, *text = NULL, *values[MAX_VALUES];
	const char *names[MAX_NAMES], *secrets[MAX_NAMES + MAX_VALUES];
	struct redact_keep keep;
	size_t max, n_values = 0, n_secrets, i;

	if (size < 1)
		return 0;
	max = (size_t)(data[0] % MAX_VALUES) + 1;
	if (!(copy = malloc(size)))
		return 0;
	memcpy(copy, data + 1, size - 1);
	copy[size - 1] = '\0';   /* the text ends at its first NUL */
	url = copy;
	if ((keep_line = strchr(url, '\n'))) {
		*keep_line++ = '\0';
		if ((secret_line = strchr(keep_line, '\n'))) {
			*secret_line++ = '\0';
			if ((text = strchr(secret_line, '\n')))
				*text++ = '\0';
		}
	}
	keep.names = names;
	keep.n = keep_line ? split_list(keep_line, names, MAX_NAMES) : 0;
	n_secrets = secret_line ? split_list(secret_line, secrets, MAX_NAMES) : 0;

	check_url(url, &keep, max);
	check_names(names, keep.n, &keep, 1);
	check_names(secrets, n_secrets, &keep, 0);
	/* what the server echoes loses the request's secrets and the URL's */
	if (redact_url_values(url, &keep, values, &n_values, MAX_VALUES) == 0) {
		for (i = 0; i < n_values; i++)
			secrets[n_secrets + i] = values[i];
		check_text(text ? text : url, secrets, n_secrets + n_values);
		check_details(text ? text : url, secrets, n_secrets + n_values, data[0]);
	}
	for (i = 0; i < n_values; i++)
		free(values[i]);
	free(copy);
	return 0;
}
