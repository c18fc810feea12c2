/*
 * report.c - `tracebench analyze report` and `export`; see report.h.
 *
 * This file decides the structure of a report (which runs, which levels,
 * headings, the warm-up line); the sweep table's columns are lib/summary.c's,
 * those of `analyze runs` and export below, all rendered by lib/table.c; all
 * SQL is in db.c.
 */
#include "analyze/report.h"
#include "analyze/efficiency.h"
#include "analyze/foreign.h"
#include "analyze/shards.h"
#include "lib/capacity.h"
#include "lib/errmsg.h"
#include "lib/metric.h"
#include "lib/tracefile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* Turns a failed write to out (a closed pipe, a full disk) into an error. */
static int report_check_output(FILE *out, char *err, size_t errlen)
{
	if (fflush(out) != 0 || ferror(out)) {
		errmsg_set(err, errlen, "cannot write output: %s", strerror(errno));
		return DB_ERR_WORK;
	}
	return DB_OK;
}

void report_run_release(struct report_run *r)
{
	free(r->levels);
	free(r->turns);
	memset(r, 0, sizeof(*r));
}

/* Remembers the earliest warm-up (lowest seq) of the run: the cold start. */
static void report_note_warmups(struct report_run *run, const struct result *r, size_t n,
				long *cold_seq)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!r[i].warmup)
			continue;
		if (run->warmups++ == 0 || r[i].seq < *cold_seq) {
			*cold_seq = r[i].seq;
			run->cold_ttft_ms = metric_ttft_ms(&r[i]);
			snprintf(run->cold_error, sizeof(run->cold_error), "%s", r[i].error);
		}
	}
}

/* Scaling efficiency of each level against the run's C=1 level, if any. */
static void report_scaling(struct report_run *run)
{
	double base = NAN;
	size_t i;

	for (i = 0; i < run->n_levels; i++)
		if (run->levels[i].level == 1)
			base = run->levels[i].agg_tps;
	for (i = 0; i < run->n_levels; i++)
		summary_set_scaling(&run->levels[i], base);
}

/*
 * Closed loop from S shards: each ran C at a time, the server saw S x C
 * (shards_level_factor decides, for compare as well). After the scaling
 * efficiency, which compares each shard's levels with its own C=1 and is
 * the same either way.
 */
static int report_shard_levels(struct db *db, const char *label, struct report_run *run,
			       char *err, size_t errlen)
{
	size_t i;
	int factor, rc;

	rc = shards_level_factor(db, label, &factor, err, errlen);
	if (rc || factor < 2)
		return rc;
	run->shards = (size_t)factor;
	for (i = 0; i < run->n_levels; i++)
		run->levels[i].level = shards_level(run->levels[i].level, factor);
	return DB_OK;
}

/* A run of requests without start times (foreign_params_timeless): no
 * level's wall time, nor any rate over it, is known. */
static int report_forget_walls(struct db *db, const char *label, struct report_run *run,
			       char *err, size_t errlen)
{
	struct db_run *runs = NULL;
	size_t n = 0, i;
	int rc = db_runs(db, label, &runs, &n, err, errlen);

	if (!rc && n && foreign_params_timeless(runs[0].params))
		for (i = 0; i < run->n_levels; i++)
			summary_forget_wall(&run->levels[i]);
	db_runs_free(runs, n);
	return rc;
}

/* Each level's energy and price figures (analyze/efficiency.h), by the
 * counter and price the run's first file names. */
static int report_efficiency(struct db *db, const char *label, struct report_run *run,
			     char *err, size_t errlen)
{
	struct db_run *runs = NULL;
	size_t n = 0;
	int rc = db_runs(db, label, &runs, &n, err, errlen);

	if (!rc)
		rc = efficiency_fill(db, label, n ? runs[0].params : NULL, run->levels,
				     run->n_levels, err, errlen);
	db_runs_free(runs, n);
	return rc;
}

int report_summarize(struct db *db, const char *label, const struct metric_slo *slo,
		     struct report_run *out, char *err, size_t errlen)
{
	struct report_run run = { NULL, 0, 0, NAN, "", 0, NULL };
	struct result *res = NULL;
	int *levels = NULL;
	size_t n_levels = 0, n_res = 0, i;
	long cold_seq = 0;
	int rc;

	rc = db_levels(db, label, &levels, &n_levels, err, errlen);
	if (rc)
		goto cleanup;
	if (n_levels && (!(run.levels = calloc(n_levels, sizeof(*run.levels))) ||
			 !(run.turns = calloc(n_levels, sizeof(*run.turns))))) {
		errmsg_set(err, errlen, "run '%s': out of memory", label);
		rc = DB_ERR_WORK;
		goto cleanup;
	}
	for (i = 0; i < n_levels; i++) {
		rc = db_results(db, label, levels[i], &res, &n_res, err, errlen);
		if (rc)
			goto cleanup;
		report_note_warmups(&run, res, n_res, &cold_seq);
		summary_compute(res, n_res, levels[i], slo, &run.levels[run.n_levels]);
		if (turns_compute(res, n_res, &run.turns[run.n_levels]) < 0) {
			errmsg_set(err, errlen, "run '%s': out of memory", label);
			rc = DB_ERR_WORK;
			goto cleanup;
		}
		/* A level holding only warm-ups has nothing to show in the table. */
		if (run.levels[run.n_levels].requests > 0)
			run.n_levels++;
		db_results_free(res, n_res);
		res = NULL;
	}
	rc = report_forget_walls(db, label, &run, err, errlen);
	if (rc)
		goto cleanup;
	report_scaling(&run);
	rc = report_efficiency(db, label, &run, err, errlen);
	if (rc)
		goto cleanup;
	rc = report_shard_levels(db, label, &run, err, errlen);
	if (rc)
		goto cleanup;
	*out = run;
	run.levels = NULL;
	run.turns = NULL;
cleanup:
	free(run.levels);
	free(run.turns);
	free(levels);
	return rc;
}

/* "run 'L': endpoint E, model M, trace D" (text) or "### L — ..." (Markdown). */
static void report_heading(FILE *out, enum table_format fmt, const struct db_run *run)
{
	if (fmt == TABLE_MARKDOWN) {
		fputs("### ", out);
		table_put_text(out, run->label);
		fputs(" —", out);
	} else {
		fputs("run '", out);
		table_put_text(out, run->label);
		fputs("':", out);
	}
	fputs(" endpoint ", out);
	table_put_text(out, run->endpoint ? run->endpoint : "unknown");
	if (run->model) {
		fputs(", model ", out);
		table_put_text(out, run->model);
	}
	if (run->trace_digest) {
		fputs(", trace ", out);
		table_put_text(out, run->trace_digest);
	}
	if (run->files > 1)
		fprintf(out, ", merged from %d results files", run->files);
	fputs(fmt == TABLE_MARKDOWN ? "\n\n" : "\n", out);
}

