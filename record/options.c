/*
 * options.c - the command lines of `tracebench record synth|import|proxy|
 * info`; see options.h.
 *
 * For each source: its option table, its help text, a take() that stores
 * one option for lib/cli's loop, and the checks once all are read. A value
 * out of range is refused naming its flag.
 */
#include "record/options.h"
#include "lib/cli.h"
#include "lib/httpserver.h"
#include "lib/redact.h"
#include "lib/trace.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define SYNTH_PROG  "tracebench record synth"
#define IMPORT_PROG "tracebench record import"
#define PROXY_PROG  "tracebench record proxy"
#define INFO_PROG   "tracebench record info"

/* The tokenizer options' help, the same for synth and import. */
#define TOKENIZER_HELP \
	"      --tokenizer-url URL   build each prompt to its input length within 1 token\n" \
	"                            as the server's POST /tokenize counts it (vLLM,\n" \
	"                            SGLang, llama.cpp; chat: with its chat template\n" \
	"                            when the server applies one); unreachable: exit 1\n" \
	"      --tokenizer-fallback words\n" \
	"                            if the tokenizer cannot be used, estimate by words\n" \
	"                            and say so in the trace's header\n"

/* Prints "PROG: MESSAGE" and returns the usage exit status. */
static int usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CLI_EXIT_USAGE;
}

/* cli_parse with the help or the error printed. */
static int parse(const struct cli_command *cmd, void (*usage)(FILE *), void *o,
		 int argc, char **argv)
{
	char msg[CLI_MSGLEN];
	int rc = cli_parse(cmd, o, argc, argv, msg, sizeof(msg));

	if (rc == CLI_EXIT_OK)
		usage(stdout);
	else if (rc != CLI_CONTINUE)
		usage_error(cmd->prog, "%s", msg);
	return rc;
}

/* 0 or -1 of a value parser as take()'s result. */
static int ok(int parse_rc)
{
	return parse_rc < 0 ? -1 : 0;
}

/* --seed N, 0 to 2^31-1. */
static int parse_seed(const char *arg, uint64_t *seed)
{
	long v;

	if (cli_parse_long(arg, 0, 0x7fffffffL, &v) < 0)
		return -1;
	*seed = (uint64_t)v;
	return 0;
}

/* ---- record synth -------------------------------------------------------- */

/* --tokenizer-fallback: "words" is the one fallback there is. */
static int parse_fallback(const char *arg, struct tokfit_options *t)
{
	t->fallback_words = 1;
	return strcmp(arg, "words") == 0 ? 0 : -1;
}

static void synth_usage(FILE *out)
{
	fprintf(out,
		"usage: tracebench record synth [options] -o TRACE\n"
		"\n"
		"Write a trace of N generated requests (one prompt word ~ one token).\n"
		"\n"
		"options:\n"
		"  -n, --requests N          requests in the trace (default 64)\n"
		"      --input-tokens LEN    prompt length in words (default 512)\n"
		"      --output-tokens LEN   max_tokens of each request (default 500)\n"
		"                            LEN: N, uniform:A:B, normal:MU:SD or lognormal:MU:SD\n"
		"                            (mean and sd of the lengths), clamped to >= 1\n"
		"      --rate R              arrival offsets at R requests/s (default: all at 0)\n"
		"      --arrival KIND        constant (default), poisson or gamma\n"
		"      --burstiness B        gamma shape: 1 Poisson, < 1 burstier, > 1 steadier\n"
		"      --turns T             sessions of T turns; each turn resends the\n"
		"                            conversation so far as a prefix (default 1)\n"
		"      --think-time MS       pause before each later turn, in milliseconds:\n"
		"                            a LEN spec as above, or 0 (default 0)\n"
		"      --model NAME          model field of each request (default mock)\n"
		"      --endpoint-kind K     chat (/v1/chat/completions, default), completions,\n"
		"                            messages (Anthropic's /v1/messages) or responses\n"
		"                            (/v1/responses)\n"
		"      --seed N              generator seed; same seed, same bytes (default 1)\n"
		TOKENIZER_HELP
		"  -o, --output FILE         trace file to write (.jsonl.gz)\n"
		"  -f, --force               replace FILE if it exists\n"
		"  -h, --help                show this help\n"
		"\n"
		"examples:\n"
		"  tracebench record synth -n 64 --input-tokens 512 --output-tokens 500 -o trace.jsonl.gz\n"
		"  tracebench record synth -n 8 --endpoint-kind completions --model llama -o small.jsonl.gz\n"
		"  tracebench record synth -n 1000 --input-tokens lognormal:800:400 \\\n"
		"      --output-tokens uniform:50:300 --rate 4 --arrival poisson -o open.jsonl.gz\n"
		"  tracebench record synth -n 40 --turns 4 --input-tokens 100 -o chat4.jsonl.gz\n"
		"  tracebench record synth -n 30 --turns 3 --think-time uniform:500:3000 -o chat.jsonl.gz\n");
}

