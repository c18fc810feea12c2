/*
 * report_runs.c - `tracebench analyze runs`; see report.h: a row per run of
 * the database with its counts, filtered by the tags of its provenance.
 */
#include "analyze/report.h"
#include "analyze/report_parts.h"
#include "lib/errmsg.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* A row of `analyze runs`: a run and its counts. */
struct report_runs_row {
	const struct db_run *run;
	struct db_run_counts cnt;
};

static const char *col_runs_str(const void *row, size_t off)
{
	const char *v;

	memcpy(&v, (const char *)((const struct report_runs_row *)row)->run + off, sizeof(v));
	return v;
}

static const char *col_runs_levels(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct report_runs_row *)row)->cnt.levels;
}

static double col_runs_count(const void *row, size_t off)
{
	long v;

	memcpy(&v, (const char *)&((const struct report_runs_row *)row)->cnt + off, sizeof(v));
	return (double)v;
}

#define RUN_STR(name, field) { .head = (name), .key = (name), .flags = TABLE_LEFT, \
			       .str = col_runs_str, .arg = offsetof(struct db_run, field) }
#define RUN_COUNT(name, field) { .head = (name), .key = (name), .num = col_runs_count, \
				 .arg = offsetof(struct db_run_counts, field) }

static const struct table_col report_runs_cols[] = {
	RUN_STR("label", label), RUN_STR("created", created), RUN_STR("endpoint", endpoint),
	RUN_STR("model", model), RUN_STR("served", served), RUN_STR("trace", trace_digest),
	RUN_STR("mode", mode),
	{ .head = "levels", .key = "levels", .flags = TABLE_LEFT, .str = col_runs_levels },
	RUN_COUNT("requests", requests), RUN_COUNT("errors", errors), RUN_STR("tags", tags),
};

/* Does the run's provenance carry every tag "KEY=VALUE" of tags? */
static int report_run_tagged(const struct db_run *r, const char *const *tags, size_t n)
{
	cJSON *p = n ? cJSON_Parse(r->provenance ? r->provenance : "{}") : NULL;
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(p, "tags");
	size_t i;
	int all = 1;

	for (i = 0; i < n && all; i++) {
		size_t k = strcspn(tags[i], "=");
		char key[128];
		const char *v;

		snprintf(key, sizeof(key), "%.*s", (int)k, tags[i]);
		v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, key));
		all = v && !strcmp(v, tags[i] + k + 1);
	}
	cJSON_Delete(p);
	return all;
}

int report_print_runs(struct db *db, enum table_format fmt, const char *const *tags,
		      size_t n_tags, FILE *out, char *err, size_t errlen)
{
	struct report_runs_row *rows = NULL;
	struct db_run *runs = NULL;
	struct table t;
	size_t n = 0, i, done = 0;
	int rc;

	rc = db_runs(db, NULL, &runs, &n, err, errlen);
	if (!rc && !(rows = calloc(n, sizeof(*rows)))) {
		errmsg_set(err, errlen, "out of memory");
		rc = DB_ERR_WORK;
	}
	for (i = 0; !rc && i < n; i++) {
		if (!report_run_tagged(&runs[i], tags, n_tags))
			continue;
		rows[done].run = &runs[i];
		rc = db_run_counts(db, runs[i].label, &rows[done].cnt, err, errlen);
		done++;
	}
	if (!rc) {
		table_init(&t, out, fmt, report_runs_cols,
			   sizeof(report_runs_cols) / sizeof(report_runs_cols[0]), 0);
		t.sep = "  ";
		table_print(&t, rows, done, sizeof(*rows));
		rc = report_check_output(out, err, errlen);
	}
	for (i = 0; i < done; i++)
		free(rows[i].cnt.levels);
	free(rows);
	db_runs_free(runs, n);
	return rc;
}
