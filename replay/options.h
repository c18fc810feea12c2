/*
 * options.h - the command line of `tracebench replay`: what it asks for,
 * its help text and its parsing (lib/cli.h says how parsers return).
 *
 * replay.c only reads a struct replay_options; every flag, its default,
 * its range and the checks between flags are here.
 */
#ifndef TB_REPLAY_OPTIONS_H
#define TB_REPLAY_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/capacity.h"
#include "lib/energy.h"
#include "lib/load.h"
#include "lib/metric.h"
#include "lib/modelmix.h"
#include "lib/table.h"
#include "replay/cancel.h"
#include "replay/schedule.h"

#include <cjson/cJSON.h>

#define REPLAY_MAX_LEVELS 64
#define REPLAY_MAX_HEADERS 32
#define REPLAY_MAX_TAGS 32
#define REPLAY_MAX_METRICS_URLS 8  /* --metrics-url given this often at most */
#define REPLAY_MAX_TAG_KEY 64      /* letters, digits, '_', '-', '.' */
#define REPLAY_DEFAULT_KEY_ENV "OPENAI_API_KEY"   /* --api-key-env by default */
#define REPLAY_MAX_TAG_VALUE 256   /* printable ASCII */

/* The command line, parsed once; the strings point into argv or into the
 * struct itself (endpoints, labels). */
struct replay_options {
	const char *endpoint;     /* without trailing '/' */
	const char *endpoint_b;   /* an A/B run: the second server, else NULL */
	const char *output_b;     /* ... its results file */
	const char *label_a, *label_b;   /* ... the labels of its two runs */
	long levels[REPLAY_MAX_LEVELS];
	int n_levels;
	int concurrency_given;    /* -c was given: refused with the open loop */
	long requests;            /* per level; 0 = waves x C, else max(4, 2C) */
	long waves;               /* -n Kx: K x C requests a level; 0: not given */
	long warmup;
	const char *label;        /* given, or run-YYYYmmdd-HHMMSS-XXXX */
	const char *output;
	const char *trace_path;
	int force;
	long timeout_s;
	long connect_timeout_s;
	long max_event_bytes;     /* cap on one SSE event or response body, 0 = default */
	const char *api_key_env;
	int progress;             /* 1 on, 0 off, -1 when stderr is a terminal */
	enum table_format format;
	long repeat;              /* closed loop: run each level this many times */
	int open_loop;            /* --rate or --timing trace */
	struct schedule_options sched;
	long max_concurrency;     /* open loop: cap on requests in flight, 0 = none */
	long shard_k, shard_n;    /* this process replays shard K of N */
	double start_at;          /* UNIX time to start at, 0 = now */
	long workers;             /* --workers W: W processes here, one results file */
	long worker;              /* a worker process: which one (0..W-1); -1 if none */
	int handshake[2];         /* a worker: "ready" to the parent, the start from it */
	const char *model;        /* overrides: NULL / -1 / 0 when not given */
	const char *model_mix;    /* --model-mix as given, or NULL ... */
	struct modelmix mix;      /* ... parsed: each request's model drawn from it */
	long max_tokens;
	int ignore_eos;
	char *headers[REPLAY_MAX_HEADERS];  /* -H "Name: value", into argv */
	size_t n_headers;
	const char *tags[REPLAY_MAX_TAGS];  /* --tag KEY=VALUE, into argv */
	size_t n_tags;
	int argc;                 /* the command line as run (argv[0] "replay"; a */
	char **argv;              /* --rerun's expanded), for the provenance */
	const char *rerun;        /* --rerun RESULTS, else NULL */
	const cJSON *rerun_of;    /* ... the recorded run, for the provenance */
	int http2, insecure;
	int all_requests;         /* replay requests of kind "other" too */
	int no_salt;              /* --no-salt: bodies byte for byte */
	int no_client_watch;      /* --no-client-watch: no bound on the client's error */
	int previous_response_id; /* --previous-response-id: Responses sessions chained */
	int tokenize;             /* --tokenize: prompts fitted by the endpoint's tokenizer */
	struct {                  /* ... what the fit did (replay/fit.c), for the header */
		long fitted, skipped, missed;
		long salt_tokens;  /* what a salt adds, taken off each length */
		int chat_template;
		char url[1100];   /* the tokenizer's, redacted */
		char why[64];     /* nothing fitted: why */
	} fit;
	uint64_t salt_seed;       /* --salt-seed, else drawn by replay */
	int salt_seed_given;
	struct cancel_spec cancel; /* --cancel; share 0 when not given */
	const char *cancel_text;  /* ... as given, or NULL */
	const char *metrics_url;  /* the first --metrics-url, or NULL: none */
	const char *metrics_urls[REPLAY_MAX_METRICS_URLS];  /* each --metrics-url, in order */
	size_t n_metrics_urls;
	const char *energy_metric;     /* --energy-metric as given, or NULL */
	struct energy_counter energy;  /* ... parsed; DCGM's by default */
	struct metric_price price;     /* --price-per-hour; per_hour 0: none */
	int64_t metrics_interval_ns;   /* --metrics-interval, default 1 s */
	int find_capacity;        /* --find-capacity: search the load against --slo */
	int range_given;          /* --capacity-range was given */
	int max_rate_given;       /* --max-rate was given ... */
	double max_rate;          /* ... its value */
	int arrival_given;        /* --arrival was given */
	const char *slo_spec;     /* --slo as given */
	struct metric_slo slo;
	struct capacity_options capacity;
	char endpoint_buf[2][1024];
	char label_buf[64];
	char ab_label_buf[2][80];
};

