/*
 * csv.h - the CSV reading the trace importers need (RFC 4180 fields on one
 * line), small enough to fuzz: a line reader with a hard length cap and an
 * in-place field splitter. Quoted fields may hold commas and doubled
 * quotes; a quoted line break is not supported (the published traces have
 * none), so such a line is reported malformed.
 */
#ifndef TB_CSV_H
#define TB_CSV_H

#include <stddef.h>
#include <stdio.h>

#define CSV_MAX_LINE 65536      /* longest line accepted, bytes */
#define CSV_MAX_FIELDS 64

/*
 * Reads one line (without its "\n" or "\r\n") into buf (cap bytes, so
 * lines of up to cap - 1 bytes fit). Returns 1 with *len set (a NUL byte
 * in the line is kept and counted), 0 at the end of the file, -1 when the
 * line does not fit (the rest of it is read and dropped; *len is 0), or -2
 * on a read error (errno set).
 */
int csv_read_line(FILE *f, char *buf, size_t cap, size_t *len);

/*
 * Splits line (modified in place) into at most max fields: fields[i]
 * points into line, unquoted, NUL-terminated. Returns the number of
 * fields, -1 for a malformed quoted field (unterminated, or text after the
 * closing quote), -2 for more than max fields.
 */
int csv_split(char *line, char **fields, int max);

#endif
