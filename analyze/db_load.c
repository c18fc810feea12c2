/*
 * db_load.c - loading into the analysis database: a results file (or an
 * import of another tool's) becomes a row of 'runs' and its requests, in
 * one transaction, so a bad record leaves the database as it was; a shard
 * joins its run when its parameters match. See db.h.
 */
#include "analyze/db.h"
#include "analyze/db_sql.h"
#include "lib/errmsg.h"
#include "lib/gaps.h"
#include "lib/metric.h"
#include "lib/result_field.h"
#include "lib/tracefile.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>
#include <cjson/cJSON.h>

#include "lib/clock.h"
#include "lib/json.h"
#include "lib/tracefile.h"

/* The fields of a results header that become a row of 'runs'. Strings
 * point into the header (owned by the reader) except params_json. */
struct run_header {
	const char *run_id;
	const char *label;
	const char *created;
	const char *tool;
	const char *endpoint;
	const char *model;
	const char *trace_path;
	const char *trace_digest;
	const char *trace_crc32;
	const char *mode;
	const cJSON *params; /* in the header */
	char *params_json;   /* owned: cJSON_PrintUnformatted of "params" */
	char *clock_json;    /* owned: of "clock", NULL when absent */
	char *provenance_json;   /* owned: of "provenance", NULL when absent */
};

void db_load_info_release(struct db_load_info *info)
{
	free(info->run_id);
	free(info->label);
	free(info->damage);
	memset(info, 0, sizeof(*info));
}

/*
 * Sets *out to the string field 'name' of obj, NULL when absent or null.
 * Any other type is an error naming the field.
 */
static int db_header_string(const cJSON *obj, const char *name, const char **out,
			    const char *path, char *err, size_t errlen)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, name);

	*out = NULL;
	if (!item || cJSON_IsNull(item))
		return DB_OK;
	if (!cJSON_IsString(item)) {
		errmsg_set(err, errlen, "'%s': header field '%s' is not a string", path, name);
		return DB_ERR_INPUT;
	}
	*out = item->valuestring;
	return DB_OK;
}

static int db_header_object(const cJSON *obj, const char *name, const cJSON **out,
			    const char *path, char *err, size_t errlen)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, name);

	*out = NULL;
	if (!item || cJSON_IsNull(item))
		return DB_OK;
	if (!cJSON_IsObject(item)) {
		errmsg_set(err, errlen, "'%s': header field '%s' is not an object", path, name);
		return DB_ERR_INPUT;
	}
	*out = item;
	return DB_OK;
}

/* Fills h from a results header; the caller frees h->params_json. */
static int db_parse_header(const cJSON *hdr, const char *path, const char *label,
			   struct run_header *h, char *err, size_t errlen)
{
	const cJSON *trace = NULL, *params = NULL, *clock = NULL, *prov = NULL;
	int rc;

	memset(h, 0, sizeof(*h));
	if ((rc = db_header_string(hdr, "run_id", &h->run_id, path, err, errlen)) ||
	    (rc = db_header_string(hdr, "label", &h->label, path, err, errlen)) ||
	    (rc = db_header_string(hdr, "created", &h->created, path, err, errlen)) ||
	    (rc = db_header_string(hdr, "tool", &h->tool, path, err, errlen)) ||
	    (rc = db_header_string(hdr, "endpoint", &h->endpoint, path, err, errlen)) ||
	    (rc = db_header_string(hdr, "model", &h->model, path, err, errlen)) ||
	    (rc = db_header_object(hdr, "trace", &trace, path, err, errlen)) ||
	    (rc = db_header_object(hdr, "params", &params, path, err, errlen)) ||
	    (rc = db_header_object(hdr, "clock", &clock, path, err, errlen)) ||
	    (rc = db_header_object(hdr, "provenance", &prov, path, err, errlen)))
		return rc;
	if (!h->run_id || !*h->run_id) {
		errmsg_set(err, errlen, "'%s': header has no run_id", path);
		return DB_ERR_INPUT;
	}
	if (trace &&
	    ((rc = db_header_string(trace, "path", &h->trace_path, path, err, errlen)) ||
	     (rc = db_header_string(trace, "digest", &h->trace_digest, path, err, errlen)) ||
	     (rc = db_header_string(trace, "crc32", &h->trace_crc32, path, err, errlen))))
		return rc;
	if (params) {
		rc = db_header_string(params, "mode", &h->mode, path, err, errlen);
		if (rc)
			return rc;
		h->params = params;
		h->params_json = cJSON_PrintUnformatted(params);
		if (!h->params_json) {
			errmsg_set(err, errlen, "'%s': out of memory", path);
			return DB_ERR_WORK;
		}
	}
	if ((clock && !(h->clock_json = cJSON_PrintUnformatted(clock))) ||
	    (prov && !(h->provenance_json = cJSON_PrintUnformatted(prov)))) {
		errmsg_set(err, errlen, "'%s': out of memory", path);
		return DB_ERR_WORK;
	}
	if (label)
		h->label = label;
	if (!h->label || !*h->label)
		h->label = h->run_id;
	return DB_OK;
}

