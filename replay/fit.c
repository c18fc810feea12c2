/*
 * fit.c - replay --tokenize: each request's prompt fitted to the input
 * length its trace records, as the endpoint's own tokenizer counts it
 * (POST /tokenize: vLLM, SGLang, llama.cpp; lib/tokenize.h), before the
 * run, so that a trace made by words ("one word is about one token")
 * sends what it says to this server.
 *
 * The prompt is the text replay salts (replay/body.h's body_salt_offset:
 * the system prompt, else the first message, else "prompt" or "input");
 * its words are cycled to the length lib/tokfit.c finds, the rest of the
 * body kept byte for byte. A trace of sessions is not fitted: a later
 * turn's history holds the first turn's prompt as recorded, and would no
 * longer be what that turn sent.
 */
#include "replay/run.h"
#include "replay/body.h"
#include "lib/cli.h"
#include "lib/redact.h"
#include "lib/tokfit.h"
#include "lib/typed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The body of one request and its prompt's words, for tokfit's make. */
struct fit_body {
	const char *body;
	size_t len, off, end;     /* the prompt's text is body[off, end) */
	size_t *word_off, *word_len;
	size_t n_words;
};

/* tokfit_make_fn: the body with a prompt of n words, the recorded
 * prompt's cycled. */
static char *fit_make(void *ctx, long n)
{
	const struct fit_body *b = ctx;
	size_t i, size = b->off + (b->len - b->end) + 1, used;
	char *out;

	for (i = 0; i < (size_t)n; i++)
		size += b->word_len[i % b->n_words] + 1;
	if (!(out = malloc(size)))
		return NULL;
	memcpy(out, b->body, b->off);
	used = b->off;
	for (i = 0; i < (size_t)n; i++) {
		if (i)
			out[used++] = ' ';
		memcpy(out + used, b->body + b->word_off[i % b->n_words], b->word_len[i % b->n_words]);
		used += b->word_len[i % b->n_words];
	}
	memcpy(out + used, b->body + b->end, b->len - b->end);
	used += b->len - b->end;
	out[used] = '\0';
	return out;
}

/* The words of body[off, end) (split at spaces; escapes hold none) into b.
 * Returns their count, or -1 when out of memory. */
static long split_words(struct fit_body *b)
{
	size_t i = b->off, cap = 16, *o, *l;

	b->n_words = 0;
	b->word_off = malloc(cap * sizeof(*b->word_off));
	b->word_len = malloc(cap * sizeof(*b->word_len));
	if (!b->word_off || !b->word_len)
		return -1;
	while (i < b->end) {
		size_t j;

		for (; i < b->end && b->body[i] == ' '; i++)
			;
		for (j = i; j < b->end && b->body[j] != ' '; j++)
			;
		if (j == i)
			break;
		if (b->n_words == cap) {
			if (!(o = realloc(b->word_off, 2 * cap * sizeof(*o))))
				return -1;
			b->word_off = o;
			if (!(l = realloc(b->word_len, 2 * cap * sizeof(*l))))
				return -1;
			b->word_len = l;
			cap *= 2;
		}
		b->word_off[b->n_words] = i;
		b->word_len[b->n_words++] = j - i;
		i = j;
	}
	return (long)b->n_words;
}

/*
 * The tokens a salt adds to p's prompt as the tokenizer counts them (a
 * salt of the length replay's have: replay/level.c), so that a prompt is
 * fitted to its length less them and goes out, salted, at its length.
 * Returns 0 with *tokens set, or -1 with err filled.
 */
static int salt_tokens(struct tokfit *f, const struct prepared *p, long *tokens, char *err,
		       size_t errlen)
{
	char *salted = NULL;
	size_t len;
	long with, without;
	int rc = -1;

	if (body_insert(p->body, p->body_len, p->salt_off, "5a1f09c3-c1r0 ", &salted, &len) !=
	    BODY_OK) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (tokenize_count_body(f->tc, p->body, &without, err, errlen) == 0 &&
	    tokenize_count_body(f->tc, salted, &with, err, errlen) == 0) {
		*tokens = with > without ? with - without : 0;
		rc = 0;
	}
	free(salted);
	return rc;
}

/* Fits request p to its recorded length less 'less' tokens. Returns 1
 * fitted, 0 left as recorded, -1 after saying why (the tokenizer failed,
 * or out of memory). */
