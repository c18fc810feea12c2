/*
 * fuzz_chunk.c - differential libFuzzer target for the lean chunk scan
 * (lib/chunk.c): whatever a server streams, the meter's result with the
 * scan must be the result of the cJSON reading alone (meter.full_parse),
 * field by field: TTFT, TTFA, the gaps, token events and counts, usage,
 * cached tokens, the error class and detail, [DONE]. A difference aborts,
 * which libFuzzer reports as a crash.
 */
#include "lib/meter.h"
#include "lib/result.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Feeds the stream to m in pieces cut by 'seed', ends it, returns m's done. */
static int run(struct result *r, int full, const char *s, size_t len, size_t max_event,
	       uint8_t seed)
{
	struct meter m;
	int64_t now = 1000;
	size_t off = 0;
	int done;

	result_init(r);
	meter_init(&m, r, 0, max_event);
	m.full_parse = full;
	while (off < len) {
		size_t n = 1 + (seed = (uint8_t)(seed * 37 + 11)) % 97;

		if (n > len - off)
			n = len - off;
		now += seed;
		if (meter_feed(&m, s + off, n, now) != SSE_OK)
			break;
		off += n;
	}
	if (off == len)
		meter_end_stream(&m, now + 1);
	else
		meter_end_failed(&m, now + 1);
	done = m.done_seen;
	meter_release(&m);
	return done;
}

#define SAME(field) do { \
	if (a->field != b->field) { \
		fprintf(stderr, "fuzz_chunk: " #field " %lld (lean) != %lld (cJSON)\n", \
			(long long)a->field, (long long)b->field); \
		abort(); \
	} \
} while (0)

static void same(const struct result *a, const struct result *b)
{
	size_t i;

	SAME(ttft_ns);
	SAME(ttfa_ns);
	SAME(e2e_ns);
	SAME(n_itl);
	for (i = 0; i < a->n_itl; i++)
		SAME(itl_ns[i]);
	SAME(token_events);
	SAME(output_tokens);
	SAME(input_tokens);
	SAME(tokens_estimated);
	SAME(tokens_source);
	SAME(cached_tokens);
	SAME(unstreamed);
	SAME(server.shape);
	SAME(server.queue_ns);
	SAME(server.prefill_ns);
	SAME(server.decode_ns);
	if (strcmp(a->error, b->error) != 0 ||
	    strcmp(a->error_detail ? a->error_detail : "-", b->error_detail ? b->error_detail : "-")) {
		fprintf(stderr, "fuzz_chunk: error '%s' (%s, lean) != '%s' (%s, cJSON)\n", a->error,
			a->error_detail ? a->error_detail : "-", b->error,
			b->error_detail ? b->error_detail : "-");
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct result lean, full;
	size_t max_event, len;
	uint8_t seed;
	char *s;
	int done_lean, done_full;

	if (size < 2)
		return 0;
	/* byte 0: the rest is a stream (bit 0 clear) or one event's data (set:
	 * "data: " put before it, a blank line after), the event cap (bit 1);
	 * byte 1: how to cut the stream */
	max_event = data[0] & 2 ? 64 : 0;
	seed = data[1];
	if (data[0] & 1) {
		len = size - 2 + 8;
		if (!(s = malloc(len)))
			return 0;
		memcpy(s, "data: ", 6);
		memcpy(s + 6, data + 2, size - 2);
		s[len - 2] = s[len - 1] = '\n';
	} else {
		len = size - 2;
		if (!(s = malloc(len ? len : 1)))
			return 0;
		memcpy(s, data + 2, len);
	}
	done_lean = run(&lean, 0, s, len, max_event, seed);
	done_full = run(&full, 1, s, len, max_event, seed);
	if (done_lean != done_full) {
		fprintf(stderr, "fuzz_chunk: [DONE] %d (lean) != %d (cJSON)\n", done_lean, done_full);
		abort();
	}
	same(&lean, &full);
	result_release(&lean);
	result_release(&full);
	free(s);
	return 0;
}
