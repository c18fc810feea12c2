/*
 * synth.c - generated traces: N requests with prompt and output lengths
 * drawn from chosen distributions, arrival offsets from a chosen arrival
 * process, and optionally multi-turn sessions, enough to reproduce a
 * "500 tokens per request at C=1,2,4,8,16" benchmark without capturing
 * anything.
 *
 * Prompts are seeded words (record/words.h): one word stands for about one
 * token. Three independent streams derive from --seed (words, lengths,
 * arrivals), so adding --rate does not change the prompts. The header
 * carries no timestamp, so the same options give byte-identical files.
 *
 * Multi-turn sessions: with --turns T the N requests form ceil(N/T)
 * sessions, ordered turn by turn (every session's first turn, then every
 * second turn, ...) so a session's turns are spread over the run. Turn k
 * sends the whole conversation so far - earlier prompts and (synthesized)
 * answers of the requested output length - then a new prompt, so a server's
 * prefix cache sees each earlier turn again as a prefix. Each record names
 * its session and turn (schema/FORMAT.md, "Sessions"): the synthesized
 * answers are placeholders replay fills with the server's real ones, and
 * --think-time draws the pause before each later turn. A session arrives
 * at the arrival offset of its first turn; its later turns carry that
 * offset too, their send time being the earlier turn's end plus the think
 * time.
 */
#include "synth.h"
#include "api.h"
#include "words.h"
#include "traceout.h"
#include "lib/tokfit.h"
#include "lib/errmsg.h"
#include "lib/cli.h"
#include "lib/trace.h"
#include "lib/tracefile.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One conversation: user and assistant texts alternating. */
struct session {
	char **text;
	long n;
	long words;     /* words of every text so far */
};

void synth_options_init(struct synth_options *o)
{
	memset(o, 0, sizeof(*o));
	o->requests = 64;
	o->input.kind = o->output.kind = DIST_FIXED;
	o->input.a = o->input.b = 512;
	o->output.a = o->output.b = 500;
	o->model = "mock";
	o->seed = 1;
	o->arrival = ARRIVAL_CONSTANT;
	o->burstiness = 1.0;
	o->turns = 1;
	o->think.kind = DIST_FIXED;
}

/* The request body a client of o->api would send: the session's earlier
 * texts, then 'prompt'. From malloc: the caller frees it. */
static char *make_body(const struct synth_options *o, const struct session *s,
		       const char *prompt, long max_tokens)
{
	return record_api_body(o->api, o->model, s ? s->text : NULL, s ? (size_t)s->n : 0, prompt,
			       max_tokens, 0);
}

static void add_spec(cJSON *source, const char *key, const struct dist *d, const char *spec)
{
	if (d->kind == DIST_FIXED)
		cJSON_AddNumberToObject(source, key, d->a);
	else
		cJSON_AddStringToObject(source, key, spec ? spec : "?");
}

static cJSON *make_header(const struct synth_options *o, const struct tokfit *fit,
			  long sessions)
{
	cJSON *header = cJSON_CreateObject(), *source;

	if (o->turns > 1)       /* session records: what a version 1 reader does not know */
		cJSON_AddNumberToObject(header, "version", 2);
	cJSON_AddStringToObject(header, "tool", "tracebench " TB_VERSION);
	source = cJSON_AddObjectToObject(header, "source");
	cJSON_AddStringToObject(source, "kind", "synth");
	cJSON_AddNumberToObject(source, "seed", (double)o->seed);
	cJSON_AddNumberToObject(source, "requests", (double)o->requests);
	add_spec(source, "input_tokens", &o->input, o->input_spec);
	add_spec(source, "output_tokens", &o->output, o->output_spec);
	cJSON_AddStringToObject(source, "model", o->model);
	cJSON_AddStringToObject(source, "endpoint_kind", record_api_name(o->api));
	tokfit_describe(fit, source);
	if (o->rate > 0) {
		cJSON_AddNumberToObject(source, "rate", o->rate);
		cJSON_AddStringToObject(source, "arrival", arrival_name(o->arrival));
		if (o->arrival == ARRIVAL_GAMMA)
			cJSON_AddNumberToObject(source, "burstiness", o->burstiness);
	}
	if (o->turns > 1) {
		cJSON_AddNumberToObject(source, "turns", (double)o->turns);
		cJSON_AddNumberToObject(source, "sessions", (double)sessions);
		if (o->think_spec)
			add_spec(source, "think_time_ms", &o->think, o->think_spec);
	}
	return header;
}

