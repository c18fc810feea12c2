/*
 * synth.c - generated traces: N requests with a fixed prompt length and
 * output length, enough to reproduce a "500 tokens per request at
 * C=1,2,4,8,16" benchmark without capturing anything.
 *
 * Prompts are words drawn from a small vocabulary by a seeded generator;
 * one word stands for about one token (an approximation: real tokenizers
 * differ by model). The header carries no timestamp, so the same options
 * give byte-identical files.
 */
#include "synth.h"
#include "lib/cli.h"
#include "lib/trace.h"
#include "lib/tracefile.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const vocabulary[] = {
	"the", "model", "server", "token", "latency", "request", "batch", "queue",
	"stream", "answer", "cache", "prefix", "memory", "kernel", "schedule", "time",
	"first", "second", "output", "input", "measure", "compare", "tail", "load",
};

/* splitmix64: small, fast, and the same sequence on every platform. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A prompt of n words; the caller frees it. */
static char *make_prompt(long n, uint64_t *state)
{
	size_t nv = sizeof(vocabulary) / sizeof(vocabulary[0]);
	size_t cap = (size_t)n * 10 + 1, len = 0;
	char *p = malloc(cap);
	long i;

	if (!p)
		return NULL;
	for (i = 0; i < n; i++) {
		const char *w = vocabulary[next_random(state) % nv];
		size_t wl = strlen(w);

		if (len + wl + 2 > cap)
			break;
		if (i)
			p[len++] = ' ';
		memcpy(p + len, w, wl);
		len += wl;
	}
	p[len] = '\0';
	return p;
}

/* The request body a client of the given kind would send. */
static char *make_body(const struct synth_options *o, const char *prompt)
{
	cJSON *body = cJSON_CreateObject();
	char *text;

	cJSON_AddStringToObject(body, "model", o->model);
	if (o->completions) {
		cJSON_AddStringToObject(body, "prompt", prompt);
	} else {
		cJSON *msgs = cJSON_AddArrayToObject(body, "messages");
		cJSON *m = cJSON_CreateObject();

		cJSON_AddStringToObject(m, "role", "user");
		cJSON_AddStringToObject(m, "content", prompt);
		cJSON_AddItemToArray(msgs, m);
	}
	cJSON_AddNumberToObject(body, "max_tokens", (double)o->output_tokens);
	cJSON_AddBoolToObject(body, "stream", 1);
	text = cJSON_PrintUnformatted(body);
	cJSON_Delete(body);
	return text;
}

