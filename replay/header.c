/*
 * header.c - the results file's header; see header.h.
 */
#include "header.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "provenance.h"
#include "scrape.h"
#include "lib/clock.h"
#include "lib/redact.h"

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

/* Adds key: v, or key: null when v is 0 (not set). */
static void add_number_or_null(cJSON *obj, const char *key, double v)
{
	if (v != 0)
		cJSON_AddNumberToObject(obj, key, v);
	else
		cJSON_AddNullToObject(obj, key);
}

/* params.overrides: what the command line changed in the requests. */
static void add_overrides(cJSON *params, const struct replay_options *o)
{
	cJSON *ov, *hs;
	size_t j;

	if (!o->model && o->max_tokens <= 0 && !o->ignore_eos && !o->n_headers)
		return;
	ov = cJSON_AddObjectToObject(params, "overrides");
	if (o->model)
		cJSON_AddStringToObject(ov, "model", o->model);
	if (o->max_tokens > 0)
		cJSON_AddNumberToObject(ov, "max_tokens", (double)o->max_tokens);
	if (o->ignore_eos)
		cJSON_AddTrueToObject(ov, "ignore_eos");
	/* Header names only: values may be credentials. */
	hs = cJSON_AddArrayToObject(ov, "headers");
	for (j = 0; j < o->n_headers; j++) {
		char name[128];

		snprintf(name, sizeof(name), "%.*s",
			 (int)replay_header_name_len(o->headers[j]), o->headers[j]);
		cJSON_AddItemToArray(hs, cJSON_CreateString(name));
	}
}

/* params.ab of an A/B run: the same in both files, the two runs have one
 * set of params. */
static void add_ab(cJSON *params, const struct replay_options *o, const unsigned char *ab_order,
		   size_t n_blocks)
{
	cJSON *ab = cJSON_AddObjectToObject(params, "ab");
	cJSON *labels = cJSON_AddArrayToObject(ab, "labels");
	int halves = replay_ab_halves(o, NULL);
	size_t k, len = halves > 1 ? 4 : 2;
	char *order = malloc(len * n_blocks + 1);

	for (k = 0; order && k < n_blocks; k++)
		memcpy(order + len * k, ab_order[k] ? "BAAB" : "ABBA", len);
	if (order)
		order[len * n_blocks] = '\0';
	cJSON_AddItemToArray(labels, cJSON_CreateString(o->label_a));
	cJSON_AddItemToArray(labels, cJSON_CreateString(o->label_b));
	cJSON_AddNumberToObject(ab, "seed", (double)o->sched.seed);
	/* the sides in each level and repeat, in run order: "ABBA" or "BAAB"
	 * with halves (half h of repeat r is the files' repeat 2r + h), else
	 * "AB" or "BA" */
	if (order)
		cJSON_AddStringToObject(ab, "order", order);
	free(order);
	if (halves > 1)
		cJSON_AddNumberToObject(ab, "halves", halves);
}

/* params.model_mix: the mix each request's model was drawn from, its
 * weights as given and the seed of the draw (--seed). */
static void add_model_mix(cJSON *params, const struct replay_options *o)
{
	cJSON *mix = cJSON_AddObjectToObject(params, "model_mix");
	cJSON *models = cJSON_AddArrayToObject(mix, "models");
	size_t i;

	for (i = 0; i < o->mix.n; i++) {
		cJSON *m = cJSON_CreateObject();

		cJSON_AddStringToObject(m, "name", o->mix.e[i].name);
		cJSON_AddNumberToObject(m, "weight", o->mix.e[i].weight);
		cJSON_AddNumberToObject(m, "share", o->mix.e[i].weight / o->mix.total);
		cJSON_AddItemToArray(models, m);
	}
	cJSON_AddNumberToObject(mix, "seed", (double)o->sched.seed);
}

/* The model the body asks for, as sent (--model applied), or null: null
 * too under a --model-mix, whose requests name several. */
static void add_model(cJSON *h, const struct replay_options *o, const char *body_text)
{
	cJSON *body = o->model_mix ? NULL : cJSON_Parse(body_text);
	const char *model = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(body, "model"));

	if (model)
		cJSON_AddStringToObject(h, "model", model);
	else
		cJSON_AddNullToObject(h, "model");
	cJSON_Delete(body);
}

