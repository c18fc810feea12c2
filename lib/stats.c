/*
 * stats.c - percentiles and means; see stats.h.
 */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <stdint.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void stats_sort(double *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_double);
}

/*
 * numpy.percentile's default ("linear"): the rank p/100 * (n - 1) of n > 0
 * values falls between two closest ranks, *k and *k + 1 (0-based), the
 * returned fraction of the way; at the top rank, *k = n - 1 and 0. Every
 * percentile here takes its ranks from this.
 */
static double stats_rank(double p, size_t n, size_t *k)
{
	double rank;

	if (!(p > 0))           /* NaN too: (size_t)NaN is undefined */
		p = 0;
	if (p > 100)
		p = 100;
	rank = p / 100.0 * (double)(n - 1);
	*k = (size_t)rank;
	if (*k >= n - 1) {
		*k = n - 1;
		return 0;
	}
	return rank - (double)*k;
}

/* The value frac of the way from lo to hi, as every percentile here
 * interpolates between its two closest ranks. */
static double stats_between(double lo, double hi, double frac)
{
	return frac == 0 ? lo : lo + (hi - lo) * frac;
}

double stats_percentile(const double *sorted, size_t n, double p)
{
	double frac;
	size_t k;

	if (n == 0)
		return NAN;
	frac = stats_rank(p, n, &k);
	return stats_between(sorted[k], frac == 0 ? sorted[k] : sorted[k + 1], frac);
}

double stats_mean(const double *v, size_t n)
{
	double sum = 0;
	size_t i;

	if (n == 0)
		return NAN;
	for (i = 0; i < n; i++)
		sum += v[i];
	return sum / (double)n;
}

static double stats_select_from(double *v, size_t n, size_t from, double p, size_t *at);
/* Puts the value of 0-based rank k of v at v[k], every value of v[from..k)
 * at most it and of v(k..n) at least it; v[0..from) must be at most every
 * value of v[from..n) and k >= from. */
static void stats_select_rank(double *v, size_t n, size_t from, size_t k);

/* Quickselect per percentile: O(n) each, where sorting millions of pooled
 * inter-token gaps dominated a report's time. */
const double stats_dist_pcts[4] = { 50, 90, 95, 99 };

/* log of n choose k */
static double log_choose(size_t n, size_t k)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1);
}

int stats_rank_ci95(size_t n, double p, size_t *lo, size_t *hi)
{
	double q = p / 100.0, cdf = 0;
	size_t k, l = 0, u = 0;
	int have_l = 0;

	if (n < 2 || !(q > 0 && q < 1))
		return -1;
	if (n > 5000) {         /* normal approximation, continuity-corrected */
		double mu = (double)n * q, sd = sqrt((double)n * q * (1 - q));
		double a = floor(mu - 1.959964 * sd - 0.5), b = ceil(mu + 1.959964 * sd + 0.5);

		if (a < 1 || b > (double)n)
			return -1;
		*lo = (size_t)a - 1;
		*hi = (size_t)b - 1;
		return 0;
	}
	/*
	 * X, the values below the percentile, is binomial(n, q). The interval
	 * [x(l), x(u)] (1-based order statistics) holds it when l <= X < u:
	 * l the largest rank with P(X < l) <= 2.5%, u the smallest with
	 * P(X >= u) <= 2.5%.
	 */
	for (k = 0; k <= n; k++) {
		double pmf = exp(log_choose(n, k) + (double)k * log(q) + (double)(n - k) * log1p(-q));

		if (cdf + pmf <= 0.025) {       /* P(X <= k) = P(X < k + 1) */
			l = k + 1;
			have_l = 1;
		}
		cdf += pmf;
		if (cdf >= 0.975) {             /* P(X < k + 1) >= 97.5% */
			u = k + 1;
			break;
		}
	}
	if (!have_l || u == 0 || u > n)
		return -1;
	*lo = l - 1;
	*hi = u - 1;
	return 0;
}

/*
 * The order-statistic intervals of d's percentiles over v[0..n): their
 * ranks in ascending order. The percentiles' selects left v in blocks
 * split at their ranks, cut[0..4) ascending (each block's values at most
 * every later block's), so each select searches only the part of its block
 * that the last select left above it. Reorders v.
 */
