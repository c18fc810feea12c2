/*
 * sse.c - incremental Server-Sent Events parser; see sse.h.
 */
#include "sse.h"
#include "strbuf.h"

#include <stdlib.h>
#include <string.h>

void sse_parser_init(struct sse_parser *p, size_t max_event, sse_event_fn fn, void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->on_event = fn;
	p->ctx = ctx;
	p->max_event = max_event ? max_event : SSE_DEFAULT_MAX_EVENT;
}

void sse_parser_release(struct sse_parser *p)
{
	free(p->line);
	free(p->data);
	p->line = p->data = NULL;
	p->line_len = p->line_cap = p->data_len = p->data_cap = 0;
}

/* Appends n bytes to a buffer capped at max bytes. */
static int append(char **buf, size_t *len, size_t *cap, const char *src, size_t n, size_t max)
{
	if (*len + n > max)
		return SSE_ETOOBIG;
	return strbuf_append(buf, len, cap, src, n) < 0 ? SSE_ENOMEM : SSE_OK;
}

static int dispatch(struct sse_parser *p)
{
	int rc = SSE_OK;

	if (p->have_data) {
		if (p->data_len && p->data[p->data_len - 1] == '\n')
			p->data[--p->data_len] = '\0';
		rc = p->on_event(p->ctx, p->event[0] ? p->event : "message",
				 p->data ? p->data : "", p->data_len);
	}
	p->data_len = 0;
	p->have_data = 0;
	p->event[0] = '\0';
	return rc;
}

/* Handles one complete line (without its end). */
static int process_line(struct sse_parser *p, const char *line, size_t len)
{
	const char *colon, *value;
	size_t flen, vlen;

	if (len == 0)
		return dispatch(p);
	if (line[0] == ':')
		return SSE_OK;
	colon = memchr(line, ':', len);
	flen = colon ? (size_t)(colon - line) : len;
	value = colon ? colon + 1 : line + len;
	vlen = (size_t)(line + len - value);
	if (vlen && value[0] == ' ') {
		value++;
		vlen--;
	}
	if (flen == 4 && memcmp(line, "data", 4) == 0) {
		int rc = append(&p->data, &p->data_len, &p->data_cap, value, vlen, p->max_event);

		if (rc == SSE_OK)
			rc = append(&p->data, &p->data_len, &p->data_cap, "\n", 1, p->max_event + 1);
		p->have_data = 1;
		return rc;
	}
	if (flen == 5 && memcmp(line, "event", 5) == 0) {
		if (vlen >= sizeof(p->event))
			vlen = sizeof(p->event) - 1;
		memcpy(p->event, value, vlen);
		p->event[vlen] = '\0';
	}
	return SSE_OK;      /* id, retry and unknown fields are not needed */
}

int sse_parser_feed(struct sse_parser *p, const char *buf, size_t len)
{
	const char *end = buf + len;
	const char *lf = NULL;    /* the first LF at or after buf; end: none */
	size_t max_line = p->max_event + SSE_LINE_SLACK;
	int rc;

	while (buf < end) {
		const char *eol, *cr;

		if (p->after_cr) {
			p->after_cr = 0;
			if (*buf == '\n') {
				buf++;
				continue;
			}
		}
		/* The line ends at its first CR or LF: memchr's word-at-a-time
		 * scan for the LF, then for a CR before it (a stream of
		 * 200-byte events spent a third of its parsing here a byte
		 * at a time). The LF found is kept for the lines before it, so
		 * that lines ended by CR alone cost one pass, not one each. */
		if (!lf || lf < buf) {
			lf = memchr(buf, '\n', (size_t)(end - buf));
			if (!lf)
				lf = end;
		}
		eol = lf;
		if ((cr = memchr(buf, '\r', (size_t)(eol - buf))))
			eol = cr;
		if (eol == end) {
			/* No line end yet: keep the fragment. */
			return append(&p->line, &p->line_len, &p->line_cap, buf,
				      (size_t)(end - buf), max_line);
		}
		if (p->line_len) {
			rc = append(&p->line, &p->line_len, &p->line_cap, buf,
				    (size_t)(eol - buf), max_line);
			if (rc == SSE_OK)
				rc = process_line(p, p->line, p->line_len);
			p->line_len = 0;
		} else {
			if ((size_t)(eol - buf) > max_line)
				return SSE_ETOOBIG;
			rc = process_line(p, buf, (size_t)(eol - buf));
		}
		if (rc != SSE_OK)
			return rc;
		p->after_cr = *eol == '\r';
		buf = eol + 1;
	}
	return SSE_OK;
}

size_t sse_parser_pending(const struct sse_parser *p)
{
	return p->line_len + (p->have_data ? p->data_len : 0);
}

const char *sse_strerror(int code)
{
	switch (code) {
	case SSE_OK:
		return "success";
	case SSE_ETOOBIG:
		return "event larger than the size cap";
	case SSE_ENOMEM:
		return "out of memory";
	default:
		return "stopped by the event handler";
	}
}
