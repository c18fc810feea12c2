/*
 * redact.h - what may reach a file, a database or the terminal from a
 * request: the one place that decides it, for record proxy (the trace),
 * replay (the results header, error details) and analyze (the database).
 *
 * The rule is an allowlist: a header or query parameter whose name is not
 * known to be harmless keeps its name but loses its value, which becomes
 * REDACT_MARK; a URL never keeps its userinfo ("user:password@"); an error
 * body loses every bearer token and every secret the caller names (the
 * API key it sent) before it is stored. Credentials named by
 * redact_header_is_secret (Authorization, API keys, cookies) are never
 * written at all, not even redacted, and no option can keep them.
 */
#ifndef TB_REDACT_H
#define TB_REDACT_H

#include <stddef.h>

/* What a redacted value is replaced with. */
#define REDACT_MARK "REDACTED"

/* Names the user allowed on top of the built-in lists (--keep-header,
 * --keep-query); compared case-insensitively. */
struct redact_keep {
	const char *const *names;
	size_t n;
};

/* True for header names that carry credentials and never reach a file:
 * Authorization, Proxy-Authorization, API keys, cookies. */
int redact_header_is_secret(const char *name, size_t len);

/* True when a request header named so keeps its value in a file: a known
 * harmless name (Content-Type, Accept, User-Agent, OpenAI-Beta,
 * X-Stainless-*) or one 'keep' names, never a secret one. */
int redact_header_is_safe(const char *name, size_t len, const struct redact_keep *keep);

/* True when a query parameter named so keeps its value (api-version,
 * limit, order, after, before, or one 'keep' names). */
int redact_query_is_safe(const char *name, size_t len, const struct redact_keep *keep);

/*
 * A copy of URL or path 'url' fit to be written: userinfo removed
 * ("http://u:p@h/x" -> "http://h/x"), the value of every query parameter
 * not redact_query_is_safe replaced by REDACT_MARK, the fragment dropped.
 * Works on any text (a malformed URL is redacted as far as it parses).
 * Returns a malloc'd string the caller frees, or NULL when out of memory.
 */
char *redact_url(const char *url, const struct redact_keep *keep_query);

/*
 * The values redact_url(url, keep_query) takes out: the userinfo and the
 * value of every query parameter it redacts, each as written and, when
 * it differs, percent-decoded (a server echoes either), so that
 * redact_text can take them out of whatever comes back. Appends up to
 * max - *n malloc'd strings to out (the caller frees each), skipping those
 * shorter than 4 bytes and those already there. Returns 0, or -1 when out
 * of memory.
 */
int redact_url_values(const char *url, const struct redact_keep *keep_query, char **out,
		      size_t *n, size_t max);

/*
 * A copy of 'text' (len bytes) fit to be stored: every occurrence of each
 * of the n 'secrets' (those shorter than 4 bytes are left alone: they
 * would blank ordinary text) and the token after every "Bearer "
 * (any case) replaced by REDACT_MARK. Returns a malloc'd NUL-terminated
 * string, or NULL when out of memory.
 */
char *redact_text(const char *text, size_t len, const char *const *secrets, size_t n);

#endif
