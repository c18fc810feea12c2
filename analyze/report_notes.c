/*
 * report_notes.c - the lines of a text or Markdown report around its sweep
 * table: the run's heading, its notes and where its input lengths came
 * from above it; under it what the energy and cost columns mean, the SLO
 * of goodput, the warm-up, the errors by class, the open-loop rates and
 * the sessions' figures. Each prints to out and says nothing when it has
 * nothing to say; the order is report.c's.
 */
#include "analyze/report_parts.h"
#include "analyze/efficiency.h"
#include "lib/metric.h"
#include "lib/tracefile.h"

#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>

/* "run 'L': endpoint E, model M, trace D" (text) or "### L — ..." (Markdown). */
void report_notes_heading(FILE *out, enum table_format fmt, const struct db_run *run)
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
void report_notes_params(FILE *out, enum table_format fmt, const struct run_params *param)
{
	size_t i;

	for (i = 0; i < param->n_notes; i++) {
		if (!param->notes[i])
			continue;
		fputs("note: ", out);
		table_put_text(out, param->notes[i]);
		fputs(fmt == TABLE_MARKDOWN ? "  \n" : "\n", out);
	}
	if (param->n_notes && fmt == TABLE_MARKDOWN)
		fputc('\n', out);
}

/*
 * Where the trace's input lengths came from (schema/FORMAT.md, its header's
 * source.input_lengths), as a note, when they came from a tokenizer or a
 * tokenizer was asked for and not used: the header is one line of the
 * trace, cheap to read where the trace still is. Word estimates, the
 * default of every trace before, say nothing; nor does a trace gone or
 * unreadable (the run's digest names it).
 */
void report_notes_input_lengths(FILE *out, enum table_format fmt, const char *trace_path)
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
void report_notes_warmup(FILE *out, const struct run *run)
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
int report_notes_sessions(FILE *out, enum table_format fmt, const struct run *run)
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
		load_name(load_unrated(run->levels[i].level), name, sizeof(name));
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

/* "errors by class: C=2: 1 http (HTTP 429 x1), 2 timeout; C=4: ..." when
 * the run had errors: each class, and the HTTP statuses of those that had
 * one, so a 429 storm does not read as a 404. */
void report_notes_errors(FILE *out, const struct run *run)
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
			load_name(load_unrated(l->level), name, sizeof(name)), why);
		any = 1;
	}
	if (any)
		fputc('\n', out);
}

int report_notes_cancel(FILE *out, const struct run *run)
{
	const struct run_params *param = &run->row->param;
	char name[32];
	size_t i;

	if (!param->has_cancel)
		return 0;
	fputs("cancelled by replay --cancel ", out);
	fprintf(out, "%g:", param->cancel_share);
	table_put_text(out, param->cancel_after);
	fprintf(out, " (seed %.0f)", param->cancel_seed);
	for (i = 0; i < run->n_levels; i++) {
		const struct level_summary *l = &run->levels[i];

		fprintf(out, "%s %s: %zu cut", i ? ";" : ":",
			load_name(load_unrated(l->level), name, sizeof(name)), l->cancelled);
		if (l->cancel_ended)
			fprintf(out, ", %zu ended first", l->cancel_ended);
	}
	fputs("; neither failures nor in any statistic\n", out);
	return 1;
}

int report_notes_has_errors(const struct run *run)
{
	size_t i;

	for (i = 0; i < run->n_levels; i++)
		if (run->levels[i].errors)
			return 1;
	return 0;
}

/*
 * Open-loop levels: target (from params), scheduled and achieved send
 * rates, the send lag, and TTFT and E2E counted from the schedule (what a
 * user waited, the table's numbers) beside counted from the actual send
 * (the server's service time).
 */
void report_notes_open_loop(FILE *out, const struct run *run)
{
	double target = run->row->param.rate;
	size_t i;

	for (i = 0; i < run->n_levels; i++) {
		const struct level_summary *s = &run->levels[i];

		if (!s->open_loop)
			continue;
		fputs("open loop: ", out);
		if (s->level.kind == LOAD_RATE && s->level.rate > 0)     /* a rate level: its own */
			fprintf(out, "target %.2f req/s, ", s->level.rate);
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

int report_notes_has_open_loop(const struct run *run)
{
	size_t i;

	for (i = 0; i < run->n_levels; i++)
		if (run->levels[i].open_loop)
			return 1;
	return 0;
}

/* "goodput: requests within TTFT <= 500 ms, TPOT <= 50 ms" under the table. */
void report_notes_slo(FILE *out, const struct metric_slo *slo)
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

/* Text and Markdown: what the energy and cost columns mean, under the
 * sweep table, when it has them. */
void report_notes_efficiency(FILE *out, const struct run *run)
{
	const struct run_params *param = &run->row->param;
	struct energy_counter c;
	struct metric_price p;
	const char *why = NULL, *source = NULL;
	size_t i;

	if (!(summary_groups(run->levels, run->n_levels) & SUMMARY_GROUP_EFFICIENCY))
		return;
	efficiency_of(param, &c, &p);
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
