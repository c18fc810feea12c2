/*
 * redact.c - the allowlist of what reaches a file; see redact.h.
 *
 * The lists are short on purpose: a name is added here only when its
 * value cannot be a credential. A denylist (names containing "key",
 * "token", ...) missed Cf-Access-Jwt-Assertion, X-Bearer and
 * X-Client-Cert; an allowlist cannot miss a name it never heard of.
 */
#include "redact.h"
#include "strbuf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int name_in(const char *name, size_t len, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(list[i]) == len && strncasecmp(name, list[i], len) == 0)
			return 1;
	return 0;
}

int redact_header_is_secret(const char *name, size_t len)
{
	static const char *const secret[] = {
		"authorization", "proxy-authorization", "api-key", "x-api-key",
		"cookie", "set-cookie",
	};

	return name_in(name, len, secret, sizeof(secret) / sizeof(secret[0]));
}

int redact_header_is_safe(const char *name, size_t len, const struct redact_keep *keep)
{
	static const char *const safe[] = {
		"accept", "accept-encoding", "accept-language", "cache-control",
		"content-encoding", "content-type", "user-agent", "openai-beta",
		"anthropic-version", "anthropic-beta",
	};
	static const char stainless[] = "x-stainless-";   /* the OpenAI SDKs' own */

	if (redact_header_is_secret(name, len))
		return 0;
	if (name_in(name, len, safe, sizeof(safe) / sizeof(safe[0])))
		return 1;
	if (len > sizeof(stainless) - 1 && strncasecmp(name, stainless, sizeof(stainless) - 1) == 0)
		return 1;
	return keep && name_in(name, len, keep->names, keep->n);
}

int redact_query_is_safe(const char *name, size_t len, const struct redact_keep *keep)
{
	static const char *const safe[] = { "api-version", "limit", "order", "after", "before" };

	if (name_in(name, len, safe, sizeof(safe) / sizeof(safe[0])))
		return 1;
	return keep && name_in(name, len, keep->names, keep->n);
}

char *redact_url(const char *url, const struct redact_keep *keep_query)
{
	const char *scheme = strstr(url, "://"), *s = url, *q;
	char *out = NULL;
	size_t len = 0, cap = 0;
	int ok = 1;

	/* userinfo: the last '@' of the authority, which ends at / ? # */
	if (scheme && (size_t)(scheme - url) < strcspn(url, "/?#")) {
		const char *auth = scheme + 3, *end = auth + strcspn(auth, "/?#"), *at = NULL, *p;

		for (p = auth; p < end; p++)
			if (*p == '@')
				at = p;
		ok &= strbuf_append(&out, &len, &cap, url, (size_t)(auth - url)) == 0;
		s = at ? at + 1 : auth;
	}
	q = s + strcspn(s, "?#");
	ok &= strbuf_append(&out, &len, &cap, s, (size_t)(q - s)) == 0;
	if (*q == '?') {
		const char *p = q + 1, *end = p + strcspn(p, "#");

		ok &= strbuf_append(&out, &len, &cap, "?", 1) == 0;
		while (p < end) {
			size_t plen = strcspn(p, "&#"), nlen;
			const char *eq = memchr(p, '=', plen);

			if (p + plen > end)
				plen = (size_t)(end - p);
			nlen = eq ? (size_t)(eq - p) : plen;
			if (!eq || redact_query_is_safe(p, nlen, keep_query))
				ok &= strbuf_append(&out, &len, &cap, p, plen) == 0;
			else
				ok &= strbuf_append(&out, &len, &cap, p, nlen + 1) == 0 &&
				      strbuf_append(&out, &len, &cap, REDACT_MARK,
						    sizeof(REDACT_MARK) - 1) == 0;
			p += plen;
			if (p < end && *p == '&') {
				ok &= strbuf_append(&out, &len, &cap, "&", 1) == 0;
				p++;
			}
		}
	}
	if (ok && !out)
		ok = strbuf_append(&out, &len, &cap, "", 0) == 0;
	if (!ok) {
		free(out);
		return NULL;
	}
	return out;
}

/* Adds the len bytes at v to out (and their percent-decoding when it
 * differs), unless short, already there, or out is full. */
