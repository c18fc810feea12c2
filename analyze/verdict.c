/*
 * verdict.c - intervals and verdicts of `analyze compare`; see verdict.h
 * for the method. Everything here works on arrays the caller owns; the
 * only state is the seeded generator of each call.
 */
#include "analyze/verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/random.h"
#include "lib/stats.h"

/* Caps resamples x values drawn, for ITL, whose gaps can number millions. */
#define VERDICT_VALUE_BUDGET 400000000.0
/* A bootstrap needs at least this many resamples, whatever the budget. */
#define VERDICT_MIN_RESAMPLES 200

const char *verdict_outcome_name(enum verdict_outcome v)
{
	switch (v) {
	case VERDICT_SAME: return "same";
	case VERDICT_FASTER: return "faster";
	case VERDICT_SLOWER: return "slower";
	case VERDICT_INCONCLUSIVE: return "inconclusive";
	default: return "n/a";
	}
}

const char *verdict_noise_name(enum verdict_noise n)
{
	switch (n) {
	case VERDICT_NOISE_BLOCKS: return "blocks";
	case VERDICT_NOISE_HISTORY: return "history";
	case VERDICT_NOISE_GIVEN: return "given";
	default: return "none";
	}
}

enum verdict_outcome verdict_classify(double lo, double hi, double min_effect,
				      int higher_is_better)
{
	if (isnan(lo) || isnan(hi) || isnan(min_effect))
		return VERDICT_NA;
	if (lo >= -min_effect && hi <= min_effect)
		return VERDICT_SAME;
	if (lo > min_effect)
		return higher_is_better ? VERDICT_FASTER : VERDICT_SLOWER;
	if (hi < -min_effect)
		return higher_is_better ? VERDICT_SLOWER : VERDICT_FASTER;
	return VERDICT_INCONCLUSIVE;
}

/*
 * The fewest requests a side for judging the p-th percentile (0 < p < 100):
 * VERDICT_MIN_REQUESTS, or enough that two lie beyond it (P90 20, P95 40,
 * P99 200).
 */
static size_t verdict_needed(double p)
{
	size_t tail;

	if (p <= 50)
		return VERDICT_MIN_REQUESTS;
	tail = (size_t)ceil(2.0 / (1.0 - p / 100.0) - 1e-9);
	return tail > VERDICT_MIN_REQUESTS ? tail : VERDICT_MIN_REQUESTS;
}

/*
 * A side's requests grouped by repeat, for drawing: group g holds
 * order[gstart[g] .. gstart[g+1]). Repeats without requests are left out,
 * so that every drawn group adds values.
 */
struct verdict_groups {
	size_t *order;
	size_t *gstart;
	size_t n_groups;
	size_t biggest;         /* requests in the largest group */
};

static void verdict_groups_release(struct verdict_groups *g)
{
	free(g->order);
	free(g->gstart);
}

static int verdict_groups_init(struct verdict_groups *g, const int *repeat, size_t n,
			       size_t n_repeats)
{
	size_t *count = NULL, i, k;
	int rc = -1;

	*g = (struct verdict_groups){ 0 };
	if (n_repeats < 1)
		n_repeats = 1;
	count = calloc(n_repeats + 1, sizeof(*count));
	g->order = malloc((n + 1) * sizeof(*g->order));
	g->gstart = calloc(n_repeats + 2, sizeof(*g->gstart));
	if (!count || !g->order || !g->gstart)
		goto cleanup;
	for (i = 0; i < n; i++)
		count[repeat ? (size_t)repeat[i] : 0]++;
	/* Non-empty repeats become groups 0 .. n_groups-1; count[k] turns
	 * into the next free slot of repeat k's group. */
	for (k = 0; k < n_repeats; k++) {
		size_t c = count[k];

		if (!c)
			continue;
		g->gstart[g->n_groups + 1] = g->gstart[g->n_groups] + c;
		count[k] = g->gstart[g->n_groups];
		if (c > g->biggest)
			g->biggest = c;
		g->n_groups++;
	}
	for (i = 0; i < n; i++)
		g->order[count[repeat ? (size_t)repeat[i] : 0]++] = i;
	rc = 0;
cleanup:
	free(count);
	return rc;
}

