/*
 * options.h - the command lines of `tracebench record synth|import|proxy|
 * info`: what each asks for, its help text and its parsing (lib/cli.h
 * says how parsers return). The structs the sources run from are declared
 * in their headers; record.c parses, then runs.
 */
#ifndef TB_RECORD_OPTIONS_H
#define TB_RECORD_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "record/import.h"
#include "record/info.h"
#include "record/proxy.h"
#include "record/synth.h"

/* record synth: the generator's options, and where to write. */
struct record_synth_options {
	struct synth_options synth;
	const char *output;
	int force;
	int arrival_given;      /* refused without --rate */
	int burstiness_given;   /* refused without --arrival gamma */
	int think_given;        /* refused without --turns */
};

/*
 * Each fills *o from argv (argv[0] is the source's name), defaults first.
 * Returns CLI_CONTINUE to run; else the exit status after printing the
 * help to stdout (0) or a one-line error to stderr (2).
 */
int record_options_synth(struct record_synth_options *o, int argc, char **argv);
int record_options_import(struct record_import_options *o, int argc, char **argv);
int record_options_proxy(struct proxy_options *o, int argc, char **argv);
int record_options_info(struct record_info_options *o, int argc, char **argv);

#endif
