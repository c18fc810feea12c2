/*
 * cli.c - strict option value parsing; see cli.h.
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int cli_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int cli_parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int cli_parse_long_list(const char *s, long min, long max, long *out, size_t cap)
{
	char item[32];
	size_t n = 0;

	if (!s || !*s)
		return -1;
	for (;;) {
		size_t len = strcspn(s, ",");

		if (len == 0 || len >= sizeof(item) || n == cap)
			return -1;
		memcpy(item, s, len);
		item[len] = '\0';
		if (cli_parse_long(item, min, max, &out[n]) < 0)
			return -1;
		n++;
		if (s[len] == '\0')
			return (int)n;
		s += len + 1;
	}
}
