/*
 * summary_table.c - the tables of a level summary (lib/summary.c): the
 * sweep table, its columns declared once for every format; the latency
 * table; and the notes printed under them; see summary.h.
 */
#include "summary.h"
#include "energy.h"
#include "stats.h"

#include <stddef.h>
#include <math.h>
#include <string.h>

/* The distributions and the percentiles summary_few names. */
#define SUMMARY_N_DISTS 5
#define SUMMARY_N_PCTS 4

/* A row of the sweep table: the run, the level, the level's C cell. */
struct summary_row {
	const char *run;
	const struct level_summary *s;
	char level[16];
	char rep[16];             /* "1", the repeat of a live row */
	char est[48];             /* "4/16": estimated token counts of the ok ones */
	/* percentiles from too few samples, CSV and JSON: room for all 20 */
	char few[SUMMARY_N_DISTS * SUMMARY_N_PCTS * sizeof("p99_ttft ")];
	char agg_range[48], agg_ci[48], ttft_range[48], ttft_ci[48];
	char statuses[160];       /* "HTTP 429 x6", CSV and JSON */
};

static const char *col_rep(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct summary_row *)row)->rep;
}

/* The text columns a row fills in summary_table_row, by their offset. */
static const char *col_text(const void *row, size_t off)
{
	const char *v = (const char *)row + off;

	return v[0] ? v : NULL;
}

/* A percentile of the distribution m from too few samples: marked "*". */
#define SUMMARY_MARK(fn, m, p) \
	static const char *fn(const void *row, size_t arg) \
	{ \
		(void)arg; \
		return stats_too_few(((const struct summary_row *)row)->s->m.n, p) ? "*" : NULL; \
	}
SUMMARY_MARK(mark_tpot_p50, tpot, 50)
SUMMARY_MARK(mark_ttfa_p50, ttfa, 50)
SUMMARY_MARK(mark_ttft_p50, ttft, 50)
SUMMARY_MARK(mark_ttft_p95, ttft, 95)
SUMMARY_MARK(mark_ttft_p99, ttft, 99)

/* The SLO of the goodput columns, CSV and JSON: which one they count. */
static const char *col_slo(const void *row, size_t arg)
{
	const char *v = ((const struct summary_row *)row)->s->slo;

	(void)arg;
	return v[0] ? v : NULL;
}

/* Why a level has no energy figure, where its run scraped a counter. */
static const char *col_energy_note(const void *row, size_t arg)
{
	const struct level_summary *s = ((const struct summary_row *)row)->s;

	(void)arg;
	return s->energy_rc && s->energy_rc != ENERGY_NOT_SCRAPED ?
	       energy_strerror(s->energy_rc) : NULL;
}

static const char *col_energy_source(const void *row, size_t arg)
{
	const char *v = ((const struct summary_row *)row)->s->energy_source;

	(void)arg;
	return v[0] ? v : NULL;
}

static const char *col_srv_source(const void *row, size_t arg)
{
	const char *v = ((const struct summary_row *)row)->s->srv.source;

	(void)arg;
	return v[0] ? v : NULL;
}

static const char *col_run(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct summary_row *)row)->run;
}

static const char *col_level_cell(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct summary_row *)row)->level;
}

/* The fields of struct level_summary a column reads, by their offset. */
static double col_double(const void *row, size_t off)
{
	const struct level_summary *s = ((const struct summary_row *)row)->s;
	double v;

	memcpy(&v, (const char *)s + off, sizeof(v));
	return v;
}

static double col_size(const void *row, size_t off)
{
	const struct level_summary *s = ((const struct summary_row *)row)->s;
	size_t v;

	memcpy(&v, (const char *)s + off, sizeof(v));
	return (double)v;
}

static double col_err_class(const void *row, size_t k)
{
	return (double)((const struct summary_row *)row)->s->failed.by_class[k];
}

#define SUMMARY_EXPR(fn, expr) \
	static double fn(const void *row, size_t arg) \
	{ \
		const struct level_summary *s = ((const struct summary_row *)row)->s; \
		(void)arg; \
		return (double)(expr); \
	}

SUMMARY_EXPR(col_level, load_code(s->level))
SUMMARY_EXPR(col_tokens, s->tokens)
SUMMARY_EXPR(col_input_tokens, s->input_tokens)
SUMMARY_EXPR(col_repeats, s->repeats)
SUMMARY_EXPR(col_goodput, s->goodput_share * 100.0)
SUMMARY_EXPR(col_sched_rps, s->open_loop ? s->sched_rps : NAN)
SUMMARY_EXPR(col_achieved_rps, s->open_loop ? s->achieved_rps : NAN)
SUMMARY_EXPR(col_repeat, s->repeat >= 0 ? (double)s->repeat : NAN)
SUMMARY_EXPR(col_cache_pct, s->cache_hit_share * 100.0)
SUMMARY_EXPR(col_new_conn, s->new_connections)
SUMMARY_EXPR(col_planned, s->planned ? (double)s->planned : NAN)
SUMMARY_EXPR(col_interrupted, s->planned ? s->requests < s->planned : NAN)
SUMMARY_EXPR(col_client_limited, s->client_limited < 0 ? NAN : s->client_limited)
SUMMARY_EXPR(col_client_blind, s->client_blind < 0 ? NAN : s->client_blind)