/* The params' "notes" (a capture's or another tool's run: what its source
 * lacks or means differently), one "note:" line each. */
static void report_notes(FILE *out, enum table_format fmt, const char *params)
{
	cJSON *p = params ? cJSON_Parse(params) : NULL;
	const cJSON *note;
	int any = 0;

	cJSON_ArrayForEach(note, cJSON_GetObjectItemCaseSensitive(p, "notes")) {
		if (!cJSON_IsString(note))
			continue;
		fputs("note: ", out);
		table_put_text(out, note->valuestring);
		fputs(fmt == TABLE_MARKDOWN ? "  \n" : "\n", out);
		any = 1;
	}
	if (any && fmt == TABLE_MARKDOWN)
		fputc('\n', out);
	cJSON_Delete(p);
}

/*
 * Where the trace's input lengths came from (schema/FORMAT.md, its header's
 * source.input_lengths), as a note, when they came from a tokenizer or a
 * tokenizer was asked for and not used: the header is one line of the
 * trace, cheap to read where the trace still is. Word estimates, the
 * default of every trace before, say nothing; nor does a trace gone or
 * unreadable (the run's digest names it).
 */
static void report_input_lengths(FILE *out, enum table_format fmt, const char *trace_path)
{
	struct tracefile_reader *r = trace_path ?
		tracefile_reader_open(trace_path, TRACEFILE_KIND_TRACE, NULL, 0) : NULL;
	const cJSON *src, *from, *url, *tpl, *why;

	if (!r)
		return;
	src = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
		tracefile_reader_header(r), "source"), "input_lengths");
	from = cJSON_GetObjectItemCaseSensitive(src, "from");
	url = cJSON_GetObjectItemCaseSensitive(src, "tokenizer_url");
	tpl = cJSON_GetObjectItemCaseSensitive(src, "chat_template");
	why = cJSON_GetObjectItemCaseSensitive(src, "tokenizer_fallback");
	if (cJSON_IsString(from) && strcmp(from->valuestring, "tokenizer") == 0) {
		fputs("note: input lengths are tokenizer-exact (", out);
		table_put_text(out, cJSON_IsString(url) ? url->valuestring : "tokenizer");
		if (cJSON_IsString(tpl)) {
			fputs(", chat template ", out);
			table_put_text(out, tpl->valuestring);
		}
		fputs(")", out);
	} else if (cJSON_IsString(why)) {
		fputs("note: input lengths are word estimates, the tokenizer unused: ", out);
		table_put_text(out, why->valuestring);
	} else {
		tracefile_reader_close(r);
		return;
	}
	fputs(fmt == TABLE_MARKDOWN ? "\n\n" : "\n", out);
	tracefile_reader_close(r);
}

/* "warm-up: 1 request, cold-start TTFT 1012.3 ms", when the run had warm-ups. */
static void report_warmup_line(FILE *out, const struct report_run *run)
{
	if (!run->warmups)
		return;
	fprintf(out, "warm-up: %zu request%s, ", run->warmups, run->warmups == 1 ? "" : "s");
	if (run->cold_error[0]) {
		fputs("cold-start request failed (", out);
		table_put_text(out, run->cold_error);
		fputs(")\n", out);
	}
	else if (isnan(run->cold_ttft_ms))
		fputs("cold-start request had no token\n", out);
	else
		fprintf(out, "cold-start TTFT %.1f ms\n", run->cold_ttft_ms);
}

/* The optional columns of a run's table: goodput with an SLO, the
 * spread across repeats when a level has several, TTFA when a level's
 * requests reasoned. */
static unsigned report_groups(const struct report_run *run, const struct metric_slo *slo)
{
	unsigned g = (slo ? SUMMARY_GROUP_SLO : 0) | summary_groups(run->levels, run->n_levels);
	size_t i;

	for (i = 0; i < run->n_levels; i++)
		if (run->levels[i].repeats > 1)
			g |= SUMMARY_GROUP_SPREAD;
	return g;
}

/* " 12.3 ms" or " -" for NaN. */
static void report_ms(FILE *out, const char *what, double ms)
{
	if (isnan(ms))
		fprintf(out, " %s -", what);
	else
		fprintf(out, " %s %.1f ms", what, ms);
}

/* A share as " 43%", or " -" when no request said. */
static void report_share(FILE *out, double share)
{
	if (isnan(share))
		fputs(" -", out);
	else
		fprintf(out, " %.0f%%", 100 * share);
}

/* "first turns C=4: 12 ok, TTFT P50 ..., P95 ..., E2E P50 ..., cached 43%" */
static void report_turn_group(FILE *out, const char *item, const char *which, const char *name,
			      const struct turns_group *g)
{
	fprintf(out, "%s  %s turns %s: %zu ok,", item, which, name, g->n);
	report_ms(out, "TTFT P50", g->ttft_p50);
	report_ms(out, "P95", g->ttft_p95);
	report_ms(out, "E2E P50", g->e2e_p50);
	fputs(", cached", out);
	report_share(out, g->cached_share);
	fputc('\n', out);
}

/*
 * Per level of a run of sessions: "sessions C=2: 4, 3.0 turns each, ...",
 * then its first and its later turns, then the cached-prompt share by
 * turn. Nothing for a run without sessions; returns whether it printed.
 */
static int report_sessions_lines(FILE *out, enum table_format fmt, const struct report_run *run)
{
	const char *item = fmt == TABLE_MARKDOWN ? "- " : "";
	char name[32];
	size_t i, t;
	int any = 0;

	for (i = 0; run->turns && i < run->n_levels; i++) {
		const struct turns_summary *ts = &run->turns[i];

		if (!ts->sessions)
			continue;
		any = 1;
		metric_level_name(run->levels[i].level, name, sizeof(name));
		fprintf(out, "%ssessions %s: %zu, %.1f turns each, duration P50 %.2f s, %.0f output "
			"tokens and a context of %.0f prompt tokens each; %zu ended by a failed turn\n",
			item, name, ts->sessions, ts->turns_mean, ts->duration_p50_s,
			ts->output_tokens_mean, ts->context_mean, ts->ended_by_error);
		report_turn_group(out, item, "first", name, &ts->first);
		report_turn_group(out, item, "later", name, &ts->later);
		fprintf(out, "%s  cached share of the prompt by turn %s:", item, name);
		for (t = 0; t < ts->max_turn && t < TURNS_MAX_INDEX; t++) {
			fprintf(out, "%s %zu%s", t ? "," : "", t + 1,
				t + 1 == TURNS_MAX_INDEX && ts->max_turn > TURNS_MAX_INDEX ? "+" : "");
			report_share(out, ts->cached_share[t]);
		}
		fputc('\n', out);
	}
	return any;
}