/* One two-stage draw of request indices into idx; returns how many. */
static size_t verdict_draw(const struct verdict_groups *g, size_t *idx, struct rng *state)
{
	size_t k, i, n = 0;

	for (k = 0; k < g->n_groups; k++) {
		size_t pick = rng_below(state, g->n_groups);
		size_t from = g->gstart[pick], size = g->gstart[pick + 1] - from;

		for (i = 0; i < size; i++)
			idx[n++] = g->order[from + rng_below(state, size)];
	}
	return n;
}

static size_t verdict_values(const struct verdict_side *s)
{
	return s->start ? s->start[s->n] : s->n;
}

struct verdict_value {
	double v;
	size_t req;
};

static int verdict_value_cmp(const void *x, const void *y)
{
	double a = ((const struct verdict_value *)x)->v, b = ((const struct verdict_value *)y)->v;

	return (a > b) - (a < b);
}

int verdict_sorted_init(struct verdict_sorted *o, const struct verdict_side *s)
{
	struct verdict_value *pair;
	size_t i, j, k = 0;

	*o = (struct verdict_sorted){ 0 };
	o->n = verdict_values(s);
	pair = malloc((o->n + 1) * sizeof(*pair));
	o->v = malloc((o->n + 1) * sizeof(*o->v));
	o->req = malloc((o->n + 1) * sizeof(*o->req));
	if (!pair || !o->v || !o->req) {
		free(pair);
		verdict_sorted_release(o);
		return -1;
	}
	for (i = 0; i < s->n; i++)
		for (j = s->start ? s->start[i] : i; j < (s->start ? s->start[i + 1] : i + 1); j++)
			pair[k++] = (struct verdict_value){ s->v[j], i };
	qsort(pair, k, sizeof(*pair), verdict_value_cmp);
	for (i = 0; i < k; i++) {
		o->v[i] = pair[i].v;
		o->req[i] = pair[i].req;
	}
	free(pair);
	return 0;
}

void verdict_sorted_release(struct verdict_sorted *o)
{
	free(o->v);
	free(o->req);
	*o = (struct verdict_sorted){ 0 };
}

/*
 * The p-th percentile of the resample of s made of requests idx[0 .. n)
 * (NaN when they have no values): each request's count of draws into
 * drawn (s->n of them), and the sorted values walked with those weights.
 */
static double verdict_resample_percentile(const struct verdict_side *s,
					  const struct verdict_sorted *sorted, unsigned *drawn,
					  const size_t *idx, size_t n, double p)
{
	size_t i, values = 0;

	memset(drawn, 0, (s->n + 1) * sizeof(*drawn));
	for (i = 0; i < n; i++) {
		drawn[idx[i]]++;
		values += s->start ? s->start[idx[i] + 1] - s->start[idx[i]] : 1;
	}
	return stats_percentile_weighted(sorted->v, sorted->req, drawn, sorted->n, values, p);
}

/* The p-th percentile of all of s's values (NaN when none). */
static double verdict_pooled(const struct verdict_side *s, double p)
{
	size_t n = verdict_values(s);
	double *c, x;

	if (!n)
		return NAN;
	c = malloc(n * sizeof(*c));
	if (!c)
		return NAN;
	memcpy(c, s->v + (s->start ? s->start[0] : 0), n * sizeof(*c));
	x = stats_select_percentile(c, n, p);
	free(c);
	return x;
}

/* Requests of s that have at least one value. */
static size_t verdict_requests(const struct verdict_side *s)
{
	size_t i, n = 0;

	if (!s->start)
		return s->n;
	for (i = 0; i < s->n; i++)
		n += s->start[i + 1] > s->start[i];
	return n;
}

static double verdict_pct(double before, double after)
{
	return before > 0 && !isnan(after) ? (after - before) / before * 100.0 : NAN;
}

