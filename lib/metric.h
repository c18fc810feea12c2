/*
 * metric.h - the definition of every per-request and per-level metric,
 * written once: lib/summary.c, analyze/compare.c and analyze/plot.c take
 * them from here, and the views of schema/tracebench.sql (v_requests,
 * v_summary) mirror them (tests/unit/test_metric.c checks that both agree
 * on real results). docs/DESIGN.md, "Metric definitions", is the same
 * table for readers of the design.
 *
 *   TTFT, TTFA, E2E   ttft_ns, ttfa_ns, e2e_ns of struct result, in ms. A
 *                     non-streamed response (one JSON body, 'unstreamed')
 *                     has an E2E only: its tokens arrived together, so it
 *                     has no first token of its own (TTFT would be E2E
 *                     and pull a level's TTFT down) and no decoding timed.
 *   TPOT              (E2E - TTFT) / (output tokens - 1), of a streamed
 *                     request with a TTFT, at least two output tokens and
 *                     E2E > TTFT; none for a non-streamed one (0 would
 *                     claim infinitely fast decoding): report shows N=0,
 *                     export an empty field, v_requests NULL.
 *   ITL               the gaps between token events, none when not streamed
 *   per-request tok/s output tokens / (E2E - TTFT) in seconds, of the
 *                     same requests as TPOT, averaged over a level
 *   wall time         per repeat (replay --repeat) of a level, the first
 *                     scheduled start to the last end (scheduled start +
 *                     E2E) of its non-warm-up requests, failed ones too;
 *                     summed over the repeats
 *   aggregate tok/s   output tokens of the successful non-warm-up
 *                     requests of a level / its wall time
 *   scaling           aggregate tok/s at C / (C x aggregate tok/s at C=1),
 *                     each level's repeats pooled (replay's live rows: a
 *                     C=1 repeat is its own base, 100%)
 *   SLO               see struct metric_slo
 *
 * "None" is NaN throughout (a table prints "-", CSV an empty field, JSON
 * null). A level's load (a concurrency, an open loop, a rate probe) and
 * its integer encoding live in lib/load.h.
 */
#ifndef TB_METRIC_H
#define TB_METRIC_H

#include <stddef.h>
#include <stdint.h>
#include "load.h"
#include "result.h"

/* ns to ms. */
double metric_ms(int64_t ns);

/* The request's TTFT, TTFA, E2E in ms; NaN when it has none (no token,
 * or not streamed). */
double metric_ttft_ms(const struct result *q);
double metric_ttfa_ms(const struct result *q);
double metric_e2e_ms(const struct result *q);

/* The request's TPOT in ms, NaN when it has none (see above). */
double metric_tpot_ms(const struct result *q);

/* The request's decoding speed in tok/s, NaN exactly when TPOT is. */
double metric_req_tps(const struct result *q);

/* The number of the request's inter-token gaps (itl_ns) that count. */
size_t metric_n_gaps(const struct result *q);

/*
 * Service-level objectives for goodput: a request is good when it succeeded
 * and each metric with a limit (> 0) is within it. A request without the
 * metric (TPOT of a one-token or non-streamed answer) passes that limit;
 * one without a TTFT or TTFA fails theirs. A non-streamed answer's user saw
 * nothing before its end: its TTFT and TTFA limits hold its E2E.
 */
struct metric_slo {
	double ttft_ms, ttfa_ms, tpot_ms, e2e_ms;   /* 0: no limit */
};

/*
 * Parses "ttft=500ms,tpot=50ms,e2e=10s" (units us, ms, s; a bare number is
 * ms) into *out. Returns 0, or -1 with a message in err (errlen bytes).
 */
int metric_slo_parse(const char *s, struct metric_slo *out, char *err, size_t errlen);

/*
 * Writes slo into buf (len bytes) in the form metric_slo_parse reads,
 * "ttft=500ms,tpot=50ms" ("" when it has no limit); returns buf.
 */
const char *metric_slo_format(const struct metric_slo *slo, char *buf, size_t len);

/* True when the request q succeeded within every limit of slo. */
int metric_within_slo(const struct result *q, const struct metric_slo *slo);

/* One repeat of a level: its span and its successful requests' tokens. */
struct metric_span {
	int64_t first, last;   /* first scheduled start, last end; first > last when empty */
	int64_t tokens;
};

/* The number of repeats of the non-warm-up requests of r: 1 + the largest
 * repeat, at least 1. */
size_t metric_n_repeats(const struct result *r, size_t n);

/*
 * Fills spans[0 .. n_spans) from the non-warm-up requests of r, a request
 * of repeat k (clamped to 0 .. n_spans-1) into spans[k].
 */
void metric_spans(const struct result *r, size_t n, struct metric_span *spans, size_t n_spans);

/* A span's length in seconds, 0 when empty. */
double metric_span_s(const struct metric_span *sp);

/*
 * The wall time of a level in seconds: the sum of the spans' lengths.
 * *repeats (may be NULL) gets the number of non-empty spans, at least 1.
 */
double metric_wall_s(const struct metric_span *spans, size_t n_spans, int *repeats);

/* tokens / wall_s; NaN unless wall_s > 0. */
double metric_agg_tps(double tokens, double wall_s);

/* Energy over a level (lib/energy.h): output tokens / joules, and joules /
 * requests; NaN unless joules > 0 (and requests > 0). */
double metric_tokens_per_joule(double tokens, double joules);
double metric_joules_per_request(double joules, double requests);

/* The share of a level's cost an output token bears against an input
 * token unless --price-per-hour says otherwise (P:R): 4, Google's GKE
 * Inference Quickstart's default output-to-input cost ratio. */
#define METRIC_PRICE_RATIO 4.0

/* A deployment's price: per hour (any currency) and the output-to-input
 * cost ratio R; per_hour 0: none. */
struct metric_price {
	double per_hour;
	double ratio;
};

/* "P" or "P:R" (--price-per-hour): 0 and *p set, or -1 with why in err. */
int metric_price_parse(const char *s, struct metric_price *p, char *err, size_t errlen);

/*
 * Cost per million input and output tokens of a level that ran wall_s
 * seconds and took in_tokens and made out_tokens: the level's cost
 * (per_hour x wall_s / 3600) split so that an output token costs R input
 * tokens (GKE Inference Quickstart's convention): per output token
 * cost / (out + in / R), per input token that / R. Both NaN without a
 * price, a wall time or tokens.
 */
void metric_cost_per_mtok(const struct metric_price *p, double wall_s, double in_tokens,
			  double out_tokens, double *per_m_in, double *per_m_out);

/* Scaling efficiency of a level of aggregate agg_tps against base_tps at
 * C=1; NaN for a load that is not a concurrency or without a base. */
double metric_scaling(struct load load, double agg_tps, double base_tps);

#endif