static const struct option synth_longopts[] = {
	{ "requests", required_argument, NULL, 'n' },
	{ "input-tokens", required_argument, NULL, 'I' },
	{ "output-tokens", required_argument, NULL, 'O' },
	{ "rate", required_argument, NULL, 'r' },
	{ "arrival", required_argument, NULL, 'a' },
	{ "burstiness", required_argument, NULL, 'b' },
	{ "turns", required_argument, NULL, 't' },
	{ "think-time", required_argument, NULL, 'T' },
	{ "model", required_argument, NULL, 'm' },
	{ "endpoint-kind", required_argument, NULL, 'k' },
	{ "seed", required_argument, NULL, 's' },
	{ "tokenizer-url", required_argument, NULL, 'U' },
	{ "tokenizer-fallback", required_argument, NULL, 'F' },
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int synth_take(void *opts, int c, char *arg, char *msg, size_t len)
{
	struct record_synth_options *o = opts;
	struct synth_options *so = &o->synth;

	(void)msg;
	(void)len;
	switch (c) {
	case 'n': return ok(cli_parse_long(arg, 1, 100000000, &so->requests));
	case 'I': so->input_spec = arg; return ok(dist_parse(arg, &so->input));
	case 'O': so->output_spec = arg; return ok(dist_parse(arg, &so->output));
	case 'r': return ok(cli_parse_double(arg, 1e-6, 1e6, &so->rate));
	case 'a': o->arrival_given = 1; return arrival_parse(arg, &so->arrival);
	case 'b':
		o->burstiness_given = 1;
		return ok(cli_parse_double(arg, 1e-3, 1e3, &so->burstiness));
	case 't': return ok(cli_parse_long(arg, 1, 1000, &so->turns));
	case 'T':
		o->think_given = 1;
		so->think_spec = strcmp(arg, "0") ? arg : NULL;
		return so->think_spec ? ok(dist_parse(arg, &so->think)) : 0;
	case 'm': so->model = arg; return 0;
	case 'k': return record_api_parse(arg, &so->api);
	case 's': return parse_seed(arg, &so->seed);
	case 'U': so->tok.url = arg; return 0;
	case 'F': return parse_fallback(arg, &so->tok);
	case 'o': o->output = arg; return 0;
	case 'f': o->force = 1; return 0;
	default: return -1;
	}
}

int record_options_synth(struct record_synth_options *o, int argc, char **argv)
{
	static const struct cli_command cmd = { SYNTH_PROG, ":n:o:fh", synth_longopts, synth_take };
	int rc;

	memset(o, 0, sizeof(*o));
	synth_options_init(&o->synth);
	if ((rc = parse(&cmd, synth_usage, o, argc, argv)) != CLI_CONTINUE)
		return rc;
	if (optind < argc)
		return usage_error(SYNTH_PROG, "unexpected argument '%s'", argv[optind]);
	if (o->arrival_given && o->synth.rate <= 0)
		return usage_error(SYNTH_PROG, "--arrival needs --rate R");
	if (o->burstiness_given && o->synth.arrival != ARRIVAL_GAMMA)
		return usage_error(SYNTH_PROG, "--burstiness needs --arrival gamma");
	if (o->think_given && o->synth.turns <= 1)
		return usage_error(SYNTH_PROG, "--think-time needs --turns T (T > 1)");
	if (!o->output)
		return usage_error(SYNTH_PROG, "no output file; give -o TRACE");
	if (o->synth.tok.fallback_words && !o->synth.tok.url)
		return usage_error(SYNTH_PROG, "--tokenizer-fallback needs --tokenizer-url URL");
	return CLI_CONTINUE;
}

/* ---- record import ------------------------------------------------------- */

static void import_usage(FILE *out)
{
	fprintf(out,
		"usage: tracebench record import --format FORMAT [options] FILE -o TRACE\n"
		"\n"
		"Turn a published production trace into a tracebench trace, keeping its\n"
		"arrival times and token lengths. Prompts are synthesized to the recorded\n"
		"input length (one word ~ one token, an approximation); Mooncake rows that\n"
		"share hash_ids share the text of those 512-word blocks. ShareGPT keeps every\n"
		"turn of a conversation, as a session: turn k sends the turns before it (the\n"
		"answers are replaced by the server's own at replay) and human turn k, with\n"
		"answer k's length in words as max_tokens.\n"
		"\n"
		"formats:\n"
		"  mooncake   JSON Lines: timestamp (ms), input_length, output_length, hash_ids\n"
		"  azure      Azure LLM inference CSV: TIMESTAMP, ContextTokens, GeneratedTokens\n"
		"  burstgpt   BurstGPT CSV (6 or 8 columns): Timestamp (s), Request tokens,\n"
		"             Response tokens; rows with 0 response tokens are skipped\n"
		"  sharegpt   JSON array of {\"conversations\": [{\"from\": \"human\", ...}, ...]}\n"
		"\n"
		"options:\n"
		"      --format FORMAT       the input's format (required)\n"
		"      --model NAME          model field of each request (default mock)\n"
		"      --endpoint-kind K     chat (/v1/chat/completions, default), completions,\n"
		"                            messages (Anthropic's /v1/messages) or responses\n"
		"                            (/v1/responses)\n"
		"      --ignore-eos          add \"ignore_eos\": true, so servers generate max_tokens\n"
		"      --limit N             keep the first N requests (after --time-window)\n"
		"      --time-window A-B     keep rows from A to B seconds after the first row\n"
		"                            (B may be left out); offsets restart at the first kept\n"
		"      --seed N              seed of the prompt words (default 1)\n"
		TOKENIZER_HELP
		"      --sessions prefix     mooncake: a row whose hash_ids begin with all of an\n"
		"                            earlier row's (two blocks or more) is that row's\n"
		"                            next turn, its think time the gap between their\n"
		"                            arrivals\n"
		"  -o, --output FILE         trace file to write (.jsonl.gz)\n"
		"  -f, --force               replace FILE if it exists\n"
		"  -h, --help                show this help\n"
		"\n"
		"Bad rows are reported with their line number, skipped and counted; an input\n"
		"without a valid row is an error (exit 2).\n"
		"\n"
		"examples:\n"
		"  tracebench record import --format mooncake mooncake_trace.jsonl -o mooncake.jsonl.gz\n"
		"  tracebench record import --format azure --time-window 0-600 --ignore-eos \\\n"
		"      AzureLLMInferenceTrace_conv.csv -o azure-10min.jsonl.gz\n"
		"  tracebench record import --format burstgpt --limit 1000 BurstGPT_1.csv -o burst.jsonl.gz\n"
		"  tracebench record import --format sharegpt --endpoint-kind chat sharegpt.json -o sg.jsonl.gz\n");
}

enum { IMPORT_OPT_FORMAT = 256, IMPORT_OPT_MODEL, IMPORT_OPT_KIND, IMPORT_OPT_IGNORE_EOS,
       IMPORT_OPT_LIMIT, IMPORT_OPT_WINDOW, IMPORT_OPT_SEED, IMPORT_OPT_SESSIONS,
       IMPORT_OPT_TOKENIZER, IMPORT_OPT_FALLBACK };

static const struct option import_longopts[] = {
	{ "format", required_argument, NULL, IMPORT_OPT_FORMAT },
	{ "model", required_argument, NULL, IMPORT_OPT_MODEL },
	{ "endpoint-kind", required_argument, NULL, IMPORT_OPT_KIND },
	{ "ignore-eos", no_argument, NULL, IMPORT_OPT_IGNORE_EOS },
	{ "limit", required_argument, NULL, IMPORT_OPT_LIMIT },
	{ "time-window", required_argument, NULL, IMPORT_OPT_WINDOW },
	{ "seed", required_argument, NULL, IMPORT_OPT_SEED },
	{ "sessions", required_argument, NULL, IMPORT_OPT_SESSIONS },
	{ "tokenizer-url", required_argument, NULL, IMPORT_OPT_TOKENIZER },
	{ "tokenizer-fallback", required_argument, NULL, IMPORT_OPT_FALLBACK },
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* "A-B" or "A-" in seconds. Returns 0 or -1. */
static int parse_window(const char *s, double *start, double *end)
{
	const char *dash = strchr(s, '-');
	char a[64];

	if (!dash || dash == s || (size_t)(dash - s) >= sizeof(a))
		return -1;
	memcpy(a, s, (size_t)(dash - s));
	a[dash - s] = '\0';
	if (cli_parse_double(a, 0, 1e12, start) < 0)
		return -1;
	if (dash[1] == '\0') {
		*end = INFINITY;
		return 0;
	}
	return cli_parse_double(dash + 1, 0, 1e12, end) < 0 || *end <= *start ? -1 : 0;
}

static int import_take(void *opts, int c, char *arg, char *msg, size_t len)
{
	struct record_import_options *o = opts;

	(void)msg;
	(void)len;
	switch (c) {
	case IMPORT_OPT_FORMAT: return import_format_parse(arg, &o->format);
	case IMPORT_OPT_MODEL: o->model = arg; return 0;
	case IMPORT_OPT_KIND: return record_api_parse(arg, &o->api);
	case IMPORT_OPT_IGNORE_EOS: o->ignore_eos = 1; return 0;
	case IMPORT_OPT_LIMIT: return ok(cli_parse_long(arg, 1, 1000000000L, &o->limit));
	case IMPORT_OPT_WINDOW: o->window = arg; return parse_window(arg, &o->win_start, &o->win_end);
	case IMPORT_OPT_SEED: return parse_seed(arg, &o->seed);
	case IMPORT_OPT_SESSIONS:
		o->session_prefix = 1;
		return strcmp(arg, "prefix") == 0 ? 0 : -1;
	case IMPORT_OPT_TOKENIZER: o->tok.url = arg; return 0;
	case IMPORT_OPT_FALLBACK: return parse_fallback(arg, &o->tok);
	case 'o': o->output = arg; return 0;
	case 'f': o->force = 1; return 0;
	default: return -1;
	}
}

int record_options_import(struct record_import_options *o, int argc, char **argv)
{
	static const struct cli_command cmd = { IMPORT_PROG, ":o:fh", import_longopts, import_take };
	int rc;

	memset(o, 0, sizeof(*o));
	o->format = (enum import_format)-1;
	o->model = "mock";
	o->seed = 1;
	o->win_end = INFINITY;
	if ((rc = parse(&cmd, import_usage, o, argc, argv)) != CLI_CONTINUE)
		return rc;
	if ((int)o->format < 0)
		return usage_error(IMPORT_PROG, "no input format; give --format "
				   "mooncake|azure|burstgpt|sharegpt");
	if (optind + 1 != argc)
		return usage_error(IMPORT_PROG, "%s", optind == argc ? "no input file; give FILE"
				   : "give exactly one input FILE");
	if (!o->output)
		return usage_error(IMPORT_PROG, "no output file; give -o TRACE");
	if (o->tok.fallback_words && !o->tok.url)
		return usage_error(IMPORT_PROG, "--tokenizer-fallback needs --tokenizer-url URL");
	if (o->session_prefix && o->format != IMPORT_MOONCAKE)
		return usage_error(IMPORT_PROG, "--sessions prefix needs --format mooncake (its "
				   "hash_ids); %s rows carry no prefix to group by",
				   import_format_name(o->format));
	o->input = argv[optind];
	return CLI_CONTINUE;
}

/* ---- record proxy -------------------------------------------------------- */

static void proxy_usage(FILE *out)
{
	fputs(
"usage: tracebench record proxy --upstream URL [options] -o TRACE\n"
"\n"
"Listen as a reverse proxy in front of an OpenAI-compatible endpoint and\n"
"record the traffic. Every request is forwarded unchanged (hop-by-hop headers\n"
"excepted) and its response comes back unchanged, SSE bytes passed on as they\n"
"arrive. Each request is appended to TRACE with its arrival time and the\n"
"upstream's timing and outcome (TTFT, TTFA, gaps, E2E, tokens, status).\n"
"Authorization, API-key and cookie headers are forwarded but never recorded.\n"
"Other headers and query parameters keep their values only when their names\n"
"are known to be harmless (Content-Type, Accept, User-Agent, X-Stainless-*;\n"
"api-version, limit, order, after, before) or named by --keep-header or\n"
"--keep-query; the rest are recorded as 'REDACTED'.\n"
"\n"
"options:\n"
"  -u, --upstream URL          endpoint to forward to (http://host:port[/prefix])\n"
"  -l, --listen HOST:PORT      address to listen on (default 127.0.0.1:8080;\n"
"                              0.0.0.0:PORT to accept other hosts; port 0\n"
"                              picks a free port)\n"
"  -o, --output FILE           trace file to write (.jsonl.gz)\n"
"  -f, --force                 replace FILE if it exists\n"
"      --keep-header NAME      record header NAME with its value (repeatable;\n"
"                              never Authorization, API keys or cookies)\n"
"      --keep-query NAME       record query parameter NAME with its value\n"
"                              (repeatable)\n"
"      --session-header NAME   requests with the same value of header NAME are\n"
"                              turns of one session, numbered as they end,\n"
"                              each with the think time since the turn before\n"
"                              ended (the value itself is not recorded unless\n"
"                              --keep-header names it)\n"
"      --sessions prefix       a chat request whose messages begin with an\n"
"                              earlier one's messages and an answer (its\n"
"                              last assistant message) is that one's next\n"
"                              turn, with the think time since it ended\n"
"      --max-requests N        stop after N requests (they finish first)\n"
"      --max-request-bytes N   refuse request bodies over N bytes with 413\n"
"                              (default 33554432)\n"
"      --duration S            stop accepting after S seconds\n"
"      --grace S               on SIGINT/SIGTERM or --duration, let open\n"
"                              requests finish for S seconds (default 10);\n"
"                              a second signal ends them at once\n"
"      --timeout S             whole upstream request, seconds (default 600; 0 none)\n"
"      --connect-timeout S     upstream connect, seconds (default 10)\n"
"  -k, --insecure              accept an https upstream whose certificate\n"
"                              does not verify (self-signed, wrong host)\n"
"      --port-file FILE        write the bound port to FILE once listening\n"
"      --progress              status line on stderr even when not a terminal\n"
"  -q, --quiet                 no status line\n"
"  -h, --help                  show this help\n"
"\n"
"Upstream refused or timed out: the client gets 502 or 504 with a JSON error\n"
"({\"error\":{\"type\":\"proxy_error\",...}}) and the trace records it.\n"
"\n"
"examples:\n"
"  tracebench record proxy --upstream http://127.0.0.1:8000 -o prod.jsonl.gz\n"
"  OPENAI_BASE_URL=http://127.0.0.1:8080/v1 python app.py    # then Ctrl-C the proxy\n"
"  tracebench record proxy -u http://gpu1:8000 --listen 0.0.0.0:8080 \\\n"
"      --duration 3600 --keep-header X-Session-Kind -o hour.jsonl.gz\n"
"  tracebench record proxy -u http://gpu1:8000 --session-header X-Session-ID -o chat.jsonl.gz\n"
"  tracebench record proxy -u http://gpu1:8000 --sessions prefix -o agent.jsonl.gz\n",
	    out);
}

enum { PROXY_OPT_KEEP = 256, PROXY_OPT_KEEP_QUERY, PROXY_OPT_MAX, PROXY_OPT_DURATION, PROXY_OPT_GRACE,
       PROXY_OPT_TIMEOUT, PROXY_OPT_CONNECT, PROXY_OPT_PORT_FILE, PROXY_OPT_PROGRESS,
       PROXY_OPT_MAX_BODY, PROXY_OPT_SESSION, PROXY_OPT_SESSIONS };

static const struct option proxy_longopts[] = {
	{ "upstream", required_argument, NULL, 'u' },
	{ "listen", required_argument, NULL, 'l' },
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, 'f' },
	{ "keep-header", required_argument, NULL, PROXY_OPT_KEEP },
	{ "keep-query", required_argument, NULL, PROXY_OPT_KEEP_QUERY },
	{ "max-requests", required_argument, NULL, PROXY_OPT_MAX },
	{ "duration", required_argument, NULL, PROXY_OPT_DURATION },
	{ "grace", required_argument, NULL, PROXY_OPT_GRACE },
	{ "timeout", required_argument, NULL, PROXY_OPT_TIMEOUT },
	{ "connect-timeout", required_argument, NULL, PROXY_OPT_CONNECT },
	{ "insecure", no_argument, NULL, 'k' },
	{ "port-file", required_argument, NULL, PROXY_OPT_PORT_FILE },
	{ "progress", no_argument, NULL, PROXY_OPT_PROGRESS },
	{ "max-request-bytes", required_argument, NULL, PROXY_OPT_MAX_BODY },
	{ "session-header", required_argument, NULL, PROXY_OPT_SESSION },
	{ "sessions", required_argument, NULL, PROXY_OPT_SESSIONS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* --keep-header NAME: never one that carries secrets. */
static int proxy_keep(struct proxy_options *o, const char *arg, char *msg, size_t len)
{
	if (redact_header_is_secret(arg, strlen(arg))) {
		snprintf(msg, len, "'%s' carries secrets; it is never recorded", arg);
		return -1;
	}
	if (o->n_keep == PROXY_MAX_KEEP || !*arg)
		return -1;
	o->keep[o->n_keep++] = arg;
	return 0;
}

/* --keep-query NAME */
static int proxy_keep_query(struct proxy_options *o, const char *arg)
{
	if (o->n_keep_query == PROXY_MAX_KEEP || !*arg)
		return -1;
	o->keep_query[o->n_keep_query++] = arg;
	return 0;
}

static int proxy_take(void *opts, int c, char *arg, char *msg, size_t len)
{
	struct proxy_options *o = opts;

	switch (c) {
	case 'u': o->upstream = arg; return 0;
	case 'l': return ok(httpserver_parse_listen(arg, o->host, sizeof(o->host), &o->port));
	case 'o': o->output = arg; return 0;
	case 'f': o->force = 1; return 0;
	case PROXY_OPT_KEEP: return proxy_keep(o, arg, msg, len);
	case PROXY_OPT_KEEP_QUERY: return proxy_keep_query(o, arg);
	case PROXY_OPT_MAX: return ok(cli_parse_long(arg, 1, 1000000000L, &o->max_requests));
	case PROXY_OPT_DURATION: return ok(cli_parse_double(arg, 0.001, 1e8, &o->duration_s));
	case PROXY_OPT_GRACE: return ok(cli_parse_long(arg, 0, 86400, &o->grace_s));
	case PROXY_OPT_TIMEOUT: return ok(cli_parse_long(arg, 0, 86400, &o->timeout_s));
	case PROXY_OPT_CONNECT: return ok(cli_parse_long(arg, 1, 3600, &o->connect_timeout_s));
	case 'k': o->insecure = 1; return 0;
	case PROXY_OPT_PORT_FILE: o->port_file = arg; return 0;
	case PROXY_OPT_MAX_BODY: return ok(cli_parse_long(arg, 1024, 1L << 40, &o->max_body));
	case PROXY_OPT_PROGRESS: o->progress = 1; return 0;
	case PROXY_OPT_SESSION:
		o->session_header = arg;
		return trace_check_header_name(arg);
	case PROXY_OPT_SESSIONS:
		o->session_prefix = 1;
		return strcmp(arg, "prefix") == 0 ? 0 : -1;
	case 'q': o->progress = 0; return 0;
	default: return -1;
	}
}

int record_options_proxy(struct proxy_options *o, int argc, char **argv)
{
	static const struct cli_command cmd = { PROXY_PROG, ":u:l:o:fkqh", proxy_longopts, proxy_take };
	int rc;

	memset(o, 0, sizeof(*o));
	snprintf(o->host, sizeof(o->host), "127.0.0.1");
	o->port = 8080;
	o->grace_s = 10;
	o->timeout_s = 600;
	o->connect_timeout_s = 10;
	o->max_body = PROXY_MAX_BODY;
	o->progress = -1;
	if ((rc = parse(&cmd, proxy_usage, o, argc, argv)) != CLI_CONTINUE)
		return rc;
	if (optind < argc)
		return usage_error(PROXY_PROG, "unexpected argument '%s'", argv[optind]);
	if (!o->upstream)
		return usage_error(PROXY_PROG, "no upstream; give --upstream URL");
	if (!o->output)
		return usage_error(PROXY_PROG, "no output file; give -o TRACE");
	if (o->session_header && o->session_prefix)
		return usage_error(PROXY_PROG, "--session-header and --sessions prefix group "
				   "requests two ways; give one");
	return CLI_CONTINUE;
}

/* ---- record info --------------------------------------------------------- */

static void info_usage(FILE *out)
{
	fprintf(out,
		"usage: tracebench record info [options] TRACE\n"
		"\n"
		"Describe a trace before replaying it: requests, time span, mean rate,\n"
		"input and output length percentiles, endpoints, models and prefix sharing\n"
		"(blocks of prompt words that repeat an earlier request's prefix).\n"
		"\n"
		"options:\n"
		"      --block-words N   prefix block size in words (default 16, the block\n"
		"                        of vLLM's prefix cache and of the mock's; 512 is\n"
		"                        Mooncake's hash_ids block)\n"
		"  -h, --help            show this help\n"
		"\n"
		"examples:\n"
		"  tracebench record info trace.jsonl.gz\n"
		"  tracebench record info --block-words 512 mooncake.jsonl.gz\n");
}

static const struct option info_longopts[] = {
	{ "block-words", required_argument, NULL, 'b' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int info_take(void *opts, int c, char *arg, char *msg, size_t len)
{
	struct record_info_options *o = opts;

	(void)msg;
	(void)len;
	return c == 'b' ? ok(cli_parse_long(arg, 1, 1000000, &o->block_words)) : -1;
}

int record_options_info(struct record_info_options *o, int argc, char **argv)
{
	static const struct cli_command cmd = { INFO_PROG, ":h", info_longopts, info_take };
	int rc;

	memset(o, 0, sizeof(*o));
	/* A block a server caches: with blocks longer than a prompt, a session
	 * trace of short turns, each repeating its history, showed 0% sharing. */
	o->block_words = 16;
	if ((rc = parse(&cmd, info_usage, o, argc, argv)) != CLI_CONTINUE)
		return rc;
	if (optind + 1 != argc)
		return usage_error(INFO_PROG, "%s", optind == argc ? "no trace; give TRACE"
				   : "give exactly one TRACE");
	o->trace = argv[optind];
	return CLI_CONTINUE;
}
