/*
 * attribution.h - where a level's time went: the server's own account of
 * each request (lib/srvtiming.h) beside what the client measured.
 *
 * Per request with server timings, the client's TTFT splits into the
 * server's queue and prefill and the rest (TTFT - queue - prefill: send,
 * network, the client, and a queue the server does not report, as
 * llama.cpp's); its E2E further into the server's decode and the rest of
 * E2E (E2E - queue - prefill - decode). A level's parts are the
 * distributions of those spans over its successful, non-warm-up requests
 * that carried timings; a non-streamed one (SGLang sends its timings in
 * bodies only) has no first token of its own, so it counts in the queue,
 * prefill, decode and rest of E2E, never in the TTFT's.
 */
#ifndef TB_ATTRIBUTION_H
#define TB_ATTRIBUTION_H

#include <stddef.h>
#include <stdio.h>

#include "result.h"
#include "stats.h"
#include "table.h"

/* A level is flagged when the rest of its TTFT is more than this share of
 * its TTFT, at the median: the server does not account for that much. */
#define ATTRIBUTION_REST_SHARE 0.25

struct attribution {
	size_t n;                    /* requests with server timings */
	enum srvtiming_shape shape;  /* theirs (the first one's when mixed) */
	int mixed;                   /* several shapes among them */
	/* ms; a part the server does not report has n == 0 */
	struct stats_dist queue, prefill, decode, rest_ttft, rest_e2e;
	struct stats_dist ttft;      /* the client's TTFT of the same requests */
};

/* The parts of the n results of one level (warm-ups and failures skipped). */
void attribution_compute(const struct result *r, size_t n, struct attribution *a);

/* True when a's rest of TTFT is over ATTRIBUTION_REST_SHARE of its TTFT. */
int attribution_flagged(const struct attribution *a);

struct level_summary;

/*
 * Text and Markdown: the parts per level, when some level has any, with
 * its legend; nothing otherwise (CSV and JSON have them as sweep-table
 * columns). Returns 1 when it printed.
 */
int attribution_print(FILE *out, enum table_format fmt, const struct level_summary *levels,
		      size_t n);

#endif
