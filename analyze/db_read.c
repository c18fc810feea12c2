/*
 * db_read.c - reading the analysis database back: runs, shards, levels,
 * the server's metrics and every request as struct result arrays, each
 * query through db_each_row (and into an array through db_rows_read). See
 * db.h.
 */
#include "analyze/db.h"
#include "analyze/db_sql.h"
#include "lib/errmsg.h"
#include "lib/gaps.h"
#include "lib/metric.h"
#include "lib/result_field.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>
#include <cjson/cJSON.h>


/* Columns db_export_rows hands out, at most; see db_export_cols. */
#define DB_EXPORT_MAX_COLS 48

/*
 * Steps the prepared query st to its end, calling fn on each row, and
 * finalizes it. fn returns DB_OK, DB_ERR_WORK when out of memory (the
 * message is written here) or another error with err written; the first
 * error stops the query.
 */
typedef int (*db_each_fn)(void *ctx, sqlite3_stmt *st, char *err, size_t errlen);

static int db_each_row(struct db *db, sqlite3_stmt *st, db_each_fn fn, void *ctx,
		       char *err, size_t errlen)
{
	int step = SQLITE_DONE, rc = DB_OK;

	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW)
		rc = fn(ctx, st, err, errlen);
	if (rc == DB_ERR_WORK)
		errmsg_set(err, errlen, "'%s': out of memory", db->path);
	else if (!rc && step != SQLITE_DONE)
		rc = db_sqlerr(db, err, errlen);
	sqlite3_finalize(st);
	return rc;
}

/*
 * The rows of a query read into an array, an element of 'size' bytes a
 * row: db_rows_read gives each row a zeroed element for fill (which
 * returns as db_each_fn's do); on any error every element read is
 * released and the array freed. Only a query's columns and the element's
 * type are left to each caller.
 */
struct db_rows {
	size_t size;
	int (*fill)(void *row, sqlite3_stmt *st, char *err, size_t errlen);
	void (*release)(void *row);     /* NULL: an element owns nothing */
};

struct db_rows_read {
	const struct db_rows *spec;
	char *items;
	size_t len, cap;
};

/* items (of *cap elements of 'size' bytes) with room for len + 1: the
 * array, moved or not, or NULL when out of memory (items is kept). */
static void *db_grow(void *items, size_t *cap, size_t len, size_t size)
{
	size_t ncap = *cap ? *cap * 2 : 16;
	void *p;

	if (len < *cap)
		return items;
	p = realloc(items, ncap * size);
	if (p)
		*cap = ncap;
	return p;
}

static int db_rows_add(void *ctx, sqlite3_stmt *st, char *err, size_t errlen)
{
	struct db_rows_read *rr = ctx;
	size_t size = rr->spec->size;

	char *p = db_grow(rr->items, &rr->cap, rr->len, size);

	if (!p)
		return DB_ERR_WORK;
	rr->items = p;
	memset(rr->items + rr->len * size, 0, size);
	return rr->spec->fill(rr->items + rr->len++ * size, st, err, errlen);
}

static void db_rows_free(const struct db_rows *spec, void *items, size_t n)
{
	size_t i;

	for (i = 0; items && spec->release && i < n; i++)
		spec->release((char *)items + i * spec->size);
	free(items);
}

static int db_rows_read(struct db *db, sqlite3_stmt *st, const struct db_rows *spec,
			void **out, size_t *n, char *err, size_t errlen)
{
	struct db_rows_read rr = { spec, NULL, 0, 0 };
	int rc = db_each_row(db, st, db_rows_add, &rr, err, errlen);

	if (rc) {
		db_rows_free(spec, rr.items, rr.len);
		rr.items = NULL;
		rr.len = 0;
	}
	*out = rr.items;
	*n = rr.len;
	return rc;
}

/* Prepares sql with ?1 bound to label. */
static int db_query(struct db *db, const char *sql, const char *label, sqlite3_stmt **st,
		    char *err, size_t errlen)
{
	int rc = db_prepare(db, sql, st, err, errlen);

	if (!rc)
		db_bind_text(*st, 1, label);
	return rc;
}

static void db_run_release(void *row)
{
	struct db_run *r = row;

	free(r->label);
	free(r->endpoint);
	free(r->model);
	free(r->trace_digest);
	free(r->trace_crc32);
	free(r->created);
	free(r->mode);
	free(r->params);
	run_params_release(&r->param);
	free(r->served);
	free(r->tags);
	free(r->provenance);
	free(r->trace_path);
}

static int db_run_fill(void *row, sqlite3_stmt *st, char *err, size_t errlen);
static const struct db_rows db_run_rows = {
	sizeof(struct db_run), db_run_fill, db_run_release
};

void db_runs_free(struct db_run *runs, size_t n)
{
	db_rows_free(&db_run_rows, runs, n);
}

static int db_run_fill(void *row, sqlite3_stmt *st, char *err, size_t errlen)
{
	struct db_run *r = row;

	(void)err, (void)errlen;
	r->label = db_column_strdup(st, 0);
	r->endpoint = db_column_strdup(st, 1);
	r->model = db_column_strdup(st, 2);
	r->trace_digest = db_column_strdup(st, 3);
	r->files = sqlite3_column_int(st, 4);
	r->created = db_column_strdup(st, 5);
	r->mode = db_column_strdup(st, 6);
	r->params = db_column_strdup(st, 7);
	r->served = db_column_strdup(st, 8);
	r->tags = db_column_strdup(st, 9);
	r->provenance = db_column_strdup(st, 10);
	r->trace_path = db_column_strdup(st, 11);
	r->trace_crc32 = db_column_strdup(st, 12);
	return r->label && run_params_read(r->params, &r->param) == 0 ? DB_OK : DB_ERR_WORK;
}

