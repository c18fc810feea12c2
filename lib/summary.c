/*
 * summary.c - a level's summary; see summary.h. The metrics are
 * lib/metric.c's; this file gathers them over a level's results (their
 * distributions, errors, spread between repeats and server's view);
 * lib/summary_table.c prints them.
 */
#include "summary.h"
#include "clock.h"
#include "energy.h"
#include "metric.h"
#include "stats.h"

#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const summary_error_classes[SUMMARY_N_ERROR_CLASSES] = {
	RESULT_ERR_HTTP, RESULT_ERR_CONNECT, RESULT_ERR_TIMEOUT, RESULT_ERR_TRANSFER,
	RESULT_ERR_SERVER, RESULT_ERR_MALFORMED, RESULT_ERR_INCOMPLETE, RESULT_ERR_CANCELLED,
	"other",
};

static size_t summary_error_index(const char *cls)
{
	size_t i;

	for (i = 0; i + 1 < SUMMARY_N_ERROR_CLASSES; i++)
		if (strcmp(cls, summary_error_classes[i]) == 0)
			return i;
	return SUMMARY_N_ERROR_CLASSES - 1;
}

/* Per-metric sample arrays of one level, in ms. */
struct summary_samples {
	double *ttft, *ttfa, *tpot, *itl, *e2e;
	size_t n_ttft, n_ttfa, n_tpot, n_itl, n_e2e;
	double *lag, *ttft_svc, *e2e_svc;   /* open loop only */
	size_t n_lag, n_ttft_svc, n_e2e_svc;
};

static void summary_samples_free(struct summary_samples *x)
{
	free(x->lag);
	free(x->ttft_svc);
	free(x->e2e_svc);
	free(x->ttft);
	free(x->ttfa);
	free(x->tpot);
	free(x->itl);
	free(x->e2e);
}

/* Allocates room for the samples of r; returns 0 or -1. */
static int summary_samples_alloc(struct summary_samples *x, const struct result *r, size_t n)
{
	size_t i, gaps = 0;
	int open_loop;

	memset(x, 0, sizeof(*x));
	for (i = 0; i < n; i++)
		gaps += r[i].n_itl;
	/* a session's later turn is due apart from its send in either loop:
	 * the first turns tell the loops apart */
	for (i = 0; i < n; i++)
		if (r[i].sched_ns != r[i].send_ns && !r[i].warmup && r[i].turn <= 0)
			break;
	open_loop = i < n;
	n = n ? n : 1;
	x->ttft = malloc(n * sizeof(double));
	x->ttfa = malloc(n * sizeof(double));
	x->tpot = malloc(n * sizeof(double));
	x->e2e = malloc(n * sizeof(double));
	x->itl = malloc((gaps ? gaps : 1) * sizeof(double));
	if (open_loop) {
		x->lag = malloc(n * sizeof(double));
		x->ttft_svc = malloc(n * sizeof(double));
		x->e2e_svc = malloc(n * sizeof(double));
		if (!x->lag || !x->ttft_svc || !x->e2e_svc)
			goto fail;
	}
	if (x->ttft && x->ttfa && x->tpot && x->e2e && x->itl)
		return 0;
fail:
	summary_samples_free(x);
	memset(x, 0, sizeof(*x));
	return -1;
}

static void summary_nan_dist(struct stats_dist *d)
{
	d->n = 0;
	d->mean = d->p50 = d->p90 = d->p95 = d->p99 = d->max = NAN;
}

void summary_errors_add(struct summary_errors *e, const struct result *r)
{
	size_t i;

	e->by_class[summary_error_index(r->error)]++;
	/* a timeout or a broken stream after "200 OK" has a status that is
	 * not why it failed */
	if (r->status <= 0 || strcmp(r->error, RESULT_ERR_HTTP))
		return;
	for (i = 0; i < e->n_statuses; i++)
		if (e->statuses[i] == r->status) {
			e->status_n[i]++;
			return;
		}
	if (e->n_statuses == SUMMARY_MAX_STATUSES) {
		e->status_others++;
		return;
	}
	e->statuses[e->n_statuses] = r->status;
	e->status_n[e->n_statuses++] = 1;
}

