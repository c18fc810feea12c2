/*
 * fuzz_run_params.c - libFuzzer target for a run's params read back from
 * the database (analyze/run_params.c): the JSON a results header carries,
 * any bytes a file may hold.
 *
 * The rules checked, whatever the input:
 *
 *   reading    never fails but for memory, and the result releases;
 *   ranges     each member absent or within what run_params.h promises:
 *              the plan's levels whole numbers of [1, 1e6], at most
 *              RUN_PARAMS_MAX_LEVELS, none without a plan; requests 0 or
 *              positive, repeat at least 1; a capacity search's share,
 *              confidence and caps in their ranges; the price's per hour
 *              0 or in (0, 1e9], its ratio in [0.01, 1e6]; strings
 *              NUL-terminated, notes and A/B labels none NULL;
 *   the sides  every A/B label is found as a side.
 *
 * A broken rule aborts.
 */
#include "analyze/run_params.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_run_params: %s\n", what);
	abort();
}

static void check(const struct run_params *p)
{
	size_t i;

	if (p->n_levels > RUN_PARAMS_MAX_LEVELS || (p->planless && p->n_levels))
		fail("levels beyond the cap, or without a plan");
	for (i = 0; i < p->n_levels; i++)
		if (p->levels[i] < 1 || p->levels[i] > 1000000)
			fail("a level out of [1, 1e6]");
	if (!(p->requests >= 0) || !(p->repeat >= 1))
		fail("requests negative or repeat below 1");
	if (p->is_capacity &&
	    (!(p->capacity.share >= 0.01 && p->capacity.share <= 0.9999) ||
	     !(p->capacity.confidence >= 0.5 && p->capacity.confidence <= 0.9999) ||
	     p->capacity.max_requests < 1 || p->capacity.max_requests > 10000000 ||
	     p->capacity.batch < 0 || p->capacity.batch > 100000000 ||
	     memchr(p->slo_spec, '\0', sizeof(p->slo_spec)) == NULL))
		fail("a capacity search's settings out of range");
	if (!(p->price.per_hour == 0 || (p->price.per_hour > 0 && p->price.per_hour <= 1e9)) ||
	    !(p->price.ratio >= 0.01 && p->price.ratio <= 1e6))
		fail("a price out of range");
	if (!(p->energy.to_joules > 0) || !memchr(p->energy.name, '\0', sizeof(p->energy.name)))
		fail("an energy counter without a name or a unit");
	if (p->has_cancel && !memchr(p->cancel_after, '\0', sizeof(p->cancel_after)))
		fail("a cancel point not terminated");
	for (i = 0; i < p->n_notes; i++)
		if (!p->notes[i])
			fail("a NULL note");
	for (i = 0; i < p->n_ab_labels; i++)
		if (!p->ab_labels[i] || !run_params_ab_side(p, p->ab_labels[i]))
			fail("an A/B label not found as a side");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run_params p;
	char *json = malloc(size + 1);

	if (!json)
		return 0;
	memcpy(json, data, size);
	json[size] = '\0';
	if (run_params_read(json, &p) == 0)
		check(&p);
	run_params_release(&p);
	free(json);
	return 0;
}