/*
 * If run_id is in the database, sets *label to its stored label (malloc'd)
 * and *found to 1; else *found to 0.
 */
static int db_find_run(struct db *db, const char *run_id, int *found, char **label,
		       char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = db_prepare(db, "SELECT label FROM runs WHERE run_id = ?1", &st, err, errlen);
	if (rc)
		goto cleanup;
	db_bind_text(st, 1, run_id);
	switch (sqlite3_step(st)) {
	case SQLITE_ROW:
		*found = 1;
		*label = db_column_strdup(st, 0);
		break;
	case SQLITE_DONE:
		*found = 0;
		break;
	default:
		rc = db_sqlerr(db, err, errlen);
	}
cleanup:
	sqlite3_finalize(st);
	return rc;
}

/*
 * The first key, other than "shard", whose value differs between a and b
 * (objects); NULL when none does. Its values go to va and vb (len bytes
 * each, "absent" when missing), shortened.
 */
static const char *db_params_diff(const cJSON *a, const cJSON *b, char *va, char *vb, size_t len)
{
	const cJSON *pass[2] = { a, b }, *item;
	int i;

	for (i = 0; i < 2; i++) {
		cJSON_ArrayForEach(item, pass[i]) {
			const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, item->string);
			const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, item->string);
			char *sx, *sy;

			if (strcmp(item->string, "shard") == 0 || (x && y && cJSON_Compare(x, y, 1)))
				continue;
			sx = x ? cJSON_PrintUnformatted(x) : NULL;
			sy = y ? cJSON_PrintUnformatted(y) : NULL;
			snprintf(va, len, "%.60s", sx ? sx : "absent");
			snprintf(vb, len, "%.60s", sy ? sy : "absent");
			cJSON_free(sx);
			cJSON_free(sy);
			return item->string;
		}
	}
	return NULL;
}

/*
 * Shards merge only into a run of the same shards: a results file that is
 * a shard ("shard" in its params), or that joins a label holding shards,
 * must be a shard of the same count, of the same trace, with the same
 * parameters but the shard, and not one loaded already. Two files that
 * are no shards are two runs: merged, they would double the run's
 * throughput, so the second is refused with a word on distinct labels.
 */