static const char *col_client_why(const void *row, size_t arg)
{
	const char *v = ((const struct summary_row *)row)->s->client_why;

	(void)arg;
	return v[0] ? v : NULL;
}

#define F(m) offsetof(struct level_summary, m)
/* A text and CSV column: heading, unit, key, width, decimals (text, CSV). */
#define NUM(h, u, k, w, d, cd, fn, a) \
	{ .head = (h), .unit = (u), .key = (k), .width = (w), .decimals = (d), \
	  .csv_decimals = (cd), .num = (fn), .arg = (a) }
/* A percentile, marked when from too few samples; k NULL: text and
 * Markdown only (CSV and JSON have it among the DIST columns). */
#define PCT(h, k, off, p, g) \
	{ .head = (h), .unit = "ms", .key = (k), .width = 14, .decimals = 1, \
	  .csv_decimals = 3, .group = (g), .num = col_double, .arg = (off), .mark = (p) }
/* A CSV and JSON column. */
#define CSV(k, cd, fn, a) { .key = (k), .csv_decimals = (cd), .num = (fn), .arg = (a) }
#define ERRS(cls, k) CSV("errors_" cls, 0, col_err_class, k)
/* n, mean, p50, p90, p95, p99, max of a distribution (CSV and JSON). */
/* (m names a member: it cannot be parenthesized) */
#define DIST_N(m, name) CSV("n_" name, 0, col_size, F(m.n))   /* NOLINT(bugprone-macro-parentheses) */
#define DIST_AT(m, name, stat, field) \
	CSV(stat "_" name "_ms", 3, col_double, F(m.field))   /* NOLINT(bugprone-macro-parentheses) */
/* The 95% order-statistic interval of each percentile (stats_rank_ci95). */
#define DIST_CI_AT(m, name, stat, i) \
	CSV(stat "_" name "_lo95_ms", 3, col_double, F(m.lo[i])),   /* NOLINT(bugprone-macro-parentheses) */ \
	CSV(stat "_" name "_hi95_ms", 3, col_double, F(m.hi[i]))    /* NOLINT(bugprone-macro-parentheses) */
#define DIST_CI(m, name) DIST_CI_AT(m, name, "p50", 0), DIST_CI_AT(m, name, "p90", 1), \
	DIST_CI_AT(m, name, "p95", 2), DIST_CI_AT(m, name, "p99", 3)
/* The 95% interval over repeats (summary_spread) of each percentile. */
#define REP_CI_AT(m, name, stat, i) \
	CSV(stat "_" name "_ci95_lo_ms", 3, col_double, F(m[i].lo)),   /* NOLINT(bugprone-macro-parentheses) */ \
	CSV(stat "_" name "_ci95_hi_ms", 3, col_double, F(m[i].hi))    /* NOLINT(bugprone-macro-parentheses) */
#define REP_CI(m, name) REP_CI_AT(m, name, "p50", 0), REP_CI_AT(m, name, "p90", 1), \
	REP_CI_AT(m, name, "p95", 2), REP_CI_AT(m, name, "p99", 3)
#define DIST(m, name) DIST_N(m, name), DIST_AT(m, name, "avg", mean), \
	DIST_AT(m, name, "p50", p50), DIST_AT(m, name, "p90", p90), \
	DIST_AT(m, name, "p95", p95), DIST_AT(m, name, "p99", p99), DIST_AT(m, name, "max", max)

/* A server figure (struct summary_server), CSV and JSON. */
#define SRV(k, cd, m) { .key = "server_" k, .csv_decimals = (cd), \
		.group = SUMMARY_GROUP_SERVER, .num = col_double, .arg = F(srv.m) }
/* A bucket estimate with its bucket's bounds, ms. */
#define SRV_EST_AT(h, name, stat, q) \
	{ .key = "server_" name "_" stat "_ms", .csv_decimals = 3, .group = SUMMARY_GROUP_SERVER, \
	  .num = col_double, .arg = F(srv.est[h][q]) }, \
	{ .key = "server_" name "_" stat "_bucket_lo_ms", .csv_decimals = 3, \
	  .group = SUMMARY_GROUP_SERVER, .num = col_double, .arg = F(srv.est_lo[h][q]) }, \
	{ .key = "server_" name "_" stat "_bucket_hi_ms", .csv_decimals = 3, \
	  .group = SUMMARY_GROUP_SERVER, .num = col_double, .arg = F(srv.est_hi[h][q]) }