int db_runs(struct db *db, const char *label, struct db_run **runs, size_t *n,
	    char *err, size_t errlen)
{
	/* One row per label, described by its first results file; the model
	 * the server said it serves and the tags from its provenance. */
#define DB_RUNS_SQL(served, tags, prov, crc) \
		"SELECT r.label, r.endpoint, r.model, r.trace_digest," \
		" (SELECT count(*) FROM runs c WHERE c.label = r.label)," \
		" r.created, r.mode, r.params, " served ", " tags ", " prov ", r.trace_path, " crc \
		" FROM runs r" \
		" WHERE r.rowid = (SELECT f.rowid FROM runs f WHERE f.label = r.label" \
		"                  ORDER BY f.created, f.rowid LIMIT 1)" \
		"   AND (?1 IS NULL OR r.label = ?1)" \
		" ORDER BY r.created, r.rowid"
#define DB_RUNS_SERVED "json_extract(r.provenance, '$.server.models[0]')"
#define DB_RUNS_TAGS "(SELECT group_concat(t.key || '=' || t.value, ' ')" \
		     " FROM json_each(r.provenance, '$.tags') t)"
	const char *sql =
		db->version >= 12 ? DB_RUNS_SQL(DB_RUNS_SERVED, DB_RUNS_TAGS, "r.provenance",
						"r.trace_crc32") :
		db->version >= 8 ? DB_RUNS_SQL(DB_RUNS_SERVED, DB_RUNS_TAGS, "r.provenance", "NULL") :
		DB_RUNS_SQL("NULL", "NULL", "NULL", "NULL");
	sqlite3_stmt *st = NULL;
	void *v;
	int rc = db_query(db, sql, label, &st, err, errlen);

	if (!rc)
		rc = db_rows_read(db, st, &db_run_rows, &v, n, err, errlen);
	if (rc)
		return rc;
	if (*n == 0) {
		if (label)
			errmsg_set(err, errlen, "no run labelled '%s' in '%s'", label, db->path);
		else
			errmsg_set(err, errlen, "'%s' has no runs; add some with "
				  "'tracebench analyze load'", db->path);
		return DB_ERR_INPUT;
	}
	*runs = v;
	return DB_OK;
}

static void db_shard_release(void *row)
{
	struct db_shard *sh = row;

	free(sh->run_id);
	free(sh->source);
	free(sh->shard);
	free(sh->params);
	free(sh->clock);
	free(sh->lag_ms);
}

static int db_shard_fill(void *row, sqlite3_stmt *st, char *err, size_t errlen);
static const struct db_rows db_shard_rows = {
	sizeof(struct db_shard), db_shard_fill, db_shard_release
};

void db_shards_free(struct db_shard *s, size_t n)
{
	db_rows_free(&db_shard_rows, s, n);
}

/* Reads the send lags of one results file into sh->lag_ms (ascending). */
static int db_shard_lags(struct db *db, struct db_shard *sh, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	size_t i = 0;
	int step, rc;

	sh->lag_ms = malloc((sh->requests ? (size_t)sh->requests : 1) * sizeof(double));
	if (!sh->lag_ms) {
		errmsg_set(err, errlen, "'%s': out of memory", db->path);
		return DB_ERR_WORK;
	}
	rc = db_prepare(db, "SELECT send_ns - sched_ns FROM requests WHERE run_id = ?1"
			" AND warmup = 0 ORDER BY 1", &st, err, errlen);
	if (rc)
		return rc;
	db_bind_text(st, 1, sh->run_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW && i < (size_t)sh->requests)
		sh->lag_ms[i++] = (double)sqlite3_column_int64(st, 0) / 1e6;
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		rc = db_sqlerr(db, err, errlen);
	sh->requests = (long)i;
	sqlite3_finalize(st);
	return rc;
}

static int db_shard_fill(void *row, sqlite3_stmt *st, char *err, size_t errlen)
{
	struct db_shard *sh = row;
	cJSON *params;
	const char *mode;

	(void)err, (void)errlen;
	sh->run_id = db_column_strdup(st, 0);
	sh->source = db_column_strdup(st, 1);
	sh->params = db_column_strdup(st, 2);
	sh->clock = db_column_strdup(st, 3);
	sh->requests = (long)sqlite3_column_int64(st, 4);
	sh->first_send_ns = sqlite3_column_int64(st, 5);
	sh->first_sched_ns = sqlite3_column_int64(st, 6);
	sh->last_sched_ns = sqlite3_column_int64(st, 7);
	params = sh->params ? cJSON_Parse(sh->params) : NULL;
	mode = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "mode"));
	sh->open_loop = mode && strcmp(mode, "open") == 0;
	if (db_params_shard(params)) {
		sh->n = db_shard_count(db_params_shard(params), &sh->k);
		sh->shard = sh->n ? strdup(db_params_shard(params)) : NULL;
	}
	cJSON_Delete(params);
	return sh->run_id ? DB_OK : DB_ERR_WORK;
}

