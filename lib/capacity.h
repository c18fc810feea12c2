/*
 * capacity.h - how much load a server takes while meeting an SLO: the
 * decision at one load and the search over loads, shared by replay
 * --find-capacity (which runs the probes) and analyze report (which
 * states the result from the stored levels).
 *
 * The SLO holds at a load when at least the share 'share' of its requests
 * are good (lib/metric.h: succeeded within every limit). From k good of n
 * requests a load passes when the one-sided Wilson lower bound of the
 * good share is at least 'share', and fails when the upper bound is
 * below it; else it is undecided and the probe sends more requests, in
 * batches, up to max_requests. Each bound is taken at alpha / looks
 * (Bonferroni over the looks a probe may take), so the chance that a
 * probe's verdict is wrong stays under 1 - confidence however many looks
 * it took. A probe still undecided at max_requests counts as failing
 * (the capacity stated is one the data confirm).
 *
 * The search, over closed-loop concurrency: doubling from 'start' until a
 * load fails (or 'max' passes), halving down when the first fails, then
 * bisecting between the highest passing and the lowest failing load until
 * they are within max(1, tolerance x the passing one).
 */
#ifndef TB_CAPACITY_H
#define TB_CAPACITY_H

#include <stddef.h>

enum capacity_verdict { CAPACITY_UNDECIDED, CAPACITY_PASS, CAPACITY_FAIL };

struct capacity_options {
	double share;           /* of good requests the SLO asks for, (0, 1) */
	double confidence;      /* of each verdict, (0, 1) */
	long start, max;        /* concurrency bounds of the search */
	double tolerance;       /* relative width at which the bracket stops */
	long batch;             /* requests a look adds; 0: max(20, 2C) */
	long max_requests;      /* per probe */
};

/* The z of the one-sided bound each look takes (alpha split over the looks
 * a probe at concurrency c may take). */
double capacity_z(const struct capacity_options *o, long c);

/* Requests of one look at concurrency c. */
long capacity_batch(const struct capacity_options *o, long c);

/* One-sided Wilson bounds of the good share from good of n at z. */
void capacity_wilson(long good, long n, double z, double *lo, double *hi);

/* The verdict on good of n at concurrency c; *lo, *hi set to the bounds. */
enum capacity_verdict capacity_judge(const struct capacity_options *o, long c, long good,
				     long n, double *lo, double *hi);

/* The search's state: the highest load that passed, the lowest that failed
 * (0: none yet). */
struct capacity_search {
	long pass, fail;
};

/*
 * Records the verdict at c (an undecided one as a failure) and returns
 * the next concurrency to probe, or 0 when the search is over.
 */
long capacity_next(struct capacity_search *s, const struct capacity_options *o, long c,
		   enum capacity_verdict v);

const char *capacity_verdict_name(enum capacity_verdict v);

#endif
