/*
 * efficiency.h - what a level's tokens cost: tokens per joule and joules
 * per request from an energy counter the run scraped (lib/energy.h), and
 * the cost per million input and output tokens at the run's
 * --price-per-hour (lib/metric.h), into the level summaries report,
 * compare and plot show.
 *
 * The counter is the one the run's header names (params.metrics.energy,
 * replay --energy-metric), else DCGM's. Of several --metrics-url, a
 * level's figure is of the first (in the order given) whose scrapes carry
 * the counter at that level; a level none of them carries it at keeps
 * ENERGY_NOT_SCRAPED, one where the first that carries it refuses it (a
 * reset, a NaN) the reason.
 */
#ifndef TB_ANALYZE_EFFICIENCY_H
#define TB_ANALYZE_EFFICIENCY_H

#include <stddef.h>

#include "analyze/db.h"
#include "lib/energy.h"
#include "lib/metric.h"
#include "lib/summary.h"

/* The energy counter and price a run's params name (replay's header; NULL:
 * none): *c DCGM's when they name none, p->per_hour 0 when no price;
 * either replaced by the one efficiency_override() set. */
void efficiency_of(const struct run_params *param, struct energy_counter *c,
		   struct metric_price *p);

/*
 * analyze report, compare and plot's --energy-metric and --price-per-hour:
 * the counter and price every run is read with from now on, in place of
 * those its header names (a run replayed without them, or with others).
 * NULL keeps the header's. The values are copied.
 */
void efficiency_override(const struct energy_counter *c, const struct metric_price *p);

/* True when efficiency_override() set a counter or a price: every run then
 * has the energy and cost columns. */
int efficiency_overridden(void);

/* Whether efficiency_fill can give the run 'label' (param as there) any
 * figure: *yes 1 when it has a price or a sample of its energy counter.
 * Returns DB_OK or a DB_ERR_* code with why in err. */
int efficiency_possible(struct db *db, const char *label, const struct run_params *param,
			int *yes, char *err, size_t errlen);

/*
 * Fills the energy and price fields of the n level summaries of the run
 * 'label' (param its first file's header params, NULL: none). Returns DB_OK or a
 * DB_ERR_* code with why in err.
 */
int efficiency_fill(struct db *db, const char *label, const struct run_params *param,
		    struct level_summary *levels, size_t n, char *err, size_t errlen);

#endif
