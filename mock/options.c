/*
 * options.c - the command line of `tracebench mock`; see options.h.
 *
 * Numbers go through lib/cli like every program's: a value out of range
 * is refused naming its flag.
 */
#include "mock/options.h"
#include "lib/cli.h"
#include "lib/clock.h"
#include "lib/httpserver.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#define PROG "tracebench mock"
#define MOCK_MAX_EVENT   (1L << 30)          /* --big-event-bytes cap */
#define MOCK_BIG_EVENT_BYTES ((1L << 20) + 1) /* its default */

/* What a group's function made of an option. */
enum { OPT_TAKEN = 0, OPT_BAD = -1, OPT_NOT_MINE = 1 };

enum { O_PORT_FILE = 256, O_TTFT, O_ITL, O_TOKENS, O_REASONING,
       O_PROFILE, O_SLOPE, O_COLD, O_MODEL, O_FAIL_EVERY, O_FAIL_STATUS,
       O_RESET_AFTER, O_STALL_AFTER, O_MALFORMED_AFTER, O_NO_DONE,
       O_STALL_AT, O_STALL_MS, O_NO_FINAL_NEWLINE, O_BIG_AFTER,
       O_BIG_BYTES, O_TRICKLE, O_CLOSE_AFTER, O_EARLY_ROLE, O_MAX_MODEL_LEN,
       O_EOS_PROB, O_PREFILL, O_CACHE_BLOCKS, O_PER_EVENT, O_GZIP,
       O_METRICS_FAULT, O_TOOL_CALLS, O_TOOL_ROUNDS, O_NOISE, O_SEED, O_TIMINGS, O_TRUTH, O_SLOTS,
       O_WATTS, O_HTTP_THREADS, O_KEEPALIVE, O_MODELS };

static const char shortopts[] = ":l:qh";

