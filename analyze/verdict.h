/*
 * verdict.h - the statistics behind `analyze compare`: did a number get
 * better, worse, stay the same, or can the data not tell?
 *
 * Pure functions over arrays; compare.c gathers the arrays from the
 * database and prints what these return. Every verdict is about the change
 * of the number compare shows, in percent of its value before:
 *
 *   - a latency percentile (P50 or P99 of TTFT, TTFA, TPOT, ITL, E2E): a
 *     bootstrap of the percentile of each side's pooled values;
 *   - aggregate tok/s, tokens / wall time: over the repeats' own values when
 *     both sides have two or more, else a bootstrap of the requests that
 *     reproduces the number shown (see verdict_rate).
 *
 * The 95% interval of the change is then set against --min-effect m
 * (verdict_classify): inside [-m, +m] it is "same" - a change that is real
 * but smaller than m does not matter; wholly beyond +m or -m it is "slower"
 * or "faster"; anything else (the interval straddles a threshold) is
 * "inconclusive": run more requests or repeats.
 *
 * Noise. A sample is grouped by repeat (replay --repeat): each resample
 * draws repeats with replacement, then requests within each drawn repeat
 * (a two-stage, hierarchical bootstrap), so the spread between runs counts
 * as noise. With one run a side only the spread between requests is
 * measured, and the min-effect threshold is what absorbs the drift from
 * one run to the next. A request is the unit inside a run: ITL resamples a
 * request's gaps together, and the P99 rule counts requests.
 *
 * Pairing. When both sides replayed the same trace requests (verdict_pair),
 * a resample draws trace requests and takes both sides' values of each, so
 * the differences between requests (long and short answers) cancel out.
 *
 * Resampling uses lib/random.h's generator from a caller's seed: the same
 * arrays always give the same interval and the same verdict.
 */
#ifndef TB_ANALYZE_VERDICT_H
#define TB_ANALYZE_VERDICT_H

#include <stddef.h>
#include <stdint.h>

/* Fewer requests with a value on either side: no verdict. */
#define VERDICT_MIN_REQUESTS 5
/*
 * P99 is judged only with this many requests a side (for ITL too: its
 * gaps are not independent draws). Below, P99 is about the largest value
 * and its bootstrap interval too narrow: on normal data at n = 60, 7%
 * false alarms for a nominal 2.5%; at n = 200, 2.3%.
 */
#define VERDICT_TAIL_REQUESTS 200
#define VERDICT_LEVEL 0.95              /* of every interval */
#define VERDICT_RESAMPLES 2000
#define VERDICT_SEED 0x7472616365ULL    /* "trace" */
/* Default --min-effect, percent: with repeats on both sides the noise
 * between runs is in the interval, and 1% is what a change must exceed to
 * matter; with one run a side a further 2% stands in for that unmeasured
 * noise (BENCHMARKS.md section 8 measured both on the mock). */
#define VERDICT_MIN_EFFECT 3.0
#define VERDICT_MIN_EFFECT_REPEATS 1.0

enum verdict_outcome {
	VERDICT_SAME,           /* the interval lies inside +-min_effect */
	VERDICT_FASTER,
	VERDICT_SLOWER,
	VERDICT_INCONCLUSIVE,   /* the interval straddles a threshold */
	VERDICT_NA,             /* not judged: too few requests, no value */
};

/* "same", "faster", "slower", "inconclusive", "n/a" (static strings). */
const char *verdict_outcome_name(enum verdict_outcome v);

/*
 * The outcome of a change whose interval, in percent, is [lo, hi], for a
 * metric where lower is better (latency) or higher (throughput): inside
 * [-min_effect, +min_effect] same; lo above +min_effect slower (latency) or
 * faster (throughput); hi below -min_effect the reverse; else inconclusive.
 * NaN bounds are VERDICT_NA. With min_effect 0, any interval that excludes
 * zero is a change.
 */
enum verdict_outcome verdict_classify(double lo, double hi, double min_effect,
				      int higher_is_better);