#define SRV_EST(h, name) SRV_EST_AT(h, name, "p50", 0), SRV_EST_AT(h, name, "p90", 1), \
	SRV_EST_AT(h, name, "p99", 2)

/* The sweep table, every format; the order is the CSV order too. */
static const struct table_col summary_cols[] = {
	{ .key = "run", .str = col_run },
	{ .head = "Run", .width = 3, .flags = TABLE_LEFT, .group = SUMMARY_GROUP_RUN, .str = col_run },
	{ .head = "C", .width = 4, .str = col_level_cell },
	{ .head = "Rep", .width = 3, .group = SUMMARY_GROUP_REPEAT, .str = col_rep },
	CSV("concurrency", 0, col_level, 0),
	NUM("Agg tok/s", NULL, "agg_tok_s", 10, 1, 3, col_double, F(agg_tps)),
	NUM("Per-req tok/s", NULL, "per_req_tok_s", 14, 1, 3, col_double, F(per_req_tps)),
	NUM("Avg TTFT", "ms", "avg_ttft_ms", 14, 1, 3, col_double, F(ttft.mean)),
	NUM("Tokens", NULL, "tokens", 8, 0, 0, col_tokens, 0),
	NUM("Wall(s)", NULL, "wall_s", 8, 2, 3, col_double, F(wall_s)),
	NUM("Ok", NULL, "ok", 5, 0, 0, col_size, F(ok)),
	/* How fast a level decodes, and how long reasoning kept its answer
	 * waiting (only where some request reasoned: elsewhere TTFA is TTFT),
	 * beside the TTFT it adds to. */
	PCT("P50 TPOT", NULL, F(tpot.p50), mark_tpot_p50, 0),
	PCT("P50 TTFA", NULL, F(ttfa.p50), mark_ttfa_p50, SUMMARY_GROUP_TTFA),
	PCT("P50 TTFT", "p50_ttft_ms", F(ttft.p50), mark_ttft_p50, 0),
	PCT("P95 TTFT", "p95_ttft_ms", F(ttft.p95), mark_ttft_p95, 0),
	PCT("P99 TTFT", "p99_ttft_ms", F(ttft.p99), mark_ttft_p99, 0),
	NUM("Err", NULL, "errors", 4, 0, 0, col_size, F(errors)),
	/* replay --cancel's requests, beside the errors they are not */
	{ .head = "Cancel", .key = "cancelled", .width = 7, .group = SUMMARY_GROUP_CANCEL,
	  .num = col_size, .arg = F(cancelled) },
	{ .key = "cancel_ended", .group = SUMMARY_GROUP_CANCEL, .num = col_size,
	  .arg = F(cancel_ended) },
	{ .head = "Scaling", .key = "scaling_eff", .width = 8, .scale = 100, .suffix = "%",
	  .csv_decimals = 4, .num = col_double, .arg = F(scaling_eff) },
	/* Energy (an energy counter scraped) and price (--price-per-hour). */
	{ .head = "Tok/J", .key = "tokens_per_joule", .width = 8, .decimals = 3,
	  .csv_decimals = 4, .group = SUMMARY_GROUP_EFFICIENCY, .num = col_double,
	  .arg = F(tokens_per_joule) },
	{ .head = "J/req", .key = "joules_per_request", .width = 8, .decimals = 1,
	  .csv_decimals = 3, .group = SUMMARY_GROUP_EFFICIENCY, .num = col_double,
	  .arg = F(joules_per_request) },
	{ .head = "Cost/M in", .key = "cost_per_m_input", .width = 10, .decimals = 3,
	  .csv_decimals = 4, .group = SUMMARY_GROUP_EFFICIENCY, .num = col_double,
	  .arg = F(cost_per_m_in) },
	{ .head = "Cost/M out", .key = "cost_per_m_output", .width = 11, .decimals = 3,
	  .csv_decimals = 4, .group = SUMMARY_GROUP_EFFICIENCY, .num = col_double,
	  .arg = F(cost_per_m_out) },
	{ .key = "energy_j", .csv_decimals = 3, .group = SUMMARY_GROUP_EFFICIENCY,
	  .num = col_double, .arg = F(energy_j) },
	{ .key = "energy_window_s", .csv_decimals = 4, .group = SUMMARY_GROUP_EFFICIENCY,
	  .num = col_double, .arg = F(energy_window_s) },
	{ .key = "energy_source", .group = SUMMARY_GROUP_EFFICIENCY, .str = col_energy_source },
	{ .key = "energy_note", .group = SUMMARY_GROUP_EFFICIENCY, .str = col_energy_note },
	{ .key = "input_tokens", .group = SUMMARY_GROUP_EFFICIENCY, .num = col_input_tokens },
	{ .head = "Goodput", .key = "goodput_pct", .width = 8, .decimals = 1, .suffix = "%",
	  .csv_decimals = 2, .group = SUMMARY_GROUP_SLO, .num = col_goodput },
	{ .head = "Good req/s", .key = "good_req_s", .width = 11, .decimals = 2,
	  .csv_decimals = 3, .group = SUMMARY_GROUP_SLO, .num = col_double, .arg = F(good_rps) },
	CSV("repeat", 0, col_repeat, 0),
	CSV("requests", 0, col_size, F(requests)),
	/* Where the numbers came from: estimated token counts (of how many),
	 * tokens per event, the prefix cache, connections opened. */
	{ .head = "Est tok", .width = 8, .str = col_text, .arg = offsetof(struct summary_row, est) },
	NUM("Tok/ev", NULL, "tokens_per_event", 7, 2, 3, col_double, F(tokens_per_event)),
	{ .head = "Cache hit", .key = "cache_hit_pct", .width = 10, .decimals = 1, .suffix = "%",
	  .csv_decimals = 2, .num = col_cache_pct },
	{ .head = "New conn", .width = 9, .num = col_new_conn },
	/* Across repeats (--repeat): min-max and the 95% interval of the mean. */
	{ .head = "Agg tok/s min-max", .width = 18, .group = SUMMARY_GROUP_SPREAD,
	  .str = col_text, .arg = offsetof(struct summary_row, agg_range) },
	{ .head = "Agg tok/s 95% CI", .width = 18, .group = SUMMARY_GROUP_SPREAD,
	  .str = col_text, .arg = offsetof(struct summary_row, agg_ci) },
	{ .head = "P50 TTFT min-max", .unit = "ms", .width = 18, .group = SUMMARY_GROUP_SPREAD,
	  .str = col_text, .arg = offsetof(struct summary_row, ttft_range) },
	{ .head = "P50 TTFT 95% CI", .unit = "ms", .width = 18, .group = SUMMARY_GROUP_SPREAD,
	  .str = col_text, .arg = offsetof(struct summary_row, ttft_ci) },
	CSV("tokens_usage", 0, col_size, F(tokens_usage)),
	CSV("tokens_tokenize", 0, col_size, F(tokens_tokenize)),
	CSV("tokens_estimated", 0, col_size, F(tokens_events)),
	CSV("cache_reported", 0, col_size, F(cache_reported)),
	CSV("new_connections", 0, col_size, F(new_connections)),
	CSV("avg_connect_ms", 3, col_double, F(connect_ms)),
	{ .key = "few_samples", .str = col_text, .arg = offsetof(struct summary_row, few) },
	CSV("agg_tok_s_min", 3, col_double, F(spread_agg_tps.min)),
	CSV("agg_tok_s_max", 3, col_double, F(spread_agg_tps.max)),
	CSV("agg_tok_s_ci95_lo", 3, col_double, F(spread_agg_tps.lo)),
	CSV("agg_tok_s_ci95_hi", 3, col_double, F(spread_agg_tps.hi)),
	CSV("p50_ttft_min_ms", 3, col_double, F(spread_ttft[0].min)),
	CSV("p50_ttft_max_ms", 3, col_double, F(spread_ttft[0].max)),
	CSV("p50_ttft_ci95_lo_ms", 3, col_double, F(spread_ttft[0].lo)),
	CSV("p50_ttft_ci95_hi_ms", 3, col_double, F(spread_ttft[0].hi)),
	/* the 95% interval over repeats of the other percentiles */
	REP_CI_AT(spread_ttft, "ttft", "p90", 1), REP_CI_AT(spread_ttft, "ttft", "p95", 2),
	REP_CI_AT(spread_ttft, "ttft", "p99", 3),
	REP_CI(spread_ttfa, "ttfa"), REP_CI(spread_tpot, "tpot"), REP_CI(spread_itl, "itl"),
	REP_CI(spread_e2e, "e2e"),
	ERRS(RESULT_ERR_HTTP, 0), ERRS(RESULT_ERR_CONNECT, 1), ERRS(RESULT_ERR_TIMEOUT, 2),
	ERRS(RESULT_ERR_TRANSFER, 3), ERRS(RESULT_ERR_SERVER, 4), ERRS(RESULT_ERR_MALFORMED, 5),
	ERRS(RESULT_ERR_INCOMPLETE, 6), ERRS(RESULT_ERR_CANCELLED, 7), ERRS("other", 8),
	{ .key = "error_statuses", .str = col_text, .arg = offsetof(struct summary_row, statuses) },
	CSV("planned_requests", 0, col_planned, 0),
	{ .key = "interrupted", .flags = TABLE_BOOL, .num = col_interrupted },
	CSV("warmup", 0, col_size, F(warmup)),
	CSV("warmup_ttft_ms", 3, col_double, F(warmup_ttft_ms)),
	CSV("repeats", 0, col_repeats, 0),
	CSV("sched_req_s", 3, col_sched_rps, 0),
	CSV("achieved_req_s", 3, col_achieved_rps, 0),
	CSV("offered_req_s", 3, col_double, F(level.rate)),   /* a rate level's */
	{ .key = "good", .group = SUMMARY_GROUP_SLO, .num = col_size, .arg = F(good) },
	{ .key = "slo", .group = SUMMARY_GROUP_SLO, .str = col_slo },
	DIST_N(ttft, "ttft"), DIST_AT(ttft, "ttft", "p90", p90), DIST_AT(ttft, "ttft", "max", max),
	DIST(ttfa, "ttfa"),
	DIST(tpot, "tpot"),
	DIST(itl, "itl"),
	DIST(e2e, "e2e"),
	/* Open loop: send lag and latency from the actual send (service). */
	DIST_AT(lag, "send_lag", "p50", p50), DIST_AT(lag, "send_lag", "p99", p99),
	DIST_AT(ttft_service, "ttft_service", "p50", p50),
	DIST_AT(ttft_service, "ttft_service", "p99", p99),
	DIST_AT(e2e_service, "e2e_service", "p50", p50),
	DIST_AT(e2e_service, "e2e_service", "p99", p99),
	/* Where the time went (lib/attribution.h): the server's own timings. */
	CSV("n_server_timed", 0, col_size, F(att.n)),
	DIST_AT(att.queue, "server_queue", "p50", p50),
	DIST_AT(att.prefill, "server_prefill", "p50", p50),
	DIST_AT(att.prefill, "server_prefill", "p99", p99),
	DIST_AT(att.rest_ttft, "rest_ttft", "p50", p50),
	DIST_AT(att.rest_ttft, "rest_ttft", "p99", p99),
	DIST_AT(att.decode, "server_decode", "p50", p50),
	DIST_AT(att.rest_e2e, "rest_e2e", "p50", p50),
	/* Every percentile's 95% interval by order statistics. */
	DIST_CI(ttft, "ttft"), DIST_CI(ttfa, "ttfa"), DIST_CI(tpot, "tpot"), DIST_CI(itl, "itl"),
	DIST_CI(e2e, "e2e"),
	/* The server's own metrics (analyze report's server tables), CSV and
	 * JSON; the host replay ran on (its host table). */
	{ .key = "server_source", .group = SUMMARY_GROUP_SERVER, .str = col_srv_source },
	SRV("running_avg", 4, running_avg), SRV("running_max", 4, running_max),
	SRV("waiting_avg", 4, waiting_avg), SRV("waiting_max", 4, waiting_max),
	SRV("kv_usage_avg", 4, kv_usage_avg), SRV("kv_usage_max", 4, kv_usage_max),
	SRV("prefix_hit_rate", 4, prefix_hit_rate), SRV("spec_acceptance", 4, spec_acceptance),
	SRV("preemptions", 0, preemptions), SRV("prompt_tokens", 0, prompt_tokens),
	SRV("generation_tokens", 0, generation_tokens),
	SRV("cpu_busy", 4, cpu_busy), SRV("cpu_steal", 4, cpu_steal),
	SRV_EST(SRVMETRIC_H_TTFT, "ttft"), SRV_EST(SRVMETRIC_H_QUEUE, "queue"),
	SRV_EST(SRVMETRIC_H_E2E, "e2e"), SRV_EST(SRVMETRIC_H_ITL, "itl"),
	{ .key = "host_cpu_busy", .csv_decimals = 4, .group = SUMMARY_GROUP_HOST,
	  .num = col_double, .arg = F(srv.host_busy) },
	{ .key = "host_cpu_steal", .csv_decimals = 4, .group = SUMMARY_GROUP_HOST,
	  .num = col_double, .arg = F(srv.host_steal) },
	{ .key = "host_replay_cpu", .csv_decimals = 4, .group = SUMMARY_GROUP_HOST,
	  .num = col_double, .arg = F(srv.host_replay) },
	/* The client's own error (lib/clientbound.h): its bound, and whether
	 * that marks the level; last, as its reason is words. */
	CSV("client_bound_ttft_p50_ms", 3, col_double, F(client_ttft_p50)),
	CSV("client_bound_ttft_p99_ms", 3, col_double, F(client_ttft_p99)),
	CSV("client_bound_gap_p50_ms", 3, col_double, F(client_gap_p50)),
	CSV("client_bound_gap_p99_ms", 3, col_double, F(client_gap_p99)),
	{ .key = "client_run_wait_unread", .flags = TABLE_BOOL, .num = col_client_blind },
	{ .key = "client_limited", .flags = TABLE_BOOL, .num = col_client_limited },
	{ .key = "client_limited_reason", .str = col_client_why },
};