static int fit_one(struct tokfit *f, struct prepared *p, long less, char *err, size_t errlen)
{
	long target = (long)p->req.input_tokens - less;

	struct fit_body b = { p->body, p->body_len, p->salt_off, 0, NULL, NULL, 0 };
	long words, measured;
	char *body;
	int rc = -1;

	if (!p->salt_ok || p->req.input_tokens <= 0)
		return 0;
	b.end = b.off + body_prompt_head(p->body, p->body_len, p->salt_off, p->body_len);
	if (split_words(&b) < 0) {
		snprintf(err, errlen, "out of memory");
		goto cleanup;
	}
	rc = 0;
	if (!b.n_words)
		goto cleanup;
	rc = -1;
	if (tokfit_fit(f, target > 1 ? target : 1, target > 1 ? target : 1, 1, fit_make, &b,
		       &words, &measured, err, errlen) < 0)
		goto cleanup;
	if (!(body = fit_make(&b, words))) {
		snprintf(err, errlen, "out of memory");
		goto cleanup;
	}
	free(p->body);
	p->body = body;
	p->body_len = strlen(body);
	p->req.input_tokens = measured + less;
	rc = 1;
cleanup:
	free(b.word_off);
	free(b.word_len);
	return rc;
}

int fit_prompts(struct replay *rp)
{
	struct replay_options *o = &rp->o;
	struct tokfit_options to = { NULL, 0 };
	struct tokfit f;
	char url[1100], err[512], model[128] = "";
	const struct prepared *first = NULL;
	size_t i;
	int chat = 1, rc;

	if (!o->tokenize)
		return 0;
	if (rp->sessions.n) {
		fprintf(stderr, "tracebench replay: warning: --tokenize: '%s' holds sessions, whose "
			"later turns carry the first turns' prompts as recorded: nothing fitted\n",
			o->trace_path);
		snprintf(o->fit.why, sizeof(o->fit.why), "a trace of sessions");
		return 0;
	}
	for (i = 0; i < rp->n_reqs && !first; i++)
		if (rp->reqs[i].salt_ok && rp->reqs[i].req.input_tokens > 0)
			first = &rp->reqs[i];
	if (!first) {
		fprintf(stderr, "tracebench replay: warning: --tokenize: no request of '%s' has a "
			"prompt and an input length to fit it to: nothing fitted\n", o->trace_path);
		snprintf(o->fit.why, sizeof(o->fit.why), "no prompt to fit");
		return 0;
	}
	{
		cJSON *root = cJSON_ParseWithLength(first->body, first->body_len);
		const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "model"));

		snprintf(model, sizeof(model), "%s", m ? m : "");
		chat = cJSON_GetObjectItemCaseSensitive(root, "messages") != NULL;
		cJSON_Delete(root);
	}
	snprintf(url, sizeof(url), "%s/tokenize", o->endpoint);
	to.url = url;
	if (tokfit_init(&f, &to, model, chat, err, sizeof(err)) < 0) {
		fprintf(stderr, "tracebench replay: --tokenize: %s\n", err);
		return CLI_EXIT_USAGE;
	}
	/* what a salt adds comes off each length (none with --no-salt) */
	if (!o->no_salt && salt_tokens(&f, first, &o->fit.salt_tokens, err, sizeof(err)) < 0) {
		fprintf(stderr, "tracebench replay: --tokenize: %s\n", err);
		tokfit_release(&f);
		return CLI_EXIT_FAILED;
	}
	for (i = 0, rc = 0; i < rp->n_reqs && rc >= 0; i++) {
		rc = fit_one(&f, &rp->reqs[i], o->fit.salt_tokens, err, sizeof(err));
		if (rc > 0)
			o->fit.fitted++;
		else if (rc == 0)
			o->fit.skipped++;
	}
	if (rc < 0) {
		fprintf(stderr, "tracebench replay: --tokenize: request %ld of '%s': %s\n",
			rp->reqs[i - 1].req.id, o->trace_path, err);
		tokfit_release(&f);
		return CLI_EXIT_FAILED;
	}
	o->fit.missed = f.missed;
	snprintf(o->fit.url, sizeof(o->fit.url), "%s", tokenize_url(f.tc));
	o->fit.chat_template = tokenize_template_counted(f.tc);
	tokfit_summary(&f, "tracebench replay");
	tokfit_release(&f);
	return 0;
}