/* Sets *lo, *hi to the two-sided 'level' quantiles of d[0 .. n) (sorted here). */
static void verdict_quantiles(double *d, size_t n, double level, double *lo, double *hi)
{
	stats_sort(d, n);
	*lo = stats_percentile(d, n, 50.0 * (1.0 - level));
	*hi = stats_percentile(d, n, 50.0 * (1.0 + level));
}

/*
 * The bootstrap interval of the change of the p-th percentile, in percent.
 * A resample is a draw of requests; its percentile is read off each side's
 * values sorted once (verdict_resample_percentile), the value a select over
 * the resample's values written out would give, at a fraction of the cost.
 */
static int verdict_percentile_ci(const struct verdict_side *a, const struct verdict_side *b,
				 int paired, double p, const struct verdict_opts *o,
				 double *lo, double *hi)
{
	struct verdict_groups ga = { 0 }, gb = { 0 };
	struct verdict_sorted own[2] = { { 0 }, { 0 } };
	const struct verdict_sorted *sa = a->sorted, *sb = b->sorted;
	size_t *ia = NULL, *ib = NULL, ka, kb;
	unsigned *drawn_a = NULL, *drawn_b = NULL;
	double *d = NULL, pa, pb;
	struct rng state;
	unsigned r, used = 0, resamples = o->resamples;
	double per;
	int rc = -1;

	rng_init(&state, o->seed);
	if (verdict_groups_init(&ga, a->repeat, a->n, a->n_repeats) ||
	    verdict_groups_init(&gb, b->repeat, b->n, b->n_repeats))
		goto cleanup;
	if ((!sa && verdict_sorted_init(&own[0], a)) || (!sb && verdict_sorted_init(&own[1], b)))
		goto cleanup;
	sa = sa ? sa : &own[0];
	sb = sb ? sb : &own[1];
	ia = malloc((ga.n_groups * ga.biggest + 1) * sizeof(*ia));
	ib = malloc((gb.n_groups * gb.biggest + 1) * sizeof(*ib));
	drawn_a = malloc((a->n + 1) * sizeof(*drawn_a));
	drawn_b = malloc((b->n + 1) * sizeof(*drawn_b));
	per = (double)(verdict_values(a) + verdict_values(b));
	if (per * resamples > VERDICT_VALUE_BUDGET)
		resamples = (unsigned)(VERDICT_VALUE_BUDGET / per) < VERDICT_MIN_RESAMPLES
			    ? VERDICT_MIN_RESAMPLES : (unsigned)(VERDICT_VALUE_BUDGET / per);
	d = malloc((resamples + 1) * sizeof(*d));
	if (!ia || !ib || !drawn_a || !drawn_b || !d)
		goto cleanup;
	for (r = 0; r < resamples; r++) {
		ka = verdict_draw(&ga, ia, &state);
		if (paired) {
			memcpy(ib, ia, ka * sizeof(*ia));
			kb = ka;
		} else {
			kb = verdict_draw(&gb, ib, &state);
		}
		pa = verdict_resample_percentile(a, sa, drawn_a, ia, ka, p);
		pb = verdict_resample_percentile(b, sb, drawn_b, ib, kb, p);
		/* ITL: a draw of requests that all lack gaps has no percentile */
		if (isnan(pa) || isnan(pb))
			continue;
		if (pa > 0)
			d[used++] = (pb - pa) / pa * 100.0;
	}
	*lo = *hi = NAN;
	if (used >= resamples / 2 && used > 0)
		verdict_quantiles(d, used, o->level, lo, hi);
	rc = 0;
cleanup:
	verdict_groups_release(&ga);
	verdict_groups_release(&gb);
	verdict_sorted_release(&own[0]);
	verdict_sorted_release(&own[1]);
	free(ia);
	free(ib);
	free(drawn_a);
	free(drawn_b);
	free(d);
	return rc;
}

