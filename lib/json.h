/*
 * json.h - small typed accessors over cJSON objects, shared by the record
 * readers (traces, results) so each field is checked the same way.
 */
#ifndef TB_JSON_H
#define TB_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

/* Returns 1 and sets *out for an integral number, 0 when the field is
 * absent or null, -1 when it has another type or is not integral. */
/* The largest whole number a JSON number (a double) holds exactly, 2^53:
 * json_get_int64 refuses anything beyond it, so no writer may write it
 * (a time in ns: 104 days). */
#define JSON_MAX_EXACT 9007199254740992.0

int json_get_int64(const cJSON *obj, const char *key, int64_t *out);

/* The string value of obj[key], or NULL when absent or not a string. */
const char *json_get_string(const cJSON *obj, const char *key);

/* Adds key: v, or key: null when v < 0 and null_if_negative. The number
 * is a raw item (cJSON_IsRaw): print the object before reading it. */
void json_add_int64(cJSON *obj, const char *key, int64_t v, int null_if_negative);

/* Bytes s[0, len) take inside a JSON string as cJSON prints it (quotes
 * excluded): 2 for '"', '\\' and \b \f \n \r \t, 6 for other control
 * bytes, 1 for the rest. */
size_t json_escaped_len(const char *s, size_t len);

#endif
