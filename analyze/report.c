/*
 * report.c - `tracebench analyze report`; see report.h.
 *
 * This file decides the structure of a report: which runs, the SLO each is
 * judged against, the sweep table (its columns are lib/summary.c's,
 * rendered by lib/table.c) and, in text and Markdown, the order of what
 * surrounds it. Each run is read once (analyze/run.h); the parts live
 * beside it (report_parts.h): the lines around the table
 * (report_notes.c), the plan a stopped run fell short of (report_plan.c),
 * the server's own metrics (report_server.c), a capacity search's load
 * curve (report_capacity.c) and a model mix's rows by model
 * (report_models.c); `analyze runs` is report_runs.c and `analyze
 * export` report_export.c. All SQL is in db*.c.
 */
#include "analyze/efficiency.h"
#include "analyze/report.h"
#include "analyze/report_parts.h"
#include "analyze/report_client.h"
#include "analyze/shards.h"
#include "lib/errmsg.h"

#include <errno.h>
#include <string.h>

/* Turns a failed write to out (a closed pipe, a full disk) into an error. */
int report_check_output(FILE *out, char *err, size_t errlen)
{
	if (fflush(out) != 0 || ferror(out)) {
		errmsg_set(err, errlen, "cannot write output: %s", strerror(errno));
		return DB_ERR_WORK;
	}
	return DB_OK;
}

/* The optional columns of a run's table: goodput with an SLO, the
 * spread across repeats when a level has several, TTFA when a level's
 * requests reasoned. */
static unsigned report_groups(const struct run *run, const struct metric_slo *slo)
{
	unsigned g = (slo ? SUMMARY_GROUP_SLO : 0) | summary_groups(run->levels, run->n_levels);
	size_t i;

	for (i = 0; i < run->n_levels; i++)
		if (run->levels[i].repeats > 1)
			g |= SUMMARY_GROUP_SPREAD;
	return g;
}

/* Prints the rows of one run into t. */
static void report_rows(struct table *t, const char *label, const struct run *run)
{
	size_t i;

	for (i = 0; i < run->n_levels; i++)
		summary_table_row(t, label, &run->levels[i]);
}

/* The SLO of a run's goodput and of its load curve (report_parts.h). */
static void report_choose_slo(const struct run_params *param, const struct metric_slo *asked,
			      struct report_slo_choice *c)
{
	c->param = param;
	c->use = asked ? asked : param->is_capacity ? &param->slo : NULL;
}

/* Text and Markdown: per run a heading, the table, the warm-up and error
 * lines, and the latency table with its legend. */
static int report_print_per_run(struct db *db, const struct db_run *runs, size_t n,
				enum table_format fmt, const struct metric_slo *slo,
				int intervals, FILE *out, char *err, size_t errlen)
{
	const char *para = fmt == TABLE_MARKDOWN ? "\n" : "";
	struct report_slo_choice sc;
	struct run run;
	struct table t;
	size_t i;
	int sharded, sessions, cut, cancels;
	int rc;

	for (i = 0; i < n; i++) {
		report_choose_slo(&runs[i].param, slo, &sc);
		rc = run_read(db, runs[i].label, sc.use, &run, err, errlen);
		if (rc)
			return rc;
		report_plan_mark(&run);
		if (i > 0)
			fputc('\n', out);
		report_notes_heading(out, fmt, &runs[i]);
		report_notes_params(out, fmt, &runs[i].param);
		report_notes_input_lengths(out, fmt, runs[i].trace_path);
		summary_table_init(&t, out, fmt, report_groups(&run, sc.use));
		table_begin(&t);
		report_rows(&t, runs[i].label, &run);
		table_end(&t);
		summary_print_notes(out, fmt, run.levels, run.n_levels);
		report_notes_efficiency(out, &run);
		fputs(para, out);
		if (sc.use) {
			report_notes_slo(out, sc.use);
			fputs(para, out);
		}
		report_notes_warmup(out, &run);
		report_notes_errors(out, &run);
		cancels = report_notes_cancel(out, &run);
		cut = report_plan_interrupted(out, &run);
		report_notes_open_loop(out, &run);
		sessions = report_notes_sessions(out, fmt, &run);
		rc = shards_print(out, db, runs[i].label, &run, &sharded, err, errlen);
		if (!rc && (run.warmups || report_notes_has_errors(&run) || report_notes_has_open_loop(&run) ||
			    sharded || sessions || cut || cancels))
			fputs(para, out);
		if (!rc && run.n_levels) {
			if (fmt == TABLE_TEXT)
				fputc('\n', out);
			summary_print_latency(out, fmt, run.levels, run.n_levels, intervals);
			attribution_print(out, fmt, run.levels, run.n_levels);
			report_client_print(out, fmt, &run);
			rc = report_models_print(out, fmt, db, runs[i].label, err, errlen);
		}
		if (!rc && sc.param->is_capacity)
			rc = report_capacity_curve(out, fmt, db, runs[i].label, &run, &sc, err, errlen);
		if (!rc)
			rc = report_server_metrics(out, fmt, db, runs[i].label, &run, &sharded, err,
						   errlen);
		run_release(&run);
		if (rc)
			return rc;
	}
	return DB_OK;
}

