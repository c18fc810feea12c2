/*
 * shards.c - the shard section of a merged run's report; see shards.h.
 *
 * The tolerance a schedule has for clocks that disagree: open loop, a
 * tenth of the merged schedule's mean gap between requests (beyond that
 * the shards' requests no longer interleave as planned), closed loop a
 * tenth of a request's mean E2E (the time scale of a closed loop); never
 * below 1 ms, the sender's own timer jitter.
 */
#include "analyze/shards.h"
#include "lib/errmsg.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "lib/metric.h"
#include "lib/stats.h"
#include "lib/table.h"

/* One shard, from its results header's clock and its requests. */
struct shard_info {
	char host[64];
	int has_clock;
	double origin_ms;        /* wall-clock ms since 1970 its offsets count from */
	int measured;
	double offset_ms, error_ms;
	double lag0_ms;          /* its first request's lag: its start lag */
	double start_ms;         /* its start on the server's clock, from the earliest origin */
};

static double json_number(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void shard_info_fill(const struct db_shard *sh, int open, struct shard_info *si)
{
	cJSON *c = sh->clock ? cJSON_Parse(sh->clock) : NULL;
	const char *host = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "host"));
	double origin = json_number(c, "origin_unix");

	memset(si, 0, sizeof(*si));
	snprintf(si->host, sizeof(si->host), "%s", host ? host : "unknown host");
	si->has_clock = !isnan(origin);
	si->origin_ms = si->has_clock ? origin * 1e3 : 0;
	si->offset_ms = json_number(c, "server_offset_ms");
	si->error_ms = json_number(c, "server_offset_error_ms");
	si->measured = !isnan(si->offset_ms) && !isnan(si->error_ms);
	si->lag0_ms = sh->requests ?
		(double)(sh->first_send_ns - (open ? sh->first_sched_ns : 0)) / 1e6 : NAN;
	cJSON_Delete(c);
}

/* Appends s to a ", "-separated list in buf, "..." once it is full. */
static void list_add(char *buf, size_t len, const char *s)
{
	size_t used = strlen(buf);

	if (used + strlen(s) + 6 >= len) {
		if (used + 4 < len && (used < 3 || strcmp(buf + used - 3, "...") != 0))
			snprintf(buf + used, len - used, "%s...", used ? ", " : "");
		return;
	}
	snprintf(buf + used, len - used, "%s%s", used ? ", " : "", s);
}

/* The shards loaded and expected, and the list of those missing. */
static void shards_count(const struct db_shard *sh, size_t n, struct shards_view *v)
{
	size_t i;
	long k;
	char *seen;

	for (i = 0; i < n; i++) {
		if (!sh[i].shard)
			continue;
		v->loaded++;
		if (sh[i].n > v->expected)
			v->expected = sh[i].n;
	}
	if (!v->loaded)
		return;
	seen = calloc((size_t)v->expected + 1, 1);
	for (i = 0; seen && i < n; i++)
		if (sh[i].shard)
			seen[sh[i].k] = 1;
	for (k = 0; seen && k < v->expected; k++) {
		char name[48];

		if (seen[k])
			continue;
		snprintf(name, sizeof(name), "%ld/%ld", k, v->expected);
		list_add(v->missing, sizeof(v->missing), name);
		v->n_missing++;
	}
	free(seen);
}

/* When each shard started on one clock, and the spread of those starts;
 * only when every shard has a clock. */
static void shards_starts(size_t n, struct shards_view *v, struct shard_info *si)
{
	double min_origin = INFINITY, lo = INFINITY, hi = -INFINITY;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!si[i].has_clock || isnan(si[i].lag0_ms))
			return;
		if (si[i].origin_ms < min_origin)
			min_origin = si[i].origin_ms;
	}
	for (i = 0; i < n; i++) {
		si[i].start_ms = si[i].origin_ms - min_origin +
				 (si[i].measured ? si[i].offset_ms : 0) + si[i].lag0_ms;
		if (si[i].start_ms < lo)
			lo = si[i].start_ms;
		if (si[i].start_ms > hi)
			hi = si[i].start_ms;
	}
	if (n)
		v->start_spread_ms = hi - lo;
}

