/*
 * replay.c - `tracebench replay`: re-issue a trace against an endpoint at
 * fixed concurrency levels and write one result per request.
 *
 * Closed loop: at level C, C requests are in flight at all times until the
 * level's N are done; a request is issued the moment another finishes.
 * Warm-up requests go first, one at a time, and are recorded with
 * "warmup": true so analyze can show the cold start apart. Each level ends
 * with a row of the sweep table on stdout (lib/summary.c); results stream
 * to the results file as requests finish (lib/tracefile.c), so an
 * interrupted run keeps what it measured.
 */
#include "replay.h"
#include "client.h"
#include "lib/cli.h"
#include "lib/clock.h"
#include "lib/summary.h"
#include "lib/trace.h"
#include "lib/tracefile.h"

#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#define MAX_LEVELS 64

struct options {
	const char *endpoint;
	long levels[MAX_LEVELS];
	int n_levels;
	long requests;            /* per level; 0 = max(4, 2C) */
	long warmup;
	const char *label;
	const char *output;
	const char *trace_path;
	int force;
	long timeout_s;
	long connect_timeout_s;
	const char *api_key_env;
	int progress;             /* 1 on, 0 off, -1 when stderr is a terminal */
	enum summary_format format;
};

/* A trace request made ready to send: the body as it goes on the wire. */
struct prepared {
	struct trace_request req;
	char *body;               /* the trace's body, with include_usage added */
	size_t body_len;
};

/* The state of the level being run; the done callback drives it. */
struct level_run {
	struct client *client;
	struct tracefile_writer *out;
	const struct prepared *reqs;
	size_t n_reqs;
	size_t *cursor;           /* next trace request, shared across levels */
	long *seq;                /* next sequence number, shared across levels */
	int64_t origin_ns;
	int level;
	struct result *results;   /* warmup + n of them */
	size_t warmup, n;
	size_t issued, finished, in_flight;
	int write_failed;
	int64_t level_start_ns;
	int show_progress;
};

static volatile sig_atomic_t stop_signal;   /* first signal seen, 0 if none */
static int signals_seen;

static void usage(FILE *out)
{
	fprintf(out,
		"usage: tracebench replay --endpoint URL [options] -o RESULTS TRACE\n"
		"\n"
		"Re-issue TRACE against an OpenAI-compatible endpoint at each concurrency\n"
		"level and record TTFT, TTFA, inter-token gaps, E2E and tokens per request.\n"
		"\n"
		"options:\n"
		"  -e, --endpoint URL        base URL of the server, e.g. http://127.0.0.1:8000\n"
		"  -c, --concurrency LIST    levels, e.g. 1,2,4,8,16 (default 1)\n"
		"  -n, --requests N          requests per level (default max(4, 2*C))\n"
		"      --warmup N            warm-up requests sent first, one at a time (default 1)\n"
		"  -l, --label LABEL         name of the run (default run-YYYYmmdd-HHMMSS)\n"
		"  -o, --output FILE         results file to write (.jsonl.gz)\n"
		"  -f, --force               replace FILE if it exists\n"
		"      --timeout SECONDS     limit per request (default 600)\n"
		"      --connect-timeout S   limit per connection attempt (default 10)\n"
		"      --api-key-env NAME    take the API key from $NAME (default OPENAI_API_KEY)\n"
		"      --format FMT          table on stdout: text (default), markdown, csv, json\n"
		"      --progress            progress line on stderr even when not a terminal\n"
		"  -q, --quiet               no progress line\n"
		"  -h, --help                show this help\n"
		"\n"
		"The request path and body come from the trace; streamed requests get\n"
		"stream_options.include_usage so token counts come from the server.\n"
		"\n"
		"examples:\n"
		"  tracebench replay --endpoint http://127.0.0.1:8000 -c 1,2,4,8,16 -o run.jsonl.gz trace.jsonl.gz\n"
		"  OPENAI_API_KEY=... tracebench replay -e https://host -c 4 -n 100 --label tuned -o tuned.jsonl.gz trace.jsonl.gz\n");
}

/* ---- preparing the trace --------------------------------------------- */