static void stats_describe_intervals(double *v, size_t n, const size_t cut[4],
				     struct stats_dist *d)
{
	size_t rank[8], from = 0, m = 0, i, j, c = 0, lo, hi;
	double *slot[8], *ps;

	for (i = 0; i < 4; i++) {
		d->lo[i] = d->hi[i] = NAN;
		if (stats_rank_ci95(n, stats_dist_pcts[i], &lo, &hi) < 0)
			continue;
		rank[m] = lo;
		slot[m++] = &d->lo[i];
		rank[m] = hi;
		slot[m++] = &d->hi[i];
	}
	for (i = 1; i < m; i++)         /* a few: by insertion */
		for (j = i; j > 0 && rank[j - 1] > rank[j]; j--) {
			size_t r = rank[j];

			rank[j] = rank[j - 1];
			rank[j - 1] = r;
			ps = slot[j];
			slot[j] = slot[j - 1];
			slot[j - 1] = ps;
		}
	for (i = 0; i < m; i++) {
		/* its block: from the last cut at or below it to the next */
		for (; c < 4 && cut[c] <= rank[i]; c++)
			if (cut[c] > from)
				from = cut[c];
		stats_select_rank(v, c < 4 ? cut[c] : n, from, rank[i]);
		*slot[i] = v[rank[i]];
		from = rank[i];
	}
}

void stats_describe(double *v, size_t n, struct stats_dist *d)
{
	double max = n ? v[0] : NAN;
	size_t i, cut[4];

	for (i = 1; i < n; i++)
		if (v[i] > max)
			max = v[i];
	d->n = n;
	d->mean = stats_mean(v, n);
	d->max = max;
	if (!n) {
		d->p50 = d->p90 = d->p95 = d->p99 = NAN;
		for (i = 0; i < 4; i++)
			d->lo[i] = d->hi[i] = NAN;
		return;
	}
	/* Each select leaves the values above its rank to the right of it, so
	 * the next, higher percentile only searches what is left: ~1.7 n. */
	d->p50 = stats_select_from(v, n, 0, 50, &cut[0]);
	d->p90 = stats_select_from(v, n, cut[0], 90, &cut[1]);
	d->p95 = stats_select_from(v, n, cut[1], 95, &cut[2]);
	d->p99 = stats_select_from(v, n, cut[2], 99, &cut[3]);
	stats_describe_intervals(v, n, cut, d);
}

/*
 * The p-th percentile (numpy's linear rule) of the n values of v, which it
 * reorders: quickselect for the lower closest rank, then the least value
 * above it for the upper one, without sorting all of v.
 */
double stats_select_percentile(double *v, size_t n, double p)
{
	return n ? stats_select_from(v, n, 0, p, NULL) : NAN;
}

/*
 * stats_select_percentile over v[from..n), where every value of v[0..from)
 * is at most every value of v[from..n) (a previous select with a lower p
 * left v so); the rank must fall at or above from. Sets *at (may be NULL)
 * to the lower closest rank, for the next call's 'from'.
 */
