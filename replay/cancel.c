/*
 * cancel.c - which requests --cancel cancels, and the parsing of its
 * spec; see cancel.h.
 */
#include "cancel.h"
#include "lib/errmsg.h"
#include "lib/random.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A decimal of digits with at most one '.', at least one digit, at most
 * 'max' characters: strtod alone would take a sign, spaces, an exponent,
 * hex, "inf" and "nan", which a spec has no use for. Returns the number
 * of characters read (0: none), the value in *v.
 */
static size_t read_decimal(const char *s, size_t max, double *v)
{
	char buf[32], *end;
	size_t i, digits = 0, dots = 0;

	for (i = 0; i < max && i < sizeof(buf) - 1 && s[i]; i++) {
		if (s[i] == '.')
			dots++;
		else if (s[i] >= '0' && s[i] <= '9')
			digits++;
		else
			break;
	}
	if (!digits || dots > 1)
		return 0;
	memcpy(buf, s, i);
	buf[i] = '\0';
	*v = strtod(buf, &end);
	return end == buf + i ? i : 0;
}

/* AFTER as a time: a decimal and its unit. */
static int parse_time(const char *s, struct cancel_spec *c, char *err, size_t errlen)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	double v, ns;
	size_t n = read_decimal(s, 20, &v), i;

	if (!n) {
		errmsg_set(err, errlen, "AFTER is not a time (200ms, 1.5s) nor tokens:N");
		return -1;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(s + n, units[i].unit) == 0)
			break;
	if (i == sizeof(units) / sizeof(units[0])) {
		errmsg_set(err, errlen, "the unit of AFTER must be us, ms or s");
		return -1;
	}
	ns = v * units[i].ns;
	if (!(ns >= 1e3) || ns > (double)CANCEL_MAX_NS) {
		errmsg_set(err, errlen, "the time AFTER must be from 1us to a day");
		return -1;
	}
	c->after_ns = (int64_t)(ns + 0.5);
	return 0;
}

/* AFTER as "tokens:N". */
static int parse_tokens(const char *s, struct cancel_spec *c, char *err, size_t errlen)
{
	double v;
	size_t n = read_decimal(s, 12, &v);

	if (!n || s[n] || strchr(s, '.') || v < 1 || v > (double)CANCEL_MAX_TOKENS) {
		errmsg_set(err, errlen, "N of tokens:N must be a whole number of tokens "
			   "from 1 to %lld", (long long)CANCEL_MAX_TOKENS);
		return -1;
	}
	c->tokens = (int64_t)v;
	return 0;
}

int cancel_parse(const char *spec, struct cancel_spec *c, char *err, size_t errlen)
{
	const char *after;
	size_t n;
	int rc;

	memset(c, 0, sizeof(*c));
	after = strchr(spec, ':');
	if (!after) {
		errmsg_set(err, errlen, "not P:AFTER (0.1:200ms, 0.1:tokens:16)");
		return -1;
	}
	n = read_decimal(spec, 16, &c->share);
	if (!n || spec + n != after || !(c->share > 0) || c->share > 1) {
		errmsg_set(err, errlen, "the share P must be a number in (0, 1]");
		c->share = 0;
		return -1;
	}
	after++;
	if (strncmp(after, "tokens:", 7) == 0)
		rc = parse_tokens(after + 7, c, err, errlen);
	else
		rc = parse_time(after, c, err, errlen);
	if (rc < 0)
		memset(c, 0, sizeof(*c));
	return rc;
}

/* The time in ms to the nanosecond, without trailing zeros nor an
 * exponent, so that it reads back as it was: "200ms", "0.25ms". */
void cancel_after_text(const struct cancel_spec *c, char *buf, size_t len)
{
	long long ms = (long long)(c->after_ns / 1000000), ns = (long long)(c->after_ns % 1000000);
	char frac[8];
	int n;

	if (c->tokens > 0) {
		snprintf(buf, len, "tokens:%lld", (long long)c->tokens);
	} else if (c->after_ns > 0 && ns == 0) {
		snprintf(buf, len, "%lldms", ms);
	} else if (c->after_ns > 0) {
		snprintf(frac, sizeof(frac), "%06lld", ns);
		for (n = 5; n > 0 && frac[n] == '0'; n--)
			frac[n] = '\0';
		snprintf(buf, len, "%lld.%sms", ms, frac);
	} else if (len) {
		buf[0] = '\0';
	}
}

int cancel_chosen(const struct cancel_spec *c, uint64_t seed, long trace_id, size_t pass)
{
	uint64_t key = (uint64_t)trace_id * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)pass << 40);
	uint64_t h = rng_derive(rng_derive(seed, 0x63616e63656cULL), key);

	if (c->share <= 0)
		return 0;
	return (double)(h >> 11) * 0x1.0p-53 < c->share;
}
