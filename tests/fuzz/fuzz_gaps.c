/*
 * fuzz_gaps.c - libFuzzer target for the reader of inter-token gap arrays
 * (lib/gaps.c), as the database hands them back.
 *
 * The input is the text of an itl_us column. What gaps_parse accepts is
 * at most GAPS_MAX_US a gap; written again in the exact form it must read
 * back the same to the nanosecond, and in the whole form each gap must be
 * within half a microsecond of what was read. A mismatch aborts, which
 * libFuzzer reports as a crash.
 */
#include "lib/gaps.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *out = NULL;
	int64_t *ns = NULL, *back = NULL, *whole = NULL;
	size_t n = 0, n_back = 0, n_whole = 0, cap = 0, i;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (gaps_parse(text, &ns, &n) != 0)
		goto done;
	for (i = 0; i < n; i++)
		if (ns[i] > (int64_t)(GAPS_MAX_US * 1000) || ns[i] < -(int64_t)(GAPS_MAX_US * 1000))
			abort();
	if (gaps_format(ns, n, GAPS_EXACT, &out, &cap) != 0 ||
	    gaps_parse(out, &back, &n_back) != 0 || n_back != n ||
	    (n && memcmp(ns, back, n * sizeof(*ns)) != 0)) {
		fprintf(stderr, "fuzz_gaps: '%s' did not read back exactly\n", out ? out : "");
		abort();
	}
	if (gaps_format(ns, n, GAPS_WHOLE, &out, &cap) != 0 ||
	    gaps_parse(out, &whole, &n_whole) != 0 || n_whole != n)
		abort();
	for (i = 0; i < n; i++)
		if (whole[i] - ns[i] > 500 || ns[i] - whole[i] > 500)
			abort();
done:
	free(text);
	free(out);
	free(ns);
	free(back);
	free(whole);
	return 0;
}