/* CSV and JSON: one table, the run label in its "run" column; each row's
 * goodput against the SLO report_choose_slo gives its run, named in "slo". */
static int report_print_one_table(struct db *db, const struct db_run *runs, size_t n,
				  enum table_format fmt, const struct metric_slo *slo,
				  FILE *out, char *err, size_t errlen)
{
	struct report_slo_choice sc;
	struct run run;
	struct table t;
	unsigned groups = 0;
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		report_choose_slo(&runs[i].param, slo, &sc);
		groups |= sc.use ? SUMMARY_GROUP_SLO : 0;
		/* a run that scraped (an energy counter, perhaps) or has a price:
		 * the energy and cost columns, decided before any run is read */
		if ((runs[i].params && (strstr(runs[i].params, "\"metrics\"") ||
					strstr(runs[i].params, "\"price\""))) || efficiency_overridden())
			groups |= SUMMARY_GROUP_EFFICIENCY;
		/* the server's metrics where it was scraped; the host's always
		 * (results version 2 carry them; empty before) */
		if (runs[i].params && strstr(runs[i].params, "\"metrics\""))
			groups |= SUMMARY_GROUP_SERVER;
		/* replay --cancel's counts where it was given */
		if (runs[i].params && strstr(runs[i].params, "\"cancel\""))
			groups |= SUMMARY_GROUP_CANCEL;
		groups |= SUMMARY_GROUP_HOST;
	}
	summary_table_init(&t, out, fmt, groups);
	table_begin(&t);
	for (i = 0; i < n; i++) {
		report_choose_slo(&runs[i].param, slo, &sc);
		rc = run_read(db, runs[i].label, sc.use, &run, err, errlen);
		if (rc)
			return rc;
		report_plan_mark(&run);
		report_rows(&t, runs[i].label, &run);
		report_plan_unreached_rows(&t, runs[i].label, &run);
		run_release(&run);
	}
	table_end(&t);
	return DB_OK;
}

int report_print(struct db *db, const char *label, enum table_format fmt,
		 const struct metric_slo *slo, int intervals, FILE *out, char *err,
		 size_t errlen)
{
	struct db_run *runs = NULL;
	size_t n = 0;
	int rc;

	rc = db_runs(db, label, &runs, &n, err, errlen);
	if (rc)
		goto cleanup;
	if (fmt == TABLE_TEXT || fmt == TABLE_MARKDOWN)
		rc = report_print_per_run(db, runs, n, fmt, slo, intervals, out, err, errlen);
	else
		rc = report_print_one_table(db, runs, n, fmt, slo, out, err, errlen);
	if (!rc)
		rc = report_check_output(out, err, errlen);
cleanup:
	db_runs_free(runs, n);
	return rc;
}
