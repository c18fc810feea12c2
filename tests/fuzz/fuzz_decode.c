/*
 * fuzz_decode.c - libFuzzer target for the Content-Encoding decoder the
 * proxy runs a response through before measuring it (lib/decode.c).
 *
 * Byte 0 picks the encoding (gzip, deflate, identity, or one not
 * decoded), whether the rest is taken as the server's bytes or first
 * compressed in that encoding (so that valid streams are decoded too),
 * and the cap on decoded bytes; byte 1 seeds the cuts. The bytes are
 * decoded whole and cut into pieces (down to single bytes): both must
 * end the same way, and when they succeed give the same bytes; a stream
 * compressed here must give back its input; no output passes the cap.
 * A broken rule aborts.
 */
#include "lib/decode.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct sink_buf {
	char *buf;
	size_t len, cap;
};

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_decode: %s\n", what);
	abort();
}

static int sink(void *ctx, const char *buf, size_t len)
{
	struct sink_buf *s = ctx;

	if (s->len + len > s->cap) {
		size_t cap = (s->len + len) * 2;
		char *nb = realloc(s->buf, cap);

		if (!nb)
			return 1;
		s->buf = nb;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, buf, len);
	s->len += len;
	return 0;
}

/* Decodes len bytes in pieces of 1 to 'step' bytes (0: whole) into out;
 * returns the first code that is not DECODE_OK, or DECODE_OK. */
static int decode_all(const char *enc, size_t max_out, const uint8_t *in, size_t len,
		      unsigned step, struct sink_buf *out)
{
	struct decode d;
	size_t off = 0, piece;
	unsigned seed = step;
	int rc = decode_init(&d, enc, max_out);

	if (rc != DECODE_OK)
		return rc;
	while (rc == DECODE_OK && off < len) {
		seed = seed * 1103515245u + 12345u;
		piece = step ? 1 + (seed >> 16) % step : len;
		if (piece > len - off)
			piece = len - off;
		rc = decode_feed(&d, (const char *)in + off, piece, sink, out);
		off += piece;
	}
	if (d.z && max_out && d.out_total > max_out && rc != DECODE_ETOOBIG)
		fail("past the cap without saying so");
	decode_release(&d);
	return rc;
}

/* in compressed as gzip (gzip != 0) or zlib-wrapped deflate, into *out. */
static size_t compress_as(int gzip, const uint8_t *in, size_t len, unsigned char **out)
{
	uLong cap = compressBound((uLong)len) + 64;
	z_stream s;
	size_t n;

	*out = malloc(cap);
	if (!*out)
		return 0;
	memset(&s, 0, sizeof(s));
	if (deflateInit2(&s, Z_DEFAULT_COMPRESSION, Z_DEFLATED, gzip ? 15 + 16 : 15, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	s.next_in = (Bytef *)in;
	s.avail_in = (uInt)len;
	s.next_out = *out;
	s.avail_out = (uInt)cap;
	if (deflate(&s, Z_FINISH) != Z_STREAM_END)
		abort();
	n = s.total_out;
	deflateEnd(&s);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const encodings[] = { "gzip", " Deflate\t", "identity", "br" };
	struct sink_buf whole = { 0 }, cut = { 0 };
	const char *enc;
	const uint8_t *in;
	unsigned char *z = NULL;
	size_t len, max_out;
	int compress, rc_whole, rc_cut;

	if (size < 2)
		return 0;
	enc = encodings[data[0] & 3];
	compress = (data[0] >> 2) & 1 && (data[0] & 3) < 2;
	/* no cap, or a small one to reach it */
	max_out = (data[0] >> 3) & 1 ? (size_t)(data[0] >> 4) * 64 + 1 : 0;
	in = data + 2;
	len = size - 2;
	if (compress) {
		len = compress_as((data[0] & 3) == 0, data + 2, size - 2, &z);
		if (!z)
			return 0;
		in = z;
	}
	rc_whole = decode_all(enc, max_out, in, len, 0, &whole);
	rc_cut = decode_all(enc, max_out, in, len, (unsigned)data[1] % 64 + 1, &cut);
	if ((rc_whole == DECODE_OK) != (rc_cut == DECODE_OK))
		fail("whole and in pieces end differently");
	if (rc_whole == DECODE_OK &&
	    (whole.len != cut.len || (whole.len && memcmp(whole.buf, cut.buf, whole.len) != 0)))
		fail("whole and in pieces decode to different bytes");
	if ((data[0] & 3) < 2 && max_out && (whole.len > max_out || cut.len > max_out))
		fail("more bytes handed on than the cap");
	if (compress && rc_whole == DECODE_OK &&
	    (whole.len != size - 2 || (whole.len && memcmp(whole.buf, data + 2, whole.len) != 0)))
		fail("a stream compressed here does not decode to its input");
	if (compress && rc_whole != DECODE_OK && !(max_out && size - 2 > max_out))
		fail("a stream compressed here is refused");
	if ((data[0] & 3) == 3 && rc_whole != DECODE_EUNSUPPORTED)
		fail("an encoding not decoded is not refused");
	free(whole.buf);
	free(cut.buf);
	free(z);
	return 0;
}
