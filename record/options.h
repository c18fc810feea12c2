/*
 * options.h - the command lines of `tracebench record synth|import|proxy|
 * info`: what each asks for, its help text and its parsing (lib/cli.h
 * says how parsers return). The sources only read these structs.
 */
#ifndef TB_RECORD_OPTIONS_H
#define TB_RECORD_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "record/import.h"
#include "record/synth.h"

#define PROXY_MAX_KEEP 64                      /* --keep-header, --keep-query names */
#define PROXY_MAX_BODY (32L * 1024 * 1024)     /* default request body cap */

/* record synth: the generator's options, and where to write. */
struct record_synth_options {
	struct synth_options synth;
	const char *output;
	int force;
	int arrival_given;      /* refused without --rate */
	int burstiness_given;   /* refused without --arrival gamma */
	int think_given;        /* refused without --turns */
};

/* record import; the strings point into argv. */
struct record_import_options {
	enum import_format format;
	const char *input;
	const char *output;
	int force;
	const char *model;
	int completions;        /* /v1/completions instead of chat */
	int ignore_eos;
	uint64_t seed;          /* of the prompt words */
	long limit;             /* 0: no limit */
	const char *window;     /* --time-window as given, or NULL */
	double win_start, win_end;   /* seconds after the first row; end may be INFINITY */
	int session_prefix;     /* --sessions prefix: Mooncake rows into sessions */
};

/* record proxy; the strings point into argv. */
struct proxy_options {
	char host[256];
	int port;
	const char *upstream;
	const char *output;
	const char *port_file;
	const char *keep[PROXY_MAX_KEEP];  /* --keep-header names */
	size_t n_keep;
	const char *keep_query[PROXY_MAX_KEEP];  /* --keep-query names */
	size_t n_keep_query;
	int force;
	long grace_s;
	long max_requests;                 /* 0: no limit */
	double duration_s;                 /* 0: no limit */
	long timeout_s;                    /* whole upstream transfer; 0: none */
	long connect_timeout_s;
	long max_body;                     /* request body cap, bytes */
	int insecure;                      /* -k: skip the upstream's TLS checks */
	int progress;                      /* 1 on, 0 off, -1 when a terminal */
	const char *session_header;        /* groups requests into sessions, or NULL */
	int session_prefix;                /* --sessions prefix: by the conversation */
};

/* record info. */
struct record_info_options {
	const char *trace;
	long block_words;       /* prefix block size */
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