_Static_assert(sizeof(summary_cols) / sizeof(summary_cols[0]) <= TABLE_MAX_COLS,
	       "the sweep table has more columns than lib/table.h prints");

unsigned summary_groups(const struct level_summary *levels, size_t n)
{
	unsigned g = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (levels[i].reasoned)
			g |= SUMMARY_GROUP_TTFA;
		if (levels[i].energy_rc != ENERGY_NOT_SCRAPED || isfinite(levels[i].cost_per_m_out))
			g |= SUMMARY_GROUP_EFFICIENCY;
		if (levels[i].srv.source[0])
			g |= SUMMARY_GROUP_SERVER;
		if (!isnan(levels[i].srv.host_busy))
			g |= SUMMARY_GROUP_HOST;
		if (levels[i].cancelled || levels[i].cancel_ended)
			g |= SUMMARY_GROUP_CANCEL;
	}
	return g;
}

void summary_table_init(struct table *t, FILE *out, enum table_format fmt, unsigned groups)
{
	table_init(t, out, fmt, summary_cols, sizeof(summary_cols) / sizeof(summary_cols[0]),
		   groups);
}

/* "lo-hi" of a spread, into buf ("" when there is none). */
static void summary_range(char *buf, size_t len, double lo, double hi, int decimals)
{
	buf[0] = '\0';
	if (!isnan(lo) && !isnan(hi))
		snprintf(buf, len, "%.*f-%.*f", decimals, lo, decimals, hi);
}

