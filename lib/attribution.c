/*
 * attribution.c - where a level's time went; see attribution.h.
 */
#include "attribution.h"
#include "load.h"
#include "summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The spans of the requests with timings, ms, one array per part. */
enum { P_QUEUE, P_PREFILL, P_DECODE, P_REST_TTFT, P_REST_E2E, P_TTFT, P_N };

static void nan_dist(struct stats_dist *d)
{
	memset(d, 0, sizeof(*d));
	d->mean = d->p50 = d->p90 = d->p95 = d->p99 = d->max = NAN;
}

static double ms(int64_t ns)
{
	return (double)ns / 1e6;
}

void attribution_compute(const struct result *r, size_t n, struct attribution *a)
{
	struct stats_dist *dist[P_N] = { &a->queue, &a->prefill, &a->decode, &a->rest_ttft,
					 &a->rest_e2e, &a->ttft };
	double *v[P_N] = { NULL };
	size_t k[P_N] = { 0 };
	size_t i, p;
	int have = 1;

	memset(a, 0, sizeof(*a));
	for (p = 0; p < P_N; p++)
		nan_dist(dist[p]);
	for (i = 0; i < n && r[i].server.shape == SRVTIMING_NONE; i++)
		;
	if (i == n)             /* a server that sends none: no work per level */
		return;
	for (p = 0; p < P_N; p++)
		if (!(v[p] = malloc(n * sizeof(double))))
			have = 0;
	for (i = 0; i < n && have; i++) {
		const struct result *q = &r[i];
		const struct srvtiming *t = &q->server;
		int64_t before = t->queue_ns > 0 ? t->queue_ns : 0;   /* not said: in the rest */

		if (!result_measured(q) || t->shape == SRVTIMING_NONE)
			continue;
		if (a->n++ == 0)
			a->shape = t->shape;
		else if (t->shape != a->shape)
			a->mixed = 1;
		if (t->queue_ns >= 0)
			v[P_QUEUE][k[P_QUEUE]++] = ms(t->queue_ns);
		if (t->decode_ns >= 0)
			v[P_DECODE][k[P_DECODE]++] = ms(t->decode_ns);
		if (t->prefill_ns < 0 || q->ttft_ns < 0)
			continue;
		v[P_PREFILL][k[P_PREFILL]++] = ms(t->prefill_ns);
		if (!q->unstreamed) {   /* a body's first token is its end */
			v[P_TTFT][k[P_TTFT]++] = ms(q->ttft_ns);
			v[P_REST_TTFT][k[P_REST_TTFT]++] = ms(q->ttft_ns - before - t->prefill_ns);
		}
		if (t->decode_ns >= 0 && q->e2e_ns >= 0)
			v[P_REST_E2E][k[P_REST_E2E]++] = ms(q->e2e_ns - before - t->prefill_ns -
							    t->decode_ns);
	}
	for (p = 0; p < P_N; p++) {
		if (have && k[p])
			stats_describe(v[p], k[p], dist[p]);
		free(v[p]);
	}
	if (!have)
		a->n = 0;
}

int attribution_flagged(const struct attribution *a)
{
	return a->rest_ttft.n && a->ttft.p50 > 0 &&
	       a->rest_ttft.p50 > ATTRIBUTION_REST_SHARE * a->ttft.p50;
}

/* ---- the table ---------------------------------------------------------- */

struct attribution_row {
	char level[24];
	const struct attribution *a;
	char note[48];
};

static const char *col_level(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct attribution_row *)row)->level;
}

static const char *col_note(const void *row, size_t arg)
{
	(void)arg;
	return ((const struct attribution_row *)row)->note;
}

static double col_n(const void *row, size_t arg)
{
	(void)arg;
	return (double)((const struct attribution_row *)row)->a->n;
}

/* arg: the offset of a stats_dist in struct attribution, plus 1 for its
 * P99 instead of its P50. */
static double col_part(const void *row, size_t arg)
{
	const struct stats_dist *d = (const struct stats_dist *)
		((const char *)((const struct attribution_row *)row)->a + (arg & ~(size_t)1));

	return d->n ? (arg & 1 ? d->p99 : d->p50) : NAN;
}

#define PART(h, u, m, p99) { .head = (h), .unit = (u), .width = 9, .decimals = 2, \
			     .num = col_part, .arg = offsetof(struct attribution, m) + (p99) }

static const struct table_col attribution_cols[] = {
	{ .head = "C", .width = 4, .str = col_level },
	{ .head = "N", .width = 6, .num = col_n },
	PART("Queue", "P50 ms", queue, 0),
	PART("Prefill", "P50 ms", prefill, 0),
	PART("Rest TTFT", "P50 ms", rest_ttft, 0),
	PART("Rest TTFT", "P99 ms", rest_ttft, 1),
	PART("TTFT", "P50 ms", ttft, 0),
	PART("Decode", "P50 ms", decode, 0),
	PART("Rest E2E", "P50 ms", rest_e2e, 0),
	{ .head = "Note", .width = 4, .flags = TABLE_LEFT, .str = col_note },
};

int attribution_print(FILE *out, enum table_format fmt, const struct level_summary *levels,
		      size_t n)
{
	struct attribution_row *rows;
	const struct attribution *first = NULL;
	struct table t;
	size_t i, k = 0, flagged = 0;
	int mixed = 0, no_queue = 0;

	if (fmt != TABLE_TEXT && fmt != TABLE_MARKDOWN)
		return 0;
	for (i = 0; i < n; i++)
		if (levels[i].att.n) {
			if (!first)
				first = &levels[i].att;
			mixed |= levels[i].att.mixed || levels[i].att.shape != first->shape;
		}
	if (!first || !(rows = calloc(n, sizeof(*rows))))
		return 0;
	for (i = 0; i < n; i++) {
		const struct attribution *a = &levels[i].att;

		if (!a->n)
			continue;
		load_cell(levels[i].level, rows[k].level, sizeof(rows[k].level));
		rows[k].a = a;
		no_queue |= a->queue.n == 0;
		if (attribution_flagged(a)) {
			snprintf(rows[k].note, sizeof(rows[k].note), "rest %.0f%% of TTFT",
				 100.0 * a->rest_ttft.p50 / a->ttft.p50);
			flagged++;
		}
		k++;
	}
	fprintf(out, "\nwhere the time went (the server's own per-request timings: %s):\n",
		mixed ? "several shapes" : srvtiming_shape_name(first->shape));
	if (fmt == TABLE_MARKDOWN)
		fputc('\n', out);
	table_init(&t, out, fmt, attribution_cols,
		   sizeof(attribution_cols) / sizeof(attribution_cols[0]), 0);
	table_print(&t, rows, k, sizeof(*rows));
	fputs(fmt == TABLE_MARKDOWN ? "\n" : "", out);
	fputs("Queue, prefill and decode as the server reported them; Rest TTFT = TTFT - "
	      "queue - prefill, Rest E2E = E2E - queue - prefill - decode: sending, the "
	      "network, the client", out);
	if (no_queue)
		fputs(", and the queue where the server does not report one (llama.cpp)", out);
	fprintf(out, ". N counts the successful requests that carried timings; a "
		"non-streamed one (SGLang's only shape) has no TTFT parts.");
	if (flagged)
		fprintf(out, " A Note marks a level whose rest is over %.0f%% of its TTFT at "
			"the median.", 100.0 * ATTRIBUTION_REST_SHARE);
	fputc('\n', out);
	free(rows);
	return 1;
}
