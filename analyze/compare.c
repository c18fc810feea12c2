/*
 * compare.c - `tracebench analyze compare`; see compare.h for the method.
 *
 * The samples come from db_results, the same requests report summarizes
 * (successful, non-warm-up); the intervals from lib/stats.c's bootstrap.
 */
#include "analyze/compare.h"
#include "lib/errmsg.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/random.h"
#include "lib/stats.h"

/* Fewer samples than this on either side: no verdict. */
#define COMPARE_MIN_SAMPLES 5
/* Caps resamples x values for ITL, whose pooled gaps can number millions. */
#define COMPARE_ITL_BUDGET 400000000.0
/*
 * P99 is judged only with this many samples on each side. With fewer, P99
 * is nearly the maximum and its bootstrap interval too narrow: measured on
 * normal data at n = 60, 7% false alarms for a nominal 2.5%; at n = 200,
 * 2.3%. Below it the verdict rests on the median alone.
 */
#define COMPARE_MIN_TAIL_SAMPLES 200
/* Each of a latency metric's two intervals (median, P99): 1 - 0.05 / 2. */
#define COMPARE_LEVEL_EACH 0.975
#define COMPARE_LEVEL_ONE  0.95

const char *compare_verdict_name(enum compare_verdict v)
{
	switch (v) {
	case COMPARE_FASTER: return "faster";
	case COMPARE_SLOWER: return "slower";
	case COMPARE_NA: return "too few samples";
	default: return "no significant change";
	}
}