static int db_check_merge(struct db *db, const struct run_header *h, const char *path,
			  char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	const char *mine = db_params_shard(h->params);
	long my_k = 0, my_n = db_shard_count(mine, &my_k);
	int step, rc;

	rc = db_prepare(db, "SELECT source, trace_digest, params, trace_crc32 FROM runs"
			" WHERE label = ?1"
			" ORDER BY rowid", &st, err, errlen);
	if (rc)
		return rc;
	db_bind_text(st, 1, h->label);
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *src = (const char *)sqlite3_column_text(st, 0);
		const char *digest = (const char *)sqlite3_column_text(st, 1);
		const char *ptext = (const char *)sqlite3_column_text(st, 2);
		cJSON *other = ptext ? cJSON_Parse(ptext) : NULL;
		const char *theirs = db_params_shard(other), *key;
		long k = 0, n = db_shard_count(theirs, &k);
		char va[64], vb[64];

		src = src ? src : "?";
		rc = DB_ERR_INPUT;
		if (!mine && !theirs)
			errmsg_set(err, errlen, "'%s': run '%s' holds '%s' already, and the two "
				   "are not shards of one run; load it under a label of its own "
				   "(--label NAME)", path, h->label, src);
		else if (!mine || !theirs)
			errmsg_set(err, errlen, "'%s': cannot join run '%s': %s a shard and '%s' %s",
				   path, h->label, mine ? "it is" : "it is not", src,
				   mine ? "is not" : "is");
		else if (!digest || !h->trace_digest ||
			 !tracefile_same_trace(digest, (const char *)sqlite3_column_text(st, 3),
					       h->trace_digest, h->trace_crc32))
			errmsg_set(err, errlen, "'%s': cannot join run '%s': it replayed trace %s, "
				   "'%s' trace %s", path, h->label,
				   h->trace_digest ? h->trace_digest : "unknown", src,
				   digest ? digest : "unknown");
		else if ((key = db_params_diff(h->params, other, va, vb, sizeof(va))))
			errmsg_set(err, errlen, "'%s': cannot join run '%s': its %s (%s) differs "
				   "from that of '%s' (%s)", path, h->label, key, va, src, vb);
		else if (!my_n || my_n != n)
			errmsg_set(err, errlen, "'%s': cannot join run '%s': it is shard %s, '%s' "
				   "shard %s", path, h->label, mine, src, theirs);
		else if (my_k == k)
			errmsg_set(err, errlen, "'%s': shard %s of run '%s' is loaded already "
				   "(from '%s')", path, mine, h->label, src);
		else
			rc = DB_OK;
		cJSON_Delete(other);
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_sqlerr(db, err, errlen);
	sqlite3_finalize(st);
	return rc;
}

static int db_insert_run(struct db *db, const struct run_header *h, const char *source,
			 char *err, size_t errlen)
{
	static const char sql[] =
		"INSERT INTO runs (run_id, label, created, tool, endpoint, model,"
		" trace_path, trace_digest, mode, params, source, loaded_at, clock, provenance,"
		" trace_crc32)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)";
	sqlite3_stmt *st = NULL;
	char now[32];
	int rc;

	clock_utc_iso8601(now, sizeof(now));
	rc = db_prepare(db, sql, &st, err, errlen);
	if (rc)
		goto cleanup;
	db_bind_text(st, 1, h->run_id);
	db_bind_text(st, 2, h->label);
	db_bind_text(st, 3, h->created);
	db_bind_text(st, 4, h->tool);
	db_bind_text(st, 5, h->endpoint);
	db_bind_text(st, 6, h->model);
	db_bind_text(st, 7, h->trace_path);
	db_bind_text(st, 8, h->trace_digest);
	db_bind_text(st, 9, h->mode);
	db_bind_text(st, 10, h->params_json);
	db_bind_text(st, 11, source);
	db_bind_text(st, 12, now);
	db_bind_text(st, 13, h->clock_json);
	db_bind_text(st, 14, h->provenance_json);
	db_bind_text(st, 15, h->trace_crc32);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = db_sqlerr(db, err, errlen);
cleanup:
	sqlite3_finalize(st);
	return rc;
}

/* A reusable text buffer for the itl_us JSON array of each row
 * (lib/gaps.h's exact form). */
struct itl_text {
	char *buf;
	size_t cap;
};

/* Binds one record to the prepared INSERT of db_insert_request_sql:
 * run_id is ?1, the field result_fields[i] ?(i + 2). */