int verdict_percentile(const struct verdict_side *a, const struct verdict_side *b, int paired,
		       double p, const struct verdict_opts *o, struct verdict *out)
{
	struct verdict w = { 0 };

	w.before = verdict_pooled(a, p);
	w.after = verdict_pooled(b, p);
	w.change_pct = verdict_pct(w.before, w.after);
	w.lo = w.hi = NAN;
	w.outcome = VERDICT_NA;
	w.n_before = verdict_requests(a);
	w.n_after = verdict_requests(b);
	w.needed = verdict_needed(p);
	paired = paired && a->n == b->n;
	w.paired = paired;
	if (w.n_before >= verdict_needed(p) && w.n_after >= verdict_needed(p) &&
	    !isnan(w.change_pct)) {
		if (verdict_percentile_ci(a, b, paired, p, o, &w.lo, &w.hi))
			return -1;
		w.outcome = verdict_classify(w.lo, w.hi, o->min_effect, 0);
	}
	*out = w;
	return 0;
}

/* sum(tok) / sum(e2e) of requests idx[0 .. n) of s; NaN without time. */
static double verdict_ratio(const struct verdict_rate_side *s, const size_t *idx, size_t n)
{
	double tok = 0, e2e = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		tok += s->tok[idx ? idx[i] : i];
		e2e += s->e2e[idx ? idx[i] : i];
	}
	return e2e > 0 ? tok / e2e : NAN;
}

static double verdict_shown_rate(const struct verdict_rate_side *s)
{
	double tok = 0, wall = 0;
	size_t k;

	for (k = 0; k < s->n_repeats; k++) {
		tok += s->rep_tok[k];
		wall += s->rep_wall[k];
	}
	return wall > 0 ? tok / wall : NAN;
}

/* Welch's interval over the repeats' rates, as a change in percent centred on w's. */
static int verdict_rate_repeats(const struct verdict_rate_side *a,
				const struct verdict_rate_side *b, struct verdict *w)
{
	double *x[2] = { NULL, NULL }, lo, hi, ma, mb;
	const struct verdict_rate_side *s[2] = { a, b };
	size_t k, i;
	int rc = -1;

	for (i = 0; i < 2; i++) {
		x[i] = malloc(s[i]->n_repeats * sizeof(double));
		if (!x[i])
			goto cleanup;
		for (k = 0; k < s[i]->n_repeats; k++)
			x[i][k] = s[i]->rep_wall[k] > 0 ? s[i]->rep_tok[k] / s[i]->rep_wall[k] : 0;
	}
	rc = 0;
	ma = stats_mean(x[0], a->n_repeats);
	mb = stats_mean(x[1], b->n_repeats);
	if (!(ma > 0) || stats_welch_ci95(x[0], a->n_repeats, x[1], b->n_repeats, &lo, &hi))
		goto cleanup;
	/* The interval's half-widths, relative to the mean before, around
	 * the change of the number shown (sum of tokens / sum of walls). */
	w->lo = w->change_pct + (lo - (mb - ma)) / ma * 100.0;
	w->hi = w->change_pct + (hi - (mb - ma)) / ma * 100.0;
cleanup:
	free(x[0]);
	free(x[1]);
	return rc;
}

/* The request bootstrap of a rate: see verdict_rate. */
static int verdict_rate_requests(const struct verdict_rate_side *a,
				 const struct verdict_rate_side *b, int paired,
				 const struct verdict_opts *o, struct verdict *w)
{
	struct verdict_groups ga = { 0 }, gb = { 0 };
	size_t *ia = NULL, *ib = NULL, ka, kb;
	double *d = NULL, ra, rb, base = w->after / w->before;
	double full_a = verdict_ratio(a, NULL, a->n), full_b = verdict_ratio(b, NULL, b->n);
	struct rng state;
	unsigned r, used = 0;
	int rc = -1;

	rng_init(&state, o->seed);
	if (verdict_groups_init(&ga, a->repeat, a->n, a->n_repeats) ||
	    verdict_groups_init(&gb, b->repeat, b->n, b->n_repeats))
		goto cleanup;
	ia = malloc((ga.n_groups * ga.biggest + 1) * sizeof(*ia));
	ib = malloc((gb.n_groups * gb.biggest + 1) * sizeof(*ib));
	d = malloc((o->resamples + 1) * sizeof(*d));
	if (!ia || !ib || !d)
		goto cleanup;
	rc = 0;
	if (!(full_a > 0) || !(full_b > 0))
		goto cleanup;
	for (r = 0; r < o->resamples; r++) {
		ka = verdict_draw(&ga, ia, &state);
		if (paired) {
			memcpy(ib, ia, ka * sizeof(*ia));
			kb = ka;
		} else {
			kb = verdict_draw(&gb, ib, &state);
		}
		ra = verdict_ratio(a, ia, ka) / full_a;
		rb = verdict_ratio(b, ib, kb) / full_b;
		if (ra > 0 && !isnan(rb))
			d[used++] = (base * rb / ra - 1.0) * 100.0;
	}
	if (used >= o->resamples / 2 && used > 0)
		verdict_quantiles(d, used, o->level, &w->lo, &w->hi);
cleanup:
	verdict_groups_release(&ga);
	verdict_groups_release(&gb);
	free(ia);
	free(ib);
	free(d);
	return rc;
}

