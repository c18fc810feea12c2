/*
 * strbuf.c - a growable NUL-terminated byte buffer; see strbuf.h.
 */
#include "strbuf.h"

#include <stdlib.h>
#include <string.h>

int strbuf_append(char **buf, size_t *len, size_t *cap, const char *src, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t ncap = *cap ? *cap : 256;
		char *nb;

		while (ncap < *len + n + 1)
			ncap *= 2;
		nb = realloc(*buf, ncap);
		if (!nb)
			return -1;
		*buf = nb;
		*cap = ncap;
	}
	memcpy(*buf + *len, src, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}