/* The body to send: streamed JSON requests ask for usage in the last chunk. */
static int prepare_body(struct prepared *p)
{
	cJSON *body = cJSON_ParseWithLength(p->req.body, p->req.body_len);
	cJSON *stream = cJSON_GetObjectItemCaseSensitive(body, "stream");
	cJSON *opts;

	if (cJSON_IsObject(body) && cJSON_IsTrue(stream)) {
		opts = cJSON_GetObjectItemCaseSensitive(body, "stream_options");
		if (!cJSON_IsObject(opts)) {
			cJSON_DeleteItemFromObjectCaseSensitive(body, "stream_options");
			opts = cJSON_AddObjectToObject(body, "stream_options");
		}
		cJSON_DeleteItemFromObjectCaseSensitive(opts, "include_usage");
		cJSON_AddBoolToObject(opts, "include_usage", 1);
		p->body = cJSON_PrintUnformatted(body);
	} else {
		p->body = strdup(p->req.body);
	}
	cJSON_Delete(body);
	if (!p->body)
		return -1;
	p->body_len = strlen(p->body);
	return 0;
}

static void free_trace(struct prepared *reqs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		trace_request_release(&reqs[i].req);
		free(reqs[i].body);
	}
	free(reqs);
}

/*
 * Reads every request of the trace at 'path'. Returns the array (free with
 * free_trace) and sets *n and digest (at least 32 bytes), or NULL after
 * printing why.
 */
static struct prepared *load_trace(const char *path, size_t *n, char *digest)
{
	char err[TRACEFILE_ERRLEN], ferr[256];
	struct tracefile_reader *r = tracefile_reader_open(path, TRACEFILE_KIND_TRACE, err);
	struct prepared *reqs = NULL;
	size_t count = 0, cap = 0;
	cJSON *rec;
	int rc;

	if (!r) {
		fprintf(stderr, "tracebench replay: %s\n", err);
		return NULL;
	}
	while ((rc = tracefile_reader_next(r, &rec)) == 1) {
		struct prepared *p;

		if (count == cap) {
			struct prepared *nr;

			cap = cap ? cap * 2 : 256;
			nr = realloc(reqs, cap * sizeof(*nr));
			if (!nr) {
				cJSON_Delete(rec);
				fprintf(stderr, "tracebench replay: '%s': out of memory\n", path);
				goto fail;
			}
			reqs = nr;
		}
		p = &reqs[count];
		memset(p, 0, sizeof(*p));
		trace_request_init(&p->req);
		count++;
		rc = trace_request_from_json(&p->req, rec, ferr, sizeof(ferr));
		cJSON_Delete(rec);
		if (rc < 0) {
			fprintf(stderr, "tracebench replay: '%s' line %zu: %s\n", path,
				tracefile_reader_lineno(r), ferr);
			goto fail;
		}
		if (prepare_body(p) < 0) {
			fprintf(stderr, "tracebench replay: '%s': out of memory\n", path);
			goto fail;
		}
	}
	if (rc < 0) {
		fprintf(stderr, "tracebench replay: %s\n", tracefile_reader_error(r));
		goto fail;
	}
	if (tracefile_reader_damage(r))
		fprintf(stderr, "tracebench replay: warning: '%s': %s\n", path,
			tracefile_reader_damage(r));
	if (count == 0) {
		fprintf(stderr, "tracebench replay: '%s' holds no requests\n", path);
		goto fail;
	}
	snprintf(digest, 32, "%s", tracefile_reader_digest(r));
	tracefile_reader_close(r);
	*n = count;
	return reqs;

fail:
	tracefile_reader_close(r);
	free_trace(reqs, count);
	return NULL;
}

/* ---- running a level ------------------------------------------------- */

static void issue(struct level_run *lr);

static void print_progress(struct level_run *lr, int final)
{
	double elapsed = (double)(clock_now_ns() - lr->level_start_ns) / NS_PER_S;
	size_t errors = 0, i;

	if (!lr->show_progress)
		return;
	for (i = 0; i < lr->warmup + lr->n; i++)
		errors += !result_ok(&lr->results[i]) && i < lr->finished + lr->in_flight;
	if (final) {
		fprintf(stderr, "\r\033[K");
		return;
	}
	fprintf(stderr, "\r\033[KC=%d  %zu/%zu done  %zu in flight  %zu errors  %.1f s",
		lr->level, lr->finished, lr->warmup + lr->n, lr->in_flight, errors, elapsed);
}

static void on_done(void *ctx, struct result *r)
{
	struct level_run *lr = ctx;
	cJSON *rec = result_to_json(r);

	lr->in_flight--;
	lr->finished++;
	if (!rec || tracefile_writer_append(lr->out, rec) < 0) {
		if (!lr->write_failed)
			fprintf(stderr, "\ntracebench replay: %s\n", rec ?
				tracefile_writer_error(lr->out) : "out of memory");
		lr->write_failed = 1;
		stop_signal = stop_signal ? stop_signal : -1;
	}
	cJSON_Delete(rec);
	issue(lr);
}

