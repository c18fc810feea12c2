/*
 * chunk.h - a lean read of one streamed chunk (an SSE event's JSON), for
 * the meter's per-token path.
 *
 * The meter (lib/meter.c) needs a handful of facts from each chunk: does a
 * choice carry answer or reasoning text, and what usage says. Parsing the
 * whole chunk into a cJSON tree to learn them was a fifth of replay's CPU.
 * chunk_scan walks the bytes once, strictly (RFC 8259), allocating nothing,
 * and reads only those facts. It promises to agree with the cJSON reading
 * of lib/meter.c; wherever it cannot be sure of that (anything but strict
 * JSON, which cJSON reads its own way; escapes cJSON unescapes its own way;
 * duplicate keys; an error, a tool call; numbers it does not convert
 * exactly) it says so and the meter parses the chunk with cJSON instead.
 * tests/fuzz/fuzz_chunk.c checks the agreement.
 */
#ifndef TB_CHUNK_H
#define TB_CHUNK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deepest nesting of arrays and objects read; deeper falls back. */
#define CHUNK_MAX_DEPTH 32

enum {
	CHUNK_OK = 0,
	CHUNK_EUNSURE = -1,   /* not sure to agree with cJSON: parse it fully */
};

/* What the meter reads of a chunk that is a JSON object with no "error"
 * (or a null one) and no tool call. */
struct chunk {
	bool answer;          /* a choice's delta.content or text is a non-empty string */
	bool reasoning;       /* a choice's delta.reasoning_content or delta.reasoning is */
	/* usage.completion_tokens, usage.prompt_tokens and
	 * usage.prompt_tokens_details.cached_tokens, where they are numbers */
	bool has_completion, has_prompt, has_cached;
	double completion, prompt, cached;
};

/*
 * Reads the chunk data[0, len), which must be NUL-terminated at len (as
 * lib/sse.h hands events over), into *c. Returns CHUNK_OK, or
 * CHUNK_EUNSURE when the chunk must be parsed with cJSON (*c is then
 * meaningless): it is not strict JSON, not an object, or holds what this
 * scan leaves to cJSON (see above).
 */
int chunk_scan(const char *data, size_t len, struct chunk *c);

#endif