int db_shards(struct db *db, const char *label, int with_lags, struct db_shard **out,
	      size_t *n, char *err, size_t errlen)
{
#define DB_SHARDS_SQL(clock) \
		"SELECT r.run_id, r.source, r.params, " clock "," \
		" (SELECT count(*) FROM requests q WHERE q.run_id = r.run_id AND q.warmup = 0)," \
		" (SELECT min(send_ns) FROM requests q WHERE q.run_id = r.run_id AND q.warmup = 0)," \
		" (SELECT min(sched_ns) FROM requests q WHERE q.run_id = r.run_id AND q.warmup = 0)," \
		" (SELECT max(sched_ns) FROM requests q WHERE q.run_id = r.run_id AND q.warmup = 0)" \
		" FROM runs r WHERE r.label = ?1 ORDER BY r.rowid"
	const char *sql = db->version >= 3 ? DB_SHARDS_SQL("r.clock") : DB_SHARDS_SQL("NULL");
#undef DB_SHARDS_SQL
	struct db_shard *v;
	sqlite3_stmt *st = NULL;
	void *items;
	size_t i;
	int rc = db_query(db, sql, label, &st, err, errlen);

	if (!rc)
		rc = db_rows_read(db, st, &db_shard_rows, &items, n, err, errlen);
	if (rc)
		return rc;
	v = items;
	for (i = 0; with_lags && i < *n && !rc; i++)
		rc = db_shard_lags(db, &v[i], err, errlen);
	if (rc) {
		db_shards_free(v, *n);
		*n = 0;
		return rc;
	}
	*out = v;
	return DB_OK;
}

static int db_level_fill(void *row, sqlite3_stmt *st, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	*(int *)row = sqlite3_column_int(st, 0);
	return DB_OK;
}

int db_levels(struct db *db, const char *label, int **levels, size_t *n,
	      char *err, size_t errlen)
{
	/* a search over rates: its levels (-1, -2, ...) in order of rate */
	static const char sql[] =
		"SELECT q.level FROM requests q"
		" WHERE q.run_id IN (SELECT run_id FROM runs WHERE label = ?1)"
		" GROUP BY q.level ORDER BY q.level >= 0, max(q.rate), q.level";
	static const char sql_v6[] =
		"SELECT DISTINCT q.level FROM requests q"
		" WHERE q.run_id IN (SELECT run_id FROM runs WHERE label = ?1)"
		" ORDER BY q.level";
	static const struct db_rows spec = { sizeof(int), db_level_fill, NULL };
	sqlite3_stmt *st = NULL;
	void *v;
	int rc = db_query(db, db->version >= 7 ? sql : sql_v6, label, &st, err, errlen);

	if (!rc)
		rc = db_rows_read(db, st, &spec, &v, n, err, errlen);
	if (!rc)
		*levels = v;
	return rc;
}

/* A model name into its fixed-size row (struct db_model). */
static int db_model_fill(void *row, sqlite3_stmt *st, char *err, size_t errlen)
{
	const char *m = (const char *)sqlite3_column_text(st, 0);

	(void)err, (void)errlen;
	snprintf(((struct db_model *)row)->name, sizeof(((struct db_model *)row)->name), "%s",
		 m ? m : "");
	return DB_OK;
}

int db_models(struct db *db, const char *label, struct db_model **models, size_t *n,
	      char *err, size_t errlen)
{
	static const char sql[] =
		"SELECT DISTINCT q.model FROM requests q"
		" WHERE q.run_id IN (SELECT run_id FROM runs WHERE label = ?1)"
		" AND q.model IS NOT NULL ORDER BY q.model";
	static const struct db_rows spec = { sizeof(struct db_model), db_model_fill, NULL };
	sqlite3_stmt *st = NULL;
	void *v;
	int rc;

	*models = NULL;
	*n = 0;
	if (db->version < 13)   /* before requests.model: one model a run */
		return DB_OK;
	rc = db_query(db, sql, label, &st, err, errlen);
	if (!rc)
		rc = db_rows_read(db, st, &spec, &v, n, err, errlen);
	if (!rc)
		*models = v;
	return rc;
}

static int db_metric_level_fill(void *row, sqlite3_stmt *st, char *err, size_t errlen)
{
	struct db_metric_level *l = row;
	const char *source = (const char *)sqlite3_column_text(st, 0);

	(void)err, (void)errlen;
	snprintf(l->source, sizeof(l->source), "%s", source ? source : "");
	l->source_order = (long)sqlite3_column_int64(st, 1);
	l->level = sqlite3_column_int(st, 2);
	l->scrapes = (long)sqlite3_column_int64(st, 3);
	l->failed = (long)sqlite3_column_int64(st, 4);
	l->bad_lines = (long)sqlite3_column_int64(st, 5);
	srvmetric_level_init(&l->m);
	return DB_OK;
}

/* A sample of db_metric_levels' second query, added to its level's. */
struct metric_add {
	struct db_metric_level *v;
	size_t n, k;
};

