/*
 * import.h - `tracebench record import`: public production traces turned
 * into tracebench traces (schema/FORMAT.md), keeping their arrival times
 * and token lengths.
 *
 * Formats: Mooncake JSONL, Azure LLM inference CSV, BurstGPT CSV (6- and
 * 8-column layouts) and ShareGPT-style JSON conversations. Prompts of the
 * timing traces are synthesized words (record/words.h: one word ≈ one
 * token); Mooncake rows sharing hash_ids share the text of those 512-word
 * blocks, so a prefix cache sees the reuse the real workload had.
 */
#ifndef TB_IMPORT_H
#define TB_IMPORT_H

#include <stdint.h>
#include <stdio.h>

#include "api.h"
#include "lib/tokfit.h"

#define IMPORT_BLOCK_WORDS 512  /* Mooncake hash_ids block size, in tokens */

enum import_format { IMPORT_MOONCAKE, IMPORT_AZURE, IMPORT_BURSTGPT, IMPORT_SHAREGPT };

/*
 * Parses an Azure trace timestamp, "2023-11-16 18:15:46.6805900" (UTC, up
 * to 9 fraction digits, 'T' accepted for the space, years 1970 to 2200),
 * into nanoseconds since the Unix epoch. Returns 0, or -1 when s is not one.
 */
int import_parse_azure_time(const char *s, int64_t *ns);

/* Parses a format's name ("mooncake", "azure", "burstgpt", "sharegpt").
 * Returns 0, or -1 when s names none. */
int import_format_parse(const char *s, enum import_format *out);

/* The name of a format, for the trace's header. */
const char *import_format_name(enum import_format f);

/* record import; the strings point into argv. */
struct record_import_options {
	enum import_format format;
	const char *input;
	const char *output;
	int force;
	const char *model;
	enum record_api api;    /* --endpoint-kind: what the requests speak */
	int ignore_eos;
	uint64_t seed;          /* of the prompt words */
	long limit;             /* 0: no limit */
	const char *window;     /* --time-window as given, or NULL */
	double win_start, win_end;   /* seconds after the first row; end may be INFINITY */
	int session_prefix;     /* --sessions prefix: Mooncake rows into sessions */
	struct tokfit_options tok;      /* --tokenizer-url: exact input lengths */
};

/*
 * Reads o->input, in o->format, and writes the trace o->output; says on
 * stderr what it kept and skipped. Returns the exit status (lib/cli.h).
 */
int import_run(const struct record_import_options *o);

#endif
