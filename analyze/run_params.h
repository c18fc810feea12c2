/*
 * run_params.h - what a run was asked to do: its results header's
 * "params" (schema/FORMAT.md), as the database keeps them per run (JSON
 * text, db_run.params), read once and range-checked into one struct that
 * report, compare, plot and shards read. The JSON text stays for what
 * compares parameters generically (analyze diff) or shows them.
 *
 * A member absent, of the wrong type or out of range reads as absent
 * (NaN, 0, NULL): the params come from a file, which may be another
 * tool's or damaged.
 */
#ifndef TB_ANALYZE_RUN_PARAMS_H
#define TB_ANALYZE_RUN_PARAMS_H

#include <stddef.h>

#include "lib/capacity.h"
#include "lib/energy.h"
#include "lib/metric.h"
#include "lib/result.h"

#define RUN_PARAMS_MAX_LEVELS 256   /* a longer "concurrency" list: no plan */

/* "mode": replay's closed loop, its open loop, or neither (another tool's,
 * a capture's, absent). */
enum run_mode { RUN_MODE_OTHER, RUN_MODE_CLOSED, RUN_MODE_OPEN };

struct run_params {
	enum run_mode mode;
	double rate;            /* "rate": an open loop's offered req/s; NaN none */
	double salt_seed;       /* "salt_seed"; NaN none */
	int timeless;           /* "start_times": false: requests without start
				 * times (foreign.h), so no wall time */
	int sharded;            /* "shard" present: one of several shards */
	/* the closed loop's plan: "concurrency" (levels[0..n_levels) the
	 * whole numbers in [1, 1e6]; planless when it is no list or longer
	 * than RUN_PARAMS_MAX_LEVELS), "requests" per level (0: replay's
	 * default, max(4, 2 C)) and "repeat" (1 when absent) */
	int levels[RUN_PARAMS_MAX_LEVELS];
	size_t n_levels;
	int planless;
	double requests;
	double repeat;
	/* "capacity" (replay --find-capacity): is_capacity with the search's
	 * settings, its SLO and the SLO as given */
	int is_capacity;
	struct capacity_options capacity;
	struct metric_slo slo;
	char slo_spec[256];
	/* "cancel" (replay --cancel): its share, point and seed */
	int has_cancel;
	double cancel_share, cancel_seed;
	char cancel_after[RESULT_CANCEL_MAX];
	/* "ab": the labels of an A/B run's sides (owned), else none; and
	 * "ab.halves": the file's repeats a block of the run holds (each side
	 * ran it in halves, replay/schedule.h), 1 when absent (older files:
	 * a repeat was a block) */
	char **ab_labels;
	size_t n_ab_labels;
	int ab_halves;
	/* "notes": what a capture's or another tool's run lacks (owned) */
	char **notes;
	size_t n_notes;
	/* "metrics.energy" and "price": the energy counter the header names
	 * (DCGM's when none) and the price (per_hour 0: none) */
	struct energy_counter energy;
	struct metric_price price;
};

/* Reads json (NULL or not an object: every member absent) into *p, which
 * run_params_release frees. Returns 0, or -1 when out of memory (*p then
 * holds what was read, and can be released). */
int run_params_read(const char *json, struct run_params *p);
void run_params_release(struct run_params *p);

/* True when 'label' is one of p's A/B sides. */
int run_params_ab_side(const struct run_params *p, const char *label);

#endif
