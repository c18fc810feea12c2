/*
 * energy.c - a level's energy from an energy counter over its windows; see
 * energy.h for the rules.
 */
#include "lib/energy.h"
#include "lib/errmsg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *energy_strerror(int rc)
{
	switch (rc) {
	case ENERGY_OK: return "ok";
	case ENERGY_NOT_SCRAPED: return "no energy counter scraped";
	case ENERGY_NO_WINDOW: return "no scrapes at the level's start and end (a file before "
				      "them, or a level started by --start-at)";
	case ENERGY_RESET: return "the energy counter went down inside the level's window "
				  "(a reset)";
	case ENERGY_BAD_VALUE: return "the energy counter was NaN, infinite, negative or past "
				      "1e18";
	case ENERGY_SERIES_CHANGED: return "a GPU's energy series was at one edge of the "
					   "level's window only";
	case ENERGY_OVERLAP: return "the level's windows overlap (shards): the same joules "
				    "would count twice";
	case ENERGY_TOO_MANY_SERIES: return "more energy series than "
					    "64 (ENERGY_MAX_SERIES)";
	case ENERGY_NO_INCREASE: return "the energy counter did not rise over the level";
	default: return "unknown error";
	}
}

void energy_counter_default(struct energy_counter *c)
{
	static const struct energy_counter dcgm = { ENERGY_DCGM_NAME, 1e-3 };

	*c = dcgm;
}

int energy_counter_parse(const char *spec, struct energy_counter *c, char *err, size_t errlen)
{
	const char *colon = strrchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec), i;
	double to = 1;

	if (colon && !strcmp(colon + 1, "mJ"))
		to = 1e-3;
	else if (colon && strcmp(colon + 1, "J")) {
		errmsg_set(err, errlen, "unit '%s' is not J or mJ", colon + 1);
		return -1;
	}
	if (!n || n >= sizeof(c->name)) {
		errmsg_set(err, errlen, "a metric name of 1 to %zu bytes is needed",
			   sizeof(c->name) - 1);
		return -1;
	}
	/* the exposition format's names: [a-zA-Z_:][a-zA-Z0-9_:]* */
	for (i = 0; i < n; i++) {
		char ch = spec[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' ||
		      ch == ':' || (i && ch >= '0' && ch <= '9'))) {
			errmsg_set(err, errlen, "'%.*s' is not a Prometheus metric name", (int)n,
				   spec);
			return -1;
		}
	}
	memcpy(c->name, spec, n);
	c->name[n] = '\0';
	c->to_joules = to;
	return 0;
}

void energy_level_init(struct energy_level *e, const struct energy_counter *c)
{
	memset(e, 0, sizeof(*e));
	e->c = *c;
	e->joules = e->window_s = NAN;
}

/* FNV-1a of a series: the key of a label set (a GPU). */
static uint64_t series_key(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; s && *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

/* Remembers the first reason the level has no figure. */
static void refuse(struct energy_level *e, int rc)
{
	if (!e->rc)
		e->rc = rc;
}

/* Folds the scrape being read: a window opens at a start scrape and is
 * counted at its end scrape; an interval scrape inside checks that the
 * counter only rose. */
static void end_scrape(struct energy_level *e)
{
	size_t i;
	int any = 0;

	if (!e->in_scrape)
		return;
	e->in_scrape = 0;
	for (i = 0; i < e->series; i++)
		any |= e->has_cur[i];
	if (e->cur_at == SRVMETRIC_AT_START) {
		if (e->open)
			refuse(e, ENERGY_OVERLAP);
		e->open = 1;
		e->start_t_ns = e->cur_t_ns;
		for (i = 0; i < e->series; i++) {
			e->has_start[i] = e->has_last[i] = e->has_cur[i];
			e->start[i] = e->last[i] = e->cur[i];
		}
	} else if (e->open && (e->cur_at == SRVMETRIC_AT_INTERVAL ||
			       e->cur_at == SRVMETRIC_AT_END)) {
		double j = 0;

		for (i = 0; i < e->series; i++) {
			if (e->has_cur[i] && e->has_last[i] && e->cur[i] < e->last[i])
				refuse(e, ENERGY_RESET);
			if (e->has_cur[i]) {
				e->last[i] = e->cur[i];
				e->has_last[i] = 1;
			}
			if (e->cur_at == SRVMETRIC_AT_END) {
				if (e->has_start[i] != e->has_cur[i])
					refuse(e, ENERGY_SERIES_CHANGED);
				else if (e->has_start[i])
					j += e->cur[i] - e->start[i];
			}
		}
		if (e->cur_at == SRVMETRIC_AT_END) {
			e->open = 0;
			if (any) {
				e->sum_j += j * e->c.to_joules;
				e->sum_ns += (double)(e->cur_t_ns - e->start_t_ns);
				e->windows++;
			}
		}
	}
	for (i = 0; i < e->series; i++)
		e->has_cur[i] = 0;
}

void energy_level_add(struct energy_level *e, long scrape, enum srvmetric_at at, int64_t t_ns,
		      const char *name, const char *series, double value)
{
	uint64_t key;
	size_t i;

	if (!e->in_scrape || scrape != e->cur_scrape) {
		end_scrape(e);
		e->in_scrape = 1;
		e->cur_scrape = scrape;
		e->cur_at = at;
		e->cur_t_ns = t_ns;
	}
	if (!name || strcmp(name, e->c.name))
		return;
	e->seen = 1;
	if (at == SRVMETRIC_AT_BETWEEN || (at == SRVMETRIC_AT_INTERVAL && !e->open))
		return;         /* outside every window: not the level's */
	if (!(value >= 0 && value <= ENERGY_MAX_VALUE)) {     /* NaN fails too */
		refuse(e, ENERGY_BAD_VALUE);
		return;
	}
	key = series_key(series ? series : name);
	for (i = 0; i < e->series && e->key[i] != key; i++)
		;
	if (i == e->series) {
		if (e->series == ENERGY_MAX_SERIES) {
			refuse(e, ENERGY_TOO_MANY_SERIES);
			return;
		}
		e->key[e->series++] = key;  /* new: at no edge before this scrape */
	}
	if (e->has_cur[i])
		return;         /* the same series twice in one scrape: the first counts */
	e->cur[i] = value;
	e->has_cur[i] = 1;
}

void energy_level_finish(struct energy_level *e)
{
	end_scrape(e);
	if (!e->seen)
		refuse(e, ENERGY_NOT_SCRAPED);
	else if (!e->windows)
		refuse(e, ENERGY_NO_WINDOW);
	else if (!(e->sum_j > 0))
		refuse(e, ENERGY_NO_INCREASE);
	if (e->rc)
		return;
	e->joules = e->sum_j;
	e->window_s = e->sum_ns / 1e9;
}
