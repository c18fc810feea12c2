/*
 * result_field.c - the table of a request record's fields; see
 * result_field.h.
 */
#include "result_field.h"
#include "result.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define AT(m) offsetof(struct result, m)
#define NS RESULT_MAX_NS
#define TOK RESULT_MAX_TOKENS

/* name, type, off, size, optional, required, json, server, lo, hi, since, decl */
const struct result_field result_fields[] = {
	{ "level", RESULT_FIELD_INT, AT(level), 0, false, true, RESULT_JSON_VALUE, false,
	  -RESULT_MAX_RATE_LEVELS, 1000000, 1, "INTEGER NOT NULL" },
	/* a rate level's offered req/s (level < 0), from results version 4 */
	{ "rate", RESULT_FIELD_RATE, AT(rate), 0, true, false, RESULT_JSON_OMIT, false,
	  0, 0, 7, "REAL" },
	/* out of 0 to 999,999 a repeat reads as 0 (see result_from_json) */
	{ "repeat", RESULT_FIELD_INT, AT(repeat), 0, false, false, RESULT_JSON_ZERO, false,
	  INT64_MIN, INT64_MAX, 2, "INTEGER NOT NULL DEFAULT 0" },
	{ "seq", RESULT_FIELD_LONG, AT(seq), 0, false, true, RESULT_JSON_VALUE, false,
	  0, INT64_MAX, 1, "INTEGER NOT NULL" },
	{ "trace_id", RESULT_FIELD_LONG, AT(trace_id), 0, false, false, RESULT_JSON_VALUE, false,
	  INT64_MIN, INT64_MAX, 1, "INTEGER" },
	{ "session", RESULT_FIELD_LONG, AT(session), 0, true, false, RESULT_JSON_OMIT, false,
	  -1, 0x7fffffffL, 6, "INTEGER" },
	{ "turn", RESULT_FIELD_LONG, AT(turn), 0, true, false, RESULT_JSON_OMIT, false,
	  -1, 0x7fffffffL, 6, "INTEGER" },
	{ "warmup", RESULT_FIELD_BOOL, AT(warmup), 0, false, false, RESULT_JSON_VALUE, false,
	  0, 0, 1, "INTEGER NOT NULL" },
	/* out of 0 to 999 a status reads as 0, no response */
	{ "status", RESULT_FIELD_INT, AT(status), 0, false, false, RESULT_JSON_VALUE, false,
	  INT64_MIN, INT64_MAX, 1, "INTEGER" },
	{ "error", RESULT_FIELD_ERROR, AT(error), RESULT_ERROR_MAX, true, false, RESULT_JSON_NULL,
	  false, 0, 0, 1, "TEXT" },
	{ "error_detail", RESULT_FIELD_ERROR_DETAIL, AT(error_detail), 0, true, false, RESULT_JSON_OMIT,
	  false, 0, 0, 1, "TEXT" },
	/* offsets from the run's start: a warm-up sent before an anchored
	 * start (--start-at) has a negative one */
	{ "sched_ns", RESULT_FIELD_I64, AT(sched_ns), 0, false, false, RESULT_JSON_VALUE, false,
	  -NS, NS, 1, "INTEGER" },
	{ "send_ns", RESULT_FIELD_I64, AT(send_ns), 0, false, true, RESULT_JSON_VALUE, false,
	  -NS, NS, 1, "INTEGER" },
	{ "ttft_ns", RESULT_FIELD_I64, AT(ttft_ns), 0, true, false, RESULT_JSON_NULL, false,
	  -1, NS, 1, "INTEGER" },
	{ "ttfa_ns", RESULT_FIELD_I64, AT(ttfa_ns), 0, true, false, RESULT_JSON_NULL, false,
	  -1, NS, 1, "INTEGER" },
	{ "e2e_ns", RESULT_FIELD_I64, AT(e2e_ns), 0, false, true, RESULT_JSON_VALUE, false,
	  0, NS, 1, "INTEGER" },
	{ "input_tokens", RESULT_FIELD_I64, AT(input_tokens), 0, true, false, RESULT_JSON_NULL,
	  false, -1, TOK, 1, "INTEGER" },
	{ "output_tokens", RESULT_FIELD_I64, AT(output_tokens), 0, false, true, RESULT_JSON_VALUE,
	  false, 0, TOK, 1, "INTEGER" },
	{ "tokens_estimated", RESULT_FIELD_BOOL, AT(tokens_estimated), 0, false, false,
	  RESULT_JSON_VALUE, false, 0, 0, 1, "INTEGER NOT NULL" },
	{ "tokens_source", RESULT_FIELD_TOKENS_SOURCE, AT(tokens_source), 0, true, false, RESULT_JSON_VALUE,
	  false, 0, 0, 4, "TEXT" },
	{ "token_events", RESULT_FIELD_I64, AT(token_events), 0, true, false, RESULT_JSON_NULL,
	  false, -1, TOK, 4, "INTEGER" },
	{ "cached_tokens", RESULT_FIELD_I64, AT(cached_tokens), 0, true, false, RESULT_JSON_NULL,
	  false, -1, TOK, 4, "INTEGER" },
	{ "salt", RESULT_FIELD_TEXT, AT(salt), RESULT_SALT_MAX, true, false, RESULT_JSON_OMIT,
	  false, 0, 0, 4, "TEXT" },
	{ "cancel", RESULT_FIELD_TEXT, AT(cancel), RESULT_CANCEL_MAX, true, false,
	  RESULT_JSON_OMIT, false, 0, 0, 13, "TEXT" },
	{ "model", RESULT_FIELD_TEXT, AT(model), RESULT_MODEL_MAX, true, false, RESULT_JSON_OMIT,
	  false, 0, 0, 14, "TEXT" },
	{ "new_connection", RESULT_FIELD_BOOL, AT(new_connection), 0, false, false,
	  RESULT_JSON_VALUE, false, 0, 0, 4, "INTEGER NOT NULL DEFAULT 0" },
	{ "connect_ns", RESULT_FIELD_I64, AT(connect_ns), 0, true, false, RESULT_JSON_NULL, false,
	  -1, NS, 4, "INTEGER" },
	{ "tls_ns", RESULT_FIELD_I64, AT(tls_ns), 0, true, false, RESULT_JSON_NULL, false,
	  -1, NS, 4, "INTEGER" },
	/* written only as false; a database before version 3 held streamed
	 * requests alone */
	{ "streamed", RESULT_FIELD_STREAMED, AT(unstreamed), 0, false, false, RESULT_JSON_OMIT, false,
	  0, 0, 3, "INTEGER NOT NULL DEFAULT 1" },
	{ "client_issue_ns", RESULT_FIELD_I64, AT(issue_ns), 0, true, false, RESULT_JSON_OMIT,
	  false, -1, NS, 15, "INTEGER" },
	{ "client_read_ns", RESULT_FIELD_I64, AT(read_ns), 0, true, false, RESULT_JSON_OMIT,
	  false, -1, NS, 15, "INTEGER" },
	{ "server_timings", RESULT_FIELD_SERVER_TIMINGS, AT(server.shape), 0, true, false, RESULT_JSON_OMIT,
	  true, 0, 0, 9, "TEXT" },
	{ "server_queue_ns", RESULT_FIELD_I64, AT(server.queue_ns), 0, true, false,
	  RESULT_JSON_NULL, true, -1, NS, 9, "INTEGER" },
	{ "server_prefill_ns", RESULT_FIELD_I64, AT(server.prefill_ns), 0, true, false,
	  RESULT_JSON_NULL, true, -1, NS, 9, "INTEGER" },
	{ "server_decode_ns", RESULT_FIELD_I64, AT(server.decode_ns), 0, true, false,
	  RESULT_JSON_NULL, true, -1, NS, 9, "INTEGER" },
	/* gaps between token events: whole microseconds in a file, with three
	 * decimals in the database */
	{ "itl_us", RESULT_FIELD_GAPS, AT(itl_ns), 0, false, false, RESULT_JSON_VALUE, false,
	  0, 0, 1, "TEXT" },
};