/* The percentiles of s that come from too few samples: "p95_ttft_ms (n=4) ...". */
static void summary_few(char *buf, size_t len, const struct level_summary *s)
{
	static const struct { const char *name; size_t off; } dists[SUMMARY_N_DISTS] = {
		{ "ttft", offsetof(struct level_summary, ttft) },
		{ "ttfa", offsetof(struct level_summary, ttfa) },
		{ "tpot", offsetof(struct level_summary, tpot) },
		{ "itl", offsetof(struct level_summary, itl) },
		{ "e2e", offsetof(struct level_summary, e2e) },
	};
	static const int pcts[SUMMARY_N_PCTS] = { 50, 90, 95, 99 };
	size_t i, j, at = 0;

	buf[0] = '\0';
	for (i = 0; i < SUMMARY_N_DISTS; i++) {
		const struct stats_dist *d =
			(const struct stats_dist *)((const char *)s + dists[i].off);

		for (j = 0; j < SUMMARY_N_PCTS && at < len; j++)
			if (d->n && stats_too_few(d->n, pcts[j]))
				at += (size_t)snprintf(buf + at, len - at, "%sp%d_%s", at ? " " : "",
						       pcts[j], dists[i].name);
	}
}

void summary_table_fit_run(struct table *t, const char *run)
{
	struct level_summary s;
	struct summary_row row;

	memset(&s, 0, sizeof(s));
	s.repeat = -1;
	memset(&row, 0, sizeof(row));
	row.run = run;
	row.s = &s;
	table_fit(t, &row);
}

