/*
 * noise.c - the noise model of `mock --noise`; see noise.h.
 *
 * Each draw comes from a stream of lib/random.h derived from what it
 * depends on (the seed and a request's number, the seed and a block of
 * time), never from a generator advanced in the order things happen, so
 * that a value is the same whenever it is asked for and two mocks with one
 * seed repeat each other.
 */
#include "mock/noise.h"
#include "lib/random.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The drift's periods and phases come from this constant, not from
 * --seed: every mock on a host must see the one drift. */
#define HOST_SEED 0x6e6f6973652d6866ULL

/* Keys of the seeded streams, one per part. */
enum { KEY_INSTANCE = 1, KEY_JITTER = 2, KEY_TAIL = 3, KEY_STALL = 4 };

/* Stalls are drawn per block of time of this many seconds (at least the
 * stall's length), so that the stalls near t are found without state. */
#define STALL_BLOCK_S 10.0

#define MAX_PART 128            /* longest part of a spec, bytes */

/* ---- parsing ------------------------------------------------------------ */

/* A fraction ("0.1") or a percentage ("10%") in [0, max] into *out. */
static int parse_share(const char *s, double max, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *s == ' ')
		return -1;
	if (*end == '%') {
		v /= 100;
		end++;
	}
	if (*end || !isfinite(v) || v < 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

/* A duration with its unit (ms, s, min, h), above 0, into seconds. */
static int parse_duration(const char *s, double *out)
{
	static const struct { const char *unit; double s; } units[] = {
		{ "ms", 1e-3 }, { "s", 1 }, { "min", 60 }, { "h", 3600 },
	};
	char *end;
	double v = strtod(s, &end);
	size_t i;

	if (end == s || *s == ' ' || !isfinite(v) || v <= 0)
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].unit)) {
			*out = v * units[i].s;
			return 0;
		}
	}
	return -1;
}

/* A rate N/s, N/min or N/h into events per second. */
static int parse_rate(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *s == ' ' || !isfinite(v) || v < 0 || *end != '/')
		return -1;
	if (!strcmp(end, "/s"))
		*out = v;
	else if (!strcmp(end, "/min"))
		*out = v / 60;
	else if (!strcmp(end, "/h"))
		*out = v / 3600;
	else
		return -1;
	return 0;
}

/* Splits v at its first c: returns what follows (v ends there), or NULL. */
static char *split(char *v, char c)
{
	char *p = strchr(v, c);

	if (p)
		*p++ = '\0';
	return p;
}

static int parse_drift(struct noise_spec *spec, char *v)
{
	char *range = split(v, ':'), *max;

	if (parse_share(v, 1, &spec->drift_sigma) < 0)
		return -1;
	if (!range)
		return 0;
	if (!(max = split(range, '-')) || parse_duration(range, &spec->drift_min_s) < 0 ||
	    parse_duration(max, &spec->drift_max_s) < 0)
		return -1;
	return spec->drift_min_s <= spec->drift_max_s && spec->drift_min_s >= 1 &&
	       spec->drift_max_s <= 86400 ? 0 : -1;
}

static int parse_tail(struct noise_spec *spec, char *v)
{
	char *min = split(v, ':'), *shape = min ? split(min, ':') : NULL;
	char *end;

	if (!min || parse_share(v, 1, &spec->tail_p) < 0)
		return -1;
	spec->tail_min = strtod(min, &end);
	if (end == min || *end || !isfinite(spec->tail_min) || spec->tail_min < 1 ||
	    spec->tail_min > 1000)
		return -1;
	spec->tail_shape = 2;
	if (shape) {
		spec->tail_shape = strtod(shape, &end);
		if (end == shape || *end || !isfinite(spec->tail_shape) ||
		    spec->tail_shape <= 0 || spec->tail_shape > 100)
			return -1;
	}
	return 0;
}

static int parse_stall(struct noise_spec *spec, char *v)
{
	char *dur = split(v, ':');

	if (!dur || parse_rate(v, &spec->stall_rate) < 0 ||
	    parse_duration(dur, &spec->stall_s) < 0)
		return -1;
	/* a server stalled more than half the time is down, not noisy */
	return spec->stall_rate <= 10 && spec->stall_s <= 600 &&
	       spec->stall_rate * spec->stall_s <= 0.5 ? 0 : -1;
}