/* Prints the rows of one run into t. */
static void report_rows(struct table *t, const char *label, const struct report_run *run)
{
	size_t i;

	for (i = 0; i < run->n_levels; i++)
		summary_table_row(t, label, &run->levels[i]);
}

/* "errors by class: C=2: 1 http (HTTP 429 x1), 2 timeout; C=4: ..." when
 * the run had errors: each class, and the HTTP statuses of those that had
 * one, so a 429 storm does not read as a 404. */
static void report_error_line(FILE *out, const struct report_run *run)
{
	char name[32], why[512];
	size_t i;
	int any = 0;

	for (i = 0; i < run->n_levels; i++) {
		const struct level_summary *l = &run->levels[i];

		if (!l->errors)
			continue;
		summary_errors_format(&l->failed, why, sizeof(why));
		fprintf(out, "%s %s: %s", any ? ";" : "errors by class:",
			metric_level_name(l->level, name, sizeof(name)), why);
		any = 1;
	}
	if (any)
		fputc('\n', out);
}

/* The most levels report_plan recomputes; a longer list is left alone. */
#define REPORT_PLAN_MAX 256

/*
 * The plan of a closed-loop run from its params JSON: its levels in order
 * into levels[] and the requests each was to measure into planned[] (-n, or
 * replay's default of twice C and at least 4, times --repeat). Returns how
 * many levels, or 0 when the plan cannot be recomputed from the params
 * (open loop, shards, sessions, capacity searches, other tools' files).
 */
static size_t report_plan(const struct report_run *run, const char *params, int *levels,
			  size_t *planned, size_t max)
{
	cJSON *p = params ? cJSON_Parse(params) : NULL;
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(p, "concurrency"), *c;
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(p, "requests");
	const cJSON *rep = cJSON_GetObjectItemCaseSensitive(p, "repeat");
	const char *mode = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "mode"));
	size_t i, n = 0;

	for (i = 0; run->turns && i < run->n_levels; i++)
		if (run->turns[i].sessions)
			mode = NULL;        /* params.requests counts sessions */
	if (!mode || strcmp(mode, "closed") || !cJSON_IsArray(list) || run->shards ||
	    cJSON_GetObjectItemCaseSensitive(p, "capacity") ||
	    cJSON_GetObjectItemCaseSensitive(p, "shard") ||
	    foreign_params_timeless(params) || cJSON_GetArraySize(list) > (int)max) {
		cJSON_Delete(p);
		return 0;
	}
	cJSON_ArrayForEach(c, list) {
		double level = cJSON_GetNumberValue(c), want;

		if (!(level >= 1 && level <= 1e6))
			continue;
		want = cJSON_IsNumber(req) && req->valuedouble > 0 ? req->valuedouble :
		       level * 2 > 4 ? level * 2 : 4;
		want *= cJSON_IsNumber(rep) && rep->valuedouble >= 1 ? rep->valuedouble : 1;
		levels[n] = (int)level;
		planned[n++] = want < 1e12 ? (size_t)want : 0;
	}
	cJSON_Delete(p);
	return n;
}

/* The level C of run, NULL when it measured none. */
static struct level_summary *report_level(const struct report_run *run, int level)
{
	size_t i;

	for (i = 0; i < run->n_levels; i++)
		if (run->levels[i].level == level)
			return &run->levels[i];
	return NULL;
}

/* Sets each measured level's planned requests where the plan is known. */
static void report_mark_planned(struct report_run *run, const char *params)
{
	int levels[REPORT_PLAN_MAX];
	size_t planned[REPORT_PLAN_MAX], n, i;
	struct level_summary *l;

	n = report_plan(run, params, levels, planned, REPORT_PLAN_MAX);
	for (i = 0; i < n; i++)
		if ((l = report_level(run, levels[i])))
			l->planned = planned[i];
}

/*
 * "interrupted: C=2 has 3 of 8 requests; nothing measured: C=4, C=8" when a
 * closed-loop run measured fewer requests than its parameters planned (a
 * stopped replay keeps what it measured; a killed one, what it flushed).
 * Returns 1 when it printed a line.
 */
static int report_interrupted_line(FILE *out, const struct report_run *run, const char *params)
{
	int levels[REPORT_PLAN_MAX];
	size_t planned[REPORT_PLAN_MAX], n, i;
	const struct level_summary *l;
	char name[32];
	int cut = 0, missing = 0;

	n = report_plan(run, params, levels, planned, REPORT_PLAN_MAX);
	for (i = 0; i < n; i++) {
		l = report_level(run, levels[i]);
		if (l && l->requests < planned[i])
			fprintf(out, "%s %s has %zu of %zu requests", cut++ ? "," : "interrupted:",
				metric_level_name(levels[i], name, sizeof(name)), l->requests,
				planned[i]);
	}
	for (i = 0; i < n; i++)
		if (!report_level(run, levels[i]))
			fprintf(out, "%s %s", missing++ ? "," : cut ? "; nothing measured:" :
				"nothing measured:", metric_level_name(levels[i], name, sizeof(name)));
	if (cut || missing)
		fputs(" (the replay was stopped)\n", out);
	return cut || missing;
}

/* CSV and JSON: a row for each planned level that measured nothing, its
 * requests 0 of those planned, "interrupted" true. */
static void report_unreached_rows(struct table *t, const char *label,
				  const struct report_run *run, const char *params)
{
	int levels[REPORT_PLAN_MAX];
	size_t planned[REPORT_PLAN_MAX], n, i;
	struct level_summary s;

	n = report_plan(run, params, levels, planned, REPORT_PLAN_MAX);
	for (i = 0; i < n; i++) {
		if (report_level(run, levels[i]))
			continue;
		summary_compute(NULL, 0, levels[i], NULL, &s);
		s.planned = planned[i];
		summary_table_row(t, label, &s);
	}
}

static int report_has_errors(const struct report_run *run)
{
	size_t i;

	for (i = 0; i < run->n_levels; i++)
		if (run->levels[i].errors)
			return 1;
	return 0;
}

/* The "rate" of a run's params JSON, NaN when absent. */
static double report_target_rate(const char *params)
{
	cJSON *p = params ? cJSON_Parse(params) : NULL;
	const cJSON *rate = cJSON_GetObjectItemCaseSensitive(p, "rate");
	double v = cJSON_IsNumber(rate) ? rate->valuedouble : NAN;

	cJSON_Delete(p);
	return v;
}

/*
 * Open-loop levels: target (from params), scheduled and achieved send
 * rates, the send lag, and TTFT and E2E counted from the schedule (what a
 * user waited, the table's numbers) beside counted from the actual send
 * (the server's service time).
 */