static int db_metric_sample_add(void *ctx, sqlite3_stmt *st, char *err, size_t errlen)
{
	struct metric_add *ma = ctx;
	long order = (long)sqlite3_column_int64(st, 0);
	int level = sqlite3_column_int(st, 1);
	const char *name = (const char *)sqlite3_column_text(st, 3);
	struct db_metric_level *l;
	enum srvmetric_at at;
	double value;

	(void)err, (void)errlen;
	while (ma->k < ma->n && (ma->v[ma->k].source_order < order ||
				 (ma->v[ma->k].source_order == order && ma->v[ma->k].level < level)))
		ma->k++;
	if (ma->k == ma->n || ma->v[ma->k].source_order != order || ma->v[ma->k].level != level ||
	    !name)
		return DB_OK;
	l = &ma->v[ma->k];
	at = srvmetric_at_parse((const char *)sqlite3_column_text(st, 6));
	value = sqlite3_column_type(st, 4) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 4);
	srvmetric_level_add(&l->m, (long)sqlite3_column_int64(st, 2), at, name,
			    (const char *)sqlite3_column_text(st, 5), value);
	energy_level_add(&l->e, (long)sqlite3_column_int64(st, 2), at, sqlite3_column_int64(st, 7),
			 name, (const char *)sqlite3_column_text(st, 5), value);
	return DB_OK;
}

/*
 * The WITH clause naming a run's scraped sources, "src": each source
 * ("client (worker N)" aside: db_client_levels reads those) and its rank,
 * "first" — the run's --metrics-url order (its header's "sources": their
 * first scrapes, started together, land in any order), then any other in
 * the order it first scraped. Before version 11 a scrape names no source.
 */
static void metric_sources_cte(const struct db *db, char *buf, size_t len)
{
	static const char sql[] =
		"WITH src AS (SELECT %s AS source, row_number() OVER (ORDER BY"
		" coalesce((SELECT min(j.key) FROM runs r, json_each(CASE WHEN json_valid(r.params)"
		" THEN r.params END, '$.metrics.sources') j WHERE r.label = ?1 AND j.value IS %s),"
		" 1e9), min(rowid)) AS first FROM metric_scrapes"
		" WHERE run_id IN (SELECT run_id FROM runs WHERE label = ?1)"
		" AND coalesce(%s, '') NOT LIKE 'client (%%' GROUP BY 1) ";
	const char *source = db->version >= 11 ? "metric_scrapes.source" : "NULL";

	snprintf(buf, len, sql, source, source, source);
}

int db_metric_levels(struct db *db, const char *label, const struct energy_counter *c,
		     struct db_metric_level **out, size_t *n, char *err, size_t errlen)
{
	/*
	 * The sources in their rank (metric_sources_cte); before version 11
	 * every scrape is of the one source, and before version 10 none is
	 * marked between levels (those of version 10 on belong to none). The shards of a run scrape one server:
	 * their scrapes in time order, each one's samples in the order the
	 * server gave them. A --workers run's later workers' records
	 * ("client (worker N)") carry their bound on replay's own error
	 * alone: db_client_levels reads them, these tables do not.
	 */
	static const char levels_sql[] =
		"SELECT src.source, src.first, c.level, count(*), sum(NOT c.ok), sum(c.bad_lines)"
		" FROM metric_scrapes c JOIN src ON src.source IS %s"
		" WHERE c.run_id IN (SELECT run_id FROM runs WHERE label = ?1)%s"
		" GROUP BY src.first, c.level ORDER BY src.first, c.level";
	static const char samples_sql[] =
		"SELECT src.first, c.level, c.rowid, s.name, s.value, s.series, %s, c.t_ns"
		" FROM metric_scrapes c JOIN src ON src.source IS %s"
		" JOIN metric_samples s ON s.run_id = c.run_id AND s.scrape = c.scrape"
		" WHERE c.run_id IN (SELECT run_id FROM runs WHERE label = ?1) AND c.ok%s"
		" ORDER BY src.first, c.level, c.t_ns, c.rowid, s.rowid";
	static const struct db_rows levels = {
		sizeof(struct db_metric_level), db_metric_level_fill, NULL
	};
	const char *c_source = db->version >= 11 ? "c.source" : "NULL";
	const char *at = db->version >= 10 ? "c.at" : "NULL";
	const char *not_between = db->version >= 10 ? " AND c.at IS NOT 'between'" : "";
	struct metric_add ma = { NULL, 0, 0 };
	char sql[1536], with[640], body[768];
	sqlite3_stmt *st = NULL;
	void *v;
	size_t i;
	int rc;

	*out = NULL;
	*n = 0;
	if (db->version < 5)
		return DB_OK;
	metric_sources_cte(db, with, sizeof(with));
	snprintf(body, sizeof(body), levels_sql, c_source, not_between);
	snprintf(sql, sizeof(sql), "%s%s", with, body);
	rc = db_query(db, sql, label, &st, err, errlen);
	if (!rc)
		rc = db_rows_read(db, st, &levels, &v, &ma.n, err, errlen);
	if (rc)
		return rc;
	ma.v = v;
	for (i = 0; i < ma.n; i++)
		energy_level_init(&ma.v[i].e, c);
	snprintf(body, sizeof(body), samples_sql, at, c_source, db->version >= 10 ?
		 " AND c.at IS NOT 'between'" : "");
	snprintf(sql, sizeof(sql), "%s%s", with, body);
	rc = db_query(db, sql, label, &st, err, errlen);
	if (!rc)
		rc = db_each_row(db, st, db_metric_sample_add, &ma, err, errlen);
	if (rc) {
		free(ma.v);
		return rc;
	}
	for (i = 0; i < ma.n; i++) {
		srvmetric_level_finish(&ma.v[i].m);
		energy_level_finish(&ma.v[i].e);
	}
	*out = ma.v;
	*n = ma.n;
	return DB_OK;
}

