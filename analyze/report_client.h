/*
 * report_client.h - analyze report: each level's bound on the client's own
 * error (lib/clientbound.h), read from the level's host records, judged
 * against what the level measured, and shown: the bound in its own table
 * with the levels it marks client-limited and why (text and Markdown, and
 * so LaTeX and HTML), and in the sweep table's CSV and JSON columns.
 */
#ifndef TB_ANALYZE_REPORT_CLIENT_H
#define TB_ANALYZE_REPORT_CLIENT_H

#include <stdio.h>

#include "analyze/db.h"
#include "analyze/report.h"
#include "lib/table.h"

/* The share of a level's TTFT over which the client's own part of its
 * bound marks it client-limited, for every report of this process
 * (analyze report --client-limit); <= 0 sets CLIENTBOUND_DEFAULT_SHARE. */
void report_client_limit(double share);

/* Fills the client_* fields of run's levels (lib/summary.h) from run
 * 'label''s host records, judged at that share. Returns 0, or a DB_ERR_*
 * code with err set. */
int report_client_fill(struct db *db, const char *label, struct run *run, char *err,
		       size_t errlen);

/* Text and Markdown: the table of the levels' bounds and the reasons of
 * those marked client-limited; nothing when no level has a bound. */
void report_client_print(FILE *out, enum table_format fmt, const struct run *run);

#endif