static void report_open_loop_lines(FILE *out, const struct report_run *run, const char *params)
{
	double target = report_target_rate(params);
	size_t i;

	for (i = 0; i < run->n_levels; i++) {
		const struct level_summary *s = &run->levels[i];

		if (!s->open_loop)
			continue;
		fputs("open loop: ", out);
		if (s->level < 0 && s->offered_rps > 0)     /* a rate level: its own */
			fprintf(out, "target %.2f req/s, ", s->offered_rps);
		else if (!isnan(target))
			fprintf(out, "target %.2f req/s, ", target);
		fprintf(out, "scheduled %.2f req/s, achieved %.2f req/s, send lag P50 %.1f ms "
			"P99 %.1f ms; TTFT P50/P99 %.1f/%.1f ms from the schedule, %.1f/%.1f ms "
			"from the send; E2E %.1f/%.1f ms from the schedule, %.1f/%.1f ms from "
			"the send\n", s->sched_rps, s->achieved_rps, s->lag.p50, s->lag.p99,
			s->ttft.p50, s->ttft.p99, s->ttft_service.p50, s->ttft_service.p99,
			s->e2e.p50, s->e2e.p99, s->e2e_service.p50, s->e2e_service.p99);
	}
}

static int report_has_open_loop(const struct report_run *run)
{
	size_t i;

	for (i = 0; i < run->n_levels; i++)
		if (run->levels[i].open_loop)
			return 1;
	return 0;
}

/* "goodput: requests within TTFT <= 500 ms, TPOT <= 50 ms" under the table. */
static void report_slo_line(FILE *out, const struct metric_slo *slo)
{
	static const char *const names[] = { "TTFT", "TTFA", "TPOT", "E2E" };
	const double lim[] = { slo->ttft_ms, slo->ttfa_ms, slo->tpot_ms, slo->e2e_ms };
	size_t i;
	int n = 0;

	fputs("goodput: share of requests that succeeded within ", out);
	for (i = 0; i < 4; i++)
		if (lim[i] > 0)
			fprintf(out, "%s%s <= %g ms", n++ ? ", " : "", names[i], lim[i]);
	fputs("; good req/s = those requests / wall time.\n", out);
}

/* ---- the server's own metrics (replay --metrics-url) ------------------ */

static const char *col_srv_level(const void *row, size_t arg)
{
	static char buf[24];
	const struct db_metric_level *m = row;

	(void)arg;
	return metric_level_cell(m->level, buf, sizeof(buf));   /* "4", "open", "r3" */
}

static double col_srv_count(const void *row, size_t off)
{
	long v;

	memcpy(&v, (const char *)row + off, sizeof(v));
	return (double)v;
}

/* arg: a srvmetric_kind; the mean, the max or the increase over the level. */
static double col_srv_mean(const void *row, size_t arg)
{
	return ((const struct db_metric_level *)row)->m.mean[arg % SRVMETRIC_N];
}

static double col_srv_max(const void *row, size_t arg)
{
	return ((const struct db_metric_level *)row)->m.max[arg % SRVMETRIC_N];
}

static double col_srv_delta(const void *row, size_t arg)
{
	return ((const struct db_metric_level *)row)->m.delta[arg % SRVMETRIC_N];
}

static double col_srv_hit_rate(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct db_metric_level *)row)->m.prefix_hit_rate;
}

static double col_srv_spec(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct db_metric_level *)row)->m.spec_acceptance;
}

static double col_srv_unknown(const void *row, size_t arg)
{
	(void)arg;
	return (double)((const struct db_metric_level *)row)->m.unknown;
}

/* The energy over the level's window (lib/energy.h), NaN when refused. */
static double col_srv_energy(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct db_metric_level *)row)->e.joules;
}

#define REPORT_SRV_ENERGY 1u    /* the energy column: a source has the counter */

#define SRV_FIG(h, u, k, d, sc, suf, fn, a) { .head = (h), .unit = (u), .key = (k), \
		.decimals = (d), .scale = (sc), .suffix = (suf), .csv_decimals = 4, .num = (fn), \
		.arg = (a) }

static const struct table_col report_srv_cols[] = {
	{ .head = "C", .key = "level", .str = col_srv_level },
	{ .head = "Scrapes", .key = "scrapes", .num = col_srv_count,
	  .arg = offsetof(struct db_metric_level, scrapes) },
	{ .head = "Failed", .key = "failed", .num = col_srv_count,
	  .arg = offsetof(struct db_metric_level, failed) },
	{ .head = "Bad lines", .key = "bad_lines", .num = col_srv_count,
	  .arg = offsetof(struct db_metric_level, bad_lines) },
	SRV_FIG("Running", "avg", "running_avg", 1, 0, NULL, col_srv_mean, SRVMETRIC_RUNNING),
	SRV_FIG("Running", "max", "running_max", 0, 0, NULL, col_srv_max, SRVMETRIC_RUNNING),
	SRV_FIG("Waiting", "avg", "waiting_avg", 1, 0, NULL, col_srv_mean, SRVMETRIC_WAITING),
	SRV_FIG("Waiting", "max", "waiting_max", 0, 0, NULL, col_srv_max, SRVMETRIC_WAITING),
	SRV_FIG("KV use", "avg", "kv_usage_avg", 1, 100, "%", col_srv_mean, SRVMETRIC_KV_USAGE),
	SRV_FIG("KV use", "max", "kv_usage_max", 1, 100, "%", col_srv_max, SRVMETRIC_KV_USAGE),
	{ .head = "Prefix hit", .key = "prefix_hit_rate", .decimals = 1, .scale = 100,
	  .suffix = "%", .csv_decimals = 4, .num = col_srv_hit_rate },
	SRV_FIG("Preempt", NULL, "preemptions", 0, 0, NULL, col_srv_delta, SRVMETRIC_PREEMPTIONS),
	{ .head = "Spec accept", .key = "spec_acceptance", .decimals = 1, .scale = 100,
	  .suffix = "%", .csv_decimals = 4, .num = col_srv_spec },
	SRV_FIG("Prompt tok", NULL, "prompt_tokens", 0, 0, NULL, col_srv_delta, SRVMETRIC_PROMPT_TOKENS),
	SRV_FIG("Gen tok", NULL, "generation_tokens", 0, 0, NULL, col_srv_delta, SRVMETRIC_GEN_TOKENS),
	{ .head = "Other", .key = "other_samples", .num = col_srv_unknown },
	{ .head = "Energy", .unit = "J", .key = "energy_j", .decimals = 1, .csv_decimals = 3,
	  .group = REPORT_SRV_ENERGY, .num = col_srv_energy },
};

/*
 * Text and Markdown: the server's own metrics of each level, when the run
 * scraped them (lib/srvmetric.h says how they are folded); *printed set.
 */
/*
 * The server's own latency percentiles of a level, estimated from its
 * histograms' buckets (lib/srvmetric.h), one row per level and histogram,
 * beside the client's of the same level.
 */