/* The load: open loop's arrival process, or closed loop's levels. */
static void add_load(cJSON *params, const struct replay_options *o)
{
	const struct schedule_options *so = &o->sched;
	cJSON *levels;
	int i;

	if (!o->open_loop) {
		cJSON_AddStringToObject(params, "mode", "closed");
		levels = cJSON_AddArrayToObject(params, "concurrency");
		for (i = 0; i < o->n_levels; i++)
			cJSON_AddItemToArray(levels, cJSON_CreateNumber((double)o->levels[i]));
		add_number_or_null(params, "requests", (double)o->requests);
		if (o->waves)
			cJSON_AddNumberToObject(params, "waves", (double)o->waves);
		cJSON_AddNumberToObject(params, "repeat", (double)o->repeat);
		return;
	}
	cJSON_AddStringToObject(params, "mode", "open");
	cJSON_AddStringToObject(params, "arrival", arrival_name(so->arrival));
	if (so->arrival == ARRIVAL_TRACE) {
		cJSON_AddNumberToObject(params, "speed", so->speed);
	} else {
		cJSON_AddNumberToObject(params, "rate", so->rate);
		cJSON_AddNumberToObject(params, "burstiness", so->burstiness);
		cJSON_AddNumberToObject(params, "seed", (double)so->seed);
	}
	add_number_or_null(params, "requests", (double)so->max_requests);
	add_number_or_null(params, "duration_s", (double)so->duration_ns / NS_PER_S);
	add_number_or_null(params, "max_concurrency", (double)o->max_concurrency);
}

/* The scraped endpoints, each as its records' "source" names it (no
 * userinfo, no query value: lib/redact.h), and the energy counter. */
static void add_metrics(cJSON *params, const struct replay_options *o)
{
	cJSON *m = cJSON_AddObjectToObject(params, "metrics"), *list, *e;
	char *url = redact_url(o->metrics_url, NULL);   /* no userinfo in the file */
	size_t i;

	cJSON_AddStringToObject(m, "url", url ? url : "");
	free(url);
	cJSON_AddNumberToObject(m, "interval_s", (double)o->metrics_interval_ns / 1e9);
	cJSON_AddNumberToObject(m, "timeout_ms", (double)scrape_timeout_ms(o->metrics_interval_ns));
	list = cJSON_AddArrayToObject(m, "sources");
	for (i = 0; list && i < o->n_metrics_urls; i++) {
		url = redact_url(o->metrics_urls[i], NULL);
		cJSON_AddItemToArray(list, cJSON_CreateString(url ? url : ""));
		free(url);
	}
	e = cJSON_AddObjectToObject(m, "energy");
	cJSON_AddStringToObject(e, "metric", o->energy.name);
	cJSON_AddStringToObject(e, "unit", o->energy.to_joules < 1 ? "mJ" : "J");
}

/* --price-per-hour: what analyze report prices each level's tokens at. */
static void add_price(cJSON *params, const struct replay_options *o)
{
	cJSON *p = cJSON_AddObjectToObject(params, "price");

	cJSON_AddNumberToObject(p, "per_hour", o->price.per_hour);
	cJSON_AddNumberToObject(p, "output_input_ratio", o->price.ratio);
}

static void add_capacity(cJSON *params, const struct replay_options *o)
{
	cJSON *c = cJSON_AddObjectToObject(params, "capacity");

	cJSON_AddStringToObject(c, "by", o->capacity.by_rate ? "rate" : "concurrency");
	cJSON_AddStringToObject(c, "slo", o->slo_spec);
	cJSON_AddNumberToObject(c, "share", o->capacity.share);
	cJSON_AddNumberToObject(c, "confidence", o->capacity.confidence);
	cJSON_AddNumberToObject(c, "start", o->capacity.start);
	cJSON_AddNumberToObject(c, "max", o->capacity.max);
	cJSON_AddNumberToObject(c, "tolerance", o->capacity.tolerance);
	cJSON_AddNumberToObject(c, "max_requests", (double)o->capacity.max_requests);
	add_number_or_null(c, "batch", (double)o->requests);
}

/* --cancel: the share, the point and the seed that chose the requests
 * ({"share":0.1,"after":"200ms","seed":1}). */
static void add_cancel(cJSON *params, const struct replay_options *o)
{
	cJSON *c = cJSON_AddObjectToObject(params, "cancel");
	char after[CANCEL_TEXT_MAX];

	if (!c)
		return;
	cancel_after_text(&o->cancel, after, sizeof(after));
	cJSON_AddNumberToObject(c, "share", o->cancel.share);
	cJSON_AddStringToObject(c, "after", after);
	cJSON_AddNumberToObject(c, "seed", (double)o->sched.seed);
}

/* --tokenize: "tokenize": {"url", "fitted", "skipped", "missed",
 * "chat_template"}, or {"fitted": 0, "why"} when nothing was. */
static void add_fit(cJSON *params, const struct replay_options *o)
{
	cJSON *t = cJSON_AddObjectToObject(params, "tokenize");

	if (!t)
		return;
	if (o->fit.url[0])
		cJSON_AddStringToObject(t, "url", o->fit.url);
	cJSON_AddNumberToObject(t, "fitted", (double)o->fit.fitted);
	cJSON_AddNumberToObject(t, "skipped", (double)o->fit.skipped);
	cJSON_AddNumberToObject(t, "missed", (double)o->fit.missed);
	if (o->fit.url[0])
		cJSON_AddNumberToObject(t, "salt_tokens", (double)o->fit.salt_tokens);
	if (o->fit.url[0])
		cJSON_AddBoolToObject(t, "chat_template", o->fit.chat_template);
	if (o->fit.why[0])
		cJSON_AddStringToObject(t, "why", o->fit.why);
}