static int redact_add_value(const char *v, size_t len, char **out, size_t *n, size_t max)
{
	char *raw, *dec;
	size_t i, k, pass;

	if (len < 4)
		return 0;
	if (!(raw = strndup(v, len)))
		return -1;
	/* "%41" -> "A", "+" -> " ": the value as a form or a server reads it */
	if (!(dec = malloc(len + 1))) {
		free(raw);
		return -1;
	}
	for (i = 0, k = 0; i < len; i++) {
		if (v[i] == '%' && i + 2 < len && isxdigit((unsigned char)v[i + 1]) &&
		    isxdigit((unsigned char)v[i + 2])) {
			char hex[3] = { v[i + 1], v[i + 2], '\0' };

			dec[k++] = (char)strtol(hex, NULL, 16);
			i += 2;
		} else {
			dec[k++] = (char)(v[i] == '+' ? ' ' : v[i]);
		}
	}
	dec[k] = '\0';
	for (pass = 0; pass < 2; pass++) {
		char *x = pass ? dec : raw;
		int seen = strlen(x) < 4;

		for (i = 0; !seen && i < *n; i++)
			seen = strcmp(out[i], x) == 0;
		if (seen || *n >= max) {
			free(x);
			continue;
		}
		out[(*n)++] = x;
	}
	return 0;
}

int redact_url_values(const char *url, const struct redact_keep *keep_query, char **out,
		      size_t *n, size_t max)
{
	const char *scheme = strstr(url, "://"), *s = url, *q;

	if (scheme && (size_t)(scheme - url) < strcspn(url, "/?#")) {
		const char *auth = scheme + 3, *end = auth + strcspn(auth, "/?#"), *at = NULL, *p;

		for (p = auth; p < end; p++)
			if (*p == '@')
				at = p;
		if (at) {
			const char *colon = memchr(auth, ':', (size_t)(at - auth));

			/* the password, and the whole userinfo */
			if (colon && redact_add_value(colon + 1, (size_t)(at - colon - 1), out, n, max))
				return -1;
			if (redact_add_value(auth, (size_t)(at - auth), out, n, max))
				return -1;
			s = at + 1;
		} else {
			s = auth;
		}
	}
	q = s + strcspn(s, "?#");
	if (*q != '?')
		return 0;
	for (q++; *q && *q != '#';) {
		size_t plen = strcspn(q, "&#");
		const char *eq = memchr(q, '=', plen);

		if (eq && !redact_query_is_safe(q, (size_t)(eq - q), keep_query) &&
		    redact_add_value(eq + 1, plen - (size_t)(eq - q) - 1, out, n, max))
			return -1;
		q += plen;
		if (*q == '&')
			q++;
	}
	return 0;
}

/* Length of the secret of 'secrets' that starts at p, or 0. */
static size_t secret_at(const char *p, size_t left, const char *const *secrets, size_t n)
{
	size_t i, best = 0;

	for (i = 0; i < n; i++) {
		size_t sl = secrets[i] ? strlen(secrets[i]) : 0;

		if (sl >= 4 && sl <= left && sl > best && memcmp(p, secrets[i], sl) == 0)
			best = sl;
	}
	return best;
}

char *redact_text(const char *text, size_t len, const char *const *secrets, size_t n)
{
	static const char bearer[] = "bearer ";
	char *out = NULL;
	size_t olen = 0, cap = 0, i = 0, from = 0, sl;
	int ok = 1;

	while (i < len && ok) {
		if (len - i >= sizeof(bearer) - 1 &&
		    strncasecmp(text + i, bearer, sizeof(bearer) - 1) == 0) {
			size_t t = i + sizeof(bearer) - 1, end;

			while (t < len && text[t] == ' ')
				t++;
			for (end = t; end < len && text[end] != ' ' && text[end] != '"' &&
			     text[end] != '\'' && text[end] != ',' && text[end] != '\\' &&
			     text[end] != ')' && text[end] != ';' &&
			     (unsigned char)text[end] > 0x20; end++)
				;
			if (end > t) {
				ok &= strbuf_append(&out, &olen, &cap, text + from, t - from) == 0 &&
				      strbuf_append(&out, &olen, &cap, REDACT_MARK,
						    sizeof(REDACT_MARK) - 1) == 0;
				i = from = end;
				continue;
			}
		}
		if ((sl = secret_at(text + i, len - i, secrets, n)) > 0) {
			ok &= strbuf_append(&out, &olen, &cap, text + from, i - from) == 0 &&
			      strbuf_append(&out, &olen, &cap, REDACT_MARK,
					    sizeof(REDACT_MARK) - 1) == 0;
			i = from = i + sl;
			continue;
		}
		i++;
	}
	ok &= strbuf_append(&out, &olen, &cap, text + from, len - from) == 0;
	if (!ok) {
		free(out);
		return NULL;
	}
	return out;
}
