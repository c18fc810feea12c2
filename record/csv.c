/*
 * csv.c - capped lines and RFC 4180 fields; see csv.h.
 */
#include "csv.h"

#include <string.h>

int csv_read_line(FILE *f, char *buf, size_t cap, size_t *len)
{
	size_t n;
	int c;

	if (!fgets(buf, (int)cap, f))
		return ferror(f) ? -2 : 0;
	n = strlen(buf);
	if (n > 0 && buf[n - 1] == '\n') {
		buf[--n] = '\0';
	} else if (!feof(f)) {
		/* longer than cap: drop the rest of the line */
		while ((c = getc(f)) != EOF && c != '\n')
			;
		*len = 0;
		buf[0] = '\0';
		return -1;
	}
	if (n > 0 && buf[n - 1] == '\r')
		buf[--n] = '\0';
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
