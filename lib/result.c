/*
 * result.c - a replayed request's measurements and their JSON form; see
 * result.h and schema/FORMAT.md ("Results files").
 */
#include "result.h"
#include "json.h"
#include "redact.h"

#include <math.h>
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
	r->session = r->turn = -1;
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
	result_init(r);
}

bool result_ok(const struct result *r)
{
	return r->error[0] == '\0';
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
	cJSON *itl;
	size_t i;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "level", r->level);
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
	cJSON_AddBoolToObject(o, "new_connection", r->new_connection);
	json_add_int64(o, "connect_ns", r->connect_ns, 1);
	json_add_int64(o, "tls_ns", r->tls_ns, 1);
	if (r->unstreamed)
		cJSON_AddFalseToObject(o, "streamed");
	itl = cJSON_AddArrayToObject(o, "itl_us");
	for (i = 0; itl && i < r->n_itl; i++) {
		/* whole microseconds, rounded: the integer division is meant */
		/* NOLINTNEXTLINE(bugprone-integer-division) */
		cJSON_AddItemToArray(itl, cJSON_CreateNumber((double)((r->itl_ns[i] + 500) / 1000)));
	}
	return o;
}

/* Reads a required (req) or optional integer field; -1 stands for null. */
static int get_int(const cJSON *obj, const char *key, int req, int64_t *out,
		   char *err, size_t errlen)
{
	int rc = json_get_int64(obj, key, out);

	if (rc < 0 || (rc == 0 && req)) {
		snprintf(err, errlen, "field '%s' %s", key,
			 rc < 0 ? "is not an integer" : "is missing");
		return -1;
	}
	if (rc == 0)
		*out = -1;
	return 0;
}

