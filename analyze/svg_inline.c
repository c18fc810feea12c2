/*
 * svg_inline.c - a gnuplot SVG document as an element of an HTML page; see
 * svg_inline.h. One pass over the bytes, nothing kept.
 */
#include "analyze/svg_inline.h"

#include <string.h>

/* Does the text at p (up to end) start with w? */
static int at(const char *p, const char *end, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(end - p) >= n && !memcmp(p, w, n);
}

void svg_inline(FILE *out, const char *svg, size_t len, int n)
{
	const char *end = svg + len, *p = svg;
	char prefix[16];

	snprintf(prefix, sizeof(prefix), "f%d-", n);
	while (p < end && !at(p, end, "<svg"))
		p++;
	while (p < end) {
		/* id="x" -> id="fN-x"; href="#x" and url(#x) -> #fN-x */
		if ((at(p, end, " id=\"") || at(p, end, " id='")) && p + 5 <= end) {
			fwrite(p, 1, 5, out);
			fputs(prefix, out);
			p += 5;
		} else if ((at(p, end, "href=\"#") || at(p, end, "href='#")) && p + 7 <= end) {
			fwrite(p, 1, 7, out);
			fputs(prefix, out);
			p += 7;
		} else if (at(p, end, "url(#")) {
			fwrite(p, 1, 5, out);
			fputs(prefix, out);
			p += 5;
		} else {
			fputc(*p++, out);
		}
	}
}

