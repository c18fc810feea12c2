/*
 * options.c - the command line of `tracebench replay`; see options.h.
 *
 * The flags are read in groups, as the help text lists them: each group's
 * function takes the options it knows and says which it does not. A value
 * out of range is refused naming its flag; the checks between flags
 * (closed- against open-loop ones, --endpoint's scheme) come after.
 */
#include "replay/options.h"
#include "lib/cli.h"
#include "lib/clock.h"
#include "lib/curlev.h"
#include "lib/redact.h"

#include <ctype.h>
#include <curl/curl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* How far in the past a --start-at may lie: a late shard still joins. */
#define REPLAY_MAX_START_AGO_S 86400.0

#define PROG "tracebench replay"

/* What a group's function made of an option. */
enum { OPT_TAKEN = 0, OPT_BAD = -1, OPT_NOT_MINE = 1 };

enum {
	OPT_WARMUP = 256, OPT_TIMEOUT, OPT_CONNECT_TIMEOUT, OPT_API_KEY_ENV, OPT_FORMAT,
	OPT_PROGRESS, OPT_REPEAT, OPT_RATE, OPT_ARRIVAL, OPT_BURSTINESS, OPT_SEED,
	OPT_TIMING, OPT_SPEED, OPT_DURATION, OPT_MAX_CONCURRENCY, OPT_MODEL,
	OPT_MAX_TOKENS, OPT_IGNORE_EOS, OPT_HTTP2, OPT_SHARD, OPT_START_AT,
	OPT_MAX_EVENT_BYTES, OPT_LABEL_A, OPT_LABEL_B, OPT_WORKERS, OPT_ALL_REQUESTS,
	OPT_NO_SALT, OPT_SALT_SEED, OPT_MODEL_MIX,
	OPT_METRICS_URL, OPT_METRICS_INTERVAL, OPT_FIND_CAPACITY, OPT_SLO, OPT_SLO_SHARE,
	OPT_CONFIDENCE, OPT_CAPACITY_RANGE, OPT_CAPACITY_TOLERANCE, OPT_CAPACITY_REQUESTS,
	OPT_MAX_RATE, OPT_TAG, OPT_RERUN, OPT_ENERGY_METRIC, OPT_PRICE_PER_HOUR,
	OPT_CANCEL, OPT_PREVIOUS_RESPONSE_ID, OPT_TOKENIZE, OPT_NO_CLIENT_WATCH,
};

static const char shortopts[] = ":e:c:n:l:o:fqH:kh";

