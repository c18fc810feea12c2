/*
 * report_host.c - the host replay ran on, per level; see report_host.h.
 */
#include "analyze/report_host.h"
#include "lib/metric.h"

#include <math.h>
#include <string.h>

int report_host_source(const char *source)
{
	return source && !strncmp(source, "host", 4) && (!source[4] || source[4] == ' ');
}

static const char *col_level(const void *row, size_t arg)
{
	static char buf[24];

	(void)arg;
	return load_cell(load_of_code(((const struct db_metric_level *)row)->level, NAN), buf,
			 sizeof(buf));
}

static double col_busy(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct db_metric_level *)row)->m.cpu_busy;
}

static double col_steal(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct db_metric_level *)row)->m.cpu_steal;
}

static double col_process(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct db_metric_level *)row)->m.process_cpu;
}

static const struct table_col host_cols[] = {
	{ .head = "C", .key = "level", .str = col_level },
	{ .head = "CPU busy", .key = "cpu_busy", .decimals = 1, .scale = 100, .suffix = "%",
	  .csv_decimals = 4, .num = col_busy },
	{ .head = "Steal", .key = "cpu_steal", .decimals = 1, .scale = 100, .suffix = "%",
	  .csv_decimals = 4, .num = col_steal },
	{ .head = "Replay CPU", .key = "replay_cpu", .decimals = 1, .scale = 100, .suffix = "%",
	  .csv_decimals = 4, .num = col_process },
};

int report_host_table(FILE *out, enum table_format fmt, const struct db_metric_level *lv,
		      size_t n)
{
	struct table t;

	fprintf(out, "\nthe host replay ran on (%s; its /proc at each level's start and end):\n",
		lv[0].source[0] ? lv[0].source : "host");
	if (fmt == TABLE_MARKDOWN)
		fputc('\n', out);
	table_init(&t, out, fmt, host_cols, sizeof(host_cols) / sizeof(host_cols[0]), 0);
	table_print(&t, lv, n, sizeof(*lv));
	fputs(fmt == TABLE_MARKDOWN ? "\n" : "", out);
	fprintf(out, "shares of all the host's CPU time over the level: busy (not idle nor "
		"waiting for I/O), stolen by the hypervisor, and replay's own; a busy host "
		"delays the client and, on one host, the server.\n");
	return 0;
}

double report_host_busy(const struct db_metric_level *lv, size_t n, struct load load)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (report_host_source(lv[i].source) &&
		    load_same(load_of_code(lv[i].level, NAN), load))
			return lv[i].m.cpu_busy;
	return NAN;
}
