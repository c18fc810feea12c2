/*
 * report_capacity.c - a capacity search (replay --find-capacity) in a
 * report: each level's load, and the load curve, every level judged again
 * by lib/capacity.c from its stored requests with the search's settings
 * (run_params.h), with the capacity the levels bracket. plot reads the
 * loads through report.h as well.
 */
#include "analyze/report_parts.h"
#include "lib/capacity.h"
#include "lib/metric.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A row of the load curve: a level, its load (C or offered req/s) and its
 * verdict. */
struct report_curve_row {
	const struct level_summary *s;
	double load;
	double lo, hi;
	enum capacity_verdict v;
	size_t judged;          /* its requests but replay --cancel's, as replay judged */
};

/* The load of level s in the search k: its C, or its offered rate; NaN
 * when s is no level of the search. */
double report_level_load(const struct capacity_options *k, const struct level_summary *s)
{
	if (k->by_rate)
		return s->level.kind == LOAD_RATE && s->level.rate > 0 ? s->level.rate : NAN;
	return s->level.kind == LOAD_CLOSED ? (double)s->level.concurrency : NAN;
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
		load_name(pass->s->level, p, sizeof(p));
	if (fail)
		load_name(fail->s->level, f, sizeof(f));
	if (pass && fail && pass->load < fail->load && fail->v == CAPACITY_UNDECIDED)
		fprintf(out, "capacity: %s meets the SLO (%.1f%% good or more at %.0f%% confidence: "
			"%zu of %zu); %s is undecided (%.1f%%..%.1f%%: %zu of %zu, an interrupted or "
			"capped probe), so the capacity is %s or higher\n", p, 100 * pass->lo,
			100 * k->confidence, pass->s->good, pass->judged, f, 100 * fail->lo,
			100 * fail->hi, fail->s->good, fail->judged, p);
	else if (pass && fail && pass->load < fail->load)
		fprintf(out, "capacity: %s meets the SLO (%.1f%% good or more at %.0f%% confidence: "
			"%zu of %zu), %s does not (%.1f%% or less: %zu of %zu); the capacity lies in "
			"[%.4g, %.4g)%s\n", p, 100 * pass->lo, 100 * k->confidence, pass->s->good,
			pass->judged, f, 100 * fail->hi, fail->s->good, fail->judged,
			pass->load, fail->load, unit);
	else if (pass && !fail)
		fprintf(out, "capacity: every level searched meets the SLO, up to %s (%.1f%% good "
			"or more: %zu of %zu); the capacity is %s or higher\n", p, 100 * pass->lo,
			pass->s->good, pass->judged, p);
	else if (fail && !pass)
		fprintf(out, "capacity: no level meets the SLO, not even %s (%.1f%% good or less: "
			"%zu of %zu)\n", f, 100 * fail->hi, fail->s->good, fail->judged);
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
static void report_capacity(FILE *out, enum table_format fmt, const struct run *run,
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
		r->judged = s->requests - s->cancelled - s->cancel_ended;
		r->v = capacity_judge(k, r->load, (long)s->good, (long)r->judged, &r->lo, &r->hi);
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

static int slo_equal(const struct metric_slo *a, const struct metric_slo *b)
{
	return a->ttft_ms == b->ttft_ms && a->ttfa_ms == b->ttfa_ms && a->tpot_ms == b->tpot_ms &&
	       a->e2e_ms == b->e2e_ms;
}

/* The load curve of a capacity search, from run when its goodput was
 * judged against the search's SLO, else from the run judged again. */
int report_capacity_curve(FILE *out, enum table_format fmt, struct db *db,
			  const char *label, const struct run *run,
			  const struct report_slo_choice *c, char *err, size_t errlen)
{
	const struct run_params *p = c->param;
	struct run own;
	int rc;

	if (c->use == &p->slo || slo_equal(c->use, &p->slo)) {
		report_capacity(out, fmt, run, &p->capacity, p->slo_spec);
		return DB_OK;
	}
	rc = run_read(db, label, &p->slo, &own, err, errlen);
	if (rc)
		return rc;
	report_capacity(out, fmt, &own, &p->capacity, p->slo_spec);
	run_release(&own);
	return DB_OK;
}