void summary_table_row(struct table *t, const char *run, const struct level_summary *s)
{
	struct summary_row row;

	memset(&row, 0, sizeof(row));
	row.run = run;
	row.s = s;
	load_cell(s->level, row.level, sizeof(row.level));
	if (s->repeat >= 0)
		snprintf(row.rep, sizeof(row.rep), "%d", s->repeat);
	if (s->tokens_events)
		snprintf(row.est, sizeof(row.est), "%zu/%zu", s->tokens_events, s->ok);
	summary_few(row.few, sizeof(row.few), s);
	summary_errors_statuses(&s->failed, row.statuses, sizeof(row.statuses));
	summary_range(row.agg_range, sizeof(row.agg_range), s->spread_agg_tps.min,
		      s->spread_agg_tps.max, 1);
	summary_range(row.agg_ci, sizeof(row.agg_ci), s->spread_agg_tps.lo,
		      s->spread_agg_tps.hi, 1);
	summary_range(row.ttft_range, sizeof(row.ttft_range), s->spread_ttft[0].min,
		      s->spread_ttft[0].max, 1);
	summary_range(row.ttft_ci, sizeof(row.ttft_ci), s->spread_ttft[0].lo,
		      s->spread_ttft[0].hi, 1);
	table_row(t, &row);
	fflush(t->out);   /* replay prints a row as each level ends */
}

/* A row of the latency table: one metric at one level. */
struct summary_latency_row {
	const char *metric;
	char level[16];
	const struct stats_dist *d;
	const struct summary_spread *rep;   /* its 4 percentiles across repeats */
};

static const char *col_lat_metric(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct summary_latency_row *)row)->metric;
}

static const char *col_lat_level(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct summary_latency_row *)row)->level;
}

static double col_lat_n(const void *row, size_t arg)
{
	(void)arg;
	return (double)((const struct summary_latency_row *)row)->d->n;
}

static double col_lat_stat(const void *row, size_t off)
{
	double v;

	memcpy(&v, (const char *)((const struct summary_latency_row *)row)->d + off, sizeof(v));
	return v;
}