/* Starts what may start now; ends the loop when the level is over. */
static void issue(struct level_run *lr)
{
	size_t total = lr->warmup + lr->n;

	while (!stop_signal && lr->issued < total) {
		int warm = lr->issued < lr->warmup;
		size_t limit = warm ? 1 : (size_t)lr->level;
		const struct prepared *p = &lr->reqs[*lr->cursor % lr->n_reqs];
		struct result *r = &lr->results[lr->issued];

		if (lr->in_flight >= limit || (!warm && lr->finished < lr->warmup))
			break;
		r->level = lr->level;
		r->seq = (*lr->seq)++;
		r->trace_id = p->req.id;
		r->warmup = warm;
		r->input_tokens = p->req.input_tokens;
		if (client_start(lr->client, p->req.method, p->req.path, p->req.headers,
				 p->req.n_headers, p->body, p->body_len, r, lr->origin_ns, -1,
				 on_done, lr) < 0) {
			result_set_error(r, RESULT_ERR_TRANSFER, "libcurl refused the request");
			lr->issued++;
			lr->in_flight++;
			(*lr->cursor)++;
			on_done(lr, r);
			return;
		}
		lr->issued++;
		lr->in_flight++;
		(*lr->cursor)++;
	}
	if (lr->in_flight == 0 && (lr->issued == total || stop_signal))
		event_base_loopbreak(client_base(lr->client));
}

static void on_tick(evutil_socket_t fd, short events, void *arg)
{
	struct level_run *lr = arg;

	(void)fd;
	(void)events;
	if (tracefile_writer_flush_if_due(lr->out) < 0 && !lr->write_failed) {
		fprintf(stderr, "\ntracebench replay: %s\n", tracefile_writer_error(lr->out));
		lr->write_failed = 1;
		stop_signal = -1;
	}
	print_progress(lr, 0);
}

static void on_signal(evutil_socket_t sig, short events, void *arg)
{
	struct level_run *lr = arg;

	(void)events;
	signals_seen++;
	if (!stop_signal)
		stop_signal = (int)sig;
	if (signals_seen == 1) {
		fprintf(stderr, "\ntracebench replay: stopping: waiting for %zu requests in flight "
			"(signal again to cancel them)\n", lr->in_flight);
		if (lr->in_flight == 0)
			event_base_loopbreak(client_base(lr->client));
	} else {
		client_cancel_all(lr->client);
	}
}

/* ---- the run --------------------------------------------------------- */

static void make_run_id(char *buf, size_t len)
{
	unsigned char b[8];
	size_t i;

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
		uint64_t x = (uint64_t)clock_now_ns() ^ ((uint64_t)getpid() << 32);

		memcpy(b, &x, sizeof(b));
	}
	for (i = 0; i < sizeof(b) && 2 * i + 2 < len; i++)
		snprintf(buf + 2 * i, 3, "%02x", b[i]);
}