/* How to compute an interval. */
struct verdict_opts {
	double min_effect;      /* percent, >= 0 */
	double level;           /* of the interval, e.g. VERDICT_LEVEL */
	unsigned resamples;     /* e.g. VERDICT_RESAMPLES */
	uint64_t seed;
};

/*
 * One side's samples of one metric at one level, as requests: request i
 * is the value v[i], or (start not NULL) the values v[start[i] ..
 * start[i+1]) - a request's inter-token gaps. repeat (NULL: all 0) gives
 * the repeat of each request, each below n_repeats. Nothing is copied; the
 * arrays must outlive the calls that use them.
 */
struct verdict_side {
	const double *v;
	const size_t *start;
	size_t n;               /* requests */
	const int *repeat;
	size_t n_repeats;       /* >= 1 */
	const struct verdict_sorted *sorted;    /* NULL: each call sorts */
};

/*
 * A side's values in ascending order, v[i] belonging to request req[i]: a
 * resample's percentile is read off them by weighting each request by its
 * draws (lib/stats.h's stats_percentile_weighted), no resample written out.
 * verdict_percentile sorts a side that comes without; a caller judging
 * several percentiles of one sample sorts it once (side.sorted).
 */
struct verdict_sorted {
	double *v;
	size_t *req;
	size_t n;
};

/* Returns 0, or -1 when memory runs out (*o released). */
int verdict_sorted_init(struct verdict_sorted *o, const struct verdict_side *s);
void verdict_sorted_release(struct verdict_sorted *o);

/*
 * Where the run-to-run noise of a verdict came from. A run's figure moves
 * between runs of an unchanged server by more than the spread of its own
 * requests, or of repeats adjacent in time, can show (slow drift of the
 * host and the server); a verdict "faster" or "slower" needs that noise
 * measured (docs/DESIGN.md, "Verdicts"):
 */
enum verdict_noise {
	VERDICT_NOISE_NONE,     /* not measured: faster/slower held back as inconclusive */
	VERDICT_NOISE_BLOCKS,   /* an A/B run's interleaved blocks, paired block by block */
	VERDICT_NOISE_HISTORY,  /* earlier runs of the same experiment in the database */
	VERDICT_NOISE_GIVEN,    /* compare --noise */
};

/* "none", "blocks", "history", "given" (static strings). */
const char *verdict_noise_name(enum verdict_noise n);

/* A judged statistic: the number shown, its change and the verdict. */
struct verdict {
	double before, after;   /* the statistic of each side (NaN: none) */
	double change_pct;      /* (after - before) / before * 100, NaN when undefined */
	double lo, hi;          /* VERDICT_LEVEL interval of change_pct; NaN when not judged */
	enum verdict_outcome outcome;
	size_t n_before, n_after;   /* requests (repeats for a rate over repeats) */
	int paired;             /* the interval came from paired resampling */
	size_t needed;          /* requests a side the statistic needs to be judged */
	enum verdict_noise noise;
	int held;               /* a faster/slower that unmeasured noise held back */
	/* a faster/slower within what the two runs' clients may have added
	 * (analyze/compare_client.c), held back as inconclusive; the outcome
	 * it had before */
	int client_held;
	enum verdict_outcome client_outcome;
	/* The noise the interval took its width from (not NONE): the SD on the
	 * log scale of a block's log ratio (BLOCKS, over noise_n blocks) or of
	 * one run's figure (HISTORY, GIVEN), the quantile it was taken to, and
	 * the degrees of freedom sd was measured with (BLOCKS: noise_n - 1;
	 * HISTORY: the runs' less one; GIVEN: none, 0). */
	double noise_sd, noise_t;
	size_t noise_n, noise_df;
};

/*
 * The p-th percentile (0 < p < 100) of the pooled values of a and b and the
 * verdict on its change, lower being better. paired: request i of a and
 * request i of b replayed the same trace request (a->n == b->n, the same
 * repeat) and are resampled together. Not judged (VERDICT_NA, the numbers
 * still set) with fewer than VERDICT_MIN_REQUESTS requests a side, or, for
 * p > 50, fewer than VERDICT_TAIL_REQUESTS. Returns 0, or -1 when memory
 * runs out (*out untouched).
 */