/* A percentile of the latency table from too few samples: marked "*". */
#define LAT_MARK(fn, p) \
	static const char *fn(const void *row, size_t arg) \
	{ \
		(void)arg; \
		return stats_too_few(((const struct summary_latency_row *)row)->d->n, p) ? \
		       "*" : NULL; \
	}
LAT_MARK(mark_lat_p50, 50)
LAT_MARK(mark_lat_p90, 90)
LAT_MARK(mark_lat_p95, 95)
LAT_MARK(mark_lat_p99, 99)

#define LAT(h, u, field) { .head = (h), .unit = (u), .width = 10, .decimals = 1, \
			   .num = col_lat_stat, .arg = offsetof(struct stats_dist, field) }
#define LATP(h, field, m) { .head = (h), .width = 10, .decimals = 1, .mark = (m), \
			    .num = col_lat_stat, .arg = offsetof(struct stats_dist, field) }

static const struct table_col summary_latency_cols[] = {
	{ .head = "Metric", .width = 6, .flags = TABLE_LEFT, .str = col_lat_metric },
	{ .head = "C", .width = 4, .str = col_lat_level },
	{ .head = "N", .width = 7, .num = col_lat_n },
	LAT("Mean", "ms", mean), LATP("P50", p50, mark_lat_p50), LATP("P90", p90, mark_lat_p90),
	LATP("P95", p95, mark_lat_p95), LATP("P99", p99, mark_lat_p99), LAT("Max", NULL, max),
};

/* --intervals: percentile i of the row with its 95% interval, "50.3
 * [50.1-50.4]", or the percentile alone where there is none; a level of
 * several repeats adds the interval over them, "{49.8-50.9}". */
static const char *col_lat_ci(const void *row, size_t i)
{
	static char buf[4][96];
	const struct summary_latency_row *lr = row;
	const struct stats_dist *d = lr->d;
	const double p[4] = { d->p50, d->p90, d->p95, d->p99 };
	int len;

	if (!d->n)
		return NULL;
	if (isnan(d->lo[i]))
		len = snprintf(buf[i], sizeof(buf[i]), "%.1f%s", p[i],
			       stats_too_few(d->n, stats_dist_pcts[i]) ? "*" : "");
	else
		len = snprintf(buf[i], sizeof(buf[i]), "%.1f [%.1f-%.1f]", p[i], d->lo[i],
			       d->hi[i]);
	if (lr->rep && !isnan(lr->rep[i].lo) && len > 0 && (size_t)len < sizeof(buf[i]))
		snprintf(buf[i] + len, sizeof(buf[i]) - (size_t)len, " {%.1f-%.1f}",
			 lr->rep[i].lo, lr->rep[i].hi);
	return buf[i];
}

#define LATCI(h, i) { .head = (h), .width = 20, .str = col_lat_ci, .arg = (i) }

static const struct table_col summary_latency_ci_cols[] = {
	{ .head = "Metric", .width = 6, .flags = TABLE_LEFT, .str = col_lat_metric },
	{ .head = "C", .width = 4, .str = col_lat_level },
	{ .head = "N", .width = 7, .num = col_lat_n },
	LAT("Mean", "ms", mean), LATCI("P50 [95% CI]", 0), LATCI("P90 [95% CI]", 1),
	LATCI("P95 [95% CI]", 2), LATCI("P99 [95% CI]", 3), LAT("Max", NULL, max),
};