struct srv_latency_row {
	int level;
	const char *metric;                 /* "TTFT", "Queue", "E2E", "ITL" */
	double count;                       /* observations in the window */
	char est[SRVMETRIC_NQ][64];         /* "48.2 (40-60 bucket)", "refused", "" */
	double client[SRVMETRIC_NQ];        /* the client's, ms; NaN: none */
};

static const char *col_lat_level(const void *row, size_t arg)
{
	static char buf[24];

	(void)arg;
	return metric_level_cell(((const struct srv_latency_row *)row)->level, buf, sizeof(buf));
}

static const char *col_lat_metric(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct srv_latency_row *)row)->metric;
}

static double col_lat_count(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct srv_latency_row *)row)->count;
}

static const char *col_lat_est(const void *row, size_t q)
{
	const char *e = ((const struct srv_latency_row *)row)->est[q % SRVMETRIC_NQ];

	return e[0] ? e : NULL;
}

static double col_lat_client(const void *row, size_t q)
{
	return ((const struct srv_latency_row *)row)->client[q % SRVMETRIC_NQ];
}

static const struct table_col report_lat_cols[] = {
	{ .head = "C", .key = "level", .str = col_lat_level },
	{ .head = "Server", .key = "metric", .flags = TABLE_LEFT, .str = col_lat_metric },
	{ .head = "Obs", .key = "observations", .num = col_lat_count },
	{ .head = "P50 server", .unit = "ms", .key = "p50_server_ms", .str = col_lat_est, .arg = 0 },
	{ .head = "P50 client", .unit = "ms", .key = "p50_client_ms", .decimals = 1,
	  .csv_decimals = 3, .num = col_lat_client, .arg = 0 },
	{ .head = "P90 server", .unit = "ms", .key = "p90_server_ms", .str = col_lat_est, .arg = 1 },
	{ .head = "P90 client", .unit = "ms", .key = "p90_client_ms", .decimals = 1,
	  .csv_decimals = 3, .num = col_lat_client, .arg = 1 },
	{ .head = "P99 server", .unit = "ms", .key = "p99_server_ms", .str = col_lat_est, .arg = 2 },
	{ .head = "P99 client", .unit = "ms", .key = "p99_client_ms", .decimals = 1,
	  .csv_decimals = 3, .num = col_lat_client, .arg = 2 },
};

/* An estimate as the table shows it: the value and the bucket holding it,
 * in ms ("48.2 (40-60 bucket)", ">100 (above the last bucket)"), "refused"
 * for buckets a server cannot have counted, "" for none in the window. */
static void srv_estimate_cell(const struct srvmetric_hist *h, size_t q, char *buf, size_t len,
			      int *refused)
{
	const struct bucketq_estimate *e = &h->q[q];

	if (h->rc[q] == BUCKETQ_EMPTY) {
		buf[0] = '\0';
	} else if (h->rc[q] < 0) {
		snprintf(buf, len, "refused");
		*refused = 1;
	} else if (isinf(e->hi)) {
		snprintf(buf, len, ">%.4g (above the last bucket)", e->value * 1e3);
	} else {
		snprintf(buf, len, "%.1f (%.4g-%.4g bucket)", e->value * 1e3, e->lo * 1e3,
			 e->hi * 1e3);
	}
}

/* The client's q-th percentile of kind h at level, ms; NaN: none. */
static double srv_client_value(const struct report_run *run, int level,
			       enum srvmetric_hist_kind h, size_t q)
{
	const struct stats_dist *d;
	size_t i;

	for (i = 0; run && i < run->n_levels; i++)
		if (run->levels[i].level == level)
			break;
	if (!run || i == run->n_levels)
		return NAN;
	d = h == SRVMETRIC_H_TTFT ? &run->levels[i].ttft :
	    h == SRVMETRIC_H_E2E ? &run->levels[i].e2e :
	    h == SRVMETRIC_H_ITL ? &run->levels[i].itl : NULL;
	if (!d)
		return NAN;                 /* the client cannot see the queue */
	return q == 0 ? d->p50 : q == 1 ? d->p90 : d->p99;
}

/*
 * Text and Markdown: the table of the levels' latency bucket estimates,
 * when the server keeps any of the histograms; nothing otherwise.
 */
static int report_server_latency(FILE *out, enum table_format fmt,
				 const struct db_metric_level *lv, size_t n,
				 const struct report_run *run)
{
	static const char *const names[SRVMETRIC_H_N] = { "TTFT", "Queue", "E2E", "ITL" };
	struct srv_latency_row *rows = calloc(n * SRVMETRIC_H_N + 1, sizeof(*rows));
	size_t i, k, q, nr = 0;
	int refused = 0;
	struct table t;

	if (!rows)
		return DB_ERR_WORK;
	for (i = 0; i < n; i++)
		for (k = 0; k < SRVMETRIC_H_N; k++) {
			const struct srvmetric_hist *h = &lv[i].m.hist[k];
			struct srv_latency_row *r = &rows[nr];

			if (!h->name)
				continue;
			r->level = lv[i].level;
			r->metric = names[k];
			r->count = h->rc[0] == 0 ? h->q[0].count : NAN;
			for (q = 0; q < SRVMETRIC_NQ; q++) {
				srv_estimate_cell(h, q, r->est[q], sizeof(r->est[q]), &refused);
				r->client[q] = srv_client_value(run, lv[i].level,
								(enum srvmetric_hist_kind)k, q);
			}
			nr++;
		}
	if (nr) {
		fprintf(out, "\nserver latency from its histograms (bucket estimates over each "
			"level's window, beside the client's):\n");
		if (fmt == TABLE_MARKDOWN)
			fputc('\n', out);
		table_init(&t, out, fmt, report_lat_cols,
			   sizeof(report_lat_cols) / sizeof(report_lat_cols[0]), 0);
		table_print(&t, rows, nr, sizeof(*rows));
		fputs(fmt == TABLE_MARKDOWN ? "\n" : "", out);
		fprintf(out, "a server percentile is interpolated inside the bucket that holds it "
			"(as PromQL's histogram_quantile), bounds in ms: it is only as fine as the "
			"server's buckets; \"Obs\" = observations in the window; the client cannot "
			"see the queue, and its ITL pools every gap%s.\n",
			refused ? "; \"refused\": the server's buckets count fewer at a bound than "
			"at the one below it (or more bounds than 64), which no histogram can" : "");
	}
	free(rows);
	return DB_OK;
}

/* Text and Markdown: the reasons a source's levels have no energy figure,
 * where it has the counter. */
static void report_energy_notes(FILE *out, const struct db_metric_level *lv, size_t n)
{
	char name[24];
	size_t i;

	for (i = 0; i < n; i++)
		if (lv[i].e.rc && lv[i].e.rc != ENERGY_NOT_SCRAPED)
			fprintf(out, "no energy figure at %s: %s.\n",
				metric_level_name(lv[i].level, name, sizeof(name)),
				energy_strerror(lv[i].e.rc));
}

