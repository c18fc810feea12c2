/*
 * clientbound.c - the bound on the client's own share of a level's TTFT
 * and gaps, and the judge that marks a level client-limited; see
 * clientbound.h.
 */
#include "lib/clientbound.h"
#include "lib/stats.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

void clientbound_watch_init(struct clientbound_watch *w)
{
	w->issue_p50 = w->issue_p99 = w->read_p50 = w->read_p99 = NAN;
	w->tokread_p50 = w->tokread_p99 = w->gapread_p50 = w->gapread_p99 = NAN;
	w->sum_p50 = w->sum_p99 = w->lag_p50 = w->lag_p99 = NAN;
	w->loop_p50 = w->loop_p99 = NAN;
	w->thread_busy = w->transport = w->run_wait_unread = NAN;
}

/* The known (non-negative) of the n values into out, scaled; their count. */
static size_t known(const double *v, size_t n, double scale, double *out)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (v[i] >= 0)
			out[k++] = v[i] * scale;
	return k;
}

/* P50 and P99 of the n sorted in place; NaN when n is 0. */
static void quantiles(double *v, size_t n, double *p50, double *p99)
{
	if (!n) {
		*p50 = *p99 = NAN;
		return;
	}
	stats_sort(v, n);
	*p50 = stats_percentile(v, n, 50);
	*p99 = stats_percentile(v, n, 99);
}

void clientbound_observe(struct clientbound_watch *w, const double *issue_ns,
			 const double *read_ns, size_t n, double *tmp,
			 double *lag_us, double *loop_us, size_t m)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (issue_ns[i] >= 0 && read_ns[i] >= 0)
			tmp[k++] = (issue_ns[i] + read_ns[i]) / 1e9;
	quantiles(tmp, k, &w->sum_p50, &w->sum_p99);
	k = known(issue_ns, n, 1e-9, tmp);
	quantiles(tmp, k, &w->issue_p50, &w->issue_p99);
	k = known(read_ns, n, 1e-9, tmp);
	quantiles(tmp, k, &w->read_p50, &w->read_p99);
	for (i = 0; i < m; i++)
		lag_us[i] = lag_us[i] < 0 ? 0 : lag_us[i] / 1e6;
	quantiles(lag_us, m, &w->lag_p50, &w->lag_p99);
	k = known(loop_us, m, 1e-6, loop_us);
	quantiles(loop_us, k, &w->loop_p50, &w->loop_p99);
}

/* Bin k holds [lo, lo + w) with, for k < 8, lo = k and w = 1, else, its
 * octave o = k / 8 and sub-bin s = k % 8, lo = (8 + s) << (o - 3) and
 * w = 1 << (o - 3). */
static size_t hist_bin(uint64_t v)
{
	int o;

	if (v < 8)
		return (size_t)v;
	o = 63 - __builtin_clzll(v);
	return (size_t)o * 8 + ((v >> (o - 3)) & 7);
}

static double hist_upper(size_t k)
{
	size_t o = k / 8;

	if (k < 8)
		return (double)k + 1;
	return ldexp((double)(8 + k % 8 + 1), (int)o - 3);
}

void clientbound_hist_add(struct clientbound_hist *h, int64_t ns)
{
	h->count[hist_bin(ns > 0 ? (uint64_t)ns : 0)]++;
	h->n++;
}

double clientbound_hist_percentile(const struct clientbound_hist *h, double q)
{
	uint64_t rank, seen = 0;
	size_t k;

	if (!h->n)
		return NAN;
	rank = (uint64_t)ceil(q / 100 * (double)h->n);
	if (rank < 1)
		rank = 1;
	for (k = 0; k < CLIENTBOUND_HIST_BINS; k++) {
		seen += h->count[k];
		if (seen >= rank)
			return hist_upper(k) / 1e9;
	}
	return NAN;     /* counts that do not add up to n: not a histogram of ours */
}

void clientbound_observe_tokens(struct clientbound_watch *w, const struct clientbound_hist *h)
{
	w->tokread_p50 = clientbound_hist_percentile(h, 50);
	w->tokread_p99 = clientbound_hist_percentile(h, 99);
	w->gapread_p50 = clientbound_hist_percentile(h, 100 * sqrt(0.50));
	w->gapread_p99 = clientbound_hist_percentile(h, 100 * sqrt(0.99));
}