void summary_print_latency(FILE *out, enum table_format fmt,
			   const struct level_summary *levels, size_t n, int intervals)
{
	static const struct { const char *name; size_t off, rep; } metrics[] = {
		{ "TTFT", offsetof(struct level_summary, ttft),
		  offsetof(struct level_summary, spread_ttft) },
		{ "TTFA", offsetof(struct level_summary, ttfa),
		  offsetof(struct level_summary, spread_ttfa) },
		{ "TPOT", offsetof(struct level_summary, tpot),
		  offsetof(struct level_summary, spread_tpot) },
		{ "ITL", offsetof(struct level_summary, itl),
		  offsetof(struct level_summary, spread_itl) },
		{ "E2E", offsetof(struct level_summary, e2e),
		  offsetof(struct level_summary, spread_e2e) },
	};
	int repeated = 0;
	struct summary_latency_row row;
	struct table t;
	size_t m, i;

	if (fmt != TABLE_TEXT && fmt != TABLE_MARKDOWN)
		return;
	if (intervals)
		table_init(&t, out, fmt, summary_latency_ci_cols,
			   sizeof(summary_latency_ci_cols) / sizeof(summary_latency_ci_cols[0]), 0);
	else
		table_init(&t, out, fmt, summary_latency_cols,
			   sizeof(summary_latency_cols) / sizeof(summary_latency_cols[0]), 0);
	table_begin(&t);
	for (m = 0; m < 5; m++) {
		for (i = 0; i < n; i++) {
			row.metric = metrics[m].name;
			load_cell(levels[i].level, row.level, sizeof(row.level));
			row.d = (const struct stats_dist *)((const char *)&levels[i] + metrics[m].off);
			row.rep = (const struct summary_spread *)((const char *)&levels[i] +
								  metrics[m].rep);
			repeated |= !isnan(row.rep[0].lo);
			table_row(&t, &row);
		}
	}
	table_end(&t);
	fputs(fmt == TABLE_MARKDOWN ? "\n" : "", out);
	fputs("Latency over successful non-warm-up requests; percentiles interpolate "
	      "linearly between closest ranks (numpy's default). TPOT = (E2E - TTFT) / "
	      "(tokens - 1), of streamed answers of two tokens or more. ITL pools every "
	      "inter-token gap of a level's requests, as vLLM's benchmark does, so its N "
	      "counts gaps. Scaling = agg tok/s at C / (C x agg tok/s at C=1). A percentile "
	      "marked * comes from fewer samples (N) than its rank needs (P50 2, P90 10, "
	      "P95 20, P99 100).", out);
	if (intervals)
		fputs(" [lo-hi]: the 95% interval of the percentile by order statistics "
		      "(the values at the ranks between which the true percentile lies with "
		      "95% probability, whatever the distribution; none with fewer than 6 "
		      "samples for P50, 36 for P90, 72 for P95, 368 for P99). It is the "
		      "run's own sampling error, not the noise between runs; ITL's pooled "
		      "gaps are not independent draws, so its interval is too narrow.", out);
	if (intervals && repeated)
		fputs(" {lo-hi}: with --repeat, the 95% interval of the mean of the repeats' "
		      "own percentiles (Student's t over the repeats): the noise between "
		      "runs, which a comparison must clear.", out);
	fputc('\n', out);
}

/* Is the P50 of d, a column of the table, marked "*"? */
static int summary_p50_marked(const struct stats_dist *d)
{
	return d->n && stats_too_few(d->n, 50);
}

/* Does the row of l have a percentile marked "*" (TTFA only with ttfa)? */
static int summary_row_marked(const struct level_summary *l, int ttfa)
{
	return (l->ttft.n && stats_too_few(l->ttft.n, 50) + stats_too_few(l->ttft.n, 95) +
		stats_too_few(l->ttft.n, 99)) || summary_p50_marked(&l->tpot) ||
	       (ttfa && summary_p50_marked(&l->ttfa));
}

void summary_print_notes(FILE *out, enum table_format fmt, const struct level_summary *levels,
			 size_t n)
{
	char name[32];
	const char *sep;
	size_t i, est = 0, ok = 0, few = 0;
	int multi = 0, ttfa = (summary_groups(levels, n) & SUMMARY_GROUP_TTFA) != 0;

	if (fmt != TABLE_TEXT && fmt != TABLE_MARKDOWN)
		return;
	for (i = 0; i < n; i++) {
		est += levels[i].tokens_events;
		ok += levels[i].ok;
		few += summary_row_marked(&levels[i], ttfa);
		multi |= levels[i].tokens_per_event > 1.05;
	}
	if (est) {
		fprintf(out, "%sestimated tokens: %zu of %zu successful requests sent no usage; "
			"their output tokens are counted events (\"Est tok\"), short when an "
			"event carries several tokens\n", fmt == TABLE_MARKDOWN ? "\n" : "", est, ok);
	}
	if (multi) {
		sep = "";
		fprintf(out, "%stokens per event above 1 (\"Tok/ev\"): an inter-token gap spans "
			"several tokens;", fmt == TABLE_MARKDOWN ? "\n" : "");
		for (i = 0; i < n; i++)
			if ((i == 0 || !load_same(levels[i].level, levels[i - 1].level)) &&
			    levels[i].tokens_per_event > 1.05)
				fprintf(out, "%s %s %.2f", sep,
					load_name(levels[i].level, name, sizeof(name)),
					levels[i].tokens_per_event), sep = ",";
		fputc('\n', out);
	}
	if (few) {
		sep = "";
		fprintf(out, "%s* a percentile from fewer samples than its rank needs "
			"(P50 2, P95 20, P99 100):", fmt == TABLE_MARKDOWN ? "\n" : "");
		for (i = 0; i < n; i++) {
			const struct level_summary *l = &levels[i];

			if ((i > 0 && load_same(l->level, levels[i - 1].level)) ||
			    !summary_row_marked(l, ttfa))
				continue;
			fprintf(out, "%s %s n=%zu", sep, load_name(l->level, name, sizeof(name)),
				l->ttft.n);
			/* TPOT and TTFA count other requests than TTFT's */
			if (summary_p50_marked(&l->tpot))
				fprintf(out, " (TPOT n=%zu)", l->tpot.n);
			if (ttfa && summary_p50_marked(&l->ttfa))
				fprintf(out, " (TTFA n=%zu)", l->ttfa.n);
			sep = ",";
		}
		fputc('\n', out);
	}
}
