/*
 * import_write.c - the trace `record import` writes from the rows it kept:
 * each row's request, its prompt and body, through record/traceout.c.
 *
 * Prompts (see record/words.h): each Mooncake hash id seeds the words of
 * its 512-word block, so rows sharing hash_ids share those blocks of text;
 * the rest of a prompt is seeded by the row's line number, so a row's
 * prompt does not depend on which other rows are kept. A ShareGPT turn
 * keeps its real text, after the conversation's turns before it; a turn of
 * a --sessions prefix session after the turns of its session, their
 * answers placeholder words.
 *
 * With --tokenizer-url (lib/tokfit.h) a row of synthesized words has
 * as many words as make its whole request count its input length as the
 * server's tokenizer counts; a row whose text is fixed (a ShareGPT turn,
 * a turn of a --sessions prefix session, whose history is the turn
 * before's) is measured, and records what it measures.
 */
#include "import.h"
#include "import_rows.h"
#include "words.h"
#include "traceout.h"
#include "lib/cli.h"
#include "lib/errmsg.h"
#include "lib/trace.h"

#include <stdio.h>
#include <stdlib.h>

/* r's words from its hash block 'from' on (each block's words seeded by
 * its hash id, so rows that share a block share its words), then words
 * seeded by its line: 'left' in all. Returns 0 or -1. */
static int block_words(const struct import *im, const struct row *r, size_t from, long left,
		       uint64_t seed, struct words_buf *b)
{
	struct rng rng;
	size_t i;

	for (i = from; i < r->n_hash && left > 0; i++) {
		long n = left < IMPORT_BLOCK_WORDS ? left : IMPORT_BLOCK_WORDS;

		rng_init(&rng, rng_derive(seed ^ 0x6d6f6f6e63616b65ULL, im->hashes[r->hash_off + i]));
		if (words_append(b, n, &rng) < 0)
			return -1;
		left -= n;
	}
	rng_init(&rng, rng_derive(seed, (uint64_t)r->line));
	return words_append(b, left, &rng);
}

/* The prompt of r; the caller frees b->p. Returns 0 or -1. */
static int make_prompt(const struct import *im, const struct row *r, uint64_t seed,
		       struct words_buf *b)
{
	if (r->text)
		return words_append_text(b, r->text);
	return block_words(im, r, 0, r->in, seed, b);
}

/* The request body: 'prompt' after the n texts of 'history' (human turns
 * and answers alternating; the answers are placeholders). */
static char *make_body(const struct record_import_options *o, char *const *history, size_t n,
		       const char *prompt, long max_tokens)
{
	return record_api_body(o->api, o->model, history, n, prompt, max_tokens, o->ignore_eos);
}

/* Words of turn r of a prefix session: what it adds to its turn before p,
 * its blocks past p's (each seeded by its hash id, as make_prompt's) and
 * then words seeded by its line, r->in - p->in - p->out of them (the
 * turn before's prompt and answer are in the history), at least one. */
static int session_prompt(const struct import *im, const struct row *r, const struct row *p,
			  uint64_t seed, struct words_buf *b)
{
	long left = r->in - p->in - p->out;

	return block_words(im, r, p->n_hash, left < 1 ? 1 : left, seed, b);
}

/*
 * The body of row i, turn k of a prefix session: the prompts of its turns
 * 0 .. k-1 with placeholder answers of their recorded output lengths
 * (words seeded by their lines), then its own part; every turn's body thus
 * begins with the one before's. NULL when out of memory.
 */
static char *prefix_session_body(const struct import *im, const struct row *rows, size_t i,
				 const struct record_import_options *o)
{
	long k = rows[i].turn, j;
	size_t *chain = malloc((size_t)(k + 1) * sizeof(*chain));
	struct words_buf *text = calloc((size_t)(2 * k + 1), sizeof(*text));
	char **history = calloc((size_t)(2 * k + 1), sizeof(*history));
	char *body = NULL;
	int bad = !chain || !text || !history;

	for (j = k; !bad && j >= 0; j--)
		chain[j] = j == k ? i : (size_t)rows[chain[j + 1]].parent;
	for (j = 0; !bad && j <= k; j++) {
		const struct row *r = &rows[chain[j]];
		struct rng rng;

		bad |= j ? session_prompt(im, r, &rows[chain[j - 1]], o->seed, &text[2 * j]) :
			   make_prompt(im, r, o->seed, &text[0]);
		if (j < k) {
			rng_init(&rng, rng_derive(o->seed ^ 0x616e73776572ULL, (uint64_t)r->line));
			bad |= words_append(&text[2 * j + 1], r->out, &rng);
		}
	}
	for (j = 0; !bad && j < 2 * k + 1; j++)
		history[j] = text[j].p ? text[j].p : (char *)"";
	if (!bad)
		body = make_body(o, history, (size_t)(2 * k), history[2 * k], rows[i].out);
	for (j = 0; text && j < 2 * k + 1; j++)
		free(text[j].p);
	free(text);
	free(history);
	free(chain);
	return body;
}