/* The pair of measured clocks that surely disagrees most: its lower bound. */
static void shards_disagree(const struct db_shard *sh, size_t n, struct shards_view *v,
			    const struct shard_info *si)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (!si[i].measured)
			continue;
		v->measured++;
		for (j = 0; j < i; j++) {
			double d = fabs(si[i].offset_ms - si[j].offset_ms);
			double e = si[i].error_ms + si[j].error_ms;

			if (si[j].measured && (isnan(v->disagree_ms) ||
					       d - e > v->disagree_ms - v->disagree_err_ms)) {
				v->disagree_ms = d;
				v->disagree_err_ms = e;
				v->disagree_a = sh[i].k;
				v->disagree_b = sh[j].k;
			}
		}
	}
}

/* Fills v and si (one per shard) from the shards of a run. */
static void shards_compute(const struct db_shard *sh, size_t n, const struct run *run,
			   int open, struct shards_view *v, struct shard_info *si)
{
	int64_t first = INT64_MAX, last = INT64_MIN;
	long requests = 0;
	size_t i, j;

	memset(v, 0, sizeof(*v));
	v->start_spread_ms = v->disagree_ms = v->mean_gap_ms = NAN;
	shards_count(sh, n, v);
	if (!v->loaded)
		return;
	for (i = 0; i < n; i++) {
		shard_info_fill(&sh[i], open, &si[i]);
		for (j = 0; j < i && strcmp(si[j].host, si[i].host) != 0; j++)
			;
		if (j == i) {
			v->hosts++;
			list_add(v->host_list, sizeof(v->host_list), si[i].host);
		}
		if (sh[i].requests) {
			requests += sh[i].requests;
			if (sh[i].first_sched_ns < first)
				first = sh[i].first_sched_ns;
			if (sh[i].last_sched_ns > last)
				last = sh[i].last_sched_ns;
		}
	}
	shards_starts(n, v, si);
	shards_disagree(sh, n, v, si);
	if (open && requests >= 2 && last > first)
		v->mean_gap_ms = (double)(last - first) / 1e6 / (double)(requests - 1);
	if (open)
		v->tolerance_ms = isnan(v->mean_gap_ms) ? 1 : v->mean_gap_ms / 10;
	else
		v->tolerance_ms = run && run->n_levels && !isnan(run->levels[0].e2e.mean) ?
				  run->levels[0].e2e.mean / 10 : 1;
	if (v->tolerance_ms < 1)
		v->tolerance_ms = 1;
}

/* Reads the shards of 'label' and computes v (and si, when not NULL:
 * one a results file, freed by the caller). */
static int shards_read(struct db *db, const char *label, const struct run *run,
		       int with_lags, struct shards_view *v, struct db_shard **sh, size_t *n,
		       struct shard_info **si, char *err, size_t errlen)
{
	struct db_run *runs = NULL;
	size_t n_runs = 0;
	int rc, open;

	*sh = NULL;
	*n = 0;
	*si = NULL;
	rc = db_runs(db, label, &runs, &n_runs, err, errlen);
	if (rc)
		return rc;
	open = runs[0].param.mode == RUN_MODE_OPEN;
	db_runs_free(runs, n_runs);
	rc = db_shards(db, label, with_lags, sh, n, err, errlen);
	if (rc)
		return rc;
	*si = calloc(*n ? *n : 1, sizeof(**si));
	if (!*si) {
		db_shards_free(*sh, *n);
		*sh = NULL;
		errmsg_set(err, errlen, "run '%s': out of memory", label);
		return DB_ERR_WORK;
	}
	shards_compute(*sh, *n, run, open, v, *si);
	return DB_OK;
}

int shards_view(struct db *db, const char *label, const struct run *run,
		struct shards_view *v, char *err, size_t errlen)
{
	struct db_shard *sh;
	struct shard_info *si;
	size_t n;
	int rc = shards_read(db, label, run, 0, v, &sh, &n, &si, err, errlen);

	if (!rc) {
		db_shards_free(sh, n);
		free(si);
	}
	return rc;
}

int shards_level_factor(struct db *db, const char *label, int *factor, char *err,
			size_t errlen)
{
	struct shards_view v;
	struct db_run *runs = NULL;
	size_t n = 0;
	int rc = db_runs(db, label, &runs, &n, err, errlen);

	*factor = 1;
	if (!rc && n && runs[0].param.mode != RUN_MODE_OPEN) {
		rc = shards_view(db, label, NULL, &v, err, errlen);
		if (!rc && v.loaded >= 2)
			*factor = (int)v.loaded;
	}
	db_runs_free(runs, n);
	return rc;
}

struct load shards_load(struct load load, int factor)
{
	if (load.kind == LOAD_CLOSED)
		load.concurrency *= factor;
	return load;
}

