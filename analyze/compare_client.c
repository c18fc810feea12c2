/*
 * compare_client.c - a change no larger than what the two runs' clients
 * may have added is not called faster or slower; see compare.h.
 *
 * Each run's level states a bound on its client's own part of what it
 * measured (lib/clientbound.h): the client only ever adds time, by at
 * most its bound, so each side's figure lies between the server's true
 * one and that plus the bound, and a change within the two bounds summed
 * may be the clients' alone. Such a faster or slower is held back as
 * inconclusive and shown as "client-limited"; a gate
 * (--fail-on-regression) passes it unless asked (--gate-client-limited).
 *
 * Which bound a number takes: TTFT, TTFA and E2E (a stamp the client
 * makes on reading, from the send it issued) the client's own part of the
 * TTFT bound; ITL the gap bound; a median (P50) the P50 bound, a tail
 * (P90 to P99) the P99 one. TPOT is a request's gaps averaged over its
 * tokens, its client error the gap bound divided by them, and aggregate
 * tok/s a count over a wall time: neither is held.
 */
#include "analyze/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The bound of level 'level' of cl[0 .. n), NULL when it has none. */
static const struct clientbound *compare_client_find(const struct db_client_level *cl, size_t n,
						     int level)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (cl[i].level == level)
			return &cl[i].b;
	return NULL;
}

/* A side's bound on its client's part of row w, seconds; NaN: none. */
static double compare_client_side(const struct compare_row *w, const struct clientbound *b)
{
	int tail = w->p > 50;

	if (!strcmp(w->metric, "ITL"))
		return tail ? b->gap_p99 : b->gap_p50;
	if (!strncmp(w->metric, "TTFT", 4) || !strcmp(w->metric, "TTFA") ||
	    !strcmp(w->metric, "E2E"))
		return tail ? b->own_ttft_p99 : b->own_ttft_p50;
	return NAN;
}

int compare_client_fill(struct db *db, const char *before, const char *after,
			struct compare_result *r, char *err, size_t errlen)
{
	struct db_client_level *ca = NULL, *cb = NULL;
	size_t na = 0, nb = 0, i, k;
	int rc;

	for (k = 0; k < r->n_rows; k++)
		r->rows[k].client_bound_ms = NAN;
	for (i = 0; i < r->n_levels; i++) {
		clientbound_init(&r->levels[i].client_before);
		clientbound_init(&r->levels[i].client_after);
	}
	rc = db_client_levels(db, before, &ca, &na, err, errlen);
	if (!rc)
		rc = db_client_levels(db, after, &cb, &nb, err, errlen);
	if (rc || !na || !nb)
		goto done;
	for (i = 0; i < r->n_levels; i++) {
		struct compare_level *lv = &r->levels[i];
		const struct clientbound *ba = compare_client_find(ca, na, lv->level_before);
		const struct clientbound *bb = compare_client_find(cb, nb, lv->level_after);

		if (!ba || !bb || !lv->compared)
			continue;
		lv->client_before = *ba;
		lv->client_after = *bb;
		for (k = 0; k < r->n_rows; k++) {
			struct compare_row *w = &r->rows[k];
			double bound = compare_client_side(w, ba) + compare_client_side(w, bb);

			if (!load_same(w->level, lv->level) || !isfinite(bound))
				continue;
			w->client_bound_ms = bound * 1e3;
			if (fabs(w->v.after - w->v.before) <= w->client_bound_ms)
				verdict_hold_client(&w->v);
		}
	}
done:
	free(ca);
	free(cb);
	return rc;
}