/* snprintf at buf + *used, never past len; *used stops at len - 1. */
static void summary_append(char *buf, size_t len, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void summary_append(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used + 1 >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used = *used + (size_t)n < len ? *used + (size_t)n : len - 1;
}

void summary_errors_statuses(const struct summary_errors *e, char *buf, size_t len)
{
	size_t i, used = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; i < e->n_statuses; i++)
		summary_append(buf, len, &used, "%sHTTP %d x%zu", i ? ", " : "", e->statuses[i],
			       e->status_n[i]);
	if (e->status_others)
		summary_append(buf, len, &used, ", %zu of other statuses", e->status_others);
}

void summary_errors_format(const struct summary_errors *e, char *buf, size_t len)
{
	char st[160];
	size_t k, n = 0, used = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (k = 0; k < SUMMARY_N_ERROR_CLASSES; k++)
		if (e->by_class[k])
			summary_append(buf, len, &used, "%s%zu %s", n++ ? ", " : "", e->by_class[k],
				       summary_error_classes[k]);
	summary_errors_statuses(e, st, sizeof(st));
	if (st[0])
		summary_append(buf, len, &used, " (%s)", st);
}

/* What a level's requests add up to besides the samples. */
struct summary_acc {
	struct summary_samples x;
	int have;                  /* x was allocated */
	double tps_sum;
	size_t ntps;
	int64_t first_send, last_send, first_sched, last_sched;
};

static void summary_sample(struct summary_samples *x, const struct result *q);

/* Adds the non-warm-up request q to s and a. */
static void summary_take(struct level_summary *s, struct summary_acc *a, const struct result *q,
			 const struct metric_slo *slo)
{
	struct summary_samples *x = &a->x;
	struct load ql;

	s->requests++;
	ql = load_of_code(q->level, q->rate);
	if (ql.kind == LOAD_RATE && ql.rate > 0)
		s->level.rate = ql.rate;
	a->first_send = q->send_ns < a->first_send ? q->send_ns : a->first_send;
	a->last_send = q->send_ns > a->last_send ? q->send_ns : a->last_send;
	a->first_sched = q->sched_ns < a->first_sched ? q->sched_ns : a->first_sched;
	a->last_sched = q->sched_ns > a->last_sched ? q->sched_ns : a->last_sched;
	if (q->cancel[0] && (result_ok(q) || result_cancelled(q))) {
		/* --cancel's workload: counted apart, in no statistic */
		if (result_ok(q))
			s->cancel_ended++;
		else
			s->cancelled++;
		return;
	}
	if (!result_ok(q)) {
		s->errors++;
		summary_errors_add(&s->failed, q);
		return;
	}
	s->ok++;
	s->tokens += q->output_tokens;
	if (slo && metric_within_slo(q, slo))
		s->good++;
	if (!isnan(metric_req_tps(q))) {
		a->tps_sum += metric_req_tps(q);
		a->ntps++;
	}
	/* NaN compares false: an unstreamed answer, or none, never counts */
	if (metric_ttfa_ms(q) > metric_ttft_ms(q))
		s->reasoned++;
	if (!a->have)
		return;
	summary_sample(x, q);
}

/* The samples of the successful request q into x (allocated for it by
 * summary_samples_alloc): each latency it has, its gaps, and in open loop
 * its send lag and service times. */
