/*
 * report_server.c - the server's own metrics in a text or Markdown report
 * (replay --metrics-url): a table per scraped source of each level's
 * gauges, counters and energy, then the server's latency percentiles
 * estimated from its histograms beside the client's. The folding of the
 * scrapes is lib/srvmetric.c's, the energy lib/energy.c's; this file only
 * lays them out.
 */
#include "analyze/report_parts.h"
#include "analyze/efficiency.h"
#include "analyze/report_host.h"
#include "analyze/shards.h"
#include "lib/errmsg.h"
#include "lib/metric.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *col_srv_level(const void *row, size_t arg)
{
	static char buf[24];
	const struct db_metric_level *m = row;

	(void)arg;
	return load_cell(load_of_code(m->level, NAN), buf, sizeof(buf));   /* "4", "open", "r3" */
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

static double col_srv_end(const void *row, size_t arg)
{
	return ((const struct db_metric_level *)row)->m.end[arg % SRVMETRIC_N];
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

/* A node_exporter's CPU shares over the level's window (lib/srvmetric.h). */
static double col_srv_cpu(const void *row, size_t steal)
{
	const struct srvmetric_level *m = &((const struct db_metric_level *)row)->m;

	return steal ? m->cpu_steal : m->cpu_busy;
}

#define REPORT_SRV_ENERGY 1u    /* the energy column: a source has the counter */
#define REPORT_SRV_CPU 2u       /* the CPU columns: a source is a node_exporter */

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
	/* at the level's end scrape: a server that frees its slots (after a
	 * cancel too, replay --cancel) is back to 0 */
	SRV_FIG("Running", "end", "running_end", 0, 0, NULL, col_srv_end, SRVMETRIC_RUNNING),
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
	{ .head = "CPU busy", .key = "cpu_busy", .decimals = 1, .scale = 100, .suffix = "%",
	  .csv_decimals = 4, .group = REPORT_SRV_CPU, .num = col_srv_cpu, .arg = 0 },
	{ .head = "Steal", .key = "cpu_steal", .decimals = 1, .scale = 100, .suffix = "%",
	  .csv_decimals = 4, .group = REPORT_SRV_CPU, .num = col_srv_cpu, .arg = 1 },
};

/*
 * The server's own latency percentiles of a level, estimated from its
 * histograms' buckets (lib/srvmetric.h), one row per level and histogram,
 * beside the client's of the same level.
 */
struct srv_latency_row {
	struct load level;
	const char *metric;                 /* "TTFT", "Queue", "E2E", "ITL" */
	double count;                       /* observations in the window */
	char est[SRVMETRIC_NQ][64];         /* "48.2 (40-60 bucket)", "refused", "" */
	double client[SRVMETRIC_NQ];        /* the client's, ms; NaN: none */
};

static const char *col_lat_level(const void *row, size_t arg)
{
	static char buf[24];

	(void)arg;
	return load_cell(((const struct srv_latency_row *)row)->level, buf, sizeof(buf));
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

/* The client's q-th percentile of kind h at load 'load', ms; NaN: none. */
static double srv_client_value(const struct run *run, struct load load,
			       enum srvmetric_hist_kind h, size_t q)
{
	const struct stats_dist *d;
	size_t i;

	for (i = 0; run && i < run->n_levels; i++)
		if (load_same(run->levels[i].level, load))
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
				 const struct run *run)
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
			r->level = load_of_code(lv[i].level, NAN);
			r->metric = names[k];
			r->count = h->rc[0] == 0 ? h->q[0].count : NAN;
			for (q = 0; q < SRVMETRIC_NQ; q++) {
				srv_estimate_cell(h, q, r->est[q], sizeof(r->est[q]), &refused);
				r->client[q] = srv_client_value(run, r->level,
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
				load_name(load_of_code(lv[i].level, NAN), name, sizeof(name)),
				energy_strerror(lv[i].e.rc));
}

/*
 * Text and Markdown: the server's own metrics of each level, when the run
 * scraped them (lib/srvmetric.h says how they are folded), a table per
 * --metrics-url (its levels lv[0..n-1]); *printed set.
 */
static int report_server_source(FILE *out, enum table_format fmt,
				const struct db_metric_level *lv, size_t n, int several,
				const struct run *run)
{
	const char *family = NULL;
	unsigned groups = 0;
	struct table t;
	size_t i;

	for (i = 0; i < n && !family; i++)
		family = lv[i].m.family;
	for (i = 0; i < n; i++) {
		if (lv[i].e.rc != ENERGY_NOT_SCRAPED)
			groups |= REPORT_SRV_ENERGY;
		if (!isnan(lv[i].m.cpu_busy))
			groups |= REPORT_SRV_CPU;
	}
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
		"\"Running (end)\" at the scrape after its last answer (0: every slot freed), "
		"counters as their increase over its window (from the scrape at its start to the "
		"one at its end, or its first to its last in a run without them); prefix hit = hits / queries; \"Other\" = samples "
		"of names not summarised (in table metric_samples)%s%s.\n",
		groups & REPORT_SRV_ENERGY ? "; energy over the level's window, GPUs summed, in "
		"joules" : "", groups & REPORT_SRV_CPU ? "; CPU busy and steal: shares of the "
		"host's CPU time over the level's window (node_exporter's "
		"node_cpu_seconds_total, CPUs summed)" : "");
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
		efficiency_of(&runs[0].param, c, &p);
	else
		energy_counter_default(c);
	db_runs_free(runs, n);
}

int report_server_metrics(FILE *out, enum table_format fmt, struct db *db,
			  const char *label, const struct run *run, int *printed,
			  char *err, size_t errlen)
{
	struct db_metric_level *lv = NULL;
	struct energy_counter c;
	size_t n = 0, i, from;
	long first;
	int rc, several;

	*printed = 0;
	report_energy_counter(db, label, &c);
	rc = db_metric_levels(db, label, &c, &lv, &n, err, errlen);
	if (rc || !n) {
		free(lv);
		return rc;
	}
	/* a run merged from shards: each level as the server saw it, as the
	 * sweep table shows it (shards_load) */
	for (i = 0; run && run->shards >= 2 && i < n; i++)
		lv[i].level = load_code(shards_load(load_of_code(lv[i].level, NAN),
						    (int)run->shards));
	/* several servers' sources, not counting the host's own */
	for (several = 0, first = -1, i = 0; i < n; i++)
		if (!report_host_source(lv[i].source)) {
			several |= first >= 0 && lv[i].source_order != first;
			first = first >= 0 ? first : lv[i].source_order;
		}
	for (from = 0, i = 1; !rc && i <= n; i++)
		if (i == n || lv[i].source_order != lv[from].source_order) {
			rc = report_host_source(lv[from].source) ?
			     report_host_table(out, fmt, lv + from, i - from) :
			     report_server_source(out, fmt, lv + from, i - from, several, run);
			from = i;
		}
	*printed = 1;
	if (rc)
		errmsg_set(err, errlen, "out of memory");
	free(lv);
	return rc;
}

/* *dst = v when *dst has none yet and v is a figure; 1 when it took it. */
static int take(double *dst, double v)
{
	if (!isnan(*dst) || isnan(v))
		return 0;
	*dst = v;
	return 1;
}

/* One source's figures at one level into s, where s has none yet. */
static void server_fill_level(struct summary_server *s, const struct db_metric_level *l)
{
	const struct srvmetric_level *m = &l->m;
	size_t k, q;
	int took = 0;

	if (report_host_source(l->source)) {
		take(&s->host_busy, m->cpu_busy);
		take(&s->host_steal, m->cpu_steal);
		take(&s->host_replay, m->process_cpu);
		return;
	}
	took |= take(&s->running_avg, m->mean[SRVMETRIC_RUNNING]);
	took |= take(&s->running_max, m->max[SRVMETRIC_RUNNING]);
	took |= take(&s->waiting_avg, m->mean[SRVMETRIC_WAITING]);
	took |= take(&s->waiting_max, m->max[SRVMETRIC_WAITING]);
	took |= take(&s->kv_usage_avg, m->mean[SRVMETRIC_KV_USAGE]);
	took |= take(&s->kv_usage_max, m->max[SRVMETRIC_KV_USAGE]);
	took |= take(&s->prefix_hit_rate, m->prefix_hit_rate);
	took |= take(&s->spec_acceptance, m->spec_acceptance);
	took |= take(&s->preemptions, m->delta[SRVMETRIC_PREEMPTIONS]);
	took |= take(&s->prompt_tokens, m->delta[SRVMETRIC_PROMPT_TOKENS]);
	took |= take(&s->generation_tokens, m->delta[SRVMETRIC_GEN_TOKENS]);
	took |= take(&s->cpu_busy, m->cpu_busy);
	took |= take(&s->cpu_steal, m->cpu_steal);
	for (k = 0; k < SRVMETRIC_H_N; k++)
		for (q = 0; q < SRVMETRIC_NQ; q++) {
			const struct bucketq_estimate *e = &m->hist[k].q[q];

			if (!m->hist[k].name || m->hist[k].rc[q] != 0 || !isnan(s->est[k][q]))
				continue;
			s->est[k][q] = e->value * 1e3;
			s->est_lo[k][q] = e->lo * 1e3;
			s->est_hi[k][q] = isinf(e->hi) ? NAN : e->hi * 1e3;
			took = 1;
		}
	if ((took || m->scrapes) && !s->source[0])
		snprintf(s->source, sizeof(s->source), "%s",
			 l->source[0] ? l->source : "the run's endpoint");
}

int report_server_fill(struct db *db, const char *label, struct run *run, char *err,
		       size_t errlen)
{
	struct db_metric_level *lv = NULL;
	struct energy_counter c;
	size_t n = 0, i, k;
	int rc;

	report_energy_counter(db, label, &c);
	rc = db_metric_levels(db, label, &c, &lv, &n, err, errlen);
	/* lv runs source by source, in their --metrics-url order */
	for (k = 0; !rc && k < n; k++)
		for (i = 0; i < run->n_levels; i++)
			if (load_same(run->levels[i].level, load_of_code(lv[k].level, NAN)))
				server_fill_level(&run->levels[i].srv, &lv[k]);
	free(lv);
	return rc;
}
