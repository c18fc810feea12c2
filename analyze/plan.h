/*
 * plan.h - `tracebench analyze plan`: what a comparison needs to see a
 * change of a given size, from the noise two runs showed.
 *
 * compare judges a change against the run-to-run noise it measured
 * (docs/DESIGN.md, "Verdicts"): the spread of an A/B run's block ratios,
 * or the spread of the before run's history (or --noise). plan takes that
 * noise from a comparison of two runs - best an A/A pair, the same server
 * on both sides - and works out, for each number compare judges, what
 * sees a change of --effect percent with probability --power:
 *
 *   blocks (an A/B run): the fewest blocks k with
 *       (|ln(1 + E)| - ln(1 + m)) * sqrt(k) / s  >=  t(k - 1) + z(power)
 *     where s is the SD of a block's log ratio, m the threshold
 *     (--min-effect) and t(k - 1) the 97.5% quantile compare uses: the
 *     interval's near end then clears the threshold in that share of runs;
 *   history or --noise (one run a side): the smallest change it can see,
 *       exp(ln(1 + m) + (t + z(power)) * sqrt(2) * sd) - 1,
 *     as the noise of a run does not shrink with its requests;
 *   a percentile with too few requests: the requests a side it needs.
 *
 * An effect is "worse by E percent": a latency E% higher, a throughput E%
 * lower.
 */
#ifndef TB_ANALYZE_PLAN_H
#define TB_ANALYZE_PLAN_H

#include <stddef.h>
#include <stdio.h>

#include "analyze/compare.h"
#include "lib/table.h"

#define PLAN_MAX_BLOCKS 100     /* past it, plan says an A/B run will not do */

struct plan_opts {
	double effect_pct;      /* the change to see, percent worse */
	double power_pct;       /* the share of runs that should see it, percent */
	const char *metric;     /* "ttft_p50", "tok_s", ...; NULL: every number */
};

/* The normal quantile of p (0 < p < 1). */
double plan_z(double p);

/*
 * Blocks an A/B run needs so that a change of effect_log (|log ratio|)
 * clears the threshold min_log with power z (plan_z of it) when a block's
 * log ratio has SD sd: 2 .. PLAN_MAX_BLOCKS, or 0 when more than that.
 */
size_t plan_blocks(double sd, double effect_log, double min_log, double z);

/* The smallest change, in percent, one run a side sees with power z when a
 * run's figure has SD sd (log scale) known to the quantile t. */
double plan_detectable(double sd, double t, double min_log, double z);

/* The plan's key of a compare row: "ttft_p50", "tok_s". */
void plan_key(const struct compare_row *w, char *buf, size_t len);

/*
 * Prints the plan of every row of r (that o->metric names) in fmt. Returns
 * the rows printed.
 */
size_t plan_print(FILE *out, enum table_format fmt, const char *before, const char *after,
		  const struct compare_result *r, const struct plan_opts *o);

#endif