/* The read delay a gap at a quantile may carry: the token reads' (their
 * sqrt(q)-th quantile), else, in a record written before they were
 * watched, twice the first token's at q. */
static double gap_read(double gapread, double read)
{
	return isnan(gapread) ? 2 * read : gapread;
}

/* Whether the client's own part counts the loop's part of the timer's
 * lateness alone: where the thread's wait to run was read, so that the
 * rest is the host's own wake-up of the thread for the timer. */
static int loop_lag_counts(const struct clientbound_watch *w)
{
	return w->run_wait_unread == 0 && !isnan(w->loop_p50) && !isnan(w->loop_p99);
}

void clientbound_compute(const struct clientbound_watch *w, struct clientbound *b)
{
	double t = isnan(w->transport) ? 0 : w->transport;
	int loop = loop_lag_counts(w);

	b->own_ttft_p50 = w->sum_p50 + (loop ? w->loop_p50 : w->lag_p50);
	b->own_ttft_p99 = w->sum_p99 + (loop ? w->loop_p99 : w->lag_p99);
	b->ttft_p50 = w->sum_p50 + w->lag_p50 + t;
	b->ttft_p99 = w->sum_p99 + w->lag_p99 + t;
	b->gap_p50 = gap_read(w->gapread_p50, w->read_p50) + w->lag_p50;
	b->gap_p99 = gap_read(w->gapread_p99, w->read_p99) + w->lag_p99;
}