static void db_bind_result(sqlite3_stmt *st, const char *run_id, const struct result *r,
			   const char *itl_json)
{
	size_t i;

	sqlite3_bind_text(st, 1, run_id, -1, SQLITE_TRANSIENT);
	for (i = 0; i < result_n_fields; i++) {
		const struct result_field *f = &result_fields[i];
		int k = (int)i + 2;
		int64_t v = result_field_get(r, f);
		const char *text = result_field_text(r, f);

		switch (f->type) {
		case RESULT_FIELD_I64:
		case RESULT_FIELD_LONG:
		case RESULT_FIELD_INT:
		case RESULT_FIELD_BOOL:
			if (f->optional)
				db_bind_opt_int64(st, k, v);
			else
				sqlite3_bind_int64(st, k, v);
			break;
		case RESULT_FIELD_TEXT:
			db_bind_text(st, k, text[0] ? text : NULL);
			break;
		case RESULT_FIELD_ERROR:
			db_bind_text(st, k, r->error[0] ? r->error : NULL);
			break;
		case RESULT_FIELD_ERROR_DETAIL:
			db_bind_text(st, k, r->error[0] ? r->error_detail : NULL);
			break;
		case RESULT_FIELD_RATE:
			if (load_of_code(r->level, 0).kind == LOAD_RATE && r->rate > 0)
				sqlite3_bind_double(st, k, r->rate);
			else
				sqlite3_bind_null(st, k);
			break;
		case RESULT_FIELD_TOKENS_SOURCE:
			sqlite3_bind_text(st, k, result_tokens_name(r->tokens_source), -1,
					  SQLITE_STATIC);
			break;
		case RESULT_FIELD_STREAMED:
			sqlite3_bind_int(st, k, !r->unstreamed);
			break;
		case RESULT_FIELD_SERVER_TIMINGS:
			db_bind_text(st, k, srvtiming_shape_name(r->server.shape));
			break;
		case RESULT_FIELD_GAPS:
			sqlite3_bind_text(st, k, itl_json, -1, SQLITE_TRANSIENT);
			break;
		}
	}
}

/* Prepares "INSERT INTO requests (run_id, <every field>) VALUES (?1,
 * ...)", which db_bind_result binds. */
static int db_prepare_insert_request(struct db *db, sqlite3_stmt **st, char *err, size_t errlen)
{
	char sql[2048];
	size_t len, i;

	len = (size_t)snprintf(sql, sizeof(sql), "INSERT INTO requests (run_id");
	for (i = 0; i < result_n_fields && len < sizeof(sql); i++)
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, ", %s", result_fields[i].name);
	if (len < sizeof(sql))
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, ") VALUES (?1");
	for (i = 0; i < result_n_fields && len < sizeof(sql); i++)
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, ", ?%zu", i + 2);
	if (len < sizeof(sql))
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, ")");
	if (len >= sizeof(sql)) {
		errmsg_set(err, errlen, "the requests' INSERT does not fit %zu bytes", sizeof(sql));
		return DB_ERR_WORK;
	}
	return db_prepare(db, sql, st, err, errlen);
}

/* The statements a metrics record is inserted with. */
struct metrics_insert {
	sqlite3_stmt *scrape, *sample;
	long next;                /* the next scrape's number */
};

static const char db_insert_scrape_sql[] =
	"INSERT INTO metric_scrapes (run_id, scrape, level, repeat, t_ns, latency_us, status,"
	" ok, error, bad_lines, first_bad, at, source)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";
static const char db_insert_sample_sql[] =
	"INSERT INTO metric_samples (run_id, scrape, name, series, value)"
	" VALUES (?1, ?2, ?3, ?4, ?5)";

/* Longest "source" kept: a URL as a --metrics-url can be. */
#define DB_MAX_SOURCE 2048

/* Longest series name kept (replay writes at most 1023 bytes). */
#define DB_MAX_SERIES 1024

/*
 * A "metrics" record (schema/FORMAT.md) into metric_scrapes and
 * metric_samples. Returns 0, DB_ERR_INPUT with why in err (a field out of
 * range or of the wrong type), or an SQLite error.
 */
