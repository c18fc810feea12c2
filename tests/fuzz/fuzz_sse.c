/*
 * fuzz_sse.c - libFuzzer target for the SSE parser (lib/sse.c).
 *
 * The input is parsed twice: in one piece, and cut at split points drawn
 * from a seed in its first bytes (down to one byte at a time), the way a
 * network delivers a stream. Both must give the same events and the same
 * result, under a size cap also chosen by the input; an event handler
 * that stops the parser after some event is exercised too. A mismatch
 * aborts, which libFuzzer reports as a crash.
 */
#include "lib/sse.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	size_t events;
	uint64_t hash;          /* FNV-1a over every event type and data */
	size_t stop_after;      /* 0: never stop */
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n--)
		h = (h ^ *s++) * 0x100000001b3ULL;
	return h;
}

static int on_event(void *ctx, const char *event, const char *data, size_t len)
{
	struct seen *s = ctx;

	if (data[len] != '\0')              /* promised by sse.h */
		abort();
	s->hash = fnv(s->hash, event, strlen(event) + 1);
	s->hash = fnv(s->hash, data, len);
	s->hash = fnv(s->hash, "\xff", 1);
	s->events++;
	return s->stop_after && s->events == s->stop_after ? 7 : 0;
}

static uint64_t next(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sse_parser p;
	struct seen whole = { 0, 0xcbf29ce484222325ULL, 0 }, split;
	size_t max_event, off, pend_whole;
	uint64_t seed;
	int rc_whole, rc_split = SSE_OK;

	if (size < 3)
		return 0;
	/* byte 0: cap (0 = the default 1 MiB, else small); byte 1: stop; byte 2: split seed */
	max_event = data[0] & 0x80 ? 0 : (size_t)data[0] + 1;
	whole.stop_after = data[1] & 0x0f;
	seed = data[2];
	data += 3;
	size -= 3;
	split = whole;

	sse_parser_init(&p, max_event, on_event, &whole);
	rc_whole = sse_parser_feed(&p, (const char *)data, size);
	pend_whole = sse_parser_pending(&p);
	sse_parser_release(&p);

	sse_parser_init(&p, max_event, on_event, &split);
	for (off = 0; off < size && rc_split == SSE_OK;) {
		size_t n = seed & 1 ? 1 : (size_t)(next(&seed) % 17);

		if (n > size - off)
			n = size - off;
		rc_split = sse_parser_feed(&p, (const char *)data + off, n);
		off += n;
	}
	if (rc_split == SSE_OK && size == 0)
		rc_split = sse_parser_feed(&p, "", 0);
	if (rc_split != rc_whole || split.events != whole.events || split.hash != whole.hash) {
		fprintf(stderr, "fuzz_sse: whole rc %d, %zu events; split rc %d, %zu events\n",
			rc_whole, whole.events, rc_split, split.events);
		abort();
	}
	if (rc_whole == SSE_OK && sse_parser_pending(&p) != pend_whole) {
		fprintf(stderr, "fuzz_sse: pending %zu whole, %zu split\n",
			pend_whole, sse_parser_pending(&p));
		abort();
	}
	(void)sse_strerror(rc_whole);
	sse_parser_release(&p);
	return 0;
}