int synth_write(const struct synth_options *o, const char *path, int force, char *err)
{
	static char content_type[] = "Content-Type: application/json";
	static char method[] = "POST";
	static char chat_path[] = "/v1/chat/completions";
	static char completions_path[] = "/v1/completions";
	char *headers[] = { content_type };
	struct tracefile_writer *w;
	cJSON *header, *source;
	uint64_t state = o->seed;
	int rc = -1;
	long i;

	header = cJSON_CreateObject();
	cJSON_AddStringToObject(header, "tool", "tracebench " TB_VERSION);
	source = cJSON_AddObjectToObject(header, "source");
	cJSON_AddStringToObject(source, "kind", "synth");
	cJSON_AddNumberToObject(source, "seed", (double)o->seed);
	cJSON_AddNumberToObject(source, "requests", (double)o->requests);
	cJSON_AddNumberToObject(source, "input_tokens", (double)o->input_tokens);
	cJSON_AddNumberToObject(source, "output_tokens", (double)o->output_tokens);
	cJSON_AddStringToObject(source, "model", o->model);
	cJSON_AddStringToObject(source, "endpoint_kind", o->completions ? "completions" : "chat");
	w = tracefile_writer_open(path, TRACEFILE_KIND_TRACE, header, force, err);
	cJSON_Delete(header);
	if (!w)
		return -1;

	for (i = 0; i < o->requests; i++) {
		struct trace_request t;
		char *prompt = make_prompt(o->input_tokens, &state);
		cJSON *rec;

		trace_request_init(&t);
		t.id = i;
		t.method = method;
		t.path = o->completions ? completions_path : chat_path;
		t.headers = headers;
		t.n_headers = 1;
		t.body = prompt ? make_body(o, prompt) : NULL;
		t.input_tokens = o->input_tokens;
		t.output_tokens = o->output_tokens;
		rec = t.body ? trace_request_to_json(&t) : NULL;
		if (!rec) {
			snprintf(err, TRACEFILE_ERRLEN, "cannot write '%s': out of memory", path);
		} else if (tracefile_writer_append(w, rec) < 0) {
			snprintf(err, TRACEFILE_ERRLEN, "%s", tracefile_writer_error(w));
		}
		cJSON_Delete(rec);
		cJSON_free(t.body);
		free(prompt);
		if (!rec || err[0])
			goto cleanup;
	}
	rc = 0;
cleanup:
	if (tracefile_writer_close(w, rc == 0 ? err : NULL) < 0)
		rc = -1;
	return rc;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: tracebench record synth [options] -o TRACE\n"
		"\n"
		"Write a trace of N generated requests (one prompt word ~ one token).\n"
		"\n"
		"options:\n"
		"  -n, --requests N        requests in the trace (default 64)\n"
		"      --input-tokens N    prompt length in words (default 512)\n"
		"      --output-tokens N   max_tokens of each request (default 500)\n"
		"      --model NAME        model field of each request (default mock)\n"
		"      --endpoint-kind K   chat (/v1/chat/completions, default) or completions\n"
		"      --seed N            generator seed; same seed, same bytes (default 1)\n"
		"  -o, --output FILE       trace file to write (.jsonl.gz)\n"
		"  -f, --force             replace FILE if it exists\n"
		"  -h, --help              show this help\n"
		"\n"
		"examples:\n"
		"  tracebench record synth -n 64 --input-tokens 512 --output-tokens 500 -o trace.jsonl.gz\n"
		"  tracebench record synth -n 8 --endpoint-kind completions --model llama -o small.jsonl.gz\n");
}

static int bad_value(const char *option, const char *value)
{
	fprintf(stderr, "tracebench record synth: invalid value '%s' for --%s\n", value, option);
	return 2;
}

int synth_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "requests", required_argument, NULL, 'n' },
		{ "input-tokens", required_argument, NULL, 'I' },
		{ "output-tokens", required_argument, NULL, 'O' },
		{ "model", required_argument, NULL, 'm' },
		{ "endpoint-kind", required_argument, NULL, 'k' },
		{ "seed", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct synth_options o = {
		.requests = 64, .input_tokens = 512, .output_tokens = 500,
		.model = "mock", .seed = 1,
	};
	const char *path = NULL;
	char err[TRACEFILE_ERRLEN] = "";
	long v;
	int c, force = 0;

	optind = 0;
	while ((c = getopt_long(argc, argv, "n:o:fh", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (cli_parse_long(optarg, 1, 100000000, &o.requests) < 0)
				return bad_value("requests", optarg);
			break;
		case 'I':
			if (cli_parse_long(optarg, 1, 10000000, &o.input_tokens) < 0)
				return bad_value("input-tokens", optarg);
			break;
		case 'O':
			if (cli_parse_long(optarg, 1, 10000000, &o.output_tokens) < 0)
				return bad_value("output-tokens", optarg);
			break;
		case 'm':
			o.model = optarg;
			break;
		case 'k':
			if (strcmp(optarg, "chat") && strcmp(optarg, "completions"))
				return bad_value("endpoint-kind", optarg);
			o.completions = strcmp(optarg, "completions") == 0;
			break;
		case 's':
			if (cli_parse_long(optarg, 0, 0x7fffffffL, &v) < 0)
				return bad_value("seed", optarg);
			o.seed = (uint64_t)v;
			break;
		case 'o':
			path = optarg;
			break;
		case 'f':
			force = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "see 'tracebench record synth --help'\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tracebench record synth: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!path) {
		fprintf(stderr, "tracebench record synth: no output file; give -o TRACE\n");
		return 2;
	}
	if (synth_write(&o, path, force, err) < 0) {
		fprintf(stderr, "tracebench record synth: %s\n", err);
		return 2;
	}
	fprintf(stderr, "tracebench record synth: wrote %ld requests to '%s'\n", o.requests, path);
	return 0;
}
