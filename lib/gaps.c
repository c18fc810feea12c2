/*
 * gaps.c - inter-token gaps as JSON text; see gaps.h.
 */
#include "gaps.h"

#include <math.h>
#include <stdlib.h>

/* Writes u's digits at p; returns the end. By hand, not snprintf: this is
 * replay's and the loader's innermost loop. */
static char *put_digits(char *p, uint64_t u)
{
	char tmp[24];
	size_t k = 0;

	do {
		tmp[k++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	while (k)
		*p++ = tmp[--k];
	return p;
}

int gaps_format(const int64_t *ns, size_t n, enum gaps_form form, char **buf, size_t *cap)
{
	/* "[" + n * ("-" + 20 digits + "." + 3 decimals + ",") + "]" + NUL */
	size_t need = n * 26 + 3, i;
	char *p;

	if (!*buf || need > *cap) {
		p = realloc(*buf, need);
		if (!p)
			return -1;
		*buf = p;
		*cap = need;
	}
	p = *buf;
	*p++ = '[';
	for (i = 0; i < n; i++) {
		int64_t v = ns[i];
		uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
		unsigned frac;

		if (i)
			*p++ = ',';
		if (form == GAPS_WHOLE) {
			/* to the nearest, a half up (without v + 500's overflow) */
			int64_t r = v % 1000;

			v = v / 1000 + (r >= 500 ? 1 : r < -500 ? -1 : 0);
			u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
			frac = 0;
		} else {
			frac = (unsigned)(u % 1000);
			u /= 1000;
		}
		if (v < 0 && (u || frac))
			*p++ = '-';
		p = put_digits(p, u);
		if (frac) {
			*p++ = '.';
			*p++ = (char)('0' + frac / 100);
			*p++ = (char)('0' + frac / 10 % 10);
			*p++ = (char)('0' + frac % 10);
		}
	}
	*p++ = ']';
	*p = '\0';
	return 0;
}

int gaps_from_json(const cJSON *arr, int64_t **ns, size_t *n)
{
	const cJSON *v;
	int64_t *out;
	size_t k = 0, count;

	*ns = NULL;
	*n = 0;
	if (!cJSON_IsArray(arr))
		return -1;
	count = (size_t)cJSON_GetArraySize(arr);
	if (count == 0)
		return 0;
	out = malloc(count * sizeof(*out));
	if (!out)
		return -2;
	cJSON_ArrayForEach(v, arr) {
		if (!cJSON_IsNumber(v) || !(fabs(v->valuedouble) <= GAPS_MAX_US) || k >= count) {
			free(out);
			return -1;
		}
		out[k++] = llround(v->valuedouble * 1000);   /* 12.345 us: 12345 ns */
	}
	*ns = out;
	*n = k;
	return 0;
}

/* One gap as gaps_format writes it at *p: an optional '-', digits, and
 * optionally '.' and one to three more; its nanoseconds in *v, the end in
 * *end. Returns 0, or 1 when it is not in that form or past GAPS_MAX_US. */
static int parse_gap(const char *p, int64_t *v, const char **end)
{
	int neg = *p == '-', k;
	int64_t us = 0, frac = 0;

	p += neg;
	if (*p < '0' || *p > '9')
		return 1;
	for (; *p >= '0' && *p <= '9'; p++) {
		us = us * 10 + (*p - '0');
		if (us > (int64_t)GAPS_MAX_US)
			return 1;     /* out of range: the other path refuses it */
	}
	if (*p == '.') {
		for (p++, k = 0; k < 3 && *p >= '0' && *p <= '9'; p++, k++)
			frac = frac * 10 + (*p - '0');
		if (k == 0 || (*p >= '0' && *p <= '9'))
			return 1;
		for (; k < 3; k++)
			frac *= 10;
	}
	if (us * 1000 + frac > (int64_t)(GAPS_MAX_US * 1000))
		return 1;
	*v = (us * 1000 + frac) * (neg ? -1 : 1);
	*end = p;
	return 0;
}

/* The form gaps_format writes ("[12,340.500,-5]"), read exactly and
 * without cJSON. Returns 0, 1 when text is not in that form (nothing
 * kept), -2 when out of memory. */
static int parse_own(const char *text, int64_t **ns, size_t *n)
{
	const char *p = text + 1;
	size_t count = 1, i = 0;
	int64_t *out;

	if (text[0] != '[')
		return 1;
	if (p[0] == ']' && !p[1])
		return 0;
	for (; *p && *p != ']'; p++)
		count += *p == ',';
	if (*p != ']' || p[1])
		return 1;
	out = malloc(count * sizeof(*out));
	if (!out)
		return -2;
	for (p = text + 1; i < count; p++) {
		if (parse_gap(p, &out[i++], &p) || *p != (i < count ? ',' : ']')) {
			free(out);
			return 1;
		}
	}
	*ns = out;
	*n = count;
	return 0;
}

int gaps_parse(const char *text, int64_t **ns, size_t *n)
{
	cJSON *arr;
	int rc;

	*ns = NULL;
	*n = 0;
	rc = parse_own(text, ns, n);
	if (rc <= 0)
		return rc;
	arr = cJSON_Parse(text);
	rc = gaps_from_json(arr, ns, n);
	cJSON_Delete(arr);
	return rc;
}
