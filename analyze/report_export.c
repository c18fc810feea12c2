/*
 * report_export.c - `tracebench analyze export`; see report.h: one row per
 * request as CSV (lib/table.c's writer and quoting) or JSON Lines, the
 * columns as db_export_rows gives them.
 */
#include "analyze/report.h"
#include "analyze/report_parts.h"
#include "lib/errmsg.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* The export in progress: its columns, from the first header db_export_rows gives. */
struct report_export {
	struct table t;
	struct table_col cols[TABLE_MAX_COLS];
	char names[TABLE_MAX_COLS][32];
	int begun;
	int jsonl;                /* JSON Lines instead of CSV */
};

/* JSON Lines: the columns whose values are text; the rest are numbers, or
 * itl_us, a JSON array already. */
static int report_export_is_text(const char *name)
{
	static const char *const text[] = {
		"run", "error", "run_id", "error_detail", "tokens_source", "salt",
		"model",
	};
	size_t i;

	for (i = 0; i < sizeof(text) / sizeof(text[0]); i++)
		if (strcmp(name, text[i]) == 0)
			return 1;
	return 0;
}

/* True when s can go into JSON as it is: a finite number, or an array of
 * numbers (itl_us as analyze load writes it). A database edited by hand
 * may hold anything: that goes out as a string. */
static int report_export_is_raw(const char *s)
{
	char *end;
	double v;

	if (s[0] == '[') {
		cJSON *a = cJSON_Parse(s), *e;
		int ok = cJSON_IsArray(a) && strspn(s, "[]0123456789,-.") == strlen(s);

		cJSON_ArrayForEach(e, a)
			ok = ok && cJSON_IsNumber(e);
		cJSON_Delete(a);
		return ok;
	}
	v = strtod(s, &end);
	return end != s && *end == '\0' && isfinite(v) && strspn(s, "0123456789.-+eE") == strlen(s);
}

/* One request as a JSON object on a line of its own. */
static void report_export_jsonl(FILE *out, int ncols, const char *const *names,
				const char *const *cells)
{
	int i;

	fputc('{', out);
	for (i = 0; i < ncols; i++) {
		if (i)
			fputc(',', out);
		table_put_json_string(out, names[i]);
		fputc(':', out);
		if (!cells[i])
			fputs("null", out);
		else if (report_export_is_text(names[i]) || !report_export_is_raw(cells[i]))
			table_put_json_string(out, cells[i]);
		else
			fputs(cells[i], out);   /* SQLite's number, or itl_us's array */
	}
	fputs("}\n", out);
}

static const char *col_export_cell(const void *row, size_t i)
{
	return ((const char *const *)row)[i];
}

/* db_row_fn: the header once for the whole export, then a row per request. */
static int report_export_row(void *ctx, int ncols, const char *const *names,
			     const char *const *cells)
{
	struct report_export *x = ctx;
	size_t i;

	if (x->jsonl) {
		if (cells)
			report_export_jsonl(x->t.out, ncols, names, cells);
	} else if (!cells && !x->begun) {
		for (i = 0; i < (size_t)ncols && i < TABLE_MAX_COLS; i++) {
			snprintf(x->names[i], sizeof(x->names[i]), "%s", names[i]);
			x->cols[i] = (struct table_col){ .key = x->names[i], .str = col_export_cell,
							 .arg = i };
		}
		table_init(&x->t, x->t.out, TABLE_CSV, x->cols, i, 0);
		table_begin(&x->t);
		x->begun = 1;
	} else if (cells) {
		table_row(&x->t, cells);
	}
	return ferror(x->t.out) ? DB_ERR_WORK : 0;
}

int report_export(struct db *db, const char *label, int jsonl, int gaps, FILE *out,
		  char *err, size_t errlen)
{
	struct report_export *x = calloc(1, sizeof(*x));
	struct db_run *runs = NULL;
	size_t n = 0, i;
	int rc;

	if (!x) {
		errmsg_set(err, errlen, "out of memory");
		return DB_ERR_WORK;
	}
	x->t.out = out;
	x->jsonl = jsonl;
	rc = db_runs(db, label, &runs, &n, err, errlen);
	for (i = 0; !rc && i < n; i++)
		rc = db_export_rows(db, runs[i].label, gaps, report_export_row, x, err, errlen);
	if (rc == DB_ERR_WORK && ferror(out))
		errmsg_set(err, errlen, "cannot write output: %s", strerror(errno));
	if (!rc)
		rc = report_check_output(out, err, errlen);
	db_runs_free(runs, n);
	free(x);
	return rc;
}
