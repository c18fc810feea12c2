/*
 * synth.h - `tracebench record synth`: a trace of generated requests.
 */
#ifndef TB_SYNTH_H
#define TB_SYNTH_H

#include <stdint.h>

#include "api.h"
#include "dist.h"
#include "lib/tokfit.h"
#include "lib/arrival.h"

struct synth_options {
	long requests;          /* -n: records in the trace */
	struct dist input;      /* prompt length of each turn, in tokens (words without --tokenizer-url) */
	struct dist output;     /* max_tokens of each request */
	const char *input_spec; /* the specs as given, for the header */
	const char *output_spec;
	const char *model;
	uint64_t seed;
	enum record_api api;    /* --endpoint-kind: what the requests speak */
	double rate;            /* requests per second; 0: every arrival at 0 */
	enum arrival_kind arrival;
	double burstiness;      /* gamma shape (1 = Poisson) */
	long turns;             /* turns per session (1: independent requests) */
	struct dist think;      /* think time before a later turn, milliseconds */
	const char *think_spec; /* as given, for the header; NULL: no think time */
	struct tokfit_options tok;      /* --tokenizer-url: exact input lengths */
};

/* synth_write's return when the tokenizer failed: the work, not the input. */
#define SYNTH_ETOKENIZER (-2)

/* The stream of think times, apart from words, lengths and arrivals. */
#define SYNTH_THINK_STREAM 3

/* Fills o with the defaults of the command line (64 requests of 512 words, 500 out). */
void synth_options_init(struct synth_options *o);

/*
 * Writes the trace to 'path' (refusing to replace a file unless force).
 * Same options, same bytes. A conversation (--turns) that would grow a
 * prompt past DIST_MAX tokens is refused before the file is created. A
 * record longer than a trace line may hold (TRACEFILE_MAX_LINE) is left
 * out and said on stderr. SIGINT or SIGTERM stop it between records,
 * ending the file whole. With o->tok.url each prompt is fitted to its
 * length by that tokenizer (lib/tokfit.h). Returns 0; -1 with a message
 * in err (lib/errmsg.h); SYNTH_ETOKENIZER, the tokenizer unusable or
 * failing, with err naming it; or 128 + the signal number, with what was
 * written in err.
 */
int synth_write(const struct synth_options *o, const char *path, int force, char *err,
		size_t errlen);

/* argv[0] is "synth". Returns the exit status (lib/cli.h). */
#endif