int result_from_json(struct result *r, const cJSON *obj, char *err, size_t errlen)
{
	const cJSON *warmup, *error, *itl, *v;
	const char *detail, *source, *salt;
	int64_t level, repeat, seq, trace_id, status, estimated = 0, session, turn;
	size_t i, n;

	if (get_int(obj, "level", 1, &level, err, errlen) ||
	    get_int(obj, "repeat", 0, &repeat, err, errlen) ||
	    get_int(obj, "seq", 1, &seq, err, errlen) ||
	    get_int(obj, "trace_id", 0, &trace_id, err, errlen) ||
	    get_int(obj, "status", 0, &status, err, errlen) ||
	    get_int(obj, "sched_ns", 0, &r->sched_ns, err, errlen) ||
	    get_int(obj, "send_ns", 1, &r->send_ns, err, errlen) ||
	    get_int(obj, "ttft_ns", 0, &r->ttft_ns, err, errlen) ||
	    get_int(obj, "ttfa_ns", 0, &r->ttfa_ns, err, errlen) ||
	    get_int(obj, "e2e_ns", 1, &r->e2e_ns, err, errlen) ||
	    get_int(obj, "input_tokens", 0, &r->input_tokens, err, errlen) ||
	    get_int(obj, "output_tokens", 1, &r->output_tokens, err, errlen) ||
	    get_int(obj, "token_events", 0, &r->token_events, err, errlen) ||
	    get_int(obj, "cached_tokens", 0, &r->cached_tokens, err, errlen) ||
	    get_int(obj, "connect_ns", 0, &r->connect_ns, err, errlen) ||
	    get_int(obj, "tls_ns", 0, &r->tls_ns, err, errlen) ||
	    get_int(obj, "session", 0, &session, err, errlen) ||
	    get_int(obj, "turn", 0, &turn, err, errlen))
		return -1;
	if ((session >= 0) != (turn >= 0) || session < -1 || turn < -1 ||
	    session > 0x7fffffffL || turn > 0x7fffffffL) {
		snprintf(err, errlen, "fields 'session' and 'turn' go together, each an integer "
			 "from 0 to 2147483647");
		return -1;
	}
	r->session = (long)session;
	r->turn = (long)turn;
	if (r->input_tokens < -1 || r->input_tokens > RESULT_MAX_TOKENS ||
	    r->output_tokens < 0 || r->output_tokens > RESULT_MAX_TOKENS ||
	    r->token_events < -1 || r->token_events > RESULT_MAX_TOKENS ||
	    r->cached_tokens < -1 || r->cached_tokens > RESULT_MAX_TOKENS) {
		snprintf(err, errlen, "field 'input_tokens', 'output_tokens', 'token_events' or "
			 "'cached_tokens' is out of range (0 to %lld)", RESULT_MAX_TOKENS);
		return -1;
	}
	/* sched_ns and send_ns are offsets from the run's start: a warm-up
	 * sent before an anchored start (--start-at) has a negative one */
	if (r->sched_ns < -RESULT_MAX_NS || r->sched_ns > RESULT_MAX_NS || r->send_ns < -RESULT_MAX_NS ||
	    r->send_ns > RESULT_MAX_NS || r->ttft_ns < -1 || r->ttft_ns > RESULT_MAX_NS ||
	    r->ttfa_ns < -1 || r->ttfa_ns > RESULT_MAX_NS || r->e2e_ns < 0 || r->e2e_ns > RESULT_MAX_NS ||
	    r->connect_ns < -1 || r->connect_ns > RESULT_MAX_NS || r->tls_ns < -1 || r->tls_ns > RESULT_MAX_NS) {
		snprintf(err, errlen, "a time field ('sched_ns', 'send_ns', 'ttft_ns', 'ttfa_ns', "
			 "'e2e_ns', 'connect_ns', 'tls_ns') is out of range (100 days)");
		return -1;
	}
	if (level < 0 || level > 1000000 || seq < 0) {
		snprintf(err, errlen, "field 'level' or 'seq' is out of range");
		return -1;
	}
	r->level = (int)level;
	r->repeat = repeat > 0 && repeat < 1000000 ? (int)repeat : 0;
	r->seq = (long)seq;
	r->trace_id = (long)trace_id;
	r->status = status < 0 ? 0 : (int)status;
	if (r->sched_ns < 0)
		r->sched_ns = r->send_ns;

	warmup = cJSON_GetObjectItemCaseSensitive(obj, "warmup");
	r->warmup = cJSON_IsTrue(warmup);
	estimated = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj, "tokens_estimated"));
	r->tokens_estimated = estimated != 0;
	r->tokens_source = estimated ? RESULT_TOKENS_EVENTS : RESULT_TOKENS_USAGE;
	source = json_get_string(obj, "tokens_source");
	if (source) {
		if (strcmp(source, "usage") == 0)
			r->tokens_source = RESULT_TOKENS_USAGE;
		else if (strcmp(source, "tokenize") == 0)
			r->tokens_source = RESULT_TOKENS_TOKENIZE;
		else if (strcmp(source, "events") == 0)
			r->tokens_source = RESULT_TOKENS_EVENTS;
		else {
			snprintf(err, errlen, "field 'tokens_source' is not usage, tokenize or events");
			return -1;
		}
		r->tokens_estimated = r->tokens_source == RESULT_TOKENS_EVENTS;
	}
	salt = json_get_string(obj, "salt");
	if (salt && strlen(salt) >= sizeof(r->salt)) {
		snprintf(err, errlen, "field 'salt' is longer than %zu bytes", sizeof(r->salt) - 1);
		return -1;
	}
	if (salt)
		snprintf(r->salt, sizeof(r->salt), "%s", salt);
	r->new_connection = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj, "new_connection"));
	r->unstreamed = cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(obj, "streamed"));

	error = cJSON_GetObjectItemCaseSensitive(obj, "error");
	if (cJSON_IsString(error) && error->valuestring[0]) {
		detail = json_get_string(obj, "error_detail");
		result_set_error(r, error->valuestring, detail);
	} else if (error && !cJSON_IsNull(error)) {
		snprintf(err, errlen, "field 'error' is not a string or null");
		return -1;
	}

	itl = cJSON_GetObjectItemCaseSensitive(obj, "itl_us");
	n = (size_t)cJSON_GetArraySize(itl);
	if (itl && !cJSON_IsArray(itl)) {
		snprintf(err, errlen, "field 'itl_us' is not an array");
		return -1;
	}
	if (n) {
		r->itl_ns = malloc(n * sizeof(*r->itl_ns));
		if (!r->itl_ns) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		i = 0;
		cJSON_ArrayForEach(v, itl) {
			/* |gap| up to ~100 days: the conversion to int64 ns is defined */
			if (!cJSON_IsNumber(v) || fabs(v->valuedouble) > 9e12) {
				snprintf(err, errlen, "field 'itl_us' holds a non-number or one out of range");
				return -1;
			}
			r->itl_ns[i++] = (int64_t)v->valuedouble * 1000;
		}
		r->n_itl = n;
	}
	return 0;
}