static void summary_sample(struct summary_samples *x, const struct result *q)
{
	size_t j;

	x->e2e[x->n_e2e++] = metric_e2e_ms(q);
	if (!isnan(metric_ttft_ms(q)))
		x->ttft[x->n_ttft++] = metric_ttft_ms(q);
	if (!isnan(metric_ttfa_ms(q)))
		x->ttfa[x->n_ttfa++] = metric_ttfa_ms(q);
	if (!isnan(metric_tpot_ms(q)))
		x->tpot[x->n_tpot++] = metric_tpot_ms(q);
	for (j = 0; j < metric_n_gaps(q); j++)
		x->itl[x->n_itl++] = metric_ms(q->itl_ns[j]);
	if (x->lag) {
		double lag = metric_ms(q->send_ns - q->sched_ns);

		x->lag[x->n_lag++] = lag;
		x->e2e_svc[x->n_e2e_svc++] = metric_e2e_ms(q) - lag;
		if (!isnan(metric_ttft_ms(q)))
			x->ttft_svc[x->n_ttft_svc++] = metric_ttft_ms(q) - lag;
	}
}

/* count - 1 requests over the span first .. last: a send rate in req/s. */
static double summary_rate(size_t count, int64_t first, int64_t last)
{
	if (count < 2 || last <= first)
		return NAN;
	return (double)(count - 1) * (double)NS_PER_S / (double)(last - first);
}

/* The distributions of s from a's samples (NaN when there are none). */
static void summary_describe(struct level_summary *s, struct summary_acc *a)
{
	struct stats_dist *d[] = { &s->ttft, &s->ttfa, &s->tpot, &s->itl, &s->e2e, &s->lag,
				   &s->ttft_service, &s->e2e_service };
	struct summary_samples *x = &a->x;
	size_t i;

	if (!a->have) {
		for (i = 0; i < sizeof(d) / sizeof(d[0]); i++)
			summary_nan_dist(d[i]);
		return;
	}
	stats_describe(x->ttft, x->n_ttft, &s->ttft);
	stats_describe(x->ttfa, x->n_ttfa, &s->ttfa);
	stats_describe(x->tpot, x->n_tpot, &s->tpot);
	stats_describe(x->itl, x->n_itl, &s->itl);
	stats_describe(x->e2e, x->n_e2e, &s->e2e);
	s->open_loop = x->lag != NULL;
	stats_describe(x->lag, x->n_lag, &s->lag);
	stats_describe(x->ttft_svc, x->n_ttft_svc, &s->ttft_service);
	stats_describe(x->e2e_svc, x->n_e2e_svc, &s->e2e_service);
	summary_samples_free(x);
}

/* The wall time and repeats of s from the spans of r's repeats. */
static void summary_wall(struct level_summary *s, const struct result *r, size_t n)
{
	size_t n_spans = metric_n_repeats(r, n);
	struct metric_span *spans = malloc(n_spans * sizeof(*spans));

	s->repeats = 1;
	if (!spans)
		return;
	metric_spans(r, n, spans, n_spans);
	s->wall_s = metric_wall_s(spans, n_spans, &s->repeats);
	free(spans);
}

/* ---- where the numbers came from --------------------------------------- */