/* The parameters a reader needs to redo the run. */
static void add_params(cJSON *params, const struct replay_options *o,
		       const unsigned char *ab_order, size_t n_blocks)
{
	add_load(params, o);
	cJSON_AddNumberToObject(params, "warmup", (double)o->warmup);
	if (o->no_salt)
		cJSON_AddFalseToObject(params, "salt");
	else
		cJSON_AddNumberToObject(params, "salt_seed", (double)o->salt_seed);
	cJSON_AddNumberToObject(params, "timeout_s", (double)o->timeout_s);
	if (o->no_client_watch)
		cJSON_AddFalseToObject(params, "client_watch");
	if (o->cancel.share > 0)
		add_cancel(params, o);
	if (o->previous_response_id)
		cJSON_AddTrueToObject(params, "previous_response_id");
	if (o->tokenize)
		add_fit(params, o);
	if (o->max_event_bytes)
		cJSON_AddNumberToObject(params, "max_event_bytes", (double)o->max_event_bytes);
	if (o->endpoint_b)
		add_ab(params, o, ab_order, n_blocks);
	if (o->shard_n > 1) {
		char shard[48];

		snprintf(shard, sizeof(shard), "%ld/%ld", o->shard_k, o->shard_n);
		cJSON_AddStringToObject(params, "shard", shard);
	}
	if (o->start_at > 0)
		cJSON_AddNumberToObject(params, "start_at", o->start_at);
	if (o->workers > 1)
		cJSON_AddNumberToObject(params, "workers", (double)o->workers);
	if (o->metrics_url)
		add_metrics(params, o);
	if (o->price.per_hour > 0)
		add_price(params, o);
	if (o->find_capacity)
		add_capacity(params, o);
	if (o->model_mix)
		add_model_mix(params, o);
	add_overrides(params, o);
}

cJSON *header_create(const struct replay_options *o, const struct session_set *sessions,
		      const char *label, const char *endpoint, const cJSON *server,
		      const struct tracefile_id *trace_id, const unsigned char *ab_order, size_t n_blocks,
		      const char *first_body, size_t n_reqs)
{
	cJSON *h = cJSON_CreateObject(), *trace, *prov;
	char run_id[20] = "", created[32];

	make_run_id(run_id, sizeof(run_id));
	clock_utc_iso8601(created, sizeof(created));
	/* Several open-loop levels, each of its own rate: version 4. A later
	 * turn's sched_ns is when it was due: version 3. "metrics" records are
	 * what a version 1 reader does not know: version 2, which every run
	 * now is, its host's own metrics kept beside the requests. */
	if (o->find_capacity && o->capacity.by_rate)
		cJSON_AddNumberToObject(h, "version", 4);
	else if (sessions && sessions->n)
		cJSON_AddNumberToObject(h, "version", 3);
	else
		cJSON_AddNumberToObject(h, "version", 2);
	cJSON_AddStringToObject(h, "run_id", run_id);
	cJSON_AddStringToObject(h, "label", label);
	cJSON_AddStringToObject(h, "created", created);
	cJSON_AddStringToObject(h, "tool", "tracebench " TB_VERSION);
	cJSON_AddStringToObject(h, "endpoint", endpoint);
	add_model(h, o, first_body);
	trace = cJSON_AddObjectToObject(h, "trace");
	cJSON_AddStringToObject(trace, "path", o->trace_path);
	cJSON_AddStringToObject(trace, "digest", trace_id->digest);
	cJSON_AddStringToObject(trace, "crc32", trace_id->crc32);
	cJSON_AddNumberToObject(trace, "requests", (double)n_reqs);
	if (sessions && sessions->n)
		cJSON_AddNumberToObject(trace, "sessions", (double)sessions->n);
	add_params(cJSON_AddObjectToObject(h, "params"), o, ab_order, n_blocks);
	if (!(prov = provenance_new(o, server)) || !cJSON_AddItemToObject(h, "provenance", prov)) {
		cJSON_Delete(prov);
		cJSON_Delete(h);
		return NULL;
	}
	return h;
}

/*
 * The header's "clock" (schema/FORMAT.md): this host, the wall-clock
 * instant the run's offsets count from and, when measured, this clock's
 * offset from the server's.
 */
void header_add_clock(cJSON *h, double origin_unix, const struct clocksync_result *cs)
{
	cJSON *c = cJSON_AddObjectToObject(h, "clock");
	char host[256];

	if (!c)
		return;
	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	cJSON_AddStringToObject(c, "host", host);
	cJSON_AddNumberToObject(c, "origin_unix", origin_unix);
	if (cs && cs->measured) {
		cJSON_AddNumberToObject(c, "server_offset_ms", cs->offset_ms);
		cJSON_AddNumberToObject(c, "server_offset_error_ms", cs->error_ms);
		cJSON_AddNumberToObject(c, "probe_rtt_ms", cs->rtt_ms);
		cJSON_AddNumberToObject(c, "probes", cs->probes);
	}
}