/*
 * Text and Markdown: the server's own metrics of each level, when the run
 * scraped them (lib/srvmetric.h says how they are folded), a table per
 * --metrics-url (its levels lv[0..n-1]); *printed set.
 */
static int report_server_source(FILE *out, enum table_format fmt,
				const struct db_metric_level *lv, size_t n, int several,
				const struct report_run *run)
{
	const char *family = NULL;
	unsigned groups = 0;
	struct table t;
	size_t i;

	for (i = 0; i < n && !family; i++)
		family = lv[i].m.family;
	for (i = 0; i < n; i++)
		if (lv[i].e.rc != ENERGY_NOT_SCRAPED)
			groups |= REPORT_SRV_ENERGY;
	if (several)
		fprintf(out, "\nserver metrics of %s (%s names; scraped by replay --metrics-url):\n",
			lv[0].source[0] ? lv[0].source : "the run's endpoint", family ? family :
			"no known");
	else
		fprintf(out, "\nserver metrics (%s names; scraped by replay --metrics-url):\n",
			family ? family : "no known");
	if (fmt == TABLE_MARKDOWN)
		fputc('\n', out);
	table_init(&t, out, fmt, report_srv_cols, sizeof(report_srv_cols) / sizeof(report_srv_cols[0]),
		   groups);
	table_print(&t, lv, n, sizeof(*lv));
	fputs(fmt == TABLE_MARKDOWN ? "\n" : "", out);
	fprintf(out, "gauges averaged over the level's interval scrapes (label sets summed), "
		"counters as their increase over its window (from the scrape at its start to the "
		"one at its end, or its first to its last in a run without them); prefix hit = hits / queries; \"Other\" = samples "
		"of names not summarised (in table metric_samples)%s.\n",
		groups ? "; energy over the level's window, GPUs summed, in joules" : "");
	report_energy_notes(out, lv, n);
	return report_server_latency(out, fmt, lv, n, run);
}

/* The run's energy counter, as its first file's header names it. */
static void report_energy_counter(struct db *db, const char *label, struct energy_counter *c)
{
	struct db_run *runs = NULL;
	struct metric_price p;
	size_t n = 0;
	char err[64];

	if (db_runs(db, label, &runs, &n, err, sizeof(err)) == DB_OK && n)
		efficiency_params(runs[0].params, c, &p);
	else
		energy_counter_default(c);
	db_runs_free(runs, n);
}

static int report_server_metrics(FILE *out, enum table_format fmt, struct db *db,
				 const char *label, const struct report_run *run, int *printed,
				 char *err, size_t errlen)
{
	struct db_metric_level *lv = NULL;
	struct energy_counter c;
	size_t n = 0, i, from;
	int rc, several;

	*printed = 0;
	report_energy_counter(db, label, &c);
	rc = db_metric_levels(db, label, &c, &lv, &n, err, errlen);
	if (rc || !n) {
		free(lv);
		return rc;
	}
	several = lv[n - 1].source_order != lv[0].source_order;
	for (from = 0, i = 1; !rc && i <= n; i++)
		if (i == n || lv[i].source_order != lv[from].source_order) {
			rc = report_server_source(out, fmt, lv + from, i - from, several, run);
			from = i;
		}
	*printed = 1;
	if (rc)
		errmsg_set(err, errlen, "out of memory");
	free(lv);
	return rc;
}

/* ---- a capacity search (replay --find-capacity) ------------------------ */

int report_capacity_params(const char *params, struct capacity_options *k,
				  struct metric_slo *slo, char *spec, size_t spec_len)
{
	cJSON *p = params ? cJSON_Parse(params) : NULL;
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(p, "capacity"), *x;
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "slo")), *by;
	int found = 0;

	memset(k, 0, sizeof(*k));
	if (s && metric_slo_parse(s, slo, NULL, 0) == 0) {
		snprintf(spec, spec_len, "%s", s);
#define NUM(key, field, lo, hi) \
		x = cJSON_GetObjectItemCaseSensitive(c, key); \
		if (cJSON_IsNumber(x) && x->valuedouble >= (lo) && x->valuedouble <= (hi)) \
			k->field = x->valuedouble
		NUM("share", share, 0.01, 0.9999);
		NUM("confidence", confidence, 0.5, 0.9999);
		NUM("tolerance", tolerance, 0, 10);
		NUM("start", start, 1e-3, 1e6);
		NUM("max", max, 1e-3, 1e6);
#undef NUM
		/* a search before rates were searched has no "by": concurrency */
		by = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "by"));
		k->by_rate = by && strcmp(by, "rate") == 0;
		x = cJSON_GetObjectItemCaseSensitive(c, "max_requests");
		k->max_requests = cJSON_IsNumber(x) && x->valuedouble >= 1 &&
				  x->valuedouble <= 1e7 ? (long)x->valuedouble : 400;
		x = cJSON_GetObjectItemCaseSensitive(c, "batch");
		k->batch = cJSON_IsNumber(x) && x->valuedouble >= 1 && x->valuedouble <= 1e8 ?
			   (long)x->valuedouble : 0;
		found = k->share > 0 && k->confidence > 0;
	}
	cJSON_Delete(p);
	return found;
}

/* A row of the load curve: a level, its load (C or offered req/s) and its
 * verdict. */
struct report_curve_row {
	const struct level_summary *s;
	double load;
	double lo, hi;
	enum capacity_verdict v;
};

/* The load of level s in the search k: its C, or its offered rate. */
double report_level_load(const struct capacity_options *k, const struct level_summary *s)
{
	return k->by_rate ? (s->level < 0 && s->offered_rps > 0 ? s->offered_rps : NAN) :
	       (double)s->level;
}

static int by_load(const void *a, const void *b)
{
	double x = ((const struct report_curve_row *)a)->load;
	double y = ((const struct report_curve_row *)b)->load;

	return (x > y) - (x < y);
}

static double col_curve_num(const void *row, size_t which)
{
	const struct report_curve_row *r = row;

	switch (which) {
	case 0: return r->load;
	case 1: return (double)r->s->requests;
	case 2: return (double)r->s->good;
	case 3: return r->s->goodput_share;
	case 4: return r->lo;
	case 5: return r->hi;
	case 6: return r->s->wall_s > 0 ? (double)r->s->requests / r->s->wall_s : NAN;
	case 7: return r->s->ttft.p50;
	case 8: return r->s->ttft.p99;
	case 9: return r->s->tpot.p99;
	case 10: return r->s->e2e.p99;
	case 12: return r->s->cache_hit_share;
	default: return r->s->good_rps;
	}
}

