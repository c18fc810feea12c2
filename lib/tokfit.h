/*
 * tokfit.h - prompts built to an exact token length, as a server's
 * tokenizer counts them (lib/tokenize.h), for record synth and record
 * import given --tokenizer-url and replay --tokenize; and what a trace or
 * a run then says about where its input lengths came from.
 *
 * A prompt grows word by word from a stream (record/words.h's seeded
 * words, or replay's cycle of the recorded prompt's words), so the prompt
 * of n words is the prompt of n - 1 words and one more: the count is
 * near-linear in n. The fit measures, corrects n by the tokens-per-word
 * slope, and measures again.
 */
#ifndef TB_TOKFIT_H
#define TB_TOKFIT_H

#include "tokenize.h"

#include <cjson/cJSON.h>

/* Round trips a prompt may take. The first guess (from the slope of the
 * prompts before) is usually within a token or two and the second step a
 * secant on the prompt's own slope, so 2 to 3 suffice; the bound keeps a
 * tokenizer that is not monotone in words from looping, and such a prompt
 * is kept at its closest, its measured length recorded and counted. */
#define TOKFIT_MAX_TRIES 6

/* Where a trace's input lengths come from, for --tokenizer-url and
 * --tokenizer-fallback. */
struct tokfit_options {
	const char *url;        /* NULL: words (one word ~ one token) */
	int fallback_words;     /* --tokenizer-fallback words */
};

struct tokfit {
	struct tokenize_client *tc;     /* NULL: words */
	const char *fallback_why;       /* tokenizer unreachable, words used */
	char why[512];
	int chat;
	double slope;           /* tokens per word, of the prompts so far */
	long prompts, missed, measured_only;
	int failed;             /* the tokenizer failed during the trace */
};

/*
 * Sets f up: with o->url, a tokenizer client (its probe made now). When
 * the tokenizer cannot be used, -1 with err saying why, unless
 * o->fallback_words: then 0, words, and the reason kept for the header.
 * Returns 0 or -1.
 */
int tokfit_init(struct tokfit *f, const struct tokfit_options *o, const char *model, int chat,
		char *err, size_t errlen);

/* Frees what f holds. */
void tokfit_release(struct tokfit *f);

/* The request body with a prompt part of 'words' words; malloc'd, NULL
 * when out of memory. */
typedef char *(*tokfit_make_fn)(void *ctx, long words);

/*
 * Finds the word count whose body counts 'target' tokens (within one),
 * starting from 'guess' words (the one-word-one-token length), never below
 * min_words. Sets *words and *measured to the closest found (a miss is
 * counted in f->missed). Returns 0, or -1 with err filled (the tokenizer
 * failed; the trace cannot go on).
 */
int tokfit_fit(struct tokfit *f, long target, long guess, long min_words, tokfit_make_fn make,
	       void *ctx, long *words, long *measured, char *err, size_t errlen);

/* Measures a body whose text is fixed (real conversation text): sets
 * *measured. Returns 0 or -1 with err filled. */
int tokfit_measure(struct tokfit *f, const char *body, long *measured, char *err,
		   size_t errlen);

/* Adds the header's "input_lengths" object to 'source': tokenizer-exact
 * (the redacted URL, whether a chat template is counted) or word-estimated
 * (and why, after a fallback). */
void tokfit_describe(const struct tokfit *f, cJSON *source);

/* Says where a record's input_tokens came from ("input_tokens_source":
 * "tokenizer", or "words" after a fallback); nothing without a tokenizer
 * asked for, so such traces keep their bytes. */
void tokfit_mark(const struct tokfit *f, cJSON *rec);

/* Says on stderr, after PROG, how the prompts fitted. */
void tokfit_summary(const struct tokfit *f, const char *prog);

#endif