static const struct option longopts[] = {
	{ "listen",           required_argument, NULL, 'l' },
	{ "port-file",        required_argument, NULL, O_PORT_FILE },
	{ "ttft-ms",          required_argument, NULL, O_TTFT },
	{ "itl-ms",           required_argument, NULL, O_ITL },
	{ "tokens",           required_argument, NULL, O_TOKENS },
	{ "reasoning-tokens", required_argument, NULL, O_REASONING },
	{ "profile",          required_argument, NULL, O_PROFILE },
	{ "slope",            required_argument, NULL, O_SLOPE },
	{ "cold-start-ms",    required_argument, NULL, O_COLD },
	{ "model",            required_argument, NULL, O_MODEL },
	{ "models",           required_argument, NULL, O_MODELS },
	{ "fail-every",       required_argument, NULL, O_FAIL_EVERY },
	{ "fail-status",      required_argument, NULL, O_FAIL_STATUS },
	{ "reset-after",      required_argument, NULL, O_RESET_AFTER },
	{ "stall-after",      required_argument, NULL, O_STALL_AFTER },
	{ "malformed-after",  required_argument, NULL, O_MALFORMED_AFTER },
	{ "no-done",          no_argument,       NULL, O_NO_DONE },
	{ "stall-at-ms",      required_argument, NULL, O_STALL_AT },
	{ "stall-ms",         required_argument, NULL, O_STALL_MS },
	{ "no-final-newline", no_argument,       NULL, O_NO_FINAL_NEWLINE },
	{ "big-event-after",  required_argument, NULL, O_BIG_AFTER },
	{ "big-event-bytes",  required_argument, NULL, O_BIG_BYTES },
	{ "trickle-us",       required_argument, NULL, O_TRICKLE },
	{ "close-after-response", no_argument,   NULL, O_CLOSE_AFTER },
	{ "early-role",       no_argument,       NULL, O_EARLY_ROLE },
	{ "timings",          required_argument, NULL, O_TIMINGS },
	{ "truth",            required_argument, NULL, O_TRUTH },
	{ "slots",            required_argument, NULL, O_SLOTS },
	{ "http-threads",     required_argument, NULL, O_HTTP_THREADS },
	{ "keepalive-timeout-ms", required_argument, NULL, O_KEEPALIVE },
	{ "max-model-len",    required_argument, NULL, O_MAX_MODEL_LEN },
	{ "eos-prob",         required_argument, NULL, O_EOS_PROB },
	{ "prefill-us-per-token", required_argument, NULL, O_PREFILL },
	{ "prefix-cache-blocks", required_argument, NULL, O_CACHE_BLOCKS },
	{ "tokens-per-event", required_argument, NULL, O_PER_EVENT },
	{ "gzip",             no_argument,       NULL, O_GZIP },
	{ "tool-calls",       required_argument, NULL, O_TOOL_CALLS },
	{ "tool-rounds",      required_argument, NULL, O_TOOL_ROUNDS },
	{ "noise",            required_argument, NULL, O_NOISE },
	{ "seed",             required_argument, NULL, O_SEED },
	{ "metrics-fault",    required_argument, NULL, O_METRICS_FAULT },
	{ "watts",            required_argument, NULL, O_WATTS },
	{ "quiet",            no_argument,       NULL, 'q' },
	{ "help",             no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* The help text. */
static void mock_options_usage(FILE *out)
{
	fputs(
"usage: tracebench mock [options]\n"
"\n"
"Serve a deterministic OpenAI-compatible API (POST /v1/chat/completions,\n"
"POST /v1/completions, POST /tokenize, GET /v1/models, GET /health, GET /version,\n"
"GET /metrics in Prometheus text with vLLM's names) that\n"
"answers as vLLM does, and Anthropic's Messages (POST /v1/messages) and\n"
"OpenAI's Responses (POST /v1/responses) in their typed events. Token k of\n"
"a request is sent at ttft + k * itl after\n"
"it arrived (--noise: stretched as a real server's times are); the\n"
"request's max_tokens (or max_completion_tokens, max_output_tokens) says\n"
"how many tokens,\n"
"else --tokens does. The chat role chunk goes with the first\n"
"token; n > 1 and prompt lists get a choice each; a model other than\n"
"--model is 404, a bad max_tokens or a prompt past --max-model-len 400, in\n"
"vLLM's error shape. A prefix cache of prompt blocks (16 tokens, words\n"
"counting as tokens) reports its hits in usage.prompt_tokens_details.\n"
"\n"
"options:\n"
"  -l, --listen HOST:PORT      address to listen on (default 127.0.0.1:8000;\n"
"                              port 0 picks a free port)\n"
"      --port-file FILE        write the bound port to FILE once listening\n"
"      --ttft-ms MS            time to first token (default 50)\n"
"      --itl-ms MS             gap between tokens (default 10)\n"
"      --tokens N              tokens when the request has no max_tokens\n"
"                              (default 16; a request's max_tokens wins)\n"
"      --reasoning-tokens N    send the first N tokens as reasoning_content\n"
"                              (chat only; default 0)\n"
"      --profile NAME          none (default): constant timing;\n"
"                              batching: ttft and itl grow with load\n"
"      --slope X               batching slowdown per extra active request\n"
"                              (default 0.133)\n"
"      --cold-start-ms MS      extra ttft for the first request (default 0)\n"
"      --model NAME            the served model: in /v1/models, in replies\n"
"                              to requests that name none; any other is\n"
"                              404 (default mock)\n"
"      --models NAME[:F],...   more served models (LoRA adapters, as replay\n"
"                              --model-mix drives them): each answered at F\n"
"                              times the ttft and itl (default 1), listed in\n"
"                              /v1/models, its requests counted on /metrics\n"
"      --max-model-len N       context length: prompt + max_tokens above it\n"
"                              is refused with 400 (default 131072)\n"
"      --eos-prob P            per token, the chance that the sequence ends\n"
"                              there (finish_reason stop; ignore_eos: never;\n"
"                              seeded by the request's number; default 0)\n"
"      --prefill-us-per-token US  TTFT grows by US per prompt token not in\n"
"                              the prefix cache (default 0)\n"
"      --prefix-cache-blocks N blocks the prefix cache holds, emptied when\n"
"                              full (default 4096; 0: no cache)\n"
"      --tokens-per-event K    K tokens in each event, itl apart, as with\n"
"                              speculative decoding (default 1)\n"
"      --early-role            send the chat role chunk on arrival, before\n"
"                              the first token, as some servers do\n"
"      --slots N               serve N requests at once, as llama.cpp's\n"
"                              --parallel or vLLM's --max-num-seqs; the\n"
"                              rest wait for a slot, first come first\n"
"                              served, their TTFT growing by the wait\n"
"                              (default 0: no limit)\n"
"      --http-threads N        hold N connections at once, as llama.cpp's\n"
"                              server (one thread of a fixed pool per\n"
"                              connection, from accept to close): later\n"
"                              ones wait, unserved, until one closes;\n"
"                              an idle one is closed after\n"
"                              --keepalive-timeout-ms (default 0: no limit)\n"
"      --keepalive-timeout-ms MS  close a connection idle for MS (default\n"
"                              5000 with --http-threads, else 600000)\n"
"      --timings SHAPE         tell each request's true queue, prefill and\n"
"                              decode times as a server does: llama (a\n"
"                              llama.cpp \"timings\" object on the last chunk\n"
"                              or the body), vllm (a \"metrics\" object, as\n"
"                              --enable-per-request-metrics, with usage) or\n"
"                              sglang (a \"meta_info\" in each choice of a\n"
"                              chat body asked with \"return_meta_info\": true,\n"
"                              as SGLang's --enable-metrics; streamed, such a\n"
"                              request is refused). Messages and Responses\n"
"                              answers carry none, as llama.cpp's\n"
"      --truth FILE            append a JSON line to FILE as each streamed\n"
"                              request ends: its prompt's first word (a\n"
"                              replay's salt), its TTFT and the gaps between\n"
"                              its token events as the mock made them, to\n"
"                              check a client's measurement against\n"
"      --gzip                  gzip replies to clients that accept it (a\n"
"                              compressing server or gateway)\n"
"      --tool-calls N          a chat request that offers tools is answered\n"
"                              with N calls of them (its max_tokens spread\n"
"                              over the calls' id, name and arguments, as\n"
"                              llama.cpp streams them; finish_reason\n"
"                              tool_calls), until --tool-rounds R answers\n"
"                              of calls follow its last user message; then\n"
"                              in text. A tool message whose tool_call_id\n"
"                              answers no call of the assistant message\n"
"                              before it is refused with 400 (default 0:\n"
"                              tools ignored)\n"
"      --tool-rounds R         see --tool-calls (default 1)\n"
"      --noise SPEC            noisy the way real servers are (default: none,\n"
"                              the exact schedule): 'default', or parts\n"
"                              drift=SIGMA[:MIN-MAX] (the host's speed, over\n"
"                              the wall clock, shared by every mock on it),\n"
"                              instance=SIGMA (this server's own offset),\n"
"                              jitter=SIGMA (per request, lognormal),\n"
"                              tail=P:MIN[:SHAPE] (share P of requests with a\n"
"                              ttft longer by a Pareto factor),\n"
"                              stall=RATE:DURATION (no token sent during\n"
"                              one); later parts override. default:\n"
"                              drift=10%:30s-180s,instance=0.3%,jitter=5%,\n"
"                              tail=1%:2:3,stall=1/min:200ms\n"
"      --seed N                seed of the noise's draws and of --eos-prob's\n"
"                              (default 0)\n"
"\n"
"faults (for testing clients):\n"
"      --fail-every N          answer every N-th request with --fail-status\n"
"      --fail-status CODE      HTTP status of those answers (default 500)\n"
"      --reset-after N         reset the connection after N streamed tokens\n"
"      --stall-after N         go silent after N streamed tokens\n"
"      --malformed-after N     send an event that is not JSON after N tokens\n"
"      --no-done               end streams without data: [DONE]\n"
"      --no-final-newline      end streams inside their last event: no line\n"
"                              end after data: [DONE] (or, with --no-done,\n"
"                              after the usage chunk)\n"
"      --big-event-after N     after N streamed tokens, send the next one\n"
"      --big-event-bytes B     as an event of B bytes of data, its text\n"
"                              padded with spaces (default 1048577: one\n"
"                              byte over replay's default cap)\n"
"      --trickle-us US         send streamed body bytes one at a time,\n"
"                              US microseconds apart\n"
"      --close-after-response  send Connection: close and close the\n"
"                              connection after every response\n"
"      --stall-at-ms T         T ms after the first request, hold new\n"
"      --stall-ms D            requests for D ms (a stalled server)\n"
"      --metrics-fault F       GET /metrics misbehaves: slow:MS (answers MS\n"
"                              late), status:CODE (answers CODE), malformed\n"
"                              (garbage lines among the samples)\n"
"      --watts W               /metrics has DCGM's energy counter of one GPU,\n"
"                              DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\"}\n"
"                              in mJ, rising at W watts from the start\n"
"\n"
"  -q, --quiet                 no start-up line on stderr\n"
"  -h, --help                  show this help\n"
"\n"
"examples:\n"
"  tracebench mock\n"
"  tracebench mock --listen 127.0.0.1:0 --port-file mock.port --quiet\n"
"  tracebench mock --profile batching --itl-ms 37 --cold-start-ms 12000\n"
"  tracebench mock --noise default --seed 2\n"
"  tracebench mock --noise jitter=20%,stall=6/min:300ms\n",
	    out);
}

/* Prints "tracebench mock: MSG" (and where to look when see_help) and
 * returns the usage exit status. */
static int usage_error(const char *msg, int see_help)
{
	fprintf(stderr, PROG ": %s%s\n", msg, see_help ? "; see '" PROG " --help'" : "");
	return CLI_EXIT_USAGE;
}

/* An integer in [min, max] into *out. */
static int set_long(const char *arg, long min, long max, long *out)
{
	return cli_parse_long(arg, min, max, out) < 0 ? OPT_BAD : OPT_TAKEN;
}

/* Milliseconds (fractions allowed, 0..1e9) into nanoseconds. */
static int set_ms(const char *arg, int64_t *out_ns)
{
	double ms;

	if (cli_parse_double(arg, 0, 1e9, &ms) < 0)
		return OPT_BAD;
	*out_ns = llround(ms * NS_PER_MS);
	return OPT_TAKEN;
}

/* Where the mock listens and how it answers when nothing goes wrong. */
static int parse_server_option(struct mock_options *o, int c, const char *arg)
{
	switch (c) {
	case 'l':
		return httpserver_parse_listen(arg, o->host, sizeof(o->host), &o->port) < 0 ?
		       OPT_BAD : OPT_TAKEN;
	case O_PORT_FILE: o->port_file = arg; return OPT_TAKEN;
	case O_TTFT: return set_ms(arg, &o->ttft_ns);
	case O_ITL: return set_ms(arg, &o->itl_ns);
	case O_COLD: return set_ms(arg, &o->cold_start_ns);
	case O_TOKENS: return set_long(arg, 1, MOCK_MAX_TOKENS, &o->tokens);
	case O_REASONING: return set_long(arg, 0, MOCK_MAX_TOKENS, &o->reasoning_tokens);
	case O_PROFILE:
		if (strcmp(arg, "none") == 0)
			o->profile = MOCK_PROFILE_NONE;
		else if (strcmp(arg, "batching") == 0)
			o->profile = MOCK_PROFILE_BATCHING;
		else
			return OPT_BAD;
		return OPT_TAKEN;
	case O_SLOPE:
		return cli_parse_double(arg, 0, 1000, &o->slope) < 0 ? OPT_BAD : OPT_TAKEN;
	case O_MODEL:
		o->model = arg;
		return *arg ? OPT_TAKEN : OPT_BAD;
	case 'q': o->quiet = 1; return OPT_TAKEN;
	default: return OPT_NOT_MINE;
	}
}

/* Fidelity: how vLLM answers. */
static int parse_fidelity_option(struct mock_options *o, int c, const char *arg)
{
	double us;

	switch (c) {
	case O_EARLY_ROLE: o->early_role = 1; return OPT_TAKEN;
	case O_SLOTS: return set_long(arg, 0, 1000000, &o->slots);
	case O_HTTP_THREADS: return set_long(arg, 0, 1000000, &o->http_threads);
	case O_KEEPALIVE: return set_long(arg, 1, 3600000, &o->keepalive_ms);
	case O_TIMINGS:
		if (strcmp(arg, "llama") == 0)
			o->timings = MOCK_TIMINGS_LLAMA;
		else if (strcmp(arg, "vllm") == 0)
			o->timings = MOCK_TIMINGS_VLLM;
		else if (strcmp(arg, "sglang") == 0)
			o->timings = MOCK_TIMINGS_SGLANG;
		else
			return OPT_BAD;
		return OPT_TAKEN;
	case O_TRUTH: o->truth = arg; return OPT_TAKEN;
	case O_MAX_MODEL_LEN: return set_long(arg, 2, 2 * MOCK_MAX_TOKENS, &o->max_model_len);
	case O_EOS_PROB:
		return cli_parse_double(arg, 0, 1, &o->eos_prob) < 0 ? OPT_BAD : OPT_TAKEN;
	case O_PREFILL:
		if (cli_parse_double(arg, 0, 1e6, &us) < 0)
			return OPT_BAD;
		o->prefill_ns = llround(us * 1000);
		return OPT_TAKEN;
	case O_CACHE_BLOCKS: return set_long(arg, 0, 1L << 24, &o->cache_blocks);
	case O_PER_EVENT: return set_long(arg, 1, 64, &o->tokens_per_event);
	case O_GZIP: o->gzip = 1; return OPT_TAKEN;
	case O_TOOL_CALLS: return set_long(arg, 0, MOCK_MAX_TOOL_CALLS, &o->tool_calls);
	case O_TOOL_ROUNDS: return set_long(arg, 1, 1000, &o->tool_rounds);
	default: return OPT_NOT_MINE;
	}
}

/* The faults, for testing clients. */
static int parse_fault_option(struct mock_options *o, int c, const char *arg)
{
	long us = 0;

	switch (c) {
	case O_FAIL_EVERY: return set_long(arg, 1, 1000000000L, &o->fail_every);
	case O_FAIL_STATUS: return set_long(arg, 400, 599, &o->fail_status);
	case O_RESET_AFTER: return set_long(arg, 0, MOCK_MAX_TOKENS, &o->reset_after);
	case O_STALL_AFTER: return set_long(arg, 0, MOCK_MAX_TOKENS, &o->stall_after);
	case O_MALFORMED_AFTER: return set_long(arg, 0, MOCK_MAX_TOKENS, &o->malformed_after);
	case O_NO_DONE: o->no_done = 1; return OPT_TAKEN;
	case O_NO_FINAL_NEWLINE: o->no_final_newline = 1; return OPT_TAKEN;
	case O_BIG_AFTER: return set_long(arg, 0, MOCK_MAX_TOKENS, &o->big_event_after);
	case O_BIG_BYTES: return set_long(arg, 1, MOCK_MAX_EVENT, &o->big_event_bytes);
	case O_TRICKLE:
		if (set_long(arg, 1, 1000000, &us) == OPT_BAD)
			return OPT_BAD;
		o->trickle_ns = (int64_t)us * 1000;
		return OPT_TAKEN;
	case O_CLOSE_AFTER: o->close_after = 1; return OPT_TAKEN;
	case O_STALL_AT: return set_ms(arg, &o->stall_at_ns);
	case O_STALL_MS: return set_ms(arg, &o->stall_ns);
	case O_METRICS_FAULT:
		if (!strcmp(arg, "malformed")) {
			o->metrics_fault = METRICS_MALFORMED;
			return OPT_TAKEN;
		}
		if (!strncmp(arg, "slow:", 5)) {
			o->metrics_fault = METRICS_SLOW;
			return set_long(arg + 5, 1, 600000, &o->metrics_fault_arg);
		}
		if (!strncmp(arg, "status:", 7)) {
			o->metrics_fault = METRICS_STATUS;
			return set_long(arg + 7, 100, 599, &o->metrics_fault_arg);
		}
		return OPT_BAD;
	case O_WATTS:
		return cli_parse_double(arg, 0.001, 1e6, &o->watts) < 0 ? OPT_BAD : OPT_TAKEN;
	default: return OPT_NOT_MINE;
	}
}

/* --noise SPEC and --seed N; a bad spec's message names its part. */
static int parse_noise_option(struct mock_options *o, int c, const char *arg, char *msg,
			      size_t len)
{
	char why[CLI_MSGLEN - 32];
	long seed;

	switch (c) {
	case O_NOISE:
		if (noise_spec_parse(&o->noise, arg, why, sizeof(why)) < 0) {
			snprintf(msg, len, "--noise: %s", why);
			return OPT_BAD;
		}
		o->noisy = noise_spec_active(&o->noise);
		return OPT_TAKEN;
	case O_SEED:
		if (set_long(arg, 0, LONG_MAX, &seed) == OPT_BAD)
			return OPT_BAD;
		o->seed = (uint64_t)seed;
		return OPT_TAKEN;
	default: return OPT_NOT_MINE;
	}
}

/* --models NAME[:FACTOR],... (lib/modelmix.h's list, factors for weights). */
static int parse_models(struct mock_options *o, const char *arg, char *msg, size_t len)
{
	char why[200];

	if (modelmix_parse(&o->models, arg, why, sizeof(why)) == 0)
		return 0;
	snprintf(msg, len, "invalid --models: %s", why);
	return -1;
}

/* cli_parse's take(): each group in turn. */
static int take(void *opts, int c, char *arg, char *msg, size_t len)
{
	struct mock_options *o = opts;
	int rc;

	if (c == O_MODELS)
		return parse_models(o, arg, msg, len);
	rc = parse_server_option(o, c, arg);

	if (rc == OPT_NOT_MINE)
		rc = parse_noise_option(o, c, arg, msg, len);
	if (rc == OPT_NOT_MINE)
		rc = parse_fidelity_option(o, c, arg);
	if (rc == OPT_NOT_MINE)
		rc = parse_fault_option(o, c, arg);
	return rc == OPT_TAKEN ? 0 : -1;
}

static const struct cli_command command = { PROG, shortopts, longopts, take };

int mock_options_parse(struct mock_options *o, int argc, char **argv)
{
	char msg[CLI_MSGLEN];
	int rc;

	memset(o, 0, sizeof(*o));
	snprintf(o->host, sizeof(o->host), "127.0.0.1");
	o->port = 8000;
	o->ttft_ns = 50 * NS_PER_MS;
	o->itl_ns = 10 * NS_PER_MS;
	o->tokens = 16;
	o->slope = 0.133;
	o->model = "mock";
	o->fail_status = 500;
	o->reset_after = o->stall_after = o->malformed_after = -1;
	o->big_event_after = -1;
	o->big_event_bytes = MOCK_BIG_EVENT_BYTES;
	o->max_model_len = 131072;
	o->cache_blocks = 4096;
	o->tokens_per_event = 1;
	o->tool_rounds = 1;

	rc = cli_parse(&command, o, argc, argv, msg, sizeof(msg));
	if (rc == CLI_EXIT_OK)
		mock_options_usage(stdout);
	if (rc != CLI_CONTINUE)
		return rc == CLI_EXIT_OK ? rc : usage_error(msg, 0);
	if (optind < argc) {
		snprintf(msg, sizeof(msg), "unexpected argument '%s'", argv[optind]);
		return usage_error(msg, 1);
	}
	return CLI_CONTINUE;
}
