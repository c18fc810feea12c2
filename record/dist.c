/*
 * dist.c - seeded lengths for record synth; see dist.h.
 */
#include "dist.h"
#include "lib/cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int dist_parse(const char *spec, struct dist *d)
{
	static const struct { const char *name; enum dist_kind kind; } kinds[] = {
		{ "uniform:", DIST_UNIFORM },
		{ "normal:", DIST_NORMAL },
		{ "lognormal:", DIST_LOGNORMAL },
	};
	char first[64];
	const char *rest, *colon;
	struct dist t;
	size_t i, len;
	long v;

	if (cli_parse_long(spec, DIST_MIN, DIST_MAX, &v) == 0) {
		d->kind = DIST_FIXED;
		d->a = d->b = (double)v;
		return 0;
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strncmp(spec, kinds[i].name, strlen(kinds[i].name)) == 0)
			break;
	if (i == sizeof(kinds) / sizeof(kinds[0]))
		return -1;
	t.kind = kinds[i].kind;
	rest = spec + strlen(kinds[i].name);
	colon = strchr(rest, ':');
	if (!colon || (len = (size_t)(colon - rest)) >= sizeof(first))
		return -1;
	memcpy(first, rest, len);
	first[len] = '\0';
	if (cli_parse_double(first, 0, (double)DIST_MAX, &t.a) < 0 ||
	    cli_parse_double(colon + 1, 0, (double)DIST_MAX, &t.b) < 0)
		return -1;
	if (t.kind == DIST_UNIFORM && (t.a < DIST_MIN || floor(t.b) < ceil(t.a)))
		return -1;
	if (t.kind != DIST_UNIFORM && t.a <= 0)
		return -1;
	*d = t;
	return 0;
}

long dist_sample(const struct dist *d, struct rng *r)
{
	double x = d->a;

	switch (d->kind) {
	case DIST_FIXED:
		break;
	case DIST_UNIFORM:
	{	/* the integers in [A, B], each equally likely */
		double lo = ceil(d->a), hi = floor(d->b);

		x = lo + floor(rng_uniform(r) * (hi - lo + 1.0));
		if (x > hi)
			x = hi;
		break;
	}
	case DIST_NORMAL:
		x = d->a + d->b * rng_normal(r, 0, 1);
		break;
	case DIST_LOGNORMAL: {
		double s2 = log1p((d->b * d->b) / (d->a * d->a));

		x = exp(log(d->a) - s2 / 2.0 + sqrt(s2) * rng_normal(r, 0, 1));
		break;
	}
	}
	x = floor(x + 0.5);
	if (!(x >= DIST_MIN))
		return DIST_MIN;
	if (x > DIST_MAX)
		return DIST_MAX;
	return (long)x;
}
