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
 * The search, over request rate (open loop) or concurrency (closed loop):
 * doubling from 'start' until a load fails (or 'max' passes), halving down
 * when the first fails, then bisecting between the highest passing and the
 * lowest failing load until they are within tolerance x the passing one
 * (concurrency: at least 1; rate: at least 1% of it, since a rate has no
 * smallest step). Concurrency halves down to 1; a rate down to start / 64,
 * six halvings, for a probe at a low rate is long (its requests at that
 * rate) and a server that fails at start / 64 has no capacity worth a
 * finer answer. replay stops halving a rate sooner, where the failing
 * probe's requests ran mostly alone (replay/replay.c ran_alone).
 *
 * A look is max(20, 2 x load) requests: at concurrency C, two rounds of C;
 * at rate r, two seconds of arrivals, long enough that the requests sent
 * while an idle server fills to its steady state are a minority of the
 * look (each look of an open-loop probe starts from an idle server).
 */
#ifndef TB_CAPACITY_H
#define TB_CAPACITY_H

#include <stddef.h>

enum capacity_verdict { CAPACITY_UNDECIDED, CAPACITY_PASS, CAPACITY_FAIL };

struct capacity_options {
	double share;           /* of good requests the SLO asks for, (0, 1) */
	double confidence;      /* of each verdict, (0, 1) */
	double start, max;      /* load bounds of the search (C, or req/s) */
	double tolerance;       /* relative width at which the bracket stops */
	long batch;             /* requests a look adds; 0: max(20, 2 x load) */
	long max_requests;      /* per probe */
	int by_rate;            /* 1: the load is a rate (req/s), else a concurrency */
};

/* The lowest load the search halves down to: 1 for C, start / 64 for a rate. */
double capacity_floor(const struct capacity_options *o);

/* The z of the one-sided bound each look takes (alpha split over the looks
 * a probe at load x may take). */
double capacity_z(const struct capacity_options *o, double x);

/* Requests of one look at load x. */
long capacity_batch(const struct capacity_options *o, double x);

/* One-sided Wilson bounds of the good share from good of n at z. */
void capacity_wilson(long good, long n, double z, double *lo, double *hi);

/*
 * The fewest requests a probe at load x needs (max_requests) to be found
 * to meet the SLO: even all n good give a lower bound of only
 * n / (n + z^2), and z grows with the looks n allows. Returns it, or 0
 * when no count up to 100 million would (a share of 1). A search whose
 * --capacity-requests is below it can only fail or stay undecided, and
 * would state "no load meets the SLO" of a server that met it.
 */
long capacity_min_requests(const struct capacity_options *o, double x);

/* The verdict on good of n at load x; *lo, *hi set to the bounds. */
enum capacity_verdict capacity_judge(const struct capacity_options *o, double x, long good,
				     long n, double *lo, double *hi);

/* The search's state: the highest load that passed, the lowest that failed
 * (0: none yet). */
struct capacity_search {
	double pass, fail;
};

/*
 * Records the verdict at load x (an undecided one as a failure) and
 * returns the next load to probe (a whole C in closed loop), or 0 when
 * the search is over.
 */
double capacity_next(struct capacity_search *s, const struct capacity_options *o, double x,
		     enum capacity_verdict v);

const char *capacity_verdict_name(enum capacity_verdict v);

#endif
