/*
 * tokfit.c - prompts fitted to a token length by a server's tokenizer;
 * see tokfit.h.
 *
 * Speed: one connection kept alive for every request, and a first guess
 * from the slope of the prompts before, so that most prompts need one
 * round trip to confirm and one to correct; 100k prompts are 200k small
 * local requests, not a search each.
 */
#include "tokfit.h"
#include "errmsg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Most words a prompt may be given: past any context a count asks for. */
#define MAX_WORDS (4 * TOKENIZE_MAX_COUNT)

int tokfit_init(struct tokfit *f, const struct tokfit_options *o, const char *model, int chat,
		char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->chat = chat;
	f->slope = 1.0;
	if (!o->url)
		return 0;
	f->tc = tokenize_client_new(o->url, model, chat, f->why, sizeof(f->why));
	if (f->tc)
		return 0;
	if (!o->fallback_words) {
		errmsg_set(err, errlen, "%s", f->why);
		return -1;
	}
	f->fallback_why = f->why;
	return 0;
}

void tokfit_release(struct tokfit *f)
{
	tokenize_client_free(f->tc);
	f->tc = NULL;
}

/* Counts make(n). Returns 0 or -1. */
static int measure(struct tokfit *f, tokfit_make_fn make, void *ctx, long n, long *count,
		   char *err, size_t errlen)
{
	char *body = make(ctx, n);
	int rc;

	if (!body) {
		errmsg_set(err, errlen, "out of memory");
		return -1;
	}
	rc = tokenize_count_body(f->tc, body, count, err, errlen);
	free(body);
	if (rc < 0)
		f->failed = 1;
	return rc;
}

static long clamp_words(double n, long min_words)
{
	if (!(n >= (double)min_words))
		return min_words;
	return n > (double)MAX_WORDS ? MAX_WORDS : (long)n;
}

int tokfit_fit(struct tokfit *f, long target, long guess, long min_words, tokfit_make_fn make,
	       void *ctx, long *words, long *measured, char *err, size_t errlen)
{
	long n = clamp_words(floor((double)guess / f->slope + 0.5), min_words);
	long best_n = -1, best_c = 0, prev_n = -1, prev_c = 0;
	double slope = f->slope;
	int tries;

	for (tries = 0; tries < TOKFIT_MAX_TRIES; tries++) {
		long c, next;

		if (measure(f, make, ctx, n, &c, err, errlen) < 0)
			return -1;
		if (best_n < 0 || labs(c - target) < labs(best_c - target)) {
			best_n = n;
			best_c = c;
		}
		if (labs(c - target) <= 1)
			break;
		/* the prompt's own slope once two points differ, else the running one */
		if (prev_n >= 0 && prev_n != n && (c - prev_c) * (n - prev_n) > 0)
			slope = (double)(c - prev_c) / (double)(n - prev_n);
		next = clamp_words((double)n + floor((double)(target - c) / slope + 0.5), min_words);
		if (next == n)  /* at min_words (a template longer than the target) */
			break;
		prev_n = n;
		prev_c = c;
		n = next;
	}
	if (labs(best_c - target) > 1)
		f->missed++;
	/* the running slope, weighted towards the long prompts' */
	if (best_n > 0 && best_c > 0 && slope > 0)
		f->slope = 0.8 * f->slope + 0.2 * slope;
	f->prompts++;
	*words = best_n;
	*measured = best_c;
	return 0;
}

int tokfit_measure(struct tokfit *f, const char *body, long *measured, char *err,
		   size_t errlen)
{
	if (tokenize_count_body(f->tc, body, measured, err, errlen) < 0) {
		f->failed = 1;
		return -1;
	}
	f->prompts++;
	f->measured_only++;
	return 0;
}

void tokfit_describe(const struct tokfit *f, cJSON *source)
{
	cJSON *o = cJSON_AddObjectToObject(source, "input_lengths");

	if (!o)
		return;
	if (!f->tc) {
		cJSON_AddStringToObject(o, "from", "words");
		if (f->fallback_why)
			cJSON_AddStringToObject(o, "tokenizer_fallback", f->fallback_why);
		return;
	}
	cJSON_AddStringToObject(o, "from", "tokenizer");
	cJSON_AddStringToObject(o, "tokenizer_url", tokenize_url(f->tc));
	if (f->chat)
		cJSON_AddStringToObject(o, "chat_template", tokenize_template_counted(f->tc) ?
					"counted" : "not counted");
}

void tokfit_mark(const struct tokfit *f, cJSON *rec)
{
	/* without --tokenizer-url a record stays as it always was, byte for
	 * byte: absent means words */
	if (rec && (f->tc || f->fallback_why))
		cJSON_AddStringToObject(rec, "input_tokens_source", f->tc ? "tokenizer" : "words");
}

void tokfit_summary(const struct tokfit *f, const char *prog)
{
	if (f->fallback_why)
		fprintf(stderr, "%s: input lengths are word estimates (--tokenizer-fallback "
			"words): %s\n", prog, f->fallback_why);
	if (!f->tc)
		return;
	fprintf(stderr, "%s: %ld prompts measured by the tokenizer in %ld requests",
		prog, f->prompts, tokenize_requests(f->tc));
	if (f->measured_only)
		fprintf(stderr, ", %ld of fixed text measured as is", f->measured_only);
	if (f->missed)
		fprintf(stderr, ", %ld not within 1 token of their length (their measured "
			"length recorded)", f->missed);
	if (f->chat && !tokenize_template_counted(f->tc))
		fprintf(stderr, "; the server counts no chat template");
	fputc('\n', stderr);
}