static int db_flag_fill(void *ctx, sqlite3_stmt *st, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	*(int *)ctx = sqlite3_column_int(st, 0) != 0;
	return DB_OK;
}

int db_run_has_sample(struct db *db, const char *label, const char *name, int *yes,
		      char *err, size_t errlen)
{
	static const char sql[] =
		"SELECT EXISTS (SELECT 1 FROM metric_samples s"
		" WHERE s.run_id IN (SELECT run_id FROM runs WHERE label = ?1) AND s.name = ?2)";
	sqlite3_stmt *st = NULL;
	int rc;

	*yes = 0;
	if (db->version < 5)
		return DB_OK;
	rc = db_query(db, sql, label, &st, err, errlen);
	if (rc)
		return rc;
	db_bind_text(st, 2, name);
	return db_each_row(db, st, db_flag_fill, yes, err, errlen);
}

struct timeline {
	struct db_metric_point *v;
	size_t len, cap;
	int64_t scrape;         /* of v[len - 1] */
	char source[160];       /* the one source drawn */
	int has_source;
};

/* A sample of a running, waiting or KV-cache metric, summed into its
 * scrape's point (a new one when the scrape is). */
static int db_timeline_add(void *ctx, sqlite3_stmt *st, char *err, size_t errlen)
{
	struct timeline *tl = ctx;
	const char *name = (const char *)sqlite3_column_text(st, 2);
	int64_t id = sqlite3_column_int64(st, 1);
	double value = sqlite3_column_double(st, 3), *slot;
	enum srvmetric_kind kind;
	const char *family;

	const char *source = (const char *)sqlite3_column_text(st, 4);

	(void)err, (void)errlen;
	if (!name || sqlite3_column_type(st, 3) == SQLITE_NULL || !isfinite(value) ||
	    srvmetric_lookup(name, &kind, &family) < 0 ||
	    (kind != SRVMETRIC_RUNNING && kind != SRVMETRIC_WAITING && kind != SRVMETRIC_KV_USAGE))
		return DB_OK;
	/* one server's gauges: those of the first source (in rank:
	 * metric_sources_cte) to report any; two engines' points
	 * interleaved would draw neither */
	if (!source)
		source = "";
	if (!tl->has_source) {
		snprintf(tl->source, sizeof(tl->source), "%s", source);
		tl->has_source = 1;
	} else if (strncmp(tl->source, source, sizeof(tl->source) - 1) != 0) {
		return DB_OK;
	}
	if (!tl->len || id != tl->scrape) {
		struct db_metric_point *p = db_grow(tl->v, &tl->cap, tl->len, sizeof(*p));

		if (!p)
			return DB_ERR_WORK;
		tl->v = p;
		p[tl->len].t_s = (double)sqlite3_column_int64(st, 0) / 1e9;
		p[tl->len].running = p[tl->len].waiting = p[tl->len].kv_usage = NAN;
		tl->len++;
		tl->scrape = id;
	}
	slot = kind == SRVMETRIC_RUNNING ? &tl->v[tl->len - 1].running :
	       kind == SRVMETRIC_WAITING ? &tl->v[tl->len - 1].waiting :
	       &tl->v[tl->len - 1].kv_usage;
	*slot = isnan(*slot) ? value : *slot + value;
	return DB_OK;
}

int db_metric_timeline(struct db *db, const char *label, struct db_metric_point **out,
		       size_t *n, char *err, size_t errlen)
{
	static const char sql[] =
		"SELECT c.t_ns, c.rowid, s.name, s.value, %s FROM metric_scrapes c"
		" JOIN src ON src.source IS %s"
		" JOIN metric_samples s ON s.run_id = c.run_id AND s.scrape = c.scrape"
		" WHERE c.run_id IN (SELECT run_id FROM runs WHERE label = ?1) AND c.ok"
		" ORDER BY src.first, c.t_ns, c.rowid";
	const char *c_source = db->version >= 11 ? "c.source" : "NULL";
	char q[sizeof(sql) + 640 + 32], with[640];
	struct timeline tl = { NULL, 0, 0, -1, "", 0 };
	sqlite3_stmt *st = NULL;
	int rc;

	*out = NULL;
	*n = 0;
	if (db->version < 5)
		return DB_OK;
	metric_sources_cte(db, with, sizeof(with));
	snprintf(q, sizeof(q), "%s", with);
	snprintf(q + strlen(q), sizeof(q) - strlen(q), sql, c_source, c_source);
	rc = db_query(db, q, label, &st, err, errlen);
	if (!rc)
		rc = db_each_row(db, st, db_timeline_add, &tl, err, errlen);
	if (rc) {
		free(tl.v);
		return rc;
	}
	*out = tl.v;
	*n = tl.len;
	return DB_OK;
}

static int db_result_fill(void *row, sqlite3_stmt *st, char *err, size_t errlen);
static void db_result_release(void *row);
static const struct db_rows db_result_rows = {
	sizeof(struct result), db_result_fill, db_result_release
};

void db_results_free(struct result *r, size_t n)
{
	db_rows_free(&db_result_rows, r, n);
}

