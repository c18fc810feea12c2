/*
 * metric.c - the metric definitions; see metric.h, whose header comment
 * is the reference that schema/tracebench.sql's views mirror.
 */
#include "metric.h"
#include "clock.h"
#include "errmsg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double metric_ms(int64_t ns)
{
	return (double)ns / (double)NS_PER_MS;
}

double metric_ttft_ms(const struct result *q)
{
	return q->ttft_ns >= 0 && !q->unstreamed ? metric_ms(q->ttft_ns) : NAN;
}

double metric_ttfa_ms(const struct result *q)
{
	return q->ttfa_ns >= 0 && !q->unstreamed ? metric_ms(q->ttfa_ns) : NAN;
}

double metric_e2e_ms(const struct result *q)
{
	return metric_ms(q->e2e_ns);
}

/* True when the request has a decoding phase to time: see metric.h. */
static int metric_has_decode(const struct result *q)
{
	return !q->unstreamed && q->ttft_ns >= 0 && q->output_tokens >= 2 &&
	       q->e2e_ns > q->ttft_ns;
}

size_t metric_n_gaps(const struct result *q)
{
	return q->unstreamed ? 0 : q->n_itl;
}

double metric_tpot_ms(const struct result *q)
{
	if (!metric_has_decode(q))
		return NAN;
	return metric_ms(q->e2e_ns - q->ttft_ns) / (double)(q->output_tokens - 1);
}

double metric_req_tps(const struct result *q)
{
	if (!metric_has_decode(q))
		return NAN;
	return (double)q->output_tokens * (double)NS_PER_S / (double)(q->e2e_ns - q->ttft_ns);
}

/* Parses one "limit" of --slo (500ms, 10s, 250us, 500) into ms; -1 if bad. */
static int metric_slo_limit(const char *text, double *out)
{
	char *end;
	double v = strtod(text, &end), scale = 1;

	if (strcmp(end, "s") == 0)
		scale = 1e3;
	else if (strcmp(end, "us") == 0)
		scale = 1e-3;
	else if (*end && strcmp(end, "ms") != 0)
		return -1;
	if (end == text || !(v > 0) || isinf(v))
		return -1;
	*out = v * scale;
	return 0;
}

int metric_slo_parse(const char *s, struct metric_slo *out, char *err, size_t errlen)
{
	static const char *const names[] = { "ttft", "ttfa", "tpot", "e2e" };
	struct metric_slo slo = { 0, 0, 0, 0 };
	double *limits[] = { &slo.ttft_ms, &slo.ttfa_ms, &slo.tpot_ms, &slo.e2e_ms };
	char buf[256], *item, *save = NULL, *eq;
	size_t k;

	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf) || !*buf ||
	    strstr(buf, ",,") || buf[0] == ',' || buf[strlen(buf) - 1] == ',') {
		snprintf(err, errlen, "bad --slo '%s'", s);
		return -1;
	}
	for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		eq = strchr(item, '=');
		if (!eq) {
			snprintf(err, errlen, "bad --slo item '%s' (want metric=limit, e.g. ttft=500ms)",
				 item);
			return -1;
		}
		*eq = '\0';
		for (k = 0; k < 4 && strcmp(item, names[k]) != 0; k++)
			;
		if (k == 4) {
			snprintf(err, errlen, "unknown --slo metric '%s' (ttft, ttfa, tpot, e2e)", item);
			return -1;
		}
		if (metric_slo_limit(eq + 1, limits[k]) != 0) {
			snprintf(err, errlen, "bad --slo limit '%s' for %s (want e.g. 500ms, 10s)",
				 eq + 1, item);
			return -1;
		}
	}
	*out = slo;
	return 0;
}

const char *metric_slo_format(const struct metric_slo *slo, char *buf, size_t len)
{
	static const char *const names[] = { "ttft", "ttfa", "tpot", "e2e" };
	const double lim[] = { slo->ttft_ms, slo->ttfa_ms, slo->tpot_ms, slo->e2e_ms };
	size_t k, at = 0;

	if (len)
		buf[0] = '\0';
	for (k = 0; k < 4 && at < len; k++)
		if (lim[k] > 0)
			at += (size_t)snprintf(buf + at, len - at, "%s%s=%gms", at ? "," : "",
					       names[k], lim[k]);
	return buf;
}

