/*
 * body.h - the request body replay sends: a trace's body with the command
 * line's overrides (--model, --max-tokens, --ignore-eos) applied, and a
 * streamed request asking the server for usage in its last chunk, so
 * output tokens are counted by the server rather than estimated.
 *
 * Kept apart from replay.c so the unit tests and a fuzz target
 * (tests/fuzz/fuzz_body.c) can link it.
 */
#ifndef TB_BODY_H
#define TB_BODY_H

#include <stddef.h>

#include "lib/typed.h"

enum {
	BODY_OK = 0,
	BODY_ENOMEM = -1,
};

/* What to change in a body; a zero-filled struct changes nothing. */
struct body_overrides {
	const char *model;      /* "model": this string; NULL keeps the body's */
	long max_tokens;        /* "max_tokens" (and "max_completion_tokens" when
				   the body has it): this; <= 0 keeps the body's */
	int ignore_eos;         /* non-zero: "ignore_eos": true */
	enum typed_api api;     /* a Messages or Responses body (lib/typed.h):
				   their streams bring usage unasked and
				   know no stream_options.include_usage; a
				   Responses body's max_output_tokens is
				   its max_tokens */
	int store;              /* non-zero: "store": true (a Responses turn that
				   replay --previous-response-id chains: the
				   server keeps it for the next turn) */
};

/*
 * Rewrites the 'len' bytes at 'body' (NUL-terminated at body[len]).
 *
 * A body that is one JSON object (white space around it aside) loses the
 * members the overrides replace, wherever and however often they appear,
 * and gets them appended once with the asked values; when its last
 * "stream" member is true and it is not a Messages or Responses body, its
 * stream_options (the last one, if an object, else a new one) gets
 * "include_usage": true. Every other member is copied byte for byte. Any
 * other body is copied unchanged.
 *
 * Returns BODY_OK and sets *out to a NUL-terminated copy the caller frees
 * and *out_len to its length, or BODY_ENOMEM (out-parameters untouched).
 */
int body_rewrite(const char *body, size_t len, const struct body_overrides *ov,
		 char **out, size_t *out_len);

/*
 * The salt: a short text replay puts at the start of the prompt, distinct
 * for each level and repeat of a sweep, so that a server's prefix cache
 * cannot carry one level's prompts into the next (docs/DESIGN.md).
 *
 * body_salt_offset finds where the prompt's text starts in 'body' (len
 * bytes, NUL-terminated): just after the opening quote of the content of
 * the system prompt that comes before the messages (a Messages body's
 * "system", a string or the first part with a "text" string; a Responses
 * body's "instructions", a string), else of the first message
 * ("messages", a string, or the first part with a "text" string), else
 * of "prompt" or "input" (a string, the first of a list of strings, or
 * the content of its first item, a string or the first part with a
 * "text" string). Returns 0 and sets *offset, or -1 when the body has no
 * such text (not JSON, token ids, no messages): it is then sent unsalted.
 */
int body_salt_offset(const char *body, size_t len, size_t *offset);

/*
 * A copy of body with 'text' inserted at 'offset' (<= len). 'text' must be
 * valid inside a JSON string as it is (the salt is letters, digits and a
 * space). Returns BODY_OK and sets *out (the caller frees) and *out_len,
 * or BODY_ENOMEM.
 */
int body_insert(const char *body, size_t len, size_t offset, const char *text,
		char **out, size_t *out_len);

/*
 * The head of the prompt whose text starts at 'offset' (body_salt_offset):
 * how many bytes from there, at most 'max', lie before the end of its
 * JSON string (an escaped quote does not end it). Replay keys each
 * request's salt on them: prompts that begin alike get one salt and keep
 * the prefix they share; prompts that differ there get salts that differ
 * from their first byte, so the salt's own tokens are no prefix a server
 * can find cached (docs/DESIGN.md).
 */
size_t body_prompt_head(const char *body, size_t len, size_t offset, size_t max);

#endif