/* Appends to why (len bytes) as printf does, never past its end. */
static void add(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add(char *why, size_t len, const char *fmt, ...)
{
	size_t at = strlen(why);
	va_list ap;

	if (at + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(why + at, len - at, fmt, ap);
	va_end(ap);
}

int clientbound_judge(const struct clientbound *b, const struct clientbound_watch *w,
		      const struct clientbound_level *lv, double share, char *why, size_t len)
{
	const double bound[2] = { b->own_ttft_p50, b->own_ttft_p99 };
	const double fig[2] = { lv->ttft_p50, lv->ttft_p99 };
	static const char *const name[2] = { "TTFT P50", "TTFT P99" };
	double worst = -1, issue, read, lag;
	int k, at = -1, p99;

	if (len)
		why[0] = '\0';
	for (k = 0; k < 2; k++) {
		double r = bound[k] / fig[k];

		if (isfinite(bound[k]) && fig[k] > 0 && isfinite(r) && r > worst) {
			worst = r;
			at = k;
		}
	}
	if (at < 0)
		return -1;
	if (!len)
		return worst > share;
	snprintf(why, len, "client's own %.2f ms = %.1f%% of %s %.2f ms", bound[at] * 1e3,
		 worst * 100, name[at], fig[at] * 1e3);
	/* the part of the bound that dominates, in words */
	p99 = at == 1;
	issue = p99 ? w->issue_p99 : w->issue_p50;
	read = p99 ? w->read_p99 : w->read_p50;
	if (loop_lag_counts(w))
		lag = p99 ? w->loop_p99 : w->loop_p50;
	else
		lag = p99 ? w->lag_p99 : w->lag_p50;
	if (lag >= 0 && !(lag < read) && !(lag < issue))
		add(why, len, ": %s %.2f ms late", loop_lag_counts(w) ? "the loop" : "timers",
		    lag * 1e3);
	else if (issue >= 0 && !(issue < read))
		add(why, len, ": requests %.2f ms from due to written", issue * 1e3);
	else if (read >= 0)
		add(why, len, ": first tokens waited %.2f ms unread", read * 1e3);
	add(why, len, " (%s)", p99 ? "P99" : "P50");
	if (w->thread_busy >= 0.5)
		add(why, len, "; measuring thread %.0f%% busy", w->thread_busy * 100);
	if (lv->host_busy >= 0.9)
		add(why, len, "; host CPUs %.0f%% busy", lv->host_busy * 100);
	if (lv->host_steal >= 0.05)
		add(why, len, "; steal %.0f%%", lv->host_steal * 100);
	return worst > share;
}

void clientbound_init(struct clientbound *b)
{
	b->ttft_p50 = b->ttft_p99 = b->gap_p50 = b->gap_p99 = NAN;
	b->own_ttft_p50 = b->own_ttft_p99 = NAN;
}

/* The series, each with where its value lives: in the watch (w) or the
 * bound (b), by offset. */
#define W(f) 0, offsetof(struct clientbound_watch, f)
#define B(f) 1, offsetof(struct clientbound, f)
static const struct {
	const char *name;
	int in_bound;
	size_t off;
} series[] = {
	{ "tracebench_client_bound_ttft_p50_seconds", B(ttft_p50) },
	{ "tracebench_client_bound_ttft_p99_seconds", B(ttft_p99) },
	{ "tracebench_client_own_ttft_p50_seconds",   B(own_ttft_p50) },
	{ "tracebench_client_own_ttft_p99_seconds",   B(own_ttft_p99) },
	{ "tracebench_client_bound_gap_p50_seconds",  B(gap_p50) },
	{ "tracebench_client_bound_gap_p99_seconds",  B(gap_p99) },
	{ "tracebench_client_issue_p50_seconds",      W(issue_p50) },
	{ "tracebench_client_issue_p99_seconds",      W(issue_p99) },
	{ "tracebench_client_read_p50_seconds",       W(read_p50) },
	{ "tracebench_client_read_p99_seconds",       W(read_p99) },
	{ "tracebench_client_token_read_p50_seconds", W(tokread_p50) },
	{ "tracebench_client_token_read_p99_seconds", W(tokread_p99) },
	{ "tracebench_client_gap_read_p50_seconds",   W(gapread_p50) },
	{ "tracebench_client_gap_read_p99_seconds",   W(gapread_p99) },
	{ "tracebench_client_issue_read_p50_seconds", W(sum_p50) },
	{ "tracebench_client_issue_read_p99_seconds", W(sum_p99) },
	{ "tracebench_client_timer_lag_p50_seconds",  W(lag_p50) },
	{ "tracebench_client_timer_lag_p99_seconds",  W(lag_p99) },
	{ "tracebench_client_loop_lag_p50_seconds",   W(loop_p50) },
	{ "tracebench_client_loop_lag_p99_seconds",   W(loop_p99) },
	{ "tracebench_client_thread_busy_ratio",      W(thread_busy) },
	{ "tracebench_client_transport_seconds",      W(transport) },
	{ "tracebench_client_run_wait_unread",        W(run_wait_unread) },
};
#undef W
#undef B

static double *field(size_t k, struct clientbound_watch *w, struct clientbound *b)
{
	return (double *)(void *)((series[k].in_bound ? (char *)b : (char *)w) + series[k].off);
}

int clientbound_format(const struct clientbound_watch *w, const struct clientbound *b,
		       char *out, size_t cap)
{
	size_t k, at = 0;

	if (!cap)
		return -1;
	out[0] = '\0';
	for (k = 0; k < sizeof(series) / sizeof(series[0]); k++) {
		double v = *field(k, (struct clientbound_watch *)w, (struct clientbound *)b);
		int n;

		if (!isfinite(v))
			continue;
		n = snprintf(out + at, cap - at, "%s %.9g\n", series[k].name, v);
		if (n < 0 || (size_t)n >= cap - at) {
			out[at] = '\0';
			return -1;
		}
		at += (size_t)n;
	}
	return (int)at;
}

int clientbound_take(const char *name, double value, struct clientbound_watch *w,
		     struct clientbound *b)
{
	size_t k;

	for (k = 0; k < sizeof(series) / sizeof(series[0]); k++) {
		if (strcmp(name, series[k].name) != 0)
			continue;
		*field(k, w, b) = isfinite(value) && value >= 0 && value <= 86400 ? value : NAN;
		return 1;
	}
	return 0;
}

void clientbound_merge_max(struct clientbound_watch *w, struct clientbound *b,
			   const struct clientbound_watch *ow, const struct clientbound *ob)
{
	size_t k;

	for (k = 0; k < sizeof(series) / sizeof(series[0]); k++) {
		double *to = field(k, w, b);
		double from = *field(k, (struct clientbound_watch *)ow, (struct clientbound *)ob);

		if (isnan(*to) || from > *to)
			*to = from;
	}
}
