/*
 * run_params.c - a run's params JSON read once into struct run_params.
 */
#include "analyze/run_params.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

static const cJSON *member(const cJSON *obj, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* obj.key as a number in [lo, hi], else NaN. */
static double number_in(const cJSON *obj, const char *key, double lo, double hi)
{
	const cJSON *v = member(obj, key);

	return cJSON_IsNumber(v) && v->valuedouble >= lo && v->valuedouble <= hi ?
	       v->valuedouble : NAN;
}

/* The strings of the array obj.key, copied into *out (*n of them). */
static int read_strings(const cJSON *obj, const char *key, char ***out, size_t *n)
{
	const cJSON *list = member(obj, key), *it;
	int size = cJSON_IsArray(list) ? cJSON_GetArraySize(list) : 0;

	*out = NULL;
	*n = 0;
	if (size <= 0)
		return 0;
	if (!(*out = calloc((size_t)size, sizeof(**out))))
		return -1;
	cJSON_ArrayForEach(it, list)
		if (cJSON_IsString(it) && !((*out)[(*n)++] = strdup(it->valuestring)))
			return -1;
	return 0;
}

/* The closed loop's plan: its levels, requests and repeats. */
static void read_plan(const cJSON *j, struct run_params *p)
{
	const cJSON *list = member(j, "concurrency"), *c;
	double v;

	v = number_in(j, "requests", 0, INFINITY);
	p->requests = v > 0 ? v : 0;
	v = number_in(j, "repeat", 1, INFINITY);
	p->repeat = isnan(v) ? 1 : v;
	p->planless = p->mode != RUN_MODE_CLOSED || !cJSON_IsArray(list) ||
		      cJSON_GetArraySize(list) > RUN_PARAMS_MAX_LEVELS || member(j, "capacity") ||
		      p->sharded || p->timeless;
	if (p->planless)
		return;
	cJSON_ArrayForEach(c, list) {
		double level = cJSON_GetNumberValue(c);

		if (level >= 1 && level <= 1e6)
			p->levels[p->n_levels++] = (int)level;
	}
}

/* "capacity": replay --find-capacity's settings and SLO. */
static void read_capacity(const cJSON *j, struct run_params *p)
{
	const cJSON *c = member(j, "capacity");
	const char *s = cJSON_GetStringValue(member(c, "slo")), *by;
	struct capacity_options *k = &p->capacity;
	double v;

	if (!s || metric_slo_parse(s, &p->slo, NULL, 0) != 0)
		return;
	snprintf(p->slo_spec, sizeof(p->slo_spec), "%s", s);
#define NUM(key, field, lo, hi) \
	if (!isnan(v = number_in(c, key, lo, hi))) \
		k->field = v
	NUM("share", share, 0.01, 0.9999);
	NUM("confidence", confidence, 0.5, 0.9999);
	NUM("tolerance", tolerance, 0, 10);
	NUM("start", start, 1e-3, 1e6);
	NUM("max", max, 1e-3, 1e6);
#undef NUM
	/* a search before rates were searched has no "by": concurrency */
	by = cJSON_GetStringValue(member(c, "by"));
	k->by_rate = by && strcmp(by, "rate") == 0;
	v = number_in(c, "max_requests", 1, 1e7);
	k->max_requests = isnan(v) ? 400 : (long)v;
	v = number_in(c, "batch", 1, 1e8);
	k->batch = isnan(v) ? 0 : (long)v;
	p->is_capacity = k->share > 0 && k->confidence > 0;
}

/* "cancel": replay --cancel's share, point and seed, all three or none. */
static void read_cancel(const cJSON *j, struct run_params *p)
{
	const cJSON *c = member(j, "cancel");
	const cJSON *share = member(c, "share"), *after = member(c, "after");
	const cJSON *seed = member(c, "seed");

	if (!cJSON_IsNumber(share) || !cJSON_IsString(after) || !cJSON_IsNumber(seed))
		return;
	p->has_cancel = 1;
	p->cancel_share = share->valuedouble;
	p->cancel_seed = seed->valuedouble;
	snprintf(p->cancel_after, sizeof(p->cancel_after), "%s", after->valuestring);
}

/* "metrics.energy" and "price", passing the checks --energy-metric and
 * --price-per-hour make. */
static void read_efficiency(const cJSON *j, struct run_params *p)
{
	const cJSON *e = member(member(j, "metrics"), "energy"), *pr = member(j, "price");
	const char *name = cJSON_GetStringValue(member(e, "metric"));
	const char *unit = cJSON_GetStringValue(member(e, "unit"));
	char spec[ENERGY_MAX_NAME + 8];
	double v;

	energy_counter_default(&p->energy);
	if (name && unit) {
		struct energy_counter named;

		snprintf(spec, sizeof(spec), "%s:%s", name, unit);
		if (energy_counter_parse(spec, &named, NULL, 0) == 0)
			p->energy = named;
	}
	p->price.per_hour = 0;
	p->price.ratio = METRIC_PRICE_RATIO;
	if ((v = number_in(pr, "per_hour", 0, 1e9)) > 0) {
		p->price.per_hour = v;
		if (!isnan(v = number_in(pr, "output_input_ratio", 0.01, 1e6)))
			p->price.ratio = v;
	}
}

int run_params_read(const char *json, struct run_params *p)
{
	cJSON *j = json ? cJSON_Parse(json) : NULL;
	const char *mode;
	int rc;

	memset(p, 0, sizeof(*p));
	if (!cJSON_IsObject(j)) {
		cJSON_Delete(j);
		j = NULL;
	}
	mode = cJSON_GetStringValue(member(j, "mode"));
	p->mode = !mode ? RUN_MODE_OTHER : !strcmp(mode, "closed") ? RUN_MODE_CLOSED :
		  !strcmp(mode, "open") ? RUN_MODE_OPEN : RUN_MODE_OTHER;
	p->rate = number_in(j, "rate", -INFINITY, INFINITY);
	p->salt_seed = number_in(j, "salt_seed", -INFINITY, INFINITY);
	p->timeless = cJSON_IsFalse(member(j, "start_times"));
	p->sharded = member(j, "shard") != NULL;
	read_plan(j, p);
	read_capacity(j, p);
	read_cancel(j, p);
	read_efficiency(j, p);
	p->ab_halves = number_in(member(j, "ab"), "halves", 2, 2) == 2 ? 2 : 1;
	rc = read_strings(member(j, "ab"), "labels", &p->ab_labels, &p->n_ab_labels) ||
	     read_strings(j, "notes", &p->notes, &p->n_notes) ? -1 : 0;
	cJSON_Delete(j);
	return rc;
}

void run_params_release(struct run_params *p)
{
	size_t i;

	for (i = 0; i < p->n_ab_labels; i++)
		free(p->ab_labels[i]);
	free(p->ab_labels);
	for (i = 0; i < p->n_notes; i++)
		free(p->notes[i]);
	free(p->notes);
	memset(p, 0, sizeof(*p));
}

int run_params_ab_side(const struct run_params *p, const char *label)
{
	size_t i;

	for (i = 0; i < p->n_ab_labels; i++)
		if (!strcmp(p->ab_labels[i], label))
			return 1;
	return 0;
}
