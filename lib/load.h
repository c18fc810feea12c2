/*
 * load.h - the load a level runs at, the one home of the concept: a
 * concurrency C (closed loop), an open-loop run of one rate (replay
 * --rate or --timing), or the k-th rate probe of a search over rates
 * (replay --find-capacity), its offered rate R.
 *
 * A load travels through the code as struct load; the integer "level" is
 * only its encoding where a load is stored, in the results file's records
 * (struct result's level, schema/FORMAT.md) and the database's level
 * columns (schema/tracebench.sql): C for a concurrency, 0 for an open
 * loop, -k for the k-th rate probe, the probe's rate kept beside it
 * (result.rate, requests.rate). load_code and load_of_code convert where
 * a record or a row is written or read (whose readers check its range);
 * no other code looks at its sign.
 */
#ifndef TB_LOAD_H
#define TB_LOAD_H

#include <stddef.h>

/* LOAD_OPEN first: a zeroed struct load is the open loop, as code 0 is. */
enum load_kind {
	LOAD_OPEN,     /* an open-loop run of one rate */
	LOAD_CLOSED,   /* C requests kept in flight */
	LOAD_RATE,     /* a rate probe of replay --find-capacity */
};

struct load {
	enum load_kind kind;
	int concurrency;   /* LOAD_CLOSED: C >= 1; else 0 */
	int probe;         /* LOAD_RATE: k >= 1, the k-th rate probed; else 0 */
	double rate;       /* LOAD_OPEN, LOAD_RATE: the offered req/s; not above 0
			    * (NaN, as the constructors leave it): not known */
};

/* The loads of each kind; load_closed's rate is NaN, and a rate that is
 * not above 0 becomes NaN. */
struct load load_closed(int concurrency);
struct load load_open(double rate);
struct load load_probe(int k, double rate);

/* The integer a record or a database row stores for l: C, 0 or -k. */
int load_code(struct load l);

/* The load that code (load_code's) stands for, rate its offered req/s
 * (a record's or a row's rate; 0 or NaN: not known), used by the open and
 * rate kinds only. */
struct load load_of_code(int code, double rate);

/* l without its rate: a probe named by its number ("r3", "rate level 3"),
 * as the tables and messages that name a level by its code alone do. */
struct load load_unrated(struct load l);

/* Orders loads as the database lists levels: the rate probes first, by
 * their rate (those without one after, ties by code), then the open loop,
 * then the concurrencies, ascending. Returns <0, 0, >0 as strcmp. */
int load_cmp(struct load a, struct load b);

/* True when a and b are the same level: kind and C or k (not the rate,
 * which a probe's records may carry and its rows not). */
int load_same(struct load a, struct load b);

/* The load column of a table: "4", "open", "12.5/s" for a probe of rate
 * 12.5, "r3" for the third probe when its rate is not known. Returns buf. */
const char *load_cell(struct load l, char *buf, size_t len);

/* A load in a sentence: "C=4", "open loop", "12.5 req/s", "rate level 3".
 * Returns buf. */
const char *load_name(struct load l, char *buf, size_t len);

#endif
