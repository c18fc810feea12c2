/*
 * result.c - a replayed request's measurements and their JSON form; see
 * result.h and schema/FORMAT.md ("Results files").
 */
#include "result.h"
#include "json.h"
#include "metric.h"
#include "redact.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void result_init(struct result *r)
{
	memset(r, 0, sizeof(*r));
	r->ttft_ns = r->ttfa_ns = -1;
	r->input_tokens = -1;
	r->token_events = r->cached_tokens = -1;
	r->connect_ns = r->tls_ns = -1;
	r->issue_ns = r->read_ns = -1;
	r->session = r->turn = -1;
	srvtiming_init(&r->server);
}

static const char *const tokens_names[] = { "usage", "tokenize", "events" };

const char *result_tokens_name(enum result_tokens t)
{
	return (unsigned)t < 3 ? tokens_names[t] : "events";
}

void result_release(struct result *r)
{
	free(r->error_detail);
	free(r->itl_ns);
	free(r->answer);
	free(r->response_id);
	toolcalls_release(&r->tool_calls);
	result_init(r);
}

bool result_ok(const struct result *r)
{
	return r->error[0] == '\0';
}

bool result_cancelled(const struct result *r)
{
	return r->cancel[0] && strcmp(r->error, RESULT_ERR_CANCELLED) == 0;
}

bool result_measured(const struct result *r)
{
	return !r->warmup && !r->cancel[0] && result_ok(r);
}

void result_set_error(struct result *r, const char *cls, const char *detail)
{
	char *clean;

	if (!result_ok(r))      /* the first error is the cause; keep it */
		return;
	clean = detail ? redact_text(detail, strlen(detail), r->secrets, r->n_secrets) : NULL;
	snprintf(r->error, sizeof(r->error), "%s", cls);
	free(r->error_detail);
	r->error_detail = NULL;
	/* redacted whole, then cut: a cut secret would slip past the scrub */
	if (clean)
		r->error_detail = strndup(clean, RESULT_DETAIL_MAX);
	else if (detail)
		r->error_detail = strdup("(detail left out: out of memory)");
	free(clean);
}

void result_set_http_error(struct result *r, int status, const char *body, size_t len)
{
	char *clean = redact_text(body ? body : "", body ? len : 0, r->secrets, r->n_secrets);
	char detail[RESULT_DETAIL_MAX + 1];

	snprintf(detail, sizeof(detail), "HTTP %d: %s", status,
		 clean ? clean : "(body left out: out of memory)");
	free(clean);
	result_set_error(r, RESULT_ERR_HTTP, detail);   /* finds nothing more */
}

