/*
 * words.h - the text of synthesized prompts, shared by every record source
 * that has to invent a prompt of a given length (synth, import).
 *
 * One word stands for about one token: the words come from a small English
 * vocabulary that common tokenizers encode as one token each (with its
 * leading space), but real tokenizers differ by model, so lengths are an
 * approximation. The words come from lib/random's seeded generator, so the
 * same seed always gives the same bytes.
 */
#ifndef TB_WORDS_H
#define TB_WORDS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/random.h"

/* A growable NUL-terminated string; zero-initialize, free p when done. */
struct words_buf {
	char *p;
	size_t len, cap;
};

/*
 * Appends n words drawn from r to b, separated by single spaces (a
 * space first when b is not empty). Returns 0, or -1 when out of memory
 * (b keeps what it had).
 */
int words_append(struct words_buf *b, long n, struct rng *r);

/* Appends s (a space first when b is not empty). Returns 0 or -1. */
int words_append_text(struct words_buf *b, const char *s);

/* Number of whitespace-separated words in s. */
long words_count(const char *s);

#endif