int metric_within_slo(const struct result *q, const struct metric_slo *slo)
{
	double tpot = metric_tpot_ms(q);
	double ttft = q->unstreamed ? metric_e2e_ms(q) : metric_ttft_ms(q);
	double ttfa = q->unstreamed ? metric_e2e_ms(q) : metric_ttfa_ms(q);

	if (!result_ok(q) || q->cancel[0])
		return 0;
	if (slo->ttft_ms > 0 && !(ttft <= slo->ttft_ms))
		return 0;
	if (slo->ttfa_ms > 0 && !(ttfa <= slo->ttfa_ms))
		return 0;
	if (slo->tpot_ms > 0 && !isnan(tpot) && tpot > slo->tpot_ms)
		return 0;
	if (slo->e2e_ms > 0 && metric_e2e_ms(q) > slo->e2e_ms)
		return 0;
	return 1;
}

size_t metric_n_repeats(const struct result *r, size_t n)
{
	size_t i, reps = 1;

	for (i = 0; i < n; i++)
		if (!r[i].warmup && r[i].repeat >= 0 && (size_t)r[i].repeat + 1 > reps)
			reps = (size_t)r[i].repeat + 1;
	return reps;
}

void metric_spans(const struct result *r, size_t n, struct metric_span *spans, size_t n_spans)
{
	size_t i, k;

	for (k = 0; k < n_spans; k++) {
		spans[k].first = INT64_MAX;
		spans[k].last = INT64_MIN;
		spans[k].tokens = 0;
	}
	for (i = 0; n_spans && i < n; i++) {
		const struct result *q = &r[i];
		struct metric_span *sp;

		if (q->warmup)
			continue;
		k = q->repeat < 0 ? 0 : (size_t)q->repeat;
		sp = &spans[k < n_spans ? k : n_spans - 1];
		if (q->sched_ns < sp->first)
			sp->first = q->sched_ns;
		if (q->sched_ns + q->e2e_ns > sp->last)
			sp->last = q->sched_ns + q->e2e_ns;
		if (result_measured(q))
			sp->tokens += q->output_tokens;
	}
}

double metric_span_s(const struct metric_span *sp)
{
	return sp->last > sp->first ? (double)(sp->last - sp->first) / (double)NS_PER_S : 0;
}

double metric_wall_s(const struct metric_span *spans, size_t n_spans, int *repeats)
{
	double wall = 0;
	size_t k;
	int reps = 0;

	for (k = 0; k < n_spans; k++) {
		if (spans[k].last > spans[k].first) {
			wall += metric_span_s(&spans[k]);
			reps++;
		}
	}
	if (repeats)
		*repeats = reps ? reps : 1;
	return wall;
}

double metric_agg_tps(double tokens, double wall_s)
{
	return wall_s > 0 ? tokens / wall_s : NAN;
}

double metric_tokens_per_joule(double tokens, double joules)
{
	return joules > 0 && tokens >= 0 ? tokens / joules : NAN;
}

double metric_joules_per_request(double joules, double requests)
{
	return joules > 0 && requests > 0 ? joules / requests : NAN;
}

int metric_price_parse(const char *s, struct metric_price *p, char *err, size_t errlen)
{
	char *end;
	double v = strtod(s, &end), r = METRIC_PRICE_RATIO;

	if (end == s || !isfinite(v) || v <= 0 || v > 1e9 || (*end && *end != ':')) {
		errmsg_set(err, errlen, "'%s' is not a price per hour above 0 (P or P:R)", s);
		return -1;
	}
	if (*end == ':') {
		const char *rs = end + 1;

		r = strtod(rs, &end);
		if (end == rs || *end || !isfinite(r) || r < 0.01 || r > 1e6) {
			errmsg_set(err, errlen, "'%s': the output-to-input cost ratio R of P:R is "
				   "a number from 0.01 to 1e6", s);
			return -1;
		}
	}
	p->per_hour = v;
	p->ratio = r;
	return 0;
}

void metric_cost_per_mtok(const struct metric_price *p, double wall_s, double in_tokens,
			  double out_tokens, double *per_m_in, double *per_m_out)
{
	double weighted;

	*per_m_in = *per_m_out = NAN;
	if (!p || !(p->per_hour > 0) || !(p->ratio > 0) || !(wall_s > 0) || !(in_tokens >= 0) ||
	    !(out_tokens >= 0))
		return;
	weighted = out_tokens + in_tokens / p->ratio;
	if (!(weighted > 0))
		return;
	*per_m_out = p->per_hour * wall_s / 3600 / weighted * 1e6;
	*per_m_in = *per_m_out / p->ratio;
}

double metric_scaling(struct load load, double agg_tps, double base_tps)
{
	if (load.kind != LOAD_CLOSED || !(base_tps > 0))
		return NAN;
	return agg_tps / ((double)load.concurrency * base_tps);
}
