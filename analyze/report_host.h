/*
 * report_host.h - analyze report: the host replay ran on, per level (its
 * "metrics" records of source "host", lib/hostload.h): how busy its CPUs
 * were, how much time the hypervisor took from them, and replay's own
 * share, so that a level run on a busy host can be told from a quiet one.
 */
#ifndef TB_REPORT_HOST_H
#define TB_REPORT_HOST_H

#include <stdio.h>

#include "analyze/db.h"
#include "lib/load.h"
#include "lib/table.h"

/* Whether a metrics source is a replaying host's own ("host", or
 * "host (shard K/N)"). */
int report_host_source(const char *source);

/* Text and Markdown: the table of a host source's levels. Returns 0, or
 * -1 when out of memory. */
int report_host_table(FILE *out, enum table_format fmt, const struct db_metric_level *lv,
		      size_t n);

/* The CPU busy share (0..1) of the level of load 'load' of the run's first
 * host source, NaN when it recorded none; lv and n as db_metric_levels
 * gives them. */
double report_host_busy(const struct db_metric_level *lv, size_t n, struct load load);

#endif