/* A field read as text: asked for a number's text, SQLite would make one
 * (millions of rows in a report). */
static int column_is_text(enum result_field_type t)
{
	switch (t) {
	case RESULT_FIELD_I64:
	case RESULT_FIELD_LONG:
	case RESULT_FIELD_INT:
	case RESULT_FIELD_BOOL:
	case RESULT_FIELD_RATE:
	case RESULT_FIELD_STREAMED:
		return 0;
	default:
		return 1;
	}
}

/* Fills r (initialized) from a row of db_results' query, whose column i
 * is result_fields[i] (NULL where the database's version lacks it).
 * Returns 0, -1 when its gaps do not read, -2 when out of memory. */
static int db_row_to_result(sqlite3_stmt *st, struct result *r)
{
	size_t i;
	int k, shape, rc;

	for (i = 0; i < result_n_fields; i++) {
		const struct result_field *f = &result_fields[i];
		const char *text = column_is_text(f->type) ?
				   (const char *)sqlite3_column_text(st, (int)i) : NULL;

		k = (int)i;
		switch (f->type) {
		case RESULT_FIELD_I64:
		case RESULT_FIELD_LONG:
		case RESULT_FIELD_INT:
		case RESULT_FIELD_BOOL:
			result_field_set(r, f, f->optional ? db_column_opt_int64(st, k) :
					 sqlite3_column_int64(st, k));
			break;
		case RESULT_FIELD_TEXT:
			if (text)
				result_field_set_text(r, f, text);
			break;
		case RESULT_FIELD_ERROR:
			if (text)
				snprintf(r->error, sizeof(r->error), "%s", text);
			break;
		case RESULT_FIELD_ERROR_DETAIL:
			if (r->error[0] && text && !(r->error_detail = strndup(text, RESULT_DETAIL_MAX)))
				return -1;
			break;
		case RESULT_FIELD_RATE:
			if (sqlite3_column_type(st, k) != SQLITE_NULL &&
			    load_of_code(r->level, 0).kind == LOAD_RATE)
				r->rate = sqlite3_column_double(st, k);
			break;
		case RESULT_FIELD_TOKENS_SOURCE:
			/* before version 4, tokens_estimated alone */
			if (text && strcmp(text, "tokenize") == 0)
				r->tokens_source = RESULT_TOKENS_TOKENIZE;
			else if (text && strcmp(text, "events") == 0)
				r->tokens_source = RESULT_TOKENS_EVENTS;
			else if (text)
				r->tokens_source = RESULT_TOKENS_USAGE;
			else
				r->tokens_source = r->tokens_estimated ? RESULT_TOKENS_EVENTS :
						   RESULT_TOKENS_USAGE;
			break;
		case RESULT_FIELD_STREAMED:
			/* before version 3 every request was streamed */
			r->unstreamed = sqlite3_column_type(st, k) != SQLITE_NULL &&
					sqlite3_column_int(st, k) == 0;
			break;
		case RESULT_FIELD_SERVER_TIMINGS:
			shape = text ? srvtiming_shape_parse(text) : 0;
			r->server.shape = shape > 0 ? (enum srvtiming_shape)shape : SRVTIMING_NONE;
			break;
		case RESULT_FIELD_GAPS:
			rc = text ? gaps_parse(text, &r->itl_ns, &r->n_itl) : 0;
			if (rc)
				return rc;
			break;
		}
	}
	return 0;
}

static int db_result_fill(void *row, sqlite3_stmt *st, char *err, size_t errlen)
{
	struct result *r = row;

	int rc;

	result_init(r);
	rc = db_row_to_result(st, r);
	if (rc == -2)
		return DB_ERR_WORK;     /* db_each_row says so */
	if (rc) {
		errmsg_set(err, errlen, "bad itl_us in request %ld", r->seq);
		return DB_ERR_INPUT;
	}
	return DB_OK;
}

static void db_result_release(void *row)
{
	result_release(row);
}

/* The query searches the (run_id, level) index for each results file of the
 * label; rows come in the order they were loaded (sending order within a
 * file), so SQLite needs no sort. Joining on runs instead scanned the whole
 * index once per level: 7 s for a report of 1,000,000 requests. */
int db_results(struct db *db, const char *label, int level, struct result **out,
	       size_t *n, char *err, size_t errlen)
{
	/* The table's fields, each its column, or NULL where this database's
	 * version has none (it came later). */
	char sql[2048];
	size_t len, i;
	sqlite3_stmt *st = NULL;
	void *v;
	int rc;

	len = (size_t)snprintf(sql, sizeof(sql), "SELECT");
	for (i = 0; i < result_n_fields && len < sizeof(sql); i++)
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, "%s %s%s", i ? "," : "",
					db->version >= result_fields[i].since ? "q." : "NULL AS ",
					result_fields[i].name);
	if (len < sizeof(sql))
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, " FROM requests q"
					" WHERE q.run_id IN (SELECT run_id FROM runs WHERE label = ?1)"
					" AND q.level = ?2 ORDER BY q.run_id, q.rowid");
	if (len >= sizeof(sql)) {
		errmsg_set(err, errlen, "the requests' SELECT does not fit %zu bytes", sizeof(sql));
		return DB_ERR_WORK;
	}
	rc = db_query(db, sql, label, &st, err, errlen);
	if (rc)
		return rc;
	sqlite3_bind_int(st, 2, level);
	rc = db_rows_read(db, st, &db_result_rows, &v, n, err, errlen);
	if (rc == DB_ERR_INPUT) {
		char why[128];

		snprintf(why, sizeof(why), "%s", err);
		errmsg_set(err, errlen, "'%s': run '%s': %s", db->path, label, why);
	}
	if (!rc)
		*out = v;
	return rc;
}

