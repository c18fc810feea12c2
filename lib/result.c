/*
 * result.c - a replayed request's measurements and their JSON form; see
 * result.h and schema/FORMAT.md ("Results files").
 */
#include "result.h"
#include "result_field.h"
#include "gaps.h"
#include "json.h"
#include "load.h"
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

/* Writes one of the fields with code of their own. Returns 0, -1 when
 * out of memory. */
static int own_to_json(cJSON *o, const struct result *r, const struct result_field *f)
{
	const char *n = f->name;

	switch (f->type) {
	case RESULT_FIELD_RATE:
		if (load_of_code(r->level, 0).kind == LOAD_RATE)
			cJSON_AddNumberToObject(o, n, r->rate);
		break;
	case RESULT_FIELD_ERROR:
		if (result_ok(r))
			cJSON_AddNullToObject(o, n);
		else
			cJSON_AddStringToObject(o, n, r->error);
		break;
	case RESULT_FIELD_ERROR_DETAIL:
		if (!result_ok(r) && r->error_detail)
			cJSON_AddStringToObject(o, n, r->error_detail);
		break;
	case RESULT_FIELD_TOKENS_SOURCE:
		/* one that says it estimated and names no source counted events */
		cJSON_AddStringToObject(o, n, result_tokens_name(
			r->tokens_estimated && r->tokens_source == RESULT_TOKENS_USAGE ?
			RESULT_TOKENS_EVENTS : r->tokens_source));
		break;
	case RESULT_FIELD_STREAMED:
		if (r->unstreamed)
			cJSON_AddFalseToObject(o, n);
		break;
	case RESULT_FIELD_SERVER_TIMINGS:
		cJSON_AddStringToObject(o, n, srvtiming_shape_name(r->server.shape));
		break;
	case RESULT_FIELD_GAPS: {
		char *text = NULL;
		size_t cap = 0;
		int rc = gaps_format(r->itl_ns, r->n_itl, GAPS_WHOLE, &text, &cap) < 0 ||
			 !cJSON_AddRawToObject(o, n, text) ? -1 : 0;

		free(text);
		return rc;
	}
	default:
		break;
	}
	return 0;
}

cJSON *result_to_json(const struct result *r)
{
	cJSON *o = cJSON_CreateObject();
	size_t i;

	if (!o)
		return NULL;
	for (i = 0; i < result_n_fields; i++) {
		const struct result_field *f = &result_fields[i];
		int64_t v = result_field_get(r, f);
		const char *text = result_field_text(r, f);

		if (f->server && r->server.shape == SRVTIMING_NONE)
			continue;
		switch (f->type) {
		case RESULT_FIELD_I64:
			if (!(f->json == RESULT_JSON_OMIT && v < 0))
				json_add_int64(o, f->name, v, f->json == RESULT_JSON_NULL);
			break;
		case RESULT_FIELD_LONG:
		case RESULT_FIELD_INT:
			if (!(f->json == RESULT_JSON_OMIT && v < 0) &&
			    !(f->json == RESULT_JSON_ZERO && v == 0))
				cJSON_AddNumberToObject(o, f->name, (double)v);
			break;
		case RESULT_FIELD_BOOL:
			cJSON_AddBoolToObject(o, f->name, v != 0);
			break;
		case RESULT_FIELD_TEXT:
			if (text[0])
				cJSON_AddStringToObject(o, f->name, text);
			break;
		default:
			if (own_to_json(o, r, f) < 0) {
				cJSON_Delete(o);
				return NULL;
			}
			break;
		}
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

/* A string field: absent or null is none, a longer one than fits is
 * refused. */
static int read_text(struct result *r, const struct result_field *f, const cJSON *obj,
		     char *err, size_t errlen)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(obj, f->name);

	if (!s || cJSON_IsNull(s))
		return 0;
	if (!cJSON_IsString(s) || strlen(s->valuestring) >= f->size) {
		snprintf(err, errlen, "field '%s' is not a string of at most %zu bytes", f->name,
			 f->size - 1);
		return -1;
	}
	result_field_set_text(r, f, s->valuestring);
	return 0;
}

/* The fields the table reads alone: integers in their ranges, booleans
 * and strings. */
static int read_fields(struct result *r, const cJSON *obj, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < result_n_fields; i++) {
		const struct result_field *f = &result_fields[i];
		int64_t v;

		switch (f->type) {
		case RESULT_FIELD_I64:
		case RESULT_FIELD_LONG:
		case RESULT_FIELD_INT:
			if (get_int(obj, f->name, f->required, f->lo, f->hi, &v, err, errlen))
				return -1;
			result_field_set(r, f, v);
			break;
		case RESULT_FIELD_BOOL:
			result_field_set(r, f, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj,
											       f->name)));
			break;
		case RESULT_FIELD_TEXT:
			if (read_text(r, f, obj, err, errlen))
				return -1;
			break;
		default:        /* read below, each by its own code */
			break;
		}
	}
	/* what no server says reads as none: a repeat out of 0 to 999,999
	 * as 0, a status out of 0 to 999 as no response */
	if (r->repeat < 0 || r->repeat >= 1000000)
		r->repeat = 0;
	if (r->status < 0 || r->status > 999)
		r->status = 0;
	if ((r->session >= 0) != (r->turn >= 0)) {
		snprintf(err, errlen, "fields 'session' and 'turn' go together");
		return -1;
	}
	/* a rate level (results version 4) says its rate */
	if (load_of_code(r->level, 0).kind == LOAD_RATE) {
		const cJSON *rate = cJSON_GetObjectItemCaseSensitive(obj, "rate");

		r->rate = cJSON_IsNumber(rate) ? rate->valuedouble : 0;
		if (!(r->rate > 0 && r->rate <= 1e7)) {
			snprintf(err, errlen, "a rate level (negative 'level') needs its 'rate', "
				 "above 0 and at most 1e7 req/s");
			return -1;
		}
	}
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
	const cJSON *itl = cJSON_GetObjectItemCaseSensitive(obj, "itl_us");
	int rc = itl ? gaps_from_json(itl, &r->itl_ns, &r->n_itl) : 0;

	if (rc == -1)
		snprintf(err, errlen, "field 'itl_us' %s", cJSON_IsArray(itl) ?
			 "holds a non-number or one out of range" : "is not an array");
	else if (rc < 0)
		snprintf(err, errlen, "out of memory");
	return rc < 0 ? -1 : 0;
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

int result_from_json(struct result *r, const cJSON *obj, char *err, size_t errlen)
{
	const cJSON *error;

	if (read_fields(r, obj, err, errlen) || read_tokens_source(r, obj, err, errlen) ||
	    read_server_timings(r, obj, err, errlen))
		return -1;
	if (r->sched_ns < 0)
		r->sched_ns = r->send_ns;
	r->unstreamed = cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(obj, "streamed"));
	error = cJSON_GetObjectItemCaseSensitive(obj, "error");
	if (cJSON_IsString(error) && error->valuestring[0]) {
		result_set_error(r, error->valuestring, json_get_string(obj, "error_detail"));
	} else if (error && !cJSON_IsNull(error)) {
		snprintf(err, errlen, "field 'error' is not a string or null");
		return -1;
	}
	return read_itl(r, obj, err, errlen);
}
