/*
 * load.c - the load a level runs at and its integer encoding; see load.h.
 */
#include "load.h"

#include <math.h>
#include <stdio.h>

/* The encoding of load.h: the open loop is 0, a concurrency above it,
 * the rate probes below. */
#define LOAD_OPEN_CODE 0

struct load load_closed(int concurrency)
{
	struct load l = { LOAD_CLOSED, concurrency, 0, NAN };

	return l;
}

struct load load_open(double rate)
{
	struct load l = { LOAD_OPEN, 0, 0, rate > 0 ? rate : NAN };

	return l;
}

struct load load_probe(int k, double rate)
{
	struct load l = { LOAD_RATE, 0, k, rate > 0 ? rate : NAN };

	return l;
}

int load_code(struct load l)
{
	switch (l.kind) {
	case LOAD_CLOSED:
		return l.concurrency;
	case LOAD_RATE:
		return LOAD_OPEN_CODE - l.probe;
	case LOAD_OPEN:
	default:
		return LOAD_OPEN_CODE;
	}
}

struct load load_of_code(int code, double rate)
{
	if (code > LOAD_OPEN_CODE)
		return load_closed(code);
	if (code < LOAD_OPEN_CODE)
		return load_probe(LOAD_OPEN_CODE - code, rate);
	return load_open(rate);
}

struct load load_unrated(struct load l)
{
	l.rate = NAN;
	return l;
}

/* The rank of a kind in load_cmp's order, which is the codes' order. */
static int load_rank(enum load_kind kind)
{
	return kind == LOAD_RATE ? 0 : kind == LOAD_OPEN ? 1 : 2;
}

int load_cmp(struct load a, struct load b)
{
	int ra = load_rank(a.kind), rb = load_rank(b.kind);
	int ca, cb;

	if (ra != rb)
		return ra < rb ? -1 : 1;
	if (a.kind == LOAD_RATE) {
		int ka = a.rate > 0, kb = b.rate > 0;

		if (ka != kb)
			return ka ? -1 : 1;   /* a known rate first */
		if (ka && a.rate != b.rate)
			return a.rate < b.rate ? -1 : 1;
	}
	ca = load_code(a);
	cb = load_code(b);
	return (ca > cb) - (ca < cb);
}

int load_same(struct load a, struct load b)
{
	return a.kind == b.kind && load_code(a) == load_code(b);
}

const char *load_cell(struct load l, char *buf, size_t len)
{
	if (l.kind == LOAD_CLOSED)
		snprintf(buf, len, "%d", l.concurrency);
	else if (l.kind == LOAD_OPEN)
		snprintf(buf, len, "open");
	else if (l.rate > 0)
		snprintf(buf, len, "%.4g/s", l.rate);
	else
		snprintf(buf, len, "r%d", l.probe);
	return buf;
}

const char *load_name(struct load l, char *buf, size_t len)
{
	if (l.kind == LOAD_CLOSED)
		snprintf(buf, len, "C=%d", l.concurrency);
	else if (l.kind == LOAD_OPEN)
		snprintf(buf, len, "open loop");
	else if (l.rate > 0)
		snprintf(buf, len, "%.4g req/s", l.rate);
	else
		snprintf(buf, len, "rate level %d", l.probe);
	return buf;
}
