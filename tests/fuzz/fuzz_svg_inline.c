/*
 * fuzz_svg_inline.c - libFuzzer target for the SVG inliner of the HTML
 * report (analyze/svg_inline.c).
 *
 * Whatever the bytes: nothing before the first "<svg" comes out, the
 * output starts with "<svg" (or is empty when there is none), and every
 * id and local reference in it carries the figure's prefix. A breach
 * aborts, which libFuzzer reports as a crash.
 */
#include "analyze/svg_inline.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Is every occurrence of pat in out[0 .. len) followed by "f3-"? */
static int prefixed(const char *out, size_t len, const char *pat)
{
	size_t n = strlen(pat), i;

	for (i = 0; i + n <= len; i++)
		if (!memcmp(out + i, pat, n) && (i + n + 3 > len || memcmp(out + i + n, "f3-", 3)))
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	int svg = 0;
	size_t i;

	if (!f)
		return 0;
	for (i = 0; i + 4 <= size && !svg; i++)
		svg = !memcmp(data + i, "<svg", 4);
	svg_inline(f, (const char *)data, size, 3);
	fclose(f);
	if (!svg && len)
		abort();
	if (svg && (len < 4 || memcmp(out, "<svg", 4)))
		abort();
	if (!prefixed(out, len, " id=\"") || !prefixed(out, len, " id='") ||
	    !prefixed(out, len, "href=\"#") || !prefixed(out, len, "href='#") ||
	    !prefixed(out, len, "url(#"))
		abort();
	free(out);
	return 0;
}
