/*
 * csv.c - capped lines and RFC 4180 fields; see csv.h.
 */
#include "csv.h"

#include <string.h>

int csv_read_line(FILE *f, char *buf, size_t cap, size_t *len)
{
	size_t n = 0;
	int c;

	/* Byte by byte, not fgets: a NUL byte in the line must neither cut it
	 * short nor make it look too long (which would drop the next line). */
	while ((c = getc_unlocked(f)) != EOF && c != '\n') {
		if (n + 1 >= cap) {
			/* longer than cap: drop the rest of the line */
			while ((c = getc_unlocked(f)) != EOF && c != '\n')
				;
			*len = 0;
			buf[0] = '\0';
			return ferror(f) ? -2 : -1;
		}
		buf[n++] = (char)c;
	}
	if (c == EOF && (ferror(f) || n == 0))
		return ferror(f) ? -2 : 0;
	if (n > 0 && buf[n - 1] == '\r')
		n--;
	buf[n] = '\0';
	*len = n;
	return 1;
}

int csv_split(char *line, char **fields, int max)
{
	char *p = line;
	int n = 0;

	for (;;) {
		if (n == max)
			return -2;
		if (*p == '"') {
			char *out = ++p;

			fields[n++] = out;
			for (;;) {
				if (*p == '\0')
					return -1;
				if (*p == '"') {
					if (p[1] != '"')
						break;
					p++;
				}
				*out++ = *p++;
			}
			p++;    /* the closing quote; out < p from here */
			if (*p != ',' && *p != '\0')
				return -1;
			*out = '\0';
			if (*p == '\0')
				return n;
			p++;
		} else {
			char *comma = strchr(p, ',');

			fields[n++] = p;
			if (!comma)
				return n;
			*comma = '\0';
			p = comma + 1;
		}
	}
}
