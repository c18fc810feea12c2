/*
 * report_models.c - a run's requests split by the model a replay
 * --model-mix sent them to: per level and model the main figures, so that
 * the adapters of one server under one load can be told apart. analyze
 * report prints it under the sweep table of a run of more than one model;
 * the sweep table itself stays the whole run's, the load the server saw.
 */
#include "analyze/report_parts.h"
#include "analyze/shards.h"
#include "lib/errmsg.h"
#include "lib/summary.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *col_model(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct report_model_row *)row)->model;
}

static const char *col_level(const void *row, size_t arg)
{
	static char buf[32];

	(void)arg;
	return load_cell(load_unrated(((const struct report_model_row *)row)->s.level), buf,
			 sizeof(buf));
}

static double col_count(const void *row, size_t off)
{
	return (double)*(const size_t *)(const void *)((const char *)row + off);
}

static double col_num(const void *row, size_t off)
{
	return *(const double *)(const void *)((const char *)row + off);
}

#define F(m) offsetof(struct report_model_row, m)
static const struct table_col model_cols[] = {
	{ .head = "Model", .key = "model", .flags = TABLE_LEFT, .str = col_model },
	{ .head = "C", .key = "level", .width = 4, .str = col_level },
	{ .head = "Requests", .key = "requests", .num = col_count, .arg = F(s.requests) },
	{ .head = "Share", .unit = "%", .key = "share", .decimals = 1, .scale = 100,
	  .csv_decimals = 4, .num = col_num, .arg = F(share) },
	{ .head = "Err", .key = "errors", .num = col_count, .arg = F(s.errors) },
	{ .head = "P50 TTFT", .unit = "ms", .key = "ttft_p50_ms", .decimals = 2,
	  .csv_decimals = 3, .num = col_num, .arg = F(s.ttft.p50) },
	{ .head = "P99 TTFT", .unit = "ms", .key = "ttft_p99_ms", .decimals = 2,
	  .csv_decimals = 3, .num = col_num, .arg = F(s.ttft.p99) },
	{ .head = "P50 TPOT", .unit = "ms", .key = "tpot_p50_ms", .decimals = 2,
	  .csv_decimals = 3, .num = col_num, .arg = F(s.tpot.p50) },
	{ .head = "P50 E2E", .unit = "ms", .key = "e2e_p50_ms", .decimals = 2,
	  .csv_decimals = 3, .num = col_num, .arg = F(s.e2e.p50) },
	{ .head = "P99 E2E", .unit = "ms", .key = "e2e_p99_ms", .decimals = 2,
	  .csv_decimals = 3, .num = col_num, .arg = F(s.e2e.p99) },
	{ .head = "Per-req tok/s", .key = "per_req_tok_s", .decimals = 1, .csv_decimals = 3,
	  .num = col_num, .arg = F(s.per_req_tps) },
};
#undef F

/* The rows of one level's results r (n), a row per model that has some,
 * appended to rows (*k so far); scratch holds n. */
static void level_rows(const struct result *r, size_t n, struct load load,
		       const struct db_model *models, size_t n_models, struct result *scratch,
		       struct report_model_row *rows, size_t *k)
{
	size_t m, i, sub, measured = 0;
	size_t first = *k;

	for (m = 0; m < n_models; m++) {
		for (i = sub = 0; i < n; i++)
			if (strcmp(r[i].model, models[m].name) == 0)
				scratch[sub++] = r[i];   /* shallow: read, never released */
		summary_compute(scratch, sub, load, NULL, &rows[*k].s);
		if (rows[*k].s.requests == 0)
			continue;
		rows[*k].model = models[m].name;
		measured += rows[*k].s.requests;
		++*k;
	}
	for (i = first; i < *k; i++)
		rows[i].share = (double)rows[i].s.requests / (double)measured;
}

/* One level's rows of the run 'label' appended to rows (*n so far): the
 * level stored as 'stored' (its code), shown as load. */
static int model_level(struct db *db, const char *label, int stored, struct load load,
		       const struct db_model *models, size_t n_models, struct report_model_row *rows,
		       size_t *n, char *err, size_t errlen)
{
	struct result *res = NULL, *scratch;
	size_t n_res = 0;
	int rc = db_results(db, label, stored, &res, &n_res, err, errlen);

	if (rc)
		return rc;
	scratch = malloc((n_res ? n_res : 1) * sizeof(*scratch));
	if (scratch)
		level_rows(res, n_res, load, models, n_models, scratch, rows, n);
	else
		errmsg_set(err, errlen, "run '%s': out of memory", label);
	free(scratch);
	db_results_free(res, n_res);
	return scratch ? DB_OK : DB_ERR_WORK;
}

int report_model_rows(struct db *db, const char *label, struct db_model **models,
		      size_t *n_models, struct report_model_row **rows, size_t *n, char *err,
		      size_t errlen)
{
	int *levels = NULL, factor = 1;
	size_t n_levels = 0, i;
	int rc;

	*models = NULL;
	*rows = NULL;
	*n_models = *n = 0;
	rc = db_models(db, label, models, n_models, err, errlen);
	if (rc || *n_models < 2)
		return rc;
	rc = db_levels(db, label, &levels, &n_levels, err, errlen);
	if (!rc)
		rc = shards_level_factor(db, label, &factor, err, errlen);
	if (!rc && n_levels && !(*rows = calloc(n_levels * *n_models, sizeof(**rows)))) {
		errmsg_set(err, errlen, "run '%s': out of memory", label);
		rc = DB_ERR_WORK;
	}
	for (i = 0; !rc && i < n_levels; i++)
		rc = model_level(db, label, levels[i],
				 shards_load(load_of_code(levels[i], NAN), factor > 1 ? factor : 1),
				 *models, *n_models, *rows, n, err, errlen);
	free(levels);
	if (rc) {
		free(*rows);
		free(*models);
		*rows = NULL;
		*models = NULL;
		*n_models = *n = 0;
	}
	return rc;
}

int report_models_print(FILE *out, enum table_format fmt, struct db *db, const char *label,
			char *err, size_t errlen)
{
	struct db_model *models;
	struct report_model_row *rows;
	size_t n_models, n;
	struct table t;
	int rc = report_model_rows(db, label, &models, &n_models, &rows, &n, err, errlen);

	if (!rc && n) {
		fprintf(out, "\nper model (replay --model-mix), each level's requests by the "
			"model they were sent to:\n");
		if (fmt == TABLE_MARKDOWN)
			fputc('\n', out);
		table_init(&t, out, fmt, model_cols, sizeof(model_cols) / sizeof(model_cols[0]), 0);
		table_print(&t, rows, n, sizeof(*rows));
		fputs(fmt == TABLE_MARKDOWN ? "\n" : "", out);
	}
	free(rows);
	free(models);
	return rc;
}