int verdict_rate(const struct verdict_rate_side *a, const struct verdict_rate_side *b,
		 int paired, const struct verdict_opts *o, struct verdict *out)
{
	struct verdict w = { 0 };
	int rc;

	w.before = verdict_shown_rate(a);
	w.after = verdict_shown_rate(b);
	w.change_pct = verdict_pct(w.before, w.after);
	w.lo = w.hi = NAN;
	w.outcome = VERDICT_NA;
	paired = paired && a->n == b->n;
	w.needed = VERDICT_MIN_REQUESTS;
	if (a->n_repeats >= 2 && b->n_repeats >= 2) {
		w.n_before = a->n_repeats;
		w.n_after = b->n_repeats;
		if (isnan(w.change_pct)) {
			*out = w;
			return 0;
		}
		rc = verdict_rate_repeats(a, b, &w);
	} else {
		w.n_before = a->n;
		w.n_after = b->n;
		w.paired = paired;
		if (a->n < VERDICT_MIN_REQUESTS || b->n < VERDICT_MIN_REQUESTS ||
		    isnan(w.change_pct)) {
			*out = w;
			return 0;
		}
		rc = verdict_rate_requests(a, b, paired, o, &w);
	}
	if (rc)
		return -1;
	w.outcome = verdict_classify(w.lo, w.hi, o->min_effect, 1);
	*out = w;
	return 0;
}

/* Sets w's interval to the change shown, widened by -h and +h on the log scale. */
static void verdict_log_interval(struct verdict *w, double h_lo, double h_hi)
{
	double l = log1p(w->change_pct / 100.0);

	w->lo = expm1(l - h_lo) * 100.0;
	w->hi = expm1(l + h_hi) * 100.0;
}

int verdict_blocks(const double *sa, const double *sb, size_t n, const struct verdict_opts *o,
		   int higher_is_better, struct verdict *w)
{
	double sum = 0, sq = 0, mean, sd, h, l;
	size_t r, k = 0;

	if (isnan(w->change_pct) || w->change_pct <= -100.0)
		return 0;
	for (r = 0; r < n; r++) {
		if (sa[r] > 0 && sb[r] > 0 && isfinite(sa[r]) && isfinite(sb[r])) {
			double d = log(sb[r] / sa[r]);

			sum += d;
			sq += d * d;
			k++;
		}
	}
	if (k < 2)
		return 0;
	mean = sum / (double)k;
	sd = sqrt(fmax(0.0, (sq - (double)k * mean * mean) / (double)(k - 1)));
	h = stats_t975((double)(k - 1)) * sd / sqrt((double)k);
	/* around the change shown, and widened to the blocks' own centre where
	 * it lies elsewhere (a tail the pooled figure sees otherwise) */
	l = log1p(w->change_pct / 100.0);
	verdict_log_interval(w, h + fmax(0.0, l - mean), h + fmax(0.0, mean - l));
	w->noise = VERDICT_NOISE_BLOCKS;
	w->noise_sd = sd;
	w->noise_t = stats_t975((double)(k - 1));
	w->noise_n = k;
	w->noise_df = k - 1;
	w->held = 0;
	w->outcome = verdict_classify(w->lo, w->hi, o->min_effect, higher_is_better);
	return 1;
}

