/*
 * options.h - the command line of `tracebench mock`: the server's timing,
 * its faults, its help text and their parsing (lib/cli.h says how parsers
 * return).
 */
#ifndef TB_MOCK_OPTIONS_H
#define TB_MOCK_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

#include "lib/modelmix.h"
#include "mock/noise.h"

#define MOCK_MAX_TOKENS  1000000L            /* per request, clamped to it */
#define MOCK_MAX_TOOL_CALLS 16               /* --tool-calls */

enum mock_profile { MOCK_PROFILE_NONE, MOCK_PROFILE_BATCHING };

/* --timings: which server's per-request timings the answers carry. */
enum mock_timings { MOCK_TIMINGS_NONE, MOCK_TIMINGS_LLAMA, MOCK_TIMINGS_VLLM, MOCK_TIMINGS_SGLANG };

/* The command line, parsed once; the strings point into argv. */
struct mock_options {
	char host[256];
	int port;
	int64_t ttft_ns;
	int64_t itl_ns;
	int64_t cold_start_ns;
	long tokens;            /* when the request has no max_tokens */
	long reasoning_tokens;  /* leading tokens sent as reasoning_content */
	enum mock_profile profile;
	double slope;
	const char *model;
	struct modelmix models;  /* --models: more served, each its time factor */
	const char *port_file;
	int quiet;
	/* Faults, for the tests of what replay records when servers fail. */
	long fail_every;        /* every N-th generation request gets fail_status */
	long fail_status;
	long reset_after;       /* streams: reset the connection after N tokens */
	long stall_after;       /* streams: go silent after N tokens */
	long malformed_after;   /* streams: a garbage event after N tokens */
	int no_done;            /* streams: end without data: [DONE] */
	int no_final_newline;   /* streams: the last event without its line ends */
	long big_event_after;   /* streams: after N tokens, the next one as ... */
	long big_event_bytes;   /* ... an event of this many bytes of data */
	int64_t trickle_ns;     /* streams: body bytes one at a time, this far apart */
	int close_after;        /* every reply: Connection: close */
	int64_t stall_at_ns;    /* after the first request: hold new requests ... */
	int64_t stall_ns;       /* ... for this long (a stalled server) */
	/* Fidelity: how vLLM answers (README, mock). */
	int early_role;         /* the chat role chunk on arrival, not with token 0 */
	enum mock_timings timings;   /* the true queue, prefill and decode, told */
	const char *truth;      /* --truth FILE: each request's true times, appended */
	long slots;             /* requests served at once, the rest queue; 0: all */
	long http_threads;      /* connections held at once (cpp-httplib's
				 * pool); 0: no limit */
	long keepalive_ms;      /* idle connection closed after; 0: default */
	long max_model_len;     /* prompt + max_tokens above it: 400 */
	double eos_prob;        /* per token, the chance of an end of sequence */
	int64_t prefill_ns;     /* added to TTFT per uncached prompt token */
	long cache_blocks;      /* prefix cache size in blocks; 0: none */
	long tokens_per_event;  /* tokens in one event (speculative decoding) */
	int gzip;               /* gzip replies to clients that accept it */
	long tool_calls;        /* calls answering a request that offers tools */
	long tool_rounds;       /* ... until this many answers of calls */
	/* --noise: noisy the way real servers are (mock/noise.h) */
	struct noise_spec noise;
	int noisy;              /* some part of it is on */
	uint64_t seed;          /* --seed: the noise's and --eos-prob's draws */
	/* --metrics-fault: how GET /metrics misbehaves */
	enum { METRICS_OK, METRICS_SLOW, METRICS_STATUS, METRICS_MALFORMED } metrics_fault;
	long metrics_fault_arg; /* slow: ms of delay; status: the HTTP status */
	double watts;           /* --watts: a GPU drawing this, on /metrics; 0 none */
};

/*
 * Fills *o from argv (argv[0] is "mock"), defaults first. Returns
 * CLI_CONTINUE to run; else the exit status after printing the help to
 * stdout (0) or a one-line error to stderr (2).
 */
int mock_options_parse(struct mock_options *o, int argc, char **argv);

#endif