/* The form each part takes, for the error message. */
static const struct {
	const char *name, *form;
} parts[] = {
	{ "drift", "drift=SIGMA[:MIN-MAX], e.g. drift=10%:20s-120s" },
	{ "instance", "instance=SIGMA, e.g. instance=1%" },
	{ "jitter", "jitter=SIGMA, e.g. jitter=5%" },
	{ "tail", "tail=P:MIN[:SHAPE], e.g. tail=1%:3" },
	{ "stall", "stall=RATE:DURATION, e.g. stall=2/min:150ms" },
};

/* One part "name=value" (modified in place) into *spec. */
static int parse_part(struct noise_spec *spec, char *part, char *err, size_t len,
		      const char *given)
{
	char *v = split(part, '=');
	size_t i;
	int rc = -1;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (!strcmp(part, parts[i].name))
			break;
	if (i == sizeof(parts) / sizeof(parts[0])) {
		snprintf(err, len, "unknown part '%s' (default, drift, instance, jitter, tail "
			 "or stall)", given);
		return -1;
	}
	if (v && *v) {
		switch (i) {
		case 0: rc = parse_drift(spec, v); break;
		case 1: rc = parse_share(v, 1, &spec->instance_sigma); break;
		case 2: rc = parse_share(v, 1, &spec->jitter_sigma); break;
		case 3: rc = parse_tail(spec, v); break;
		default: rc = parse_stall(spec, v); break;
		}
	}
	if (rc < 0)
		snprintf(err, len, "bad part '%s': expected %s", given, parts[i].form);
	return rc;
}

int noise_spec_parse(struct noise_spec *spec, const char *text, char *err, size_t len)
{
	char part[MAX_PART], given[MAX_PART];

	memset(spec, 0, sizeof(*spec));
	spec->drift_min_s = 30;
	spec->drift_max_s = 180;
	if (!*text) {
		snprintf(err, len, "empty noise spec (default, or parts such as %s)",
			 NOISE_DEFAULT);
		return -1;
	}
	while (*text) {
		size_t n = strcspn(text, ",");

		if (n == 0 || n >= sizeof(part)) {
			snprintf(err, len, "bad part '%.*s' in '%s'", (int)(n < 40 ? n : 40),
				 text, text);
			return -1;
		}
		memcpy(part, text, n);
		part[n] = '\0';
		memcpy(given, part, n + 1);
		if (!strcmp(part, "default")) {
			char def[] = NOISE_DEFAULT;

			if (noise_spec_parse(spec, def, err, len) < 0)
				return -1;      /* never: the default parses */
		} else if (parse_part(spec, part, err, len, given) < 0) {
			return -1;
		}
		text += n;
		if (*text == ',' && !*++text) {
			snprintf(err, len, "noise spec ends with a comma");
			return -1;
		}
	}
	return 0;
}

int noise_spec_active(const struct noise_spec *spec)
{
	return spec->drift_sigma > 0 || spec->instance_sigma > 0 || spec->jitter_sigma > 0 ||
	       spec->tail_p > 0 || spec->stall_rate > 0;
}

/* A duration as the grammar writes it: ms below a second. */
static void format_duration(char *buf, size_t len, double s)
{
	if (s < 1)
		snprintf(buf, len, "%gms", s * 1000);
	else
		snprintf(buf, len, "%gs", s);
}

void noise_spec_format(const struct noise_spec *spec, char *buf, size_t len)
{
	char a[32], b[32];
	size_t n = 0;

#define ADD(...) do { \
	if (n < len) \
		n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__); \
} while (0)
	buf[0] = '\0';
	if (spec->drift_sigma > 0) {
		format_duration(a, sizeof(a), spec->drift_min_s);
		format_duration(b, sizeof(b), spec->drift_max_s);
		ADD("%sdrift=%g%%:%s-%s", n ? "," : "", spec->drift_sigma * 100, a, b);
	}
	if (spec->instance_sigma > 0)
		ADD("%sinstance=%g%%", n ? "," : "", spec->instance_sigma * 100);
	if (spec->jitter_sigma > 0)
		ADD("%sjitter=%g%%", n ? "," : "", spec->jitter_sigma * 100);
	if (spec->tail_p > 0)
		ADD("%stail=%g%%:%g:%g", n ? "," : "", spec->tail_p * 100, spec->tail_min,
		    spec->tail_shape);
	if (spec->stall_rate > 0) {
		format_duration(a, sizeof(a), spec->stall_s);
		ADD("%sstall=%g/min:%s", n ? "," : "", spec->stall_rate * 60, a);
	}
	if (!n)
		ADD("none");
