/*
 * decode.c - gzip and deflate Content-Encoding decoded as it streams;
 * see decode.h.
 */
#include "decode.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#define ZLIB_CONST   /* next_in is const: the caller's bytes are not written */
#include <zlib.h>

#define DECODE_CHUNK 16384

/* True when the header value names exactly 'what' (case-insensitive,
 * surrounding white space allowed). */
static int encoding_is(const char *v, const char *what)
{
	size_t len, wl = strlen(what);

	while (*v == ' ' || *v == '\t')
		v++;
	len = strlen(v);
	while (len && (v[len - 1] == ' ' || v[len - 1] == '\t'))
		len--;
	return len == wl && strncasecmp(v, what, wl) == 0;
}

int decode_init(struct decode *d, const char *encoding, size_t max_out)
{
	z_stream *z;
	int bits;

	memset(d, 0, sizeof(*d));
	d->max_out = max_out;
	if (!encoding || !*encoding || encoding_is(encoding, "identity"))
		return DECODE_OK;
	if (encoding_is(encoding, "gzip") || encoding_is(encoding, "x-gzip"))
		bits = 16 + MAX_WBITS;
	else if (encoding_is(encoding, "deflate"))
		bits = 32 + MAX_WBITS;       /* zlib-wrapped, the RFC's; either header */
	else
		return DECODE_EUNSUPPORTED;
	z = calloc(1, sizeof(*z));
	if (!z)
		return DECODE_ENOMEM;
	if (inflateInit2(z, bits) != Z_OK) {
		free(z);
		return DECODE_ENOMEM;
	}
	d->z = z;
	return DECODE_OK;
}

int decode_feed(struct decode *d, const char *buf, size_t len, decode_sink sink, void *ctx)
{
	z_stream *z = d->z;
	char out[DECODE_CHUNK];
	int zrc, rc;

	if (!z)
		return sink(ctx, buf, len);
	z->next_in = (const Bytef *)buf;
	z->avail_in = (uInt)len;
	do {
		z->next_out = (Bytef *)out;
		z->avail_out = sizeof(out);
		zrc = inflate(z, Z_NO_FLUSH);
		if (zrc == Z_NEED_DICT || zrc == Z_DATA_ERROR || zrc == Z_MEM_ERROR)
			return zrc == Z_MEM_ERROR ? DECODE_ENOMEM : DECODE_EDATA;
		if (sizeof(out) - z->avail_out > 0) {
			size_t n = sizeof(out) - z->avail_out;

			d->out_total += n;
			if (d->max_out && d->out_total > d->max_out)
				return DECODE_ETOOBIG;
			if ((rc = sink(ctx, out, n)) != 0)
				return rc;
		}
		if (zrc == Z_STREAM_END)      /* trailing bytes after the stream: ignored */
			return DECODE_OK;
	} while (z->avail_in > 0 || z->avail_out == 0);
	return DECODE_OK;
}

void decode_release(struct decode *d)
{
	if (d->z) {
		inflateEnd(d->z);
		free(d->z);
	}
	d->z = NULL;
}

const char *decode_strerror(int rc)
{
	switch (rc) {
	case DECODE_OK:           return "ok";
	case DECODE_EUNSUPPORTED: return "content encoding not decoded by tracebench";
	case DECODE_EDATA:        return "corrupt compressed data";
	case DECODE_ENOMEM:       return "out of memory";
	case DECODE_ETOOBIG:      return "decoded response too large";
	default:                  return "decoding stopped";
	}
}
