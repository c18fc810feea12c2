/*
 * gaps.h - a request's inter-token gaps as text: the one codec of their
 * JSON array of microseconds ("itl_us"), as a results file holds it
 * (whole microseconds, rounded; schema/FORMAT.md) and as the database
 * does (exact: a gap with a fraction of a microsecond, another tool's
 * timed in ns, keeps three decimals).
 */
#ifndef TB_GAPS_H
#define TB_GAPS_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

/* The largest |gap| read, in microseconds (about 100 days): its
 * conversion to nanoseconds is defined. */
#define GAPS_MAX_US 9e12

enum gaps_form {
	GAPS_WHOLE,   /* whole microseconds, to the nearest, a half up */
	GAPS_EXACT,   /* whole ones as integers, others with three decimals */
};

/*
 * Writes ns[0, n) as "[12,340,5]" into *buf (grown as needed, *cap its
 * size; the caller frees it, and may pass it again). Returns 0, or -1
 * when out of memory.
 */
int gaps_format(const int64_t *ns, size_t n, enum gaps_form form, char **buf, size_t *cap);

/*
 * Reads a JSON array of microseconds (parsed: arr; or text) into *ns
 * (malloc'd, the caller frees; NULL when empty) and *n. Returns 0; -1
 * when it is not an array of numbers each within GAPS_MAX_US (nothing
 * is kept); -2 when out of memory. gaps_parse reads either form
 * gaps_format writes exactly and without cJSON (a report reads
 * millions), any other JSON array through cJSON, to the nearest ns.
 */
int gaps_from_json(const cJSON *arr, int64_t **ns, size_t *n);
int gaps_parse(const char *text, int64_t **ns, size_t *n);

#endif
