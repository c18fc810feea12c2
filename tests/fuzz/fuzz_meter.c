/*
 * fuzz_meter.c - libFuzzer target for the meter (lib/meter.c): what a
 * server sends, byte for byte, as a stream cut into pieces or as a whole
 * body. Whatever arrives, the result must hold numbers in range: a token
 * count in [0, RESULT_MAX_TOKENS], a cached prompt count in it or -1
 * (none), no more gaps than token events,
 * TTFT <= TTFA and TTFT <= E2E when set, the server's own timings
 * (llama.cpp's, vLLM's, SGLang's meta_info) each -1 or within 100 days,
 * and a known error class (or none);
 * with the answer kept (a session's next turn needs it), its tool calls
 * within lib/toolcall.h's caps and counted byte for byte. The same holds
 * whichever API the meter reads: OpenAI chunks, Anthropic Messages or
 * OpenAI Responses events (lib/typed.h), or a plain request's body.
 * A broken invariant aborts, which libFuzzer reports as a crash.
 */
#include "lib/meter.h"
#include "lib/result.h"
#include "lib/trace.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A server's timing as the meter keeps it: -1, or within [0, 100 days]. */
static int timing_in_range(int64_t ns)
{
	return ns == -1 || (ns >= 0 && ns <= RESULT_MAX_NS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* True when the kept tool calls are within their caps and 'bytes' is
 * what they hold. */
static int calls_in_caps(const struct meter_answer *a)
{
	const struct toolcalls *t = &a->calls;
	size_t i, bytes = 0;

	if (t->n > TOOLCALLS_MAX || t->bytes > METER_MAX_ANSWER ||
	    a->len + t->bytes > METER_MAX_ANSWER)
		return 0;
	for (i = 0; i < t->n; i++) {
		const struct toolcall *c = &t->c[i];
		size_t id = c->id ? strlen(c->id) : 0, name = c->name ? strlen(c->name) : 0;

		if (id > TOOLCALLS_MAX_NAME || name > TOOLCALLS_MAX_NAME || c->index < 0 ||
		    c->index >= TOOLCALLS_MAX || (c->args && strlen(c->args) != c->args_len))
			return 0;
		bytes += id + name + c->args_len;
	}
	return bytes == t->bytes;
}

static int known_class(const char *e)
{
	static const char *const classes[] = {
		"", RESULT_ERR_HTTP, RESULT_ERR_CONNECT, RESULT_ERR_TIMEOUT, RESULT_ERR_TRANSFER,
		RESULT_ERR_SERVER, RESULT_ERR_MALFORMED, RESULT_ERR_INCOMPLETE, RESULT_ERR_CANCELLED,
	};
	size_t i;

	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (strcmp(e, classes[i]) == 0)
			return 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct result r;
	struct meter_answer kept = { 0 };
	struct meter m;
	int64_t now = 1000;
	size_t off = 0, max_event;
	unsigned mode;
	uint8_t seed;

	if (size < 2)
		return 0;
	static const char *const kinds[] = {
		TRACE_KIND_CHAT, TRACE_KIND_MESSAGES, TRACE_KIND_RESPONSES, TRACE_KIND_OTHER,
	};
	/* byte 0: mode (stream / body), event cap, answer kept, the API (bits
	 * 3-4); byte 1: how to cut */
	mode = data[0] & 1;
	max_event = data[0] & 2 ? 64 : 0;
	seed = data[1];
	data += 2;
	size -= 2;
	result_init(&r);
	meter_init(&m, &r, 0, max_event);
	m.keep = data[-2] & 4 ? &kept : NULL;
	meter_set_kind(&m, kinds[(data[-2] >> 3) & 3]);
	if (mode == 0) {
		while (off < size) {
			size_t n = 1 + (seed = (uint8_t)(seed * 37 + 11)) % 23;

			if (n > size - off)
				n = size - off;
			now += seed;
			if (meter_feed(&m, (const char *)data + off, n, now) != SSE_OK)
				break;
			off += n;
		}
		if (off == size)
			meter_end_stream(&m, now + 1);
		else
			meter_end_failed(&m, now + 1);
	} else {
		meter_end_body(&m, (const char *)data, size, now);
	}
	if (!known_class(r.error) || r.output_tokens < 0 || r.output_tokens > RESULT_MAX_TOKENS ||
	    r.input_tokens < -1 || r.input_tokens > RESULT_MAX_TOKENS ||
	    r.cached_tokens < -1 || r.cached_tokens > RESULT_MAX_TOKENS ||
	    !timing_in_range(r.server.queue_ns) || !timing_in_range(r.server.prefill_ns) ||
	    !timing_in_range(r.server.decode_ns) ||
	    (r.server.shape == SRVTIMING_NONE && (r.server.queue_ns != -1 ||
	     r.server.prefill_ns != -1 || r.server.decode_ns != -1)) ||
	    (r.ttft_ns >= 0 && r.ttfa_ns >= 0 && r.ttfa_ns < r.ttft_ns) ||
	    (r.ttft_ns >= 0 && r.e2e_ns < r.ttft_ns) ||
	    (r.error_detail && strlen(r.error_detail) > RESULT_DETAIL_MAX) || !calls_in_caps(&kept)) {
		fprintf(stderr, "fuzz_meter: error '%s', tokens %lld/%lld (cached %lld), ttft %lld "
			"ttfa %lld e2e %lld\n", r.error, (long long)r.input_tokens,
			(long long)r.output_tokens, (long long)r.cached_tokens,
			(long long)r.ttft_ns, (long long)r.ttfa_ns, (long long)r.e2e_ns);
		abort();
	}
	meter_release(&m);
	meter_answer_release(&kept);
	result_release(&r);
	return 0;
}
