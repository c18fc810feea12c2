/*
 * decode.h - undoing a response's Content-Encoding as its bytes arrive.
 *
 * record proxy passes a response on exactly as the upstream sent it,
 * compressed or not, and must still measure it: the meter (lib/meter.h)
 * reads SSE and JSON, so the proxy runs each piece through a decoder
 * first. gzip and deflate (RFC 9110 8.4.1) are decoded with zlib; replay
 * lets libcurl decode instead (CURLOPT_ACCEPT_ENCODING).
 */
#ifndef TB_DECODE_H
#define TB_DECODE_H

#include <stddef.h>

enum {
	DECODE_OK = 0,
	DECODE_EUNSUPPORTED = -1,  /* an encoding this module does not decode */
	DECODE_EDATA = -2,         /* the bytes are not of that encoding */
	DECODE_ENOMEM = -3,
	DECODE_ETOOBIG = -4,       /* decoded bytes passed the cap */
};

struct decode {
	void *z;                   /* zlib's stream, NULL when not decoding */
	size_t out_total, max_out; /* decoded so far, and the cap */
};

/* Called with each run of decoded bytes; non-zero stops decode_feed. */
typedef int (*decode_sink)(void *ctx, const char *buf, size_t len);

/*
 * Sets d up for the Content-Encoding value 'encoding' (NULL, "" or
 * "identity": nothing to decode; d->z stays NULL). Decoded output is
 * capped at max_out bytes (a small compressed body must not unpack into
 * gigabytes). Returns DECODE_OK, DECODE_EUNSUPPORTED (d->z NULL) or
 * DECODE_ENOMEM.
 */
int decode_init(struct decode *d, const char *encoding, size_t max_out);

/* Decodes len bytes and hands the output to sink. Returns DECODE_OK, a
 * negative DECODE_E* code, or the sink's non-zero value. */
int decode_feed(struct decode *d, const char *buf, size_t len, decode_sink sink, void *ctx);

/* Frees zlib's state (d may have been initialized or zeroed). */
void decode_release(struct decode *d);

const char *decode_strerror(int rc);

#endif