void compare_result_release(struct compare_result *r)
{
	size_t i;

	for (i = 0; i < r->n_warnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	free(r->rows);
	memset(r, 0, sizeof(*r));
}

/* One run's samples at one level, in ms (tokens and seconds for agg). */
struct compare_side {
	double *ttft, *tpot, *e2e, *itl;
	size_t n_ttft, n_tpot, n_e2e, n_itl;
	size_t *itl_start;     /* request i's gaps: itl[itl_start[i] .. itl_start[i+1]) */
	size_t n_itl_req;
	double *tok, *e2e_s;   /* per non-warm-up request, errors included (0 tokens) */
	size_t n_req;
	double agg_tps;        /* from lib/summary.c */
	/* The repeat (replay --repeat) of each sample above, and per repeat
	 * its aggregate tok/s; n_repeats is 1 for a run without repeats. */
	int *ttft_rep, *tpot_rep, *e2e_rep, *itl_rep;   /* itl_rep: per request */
	size_t n_repeats;
	double *rep_agg;
};

static void compare_side_release(struct compare_side *s)
{
	free(s->ttft);
	free(s->tpot);
	free(s->e2e);
	free(s->itl);
	free(s->itl_start);
	free(s->tok);
	free(s->e2e_s);
	free(s->ttft_rep);
	free(s->tpot_rep);
	free(s->e2e_rep);
	free(s->itl_rep);
	free(s->rep_agg);
	memset(s, 0, sizeof(*s));
}

/* Aggregate tok/s of each repeat: its tokens over its own span. */
static int compare_repeat_aggs(struct compare_side *s, const struct result *r, size_t n)
{
	int64_t *first, *last;
	double *tok;
	size_t i, k;
	int rc = -1;

	first = malloc(s->n_repeats * sizeof(*first));
	last = malloc(s->n_repeats * sizeof(*last));
	tok = calloc(s->n_repeats, sizeof(*tok));
	s->rep_agg = malloc(s->n_repeats * sizeof(double));
	if (!first || !last || !tok || !s->rep_agg)
		goto cleanup;
	for (k = 0; k < s->n_repeats; k++) {
		first[k] = INT64_MAX;
		last[k] = INT64_MIN;
	}
	for (i = 0; i < n; i++) {
		if (r[i].warmup)
			continue;
		k = (size_t)r[i].repeat;
		if (r[i].sched_ns < first[k])
			first[k] = r[i].sched_ns;
		if (r[i].sched_ns + r[i].e2e_ns > last[k])
			last[k] = r[i].sched_ns + r[i].e2e_ns;
		if (result_ok(&r[i]))
			tok[k] += (double)r[i].output_tokens;
	}
	for (k = 0; k < s->n_repeats; k++)
		s->rep_agg[k] = last[k] > first[k] ? tok[k] * 1e9 / (double)(last[k] - first[k])
						  : 0;
	rc = 0;
cleanup:
	free(first);
	free(last);
	free(tok);
	return rc;
}

static int compare_side_fill(struct compare_side *s, const struct result *r, size_t n, int level)
{
	struct level_summary sum;
	size_t i, j, gaps = 0;

	memset(s, 0, sizeof(*s));
	s->n_repeats = 1;
	for (i = 0; i < n; i++) {
		gaps += r[i].n_itl;
		if (!r[i].warmup && r[i].repeat >= 0 && (size_t)r[i].repeat + 1 > s->n_repeats)
			s->n_repeats = (size_t)r[i].repeat + 1;
	}
	s->ttft_rep = malloc((n + 1) * sizeof(int));
	s->tpot_rep = malloc((n + 1) * sizeof(int));
	s->e2e_rep = malloc((n + 1) * sizeof(int));
	s->itl_rep = malloc((n + 1) * sizeof(int));
	if (!s->ttft_rep || !s->tpot_rep || !s->e2e_rep || !s->itl_rep)
		return -1;
	s->ttft = malloc((n + 1) * sizeof(double));
	s->tpot = malloc((n + 1) * sizeof(double));
	s->e2e = malloc((n + 1) * sizeof(double));
	s->tok = malloc((n + 1) * sizeof(double));
	s->e2e_s = malloc((n + 1) * sizeof(double));
	s->itl_start = malloc((n + 2) * sizeof(size_t));
	s->itl = malloc((gaps + 1) * sizeof(double));
	if (!s->ttft || !s->tpot || !s->e2e || !s->tok || !s->e2e_s || !s->itl_start || !s->itl)
		return -1;
	for (i = 0; i < n; i++) {
		const struct result *q = &r[i];

		if (q->warmup)
			continue;
		s->tok[s->n_req] = result_ok(q) ? (double)q->output_tokens : 0;
		s->e2e_s[s->n_req++] = (double)q->e2e_ns / 1e9;
		if (!result_ok(q))
			continue;
		s->e2e_rep[s->n_e2e] = q->repeat;
		s->e2e[s->n_e2e++] = (double)q->e2e_ns / 1e6;
		if (q->ttft_ns >= 0) {
			s->ttft_rep[s->n_ttft] = q->repeat;
			s->ttft[s->n_ttft++] = (double)q->ttft_ns / 1e6;
		}
		if (q->ttft_ns >= 0 && q->output_tokens >= 2 && q->e2e_ns > q->ttft_ns) {
			s->tpot_rep[s->n_tpot] = q->repeat;
			s->tpot[s->n_tpot++] = (double)(q->e2e_ns - q->ttft_ns) / 1e6 /
					       (double)(q->output_tokens - 1);
		}
		if (q->n_itl) {
			s->itl_rep[s->n_itl_req] = q->repeat;
			s->itl_start[s->n_itl_req++] = s->n_itl;
			for (j = 0; j < q->n_itl; j++)
				s->itl[s->n_itl++] = (double)q->itl_ns[j] / 1e6;
		}
	}
	s->itl_start[s->n_itl_req] = s->n_itl;
	summary_compute(r, n, level, &sum);
	s->agg_tps = sum.agg_tps;
	return s->n_repeats > 1 ? compare_repeat_aggs(s, r, n) : 0;
}

/*
 * Samples grouped by repeat, for the two-stage bootstrap: each resample
 * draws repeats with replacement, then within each drawn repeat its
 * members with replacement. A member is one value, or (ITL) the gaps of
 * one request, v[mstart[m] .. mstart[m+1]).
 */
struct compare_groups {
	const double *v;
	const size_t *mstart;   /* NULL: member m is v[m] */
	size_t n_members;
	size_t *order;          /* members sorted by repeat (owned) */
	size_t *gstart;         /* repeat g: order[gstart[g] .. gstart[g+1]) (owned) */
	size_t n_groups;
	size_t cap;             /* most values one resample can hold */
};

static void compare_groups_release(struct compare_groups *g)
{
	free(g->order);
	free(g->gstart);
}

/* Groups n members by rep[m] (0 .. n_groups-1). Returns 0 or -1. */
static int compare_groups_init(struct compare_groups *g, const double *v, const size_t *mstart,
			       size_t n, const int *rep, size_t n_groups)
{
	size_t m, k, longest = 1, biggest = 0;

	/* not memset: the analyzer takes a memset of g as one of the whole
	 * array around it and loses what g[0] holds */
	*g = (struct compare_groups){ 0 };
	g->v = v;
	g->mstart = mstart;
	g->n_members = n;
	g->n_groups = n_groups;
	g->order = malloc((n + 1) * sizeof(size_t));
	g->gstart = calloc(n_groups + 2, sizeof(size_t));
	if (!g->order || !g->gstart)
		return -1;
	for (m = 0; m < n; m++)
		g->gstart[(size_t)rep[m] + 2]++;
	for (k = 2; k < n_groups + 2; k++)
		g->gstart[k] += g->gstart[k - 1];
	for (m = 0; m < n; m++)
		g->order[g->gstart[(size_t)rep[m] + 1]++] = m;
	for (k = 0; k < n_groups; k++)
		if (g->gstart[k + 1] - g->gstart[k] > biggest)
			biggest = g->gstart[k + 1] - g->gstart[k];
	for (m = 0; mstart && m < n; m++)
		if (mstart[m + 1] - mstart[m] > longest)
			longest = mstart[m + 1] - mstart[m];
	g->cap = n_groups * biggest * longest;
	return 0;
}

/* One two-stage resample of g into buf; returns the number of values. */
static size_t compare_groups_draw(const struct compare_groups *g, double *buf, struct rng *state)
{
	size_t k, i, size, m, len, n = 0;

	for (k = 0; k < g->n_groups; k++) {
		size_t pick = rng_below(state, g->n_groups);

		size = g->gstart[pick + 1] - g->gstart[pick];
		for (i = 0; i < size; i++) {
			m = g->order[g->gstart[pick] + rng_below(state, size)];
			if (!g->mstart) {
				buf[n++] = g->v[m];
				continue;
			}
			len = g->mstart[m + 1] - g->mstart[m];
			memcpy(buf + n, g->v + g->mstart[m], len * sizeof(double));
			n += len;
		}
	}
	return n;
}

/* Two-stage bootstrap interval of the change of the p-th percentile. */
static int compare_groups_ci(const struct compare_groups *a, const struct compare_groups *b,
			     double p, double level, unsigned resamples, uint64_t seed,
			     double *lo, double *hi)
{
	double *ba = malloc((a->cap + 1) * sizeof(double));
	double *bb = malloc((b->cap + 1) * sizeof(double));
	double *diff = malloc(resamples * sizeof(double));
	struct rng state;
	size_t na, nb;
	unsigned r, used = 0;
	int rc = -1;

	rng_init(&state, seed);
	if (!ba || !bb || !diff)
		goto cleanup;
	for (r = 0; r < resamples; r++) {
		na = compare_groups_draw(a, ba, &state);
		nb = compare_groups_draw(b, bb, &state);
		/* A draw of repeats that all lack the metric has no percentile. */
		if (na && nb)
			diff[used++] = stats_select_percentile(bb, nb, p) -
				       stats_select_percentile(ba, na, p);
	}
	if (!used)
		goto cleanup;
	stats_sort(diff, used);
	*lo = stats_percentile(diff, used, 50.0 * (1.0 - level));
	*hi = stats_percentile(diff, used, 50.0 * (1.0 + level));
	rc = 0;
cleanup:
	free(ba);
	free(bb);
	free(diff);
	return rc;
}

/*
 * Bootstrap interval of the change of the p-th percentile of pooled gaps,
 * resampling whole requests (clusters) rather than single gaps.
 */
static int compare_itl_ci(const struct compare_side *a, const struct compare_side *b, double p,
			  double level, unsigned resamples, uint64_t seed, double *lo, double *hi)
{
	const struct compare_side *side[2] = { a, b };
	size_t cap[2] = { 0, 0 }, i, k, m, len;
	double *buf[2] = { NULL, NULL }, *diff = NULL, v[2];
	struct rng state;
	unsigned r;
	int rc = -1;

	rng_init(&state, seed);
	for (k = 0; k < 2; k++) {
		size_t longest = 0;

		for (i = 0; i < side[k]->n_itl_req; i++) {
			len = side[k]->itl_start[i + 1] - side[k]->itl_start[i];
			if (len > longest)
				longest = len;
		}
		cap[k] = longest * side[k]->n_itl_req;
		buf[k] = malloc((cap[k] + 1) * sizeof(double));
		if (!buf[k])
			goto cleanup;
	}
	diff = malloc(resamples * sizeof(*diff));
	if (!diff)
		goto cleanup;
	for (r = 0; r < resamples; r++) {
		for (k = 0; k < 2; k++) {
			size_t n = 0;

			for (i = 0; i < side[k]->n_itl_req; i++) {
				m = rng_below(&state, side[k]->n_itl_req);
				len = side[k]->itl_start[m + 1] - side[k]->itl_start[m];
				memcpy(buf[k] + n, side[k]->itl + side[k]->itl_start[m],
				       len * sizeof(double));
				n += len;
			}
			v[k] = stats_select_percentile(buf[k], n, p);
		}
		diff[r] = v[1] - v[0];
	}
	stats_sort(diff, resamples);
	*lo = stats_percentile(diff, resamples, 50.0 * (1.0 - level));
	*hi = stats_percentile(diff, resamples, 50.0 * (1.0 + level));
	rc = 0;
cleanup:
	free(buf[0]);
	free(buf[1]);
	free(diff);
	return rc;
}

static double compare_pct(double before, double after)
{
	return before != 0 ? (after - before) / fabs(before) * 100.0 : NAN;
}

/* Median of v (n values; copied, v untouched). */
static double compare_percentile_of(const double *v, size_t n, double p)
{
	double *c = malloc((n + 1) * sizeof(double)), x;

	if (!c || !n) {
		free(c);
		return NAN;
	}
	memcpy(c, v, n * sizeof(double));
	x = stats_select_percentile(c, n, p);
	free(c);
	return x;
}

/* The verdict of a latency row from its intervals (p99_lo/hi NaN: not judged). */
static void compare_latency_verdict(struct compare_row *w)
{
	double worse = 0;
	int slower = 0, faster = 0;

	if (w->lo > 0) {
		slower = 1;
		worse = compare_pct(w->before, w->after);
	}
	if (w->p99_lo > 0) {
		slower = 1;
		if (compare_pct(w->p99_before, w->p99_after) > worse)
			worse = compare_pct(w->p99_before, w->p99_after);
	}
	if (w->hi < 0 || w->p99_hi < 0)
		faster = 1;
	/* A worse tail with a better median is still a regression to report. */
	w->verdict = slower ? COMPARE_SLOWER : faster ? COMPARE_FASTER : COMPARE_SAME;
	w->worse_pct = slower && worse > 0 ? worse : 0;
}

/* Fills a latency row from samples a (before) and b (after). */
static int compare_latency_row(struct compare_row *w, const double *a, size_t na,
			       const double *b, size_t nb, unsigned resamples, uint64_t seed)
{
	double level;
	int tail;

	w->n_before = na;
	w->n_after = nb;
	w->before = compare_percentile_of(a, na, 50);
	w->after = compare_percentile_of(b, nb, 50);
	w->p99_before = compare_percentile_of(a, na, 99);
	w->p99_after = compare_percentile_of(b, nb, 99);
	w->lo = w->hi = w->p99_lo = w->p99_hi = NAN;
	if (na < COMPARE_MIN_SAMPLES || nb < COMPARE_MIN_SAMPLES) {
		w->verdict = COMPARE_NA;
		return 0;
	}
	tail = na >= COMPARE_MIN_TAIL_SAMPLES && nb >= COMPARE_MIN_TAIL_SAMPLES;
	level = tail ? COMPARE_LEVEL_EACH : COMPARE_LEVEL_ONE;
	if (stats_bootstrap_diff(a, na, b, nb, 50, level, resamples, seed, &w->lo, &w->hi) ||
	    (tail && stats_bootstrap_diff(a, na, b, nb, 99, level, resamples, seed + 1,
					  &w->p99_lo, &w->p99_hi)))
		return -1;
	compare_latency_verdict(w);
	return 0;
}

static int compare_itl_row(struct compare_row *w, const struct compare_side *a,
			   const struct compare_side *b, unsigned resamples, uint64_t seed)
{
	double level;
	int tail;

	double total = (double)(a->n_itl + b->n_itl);

	w->n_before = a->n_itl;
	w->n_after = b->n_itl;
	w->before = compare_percentile_of(a->itl, a->n_itl, 50);
	w->after = compare_percentile_of(b->itl, b->n_itl, 50);
	w->p99_before = compare_percentile_of(a->itl, a->n_itl, 99);
	w->p99_after = compare_percentile_of(b->itl, b->n_itl, 99);
	w->lo = w->hi = w->p99_lo = w->p99_hi = NAN;
	if (a->n_itl_req < COMPARE_MIN_SAMPLES || b->n_itl_req < COMPARE_MIN_SAMPLES) {
		w->verdict = COMPARE_NA;
		return 0;
	}
	if (total * resamples > COMPARE_ITL_BUDGET)
		resamples = (unsigned)(COMPARE_ITL_BUDGET / total) < 200 ? 200
			    : (unsigned)(COMPARE_ITL_BUDGET / total);
	tail = a->n_itl >= COMPARE_MIN_TAIL_SAMPLES && b->n_itl >= COMPARE_MIN_TAIL_SAMPLES;
	level = tail ? COMPARE_LEVEL_EACH : COMPARE_LEVEL_ONE;
	if (compare_itl_ci(a, b, 50, level, resamples, seed, &w->lo, &w->hi) ||
	    (tail && compare_itl_ci(a, b, 99, level, resamples, seed + 1, &w->p99_lo,
				    &w->p99_hi)))
		return -1;
	compare_latency_verdict(w);
	return 0;
}

static int compare_agg_row(struct compare_row *w, int level, const struct compare_side *a,
			   const struct compare_side *b, unsigned resamples, uint64_t seed)
{
	double lo, hi;

	w->higher_is_better = 1;
	w->n_before = a->n_req;
	w->n_after = b->n_req;
	w->before = a->agg_tps;
	w->after = b->agg_tps;
	w->lo = w->hi = w->p99_lo = w->p99_hi = NAN;
	w->p99_before = w->p99_after = NAN;
	if (level < 1 || a->n_req < COMPARE_MIN_SAMPLES || b->n_req < COMPARE_MIN_SAMPLES) {
		w->verdict = COMPARE_NA;
		return 0;
	}
	if (stats_bootstrap_ratio_diff(a->tok, a->e2e_s, a->n_req, b->tok, b->e2e_s, b->n_req,
				       COMPARE_LEVEL_ONE, resamples, seed, &lo, &hi))
		return -1;
	/* C * tokens / E2E-seconds: the interval of the Little's-law throughput. */
	w->lo = lo * level;
	w->hi = hi * level;
	if (w->lo > 0)
		w->verdict = COMPARE_FASTER;
	else if (w->hi < 0)
		w->verdict = COMPARE_SLOWER;
	else
		w->verdict = COMPARE_SAME;
	w->worse_pct = w->verdict == COMPARE_SLOWER && compare_pct(w->before, w->after) < 0
		       ? -compare_pct(w->before, w->after) : 0;
	return 0;
}

/*
 * A latency row from two runs with repeats: the two-stage bootstrap, so
 * that the run-to-run spread between repeats counts as noise too. nva and
 * nvb are the numbers of values (all of ga->v, gb->v).
 */
static int compare_grouped_row(struct compare_row *w, const struct compare_groups *ga,
			       size_t nva, const struct compare_groups *gb, size_t nvb,
			       unsigned resamples, uint64_t seed)
{
	int tail = nva >= COMPARE_MIN_TAIL_SAMPLES && nvb >= COMPARE_MIN_TAIL_SAMPLES;
	double level = tail ? COMPARE_LEVEL_EACH : COMPARE_LEVEL_ONE;

	w->n_before = nva;
	w->n_after = nvb;
	w->before = compare_percentile_of(ga->v, nva, 50);
	w->after = compare_percentile_of(gb->v, nvb, 50);
	w->p99_before = compare_percentile_of(ga->v, nva, 99);
	w->p99_after = compare_percentile_of(gb->v, nvb, 99);
	w->lo = w->hi = w->p99_lo = w->p99_hi = NAN;
	if (ga->n_members < COMPARE_MIN_SAMPLES || gb->n_members < COMPARE_MIN_SAMPLES) {
		w->verdict = COMPARE_NA;
		return 0;
	}
	if (compare_groups_ci(ga, gb, 50, level, resamples, seed, &w->lo, &w->hi) ||
	    (tail && compare_groups_ci(ga, gb, 99, level, resamples, seed + 1, &w->p99_lo,
				       &w->p99_hi)))
		return -1;
	compare_latency_verdict(w);
	return 0;
}

/*
 * Aggregate tok/s from runs with repeats: Welch's interval of the change of
 * the mean of the repeats' own values. (Bootstrapping three or four values
 * gives intervals too narrow: 4 false alarms in 40 in the tests.)
 */
static int compare_agg_repeats(struct compare_row *w, const struct compare_side *a,
			       const struct compare_side *b)
{
	if (stats_welch_ci95(a->rep_agg, a->n_repeats, b->rep_agg, b->n_repeats,
			     &w->lo, &w->hi))
		return -1;
	w->verdict = w->lo > 0 ? COMPARE_FASTER : w->hi < 0 ? COMPARE_SLOWER : COMPARE_SAME;
	w->worse_pct = w->verdict == COMPARE_SLOWER && compare_pct(w->before, w->after) < 0
		       ? -compare_pct(w->before, w->after) : 0;
	return 0;
}

/* The five rows of one level from runs that both have repeats. */
static int compare_level_repeats(struct compare_row *w, const struct compare_side *a,
				 const struct compare_side *b, unsigned resamples, uint64_t seed)
{
	struct compare_groups g[8];
	int rc = -1;

	memset(g, 0, sizeof(g));
	if (compare_groups_init(&g[0], a->ttft, NULL, a->n_ttft, a->ttft_rep, a->n_repeats) ||
	    compare_groups_init(&g[1], b->ttft, NULL, b->n_ttft, b->ttft_rep, b->n_repeats) ||
	    compare_groups_init(&g[2], a->tpot, NULL, a->n_tpot, a->tpot_rep, a->n_repeats) ||
	    compare_groups_init(&g[3], b->tpot, NULL, b->n_tpot, b->tpot_rep, b->n_repeats) ||
	    compare_groups_init(&g[4], a->itl, a->itl_start, a->n_itl_req, a->itl_rep,
				a->n_repeats) ||
	    compare_groups_init(&g[5], b->itl, b->itl_start, b->n_itl_req, b->itl_rep,
				b->n_repeats) ||
	    compare_groups_init(&g[6], a->e2e, NULL, a->n_e2e, a->e2e_rep, a->n_repeats) ||
	    compare_groups_init(&g[7], b->e2e, NULL, b->n_e2e, b->e2e_rep, b->n_repeats))
		goto cleanup;
	if (compare_grouped_row(&w[0], &g[0], a->n_ttft, &g[1], b->n_ttft, resamples, seed) ||
	    compare_grouped_row(&w[1], &g[2], a->n_tpot, &g[3], b->n_tpot, resamples,
				seed + 10) ||
	    compare_grouped_row(&w[2], &g[4], a->n_itl, &g[5], b->n_itl, resamples, seed + 20) ||
	    compare_grouped_row(&w[3], &g[6], a->n_e2e, &g[7], b->n_e2e, resamples, seed + 30))
		goto cleanup;
	w[4].higher_is_better = 1;
	w[4].n_before = a->n_repeats;
	w[4].n_after = b->n_repeats;
	w[4].before = a->agg_tps;
	w[4].after = b->agg_tps;
	w[4].p99_before = w[4].p99_after = w[4].p99_lo = w[4].p99_hi = NAN;
	rc = compare_agg_repeats(&w[4], a, b);
cleanup:
	for (size_t i = 0; i < 8; i++)
		compare_groups_release(&g[i]);
	return rc;
}

static int compare_add_warning(struct compare_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int compare_add_warning(struct compare_result *r, const char *fmt, ...)
{
	char buf[2048], **w;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	w = realloc(r->warnings, (r->n_warnings + 1) * sizeof(*w));
	if (!w)
		return -1;
	r->warnings = w;
	if (!(w[r->n_warnings] = strdup(buf)))
		return -1;
	r->n_warnings++;
	return 0;
}

static int compare_str_differ(const char *a, const char *b)
{
	if (!a || !b)
		return a != b;
	return strcmp(a, b) != 0;
}

static int compare_warnings(struct compare_result *r, const struct db_run *a,
			    const struct db_run *b)
{
	if (compare_str_differ(a->trace_digest, b->trace_digest) &&
	    compare_add_warning(r, "the runs replayed different traces (%s vs %s); the "
				"comparison may not be fair",
				a->trace_digest ? a->trace_digest : "unknown",
				b->trace_digest ? b->trace_digest : "unknown"))
		return -1;
	if (compare_str_differ(a->params, b->params) &&
	    compare_add_warning(r, "the runs used different parameters (%s vs %s)",
				a->params ? a->params : "none", b->params ? b->params : "none"))
		return -1;
	return 0;
}

/* Compares one level; appends its five rows to out->rows (room reserved). */
static int compare_level(struct db *db, const char *before, const char *after, int level,
			 unsigned resamples, uint64_t seed, struct compare_result *out,
			 char *err, size_t errlen)
{
	struct result *ra = NULL, *rb = NULL;
	struct compare_side a, b;
	struct compare_row *w = &out->rows[out->n_rows];
	size_t na = 0, nb = 0;
	int rc;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	rc = db_results(db, before, level, &ra, &na, err, errlen);
	if (!rc)
		rc = db_results(db, after, level, &rb, &nb, err, errlen);
	if (rc)
		goto cleanup;
	if (compare_side_fill(&a, ra, na, level) || compare_side_fill(&b, rb, nb, level))
		goto nomem;
	memset(w, 0, 5 * sizeof(*w));
	w[0].metric = "TTFT";
	w[1].metric = "TPOT";
	w[2].metric = "ITL";
	w[3].metric = "E2E";
	w[4].metric = "Agg tok/s";
	for (size_t i = 0; i < 5; i++)
		w[i].level = level;
	if (a.n_repeats > 1 && b.n_repeats > 1) {
		if (compare_level_repeats(w, &a, &b, resamples, seed))
			goto nomem;
		out->n_rows += 5;
		goto cleanup;
	}
	if (compare_latency_row(&w[0], a.ttft, a.n_ttft, b.ttft, b.n_ttft, resamples, seed) ||
	    compare_latency_row(&w[1], a.tpot, a.n_tpot, b.tpot, b.n_tpot, resamples, seed + 10) ||
	    compare_itl_row(&w[2], &a, &b, resamples, seed + 20) ||
	    compare_latency_row(&w[3], a.e2e, a.n_e2e, b.e2e, b.n_e2e, resamples, seed + 30) ||
	    compare_agg_row(&w[4], level, &a, &b, resamples, seed + 40))
		goto nomem;
	out->n_rows += 5;
	goto cleanup;
nomem:
	errmsg_set(err, errlen, "comparing '%s' and '%s' at C=%d: out of memory",
		       before, after, level);
	rc = DB_ERR_WORK;
cleanup:
	compare_side_release(&a);
	compare_side_release(&b);
	db_results_free(ra, na);
	db_results_free(rb, nb);
	return rc;
}

int compare_runs(struct db *db, const char *before, const char *after, unsigned resamples,
		 uint64_t seed, struct compare_result *out, char *err, size_t errlen)
{
	struct compare_result r = { NULL, 0, NULL, 0 };
	struct db_run *ra = NULL, *rb = NULL;
	int *la = NULL, *lb = NULL;
	size_t nra = 0, nrb = 0, nla = 0, nlb = 0, i, j, common = 0;
	int rc;

	rc = db_runs(db, before, &ra, &nra, err, errlen);
	if (!rc)
		rc = db_runs(db, after, &rb, &nrb, err, errlen);
	if (!rc)
		rc = db_levels(db, before, &la, &nla, err, errlen);
	if (!rc)
		rc = db_levels(db, after, &lb, &nlb, err, errlen);
	if (rc)
		goto cleanup;
	if (compare_warnings(&r, &ra[0], &rb[0]))
		goto nomem;
	r.rows = calloc(5 * (nla < nlb ? nla : nlb) + 1, sizeof(*r.rows));
	if (!r.rows)
		goto nomem;
	for (i = 0, j = 0; i < nla && j < nlb;) {
		if (la[i] < lb[j]) {
			i++;
		} else if (la[i] > lb[j]) {
			j++;
		} else {
			rc = compare_level(db, before, after, la[i], resamples,
					   seed + (uint64_t)la[i] * 1000, &r, err, errlen);
			if (rc)
				goto cleanup;
			common++;
			i++;
			j++;
		}
	}
	if (!common) {
		errmsg_set(err, errlen, "runs '%s' and '%s' have no concurrency level in "
			       "common", before, after);
		rc = DB_ERR_INPUT;
		goto cleanup;
	}
	*out = r;
	memset(&r, 0, sizeof(r));
	goto cleanup;
nomem:
	errmsg_set(err, errlen, "comparing '%s' and '%s': out of memory", before, after);
	rc = DB_ERR_WORK;
cleanup:
	compare_result_release(&r);
	db_runs_free(ra, nra);
	db_runs_free(rb, nrb);
	free(la);
	free(lb);
	return rc;
}

double compare_worst_regression(const struct compare_result *r)
{
	double worst = 0;
	size_t i;

	for (i = 0; i < r->n_rows; i++)
		if (r->rows[i].worse_pct > worst)
			worst = r->rows[i].worse_pct;
	return worst;
}

/* A table cell: "-" for NaN. */
static const char *compare_num(char *buf, size_t len, double v, int decimals, int sign)
{
	if (isnan(v) || isinf(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, sign ? "%+.*f" : "%.*f", decimals, v);
	return buf;
}

static void compare_put_num(FILE *out, double v, const char *missing)
{
	if (isnan(v) || isinf(v))
		fputs(missing, out);
	else
		fprintf(out, "%.3f", v);
}

static void compare_put_text(FILE *out, const char *s, int json)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (json && (c == '"' || c == '\\'))
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fputc(' ', out);
		else
			fputc(c, out);
	}
}

static void compare_put_csv(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static const char compare_legend[] =
	"Before/After: median (P50) in ms; aggregate tok/s for throughput. Verdicts "
	"from a seeded bootstrap (2000 resamples): a latency metric changed when the "
	"95% interval of the change of its median excludes 0 or, with at least 200 "
	"samples a side, the 97.5% interval of the change of its median or of its "
	"P99 does (95% per metric); ITL resamples whole requests; Agg tok/s by the "
	"95% interval of C x tokens / E2E over resampled requests. When both runs "
	"have repeats (replay --repeat), each resample draws repeats, then requests "
	"within them, and Agg tok/s takes Welch's 95% interval over the repeats' own "
	"values.\n";

void compare_print(FILE *out, enum summary_format fmt, const char *before, const char *after,
		   const struct compare_result *r)
{
	static const char *const heads[] = {
		"C", "Metric", "Before", "After", "Change", "Change %", "P99 before",
		"P99 after", "P99 change %", "Verdict",
	};
	static const int widths[] = { 4, 9, 10, 10, 10, 9, 10, 10, 12, 0 };
	char cell[10][64];
	size_t i, c;

	if (fmt == SUMMARY_TEXT || fmt == SUMMARY_MARKDOWN) {
		fputs(fmt == SUMMARY_MARKDOWN ? "### compare " : "compare ", out);
		fputc('\'', out);
		compare_put_text(out, before, 0);
		fputs("' (before) with '", out);
		compare_put_text(out, after, 0);
		fputs("' (after)\n\n", out);
		for (i = 0; i < r->n_warnings; i++)
			fprintf(out, "warning: %s\n%s", r->warnings[i],
				fmt == SUMMARY_MARKDOWN ? "\n" : "");
		if (r->n_warnings && fmt == SUMMARY_TEXT)
			fputc('\n', out);
		for (c = 0; c < 10; c++) {
			if (fmt == SUMMARY_TEXT)
				fprintf(out, c ? " %*s" : "%*s", widths[c], heads[c]);
			else
				fprintf(out, "| %s ", heads[c]);
		}
		fputs(fmt == SUMMARY_TEXT ? "\n"
		      : "|\n|--:|:--|--:|--:|--:|--:|--:|--:|--:|:--|\n", out);
		for (i = 0; i < r->n_rows; i++) {
			const struct compare_row *w = &r->rows[i];
			const int d = 1;   /* decimals: ms and tok/s alike */

			if (w->level == 0)
				snprintf(cell[0], 64, "open");
			else
				snprintf(cell[0], 64, "%d", w->level);
			snprintf(cell[1], 64, "%s", w->metric);
			compare_num(cell[2], 64, w->before, d, 0);
			compare_num(cell[3], 64, w->after, d, 0);
			compare_num(cell[4], 64, w->after - w->before, d, 1);
			compare_num(cell[5], 64, compare_pct(w->before, w->after), 1, 1);
			compare_num(cell[6], 64, w->p99_before, d, 0);
			compare_num(cell[7], 64, w->p99_after, d, 0);
			compare_num(cell[8], 64, compare_pct(w->p99_before, w->p99_after), 1, 1);
			snprintf(cell[9], 64, "%s", compare_verdict_name(w->verdict));
			for (c = 0; c < 10; c++) {
				if (fmt == SUMMARY_TEXT)
					fprintf(out, c ? " %*s" : "%*s", widths[c], cell[c]);
				else
					fprintf(out, "| %s ", cell[c]);
			}
			fputs(fmt == SUMMARY_TEXT ? "\n" : "|\n", out);
		}
		fputs(fmt == SUMMARY_MARKDOWN ? "\n" : "", out);
		fputs(compare_legend, out);
		return;
	}
	if (fmt == SUMMARY_CSV) {
		fputs("before,after,concurrency,metric,n_before,n_after,before_value,after_value,"
		      "change,change_pct,ci_lo,ci_hi,p99_before,p99_after,p99_change_pct,"
		      "p99_ci_lo,p99_ci_hi,verdict\n", out);
	} else {
		fputs("{\"before\": \"", out);
		compare_put_text(out, before, 1);
		fputs("\", \"after\": \"", out);
		compare_put_text(out, after, 1);
		fputs("\", \"warnings\": [", out);
		for (i = 0; i < r->n_warnings; i++) {
			fputs(i ? ", \"" : "\"", out);
			compare_put_text(out, r->warnings[i], 1);
			fputc('"', out);
		}
		fputs("], \"rows\": [", out);
	}
	for (i = 0; i < r->n_rows; i++) {
		const struct compare_row *w = &r->rows[i];
		const double v[] = {
			w->before, w->after, w->after - w->before, compare_pct(w->before, w->after),
			w->lo, w->hi, w->p99_before, w->p99_after,
			compare_pct(w->p99_before, w->p99_after), w->p99_lo, w->p99_hi,
		};
		static const char *const keys[] = {
			"before_value", "after_value", "change", "change_pct", "ci_lo", "ci_hi",
			"p99_before", "p99_after", "p99_change_pct", "p99_ci_lo", "p99_ci_hi",
		};

		if (fmt == SUMMARY_CSV) {
			compare_put_csv(out, before);
			fputc(',', out);
			compare_put_csv(out, after);
			fprintf(out, ",%d,%s,%zu,%zu", w->level, w->metric, w->n_before, w->n_after);
			for (c = 0; c < sizeof(v) / sizeof(v[0]); c++) {
				fputc(',', out);
				compare_put_num(out, v[c], "");
			}
			fprintf(out, ",%s\n", compare_verdict_name(w->verdict));
		} else {
			fprintf(out, "%s\n  {\"concurrency\": %d, \"metric\": \"%s\", "
				"\"n_before\": %zu, \"n_after\": %zu", i ? "," : "", w->level,
				w->metric, w->n_before, w->n_after);
			for (c = 0; c < sizeof(v) / sizeof(v[0]); c++) {
				fprintf(out, ", \"%s\": ", keys[c]);
				compare_put_num(out, v[c], "null");
			}
			fprintf(out, ", \"verdict\": \"%s\"}", compare_verdict_name(w->verdict));
		}
	}
	if (fmt == SUMMARY_JSON)
		fputs("\n]}\n", out);
}
