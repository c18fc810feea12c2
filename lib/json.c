/*
 * json.c - typed accessors over cJSON; see json.h.
 */
#include "json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int json_get_int64(const cJSON *obj, const char *key, int64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	double d;

	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsNumber(v))
		return -1;
	d = v->valuedouble;
	if (d != floor(d) || fabs(d) > JSON_MAX_EXACT)
		return -1;
	*out = (int64_t)d;
	return 1;
}

const char *json_get_string(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

void json_add_int64(cJSON *obj, const char *key, int64_t v, int null_if_negative)
{
	char digits[24];

	if (v < 0 && null_if_negative) {
		cJSON_AddNullToObject(obj, key);
		return;
	}
	/* As written: cJSON prints a number past 2^31 with "%1.15g" and reads
	 * it back with sscanf to check it, a tenth of replay's CPU per
	 * request. Parsed again, the item is an ordinary number. */
	snprintf(digits, sizeof(digits), "%" PRId64, v);
	cJSON_AddRawToObject(obj, key, digits);
}

size_t json_escaped_len(const char *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' ||
		    c == '\r' || c == '\t')
			n += 2;
		else if (c < 0x20)
			n += 6;
		else
			n++;
	}
	return n;
}
