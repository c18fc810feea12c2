/*
 * efficiency.c - tokens per joule and the cost per million tokens of each
 * level of a run; see efficiency.h.
 */
#include "analyze/efficiency.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* efficiency_override(): the command line's, one analyze command a process */
static struct {
	int has_counter, has_price;
	struct energy_counter counter;
	struct metric_price price;
} given;

void efficiency_override(const struct energy_counter *c, const struct metric_price *p)
{
	given.has_counter = c != NULL;
	if (c)
		given.counter = *c;
	given.has_price = p != NULL;
	if (p)
		given.price = *p;
}

int efficiency_overridden(void)
{
	return given.has_counter || given.has_price;
}

void efficiency_of(const struct run_params *param, struct energy_counter *c,
		   struct metric_price *p)
{
	if (param) {
		*c = param->energy;
		*p = param->price;
	} else {
		energy_counter_default(c);
		p->per_hour = 0;
		p->ratio = METRIC_PRICE_RATIO;
	}
	if (given.has_counter)
		*c = given.counter;
	if (given.has_price)
		*p = given.price;
}

/* Applies one source's energy at level l to s, when s has none yet. */
static void efficiency_apply_energy(struct level_summary *s, const struct db_metric_level *l)
{
	if (s->energy_rc != ENERGY_NOT_SCRAPED || l->e.rc == ENERGY_NOT_SCRAPED)
		return;     /* an earlier source's, or this one has no counter */
	s->energy_rc = l->e.rc;
	snprintf(s->energy_source, sizeof(s->energy_source), "%s", l->source);
	if (l->e.rc)
		return;
	s->energy_j = l->e.joules;
	s->energy_window_s = l->e.window_s;
	s->tokens_per_joule = metric_tokens_per_joule((double)s->tokens, l->e.joules);
	s->joules_per_request = metric_joules_per_request(l->e.joules, (double)s->requests);
}

int efficiency_possible(struct db *db, const char *label, const struct run_params *param,
			int *yes, char *err, size_t errlen)
{
	struct energy_counter c;
	struct metric_price p;

	efficiency_of(param, &c, &p);
	*yes = p.per_hour > 0;
	return *yes ? DB_OK : db_run_has_sample(db, label, c.name, yes, err, errlen);
}

int efficiency_fill(struct db *db, const char *label, const struct run_params *param,
		    struct level_summary *levels, size_t n, char *err, size_t errlen)
{
	struct db_metric_level *lv = NULL;
	struct energy_counter c;
	struct metric_price p;
	size_t n_lv = 0, i, k;
	int rc;

	efficiency_of(param, &c, &p);
	for (i = 0; i < n; i++)
		metric_cost_per_mtok(&p, levels[i].wall_s, (double)levels[i].input_tokens,
				     (double)levels[i].tokens, &levels[i].cost_per_m_in,
				     &levels[i].cost_per_m_out);
	rc = db_metric_levels(db, label, &c, &lv, &n_lv, err, errlen);
	if (rc)
		return rc;
	/* lv runs source by source, in their --metrics-url order */
	for (k = 0; k < n_lv; k++)
		for (i = 0; i < n; i++)
			if (load_same(levels[i].level, load_of_code(lv[k].level, NAN)))
				efficiency_apply_energy(&levels[i], &lv[k]);
	free(lv);
	return DB_OK;
}
