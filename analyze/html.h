/*
 * html.h - `analyze report --format html`: the report as one self-contained
 * HTML file, for a write-up or to send: it opens with the network off and
 * needs nothing beside it.
 *
 * The file holds the report of every run (the Markdown report's tables as
 * HTML <table>s, repeat spread and small-sample marks included, its notes
 * as paragraphs: lib/htmltable.h), for two or more runs the comparison of
 * the first with each of the others (verdicts and warnings, tables too), every figure `analyze plot` draws, inline as SVG (where
 * gnuplot is missing the report says so and keeps the tables), and the
 * definitions its numbers follow. Inline CSS, no script, no reference to
 * anything outside the file; the same database and arguments give the
 * same bytes (no date, figures in plot order), so its hash names the
 * result set.
 */
#ifndef TB_ANALYZE_HTML_H
#define TB_ANALYZE_HTML_H

#include <stdio.h>

#include "analyze/db.h"
#include "lib/metric.h"

/*
 * Writes the report of run 'label' (NULL: every run) to out, each latency
 * percentile with its 95% interval when 'intervals' (report --intervals).
 * Returns DB_OK;
 * DB_ERR_INPUT for an unknown run or an empty database; DB_ERR_WORK when a
 * figure cannot be drawn or out cannot be written (the message in err).
 */
int html_report(struct db *db, const char *label, const struct metric_slo *slo, int intervals,
		FILE *out, char *err, size_t errlen);

#endif
