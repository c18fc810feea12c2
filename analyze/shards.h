/*
 * shards.h - a run merged from the shards of several replays (replay
 * --shard K/N, loaded under one label): is it whole, did its shards start
 * together on one schedule, do their hosts' clocks agree.
 *
 * Each shard's results header carries its host and clock (schema/FORMAT.md
 * "clock"): the wall-clock instant its offsets count from and, when it was
 * measured (replay --start-at), its clock's offset from the server's. The
 * start of a shard, on the server's clock, is that instant plus the offset
 * plus its lag at the start; the spread of these is how far apart the
 * shards started.
 */
#ifndef TB_ANALYZE_SHARDS_H
#define TB_ANALYZE_SHARDS_H

#include <stddef.h>
#include <stdio.h>
#include "analyze/db.h"
#include "analyze/run.h"

/* What the shards of one run say about it. */
struct shards_view {
	size_t loaded;          /* shard files loaded (0: the run is not sharded) */
	long expected;          /* N of K/N */
	char missing[256];      /* "2/3, 4/5" (shortened with "..."), "" when whole */
	size_t n_missing;
	size_t hosts;           /* distinct hosts among the shards' clocks */
	char host_list[128];    /* "a, b" (shortened) */
	double start_spread_ms; /* NaN when some shard has no clock */
	size_t measured;        /* shards whose clock offset was measured */
	double disagree_ms;     /* of the two shards whose measured offsets surely
				 * differ most (difference minus error largest) */
	double disagree_err_ms; /* its uncertainty (the two errors summed) */
	long disagree_a, disagree_b;   /* K of the two shards */
	double tolerance_ms;    /* what the schedule tolerates */
	double mean_gap_ms;     /* open loop: mean gap of the merged schedule, else NaN */
};

/*
 * Looks at the shards of 'label'. 'run' (may be NULL: no tolerance) gives
 * the closed loop's E2E. Returns DB_OK with *v filled, or a DB_ERR_* code.
 */
int shards_view(struct db *db, const char *label, const struct run *run,
		struct shards_view *v, char *err, size_t errlen);

/*
 * The one place that says which C a sharded run's level stands for:
 * each of S shards (S >= 2 loaded) of a closed loop ran C at a time, so
 * the server saw S x C. Sets *factor to S for such a run, else 1, for
 * shards_load to apply; report, plot and compare all label levels so.
 * Returns DB_OK or a DB_ERR_* code.
 */
int shards_level_factor(struct db *db, const char *label, int *factor, char *err,
			size_t errlen);

/* A stored level's load as the server saw it: a concurrency times factor
 * (shards_level_factor), any other load as it is. */
struct load shards_load(struct load load, int factor);

/*
 * Text and Markdown: the shard lines of a merged run under its report (a
 * summary line, one line a shard with its host, start lag, send lag and
 * clock offset, and warnings: a shard missing, clocks that disagree by
 * more than the schedule tolerates). Nothing for a run that is no shards.
 * Sets *printed to 1 when it printed something.
 */
int shards_print(FILE *out, struct db *db, const char *label, const struct run *run,
		 int *printed, char *err, size_t errlen);

#endif