static const char *col_curve_verdict(const void *row, size_t arg)
{
	(void)arg;
	return capacity_verdict_name(((const struct report_curve_row *)row)->v);
}

#define CURVE(h, u, k, d, sc, suf, w) { .head = (h), .unit = (u), .key = (k), .decimals = (d), \
		.scale = (sc), .suffix = (suf), .csv_decimals = 4, .num = col_curve_num, .arg = (w) }

static const struct table_col report_curve_cols[] = {
	CURVE("C", NULL, "concurrency", 0, 0, NULL, 0),
	CURVE("Requests", NULL, "requests", 0, 0, NULL, 1),
	CURVE("Good", NULL, "good", 0, 0, NULL, 2),
	CURVE("Good share", NULL, "good_share", 1, 100, "%", 3),
	CURVE("Lower", NULL, "share_lower", 1, 100, "%", 4),
	CURVE("Upper", NULL, "share_upper", 1, 100, "%", 5),
	{ .head = "Verdict", .key = "verdict", .flags = TABLE_LEFT, .str = col_curve_verdict },
	CURVE("Req/s", NULL, "achieved_rps", 2, 0, NULL, 6),
	CURVE("P50 TTFT", "ms", "p50_ttft_ms", 1, 0, NULL, 7),
	CURVE("P99 TTFT", "ms", "p99_ttft_ms", 1, 0, NULL, 8),
	CURVE("P99 TPOT", "ms", "p99_tpot_ms", 2, 0, NULL, 9),
	CURVE("P99 E2E", "ms", "p99_e2e_ms", 1, 0, NULL, 10),
	CURVE("Good req/s", NULL, "good_rps", 2, 0, NULL, 11),
	/* a probe that found its prompts cached measured the cache, not the load */
	CURVE("Cache hit", NULL, "cache_hit_pct", 1, 100, "%", 12),
};

/* The load curve's first column for a search over rates. */
static const struct table_col report_rate_col =
	CURVE("Offered", "req/s", "offered_rps", 2, 0, NULL, 0);

/*
 * The capacity line of the curve: pass, the highest load that meets the
 * SLO, and fail, the lowest that does not (either may be NULL).
 */
static void report_capacity_line(FILE *out, const struct capacity_options *k,
				 const struct report_curve_row *pass,
				 const struct report_curve_row *fail)
{
	char p[48] = "", f[48] = "";
	const char *unit = k->by_rate ? " req/s" : "";

	if (pass)
		metric_load_name(pass->s->level, pass->s->offered_rps, p, sizeof(p));
	if (fail)
		metric_load_name(fail->s->level, fail->s->offered_rps, f, sizeof(f));
	if (pass && fail && pass->load < fail->load && fail->v == CAPACITY_UNDECIDED)
		fprintf(out, "capacity: %s meets the SLO (%.1f%% good or more at %.0f%% confidence: "
			"%zu of %zu); %s is undecided (%.1f%%..%.1f%%: %zu of %zu, an interrupted or "
			"capped probe), so the capacity is %s or higher\n", p, 100 * pass->lo,
			100 * k->confidence, pass->s->good, pass->s->requests, f, 100 * fail->lo,
			100 * fail->hi, fail->s->good, fail->s->requests, p);
	else if (pass && fail && pass->load < fail->load)
		fprintf(out, "capacity: %s meets the SLO (%.1f%% good or more at %.0f%% confidence: "
			"%zu of %zu), %s does not (%.1f%% or less: %zu of %zu); the capacity lies in "
			"[%.4g, %.4g)%s\n", p, 100 * pass->lo, 100 * k->confidence, pass->s->good,
			pass->s->requests, f, 100 * fail->hi, fail->s->good, fail->s->requests,
			pass->load, fail->load, unit);
	else if (pass && !fail)
		fprintf(out, "capacity: every level searched meets the SLO, up to %s (%.1f%% good "
			"or more: %zu of %zu); the capacity is %s or higher\n", p, 100 * pass->lo,
			pass->s->good, pass->s->requests, p);
	else if (fail && !pass)
		fprintf(out, "capacity: no level meets the SLO, not even %s (%.1f%% good or less: "
			"%zu of %zu)\n", f, 100 * fail->hi, fail->s->good, fail->s->requests);
	else if (pass && fail)
		fprintf(out, "capacity: %s meets the SLO but %s below it does not: the levels "
			"do not bracket one capacity\n", p, f);
}

/*
 * Text and Markdown: for a run of replay --find-capacity, the load curve
 * (each level judged again from its stored requests, as replay judged it),
 * in order of load, and the capacity: the highest load that meets the SLO,
 * the lowest that does not, and the evidence of both. A search over rates
 * shows each level's offered rate beside its achieved one.
 */
static void report_capacity(FILE *out, enum table_format fmt, const struct report_run *run,
			    const struct capacity_options *k, const char *spec)
{
	enum { NCOLS = sizeof(report_curve_cols) / sizeof(report_curve_cols[0]) };
	struct report_curve_row *rows = calloc(run->n_levels + 1, sizeof(*rows));
	const struct report_curve_row *pass = NULL, *fail = NULL;
	struct table_col cols[NCOLS];
	struct table t;
	size_t i, n = 0;

	if (!rows) {
		fputs("\nload curve: out of memory\n", out);
		return;
	}
	for (i = 0; i < run->n_levels; i++) {
		const struct level_summary *s = &run->levels[i];
		struct report_curve_row *r = &rows[n];

		r->s = s;
		r->load = report_level_load(k, s);
		if (isnan(r->load))
			continue;       /* not a level of this search */
		r->v = capacity_judge(k, r->load, (long)s->good, (long)s->requests, &r->lo, &r->hi);
		n++;
	}
	qsort(rows, n, sizeof(*rows), by_load);
	for (i = 0; i < n; i++) {
		if (rows[i].v == CAPACITY_PASS && (!pass || rows[i].load > pass->load))
			pass = &rows[i];
		if (rows[i].v != CAPACITY_PASS && (!fail || rows[i].load < fail->load))
			fail = &rows[i];
	}
	fprintf(out, "\nload curve (replay --find-capacity%s, SLO %s for %.1f%% of requests, "
		"one-sided Wilson bounds at %.0f%% confidence):\n", k->by_rate ? "=rate" : "",
		spec, 100 * k->share, 100 * k->confidence);
	if (fmt == TABLE_MARKDOWN)
		fputc('\n', out);
	memcpy(cols, report_curve_cols, sizeof(cols));
	if (k->by_rate)
		cols[0] = report_rate_col;
	table_init(&t, out, fmt, cols, NCOLS, 0);
	table_print(&t, rows, n, sizeof(*rows));
	fputs(fmt == TABLE_MARKDOWN ? "\n" : "", out);
	report_capacity_line(out, k, pass, fail);
	free(rows);
}

