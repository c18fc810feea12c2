/*
 * fuzz_prom.c - libFuzzer target for the Prometheus exposition parser
 * (lib/prom.c).
 *
 * The input is parsed under caps drawn from its first byte; then every
 * sample's series, as prom_series() spells it, must parse back to the
 * same name and labels (the escapes round-trip), and the counts must add
 * up: no more samples and bad lines than lines. The samples are then
 * folded as a level's scrapes of a server's histograms (lib/srvmetric.c:
 * each bucket's le read back from its series; lib/bucketq.c: the
 * quantiles), three times, as the level's start, an interval scrape and
 * its end, each value scaled by the scrape's number: an estimate must lie
 * inside the bucket it names, or be refused; every other figure is NaN
 * or a finite number from 0 (a rate from counters at most 1). The same
 * scrapes read as an energy counter (lib/energy.c), under DCGM's name and
 * under the text's own names, give finite joules or no figure. A mismatch
 * aborts, which libFuzzer reports as a crash.
 */
#include "lib/energy.h"
#include "lib/prom.h"
#include "lib/srvmetric.h"

#include <math.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_round_trip(const struct prom_sample *x)
{
	struct prom_scrape back;
	size_t need = prom_series(x, NULL, 0), i;
	char *line = malloc(need + 4);

	if (!line)
		return;
	prom_series(x, line, need + 1);
	memcpy(line + need, " 1\n", 3);
	prom_scrape_init(&back);
	if (prom_parse(&back, line, need + 3, NULL, 0) == 0) {
		if (back.n != 1 || strcmp(back.samples[0].name, x->name) ||
		    back.samples[0].nlabels != x->nlabels)
			abort();
		for (i = 0; i < x->nlabels; i++)
			if (strcmp(back.samples[0].labels[i].name, x->labels[i].name) ||
			    strcmp(back.samples[0].labels[i].value, x->labels[i].value))
				abort();
	}
	prom_scrape_release(&back);
	free(line);
}

/* NaN (not reported), or a finite number from 0. */
static int figure_ok(double v)
{
	return isnan(v) || (isfinite(v) && v >= 0);
}

/* The samples as a level's start and end scrapes, read as energy
 * (lib/energy.c) under the counter's name and under every other name
 * the text uses: a figure is finite joules over a positive window, or
 * none with its reason. */
static void check_energy(const struct prom_scrape *s)
{
	static const struct energy_counter dcgm = { ENERGY_DCGM_NAME, 1e-3 };
	struct energy_counter c;
	struct energy_level e;
	char series[1024];
	size_t i, named;
	long scrape;

	for (named = 0; named <= s->n && named < 4; named++) {
		c = dcgm;
		if (named && snprintf(c.name, sizeof(c.name), "%s", s->samples[named - 1].name) >=
			     (int)sizeof(c.name))
			continue;
		energy_level_init(&e, &c);
		for (scrape = 0; scrape < 2; scrape++)
			for (i = 0; i < s->n; i++) {
				if (prom_series(&s->samples[i], series, sizeof(series)) >= sizeof(series))
					continue;
				energy_level_add(&e, scrape, scrape ? SRVMETRIC_AT_END : SRVMETRIC_AT_START,
						 (int64_t)scrape * 1000000000, s->samples[i].name, series,
						 s->samples[i].value * (double)(scrape + 1));
			}
		energy_level_finish(&e);
		if (e.rc == 0 && !(isfinite(e.joules) && e.joules > 0 && e.window_s > 0))
			abort();
		if (e.rc != 0 && !isnan(e.joules))
			abort();
	}
}

/* The samples as a level's start and end scrapes; every estimate made
 * must lie in its bucket. */
static void check_buckets(const struct prom_scrape *s)
{
	static struct srvmetric_level l;
	char series[1024];
	size_t i, k, q;
	long scrape;

	srvmetric_level_init(&l);
	for (scrape = 0; scrape < 3; scrape++)
		for (i = 0; i < s->n; i++) {
			if (prom_series(&s->samples[i], series, sizeof(series)) >= sizeof(series))
				continue;
			srvmetric_level_add(&l, scrape, scrape == 0 ? SRVMETRIC_AT_START : scrape == 1 ?
					    SRVMETRIC_AT_INTERVAL : SRVMETRIC_AT_END,
					    s->samples[i].name, series,
					    s->samples[i].value * (double)(scrape + 1));
		}
	srvmetric_level_finish(&l);
	/* every figure a number a server can mean, or NaN: never negative,
	 * never infinite; a rate from counters at most 1 */
	for (k = 0; k < SRVMETRIC_N; k++)
		if (!figure_ok(l.mean[k]) || !figure_ok(l.max[k]) || !figure_ok(l.delta[k]))
			abort();
	if (!figure_ok(l.prefix_hit_rate) || !figure_ok(l.spec_acceptance) ||
	    l.spec_acceptance > 1 ||
	    (l.delta[SRVMETRIC_PREFIX_QUERIES] > 0 && l.prefix_hit_rate > 1))
		abort();
	for (k = 0; k < SRVMETRIC_H_N; k++)
		for (q = 0; q < SRVMETRIC_NQ; q++) {
			const struct bucketq_estimate *e = &l.hist[k].q[q];

			if (l.hist[k].rc[q] != 0)
				continue;
			if (isnan(e->value) || e->value < e->lo || e->value > e->hi ||
			    !(e->count > 0))
				abort();
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prom_scrape s;
	size_t i;

	if (size < 1)
		return 0;
	prom_scrape_init(&s);
	if (data[0] & 0x80) {       /* small caps, to reach them */
		s.max_line = (size_t)(data[0] & 0x3f) + 1;
		s.max_samples = (size_t)(data[0] & 0x0f);
	}
	if (prom_parse(&s, (const char *)data + 1, size - 1, NULL, 0) == 0) {
		if (s.n + s.bad_lines > s.lines || s.n > s.max_samples ||
		    (s.bad_lines && (!s.first_bad || s.first_bad > s.lines)))
			abort();
		for (i = 0; i < s.n; i++)
			check_round_trip(&s.samples[i]);
		check_buckets(&s);
		check_energy(&s);
	}
	prom_scrape_release(&s);
	return 0;
}