/*
 * Fills *o from argv (argv[0] is "replay"), defaults first. Returns
 * CLI_CONTINUE to run; else the exit status after printing the help to
 * stdout (0) or a one-line error to stderr (2).
 */
int replay_options_parse(struct replay_options *o, int argc, char **argv);

/*
 * Which option the command-line word 'arg' is: its getopt value (a short
 * option's letter, or OPT_*), 0 for an operand, -1 for no option of
 * replay's. *takes_value is 1 when the next word is its value ("-e URL",
 * "--label X"), 0 when it has none or carries it ("--label=X", "-eURL").
 */
int replay_option_id(const char *arg, int *takes_value);

/*
 * The option whose value the command-line word 'arg' holds or announces,
 * as getopt reads it (a long option's unambiguous prefix; short options
 * run together, "-kH"): its getopt value, with *attached pointing at the
 * value inside arg ("--header=V", "--hea=V", "-HV", "-kHV"), or NULL when
 * the value is the next word ("-H", "--hea", "-kH"). 0 when the word
 * holds and announces no value (an operand, "-k", "--"); -1 for no
 * option of replay's.
 */
int replay_option_value(const char *arg, const char **attached);

/* The load of level i of a sweep (-c's i-th C), or of the open-loop run. */
struct load replay_level_load(const struct replay_options *o, int i);

/* The requests a closed-loop level of concurrency c sends: -n N, else
 * -n Kx's K x c, else max(4, 2c). */
long replay_level_requests(const struct replay_options *o, long c);

/* An A/B run's halves (replay/schedule.h): SCHEDULE_AB_HALVES when every
 * level's requests make two waves a half (N >= 4 C), else 1, the first
 * level that does not in *short_c (may be NULL). */
int replay_ab_halves(const struct replay_options *o, long *short_c);

/* Length of the name part of the header "Name: value". */
size_t replay_header_name_len(const char *h);

/* The key a Messages request sends as x-api-key: $ANTHROPIC_API_KEY, or
 * the variable --api-key-env names when it names one other than the
 * default OPENAI_API_KEY; NULL when unset. */
const char *replay_anthropic_key(const struct replay_options *o);

#endif