/* "clocks agree within ..." or the warning that they do not. */
static void shards_print_clocks(FILE *out, const struct shards_view *v,
				const struct db_shard *sh, size_t n, const struct shard_info *si)
{
	const char *ha = "?", *hb = "?";
	size_t i;

	if (v->measured < 2 || isnan(v->disagree_ms))
		return;
	for (i = 0; i < n; i++) {
		if (sh[i].shard && sh[i].k == v->disagree_a)
			ha = si[i].host;
		if (sh[i].shard && sh[i].k == v->disagree_b)
			hb = si[i].host;
	}
	if (v->disagree_ms - v->disagree_err_ms > v->tolerance_ms) {
		fprintf(out, "warning: the hosts' clocks disagree by %.2f ± %.2f ms (shard %ld/%ld "
			"on %s against %ld/%ld on %s), more than this schedule tolerates (%.2f ms); "
			"the shards did not run on one schedule\n", v->disagree_ms,
			v->disagree_err_ms, v->disagree_a, v->expected, ha, v->disagree_b,
			v->expected, hb, v->tolerance_ms);
	} else if (v->disagree_err_ms > v->tolerance_ms) {
		fprintf(out, "note: the hosts' clocks differ by %.2f ± %.2f ms: measured too "
			"coarsely to tell against this schedule's tolerance (%.2f ms)\n",
			v->disagree_ms, v->disagree_err_ms, v->tolerance_ms);
	}
}

int shards_print(FILE *out, struct db *db, const char *label, const struct run *run,
		 int *printed, char *err, size_t errlen)
{
	struct shards_view v;
	struct db_shard *sh;
	struct shard_info *si;
	size_t n, i;
	int rc = shards_read(db, label, run, 1, &v, &sh, &n, &si, err, errlen);

	*printed = 0;
	if (rc)
		return rc;
	if (!v.loaded)
		goto cleanup;
	*printed = 1;
	fprintf(out, "shards: %zu of %ld on %zu host%s (", v.loaded, v.expected, v.hosts,
		v.hosts == 1 ? "" : "s");
	table_put_text(out, v.host_list);   /* names from the results files */
	fputc(')', out);
	if (!isnan(v.start_spread_ms))
		fprintf(out, "; start spread %.2f ms", v.start_spread_ms);
	else
		fputs("; start spread unknown (a shard has no clock record)", out);
	if (!isnan(v.disagree_ms))
		fprintf(out, "; clocks within %.2f ± %.2f ms of each other", v.disagree_ms,
			v.disagree_err_ms);
	if (!isnan(v.mean_gap_ms))
		fprintf(out, "; schedule gap %.2f ms, tolerance %.2f ms", v.mean_gap_ms,
			v.tolerance_ms);
	fputc('\n', out);
	for (i = 0; i < n; i++) {
		const struct db_shard *s = &sh[i];

		fputs("  shard ", out);
		table_put_text(out, s->shard ? s->shard : "-");
		fputs(" on ", out);
		table_put_text(out, si[i].host);
		fprintf(out, ": %ld requests", s->requests);
		if (!isnan(si[i].lag0_ms))
			fprintf(out, ", start lag %.2f ms", si[i].lag0_ms);
		if (s->requests && s->lag_ms && s->open_loop)
			fprintf(out, ", send lag P50 %.2f ms, P99 %.2f ms, max %.2f ms",
				stats_percentile(s->lag_ms, (size_t)s->requests, 50),
				stats_percentile(s->lag_ms, (size_t)s->requests, 99),
				s->lag_ms[s->requests - 1]);
		if (si[i].measured)
			fprintf(out, ", clock %+.2f ± %.2f ms from the server's", -si[i].offset_ms,
				si[i].error_ms);
		fputc('\n', out);
	}
	if (run && run->shards > 1) {
		fprintf(out, "closed loop: C is the concurrency of all %zu shards together, "
			"%zu x each shard's C (", run->shards, run->shards);
		for (i = 0; i < run->n_levels; i++)
			fprintf(out, "%s%zu", i ? ", " : "",
				(size_t)run->levels[i].level.concurrency / run->shards);
		fputs(")\n", out);
	}
	if (v.n_missing)
		fprintf(out, "warning: shard%s %s missing: the run holds %zu of %ld shards\n",
			v.n_missing == 1 ? "" : "s", v.missing, v.loaded, v.expected);
	shards_print_clocks(out, &v, sh, n, si);
cleanup:
	db_shards_free(sh, n);
	free(si);
	return DB_OK;
}