int verdict_blocks_too_few(struct verdict *w, size_t n)
{
	if (!w->needed || (w->n_before >= n * w->needed && w->n_after >= n * w->needed))
		return 0;
	w->needed *= n;
	w->outcome = VERDICT_NA;
	w->lo = w->hi = NAN;
	return 1;
}

void verdict_widen(struct verdict *w, double sd, double t, enum verdict_noise from,
		   const struct verdict_opts *o, int higher_is_better)
{
	double l, h, h_lo, h_hi;

	if (isnan(w->change_pct) || w->change_pct <= -100.0 || isnan(sd) || isnan(w->lo))
		return;
	l = log1p(w->change_pct / 100.0);
	h = t * sqrt(2.0) * sd;
	/* the interval's own half-widths, on the log scale */
	h_lo = w->lo > -100.0 ? l - log1p(w->lo / 100.0) : INFINITY;
	h_hi = log1p(w->hi / 100.0) - l;
	verdict_log_interval(w, fmax(h, h_lo), fmax(h, h_hi));
	w->noise = from;
	w->noise_sd = sd;
	w->noise_t = t;
	w->noise_n = 0;
	w->noise_df = 0;
	w->held = 0;
	w->outcome = verdict_classify(w->lo, w->hi, o->min_effect, higher_is_better);
}

void verdict_hold(struct verdict *w)
{
	w->noise = VERDICT_NOISE_NONE;
	if (w->outcome == VERDICT_FASTER || w->outcome == VERDICT_SLOWER) {
		w->outcome = VERDICT_INCONCLUSIVE;
		w->held = 1;
	}
}

void verdict_hold_client(struct verdict *w)
{
	if (w->outcome == VERDICT_FASTER || w->outcome == VERDICT_SLOWER) {
		w->client_outcome = w->outcome;
		w->outcome = VERDICT_INCONCLUSIVE;
		w->client_held = 1;
	}
}

/* A request's pairing key, and where it came from. */
struct verdict_key {
	int repeat;
	long key;
	size_t index;
};

static int verdict_key_cmp(const void *x, const void *y)
{
	const struct verdict_key *a = x, *b = y;

	if (a->repeat != b->repeat)
		return a->repeat < b->repeat ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->index > b->index) - (a->index < b->index);
}

static struct verdict_key *verdict_keys(const long *k, const int *rep, size_t n)
{
	struct verdict_key *v = malloc((n + 1) * sizeof(*v));
	size_t i;

	if (!v)
		return NULL;
	for (i = 0; i < n; i++)
		v[i] = (struct verdict_key){ rep ? rep[i] : 0, k[i], i };
	qsort(v, n, sizeof(*v), verdict_key_cmp);
	return v;
}

int verdict_pair(const long *ka, const int *ra, size_t na, const long *kb, const int *rb,
		 size_t nb, size_t **ia, size_t **ib, size_t *n)
{
	struct verdict_key *sa = NULL, *sb = NULL;
	size_t *pa = NULL, *pb = NULL, i;
	int rc = -1;

	if (na != nb || !na)
		return 0;
	sa = verdict_keys(ka, ra, na);
	sb = verdict_keys(kb, rb, nb);
	pa = malloc(na * sizeof(*pa));
	pb = malloc(nb * sizeof(*pb));
	if (!sa || !sb || !pa || !pb)
		goto cleanup;
	rc = 0;
	for (i = 0; i < na; i++) {
		if (sa[i].repeat != sb[i].repeat || sa[i].key != sb[i].key)
			goto cleanup;
		pa[i] = sa[i].index;
		pb[i] = sb[i].index;
	}
	*ia = pa;
	*ib = pb;
	*n = na;
	pa = pb = NULL;
	rc = 1;
cleanup:
	free(sa);
	free(sb);
	free(pa);
	free(pb);
	return rc;
}
