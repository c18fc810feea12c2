/*
 * report_client.c - the client's own error, per level; see report_client.h.
 */
#include "analyze/report_client.h"
#include "analyze/report_host.h"
#include "lib/clientbound.h"
#include "lib/metric.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* report_client_limit's, or the default */
static double limit_share = CLIENTBOUND_DEFAULT_SHARE;

void report_client_limit(double share)
{
	limit_share = share > 0 ? share : CLIENTBOUND_DEFAULT_SHARE;
}

int report_client_fill(struct db *db, const char *label, struct run *run, char *err,
		       size_t errlen)
{
	struct db_client_level *cl = NULL;
	struct db_metric_level *lv = NULL;
	struct energy_counter none = { "", 1 };
	size_t n_cl = 0, n_lv = 0, i, k;
	int rc;

	rc = db_client_levels(db, label, &cl, &n_cl, err, errlen);
	if (rc || !n_cl)
		return rc;
	rc = db_metric_levels(db, label, &none, &lv, &n_lv, err, errlen);
	if (rc)
		goto cleanup;
	for (i = 0; i < run->n_levels; i++) {
		struct level_summary *s = &run->levels[i];

		for (k = 0; k < n_cl && !load_same(load_of_code(cl[k].level, NAN), s->level); k++)
			;
		if (k == n_cl)
			continue;
		s->client_ttft_p50 = cl[k].b.ttft_p50 * 1e3;
		s->client_ttft_p99 = cl[k].b.ttft_p99 * 1e3;
		s->client_gap_p50 = cl[k].b.gap_p50 * 1e3;
		s->client_gap_p99 = cl[k].b.gap_p99 * 1e3;
		s->client_blind = isnan(cl[k].w.run_wait_unread) ? -1 : cl[k].w.run_wait_unread == 1;
		{
			struct clientbound_level m = {
				s->ttft.p50 / 1e3, s->ttft.p99 / 1e3,
				report_host_busy(lv, n_lv, s->level), NAN
			};
			size_t j;

			for (j = 0; j < n_lv; j++)
				if (report_host_source(lv[j].source) &&
				    load_same(load_of_code(lv[j].level, NAN), s->level))
					m.host_steal = lv[j].m.cpu_steal;
			s->client_limited = clientbound_judge(&cl[k].b, &cl[k].w, &m,
							      limit_share, s->client_why,
							      sizeof(s->client_why));
			if (s->client_limited < 0)
				s->client_why[0] = '\0';
		}
	}
cleanup:
	free(cl);
	free(lv);
	return rc;
}

/*
 * The level as this table names it: "C=4", "open loop", "rate 2" (a rate
 * search's second probe), so that its rows are not taken for the sweep
 * table's, which name a level by its bare number or "open".
 */
static const char *level_name(struct load load, char *buf, size_t len)
{
	if (load.kind == LOAD_CLOSED)
		snprintf(buf, len, "C=%d", load.concurrency);
	else if (load.kind == LOAD_RATE)
		snprintf(buf, len, "rate %d", load.probe);
	else
		snprintf(buf, len, "open loop");
	return buf;
}

static const char *col_level(const void *row, size_t arg)
{
	static char buf[24];

	(void)arg;
	return level_name(((const struct level_summary *)row)->level, buf, sizeof(buf));
}

static double col_ms(const void *row, size_t off)
{
	return *(const double *)(const void *)((const char *)row + off);
}

static const char *col_limited(const void *row, size_t arg)
{
	int v = ((const struct level_summary *)row)->client_limited;

	(void)arg;
	return v < 0 ? NULL : v ? "yes" : "no";
}

#define F(m) offsetof(struct level_summary, m)
static const struct table_col client_cols[] = {
	{ .head = "Level", .key = "level", .str = col_level },
	{ .head = "TTFT P50", .unit = "ms", .decimals = 2, .num = col_ms,
	  .arg = F(client_ttft_p50) },
	{ .head = "TTFT P99", .unit = "ms", .decimals = 2, .num = col_ms,
	  .arg = F(client_ttft_p99) },
	{ .head = "Gap P50", .unit = "ms", .decimals = 2, .num = col_ms,
	  .arg = F(client_gap_p50) },
	{ .head = "Gap P99", .unit = "ms", .decimals = 2, .num = col_ms,
	  .arg = F(client_gap_p99) },
	{ .head = "Client-limited", .str = col_limited },
};
#undef F

void report_client_print(FILE *out, enum table_format fmt, const struct run *run)
{
	struct table t;
	size_t i, shown = 0;

	for (i = 0; i < run->n_levels; i++)
		if (!isnan(run->levels[i].client_ttft_p99) || run->levels[i].client_limited >= 0)
			shown++;
	if (!shown)
		return;
	fprintf(out, "\nthe client's own error (a bound, replay's watch of itself):\n");
	if (fmt == TABLE_MARKDOWN)
		fputc('\n', out);
	table_init(&t, out, fmt, client_cols, sizeof(client_cols) / sizeof(client_cols[0]), 0);
	table_print(&t, run->levels, run->n_levels, sizeof(*run->levels));
	fputs(fmt == TABLE_MARKDOWN ? "\n" : "", out);
	fprintf(out, "the most the client and the way to the server may have added to a "
		"level's TTFT and its gaps (docs/DESIGN.md, \"The client's own error\"); a "
		"level is client-limited when the client's own part is over %.3g%% of what "
		"it bounds.\n", limit_share * 100);
	for (i = 0; i < run->n_levels; i++) {
		char cell[24];

		if (run->levels[i].client_limited == 1)
			fprintf(out, "%s%s: client-limited: %s\n", fmt == TABLE_MARKDOWN ? "\n" : "",
				level_name(run->levels[i].level, cell, sizeof(cell)),
				run->levels[i].client_why);
	}
	for (i = 0, shown = 0; i < run->n_levels; i++) {
		char cell[24];

		if (run->levels[i].client_blind != 1)
			continue;
		if (!shown++)
			fprintf(out, "%sreplay could not read its measuring thread's wait to run"
				" (/proc/thread-self/schedstat) at ",
				fmt == TABLE_MARKDOWN ? "\n" : "");
		else
			fputs(", ", out);
		fputs(level_name(run->levels[i].level, cell, sizeof(cell)), out);
	}
	if (shown)
		fprintf(out, ": there the bound sees the kernel not running it only as its"
			" timers' lateness, and may fall short.\n");
}
