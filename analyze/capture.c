/*
 * capture.c - a `record proxy` capture read as a run; see capture.h.
 */
#include "analyze/capture.h"
#include "lib/errmsg.h"
#include "lib/load.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "lib/trace.h"
#include "lib/tracefile.h"

void capture_run_release(struct capture_run *r)
{
	db_import_release(&r->run);
	free(r->damage);
	r->damage = NULL;
	r->skipped = 0;
}

/* "dir/prod.jsonl.gz" -> "prod" (malloc). */
static char *capture_label(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > 9 && strcmp(base + len - 9, ".jsonl.gz") == 0)
		len -= 9;
	else if (len > 6 && strcmp(base + len - 6, ".jsonl") == 0)
		len -= 6;
	return strndup(base, len);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* The model the request's body names, malloc'd, or NULL. */
static char *capture_model(const struct trace_request *t)
{
	cJSON *body = cJSON_ParseWithLength(t->body, t->body_len);
	char *model = dup_or_null(cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(body, "model")));

	cJSON_Delete(body);
	return model;
}

/* Appends the result of one capture record to out. */
static int capture_record(struct capture_run *out, size_t *cap, const cJSON *rec,
			  const char *path, size_t line, char *err, size_t errlen)
{
	struct trace_request t;
	struct result *r;
	char ferr[256];
	int rc = DB_ERR_INPUT;

	trace_request_init(&t);
	if (trace_request_from_json(&t, rec, ferr, sizeof(ferr)) != 0) {
		errmsg_set(err, errlen, "'%s' line %zu: %s", path, line, ferr);
		goto cleanup;
	}
	if (!trace_kind_is_inference(t.kind)) {
		out->skipped++;
		rc = DB_OK;
		goto cleanup;
	}
	if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(rec, "recorded"))) {
		errmsg_set(err, errlen, "'%s' line %zu: request %ld has no \"recorded\" outcome",
			   path, line, t.id);
		goto cleanup;
	}
	if (out->run.n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		struct result *nr = realloc(out->run.results, ncap * sizeof(*nr));

		if (!nr) {
			errmsg_set(err, errlen, "'%s': out of memory", path);
			rc = DB_ERR_WORK;
			goto cleanup;
		}
		out->run.results = nr;
		*cap = ncap;
	}
	r = &out->run.results[out->run.n];
	result_init(r);
	out->run.n++;
	if (result_from_json(r, cJSON_GetObjectItemCaseSensitive(rec, "recorded"), ferr,
			     sizeof(ferr)) != 0) {
		errmsg_set(err, errlen, "'%s' line %zu: recorded: %s", path, line, ferr);
		goto cleanup;
	}
	/* What a client saw: one open-loop level, from its arrival. */
	r->level = load_code(load_open(NAN));
	r->repeat = 0;
	r->warmup = false;
	r->seq = r->trace_id = t.id;
	r->sched_ns = r->send_ns = t.arrival_ns;
	if (!out->run.model)
		out->run.model = capture_model(&t);
	rc = DB_OK;
cleanup:
	trace_request_release(&t);
	return rc;
}

/* The run's params: what it is and what was left out. */
static char *capture_params(const struct capture_run *out, const char *upstream)
{
	cJSON *p = cJSON_CreateObject(), *notes;
	char note[160];
	char *text;

	if (!p)
		return NULL;
	cJSON_AddStringToObject(p, "mode", "open");
	cJSON_AddStringToObject(p, "arrival", "capture");
	cJSON_AddStringToObject(p, "source_format", "capture");
	if (upstream)
		cJSON_AddStringToObject(p, "upstream", upstream);
	notes = cJSON_AddArrayToObject(p, "notes");
	cJSON_AddItemToArray(notes, cJSON_CreateString(
		"a record proxy capture: what clients saw, timed from each request's "
		"arrival at the proxy"));
	if (out->skipped) {
		snprintf(note, sizeof(note), "%zu request%s not for inference (models list, "
			 "HEAD, ...) left out", out->skipped, out->skipped == 1 ? "" : "s");
		cJSON_AddItemToArray(notes, cJSON_CreateString(note));
	}
	text = cJSON_PrintUnformatted(p);
	cJSON_Delete(p);
	return text;
}

int capture_read(const char *path, struct capture_run *out, char *err, size_t errlen)
{
	char rerr[TRACEFILE_ERRLEN];
	struct tracefile_reader *rd;
	const cJSON *hdr, *src;
	const char *kind, *upstream, *damage;
	cJSON *rec = NULL;
	size_t cap = 0;
	char id[64];
	int got, rc = DB_OK;

	memset(out, 0, sizeof(*out));
	rd = tracefile_reader_open(path, TRACEFILE_KIND_TRACE, rerr, sizeof(rerr));
	if (!rd) {
		errmsg_set(err, errlen, "%s", rerr);
		return DB_ERR_INPUT;
	}
	hdr = tracefile_reader_header(rd);
	src = cJSON_GetObjectItemCaseSensitive(hdr, "source");
	kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(src, "kind"));
	upstream = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(src, "upstream"));
	if (!kind || strcmp(kind, "proxy") != 0) {
		errmsg_set(err, errlen, "'%s' is a trace, not a results file (of traces, only a "
			   "record proxy capture loads as a run)", path);
		rc = DB_ERR_INPUT;
		goto cleanup;
	}
	while ((got = tracefile_reader_next(rd, &rec)) == 1) {
		rc = capture_record(out, &cap, rec, path, tracefile_reader_lineno(rd), err, errlen);
		cJSON_Delete(rec);
		rec = NULL;
		if (rc)
			goto cleanup;
	}
	if (got < 0) {
		errmsg_set(err, errlen, "%s", tracefile_reader_error(rd));
		rc = DB_ERR_INPUT;
		goto cleanup;
	}
	if (out->run.n == 0) {
		errmsg_set(err, errlen, "'%s' holds no inference requests to load", path);
		rc = DB_ERR_INPUT;
		goto cleanup;
	}
	damage = tracefile_reader_damage(rd);
	out->run.trace_digest = strdup(tracefile_reader_digest(rd));
	out->run.trace_crc32 = strdup(tracefile_reader_crc32(rd));
	snprintf(id, sizeof(id), "capture-%s", out->run.trace_digest ? out->run.trace_digest : "");
	out->run.run_id = strdup(id);
	out->run.label = capture_label(path);
	out->run.created = dup_or_null(cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(hdr, "created")));
	out->run.tool = dup_or_null(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(hdr, "tool")));
	out->run.endpoint = dup_or_null(upstream);
	out->run.trace_path = strdup(path);
	out->run.mode = strdup("open");
	out->run.params_json = capture_params(out, upstream);
	out->damage = dup_or_null(damage);
	if (!out->run.trace_digest || !out->run.trace_crc32 || !out->run.run_id || !out->run.label || !out->run.trace_path || !out->run.mode ||
	    !out->run.params_json || (damage && !out->damage)) {
		errmsg_set(err, errlen, "'%s': out of memory", path);
		rc = DB_ERR_WORK;
	}
cleanup:
	tracefile_reader_close(rd);
	if (rc)
		capture_run_release(out);
	return rc;
}