const size_t result_n_fields = sizeof(result_fields) / sizeof(result_fields[0]);

const struct result_field *result_field_find(const char *name)
{
	size_t i;

	for (i = 0; i < result_n_fields; i++)
		if (strcmp(result_fields[i].name, name) == 0)
			return &result_fields[i];
	return NULL;
}

int64_t result_field_get(const struct result *r, const struct result_field *f)
{
	const char *p = (const char *)r + f->off;

	switch (f->type) {
	case RESULT_FIELD_I64:
		return *(const int64_t *)(const void *)p;
	case RESULT_FIELD_LONG:
		return *(const long *)(const void *)p;
	case RESULT_FIELD_INT:
		return *(const int *)(const void *)p;
	case RESULT_FIELD_BOOL:
		return *(const bool *)(const void *)p;
	default:
		return 0;
	}
}

void result_field_set(struct result *r, const struct result_field *f, int64_t v)
{
	char *p = (char *)r + f->off;

	switch (f->type) {
	case RESULT_FIELD_I64:
		*(int64_t *)(void *)p = v;
		break;
	case RESULT_FIELD_LONG:
		*(long *)(void *)p = (long)v;
		break;
	case RESULT_FIELD_INT:
		*(int *)(void *)p = v < INT_MIN || v > INT_MAX ? 0 : (int)v;
		break;
	case RESULT_FIELD_BOOL:
		*(bool *)(void *)p = v != 0;
		break;
	default:
		break;
	}
}

const char *result_field_text(const struct result *r, const struct result_field *f)
{
	return f->type == RESULT_FIELD_TEXT ? (const char *)r + f->off : NULL;
}

void result_field_set_text(struct result *r, const struct result_field *f, const char *s)
{
	if (f->type == RESULT_FIELD_TEXT)
		snprintf((char *)r + f->off, f->size, "%s", s ? s : "");
}