static cJSON *results_header(const struct options *o, const char *label, const char *digest,
			     const struct prepared *reqs, size_t n_reqs)
{
	cJSON *h = cJSON_CreateObject(), *trace, *params, *levels, *body;
	char run_id[20] = "", created[32];
	const char *model;
	int i;

	make_run_id(run_id, sizeof(run_id));
	clock_utc_iso8601(created, sizeof(created));
	cJSON_AddStringToObject(h, "run_id", run_id);
	cJSON_AddStringToObject(h, "label", label);
	cJSON_AddStringToObject(h, "created", created);
	cJSON_AddStringToObject(h, "tool", "tracebench " TB_VERSION);
	cJSON_AddStringToObject(h, "endpoint", o->endpoint);
	body = cJSON_Parse(reqs[0].req.body);
	model = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(body, "model"));
	if (model)
		cJSON_AddStringToObject(h, "model", model);
	else
		cJSON_AddNullToObject(h, "model");
	cJSON_Delete(body);
	trace = cJSON_AddObjectToObject(h, "trace");
	cJSON_AddStringToObject(trace, "path", o->trace_path);
	cJSON_AddStringToObject(trace, "digest", digest);
	cJSON_AddNumberToObject(trace, "requests", (double)n_reqs);
	params = cJSON_AddObjectToObject(h, "params");
	cJSON_AddStringToObject(params, "mode", "closed");
	levels = cJSON_AddArrayToObject(params, "concurrency");
	for (i = 0; i < o->n_levels; i++)
		cJSON_AddItemToArray(levels, cJSON_CreateNumber((double)o->levels[i]));
	if (o->requests)
		cJSON_AddNumberToObject(params, "requests", (double)o->requests);
	else
		cJSON_AddNullToObject(params, "requests");
	cJSON_AddNumberToObject(params, "warmup", (double)o->warmup);
	cJSON_AddNumberToObject(params, "timeout_s", (double)o->timeout_s);
	return h;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "endpoint", required_argument, NULL, 'e' },
		{ "concurrency", required_argument, NULL, 'c' },
		{ "requests", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "label", required_argument, NULL, 'l' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "connect-timeout", required_argument, NULL, 'C' },
		{ "api-key-env", required_argument, NULL, 'K' },
		{ "format", required_argument, NULL, 'F' },
		{ "progress", no_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *bad = NULL;
	int c, n;

	optind = 0;
	while ((c = getopt_long(argc, argv, "e:c:n:l:o:fqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			o->endpoint = optarg;
			break;
		case 'c':
			n = cli_parse_long_list(optarg, 1, 100000, o->levels, MAX_LEVELS);
			if (n < 0)
				bad = "concurrency";
			o->n_levels = n;
			break;
		case 'n':
			if (cli_parse_long(optarg, 1, 100000000, &o->requests) < 0)
				bad = "requests";
			break;
		case 'w':
			if (cli_parse_long(optarg, 0, 1000000, &o->warmup) < 0)
				bad = "warmup";
			break;
		case 'l':
			o->label = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'f':
			o->force = 1;
			break;
		case 'T':
			if (cli_parse_long(optarg, 1, 86400, &o->timeout_s) < 0)
				bad = "timeout";
			break;
		case 'C':
			if (cli_parse_long(optarg, 1, 3600, &o->connect_timeout_s) < 0)
				bad = "connect-timeout";
			break;
		case 'K':
			o->api_key_env = optarg;
			break;
		case 'F':
			if (summary_format_parse(optarg, &o->format) < 0)
				bad = "format";
			break;
		case 'P':
			o->progress = 1;
			break;
		case 'q':
			o->progress = 0;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			fprintf(stderr, "see 'tracebench replay --help'\n");
			return -1;
		}
		if (bad) {
			fprintf(stderr, "tracebench replay: invalid value '%s' for --%s\n", optarg, bad);
			return -1;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "tracebench replay: %s; see 'tracebench replay --help'\n",
			optind == argc ? "no trace file given" : "more than one trace file given");
		return -1;
	}
	o->trace_path = argv[optind];
	if (!o->endpoint || (strncmp(o->endpoint, "http://", 7) && strncmp(o->endpoint, "https://", 8))) {
		fprintf(stderr, "tracebench replay: %s\n", o->endpoint ?
			"--endpoint must be an http:// or https:// URL" : "no endpoint; give --endpoint URL");
		return -1;
	}
	if (!o->output) {
		fprintf(stderr, "tracebench replay: no results file; give -o RESULTS\n");
		return -1;
	}
	return 0;
}

/* Runs one level to its end (or to a stop); returns its results count. */
static size_t run_level(struct level_run *lr)
{
	struct event_base *base = client_base(lr->client);

	lr->level_start_ns = clock_now_ns();
	issue(lr);
	if (lr->in_flight)
		event_base_dispatch(base);
	print_progress(lr, 1);
	return lr->finished;
}

int replay_main(int argc, char **argv)
{
	struct options o = {
		.levels = { 1 }, .n_levels = 1, .warmup = 1, .timeout_s = 600,
		.connect_timeout_s = 10, .api_key_env = "OPENAI_API_KEY", .progress = -1,
		.format = SUMMARY_TEXT,
	};
	char err[TRACEFILE_ERRLEN], digest[32], label[64], endpoint[1024];
	struct client_options co = { 0 };
	struct tracefile_writer *out = NULL;
	struct client *client = NULL;
	struct prepared *reqs = NULL;
	struct event *tick = NULL, *sigint = NULL, *sigterm = NULL;
	struct level_summary warmup = { 0 };
	struct level_run lr;
	size_t n_reqs = 0, cursor = 0, total_ok = 0, total = 0;
	long seq = 0;
	cJSON *header;
	int i, rc = 2, first_row = 1;

	if (parse_options(argc, argv, &o) < 0)
		return 2;
	snprintf(endpoint, sizeof(endpoint), "%s", o.endpoint);
	while (strlen(endpoint) > 8 && endpoint[strlen(endpoint) - 1] == '/')
		endpoint[strlen(endpoint) - 1] = '\0';
	o.endpoint = endpoint;
	if (!o.label) {
		time_t now = time(NULL);
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(label, sizeof(label), "run-%Y%m%d-%H%M%S", &tm);
		o.label = label;
	}
	reqs = load_trace(o.trace_path, &n_reqs, digest);
	if (!reqs)
		return 2;

	co.endpoint = o.endpoint;
	co.timeout_ms = o.timeout_s * 1000;
	co.connect_timeout_ms = o.connect_timeout_s * 1000;
	co.api_key = getenv(o.api_key_env);
	client = client_new(&co, err);
	if (!client) {
		fprintf(stderr, "tracebench replay: %s\n", err);
		rc = 1;
		goto cleanup;
	}
	header = results_header(&o, o.label, digest, reqs, n_reqs);
	out = tracefile_writer_open(o.output, TRACEFILE_KIND_RESULTS, header, o.force, err);
	cJSON_Delete(header);
	if (!out) {
		fprintf(stderr, "tracebench replay: %s\n", err);
		goto cleanup;
	}

	memset(&lr, 0, sizeof(lr));
	lr.client = client;
	lr.out = out;
	lr.reqs = reqs;
	lr.n_reqs = n_reqs;
	lr.cursor = &cursor;
	lr.seq = &seq;
	lr.show_progress = o.progress < 0 ? isatty(STDERR_FILENO) : o.progress;
	tick = event_new(client_base(client), -1, EV_PERSIST, on_tick, &lr);
	sigint = evsignal_new(client_base(client), SIGINT, on_signal, &lr);
	sigterm = evsignal_new(client_base(client), SIGTERM, on_signal, &lr);
	if (!tick || !sigint || !sigterm || event_add(tick, &(struct timeval){ 1, 0 }) < 0 ||
	    event_add(sigint, NULL) < 0 || event_add(sigterm, NULL) < 0) {
		fprintf(stderr, "tracebench replay: cannot set up the event loop\n");
		rc = 1;
		goto cleanup;
	}
	signal(SIGPIPE, SIG_IGN);

	fprintf(stderr, "tracebench replay: %zu requests in '%s', endpoint %s, run '%s'\n",
		n_reqs, o.trace_path, o.endpoint, o.label);
	summary_print_begin(stdout, o.format);
	lr.origin_ns = clock_now_ns();
	for (i = 0; i < o.n_levels && !stop_signal; i++) {
		struct level_summary s;
		size_t done, k;

		lr.level = (int)o.levels[i];
		lr.warmup = i == 0 ? (size_t)o.warmup : 0;
		lr.n = o.requests ? (size_t)o.requests : (size_t)(lr.level * 2 > 4 ? lr.level * 2 : 4);
		lr.issued = lr.finished = lr.in_flight = 0;
		lr.results = calloc(lr.warmup + lr.n, sizeof(*lr.results));
		if (!lr.results) {
			fprintf(stderr, "tracebench replay: out of memory\n");
			rc = 1;
			goto cleanup;
		}
		for (k = 0; k < lr.warmup + lr.n; k++)
			result_init(&lr.results[k]);
		done = run_level(&lr);
		summary_compute(lr.results, done, lr.level, &s);
		if (s.requests || s.warmup) {
			summary_print_row(stdout, o.format, o.label, &s, first_row);
			first_row = 0;
		}
		if (s.warmup)
			warmup = s;
		total_ok += s.ok;
		total += s.requests;
		for (k = 0; k < lr.warmup + lr.n; k++)
			result_release(&lr.results[k]);
		free(lr.results);
		lr.results = NULL;
	}
	summary_print_end(stdout, o.format);
	if (warmup.warmup)
		fprintf(stderr, "warm-up: %zu request%s, cold-start TTFT %.1f ms\n",
			warmup.warmup, warmup.warmup == 1 ? "" : "s", warmup.warmup_ttft_ms);

	if (tracefile_writer_close(out, err) < 0) {
		out = NULL;
		fprintf(stderr, "tracebench replay: %s\n", err);
		rc = 1;
		goto cleanup;
	}
	out = NULL;
	fprintf(stderr, "tracebench replay: wrote %zu results to '%s'\n", (size_t)seq, o.output);
	if (lr.write_failed)
		rc = 1;
	else if (stop_signal > 0)
		rc = 128 + stop_signal;
	else if (total > 0 && total_ok == 0)
		rc = 1;
	else
		rc = 0;
	if (total > 0 && total_ok == 0)
		fprintf(stderr, "tracebench replay: every request failed\n");

cleanup:
	if (out)
		tracefile_writer_close(out, NULL);
	if (tick)
		event_free(tick);
	if (sigint)
		event_free(sigint);
	if (sigterm)
		event_free(sigterm);
	client_free(client);
	free_trace(reqs, n_reqs);
	return rc;
}
