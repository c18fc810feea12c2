/*
 * energy.h - the energy a server used over a level, from an energy counter
 * it exposes on a /metrics endpoint (a GPU exporter's, such as NVIDIA
 * DCGM's DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION, millijoules since the
 * driver loaded, one series per GPU), folded over exactly the level's
 * window: from the scrape replay takes at its start (before its first
 * measured request) to the one at its end (after its last answer).
 *
 * The figure is strict where lib/srvmetric.h's counters are lenient: a
 * token count that restarts can be counted from 0 again, but energy that
 * went down, or a value that is not a number from 0 to ENERGY_MAX_VALUE,
 * means the window's energy is not known, so the level gets no figure and the
 * reason (energy_strerror) instead of a wrong one. Series (label sets,
 * one a GPU) are summed; a series present at one edge of a window and not
 * the other refuses the window too. Windows of repeats (replay --repeat)
 * add up; windows that overlap (the shards of one run, each with its own)
 * would count the same joules twice and are refused.
 *
 *   struct energy_level e;
 *   energy_level_init(&e, &counter);
 *   for each sample of each ok scrape of the level, in time order:
 *       energy_level_add(&e, scrape_id, at, t_ns, name, series, value);
 *   energy_level_finish(&e);   e.rc 0: e.joules over e.window_s
 */
#ifndef TB_ENERGY_H
#define TB_ENERGY_H

#include <stddef.h>
#include <stdint.h>

#include "lib/srvmetric.h"

/* DCGM's counter: millijoules per GPU since the driver loaded. */
#define ENERGY_DCGM_NAME "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"

#define ENERGY_MAX_NAME   128   /* bytes of a counter's name, with its NUL */
#define ENERGY_MAX_SERIES 64    /* label sets (GPUs) of one counter; more: refused */
/* The largest counter value taken, in its own unit: a GPU at 1 kW for
 * 30,000 years in mJ. A server's larger one is refused: 64 series of
 * values near 1.8e308 would sum past a double's range (to +inf, and so
 * to 0 tokens per joule). */
#define ENERGY_MAX_VALUE  1e18

/* Which counter is energy, and its unit. */
struct energy_counter {
	char name[ENERGY_MAX_NAME];
	double to_joules;       /* 1 for J, 1e-3 for mJ */
};

/* Why a level has no energy figure (energy_level.rc), 0 when it has one. */
enum energy_rc {
	ENERGY_OK = 0,
	ENERGY_NOT_SCRAPED = -1,    /* the counter is not among the level's samples */
	ENERGY_NO_WINDOW = -2,      /* no scrape pair at the level's start and end */
	ENERGY_RESET = -3,          /* it went down inside a window */
	ENERGY_BAD_VALUE = -4,      /* NaN, infinite, negative or past ENERGY_MAX_VALUE */
	ENERGY_SERIES_CHANGED = -5, /* a series at one edge of a window only */
	ENERGY_OVERLAP = -6,        /* windows overlap (shards) */
	ENERGY_TOO_MANY_SERIES = -7,
	ENERGY_NO_INCREASE = -8     /* the window's increase is 0: no joules to divide by */
};

/* What rc means, for a report's note ("the counter went down ..."). */
const char *energy_strerror(int rc);

/* DCGM's counter in millijoules. */
void energy_counter_default(struct energy_counter *c);

/*
 * The counter of "NAME[:UNIT]" (UNIT J, the default, or mJ), as replay's
 * --energy-metric takes it: 0 and *c set, or -1 with why in err.
 */
int energy_counter_parse(const char *spec, struct energy_counter *c, char *err, size_t errlen);

/* One level's scrapes of one source being folded. */
struct energy_level {
	/* the result, after energy_level_finish */
	int rc;                     /* 0, or an enum energy_rc */
	double joules;              /* over the windows; NaN unless rc is 0 */
	double window_s;            /* their length: start scrape to end scrape */
	size_t windows;             /* start..end pairs counted */
	size_t series;              /* label sets summed */
	/* the fold */
	struct energy_counter c;
	int seen;                   /* a sample of the counter came */
	int open;                   /* inside a window */
	int in_scrape;
	long cur_scrape;
	enum srvmetric_at cur_at;
	int64_t cur_t_ns, start_t_ns;
	double sum_j, sum_ns;
	uint64_t key[ENERGY_MAX_SERIES];
	double start[ENERGY_MAX_SERIES], last[ENERGY_MAX_SERIES], cur[ENERGY_MAX_SERIES];
	unsigned char has_start[ENERGY_MAX_SERIES], has_last[ENERGY_MAX_SERIES];
	unsigned char has_cur[ENERGY_MAX_SERIES];
};

/* c is copied. */
void energy_level_init(struct energy_level *e, const struct energy_counter *c);

/* One sample of scrape 'scrape', sent at t_ns (the results file's offset)
 * and standing at 'at' against the level; name the sample's, series it
 * with its labels (NULL: none). Samples of other names are ignored. */
void energy_level_add(struct energy_level *e, long scrape, enum srvmetric_at at, int64_t t_ns,
		      const char *name, const char *series, double value);

/* Folds the last scrape in and sets rc, joules and window_s. */
void energy_level_finish(struct energy_level *e);

#endif
