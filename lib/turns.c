/*
 * turns.c - first and later turns, and per-session figures; see turns.h.
 */
#include "turns.h"
#include "metric.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Orders result indices by repeat, session, then sending order. */
static const struct result *sort_results;

static int by_session(const void *a, const void *b)
{
	const struct result *x = &sort_results[*(const size_t *)a];
	const struct result *y = &sort_results[*(const size_t *)b];

	if (x->repeat != y->repeat)
		return x->repeat < y->repeat ? -1 : 1;
	if (x->session != y->session)
		return x->session < y->session ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* True for a measured turn of a session. */
static int is_turn(const struct result *q)
{
	return !q->warmup && q->session >= 0 && q->turn >= 0;
}

/* Fills g from the successful first turns (later: the later ones) among
 * r[idx[0 .. n)]; ttft and e2e are room for n values. */
static void group_figures(const struct result *r, const size_t *idx, size_t n, int later,
			  double *ttft, double *e2e, struct turns_group *g)
{
	size_t i, nt = 0, ne = 0;
	double cached = 0, prompt = 0;

	memset(g, 0, sizeof(*g));
	for (i = 0; i < n; i++) {
		const struct result *q = &r[idx[i]];
		double v;

		if ((q->turn > 0) != later || !result_ok(q))
			continue;
		g->n++;
		if (!isnan(v = metric_ttft_ms(q)))
			ttft[nt++] = v;
		if (!isnan(v = metric_e2e_ms(q)))
			e2e[ne++] = v;
		if (q->cached_tokens >= 0 && q->input_tokens > 0) {
			cached += (double)q->cached_tokens;
			prompt += (double)q->input_tokens;
		}
	}
	stats_sort(ttft, nt);
	stats_sort(e2e, ne);
	g->ttft_p50 = nt ? stats_percentile(ttft, nt, 50) : NAN;
	g->ttft_p95 = nt ? stats_percentile(ttft, nt, 95) : NAN;
	g->e2e_p50 = ne ? stats_percentile(e2e, ne, 50) : NAN;
	g->cached_share = prompt > 0 ? cached / prompt : NAN;
}

int turns_compute(const struct result *r, size_t n, struct turns_summary *out)
{
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx));
	double *a = malloc((n ? n : 1) * sizeof(*a)), *b = malloc((n ? n : 1) * sizeof(*b));
	double cached[TURNS_MAX_INDEX] = { 0 }, prompt[TURNS_MAX_INDEX] = { 0 };
	double turns = 0, out_tokens = 0, context = 0;
	size_t i, m = 0, k;

	memset(out, 0, sizeof(*out));
	if (!idx || !a || !b) {
		free(idx);
		free(a);
		free(b);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (is_turn(&r[i]))
			idx[m++] = i;
	sort_results = r;
	qsort(idx, m, sizeof(*idx), by_session);
	/* one pass over the instances: a new one at a new key or a turn 0 */
	for (i = 0; i < m; i = k) {
		const struct result *q0 = &r[idx[i]];
		int64_t start = q0->sched_ns, end = q0->sched_ns + q0->e2e_ns;
		double tokens = 0;
		int failed = 0;

		for (k = i; k < m; k++) {
			const struct result *q = &r[idx[k]];

			if (k > i && (q->repeat != q0->repeat || q->session != q0->session ||
				      q->turn == 0))
				break;
			if (q->sched_ns < start)
				start = q->sched_ns;
			if (q->sched_ns + q->e2e_ns > end)
				end = q->sched_ns + q->e2e_ns;
			tokens += (double)q->output_tokens;
			failed |= !result_ok(q);
		}
		a[out->sessions++] = (double)(end - start) / 1e9;
		out->ended_by_error += failed;
		turns += (double)(k - i);
		out_tokens += tokens;
		context += (double)(r[idx[k - 1]].input_tokens > 0 ? r[idx[k - 1]].input_tokens : 0);
	}
	if (out->sessions) {
		stats_sort(a, out->sessions);
		out->duration_p50_s = stats_percentile(a, out->sessions, 50);
		out->turns_mean = turns / (double)out->sessions;
		out->output_tokens_mean = out_tokens / (double)out->sessions;
		out->context_mean = context / (double)out->sessions;
	}
	for (i = 0; i < m; i++) {
		const struct result *q = &r[idx[i]];
		size_t t = q->turn < TURNS_MAX_INDEX ? (size_t)q->turn : TURNS_MAX_INDEX - 1;

		if ((size_t)q->turn + 1 > out->max_turn)
			out->max_turn = (size_t)q->turn + 1;
		if (result_ok(q) && q->cached_tokens >= 0 && q->input_tokens > 0) {
			cached[t] += (double)q->cached_tokens;
			prompt[t] += (double)q->input_tokens;
		}
	}
	for (i = 0; i < TURNS_MAX_INDEX; i++)
		out->cached_share[i] = prompt[i] > 0 ? cached[i] / prompt[i] : NAN;
	group_figures(r, idx, m, 0, a, b, &out->first);
	group_figures(r, idx, m, 1, a, b, &out->later);
	free(idx);
	free(a);
	free(b);
	return 0;
}

