/*
 * synth.h - `tracebench record synth`: a trace of generated requests.
 */
#ifndef TB_SYNTH_H
#define TB_SYNTH_H

#include <stdint.h>

struct synth_options {
	long requests;          /* -n */
	long input_tokens;      /* prompt length, in words (≈ tokens) */
	long output_tokens;     /* max_tokens of each request */
	const char *model;
	uint64_t seed;
	int completions;        /* /v1/completions instead of chat */
};

/*
 * Writes the trace to 'path' (refusing to replace a file unless force).
 * Same options, same bytes. Returns 0, or -1 with a message in err (512 bytes).
 */
int synth_write(const struct synth_options *o, const char *path, int force, char *err);

int synth_main(int argc, char **argv);

#endif