/* Appends *text to s, which takes it over: *text is set to NULL. Returns
 * 0, or -1 (out of memory; *text is still the caller's). */
static int session_add(struct session *s, char **text)
{
	char **t = realloc(s->text, (size_t)(s->n + 1) * sizeof(*t));

	if (!t)
		return -1;
	s->text = t;
	s->text[s->n++] = *text;
	s->words += words_count(*text);
	*text = NULL;
	return 0;
}

/*
 * The token cap of one request (DIST_MAX) holds for a whole conversation:
 * turn k resends every earlier prompt and answer, so T turns could send T
 * times the cap. The lengths come from their own stream (length_rng), so a
 * dry run over a copy of it sees each request's prompt before anything is
 * written. Returns 0, or -1 with the first request over the cap in err.
 */
static int check_conversations(const struct synth_options *o, const struct rng *length_rng,
			       long n_sessions, const char *path, char *err,
			       size_t errlen)
{
	struct rng rng = *length_rng;
	long *words = NULL, i;
	int rc = 0;

	if (o->turns <= 1)
		return 0;
	if (!(words = calloc((size_t)n_sessions, sizeof(*words)))) {
		errmsg_set(err, errlen, "cannot write '%s': out of memory", path);
		return -1;
	}
	for (i = 0; i < o->requests && rc == 0; i++) {
		long in = dist_sample(&o->input, &rng), out = dist_sample(&o->output, &rng);
		long *w = &words[i % n_sessions];

		if (in > DIST_MAX - *w) {
			errmsg_set(err, errlen, "request %ld (turn %ld of its session) would "
				 "send a prompt of %ld tokens, over the cap of %ld; use fewer --turns "
				 "or shorter turns", i, i / n_sessions + 1, *w + in, DIST_MAX);
			rc = -1;
		}
		*w += in + out;
		if (*w > DIST_MAX)
			*w = DIST_MAX;  /* over already: the next turn is refused */
	}
	free(words);
	return rc;
}

/* What the requests of a synthesis share: its streams, its arrival
 * process and, with --turns, the conversations so far. */
struct synth_run {
	const struct synth_options *o;
	struct rng word_rng, length_rng, think_rng;
	struct arrival arrival;
	long n_sessions;
	struct session *sessions;       /* NULL without --turns */
	int64_t *session_arrival;       /* of each session's first turn */
	struct tokfit fit;              /* --tokenizer-url: prompts to exact lengths */
	char *err;                      /* where a tokenizer's failure is said */
	size_t errlen;
};

/* What a fitted prompt's body is made from: the words to come. */
struct fit_ctx {
	const struct synth_options *o;
	const struct session *s;
	struct rng rng;         /* a copy: fitting does not move the stream */
	long out;
};

static char *fit_make(void *arg, long words)
{
	struct fit_ctx *c = arg;
	struct rng rng = c->rng;
	struct words_buf prompt = { 0 };
	char *body = NULL;

	if (words_append(&prompt, words, &rng) == 0)
		body = make_body(c->o, c->s, prompt.p ? prompt.p : "", c->out);
	free(prompt.p);
	return body;
}

static void synth_run_free(struct synth_run *run)
{
	long i, j;

	for (i = 0; run->sessions && i < run->n_sessions; i++) {
		for (j = 0; j < run->sessions[i].n; j++)
			free(run->sessions[i].text[j]);
		free(run->sessions[i].text);
	}
	free(run->sessions);
	free(run->session_arrival);
	tokfit_release(&run->fit);
}

/* Request i as a trace record, its session's history grown by it; NULL
 * when out of memory. */