/*
 * The columns of analyze export, in order. TPOT and the millisecond columns
 * come from the schema's v_requests, so the sqlite3 shell and the export
 * agree. A column came in with schema version 'since' (of the table, or of
 * the view: a database read as it is keeps the view of its version); an
 * older database exports 'before' in its place - "NULL", an expression of
 * the columns it has, or (NULL here) nothing: the column is left out.
 */
static const struct db_export_col {
	const char *name, *expr;
	int since;
	const char *before;
} db_export_cols[] = {
	{ "run", "v.run", 1, NULL },
	{ "concurrency", "v.concurrency", 1, NULL },
	{ "seq", "v.seq", 1, NULL },
	{ "trace_id", "q.trace_id", 1, NULL },
	{ "warmup", "v.warmup", 1, NULL },
	{ "status", "v.status", 1, NULL },
	{ "error", "v.error", 1, NULL },
	{ "ttft_ms", "v.ttft_ms", 1, NULL },
	{ "ttfa_ms", "v.ttfa_ms", 1, NULL },
	{ "e2e_ms", "v.e2e_ms", 1, NULL },
	{ "tpot_ms", "v.tpot_ms", 1, NULL },
	{ "input_tokens", "v.input_tokens", 1, NULL },
	{ "output_tokens", "v.output_tokens", 1, NULL },
	{ "tokens_estimated", "v.tokens_estimated", 1, NULL },
	{ "run_id", "v.run_id", 1, NULL },
	{ "error_detail", "q.error_detail", 1, NULL },
	{ "repeat", "q.repeat", 4, "NULL" },
	{ "sched_ms", "v.sched_ms", 4, "q.sched_ns / 1e6" },
	{ "send_ms", "v.send_ms", 4, "q.send_ns / 1e6" },
	{ "tokens_source", "v.tokens_source", 4, "NULL" },
	{ "token_events", "v.token_events", 4, "NULL" },
	{ "cached_tokens", "v.cached_tokens", 4, "NULL" },
	{ "salt", "v.salt", 4, "NULL" },
	{ "new_connection", "v.new_connection", 4, "NULL" },
	{ "connect_ms", "v.connect_ms", 4, "NULL" },
	{ "tls_ms", "v.tls_ms", 4, "NULL" },
	{ "session", "q.session", 6, "NULL" },
	{ "turn", "q.turn", 6, "NULL" },
	{ "server_timings", "v.server_timings", 9, NULL },
	{ "server_queue_ms", "v.server_queue_ms", 9, NULL },
	{ "server_prefill_ms", "v.server_prefill_ms", 9, NULL },
	{ "server_decode_ms", "v.server_decode_ms", 9, NULL },
	{ "rest_ttft_ms", "v.rest_ttft_ms", 9, NULL },
	{ "rest_e2e_ms", "v.rest_e2e_ms", 9, NULL },
	{ "cancel", "v.cancel", 13, NULL },
	{ "model", "q.model", 14, NULL },
	{ "client_issue_ms", "v.client_issue_ms", 15, NULL },
	{ "client_read_ms", "v.client_read_ms", 15, NULL },
	{ "itl_us", "q.itl_us", 1, NULL },      /* with gaps only */
};

#define DB_EXPORT_N_COLS (sizeof(db_export_cols) / sizeof(db_export_cols[0]))

/* The export's SELECT for db's schema version into sql; -1 when it does not fit. */
static int db_export_sql(const struct db *db, int gaps, char *sql, size_t size)
{
	size_t i, len = 0;
	int n = 0;

	len += (size_t)snprintf(sql, size, "SELECT");
	for (i = 0; i < DB_EXPORT_N_COLS && len < size; i++) {
		const struct db_export_col *c = &db_export_cols[i];
		const char *expr = db->version >= c->since ? c->expr : c->before;

		if (!expr || (!gaps && strcmp(c->name, "itl_us") == 0))
			continue;
		len += (size_t)snprintf(sql + len, size - len, "%s %s AS %s", n++ ? "," : "",
					expr, c->name);
	}
	if (len < size)
		len += (size_t)snprintf(sql + len, size - len,
					" FROM v_requests v JOIN requests q ON q.run_id = v.run_id"
					" AND q.seq = v.seq JOIN runs r ON r.run_id = v.run_id"
					" WHERE v.run = ?1 ORDER BY r.created, v.run_id, v.seq");
	return len < size ? 0 : -1;
}