static const struct option longopts[] = {
	{ "endpoint", required_argument, NULL, 'e' },
	{ "concurrency", required_argument, NULL, 'c' },
	{ "requests", required_argument, NULL, 'n' },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "label", required_argument, NULL, 'l' },
	{ "label-a", required_argument, NULL, OPT_LABEL_A },
	{ "label-b", required_argument, NULL, OPT_LABEL_B },
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, 'f' },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT },
	{ "max-event-bytes", required_argument, NULL, OPT_MAX_EVENT_BYTES },
	{ "api-key-env", required_argument, NULL, OPT_API_KEY_ENV },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "no-client-watch", no_argument, NULL, OPT_NO_CLIENT_WATCH },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "arrival", required_argument, NULL, OPT_ARRIVAL },
	{ "burstiness", required_argument, NULL, OPT_BURSTINESS },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "cancel", required_argument, NULL, OPT_CANCEL },
	{ "previous-response-id", no_argument, NULL, OPT_PREVIOUS_RESPONSE_ID },
	{ "tokenize", no_argument, NULL, OPT_TOKENIZE },
	{ "timing", required_argument, NULL, OPT_TIMING },
	{ "speed", required_argument, NULL, OPT_SPEED },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "max-concurrency", required_argument, NULL, OPT_MAX_CONCURRENCY },
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "model-mix", required_argument, NULL, OPT_MODEL_MIX },
	{ "max-tokens", required_argument, NULL, OPT_MAX_TOKENS },
	{ "ignore-eos", no_argument, NULL, OPT_IGNORE_EOS },
	{ "all-requests", no_argument, NULL, OPT_ALL_REQUESTS },
	{ "no-salt", no_argument, NULL, OPT_NO_SALT },
	{ "salt-seed", required_argument, NULL, OPT_SALT_SEED },
	{ "header", required_argument, NULL, 'H' },
	{ "tag", required_argument, NULL, OPT_TAG },
	{ "rerun", required_argument, NULL, OPT_RERUN },
	{ "http2", no_argument, NULL, OPT_HTTP2 },
	{ "insecure", no_argument, NULL, 'k' },
	{ "shard", required_argument, NULL, OPT_SHARD },
	{ "start-at", required_argument, NULL, OPT_START_AT },
	{ "workers", required_argument, NULL, OPT_WORKERS },
	{ "metrics-url", required_argument, NULL, OPT_METRICS_URL },
	{ "metrics-interval", required_argument, NULL, OPT_METRICS_INTERVAL },
	{ "energy-metric", required_argument, NULL, OPT_ENERGY_METRIC },
	{ "price-per-hour", required_argument, NULL, OPT_PRICE_PER_HOUR },
	{ "find-capacity", optional_argument, NULL, OPT_FIND_CAPACITY },
	{ "slo", required_argument, NULL, OPT_SLO },
	{ "slo-share", required_argument, NULL, OPT_SLO_SHARE },
	{ "confidence", required_argument, NULL, OPT_CONFIDENCE },
	{ "capacity-range", required_argument, NULL, OPT_CAPACITY_RANGE },
	{ "capacity-tolerance", required_argument, NULL, OPT_CAPACITY_TOLERANCE },
	{ "capacity-requests", required_argument, NULL, OPT_CAPACITY_REQUESTS },
	{ "max-rate", required_argument, NULL, OPT_MAX_RATE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The help text. */
static void replay_options_usage(FILE *out)
{
	fprintf(out,
		"usage: tracebench replay --endpoint URL [options] -o RESULTS TRACE\n"
		"\n"
		"Re-issue TRACE against an OpenAI-compatible endpoint and record TTFT, TTFA,\n"
		"inter-token gaps, E2E and tokens of every request.\n"
		"\n"
		"options:\n"
		"  -e, --endpoint URL        base URL of the server, e.g. http://127.0.0.1:8000\n"
		"  -o, --output FILE         results file to write (.jsonl.gz)\n"
		"  -f, --force               replace FILE if it exists\n"
		"  -l, --label LABEL         name of the run (default run-YYYYmmdd-HHMMSS-XXXX,\n"
		"                            XXXX drawn so that two runs of a second differ)\n"
		"      --tag KEY=VALUE       a note kept with the run (repeatable), e.g.\n"
		"                            --tag gpu=H100 --tag commit=abc123; analyze runs\n"
		"                            shows them\n"
		"      --rerun RESULTS       the run RESULTS recorded, again: its command line\n"
		"                            and salt seed (the same bodies: against the same\n"
		"                            server they are cached, give --salt-seed N), the\n"
		"                            same trace (refused when the file's digest\n"
		"                            differs); each option given here replaces all\n"
		"                            the recorded ones of its name, e.g.\n"
		"                            --rerun old.jsonl.gz -e URL -o new.jsonl.gz\n"
		"      --warmup N            warm-up requests sent first, one at a time (default 1)\n"
		"\n"
		"closed loop (the default):\n"
		"  -c, --concurrency LIST    levels, e.g. 1,2,4,8,16 (default 1)\n"
		"  -n, --requests N          requests per level (default max(4, 2*C)); Kx: K*C,\n"
		"                            K waves of the level's C (every level as long)\n"
		"      --repeat R            run every level R times (default 1)\n"
		"\n"
		"open loop (latency counts from each request's scheduled time):\n"
		"      --rate R              send R requests per second\n"
		"      --arrival KIND        constant (default), poisson or gamma\n"
		"      --burstiness B        gamma shape: 1 is Poisson, below 1 burstier (default 1)\n"
		"      --seed N              seed of the arrival process, or of an A/B run's\n"
		"                            order (default 1)\n"
		"      --timing trace        send at the trace's own arrival offsets ...\n"
		"      --speed X             ... divided by X (default 1)\n"
		"  -n, --requests N          requests to send (default: the trace's count)\n"
		"      --duration SECONDS    stop scheduling after this long\n"
		"      --max-concurrency N   hold requests while N are in flight\n"
		"\n"
		"requests:\n"
		"      --model NAME          set the body's model\n"
		"      --model-mix NAME:W,...  send each request (each session's turns) to a\n"
		"                            model drawn from the mix, weights W normalized\n"
		"                            (LoRA adapters of one server); the draw is keyed\n"
		"                            on --seed and the request, the same in every\n"
		"                            level and rerun\n"
		"      --max-tokens N        set max_tokens (and max_completion_tokens if present)\n"
		"      --ignore-eos          set ignore_eos, so servers generate max_tokens\n"
		"      --all-requests        also replay requests not for inference (a\n"
		"                            capture's models lists, HEAD, ...), skipped\n"
		"                            by default\n"
		"      --no-salt             send the bodies byte for byte (see below)\n"
		"      --salt-seed N         seed of the salts (default: a random one, recorded)\n"
		"      --tokenize            fit each prompt to its recorded input length as\n"
		"                            the endpoint's POST /tokenize counts it (within\n"
		"                            1 token), before the run; not for sessions\n"
		"      --previous-response-id  chain the turns of Responses API sessions by\n"
		"                            the server's stored responses (see below)\n"
		"      --cancel P:AFTER      cancel a share P of the measured requests AFTER a\n"
		"                            time from their start (0.1:200ms, 0.5:1.5s) or N\n"
		"                            token events (0.1:tokens:16): the same trace\n"
		"                            requests at every level, drawn from --seed;\n"
		"                            recorded as cancelled, not failed, and left out\n"
		"                            of every statistic\n"
		"  -H, --header 'N: V'       add or replace a header (repeatable)\n"
		"      --api-key-env NAME    take the API key from $NAME (default OPENAI_API_KEY;\n"
		"                            Messages requests: ANTHROPIC_API_KEY, as x-api-key)\n"
		"      --http2               HTTP/2 (prior knowledge on http://, ALPN on https://)\n"
		"  -k, --insecure            do not verify the server's TLS certificate\n"
		"      --timeout SECONDS     limit per request (default 600)\n"
		"      --connect-timeout S   limit per connection attempt (default 10)\n"
		"      --max-event-bytes N   largest SSE event (its data) or non-streamed body\n"
		"                            accepted; a larger one fails the request as\n"
		"                            malformed (default 1048576, at least 1024)\n"
		"\n"
		"capacity: the highest load meeting an SLO\n"
		"      --find-capacity[=BY]  search the request rate (BY rate, the default: open\n"
		"                            loop, --arrival poisson unless given) or the\n"
		"                            concurrency (BY concurrency: closed loop): double\n"
		"                            from the range's start until a level fails, then\n"
		"                            bisect; each level is judged on the share of its\n"
		"                            requests within --slo, by a one-sided Wilson bound\n"
		"                            at --confidence, more requests sent (-n a batch,\n"
		"                            default max(20, 2C), or 2 s of arrivals) while the\n"
		"                            bound cannot decide\n"
		"      --slo LIMITS          ttft=500ms,ttfa=..,tpot=50ms,e2e=10s (us, ms, s)\n"
		"      --slo-share P         share of requests that must meet it (default 0.95)\n"
		"      --confidence P        of each level's verdict (default 0.95)\n"
		"      --capacity-range A:B  loads searched: req/s (default 1:1000; a rate\n"
		"                            halves down to A/64 when A fails) or C (1:256)\n"
		"      --max-rate R          search no rate above R (default: the range's B)\n"
		"      --capacity-tolerance X  stop when the bracket is within X of the\n"
		"                            passing load, at least 1 C or 1%% (default 0.1)\n"
		"      --capacity-requests N most requests one level gets (default 400;\n"
		"                            refused when too few to show --slo-share met)\n"
		"\n"
		"server metrics:\n"
		"      --metrics-url URL     scrape the server's Prometheus metrics (e.g.\n"
		"                            http://host:8000/metrics) during the run into\n"
		"                            the results file, each scrape timing out before\n"
		"                            the next is due; repeatable (up to 8: the engine\n"
		"                            and a GPU exporter such as DCGM's), each on the\n"
		"                            same schedule, its records named by its URL\n"
		"      --metrics-interval T  between scrapes: 1s (default), 500ms, 2 (seconds)\n"
		"      --energy-metric NAME[:UNIT]  the energy counter (UNIT J, the default, or\n"
		"                            mJ) for tokens per joule per level (default\n"
		"                            DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION, mJ)\n"
		"      --price-per-hour P[:R]  the deployment's cost per hour (any currency):\n"
		"                            analyze report gives the cost per million input\n"
		"                            and output tokens per level, an output token\n"
		"                            costing R input tokens (default 4)\n"
		"\n"
		"two servers at once (an A/B run, closed loop):\n"
		"  -e URL_A -e URL_B         give --endpoint twice and -o twice (A's file, then B's):\n"
		"                            every level and repeat runs against A and against B in\n"
		"                            turn, the same trace requests, in a balanced order from\n"
		"                            --seed, so that drift of the host falls on both; each\n"
		"                            side in two halves, A B B A (the files' repeats 2r and\n"
		"                            2r+1), when every level makes two waves a half (-n 4x\n"
		"                            or more); analyze compare pairs the two runs\n"
		"      --label-a NAME        label of A's run (default run-YYYYmmdd-HHMMSS-a)\n"
		"      --label-b NAME        label of B's run (default run-YYYYmmdd-HHMMSS-b)\n"
		"\n"
		"several processes or hosts:\n"
		"      --shard K/N           replay shard K (0..N-1) of N of the trace; only\n"
		"                            shard 0 sends the warm-ups\n"
		"      --start-at UNIXTIME   start the schedule at this wall-clock time (seconds\n"
		"                            since 1970); warm-ups and a probe of the server's\n"
		"                            clock (its Date header) come before it\n"
		"      --workers W           run W processes here, one results file; closed\n"
		"                            loop splits C and -n among them\n"
		"\n"
		"output:\n"
		"      --format FMT          table on stdout: text (default), markdown, csv, json\n"
		"      --progress            progress line on stderr even when not a terminal\n"
		"  -q, --quiet               no progress line\n"
		"      --no-client-watch     do not watch replay itself: no probe timer, no\n"
		"                            count of token reads, no bound on the client's\n"
		"                            own error (what the watch costs: make bench)\n"
		"  -h, --help                show this help\n"
		"\n"
		"Streamed requests get stream_options.include_usage so token counts come\n"
		"from the server. The API key is never taken from the command line.\n"
		"Every level (and repeat) replays the trace from its first request, after\n"
		"its connections are opened, with short salts of its own at the start of\n"
		"each prompt so that a server's prefix cache cannot carry one level into\n"
		"the next (keyed on the prompt's head: prompts that begin alike share one;\n"
		"recorded with each request). -n past the trace's length goes over it\n"
		"again, each pass salted apart; a capacity search's looks go on through\n"
		"the trace, so none resends what an earlier one sent.\n"
		"A trace with sessions (record synth --turns) replays session by session:\n"
		"-n and -c count sessions, turn k+1 leaves at turn k's end plus its think\n"
		"time with the server's answers in its history (schema/FORMAT.md).\n"
		"--previous-response-id: a session of Responses API requests is chained\n"
		"instead: every turn is sent with \"store\": true, each later one with\n"
		"\"previous_response_id\" set to the id of the turn before and only its new\n"
		"input items (the server holds the rest).\n"
		"\n"
		"examples:\n"
		"  tracebench replay --endpoint http://127.0.0.1:8000 -c 1,2,4,8,16 -o run.jsonl.gz trace.jsonl.gz\n"
		"  tracebench replay -e http://127.0.0.1:8000 --rate 20 --arrival poisson -n 600 -o open.jsonl.gz trace.jsonl.gz\n"
		"  tracebench replay -e http://127.0.0.1:8000 --timing trace --speed 2 -o prod.jsonl.gz imported.jsonl.gz\n"
		"  tracebench replay -e http://127.0.0.1:8000 --find-capacity --slo ttft=500ms,tpot=50ms -o cap.jsonl.gz trace.jsonl.gz\n"
		"  OPENAI_API_KEY=... tracebench replay -e https://host -c 4 --label tuned -o tuned.jsonl.gz trace.jsonl.gz\n"
		"  tracebench replay -e http://gpu1:8000 -e http://gpu2:8000 --label-a main --label-b tuned \\\n"
		"      -c 1,4,16 --repeat 3 -o main.jsonl.gz -o tuned.jsonl.gz trace.jsonl.gz\n");
}

struct load replay_level_load(const struct replay_options *o, int i)
{
	return o->open_loop ? load_open(NAN) : load_closed((int)o->levels[i]);
}

long replay_level_requests(const struct replay_options *o, long c)
{
	if (o->requests)
		return o->requests;
	if (o->waves)
		return o->waves * c;
	return c * 2 > 4 ? c * 2 : 4;
}

int replay_ab_halves(const struct replay_options *o, long *short_c)
{
	int i;

	for (i = 0; i < o->n_levels; i++) {
		if (replay_level_requests(o, o->levels[i]) < 2 * SCHEDULE_AB_HALVES * o->levels[i]) {
			if (short_c)
				*short_c = o->levels[i];
			return 1;
		}
	}
	return SCHEDULE_AB_HALVES;
}

size_t replay_header_name_len(const char *h)
{
	const char *colon = strchr(h, ':');

	return colon ? (size_t)(colon - h) : strlen(h);
}

/* Prints "tracebench replay: MSG" (and where to look when see_help) and
 * returns the usage exit status. */
static int usage_error(const char *msg, int see_help)
{
	fprintf(stderr, PROG ": %s%s\n", msg, see_help ? "; see '" PROG " --help'" : "");
	return CLI_EXIT_USAGE;
}

/* Parses "K/N" with 0 <= K < N. */
static int parse_shard(const char *s, long *k, long *n)
{
	char buf[48];
	const char *slash = strchr(s, '/');

	if (!slash || (size_t)(slash - s) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%.*s", (int)(slash - s), s);
	if (cli_parse_long(buf, 0, 100000, k) < 0 || cli_parse_long(slash + 1, 1, 100000, n) < 0)
		return -1;
	return *k < *n ? 0 : -1;
}

/* 0 or -1 of a value parser as OPT_TAKEN or OPT_BAD. */
int replay_option_id(const char *arg, int *takes_value)
{
	const struct option *lo, *found = NULL;
	const char *p;
	size_t n;

	*takes_value = 0;
	if (arg[0] != '-' || !arg[1])
		return 0;
	if (arg[1] != '-') {
		p = strchr(shortopts + 1, arg[1]);
		if (!p || arg[1] == ':')
			return -1;
		*takes_value = p[1] == ':' && !arg[2];
		return arg[1];
	}
	if (!arg[2])
		return -1;              /* "--": what follows is operands */
	n = strcspn(arg + 2, "=");
	/* getopt_long takes an unambiguous prefix too */
	for (lo = longopts; lo->name; lo++) {
		if (strncmp(lo->name, arg + 2, n))
			continue;
		if (strlen(lo->name) == n) {
			found = lo;
			break;
		}
		found = found ? NULL : lo;
	}
	if (!found)
		return -1;
	*takes_value = found->has_arg == required_argument && !arg[2 + n];
	return found->val;
}

int replay_option_value(const char *arg, const char **attached)
{
	const char *p, *eq;
	size_t i;
	int id, takes;

	*attached = NULL;
	if (arg[0] != '-' || !arg[1] || !strcmp(arg, "--"))
		return 0;
	if (arg[1] != '-') {
		/* getopt's cluster: options without a value, then at most one
		 * that takes the rest of the word, or the next word */
		for (i = 1; arg[i]; i++) {
			if (arg[i] == ':' || !(p = strchr(shortopts + 1, arg[i])))
				return -1;
			if (p[1] == ':') {
				*attached = arg[i + 1] ? arg + i + 1 : NULL;
				return arg[i];
			}
		}
		return 0;
	}
	if ((id = replay_option_id(arg, &takes)) <= 0)
		return id;
	if (takes)
		return id;
	if ((eq = strchr(arg, '=')) != NULL) {
		*attached = eq + 1;
		return id;
	}
	return 0;
}

/* --tag KEY=VALUE: a key of letters, digits, '_', '-' and '.', a value of
 * printable ASCII, each capped, no key twice. */
static int tag_ok(const struct replay_options *o, const char *arg)
{
	size_t k = strcspn(arg, "="), i;

	if (k == 0 || k > REPLAY_MAX_TAG_KEY || !arg[k] || strlen(arg + k + 1) > REPLAY_MAX_TAG_VALUE ||
	    o->n_tags == REPLAY_MAX_TAGS)
		return 0;
	for (i = 0; i < k; i++)
		if (!isalnum((unsigned char)arg[i]) && !strchr("_-.", arg[i]))
			return 0;
	for (i = k + 1; arg[i]; i++)
		if (arg[i] < 0x20 || arg[i] > 0x7e)
			return 0;
	for (i = 0; i < o->n_tags; i++)
		if (!strncmp(o->tags[i], arg, k + 1))
			return 0;
	return 1;
}

static int taken(int parse_rc)
{
	return parse_rc < 0 ? OPT_BAD : OPT_TAKEN;
}

/* The run and its output: endpoints, files, labels, warm-up, the table. */
static int parse_run_option(struct replay_options *o, int c, const char *arg)
{
	switch (c) {
	case 'e': *(o->endpoint ? &o->endpoint_b : &o->endpoint) = arg; return OPT_TAKEN;
	case 'o': *(o->output ? &o->output_b : &o->output) = arg; return OPT_TAKEN;
	case 'f': o->force = 1; return OPT_TAKEN;
	case 'l': o->label = arg; return OPT_TAKEN;
	case OPT_LABEL_A: o->label_a = arg; return OPT_TAKEN;
	case OPT_LABEL_B: o->label_b = arg; return OPT_TAKEN;
	case OPT_WARMUP: return taken(cli_parse_long(arg, 0, 1000000, &o->warmup));
	case OPT_FORMAT: return taken(table_format_parse(arg, &o->format));
	case OPT_PROGRESS: o->progress = 1; return OPT_TAKEN;
	case 'q': o->progress = 0; return OPT_TAKEN;
	default: return OPT_NOT_MINE;
	}
}

/* Closed loop: levels, requests per level, repeats. */
static int parse_closed_loop_option(struct replay_options *o, int c, const char *arg)
{
	switch (c) {
	case 'c':
		o->n_levels = cli_parse_long_list(arg, 1, 100000, o->levels, REPLAY_MAX_LEVELS);
		o->concurrency_given = 1;
		return o->n_levels < 0 ? OPT_BAD : OPT_TAKEN;
	case 'n':
		if (*arg && (arg[strlen(arg) - 1] == 'x' || arg[strlen(arg) - 1] == 'X')) {
			char k[24];

			snprintf(k, sizeof(k), "%.*s", (int)strlen(arg) - 1, arg);
			o->requests = 0;
			return taken(strlen(arg) < sizeof(k) ?
				     cli_parse_long(k, 1, 100000, &o->waves) : -1);
		}
		o->waves = 0;
		return taken(cli_parse_long(arg, 1, 100000000, &o->requests));
	case OPT_REPEAT: return taken(cli_parse_long(arg, 1, 10000, &o->repeat));
	default: return OPT_NOT_MINE;
	}
}

/* Open loop: the arrival process or the trace's timing, and its limits. */
static int parse_open_loop_option(struct replay_options *o, int c, const char *arg)
{
	double d;
	long v;

	switch (c) {
	case OPT_RATE:
		o->open_loop = 1;
		return taken(cli_parse_double(arg, 1e-6, 1e7, &o->sched.rate));
	case OPT_ARRIVAL:
		o->arrival_given = 1;
		return taken(arrival_parse(arg, &o->sched.arrival));
	case OPT_BURSTINESS: return taken(cli_parse_double(arg, 1e-3, 1e6, &o->sched.burstiness));
	case OPT_SEED:
		if (cli_parse_long(arg, 0, 0x7fffffffL, &v) < 0)
			return OPT_BAD;
		o->sched.seed = (uint64_t)v;
		return OPT_TAKEN;
	case OPT_TIMING:
		o->sched.arrival = ARRIVAL_TRACE;
		o->open_loop = 1;
		return strcmp(arg, "trace") == 0 ? OPT_TAKEN : OPT_BAD;
	case OPT_SPEED: return taken(cli_parse_double(arg, 1e-6, 1e6, &o->sched.speed));
	case OPT_DURATION:
		if (cli_parse_double(arg, 1e-3, 1e7, &d) < 0)
			return OPT_BAD;
		o->sched.duration_ns = (int64_t)(d * NS_PER_S);
		return OPT_TAKEN;
	case OPT_MAX_CONCURRENCY: return taken(cli_parse_long(arg, 1, 1000000, &o->max_concurrency));
	default: return OPT_NOT_MINE;
	}
}

/* What each request carries and how it is sent. */
static int parse_request_option(struct replay_options *o, int c, char *arg)
{
	long v;

	switch (c) {
	case OPT_MODEL: o->model = arg; return OPT_TAKEN;
	case OPT_MAX_TOKENS: return taken(cli_parse_long(arg, 1, 10000000, &o->max_tokens));
	case OPT_IGNORE_EOS: o->ignore_eos = 1; return OPT_TAKEN;
	case OPT_ALL_REQUESTS: o->all_requests = 1; return OPT_TAKEN;
	case OPT_NO_SALT: o->no_salt = 1; return OPT_TAKEN;
	case OPT_NO_CLIENT_WATCH: o->no_client_watch = 1; return OPT_TAKEN;
	case OPT_PREVIOUS_RESPONSE_ID: o->previous_response_id = 1; return OPT_TAKEN;
	case OPT_TOKENIZE: o->tokenize = 1; return OPT_TAKEN;
	case OPT_SALT_SEED:
		if (cli_parse_long(arg, 0, 0x7fffffffL, &v) < 0)
			return OPT_BAD;
		o->salt_seed = (uint64_t)v;
		o->salt_seed_given = 1;
		return OPT_TAKEN;
	case 'H':
		if (!strchr(arg, ':') || replay_header_name_len(arg) == 0 ||
		    o->n_headers == REPLAY_MAX_HEADERS)
			return OPT_BAD;
		o->headers[o->n_headers++] = arg;
		return OPT_TAKEN;
	case OPT_RERUN: o->rerun = arg; return OPT_TAKEN;
	case OPT_TAG:
		if (!tag_ok(o, arg))
			return OPT_BAD;
		o->tags[o->n_tags++] = arg;
		return OPT_TAKEN;
	case OPT_API_KEY_ENV: o->api_key_env = arg; return OPT_TAKEN;
	case OPT_HTTP2: o->http2 = 1; return OPT_TAKEN;
	case 'k': o->insecure = 1; return OPT_TAKEN;
	case OPT_TIMEOUT: return taken(cli_parse_long(arg, 1, 86400, &o->timeout_s));
	case OPT_CONNECT_TIMEOUT: return taken(cli_parse_long(arg, 1, 3600, &o->connect_timeout_s));
	case OPT_MAX_EVENT_BYTES:
		return taken(cli_parse_long(arg, 1024, 1L << 30, &o->max_event_bytes));
	default: return OPT_NOT_MINE;
	}
}

/* --metrics-interval: "1s", "250ms" or a number of seconds, 50 ms to 1 h. */
static int parse_interval(const char *s, int64_t *out_ns)
{
	char num[32];
	size_t n = strlen(s);
	double scale = 1, v;

	if (n > 2 && !strcmp(s + n - 2, "ms")) {
		scale = 1e-3;
		n -= 2;
	} else if (n > 1 && s[n - 1] == 's') {
		n -= 1;
	}
	if (n == 0 || n >= sizeof(num))
		return -1;
	memcpy(num, s, n);
	num[n] = '\0';
	if (cli_parse_double(num, 0, 1e12, &v) < 0 || v * scale < 0.05 || v * scale > 3600)
		return -1;
	*out_ns = llround(v * scale * 1e9);
	return 0;
}

/* --capacity-range "A:B", 0 < A <= B (whole numbers for a concurrency:
 * checked with the others, once the search's kind is known). */
static int parse_range(const char *s, double *a, double *b)
{
	char buf[32];
	const char *colon = strchr(s, ':');

	if (!colon || (size_t)(colon - s) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%.*s", (int)(colon - s), s);
	if (cli_parse_double(buf, 1e-3, 1e6, a) < 0 || cli_parse_double(colon + 1, 1e-3, 1e6, b) < 0)
		return -1;
	return *a <= *b ? 0 : -1;
}

/* The workload's own behaviour: --cancel. */
static int parse_workload_option(struct replay_options *o, int c, const char *arg,
				 char *msg, size_t len)
{
	char why[160];

	if (c != OPT_CANCEL)
		return OPT_NOT_MINE;
	if (cancel_parse(arg, &o->cancel, why, sizeof(why)) < 0) {
		snprintf(msg, len, "invalid value '%s' for --cancel: %s", arg, why);
		return OPT_BAD;
	}
	o->cancel_text = arg;
	return OPT_TAKEN;
}

/* The capacity search and its SLO. */
static int parse_capacity_option(struct replay_options *o, int c, const char *arg,
				 char *msg, size_t len)
{
	struct capacity_options *k = &o->capacity;

	switch (c) {
	case OPT_FIND_CAPACITY:
		o->find_capacity = 1;
		k->by_rate = !arg || strcmp(arg, "rate") == 0;
		return arg && !k->by_rate && strcmp(arg, "concurrency") ? OPT_BAD : OPT_TAKEN;
	case OPT_SLO: {
		char why[160];

		o->slo_spec = arg;
		if (metric_slo_parse(arg, &o->slo, why, sizeof(why)) < 0) {
			snprintf(msg, len, "invalid value '%s' for --slo: %s", arg, why);
			return OPT_BAD;
		}
		return OPT_TAKEN;
	}
	case OPT_SLO_SHARE: return taken(cli_parse_double(arg, 0.01, 0.9999, &k->share));
	case OPT_CONFIDENCE: return taken(cli_parse_double(arg, 0.5, 0.9999, &k->confidence));
	case OPT_CAPACITY_RANGE:
		o->range_given = 1;
		return taken(parse_range(arg, &k->start, &k->max));
	case OPT_MAX_RATE:
		o->max_rate_given = 1;
		return taken(cli_parse_double(arg, 1e-3, 1e6, &o->max_rate));
	case OPT_CAPACITY_TOLERANCE: return taken(cli_parse_double(arg, 0, 10, &k->tolerance));
	case OPT_CAPACITY_REQUESTS: return taken(cli_parse_long(arg, 1, 10000000, &k->max_requests));
	default: return OPT_NOT_MINE;
	}
}

/* The server's own metrics, scraped during the run. */
static int parse_metrics_option(struct replay_options *o, int c, char *arg, char *msg,
				size_t len)
{
	switch (c) {
	case OPT_METRICS_URL:
		if (o->n_metrics_urls == REPLAY_MAX_METRICS_URLS) {
			snprintf(msg, len, "--metrics-url given more than %d times",
				 REPLAY_MAX_METRICS_URLS);
			return OPT_BAD;
		}
		if (!o->metrics_url)
			o->metrics_url = arg;
		o->metrics_urls[o->n_metrics_urls++] = arg;
		return OPT_TAKEN;
	case OPT_ENERGY_METRIC: {
		char why[160];

		o->energy_metric = arg;
		if (energy_counter_parse(arg, &o->energy, why, sizeof(why)) == 0)
			return OPT_TAKEN;
		snprintf(msg, len, "invalid --energy-metric '%s': %s", arg, why);
		return OPT_BAD;
	}
	case OPT_PRICE_PER_HOUR: {
		char why[160];

		if (metric_price_parse(arg, &o->price, why, sizeof(why)) == 0)
			return OPT_TAKEN;
		snprintf(msg, len, "invalid --price-per-hour: %s", why);
		return OPT_BAD;
	}
	case OPT_METRICS_INTERVAL: return taken(parse_interval(arg, &o->metrics_interval_ns));
	default: return OPT_NOT_MINE;
	}
}

/* Several processes or hosts: the shard, the common start, the workers. */
static int parse_hosts_option(struct replay_options *o, int c, const char *arg)
{
	switch (c) {
	case OPT_SHARD: return parse_shard(arg, &o->shard_k, &o->shard_n) < 0 ? OPT_BAD : OPT_TAKEN;
	case OPT_START_AT: return taken(cli_parse_double(arg, 1, 1e11, &o->start_at));
	case OPT_WORKERS: return taken(cli_parse_long(arg, 1, 1024, &o->workers));
	default: return OPT_NOT_MINE;
	}
}

/* --model-mix NAME:WEIGHT,... (lib/modelmix.h), its error naming the option. */
static int parse_model_mix(struct replay_options *o, const char *arg, char *msg, size_t len)
{
	char why[200];

	if (modelmix_parse(&o->mix, arg, why, sizeof(why)) == 0) {
		o->model_mix = arg;
		return 0;
	}
	snprintf(msg, len, "invalid --model-mix: %s", why);
	return -1;
}

/* cli_parse's take(): each group in turn. */
static int take(void *opts, int c, char *arg, char *msg, size_t len)
{
	struct replay_options *o = opts;
	int rc;

	if ((c == 'e' && o->endpoint_b) || (c == 'o' && o->output_b)) {
		snprintf(msg, len, c == 'e' ? "more than two --endpoint; an A/B run has two" :
			 "more than two -o; an A/B run writes two results files");
		return -1;
	}
	if (c == OPT_MODEL_MIX)
		return parse_model_mix(o, arg, msg, len);
	rc = parse_run_option(o, c, arg);
	if (rc == OPT_NOT_MINE)
		rc = parse_closed_loop_option(o, c, arg);
	if (rc == OPT_NOT_MINE)
		rc = parse_open_loop_option(o, c, arg);
	if (rc == OPT_NOT_MINE)
		rc = parse_request_option(o, c, arg);
	if (rc == OPT_NOT_MINE)
		rc = parse_hosts_option(o, c, arg);
	if (rc == OPT_NOT_MINE)
		rc = parse_metrics_option(o, c, arg, msg, len);
	if (rc == OPT_NOT_MINE)
		rc = parse_capacity_option(o, c, arg, msg, len);
	if (rc == OPT_NOT_MINE)
		rc = parse_workload_option(o, c, arg, msg, len);
	return rc == OPT_TAKEN ? 0 : -1;
}

static const struct cli_command command = { PROG, shortopts, longopts, take };

/* The rules of an A/B run (two --endpoint): NULL when kept, else why not. */
static const char *check_ab(const struct replay_options *o)
{
	if (!o->endpoint_b) {
		if (o->output_b)
			return "two -o need two --endpoint (an A/B run)";
		if (o->label_a || o->label_b)
			return "--label-a and --label-b need two --endpoint (an A/B run)";
		return NULL;
	}
	if (strncmp(o->endpoint_b, "http://", 7) && strncmp(o->endpoint_b, "https://", 8))
		return "--endpoint must be an http:// or https:// URL";
	if (!o->output_b)
		return "an A/B run (two --endpoint) needs two results files: -o A.jsonl.gz -o B.jsonl.gz";
	if (strcmp(o->output, o->output_b) == 0)
		return "the two results files of an A/B run must differ";
	if (o->open_loop)
		return "an A/B run (two --endpoint) is closed loop: --rate and --timing do not apply";
	if (o->shard_n > 1 || o->workers > 1)
		return "an A/B run (two --endpoint) cannot be sharded (--shard, --workers)";
	if (o->label)
		return "an A/B run names its two runs with --label-a and --label-b, not --label";
	if (o->label_a && o->label_b && strcmp(o->label_a, o->label_b) == 0)
		return "--label-a and --label-b must differ";
	return NULL;
}

/*
 * A capacity search's own rules, its defaults filled in: NULL when kept,
 * else why not. A rate search is an open loop of Poisson arrivals unless
 * --arrival says otherwise; its first schedule is the range's start.
 */
static const char *check_capacity(struct replay_options *o)
{
	struct capacity_options *k = &o->capacity;

	if (!o->find_capacity)
		return o->max_rate_given ? "--max-rate goes with --find-capacity (of the rate)" :
		       o->range_given ? "--capacity-range goes with --find-capacity" : NULL;
	if (!k->by_rate) {
		if (o->max_rate_given)
			return "--max-rate goes with --find-capacity=rate, not =concurrency";
		if (o->max_concurrency || o->arrival_given)
			return "--find-capacity=concurrency is closed loop: --max-concurrency and "
			       "--arrival do not apply";
		if (!o->range_given) {
			k->start = 1;
			k->max = 256;
		}
		if (k->start != floor(k->start) || k->max != floor(k->max) || k->max > 100000)
			return "--capacity-range of a concurrency is whole numbers, 1 to 100000";
		return NULL;
	}
	if (!o->range_given) {
		k->start = 1;
		k->max = 1000;
	}
	if (o->max_rate_given) {        /* caps the range, or is its end */
		k->max = o->range_given && k->max < o->max_rate ? k->max : o->max_rate;
		if (k->start > k->max)
			k->start = k->max;
	}
	if (!o->arrival_given)
		o->sched.arrival = ARRIVAL_POISSON;
	o->open_loop = 1;
	o->sched.rate = k->start;
	return NULL;
}

/* The checks between flags, once all are read. */
static int check_options(struct replay_options *o)
{
	const char *why;

	if (!o->endpoint || (strncmp(o->endpoint, "http://", 7) && strncmp(o->endpoint, "https://", 8)))
		return usage_error(o->endpoint ? "--endpoint must be an http:// or https:// URL" :
				   "no endpoint; give --endpoint URL", 0);
	if (!o->output)
		return usage_error("no results file; give -o RESULTS", 0);
	if ((why = check_ab(o)) != NULL)
		return usage_error(why, 0);
	/* libcurl before 7.89 breaks reused prior-knowledge HTTP/2 connections
	 * (curl issue 10634): every request after the first would fail. */
	if (o->http2 && strncmp(o->endpoint, "http://", 7) == 0 &&
	    curl_version_info(CURLVERSION_NOW)->version_num < 0x075900) {
		fprintf(stderr, PROG ": --http2 over http:// needs libcurl 7.89 or later "
			"(this is %s); use an https:// endpoint or HTTP/1.1\n",
			curl_version_info(CURLVERSION_NOW)->version);
		return CLI_EXIT_USAGE;
	}
	if (o->waves && (o->open_loop || o->find_capacity))
		return usage_error("-n Kx counts waves of a level's C: a closed-loop sweep's "
				   "(give -n N with --rate, --timing or --find-capacity)", 0);
	if (o->open_loop && (o->concurrency_given || o->repeat > 1))
		return usage_error("--concurrency and --repeat are closed-loop options; "
				   "with --rate or --timing use --max-concurrency", 0);
	if (o->sched.rate > 0 && o->sched.arrival == ARRIVAL_TRACE)
		return usage_error("give either --rate or --timing trace, not both", 0);
	if (o->find_capacity && !o->slo_spec)
		return usage_error("--find-capacity needs an --slo to meet", 0);
	if (o->slo_spec && !o->find_capacity)
		return usage_error("--slo goes with --find-capacity (analyze report takes it for "
				   "goodput)", 0);
	if (o->find_capacity && (o->sched.rate > 0 || o->sched.arrival == ARRIVAL_TRACE ||
				 o->concurrency_given || o->repeat > 1 || o->sched.duration_ns ||
				 o->endpoint_b || o->workers > 1 || o->shard_n > 1))
		return usage_error("--find-capacity searches the load itself, in one process: not "
				   "with --rate, --timing, --duration, -c, --repeat, a second "
				   "--endpoint, --workers or --shard", 0);
	if ((why = check_capacity(o)) != NULL)
		return usage_error(why, 0);
	if (o->model && o->model_mix)
		return usage_error("give either --model or --model-mix, not both", 0);
	if (o->energy_metric && !o->metrics_url)
		return usage_error("--energy-metric names a counter of a --metrics-url, which is "
				   "missing", 0);
	if (o->metrics_url && (o->endpoint_b || o->workers > 1))
		return usage_error("--metrics-url takes one endpoint and one process "
				   "(not with a second --endpoint or --workers)", 0);
	/* Every time of the results file counts from --start-at, in ns, and
	 * the reader takes none past JSON_MAX_EXACT (104 days): one a day
	 * back leaves the run 103 days. */
	if (o->start_at > 0 && (double)clock_wall_ns() / 1e9 - o->start_at > REPLAY_MAX_START_AGO_S)
		return usage_error("--start-at is more than a day in the past (the results file "
				   "counts every time from it, and cannot count 104 days); give "
				   "a time ahead, or leave it out to start now", 0);
	return CLI_CONTINUE;
}

/* Copies an endpoint into buf without its trailing '/'. */
static const char *trim_endpoint(const char *endpoint, char *buf, size_t len)
{
	size_t n;

	snprintf(buf, len, "%s", endpoint);
	n = strlen(buf);
	while (n > 8 && buf[n - 1] == '/')
		buf[--n] = '\0';
	return buf;
}

/* The endpoints without trailing '/', the default labels. */
static void finish_options(struct replay_options *o)
{
	size_t t;

	o->endpoint = trim_endpoint(o->endpoint, o->endpoint_buf[0], sizeof(o->endpoint_buf[0]));
	if (o->endpoint_b)
		o->endpoint_b = trim_endpoint(o->endpoint_b, o->endpoint_buf[1],
					      sizeof(o->endpoint_buf[1]));
	if (!o->label) {
		time_t now = time(NULL);
		struct tm tm;
		unsigned short r;

		if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
			r = (unsigned short)(getpid() ^ clock_now_ns());
		gmtime_r(&now, &tm);
		strftime(o->label_buf, sizeof(o->label_buf), "run-%Y%m%d-%H%M%S", &tm);
		snprintf(o->label_buf + strlen(o->label_buf), sizeof(o->label_buf) - strlen(o->label_buf),
			 "-%04x", r);
		o->label = o->label_buf;
	}
	if (o->endpoint_b) {
		for (t = 0; t < 2; t++)
			snprintf(o->ab_label_buf[t], sizeof(o->ab_label_buf[t]), "%s-%c", o->label,
				 t ? 'b' : 'a');
		o->label_a = o->label_a ? o->label_a : o->ab_label_buf[0];
		o->label_b = o->label_b ? o->label_b : o->ab_label_buf[1];
	}
	o->sched.max_requests = (size_t)o->requests;
	o->capacity.batch = o->requests;
	if (o->find_capacity && o->capacity.by_rate)
		o->sched.max_requests = (size_t)capacity_batch(&o->capacity, o->capacity.start);
}

/*
 * A search whose --capacity-requests cannot show that a load meets the
 * SLO (even all of them good leave the bound under --slo-share) would
 * fail or leave undecided every load it probed, and state that none
 * meets it: refused, with the count that can. Judged at the lowest load
 * the search may probe, whose looks are the smallest (the most looks,
 * the widest bound).
 */
static int check_capacity_requests(const struct replay_options *o)
{
	const struct capacity_options *k = &o->capacity;
	double x = capacity_floor(k), z, lo, hi;
	long need;

	if (!o->find_capacity)
		return CLI_CONTINUE;
	need = capacity_min_requests(k, x);
	if (need > 0 && need <= k->max_requests)
		return CLI_CONTINUE;
	z = capacity_z(k, x);
	capacity_wilson(k->max_requests, k->max_requests, z, &lo, &hi);
	fprintf(stderr, PROG ": --capacity-requests %ld cannot show that a load meets the SLO: "
		"even %ld of %ld requests within it give a lower bound of %.1f%% at %.0f%% "
		"confidence, under the %.1f%% of --slo-share; ", k->max_requests,
		k->max_requests, k->max_requests, 100 * lo, 100 * k->confidence, 100 * k->share);
	if (need > 0)
		fprintf(stderr, "give --capacity-requests %ld or more\n", need);
	else
		fprintf(stderr, "give a lower --slo-share\n");
	return CLI_EXIT_USAGE;
}

/* Each endpoint as libcurl will parse it. Said without its userinfo. */
static int check_urls(const struct replay_options *o)
{
	const char *e[2] = { o->endpoint, o->endpoint_b };
	char err[256];
	size_t t;

	for (t = 0; t < o->n_metrics_urls; t++)
		if (curlev_check_url(o->metrics_urls[t], err, sizeof(err)) < 0) {
			char *shown = redact_url(o->metrics_urls[t], NULL);

			fprintf(stderr, PROG ": invalid --metrics-url '%s': %s\n", shown ? shown : "?",
				err);
			free(shown);
			return CLI_EXIT_USAGE;
		}
	for (t = 0; t < 2 && e[t]; t++) {
		if (curlev_check_url(e[t], err, sizeof(err)) < 0) {
			char *shown = redact_url(e[t], NULL);

			fprintf(stderr, PROG ": invalid --endpoint%s '%s': %s\n", t ? "-b" : "",
				shown ? shown : "?", err);
			free(shown);
			return CLI_EXIT_USAGE;
		}
	}
	return CLI_CONTINUE;
}

int replay_options_parse(struct replay_options *o, int argc, char **argv)
{
	char msg[CLI_MSGLEN];
	int rc;

	memset(o, 0, sizeof(*o));
	o->argc = argc;
	o->argv = argv;
	o->levels[0] = 1;
	o->n_levels = 1;
	o->warmup = 1;
	o->timeout_s = 600;
	o->connect_timeout_s = 10;
	o->api_key_env = REPLAY_DEFAULT_KEY_ENV;
	o->progress = -1;
	o->format = TABLE_TEXT;
	o->repeat = 1;
	o->worker = -1;
	o->metrics_interval_ns = NS_PER_S;
	energy_counter_default(&o->energy);
	o->capacity.share = 0.95;
	o->capacity.confidence = 0.95;
	o->capacity.start = 1;
	o->capacity.max = 256;
	o->capacity.tolerance = 0.1;
	o->capacity.max_requests = 400;
	o->sched.arrival = ARRIVAL_CONSTANT;
	o->sched.burstiness = 1;
	o->sched.speed = 1;
	o->sched.seed = 1;

	rc = cli_parse(&command, o, argc, argv, msg, sizeof(msg));
	if (rc == CLI_EXIT_OK)
		replay_options_usage(stdout);
	if (rc != CLI_CONTINUE)
		return rc == CLI_EXIT_OK ? rc : usage_error(msg, 0);
	if (optind + 1 != argc)
		return usage_error(optind == argc ? "no trace file given" :
				   "more than one trace file given", 1);
	o->trace_path = argv[optind];
	if ((rc = check_options(o)) != CLI_CONTINUE)
		return rc;
	finish_options(o);
	if ((rc = check_capacity_requests(o)) != CLI_CONTINUE)
		return rc;
	return check_urls(o);
}

const char *replay_anthropic_key(const struct replay_options *o)
{
	if (strcmp(o->api_key_env, REPLAY_DEFAULT_KEY_ENV) != 0)
		return getenv(o->api_key_env);
	return getenv("ANTHROPIC_API_KEY");
}