static cJSON *synth_request(struct synth_run *run, long i)
{
	const struct synth_options *o = run->o;
	struct session *s = run->sessions ? &run->sessions[i % run->n_sessions] : NULL;
	long turn = i / run->n_sessions;
	long in = dist_sample(&o->input, &run->length_rng);
	long out = dist_sample(&o->output, &run->length_rng);
	struct words_buf prompt = { 0 }, answer = { 0 };
	struct trace_request t;
	cJSON *rec = NULL;

	trace_request_init(&t);
	t.id = i;
	if (s && turn > 0) {
		t.arrival_ns = run->session_arrival[i % run->n_sessions];
	} else {
		t.arrival_ns = o->rate > 0 ? arrival_next(&run->arrival) : 0;
		if (s)
			run->session_arrival[i % run->n_sessions] = t.arrival_ns;
	}
	if (s) {
		t.session = i % run->n_sessions;
		t.turn = turn;
		if (turn > 0 && o->think_spec)
			t.think_ns = (int64_t)dist_sample(&o->think, &run->think_rng) * 1000000;
	}
	t.input_tokens = in + (s ? s->words : 0);
	t.output_tokens = out;
	if (run->fit.tc) {
		/* the whole request to the length: a later turn's own words make up
		 * for what its history counts */
		struct fit_ctx c = { o, s, run->word_rng, out };
		long words;

		if (tokfit_fit(&run->fit, t.input_tokens, in, 1, fit_make, &c, &words,
			       &t.input_tokens, run->err, run->errlen) < 0) {
			trace_request_release(&t);
			return NULL;
		}
		in = words;
	}
	if (words_append(&prompt, in, &run->word_rng) == 0 &&
	    trace_request_set_json_post(&t, record_api_path(o->api),
					make_body(o, s, prompt.p, out)) == 0)
		rec = trace_request_to_json(&t);
	tokfit_mark(&run->fit, rec);
	/* the answer the next turn repeats, of the requested length */
	if (rec && s && turn + 1 < o->turns &&
	    (words_append(&answer, out, &run->word_rng) < 0 ||
	     session_add(s, &prompt.p) < 0 || session_add(s, &answer.p) < 0)) {
		cJSON_Delete(rec);
		rec = NULL;
	}
	trace_request_release(&t);
	free(prompt.p);
	free(answer.p);
	return rec;
}

int synth_write(const struct synth_options *o, const char *path, int force, char *err,
		size_t errlen)
{
	struct synth_run run;
	struct traceout out;
	cJSON *header;
	int rc, sig = 0;
	long i;

	err[0] = '\0';
	memset(&run, 0, sizeof(run));
	run.o = o;
	run.n_sessions = (o->requests + o->turns - 1) / o->turns;
	rng_init(&run.word_rng, o->seed);
	rng_init(&run.length_rng, rng_derive(o->seed, 1));
	rng_init(&run.think_rng, rng_derive(o->seed, SYNTH_THINK_STREAM));
	arrival_init(&run.arrival, o->arrival, o->rate, o->burstiness, o->seed);
	if (check_conversations(o, &run.length_rng, run.n_sessions, path, err, errlen) < 0)
		return -1;
	if (o->turns > 1) {
		run.sessions = calloc((size_t)run.n_sessions, sizeof(*run.sessions));
		run.session_arrival = calloc((size_t)run.n_sessions, sizeof(*run.session_arrival));
		if (!run.sessions || !run.session_arrival) {
			errmsg_set(err, errlen, "cannot write '%s': out of memory", path);
			synth_run_free(&run);
			return -1;
		}
	}
	run.err = err;
	run.errlen = errlen;
	if (tokfit_init(&run.fit, &o->tok, o->model, record_api_chat(o->api), err, errlen) < 0) {
		synth_run_free(&run);
		return SYNTH_ETOKENIZER;
	}
	header = make_header(o, &run.fit, run.n_sessions);
	rc = traceout_open(&out, "tracebench record synth", path, header, force, err, errlen);
	cJSON_Delete(header);
	for (i = 0; rc == 0 && i < o->requests && !(sig = cli_stop_signal()); i++) {
		cJSON *rec = synth_request(&run, i);

		if (!rec && err[0]) {
			/* the tokenizer failed: name the request */
			char why[512];

			snprintf(why, sizeof(why), "%s", err);
			errmsg_set(err, errlen, "request %ld: %s", i, why);
			rc = -1;
		} else
			rc = traceout_append(&out, rec, err, errlen, "request %ld", i);
		cJSON_Delete(rec);
	}
	if (out.w)
		rc = traceout_close(&out, rc == 0, o->requests, sig, err, errlen);
	if (rc == 0)
		tokfit_summary(&run.fit, "tracebench record synth");
	if (rc < 0 && run.fit.failed)
		rc = SYNTH_ETOKENIZER;
	synth_run_free(&run);
	return rc;
}