int db_export_rows(struct db *db, const char *label, int gaps, db_row_fn fn, void *ctx,
		   char *err, size_t errlen)
{
	char sql[2048];
	const char *names[DB_EXPORT_MAX_COLS];
	const char *cells[DB_EXPORT_MAX_COLS];
	char num[DB_EXPORT_MAX_COLS][32];
	sqlite3_stmt *st = NULL;
	int ncols, i, step;
	int rc;

	if (db_export_sql(db, gaps, sql, sizeof(sql))) {
		errmsg_set(err, errlen, "the export's SELECT does not fit %zu bytes", sizeof(sql));
		return DB_ERR_WORK;
	}
	rc = db_prepare(db, sql, &st, err, errlen);
	if (rc)
		goto cleanup;
	ncols = sqlite3_column_count(st);
	if (ncols > DB_EXPORT_MAX_COLS)
		ncols = DB_EXPORT_MAX_COLS;
	for (i = 0; i < ncols; i++)
		names[i] = sqlite3_column_name(st, i);
	db_bind_text(st, 1, label);
	rc = fn(ctx, ncols, names, NULL);
	if (rc)
		goto cleanup;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		for (i = 0; i < ncols; i++) {
			switch (sqlite3_column_type(st, i)) {
			case SQLITE_NULL:
				cells[i] = NULL;
				break;
			case SQLITE_FLOAT:
				snprintf(num[i], sizeof(num[i]), "%.3f",
					 sqlite3_column_double(st, i));
				cells[i] = num[i];
				break;
			default:
				cells[i] = (const char *)sqlite3_column_text(st, i);
			}
		}
		rc = fn(ctx, ncols, names, cells);
		if (rc)
			goto cleanup;
	}
	if (step != SQLITE_DONE)
		rc = db_sqlerr(db, err, errlen);
cleanup:
	sqlite3_finalize(st);
	return rc;
}

int db_run_counts(struct db *db, const char *label, struct db_run_counts *out,
		  char *err, size_t errlen)
{
	static const char sql[] =
		"SELECT coalesce(sum(q.warmup = 0), 0),"
		" coalesce(sum(q.warmup = 0 AND q.error IS NOT NULL), 0),"
		" coalesce(sum(q.warmup != 0), 0),"
		" (SELECT group_concat(level, ',') FROM (SELECT DISTINCT l.level FROM requests l"
		"   JOIN runs lr USING (run_id) WHERE lr.label = ?1 ORDER BY l.level))"
		" FROM requests q JOIN runs r USING (run_id) WHERE r.label = ?1";
	sqlite3_stmt *st = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = db_prepare(db, sql, &st, err, errlen);
	if (rc)
		goto cleanup;
	db_bind_text(st, 1, label);
	if (sqlite3_step(st) != SQLITE_ROW) {
		rc = db_sqlerr(db, err, errlen);
		goto cleanup;
	}
	out->requests = (long)sqlite3_column_int64(st, 0);
	out->errors = (long)sqlite3_column_int64(st, 1);
	out->warmups = (long)sqlite3_column_int64(st, 2);
	out->levels = db_column_strdup(st, 3);
	if (!out->levels)
		out->levels = strdup("");
	if (!out->levels) {
		errmsg_set(err, errlen, "'%s': out of memory", db->path);
		rc = DB_ERR_WORK;
	}
cleanup:
	sqlite3_finalize(st);
	return rc;
}

/* db_client_levels: the levels so far, the last one being filled. */
struct client_levels {
	struct db_client_level *v;
	size_t len, cap;
};

static int db_client_add(void *ctx, sqlite3_stmt *st, char *err, size_t errlen)
{
	struct client_levels *cl = ctx;
	int level = sqlite3_column_int(st, 0);
	const char *name = (const char *)sqlite3_column_text(st, 1);
	struct db_client_level *l, one;

	(void)err, (void)errlen;
	if (!name || sqlite3_column_type(st, 2) == SQLITE_NULL)
		return DB_OK;
	clientbound_watch_init(&one.w);
	clientbound_init(&one.b);
	if (!clientbound_take(name, sqlite3_column_double(st, 2), &one.w, &one.b))
		return DB_OK;
	if (!cl->len || cl->v[cl->len - 1].level != level) {
		l = db_grow(cl->v, &cl->cap, cl->len, sizeof(*l));
		if (!l)
			return DB_ERR_WORK;
		cl->v = l;
		l = &cl->v[cl->len++];
		l->level = level;
		clientbound_watch_init(&l->w);
		clientbound_init(&l->b);
	}
	l = &cl->v[cl->len - 1];
	clientbound_merge_max(&l->w, &l->b, &one.w, &one.b);
	return DB_OK;
}

int db_client_levels(struct db *db, const char *label, struct db_client_level **out,
		     size_t *n, char *err, size_t errlen)
{
	static const char sql[] =
		"SELECT c.level, s.name, s.value FROM metric_scrapes c"
		" JOIN metric_samples s ON s.run_id = c.run_id AND s.scrape = c.scrape"
		" WHERE c.run_id IN (SELECT run_id FROM runs WHERE label = ?1) AND c.ok"
		" AND c.at = 'level_end' AND s.name LIKE 'tracebench\\_client\\_%' ESCAPE '\\'"
		" ORDER BY c.level, c.rowid, s.rowid";
	struct client_levels cl = { NULL, 0, 0 };
	sqlite3_stmt *st = NULL;
	int rc;

	*out = NULL;
	*n = 0;
	if (db->version < 10)
		return DB_OK;
	rc = db_query(db, sql, label, &st, err, errlen);
	if (!rc)
		rc = db_each_row(db, st, db_client_add, &cl, err, errlen);
	if (rc) {
		free(cl.v);
		return rc;
	}
	*out = cl.v;
	*n = cl.len;
	return DB_OK;
}