cJSON *result_to_json(const struct result *r)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "level", r->level);
	if (metric_level_rate(r->level))
		cJSON_AddNumberToObject(o, "rate", r->rate);
	if (r->repeat)
		cJSON_AddNumberToObject(o, "repeat", r->repeat);
	cJSON_AddNumberToObject(o, "seq", (double)r->seq);
	cJSON_AddNumberToObject(o, "trace_id", (double)r->trace_id);
	if (r->session >= 0) {
		cJSON_AddNumberToObject(o, "session", (double)r->session);
		cJSON_AddNumberToObject(o, "turn", (double)r->turn);
	}
	cJSON_AddBoolToObject(o, "warmup", r->warmup);
	cJSON_AddNumberToObject(o, "status", r->status);
	if (result_ok(r)) {
		cJSON_AddNullToObject(o, "error");
	} else {
		cJSON_AddStringToObject(o, "error", r->error);
		if (r->error_detail)
			cJSON_AddStringToObject(o, "error_detail", r->error_detail);
	}
	json_add_int64(o, "sched_ns", r->sched_ns, 0);
	json_add_int64(o, "send_ns", r->send_ns, 0);
	json_add_int64(o, "ttft_ns", r->ttft_ns, 1);
	json_add_int64(o, "ttfa_ns", r->ttfa_ns, 1);
	json_add_int64(o, "e2e_ns", r->e2e_ns, 0);
	json_add_int64(o, "input_tokens", r->input_tokens, 1);
	json_add_int64(o, "output_tokens", r->output_tokens, 0);
	cJSON_AddBoolToObject(o, "tokens_estimated", r->tokens_estimated);
	/* one that says it estimated and names no source counted events */
	cJSON_AddStringToObject(o, "tokens_source", result_tokens_name(
		r->tokens_estimated && r->tokens_source == RESULT_TOKENS_USAGE ?
		RESULT_TOKENS_EVENTS : r->tokens_source));
	json_add_int64(o, "token_events", r->token_events, 1);
	json_add_int64(o, "cached_tokens", r->cached_tokens, 1);
	if (r->salt[0])
		cJSON_AddStringToObject(o, "salt", r->salt);
	if (r->cancel[0])
		cJSON_AddStringToObject(o, "cancel", r->cancel);
	if (r->model[0])
		cJSON_AddStringToObject(o, "model", r->model);
	cJSON_AddBoolToObject(o, "new_connection", r->new_connection);
	json_add_int64(o, "connect_ns", r->connect_ns, 1);
	json_add_int64(o, "tls_ns", r->tls_ns, 1);
	if (r->unstreamed)
		cJSON_AddFalseToObject(o, "streamed");
	if (r->issue_ns >= 0)
		json_add_int64(o, "client_issue_ns", r->issue_ns, 0);
	if (r->read_ns >= 0)
		json_add_int64(o, "client_read_ns", r->read_ns, 0);
	if (r->server.shape != SRVTIMING_NONE) {
		cJSON_AddStringToObject(o, "server_timings", srvtiming_shape_name(r->server.shape));
		json_add_int64(o, "server_queue_ns", r->server.queue_ns, 1);
		json_add_int64(o, "server_prefill_ns", r->server.prefill_ns, 1);
		json_add_int64(o, "server_decode_ns", r->server.decode_ns, 1);
	}
	/* whole microseconds, rounded */
	if (json_add_int64_array(o, "itl_us", r->itl_ns, r->n_itl, 1000) < 0) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* Reads a required (req) or optional integer field from lo to hi; a
 * missing optional one reads as -1. */
static int get_int(const cJSON *obj, const char *key, int req, int64_t lo, int64_t hi,
		   int64_t *out, char *err, size_t errlen)
{
	int rc = json_get_int64(obj, key, out);

	if (rc < 0 || (rc == 0 && req)) {
		snprintf(err, errlen, "field '%s' %s", key,
			 rc < 0 ? "is not an integer" : "is missing");
		return -1;
	}
	if (rc == 0) {
		*out = -1;
	} else if (*out < lo || *out > hi) {
		snprintf(err, errlen, "field '%s' is out of range (%lld to %lld)", key,
			 (long long)lo, (long long)hi);
		return -1;
	}
	return 0;
}

/* The 64-bit fields, each with its range. sched_ns and send_ns are offsets
 * from the run's start: a warm-up sent before an anchored start
 * (--start-at) has a negative one. -1 stands for "unknown". */
static const struct {
	const char *key;
	int req;
	int64_t lo, hi;
	size_t off;
} int64_fields[] = {
	{ "sched_ns",      0, -RESULT_MAX_NS, RESULT_MAX_NS,  offsetof(struct result, sched_ns) },
	{ "send_ns",       1, -RESULT_MAX_NS, RESULT_MAX_NS,  offsetof(struct result, send_ns) },
	{ "ttft_ns",       0, -1, RESULT_MAX_NS,              offsetof(struct result, ttft_ns) },
	{ "ttfa_ns",       0, -1, RESULT_MAX_NS,              offsetof(struct result, ttfa_ns) },
	{ "e2e_ns",        1, 0, RESULT_MAX_NS,               offsetof(struct result, e2e_ns) },
	{ "connect_ns",    0, -1, RESULT_MAX_NS,              offsetof(struct result, connect_ns) },
	{ "tls_ns",        0, -1, RESULT_MAX_NS,              offsetof(struct result, tls_ns) },
	{ "input_tokens",  0, -1, RESULT_MAX_TOKENS,          offsetof(struct result, input_tokens) },
	{ "output_tokens", 1, 0, RESULT_MAX_TOKENS,           offsetof(struct result, output_tokens) },
	{ "token_events",  0, -1, RESULT_MAX_TOKENS,          offsetof(struct result, token_events) },
	{ "cached_tokens", 0, -1, RESULT_MAX_TOKENS,          offsetof(struct result, cached_tokens) },
	{ "client_issue_ns", 0, -1, RESULT_MAX_NS,   offsetof(struct result, issue_ns) },
	{ "client_read_ns", 0, -1, RESULT_MAX_NS,    offsetof(struct result, read_ns) },
	{ "server_queue_ns", 0, -1, RESULT_MAX_NS,   offsetof(struct result, server.queue_ns) },
	{ "server_prefill_ns", 0, -1, RESULT_MAX_NS, offsetof(struct result, server.prefill_ns) },
	{ "server_decode_ns", 0, -1, RESULT_MAX_NS,  offsetof(struct result, server.decode_ns) },
};

