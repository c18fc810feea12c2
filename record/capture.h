/*
 * capture.h - what record proxy takes from a client's request: the checks
 * a request passes before it goes upstream, and the trace's copy of it,
 * redacted by the allowlist of lib/redact.h. No I/O, so that
 * tests/fuzz/fuzz_proxy_request.c can drive it byte by byte.
 */
#ifndef TB_CAPTURE_H
#define TB_CAPTURE_H

#include <stddef.h>

#include "lib/redact.h"

/* Room left in a trace line for a record's outcome ("recorded"). */
#define CAPTURE_OUTCOME_ROOM (1u << 20)

struct capture_header {
	const char *name, *value;
};

/*
 * Checks a request as the proxy received it: 'method', request target
 * 'uri', its n headers and the length of its body. Returns 0 when it may
 * be forwarded and recorded, or the HTTP status to refuse it with (and a
 * reason in why, whylen bytes):
 *   400  a method that is not a token; a target that is not a path
 *        (trace_check_path: control bytes, spaces, non-ASCII, a "." or
 *        ".." segment, which would climb out of the upstream's base path);
 *        a header name that is not a token or a value with control bytes;
 *        Content-Length given twice, or beside Transfer-Encoding
 *   413  a record that would not fit in a trace line (TRACEFILE_MAX_LINE,
 *        less CAPTURE_OUTCOME_ROOM): the trace must stay readable
 */
int capture_check(const char *method, const char *uri, const struct capture_header *h,
		  size_t n, const char *body, size_t body_len, char *why, size_t whylen);

/*
 * The trace's line for header name: value. Sets *line to a malloc'd
 * "Name: value" (a safe name, or one --keep-header named),
 * "Name: REDACTED" (any other name), or NULL (credentials, framing and
 * routing headers, Accept-Encoding: never recorded). Returns 0, or -1 when out of memory.
 */
int capture_header_line(const char *name, const char *value, const struct redact_keep *keep,
			char **line);

/* The trace's path for 'uri': query values not safe (or kept by
 * --keep-query) redacted. malloc'd; NULL when out of memory. */
char *capture_path(const char *uri, const struct redact_keep *keep_query);

#endif
