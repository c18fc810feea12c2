/*
 * capture.c - the proxy's request checks and the trace's redacted copy of
 * a request; see capture.h. The rules themselves live where replay reads
 * them back (lib/trace.c: what a trace may hold) and where credentials are
 * decided (lib/redact.c), so a request the proxy records is one replay
 * accepts.
 */
#include "capture.h"
#include "lib/json.h"
#include "lib/trace.h"
#include "lib/tracefile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int capture_check(const char *method, const char *uri, const struct capture_header *h,
		  size_t n, const char *body, size_t body_len, char *why, size_t whylen)
{
	size_t i, n_cl = 0, n_te = 0, size;

	if (!method || trace_check_method(method) < 0) {
		snprintf(why, whylen, "the method is not an HTTP token");
		return 400;
	}
	if (!uri || trace_check_path(uri) < 0) {
		snprintf(why, whylen, "the proxy takes paths ('/v1/...') of printable ASCII, "
			 "without '.' or '..' segments");
		return 400;
	}
	size = strlen(method) + json_escaped_len(uri, strlen(uri)) +
	       json_escaped_len(body, body_len) + 256;
	for (i = 0; i < n; i++) {
		size_t nlen = strlen(h[i].name), j;

		for (j = 0; j < nlen; j++)
			if (!h[i].name[j] || (unsigned char)h[i].name[j] <= 0x20 ||
			    (unsigned char)h[i].name[j] >= 0x7f || strchr("\"(),/:;<=>?@[\\]{}", h[i].name[j]))
				break;
		if (nlen == 0 || j < nlen) {
			snprintf(why, whylen, "a header name is not an HTTP token");
			return 400;
		}
		for (j = 0; h[i].value[j]; j++) {
			unsigned char c = (unsigned char)h[i].value[j];

			if ((c < 0x20 && c != '\t') || c == 0x7f) {
				snprintf(why, whylen, "header '%.64s' holds a control byte", h[i].name);
				return 400;
			}
		}
		n_cl += strcasecmp(h[i].name, "content-length") == 0;
		n_te += strcasecmp(h[i].name, "transfer-encoding") == 0;
		size += json_escaped_len(h[i].name, nlen) + json_escaped_len(h[i].value, j) + 8;
	}
	if (n_cl > 1 || (n_cl && n_te)) {
		snprintf(why, whylen, n_cl > 1 ? "Content-Length given twice" :
			 "Content-Length beside Transfer-Encoding");
		return 400;
	}
	if (size > TRACEFILE_MAX_LINE - CAPTURE_OUTCOME_ROOM) {
		snprintf(why, whylen, "its trace record would take %zu bytes, more than a trace "
			 "line may hold (%u MiB)", size, (TRACEFILE_MAX_LINE - CAPTURE_OUTCOME_ROOM) >> 20);
		return 413;
	}
	return 0;
}

int capture_header_line(const char *name, const char *value, const struct redact_keep *keep,
			char **line)
{
	size_t nlen = strlen(name), len;
	int safe;

	*line = NULL;
	/* Accept-Encoding says what this client decodes; a replay asks for
	 * what replay decodes (schema/FORMAT.md, proxy headers). */
	if (redact_header_is_secret(name, nlen) || trace_header_is_routing(name, nlen) ||
	    (nlen == 15 && strncasecmp(name, "accept-encoding", 15) == 0))
		return 0;
	safe = redact_header_is_safe(name, nlen, keep);
	len = nlen + 3 + (safe ? strlen(value) : sizeof(REDACT_MARK));
	if (!(*line = malloc(len)))
		return -1;
	snprintf(*line, len, "%s: %s", name, safe ? value : REDACT_MARK);
	return 0;
}

char *capture_path(const char *uri, const struct redact_keep *keep_query)
{
	return redact_url(uri, keep_query);
}