int verdict_percentile(const struct verdict_side *a, const struct verdict_side *b, int paired,
		       double p, const struct verdict_opts *o, struct verdict *out);

/*
 * One side of a throughput, tokens / wall time. Per request: its tokens
 * (0 for a failed one) and its E2E in seconds; per repeat: its tokens and
 * its wall time (first start to last end). shown is the number displayed:
 * the sum of the repeats' tokens over the sum of their wall times.
 */
struct verdict_rate_side {
	const double *tok, *e2e;
	const int *repeat;      /* NULL: all 0 */
	size_t n;               /* requests */
	const double *rep_tok, *rep_wall;
	size_t n_repeats;       /* >= 1 */
};

/*
 * The verdict on the change of tokens / wall time, higher being better.
 * Both sides with two or more repeats: Welch's interval over the repeats'
 * own values, centred on the change shown. Otherwise the requests are
 * resampled (paired as in verdict_percentile) and each resample's rate is
 * the one shown scaled by the resample's sum(tokens) / sum(E2E) over the
 * whole sample's: the interval reproduces the number in the table, while
 * the run-to-run spread of the wall time is left to min_effect. Returns 0
 * or -1 (memory).
 */
int verdict_rate(const struct verdict_rate_side *a, const struct verdict_rate_side *b,
		 int paired, const struct verdict_opts *o, struct verdict *out);

/*
 * An A/B run's verdict: sa[r] and sb[r] are the statistic of block r of
 * each side (its r-th interleaved repeat). The interval of w's change
 * (w->before and w->after set) is Student's t over the n blocks' log
 * ratios, around the change shown and reaching to the blocks' mean ratio
 * where that lies elsewhere (a pooled tail can move apart from the
 * blocks'): the noise between blocks spread over the run, with the slow
 * drift both sides shared divided out. Fewer than
 * two usable blocks leave w as it was and return 0; else sets w->lo, hi,
 * outcome and noise and returns 1.
 */
int verdict_blocks(const double *sa, const double *sb, size_t n, const struct verdict_opts *o,
		   int higher_is_better, struct verdict *w);

/*
 * Each of n blocks judges its own figure, so a percentile needs its
 * requests (w->needed) in every block: a P99 of a block of 128 requests is
 * their second largest, and three such figures scatter too far for a t
 * interval. When a side has fewer than n times w->needed, w becomes n/a
 * (if it was not) needing that many and 1 is returned; else 0.
 */
int verdict_blocks_too_few(struct verdict *w, size_t n);

/*
 * Adds a run-to-run noise to w's interval: one run's figure has the
 * relative standard deviation sd (on the log scale), known to t (the
 * quantile: 1.96 when given, Student's with the history's degrees of
 * freedom when measured). The change of two runs then lies within
 * t * sqrt(2) * sd of the change shown; the interval becomes the wider of
 * that and w's own, and the outcome is classified again.
 */
void verdict_widen(struct verdict *w, double sd, double t, enum verdict_noise from,
		   const struct verdict_opts *o, int higher_is_better);

/* No run-to-run noise measured: a faster/slower becomes inconclusive (held). */
void verdict_hold(struct verdict *w);

/* The change lies within the two runs' client bounds: a faster/slower
 * becomes inconclusive (client_held), the outcome kept in client_outcome. */
void verdict_hold_client(struct verdict *w);

/*
 * Pairing by trace request. Request i of side a has key ka[i] (its trace
 * id) and repeat ra[i] (NULL: all 0); likewise b. When the two sides hold
 * the same (repeat, key) multiset - the same trace requests, each as often,
 * in the same repeats - sets *ia and *ib to n-element arrays (the caller
 * frees both) matching request (*ia)[j] of a with (*ib)[j] of b, in order
 * of repeat, key and, for a key sent twice, sending order, and returns 1.
 * Returns 0 when they differ (nothing set), -1 when memory runs out.
 */
int verdict_pair(const long *ka, const int *ra, size_t na, const long *kb, const int *rb,
		 size_t nb, size_t **ia, size_t **ib, size_t *n);

#endif