/* Mean, min, max and the 95% interval of the mean of v (n >= 2), in *d. */
static void summary_spread(const double *v, size_t n, struct summary_spread *d)
{
	double sum = 0, ss = 0, mean, half;
	size_t i;

	d->min = d->max = d->lo = d->hi = NAN;
	if (n < 2)
		return;
	d->min = d->max = v[0];
	for (i = 0; i < n; i++) {
		sum += v[i];
		d->min = v[i] < d->min ? v[i] : d->min;
		d->max = v[i] > d->max ? v[i] : d->max;
	}
	mean = sum / (double)n;
	for (i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	half = stats_t975((double)(n - 1)) * sqrt(ss / (double)(n - 1) / (double)n);
	d->lo = mean - half;
	d->hi = mean + half;
}

/* The spread across the repeats of a level of its aggregate tok/s (each
 * repeat's tokens over its own span) and of each repeat's percentiles of
 * every latency (its own samples, as summary_describe takes them). */
static void summary_repeat_spread(const struct result *r, size_t n, struct level_summary *s)
{
	struct summary_spread *spreads[5] = { s->spread_ttft, s->spread_ttfa, s->spread_tpot,
					      s->spread_itl, s->spread_e2e };
	size_t reps = metric_n_repeats(r, n), i, k, m, p, n_agg = 0, got[5] = { 0 };
	struct metric_span *spans = NULL;
	double *agg = NULL, *pct = NULL;

	summary_spread(NULL, 0, &s->spread_agg_tps);
	for (m = 0; m < 5; m++)
		for (p = 0; p < 4; p++)
			summary_spread(NULL, 0, &spreads[m][p]);
	if (reps < 2)
		return;
	spans = malloc(reps * sizeof(*spans));
	agg = malloc(reps * sizeof(*agg));
	pct = malloc(5 * 4 * reps * sizeof(*pct));  /* [metric][percentile][repeat] */
	if (spans && agg && pct) {
		metric_spans(r, n, spans, reps);
		for (k = 0; k < reps; k++) {
			struct summary_samples x;
			struct stats_dist d[5];

			if (metric_span_s(&spans[k]) > 0)
				agg[n_agg++] = metric_agg_tps((double)spans[k].tokens,
							      metric_span_s(&spans[k]));
			if (summary_samples_alloc(&x, r, n) < 0)
				break;
			for (i = 0; i < n; i++)
				if ((size_t)r[i].repeat == k && result_measured(&r[i]))
					summary_sample(&x, &r[i]);
			stats_describe(x.ttft, x.n_ttft, &d[0]);
			stats_describe(x.ttfa, x.n_ttfa, &d[1]);
			stats_describe(x.tpot, x.n_tpot, &d[2]);
			stats_describe(x.itl, x.n_itl, &d[3]);
			stats_describe(x.e2e, x.n_e2e, &d[4]);
			summary_samples_free(&x);
			for (m = 0; m < 5; m++) {
				const double v[4] = { d[m].p50, d[m].p90, d[m].p95, d[m].p99 };

				if (!d[m].n)
					continue;
				for (p = 0; p < 4; p++)
					pct[(m * 4 + p) * reps + got[m]] = v[p];
				got[m]++;
			}
		}
		summary_spread(agg, n_agg, &s->spread_agg_tps);
		for (m = 0; m < 5; m++)
			for (p = 0; p < 4; p++)
				summary_spread(pct + (m * 4 + p) * reps, got[m], &spreads[m][p]);
	}
	free(spans);
	free(agg);
	free(pct);
}

/*
 * What a reader needs to trust the row: where the output tokens came from,
 * the tokens per event, the prefix cache's share, the connections the
 * measured requests had to open, and the spread of aggregate tok/s and
 * median TTFT across the repeats of the level.
 */
static void summary_sweep_notes(const struct result *r, size_t n, struct level_summary *s)
{
	int64_t ev_tokens = 0, events = 0, cached = 0, prompt = 0, connect_ns = 0;
	size_t i;

	s->tokens_usage = s->tokens_tokenize = s->tokens_events = 0;
	s->cache_reported = s->new_connections = 0;
	s->repeat = -1;
	for (i = 0; i < n; i++) {
		const struct result *q = &r[i];

		if (q->warmup)
			continue;
		if (q->new_connection) {
			s->new_connections++;
			if (q->connect_ns > 0)
				connect_ns += q->connect_ns;
		}
		if (!result_measured(q))
			continue;
		if (q->tokens_source == RESULT_TOKENS_USAGE)
			s->tokens_usage++;
		else if (q->tokens_source == RESULT_TOKENS_TOKENIZE)
			s->tokens_tokenize++;
		else
			s->tokens_events++;
		if (q->token_events > 0 && !q->unstreamed) {
			ev_tokens += q->output_tokens;
			events += q->token_events;
		}
		if (q->input_tokens > 0)
			s->input_tokens += q->input_tokens;
		if (q->cached_tokens >= 0 && q->input_tokens > 0) {
			s->cache_reported++;
			cached += q->cached_tokens;
			prompt += q->input_tokens;
		}
	}
	s->tokens_per_event = events ? (double)ev_tokens / (double)events : NAN;
	s->cache_hit_share = prompt ? (double)cached / (double)prompt : NAN;
	s->connect_ms = s->new_connections ?
			(double)connect_ns / (double)s->new_connections / 1e6 : NAN;
	summary_repeat_spread(r, n, s);
}

/* Every figure of s NaN, its source "". */
static void summary_server_init(struct summary_server *s)
{
	size_t k, q;

	s->source[0] = '\0';
	s->running_avg = s->running_max = s->waiting_avg = s->waiting_max = NAN;
	s->kv_usage_avg = s->kv_usage_max = s->prefix_hit_rate = s->spec_acceptance = NAN;
	s->preemptions = s->prompt_tokens = s->generation_tokens = NAN;
	s->cpu_busy = s->cpu_steal = NAN;
	for (k = 0; k < SRVMETRIC_H_N; k++)
		for (q = 0; q < SRVMETRIC_NQ; q++)
			s->est[k][q] = s->est_lo[k][q] = s->est_hi[k][q] = NAN;
	s->host_busy = s->host_steal = s->host_replay = NAN;
}

void summary_compute(const struct result *r, size_t n, struct load load,
		     const struct metric_slo *slo, struct level_summary *s)
{
	struct summary_acc a;
	size_t i;
	long warm_seq = 0;

	memset(s, 0, sizeof(*s));
	s->warmup_ttft_ms = NAN;
	memset(&a, 0, sizeof(a));
	a.have = summary_samples_alloc(&a.x, r, n) == 0;
	a.first_send = a.first_sched = INT64_MAX;
	a.last_send = a.last_sched = INT64_MIN;
	s->level = load;
	s->level.rate = NAN;
	s->scaling_eff = NAN;
	s->energy_j = s->energy_window_s = s->tokens_per_joule = s->joules_per_request = NAN;
	s->cost_per_m_in = s->cost_per_m_out = NAN;
	s->client_ttft_p50 = s->client_ttft_p99 = s->client_gap_p50 = s->client_gap_p99 = NAN;
	s->client_limited = -1;
	s->client_blind = -1;
	s->energy_rc = ENERGY_NOT_SCRAPED;
	summary_server_init(&s->srv);
	for (i = 0; i < n; i++) {
		if (!r[i].warmup) {
			summary_take(s, &a, &r[i], slo);
			continue;
		}
		/* cold start: the TTFT of the first warm-up sent */
		if (s->warmup++ == 0 || r[i].seq < warm_seq) {
			warm_seq = r[i].seq;
			s->warmup_ttft_ms = result_ok(&r[i]) ? metric_ttft_ms(&r[i]) : NAN;
		}
	}
	summary_wall(s, r, n);
	s->achieved_rps = summary_rate(s->requests, a.first_send, a.last_send);
	s->sched_rps = summary_rate(s->requests, a.first_sched, a.last_sched);
	s->agg_tps = metric_agg_tps((double)s->tokens, s->wall_s);
	s->per_req_tps = a.ntps ? a.tps_sum / (double)a.ntps : NAN;
	summary_describe(s, &a);
	s->goodput_share = slo && s->requests > s->cancelled + s->cancel_ended ?
			   (double)s->good / (double)(s->requests - s->cancelled - s->cancel_ended) :
			   NAN;
	s->good_rps = slo && s->wall_s > 0 ? (double)s->good / s->wall_s : NAN;
	if (slo)
		metric_slo_format(slo, s->slo, sizeof(s->slo));
	summary_sweep_notes(r, n, s);
	attribution_compute(r, n, &s->att);
}

void summary_forget_wall(struct level_summary *s)
{
	s->wall_s = s->agg_tps = s->good_rps = s->sched_rps = s->achieved_rps = NAN;
	s->spread_agg_tps.min = s->spread_agg_tps.max = NAN;
	s->spread_agg_tps.lo = s->spread_agg_tps.hi = NAN;
}

void summary_set_scaling(struct level_summary *s, double base_tps)
{
	s->scaling_eff = metric_scaling(s->level, s->agg_tps, base_tps);
}
