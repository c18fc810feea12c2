/*
 * fuzz_cancel.c - libFuzzer target for replay --cancel's spec parser
 * (replay/cancel.c).
 *
 * Whatever the bytes (cut at the first NUL, as a command-line word is), a
 * spec parses to a share in (0, 1] and exactly one point in range, whose
 * text fits its buffer and parses back to the very same point; or it is
 * refused with a one-line reason and a zeroed spec. A breach aborts,
 * which libFuzzer reports as a crash.
 */
#include "replay/cancel.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The point's text, fed back as "1:TEXT", must give the same point. */
static void check_round_trip(const struct cancel_spec *c)
{
	char after[CANCEL_TEXT_MAX], spec[CANCEL_TEXT_MAX + 8], err[256];
	struct cancel_spec back;

	cancel_after_text(c, after, sizeof(after));
	if (!after[0] || strlen(after) >= sizeof(after) - 1)
		abort();
	snprintf(spec, sizeof(spec), "1:%s", after);
	if (cancel_parse(spec, &back, err, sizeof(err)) < 0 || back.tokens != c->tokens ||
	    back.after_ns != c->after_ns)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[256];
	struct cancel_spec c;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	err[0] = '\0';
	if (cancel_parse(text, &c, err, sizeof(err)) == 0) {
		if (!(c.share > 0 && c.share <= 1) || (c.after_ns > 0) == (c.tokens > 0) ||
		    c.after_ns < 0 || c.after_ns > CANCEL_MAX_NS || c.tokens < 0 ||
		    c.tokens > CANCEL_MAX_TOKENS)
			abort();
		check_round_trip(&c);
		(void)cancel_chosen(&c, (uint64_t)size, (long)size, size);
	} else if (!err[0] || strchr(err, '\n') || c.share != 0 || c.after_ns || c.tokens) {
		abort();
	}
	free(text);
	return 0;
}