/*
 * The SLO of a run's goodput, one choice for every format: the command's
 * (--slo) when it gave one, else a capacity search's own, else none (use
 * NULL). A capacity search's load curve is judged against its own SLO
 * (run_slo, spec) whatever the table's.
 */
struct report_slo_choice {
	int is_cap;
	struct capacity_options cap;
	struct metric_slo run_slo;
	char spec[256];
	const struct metric_slo *use;   /* NULL, the command's, or &run_slo */
};

static void report_choose_slo(const char *params, const struct metric_slo *asked,
			      struct report_slo_choice *c)
{
	c->is_cap = report_capacity_params(params, &c->cap, &c->run_slo, c->spec, sizeof(c->spec));
	c->use = asked ? asked : c->is_cap ? &c->run_slo : NULL;
}

static int slo_equal(const struct metric_slo *a, const struct metric_slo *b)
{
	return a->ttft_ms == b->ttft_ms && a->ttfa_ms == b->ttfa_ms && a->tpot_ms == b->tpot_ms &&
	       a->e2e_ms == b->e2e_ms;
}

/* The load curve of a capacity search, from run when its goodput was
 * judged against the search's SLO, else from the run judged again. */
static int report_capacity_curve(FILE *out, enum table_format fmt, struct db *db,
				 const char *label, const struct report_run *run,
				 const struct report_slo_choice *c, char *err, size_t errlen)
{
	struct report_run own;
	int rc;

	if (c->use == &c->run_slo || slo_equal(c->use, &c->run_slo)) {
		report_capacity(out, fmt, run, &c->cap, c->spec);
		return DB_OK;
	}
	rc = report_summarize(db, label, &c->run_slo, &own, err, errlen);
	if (rc)
		return rc;
	report_capacity(out, fmt, &own, &c->cap, c->spec);
	report_run_release(&own);
	return DB_OK;
}

/* Text and Markdown: what the energy and cost columns mean, under the
 * sweep table, when it has them. */
static void report_efficiency_line(FILE *out, const struct report_run *run, const char *params)
{
	struct energy_counter c;
	struct metric_price p;
	const char *why = NULL, *source = NULL;
	size_t i;

	if (!(summary_groups(run->levels, run->n_levels) & SUMMARY_GROUP_EFFICIENCY))
		return;
	efficiency_params(params, &c, &p);
	for (i = 0; i < run->n_levels; i++) {
		if (!source && run->levels[i].energy_source[0])
			source = run->levels[i].energy_source;
		if (!why && run->levels[i].energy_rc && run->levels[i].energy_rc != ENERGY_NOT_SCRAPED)
			why = energy_strerror(run->levels[i].energy_rc);
	}
	if (source || why)
		fprintf(out, "Tok/J = output tokens / joules of %s%s%s over the level's window "
			"(its start scrape to its end scrape); J/req = those joules / requests%s%s.\n",
			c.name, source ? " from " : "", source ? source : "",
			why ? "; \"-\": " : "", why ? why : "");
	if (p.per_hour > 0)
		fprintf(out, "Cost/M = cost per million tokens at %g per hour over the level's "
			"wall time, split so that an output token costs %g input tokens "
			"(cost / (output + input / %g) per output token).\n", p.per_hour, p.ratio,
			p.ratio);
}

/* Text and Markdown: per run a heading, the table, the warm-up and error
 * lines, and the latency table with its legend. */
static int report_print_per_run(struct db *db, const struct db_run *runs, size_t n,
				enum table_format fmt, const struct metric_slo *slo,
				int intervals, FILE *out, char *err, size_t errlen)
{
	const char *para = fmt == TABLE_MARKDOWN ? "\n" : "";
	struct report_slo_choice sc;
	struct report_run run;
	struct table t;
	size_t i;
	int sharded, sessions, cut;
	int rc;

	for (i = 0; i < n; i++) {
		report_choose_slo(runs[i].params, slo, &sc);
		rc = report_summarize(db, runs[i].label, sc.use, &run, err, errlen);
		if (rc)
			return rc;
		report_mark_planned(&run, runs[i].params);
		if (i > 0)
			fputc('\n', out);
		report_heading(out, fmt, &runs[i]);
		report_notes(out, fmt, runs[i].params);
		report_input_lengths(out, fmt, runs[i].trace_path);
		summary_table_init(&t, out, fmt, report_groups(&run, sc.use));
		table_begin(&t);
		report_rows(&t, runs[i].label, &run);
		table_end(&t);
		summary_print_notes(out, fmt, run.levels, run.n_levels);
		report_efficiency_line(out, &run, runs[i].params);
		fputs(para, out);
		if (sc.use) {
			report_slo_line(out, sc.use);
			fputs(para, out);
		}
		report_warmup_line(out, &run);
		report_error_line(out, &run);
		cut = report_interrupted_line(out, &run, runs[i].params);
		report_open_loop_lines(out, &run, runs[i].params);
		sessions = report_sessions_lines(out, fmt, &run);
		rc = shards_print(out, db, runs[i].label, &run, &sharded, err, errlen);
		if (!rc && (run.warmups || report_has_errors(&run) || report_has_open_loop(&run) ||
			    sharded || sessions || cut))
			fputs(para, out);
		if (!rc && run.n_levels) {
			if (fmt == TABLE_TEXT)
				fputc('\n', out);
			summary_print_latency(out, fmt, run.levels, run.n_levels, intervals);
			attribution_print(out, fmt, run.levels, run.n_levels);
		}
		if (!rc && sc.is_cap)
			rc = report_capacity_curve(out, fmt, db, runs[i].label, &run, &sc, err, errlen);
		if (!rc)
			rc = report_server_metrics(out, fmt, db, runs[i].label, &run, &sharded, err,
						   errlen);
		report_run_release(&run);
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
	struct report_run run;
	struct table t;
	unsigned groups = 0;
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		report_choose_slo(runs[i].params, slo, &sc);
		groups |= sc.use ? SUMMARY_GROUP_SLO : 0;
		/* a run that scraped (an energy counter, perhaps) or has a price:
		 * the energy and cost columns, decided before any run is read */
		if (runs[i].params && (strstr(runs[i].params, "\"metrics\"") ||
				       strstr(runs[i].params, "\"price\"")))
			groups |= SUMMARY_GROUP_EFFICIENCY;
	}
	summary_table_init(&t, out, fmt, groups);
	table_begin(&t);
	for (i = 0; i < n; i++) {
		report_choose_slo(runs[i].params, slo, &sc);
		rc = report_summarize(db, runs[i].label, sc.use, &run, err, errlen);
		if (rc)
			return rc;
		report_mark_planned(&run, runs[i].params);
		report_rows(&t, runs[i].label, &run);
		report_unreached_rows(&t, runs[i].label, &run, runs[i].params);
		report_run_release(&run);
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