static void stats_select_rank(double *v, size_t n, size_t from, size_t k)
{
	size_t lo = from, hi = n - 1, i, j;
	double pivot, t;

	while (lo < hi) {
		pivot = v[lo + (hi - lo) / 2];
		i = lo;
		j = hi;
		/*
		 * Hoare's scans: a value not below (not above) the pivot
		 * always lies ahead of each within [lo, hi], the pivot's own
		 * to begin with, so they cannot run off the array. The
		 * analyzer does not follow comparisons of doubles and thinks
		 * they can.
		 */
		while (i <= j) {
			/* NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult) */
			while (v[i] < pivot)
				i++;
			/* NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult) */
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
}

static double stats_select_from(double *v, size_t n, size_t from, double p, size_t *at)
{
	double frac, next;
	size_t k, i;

	frac = stats_rank(p, n, &k);
	stats_select_rank(v, n, from, k);
	if (at)
		*at = k;
	if (frac == 0)
		return v[k];
	/* v[k+1..] are all >= v[k]; the upper closest rank is their least. */
	next = v[k + 1];
	for (i = k + 2; i < n; i++)
		if (v[i] < next)
			next = v[i];
	return stats_between(v[k], next, frac);
}

/*
 * The values of ranks k and k + 1 (k + 1 < total when want_next) of the
 * multiset of stats_percentile_weighted, walking from the nearer end.
 */
static void stats_weighted_ranks(const double *v, const size_t *group, const unsigned *weight,
				 size_t n, size_t total, size_t k, int want_next,
				 double *at, double *next)
{
	size_t j, seen = 0, t, c;
	double above = NAN;

	if (k < total / 2) {
		/* up from the bottom: the first entry that takes the count
		 * past k holds rank k; rank k + 1 is it again or the next
		 * entry counted */
		for (j = 0; j < n; j++) {
			seen += weight[group ? group[j] : j];
			if (seen > k)
				break;
		}
		*at = v[j];
		if (want_next) {
			if (seen == k + 1)
				do
					j++;
				while (!weight[group ? group[j] : j]);
			*next = v[j];
		}
		return;
	}
	/* down from the top: rank k is the (total - 1 - k)-th from it */
	t = total - 1 - k;
	for (j = n; j-- > 0;) {
		c = weight[group ? group[j] : j];
		if (!c)
			continue;
		if (seen + c > t)
			break;
		seen += c;
		above = v[j];
	}
	*at = v[j];
	*next = seen == t ? above : v[j];
}

double stats_percentile_weighted(const double *v, const size_t *group, const unsigned *weight,
				 size_t n, size_t total, double p)
{
	double frac, at, next = NAN;
	size_t k;

	if (total == 0)
		return NAN;
	frac = stats_rank(p, total, &k);
	stats_weighted_ranks(v, group, weight, n, total, k, frac != 0, &at, &next);
	return stats_between(at, next, frac);
}

/*
 * The regularized incomplete beta function I_x(a, b) by its continued
 * fraction (modified Lentz), which converges fast for x < (a + 1) / (a + b
 * + 2); the other side comes from I_x(a, b) = 1 - I_{1-x}(b, a).
 */
static double stats_beta_inc(double a, double b, double x)
{
	const double tiny = 1e-300;
	double front, f, c, d, num;
	int m, k;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	if (x > (a + 1) / (a + b + 2))
		return 1 - stats_beta_inc(b, a, 1 - x);
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1 - x)) / a;
	f = c = 1;
	d = 0;
	for (k = 0; k <= 400; k++) {
		m = k / 2;
		if (k == 0)
			num = 1;
		else if (k % 2 == 0)
			num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		else
			num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + num * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + num / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		f *= c * d;
		if (fabs(1 - c * d) < 1e-15)
			break;
	}
	return front * (f - 1);
}

double stats_t975(double df)
{
	double lo = 0, hi = 1, mid;
	int i;

	if (!(df >= 1))
		df = 1;
	/* P(T > t) = I_{df/(df+t^2)}(df/2, 1/2) / 2: find where it is 0.025 */
	while (stats_beta_inc(df / 2, 0.5, df / (df + hi * hi)) > 0.05)
		hi *= 2;
	for (i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
		mid = (lo + hi) / 2;
		if (stats_beta_inc(df / 2, 0.5, df / (df + mid * mid)) > 0.05)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* Sample variance (n - 1 denominator). */
static double stats_variance(const double *v, size_t n, double mean)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += (v[i] - mean) * (v[i] - mean);
	return sum / (double)(n - 1);
}

int stats_welch_ci95(const double *a, size_t na, const double *b, size_t nb,
		     double *lo, double *hi)
{
	double ma, mb, va, vb, se2, df, half;

	if (na < 2 || nb < 2)
		return -1;
	ma = stats_mean(a, na);
	mb = stats_mean(b, nb);
	va = stats_variance(a, na, ma) / (double)na;
	vb = stats_variance(b, nb, mb) / (double)nb;
	se2 = va + vb;
	if (se2 <= 0) {
		*lo = *hi = mb - ma;
		return 0;
	}
	/* Welch-Satterthwaite degrees of freedom. */
	df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	half = stats_t975(df) * sqrt(se2);
	*lo = mb - ma - half;
	*hi = mb - ma + half;
	return 0;
}

int stats_too_few(size_t n, double p)
{
	if (p <= 0 || p >= 100)
		return 0;
	return (double)n * (100.0 - p) < 100.0 - 1e-9;
}