/* level (and a rate level's rate), seq, trace id, status, repeat, session
 * and turn. */
static int read_ids(struct result *r, const cJSON *obj, char *err, size_t errlen)
{
	int64_t level, repeat, seq, trace_id, status, session, turn;
	const cJSON *rate;

	if (get_int(obj, "level", 1, -RESULT_MAX_RATE_LEVELS, 1000000, &level, err, errlen) ||
	    get_int(obj, "seq", 1, 0, INT64_MAX, &seq, err, errlen) ||
	    get_int(obj, "repeat", 0, INT64_MIN, INT64_MAX, &repeat, err, errlen) ||
	    get_int(obj, "trace_id", 0, INT64_MIN, INT64_MAX, &trace_id, err, errlen) ||
	    get_int(obj, "status", 0, INT64_MIN, INT64_MAX, &status, err, errlen) ||
	    get_int(obj, "session", 0, -1, 0x7fffffffL, &session, err, errlen) ||
	    get_int(obj, "turn", 0, -1, 0x7fffffffL, &turn, err, errlen))
		return -1;
	if ((session >= 0) != (turn >= 0)) {
		snprintf(err, errlen, "fields 'session' and 'turn' go together");
		return -1;
	}
	/* a rate level (results version 4) says its rate (level is in int's
	 * range: checked above) */
	rate = cJSON_GetObjectItemCaseSensitive(obj, "rate");
	r->rate = metric_level_rate((int)level) && cJSON_IsNumber(rate) ? rate->valuedouble : 0;
	if (metric_level_rate((int)level) && !(r->rate > 0 && r->rate <= 1e7)) {
		snprintf(err, errlen, "a rate level (negative 'level') needs its 'rate', "
			 "above 0 and at most 1e7 req/s");
		return -1;
	}
	r->level = (int)level;
	r->repeat = repeat > 0 && repeat < 1000000 ? (int)repeat : 0;
	r->seq = (long)seq;
	r->trace_id = (long)trace_id;
	r->status = status < 0 || status > 999 ? 0 : (int)status;
	r->session = (long)session;
	r->turn = (long)turn;
	return 0;
}

/* tokens_source, or the older tokens_estimated alone. */
static int read_tokens_source(struct result *r, const cJSON *obj, char *err, size_t errlen)
{
	const char *source = json_get_string(obj, "tokens_source");
	size_t i;

	r->tokens_estimated = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj, "tokens_estimated"));
	r->tokens_source = r->tokens_estimated ? RESULT_TOKENS_EVENTS : RESULT_TOKENS_USAGE;
	if (!source)
		return 0;
	for (i = 0; i < sizeof(tokens_names) / sizeof(tokens_names[0]); i++)
		if (strcmp(source, tokens_names[i]) == 0)
			break;
	if (i == sizeof(tokens_names) / sizeof(tokens_names[0])) {
		snprintf(err, errlen, "field 'tokens_source' is not usage, tokenize or events");
		return -1;
	}
	r->tokens_source = (enum result_tokens)i;
	r->tokens_estimated = r->tokens_source == RESULT_TOKENS_EVENTS;
	return 0;
}