static int db_insert_metrics(struct db *db, struct metrics_insert *mi, const char *run_id,
			     const cJSON *rec, char *err, size_t errlen)
{
	int64_t t_ns = 0, level = 0, repeat = 0, latency = 0, status = 0, bad = 0;
	const cJSON *ok = cJSON_GetObjectItemCaseSensitive(rec, "ok");
	const cJSON *samples = cJSON_GetObjectItemCaseSensitive(rec, "samples");
	const cJSON *at = cJSON_GetObjectItemCaseSensitive(rec, "at");
	const cJSON *source = cJSON_GetObjectItemCaseSensitive(rec, "source");
	const cJSON *x;
	long scrape = mi->next;

	if (json_get_int64(rec, "t_ns", &t_ns) != 1 || t_ns < -RESULT_MAX_NS || t_ns > RESULT_MAX_NS ||
	    json_get_int64(rec, "level", &level) != 1 || level < -RESULT_MAX_RATE_LEVELS ||
	    level > 1000000 ||
	    json_get_int64(rec, "repeat", &repeat) < 0 || repeat < 0 || repeat > 1000000 ||
	    json_get_int64(rec, "latency_us", &latency) < 0 || latency < 0 ||
	    latency > RESULT_MAX_NS / 1000 ||
	    json_get_int64(rec, "status", &status) < 0 || status < 0 || status > 999 ||
	    json_get_int64(rec, "bad_lines", &bad) < 0 || bad < 0 || bad > INT32_MAX ||
	    !cJSON_IsBool(ok) || (samples && !cJSON_IsObject(samples)) ||
	    (at && (!cJSON_IsString(at) || (strcmp(at->valuestring, "level_start") &&
					    strcmp(at->valuestring, "level_end") &&
					    strcmp(at->valuestring, "between")))) ||
	    (source && (!cJSON_IsString(source) || !source->valuestring[0] ||
			strlen(source->valuestring) > DB_MAX_SOURCE))) {
		errmsg_set(err, errlen, "a metrics record with a field missing or out of range");
		return DB_ERR_INPUT;
	}
	sqlite3_bind_text(mi->scrape, 1, run_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(mi->scrape, 2, scrape);
	sqlite3_bind_int64(mi->scrape, 3, level);
	sqlite3_bind_int64(mi->scrape, 4, repeat);
	sqlite3_bind_int64(mi->scrape, 5, t_ns);
	sqlite3_bind_int64(mi->scrape, 6, latency);
	sqlite3_bind_int64(mi->scrape, 7, status);
	sqlite3_bind_int(mi->scrape, 8, cJSON_IsTrue(ok));
	db_bind_text(mi->scrape, 9, json_get_string(rec, "error"));
	sqlite3_bind_int64(mi->scrape, 10, bad);
	db_bind_text(mi->scrape, 11, json_get_string(rec, "first_bad"));
	db_bind_text(mi->scrape, 12, at ? at->valuestring : NULL);
	db_bind_text(mi->scrape, 13, source ? source->valuestring : NULL);
	if (sqlite3_step(mi->scrape) != SQLITE_DONE)
		return db_sqlerr(db, err, errlen);
	sqlite3_reset(mi->scrape);
	cJSON_ArrayForEach(x, samples) {
		const char *brace = strchr(x->string, '{');
		size_t nl = brace ? (size_t)(brace - x->string) : strlen(x->string);
		double v;

		if (cJSON_IsNumber(x))
			v = x->valuedouble;
		else if (cJSON_IsString(x) && !strcmp(x->valuestring, "NaN"))
			v = NAN;
		else if (cJSON_IsString(x) && !strcmp(x->valuestring, "+Inf"))
			v = INFINITY;
		else if (cJSON_IsString(x) && !strcmp(x->valuestring, "-Inf"))
			v = -INFINITY;
		else {
			errmsg_set(err, errlen, "metrics series '%.80s' has a value that is not a number",
				   x->string);
			return DB_ERR_INPUT;
		}
		if (!nl || strlen(x->string) >= DB_MAX_SERIES) {
			errmsg_set(err, errlen, "a metrics series name that is empty or too long");
			return DB_ERR_INPUT;
		}
		sqlite3_bind_text(mi->sample, 1, run_id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(mi->sample, 2, scrape);
		sqlite3_bind_text(mi->sample, 3, x->string, (int)nl, SQLITE_TRANSIENT);
		sqlite3_bind_text(mi->sample, 4, x->string, -1, SQLITE_TRANSIENT);
		if (isnan(v))
			sqlite3_bind_null(mi->sample, 5);
		else
			sqlite3_bind_double(mi->sample, 5, v);
		if (sqlite3_step(mi->sample) != SQLITE_DONE)
			return db_sqlerr(db, err, errlen);
		sqlite3_reset(mi->sample);
	}
	mi->next++;
	return 0;
}

/* Reads every record of rd and inserts it; sets *count. Inside a transaction. */
static int db_insert_records(struct db *db, struct tracefile_reader *rd, const char *path,
			     const char *run_id, size_t *count, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	struct itl_text itl = { NULL, 0 };
	struct metrics_insert mi = { NULL, NULL, 0 };
	struct result r;
	cJSON *rec = NULL;
	char rerr[256];
	size_t n = 0;
	int got, step;
	int rc;

	result_init(&r);
	rc = db_prepare_insert_request(db, &st, err, errlen);
	if (!rc)
		rc = db_prepare(db, db_insert_scrape_sql, &mi.scrape, err, errlen);
	if (!rc)
		rc = db_prepare(db, db_insert_sample_sql, &mi.sample, err, errlen);
	if (rc)
		goto cleanup;
	while ((got = tracefile_reader_next(rd, &rec)) == 1) {
		const char *type = json_get_string(rec, "type");

		if (type && !strcmp(type, "metrics")) {
			rc = db_insert_metrics(db, &mi, run_id, rec, rerr, sizeof(rerr));
			if (rc) {
				errmsg_set(err, errlen, "'%s' line %zu: %s", path,
					   tracefile_reader_lineno(rd), rerr);
				goto cleanup;
			}
			cJSON_Delete(rec);
			rec = NULL;
			continue;
		}
		result_release(&r);
		if (result_from_json(&r, rec, rerr, sizeof(rerr)) != 0) {
			errmsg_set(err, errlen, "'%s' line %zu: %s", path,
				  tracefile_reader_lineno(rd), rerr);
			rc = DB_ERR_INPUT;
			goto cleanup;
		}
		cJSON_Delete(rec);
		rec = NULL;
		if (gaps_format(r.itl_ns, r.n_itl, GAPS_EXACT, &itl.buf, &itl.cap) != 0) {
			errmsg_set(err, errlen, "'%s': out of memory", path);
			rc = DB_ERR_WORK;
			goto cleanup;
		}
		db_bind_result(st, run_id, &r, itl.buf);
		step = sqlite3_step(st);
		if (step == SQLITE_CONSTRAINT) {
			errmsg_set(err, errlen, "'%s' line %zu: duplicate seq %ld", path,
				  tracefile_reader_lineno(rd), r.seq);
			rc = DB_ERR_INPUT;
			goto cleanup;
		}
		if (step != SQLITE_DONE) {
			rc = db_sqlerr(db, err, errlen);
			goto cleanup;
		}
		sqlite3_reset(st);
		n++;
	}
	if (got < 0) {
		errmsg_set(err, errlen, "%s", tracefile_reader_error(rd));
		rc = DB_ERR_INPUT;
		goto cleanup;
	}
	*count = n;
cleanup:
	cJSON_Delete(rec);
	result_release(&r);
	free(itl.buf);
	sqlite3_finalize(st);
	sqlite3_finalize(mi.scrape);
	sqlite3_finalize(mi.sample);
	return rc;
}

int db_load_results(struct db *db, const char *path, const char *label,
		    struct db_load_info *info, char *err, size_t errlen)
{
	struct tracefile_reader *rd = NULL;
	struct run_header h = { 0 };
	char rerr[TRACEFILE_ERRLEN];
	char *stored_label = NULL;
	const char *damage;
	size_t count = 0;
	int in_tx = 0, found = 0;
	int rc;

	memset(info, 0, sizeof(*info));
	rd = tracefile_reader_open(path, TRACEFILE_KIND_RESULTS, rerr, sizeof(rerr));
	if (!rd) {
		errmsg_set(err, errlen, "%s", rerr);
		return DB_ERR_INPUT;
	}
	rc = db_parse_header(tracefile_reader_header(rd), path, label, &h, err, errlen);
	if (rc)
		goto cleanup;
	rc = db_exec(db, "BEGIN IMMEDIATE", err, errlen);
	if (rc)
		goto cleanup;
	in_tx = 1;
	rc = db_find_run(db, h.run_id, &found, &stored_label, err, errlen);
	if (rc)
		goto cleanup;
	if (found) {
		rc = DB_ALREADY_LOADED;
		goto cleanup;
	}
	rc = db_check_merge(db, &h, path, err, errlen);
	if (!rc)
		rc = db_insert_run(db, &h, path, err, errlen);
	if (!rc)
		rc = db_insert_records(db, rd, path, h.run_id, &count, err, errlen);
	if (!rc)
		rc = db_exec(db, "COMMIT", err, errlen);
	if (!rc)
		in_tx = 0;
cleanup:
	if (in_tx)
		db_rollback(db);
	if (rc == DB_OK || rc == DB_ALREADY_LOADED) {
		damage = rc == DB_OK ? tracefile_reader_damage(rd) : NULL;
		info->run_id = strdup(h.run_id);
		info->label = found ? stored_label : strdup(h.label);
		stored_label = NULL;
		info->requests = count;
		info->damage = damage ? strdup(damage) : NULL;
	}
	free(stored_label);
	free(h.params_json);
	free(h.clock_json);
	free(h.provenance_json);
	tracefile_reader_close(rd);
	return rc;
}

/* Inserts imp's results with the run_id 'run_id'. Inside a transaction. */
static int db_insert_results(struct db *db, const char *path, const char *run_id,
			     const struct db_import *imp, char *err, size_t errlen)
{
	struct itl_text itl = { NULL, 0 };
	sqlite3_stmt *st = NULL;
	size_t i;
	int step;
	int rc;

	rc = db_prepare_insert_request(db, &st, err, errlen);
	for (i = 0; !rc && i < imp->n; i++) {
		const struct result *r = &imp->results[i];

		if (gaps_format(r->itl_ns, r->n_itl, GAPS_EXACT, &itl.buf, &itl.cap) != 0) {
			errmsg_set(err, errlen, "'%s': out of memory", path);
			rc = DB_ERR_WORK;
			break;
		}
		db_bind_result(st, run_id, r, itl.buf);
		step = sqlite3_step(st);
		if (step == SQLITE_CONSTRAINT) {
			errmsg_set(err, errlen, "'%s': duplicate seq %ld", path, r->seq);
			rc = DB_ERR_INPUT;
		} else if (step != SQLITE_DONE) {
			rc = db_sqlerr(db, err, errlen);
		}
		sqlite3_reset(st);
	}
	free(itl.buf);
	sqlite3_finalize(st);
	return rc;
}

void db_import_release(struct db_import *imp)
{
	size_t i;

	for (i = 0; imp->results && i < imp->n; i++)
		result_release(&imp->results[i]);
	free(imp->results);
	free(imp->run_id);
	free(imp->label);
	free(imp->created);
	free(imp->tool);
	free(imp->endpoint);
	free(imp->model);
	free(imp->trace_path);
	free(imp->trace_digest);
	free(imp->trace_crc32);
	free(imp->mode);
	free(imp->params_json);
	memset(imp, 0, sizeof(*imp));
}

int db_load_import(struct db *db, const char *path, const struct db_import *imp,
		   const char *label, struct db_load_info *info, char *err, size_t errlen)
{
	struct run_header h = { 0 };
	char *stored_label = NULL;
	int in_tx = 0, found = 0;
	int rc;

	memset(info, 0, sizeof(*info));
	h.run_id = imp->run_id;
	h.label = label ? label : imp->label && *imp->label ? imp->label : imp->run_id;
	h.created = imp->created;
	h.tool = imp->tool;
	h.endpoint = imp->endpoint;
	h.model = imp->model;
	h.trace_path = imp->trace_path;
	h.trace_digest = imp->trace_digest;
	h.trace_crc32 = imp->trace_crc32;
	h.mode = imp->mode;
	h.params_json = (char *)imp->params_json;   /* read only: not freed here */
	rc = db_exec(db, "BEGIN IMMEDIATE", err, errlen);
	if (rc)
		return rc;
	in_tx = 1;
	rc = db_find_run(db, h.run_id, &found, &stored_label, err, errlen);
	if (!rc && found)
		rc = DB_ALREADY_LOADED;
	if (!rc)
		rc = db_insert_run(db, &h, path, err, errlen);
	if (!rc)
		rc = db_insert_results(db, path, h.run_id, imp, err, errlen);
	if (!rc)
		rc = db_exec(db, "COMMIT", err, errlen);
	if (!rc)
		in_tx = 0;
	if (in_tx)
		db_rollback(db);
	if (rc == DB_OK || rc == DB_ALREADY_LOADED) {
		info->run_id = strdup(h.run_id);
		info->label = found ? stored_label : strdup(h.label);
		stored_label = NULL;
		info->requests = rc == DB_OK ? imp->n : 0;
	}
	free(stored_label);
	return rc;
}