/* What a fitted row's body is made from. */
struct fit_ctx {
	const struct import *im;
	const struct row *row;
	const struct record_import_options *o;
};

static char *fit_make(void *arg, long words)
{
	const struct fit_ctx *c = arg;
	struct words_buf prompt = { 0 };
	char *body = NULL;

	if (block_words(c->im, c->row, 0, words, c->o->seed, &prompt) == 0)
		body = make_body(c->o, NULL, 0, prompt.p ? prompt.p : "", c->row->out);
	free(prompt.p);
	return body;
}

/* Sets t's input length to what the tokenizer counts in its body (a row
 * of fixed text). Returns 0, or -1 with err filled. */
static int measure_row(struct tokfit *fit, struct trace_request *t, char *err, size_t errlen)
{
	if (!fit->tc)
		return 0;
	return tokfit_measure(fit, t->body, &t->input_tokens, err, errlen);
}

/* Row i as a trace record; NULL when out of memory or when the tokenizer
 * failed (then err says why). */
static cJSON *import_request(const struct import *im, const struct row *rows, size_t i,
			     const struct record_import_options *o, struct tokfit *fit,
			     char *err, size_t errlen)
{
	const char *path = record_api_path(o->api);
	const struct row *row = &rows[i];
	struct words_buf prompt = { 0 };
	struct trace_request t;
	cJSON *rec = NULL;

	trace_request_init(&t);
	t.id = (long)i;
	t.arrival_ns = row->t_ns - rows[0].t_ns;
	t.input_tokens = row->in;
	t.output_tokens = row->out;
	if (row->conv >= 0) {
		const struct conv *c = &im->convs[row->conv];

		t.session = row->conv;
		t.turn = row->turn;
		if (trace_request_set_json_post(&t, path, make_body(o, c->text,
				(size_t)row->turn * 2, c->text[row->turn * 2], row->out)) == 0 &&
		    measure_row(fit, &t, err, errlen) == 0)
			rec = trace_request_to_json(&t);
	} else if (row->session >= 0) {
		t.session = row->session;
		t.turn = row->turn;
		t.think_ns = row->think_ns;
		if (trace_request_set_json_post(&t, path, prefix_session_body(im, rows, i, o)) == 0 &&
		    measure_row(fit, &t, err, errlen) == 0)
			rec = trace_request_to_json(&t);
	} else if (row->text) {
		if (make_prompt(im, row, o->seed, &prompt) == 0 &&
		    trace_request_set_json_post(&t, path, make_body(o, NULL, 0, prompt.p,
								   row->out)) == 0 &&
		    measure_row(fit, &t, err, errlen) == 0)
			rec = trace_request_to_json(&t);
	} else if (fit->tc) {
		struct fit_ctx c = { im, row, o };
		long words;

		if (tokfit_fit(fit, row->in, row->in, 1, fit_make, &c, &words, &t.input_tokens,
			       err, errlen) == 0 &&
		    trace_request_set_json_post(&t, path, fit_make(&c, words)) == 0)
			rec = trace_request_to_json(&t);
	} else if (make_prompt(im, row, o->seed, &prompt) == 0 &&
		   trace_request_set_json_post(&t, path, make_body(o, NULL, 0, prompt.p,
								  row->out)) == 0) {
		rec = trace_request_to_json(&t);
	}
	tokfit_mark(fit, rec);
	trace_request_release(&t);
	free(prompt.p);
	return rec;
}

/* Writes rows[0, n) as a trace. Returns 0; -1 with err filled; or 128 + a
 * signal that stopped it (err says what was written). A row whose record
 * is longer than a trace line may hold is left out and said on stderr. */
int import_write_trace(const struct import *im, const struct row *rows, size_t n,
		       const struct record_import_options *o, struct tokfit *fit, cJSON *header,
		       const char *out, int force, char *err, size_t errlen)
{
	struct traceout to;
	int rc, sig = 0;
	size_t i;

	rc = traceout_open(&to, IMPORT_PROG, out, header, force, err, errlen);
	if (rc < 0)
		return -1;
	for (i = 0; rc == 0 && i < n && !(sig = cli_stop_signal()); i++) {
		cJSON *rec = import_request(im, rows, i, o, fit, err, errlen);

		if (!rec && fit->failed) {
			/* the tokenizer failed: name the row */
			char why[512];

			snprintf(why, sizeof(why), "%s", err);
			errmsg_set(err, errlen, "'%s' line %ld: %s", im->path, rows[i].line, why);
			rc = -1;
			break;
		}
		rc = traceout_append(&to, rec, err, errlen, "'%s' line %ld: row", im->path,
				     rows[i].line);
		cJSON_Delete(rec);
	}
	rc = traceout_close(&to, rc == 0, (long)n, sig, err, errlen);
	return rc;
}