#undef ADD
}

/* ---- the model ----------------------------------------------------------- */

double noise_drift(const struct noise_spec *spec, double t)
{
	double z = 0, ratio;
	int i;

	if (spec->drift_sigma <= 0)
		return 1;
	ratio = spec->drift_max_s / spec->drift_min_s;
	for (i = 0; i < NOISE_WAVES; i++) {
		struct rng g;
		double period, phase;

		/* one period in each of K equal slices of the log range, so the
		 * range is covered whatever the constant draws */
		rng_init(&g, rng_derive(HOST_SEED, (uint64_t)i));
		period = spec->drift_min_s * pow(ratio, ((double)i + rng_uniform(&g)) / NOISE_WAVES);
		phase = 2 * M_PI * rng_uniform(&g);
		z += sin(2 * M_PI * fmod(t, period) / period + phase);
	}
	/* each sinusoid has variance 1/2: the sum of K, K/2 */
	return exp(spec->drift_sigma * z * sqrt(2.0 / NOISE_WAVES));
}

double noise_instance(const struct noise_spec *spec, uint64_t seed)
{
	struct rng g;

	if (spec->instance_sigma <= 0)
		return 1;
	rng_init(&g, rng_derive(seed, KEY_INSTANCE));
	return exp(rng_normal(&g, 0, spec->instance_sigma));
}

double noise_jitter(const struct noise_spec *spec, uint64_t seed, uint64_t id)
{
	struct rng g;

	if (spec->jitter_sigma <= 0)
		return 1;
	rng_init(&g, rng_derive(rng_derive(seed, KEY_JITTER), id));
	return exp(rng_normal(&g, 0, spec->jitter_sigma));
}

double noise_tail(const struct noise_spec *spec, uint64_t seed, uint64_t id)
{
	struct rng g;

	if (spec->tail_p <= 0)
		return 1;
	rng_init(&g, rng_derive(rng_derive(seed, KEY_TAIL), id));
	if (rng_uniform(&g) >= spec->tail_p)
		return 1;
	return spec->tail_min * pow(1.0 - rng_uniform(&g), -1.0 / spec->tail_shape);
}

/* The latest end of the stalls that cover t, or t when none does. A
 * block's stalls are a Poisson process within it: exponential gaps from
 * its start, drawn from the block's own stream. */
static double stall_cover(const struct noise_spec *spec, uint64_t seed, double t)
{
	double block = spec->stall_s > STALL_BLOCK_S ? spec->stall_s : STALL_BLOCK_S;
	double end = t;
	int64_t b, first = (int64_t)floor((t - spec->stall_s) / block);
	int64_t last = (int64_t)floor(t / block);

	for (b = first; b <= last; b++) {
		struct rng g;
		double s = (double)b * block;

		rng_init(&g, rng_derive(rng_derive(seed, KEY_STALL), (uint64_t)b));
		for (;;) {
			s += rng_exponential(&g, spec->stall_rate);
			if (s >= (double)(b + 1) * block || s > t)
				break;
			if (t < s + spec->stall_s && s + spec->stall_s > end)
				end = s + spec->stall_s;
		}
	}
	return end;
}

double noise_stall_end(const struct noise_spec *spec, uint64_t seed, double t)
{
	int i;

	if (spec->stall_rate <= 0)
		return t;
	/* a stall may end inside the next one: follow the run (the rate
	 * times the length is at most 0.5, so runs are short) */
	for (i = 0; i < 1000; i++) {
		double end = stall_cover(spec, seed, t);

		if (end <= t)
			break;
		t = end;
	}
	return t;
}