static int read_itl(struct result *r, const cJSON *obj, char *err, size_t errlen)
{
	const cJSON *itl = cJSON_GetObjectItemCaseSensitive(obj, "itl_us"), *v;
	size_t n = (size_t)cJSON_GetArraySize(itl), i = 0;

	if (itl && !cJSON_IsArray(itl)) {
		snprintf(err, errlen, "field 'itl_us' is not an array");
		return -1;
	}
	if (n == 0)
		return 0;
	r->itl_ns = malloc(n * sizeof(*r->itl_ns));
	if (!r->itl_ns) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	cJSON_ArrayForEach(v, itl) {
		/* |gap| up to ~100 days: the conversion to int64 ns is defined */
		if (!cJSON_IsNumber(v) || fabs(v->valuedouble) > 9e12) {
			snprintf(err, errlen, "field 'itl_us' holds a non-number or one out of range");
			return -1;
		}
		r->itl_ns[i++] = (int64_t)v->valuedouble * 1000;
	}
	r->n_itl = n;
	return 0;
}

/* server_timings names the shape the server_*_ns fields came in (results
 * version 5); without it they must be absent. */
static int read_server_timings(struct result *r, const cJSON *obj, char *err, size_t errlen)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(obj, "server_timings");
	int shape = SRVTIMING_NONE;

	if (name && !(cJSON_IsString(name) && (shape = srvtiming_shape_parse(name->valuestring)) > 0)) {
		snprintf(err, errlen, "field 'server_timings' is not llama.cpp, vllm or sglang");
		return -1;
	}
	if (!name && (r->server.queue_ns >= 0 || r->server.prefill_ns >= 0 ||
		      r->server.decode_ns >= 0)) {
		snprintf(err, errlen, "fields 'server_*_ns' need 'server_timings'");
		return -1;
	}
	r->server.shape = (enum srvtiming_shape)shape;
	return 0;
}

void result_set_model(struct result *r, const char *model)
{
	snprintf(r->model, sizeof(r->model), "%s", model ? model : "");
}

/* "model": the one a --model-mix sent the request to, when it names one. */
static int read_model(struct result *r, const cJSON *obj, char *err, size_t errlen)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(obj, "model");

	if (!m || cJSON_IsNull(m))
		return 0;
	if (!cJSON_IsString(m) || !m->valuestring[0] || strlen(m->valuestring) >= sizeof(r->model)) {
		snprintf(err, errlen, "field 'model' is not a name of 1 to %zu bytes",
			 sizeof(r->model) - 1);
		return -1;
	}
	snprintf(r->model, sizeof(r->model), "%s", m->valuestring);
	return 0;
}

int result_from_json(struct result *r, const cJSON *obj, char *err, size_t errlen)
{
	const cJSON *error;
	const char *salt;
	size_t i;

	for (i = 0; i < sizeof(int64_fields) / sizeof(int64_fields[0]); i++)
		if (get_int(obj, int64_fields[i].key, int64_fields[i].req, int64_fields[i].lo,
			    int64_fields[i].hi, (int64_t *)((char *)r + int64_fields[i].off),
			    err, errlen))
			return -1;
	if (read_ids(r, obj, err, errlen) || read_tokens_source(r, obj, err, errlen))
		return -1;
	if (r->sched_ns < 0)
		r->sched_ns = r->send_ns;
	r->warmup = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj, "warmup"));
	salt = json_get_string(obj, "salt");
	if (salt && strlen(salt) >= sizeof(r->salt)) {
		snprintf(err, errlen, "field 'salt' is longer than %zu bytes", sizeof(r->salt) - 1);
		return -1;
	}
	if (salt)
		snprintf(r->salt, sizeof(r->salt), "%s", salt);
	salt = json_get_string(obj, "cancel");
	if (salt && strlen(salt) >= sizeof(r->cancel)) {
		snprintf(err, errlen, "field 'cancel' is longer than %zu bytes",
			 sizeof(r->cancel) - 1);
		return -1;
	}
	if (salt)
		snprintf(r->cancel, sizeof(r->cancel), "%s", salt);
	if (read_model(r, obj, err, errlen))
		return -1;
	r->new_connection = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj, "new_connection"));
	r->unstreamed = cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(obj, "streamed"));
	if (read_server_timings(r, obj, err, errlen))
		return -1;

	error = cJSON_GetObjectItemCaseSensitive(obj, "error");
	if (cJSON_IsString(error) && error->valuestring[0]) {
		result_set_error(r, error->valuestring, json_get_string(obj, "error_detail"));
	} else if (error && !cJSON_IsNull(error)) {
		snprintf(err, errlen, "field 'error' is not a string or null");
		return -1;
	}
	return read_itl(r, obj, err, errlen);
}
