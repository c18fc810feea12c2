/*
 * words.c - seeded prompt text; see words.h.
 */
#include "words.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const vocabulary[] = {
	"the", "model", "server", "token", "latency", "request", "batch", "queue",
	"stream", "answer", "cache", "prefix", "memory", "kernel", "schedule", "time",
	"first", "second", "output", "input", "measure", "compare", "tail", "load",
};
#define LONGEST_WORD 8

static int reserve(struct words_buf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 256;
	char *p;

	if (b->len + more + 1 <= b->cap)
		return 0;
	while (cap < b->len + more + 1) {
		if (cap > SIZE_MAX / 2)
			return -1;
		cap *= 2;
	}
	p = realloc(b->p, cap);
	if (!p)
		return -1;
	b->p = p;
	b->cap = cap;
	return 0;
}

int words_append(struct words_buf *b, long n, struct rng *r)
{
	size_t nv = sizeof(vocabulary) / sizeof(vocabulary[0]);
	long i;

	if (n < 0)
		n = 0;
	if ((size_t)n > (SIZE_MAX - b->len) / (LONGEST_WORD + 2) ||
	    reserve(b, (size_t)n * (LONGEST_WORD + 1) + 1) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		const char *w = vocabulary[rng_next(r) % nv];
		size_t wl = strlen(w);

		if (b->len)
			b->p[b->len++] = ' ';
		memcpy(b->p + b->len, w, wl);
		b->len += wl;
	}
	b->p[b->len] = '\0';
	return 0;
}

int words_append_text(struct words_buf *b, const char *s)
{
	size_t sl = strlen(s);

	if (reserve(b, sl + 1) < 0)
		return -1;
	if (b->len)
		b->p[b->len++] = ' ';
	memcpy(b->p + b->len, s, sl);
	b->len += sl;
	b->p[b->len] = '\0';
	return 0;
}

long words_count(const char *s)
{
	long n = 0;
	int in_word = 0;

	for (; *s; s++) {
		if (isspace((unsigned char)*s)) {
			in_word = 0;
		} else if (!in_word) {
			in_word = 1;
			n++;
		}
	}
	return n;
}
