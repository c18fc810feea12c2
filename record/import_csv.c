/*
 * import_csv.c - the CSV formats of `record import`: Azure LLM inference
 * traces and BurstGPT (its 6- and 8-column layouts alike), read by the
 * names of their columns (record/csv.c splits the lines). A row gives an
 * arrival time and the input and output lengths; prompts are synthesized
 * later (import_write.c).
 */
#include "import.h"
#include "import_rows.h"
#include "csv.h"
#include "lib/cli.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A whole non-negative integral number (also "12.0") up to IMPORT_MAX_LENGTH. */
static int parse_length(const char *s, long *out)
{
	double d;

	while (isspace((unsigned char)*s))
		s++;
	if (cli_parse_double(s, 0, (double)IMPORT_MAX_LENGTH, &d) < 0 || d != floor(d))
		return -1;
	*out = (long)d;
	return 0;
}

/* Non-negative seconds (or milliseconds) to nanoseconds with 'scale'. */
static int parse_time(const char *s, double scale, int64_t *ns)
{
	double d;

	while (isspace((unsigned char)*s))
		s++;
	if (cli_parse_double(s, 0, 9.2e18 / scale, &d) < 0)
		return -1;
	*ns = (int64_t)floor(d * scale + 0.5);
	return 0;
}

static int64_t days_from_civil(long y, long m, long d)
{
	long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (int64_t)era * 146097 + doe - 719468;
}

int import_parse_azure_time(const char *s, int64_t *ns)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	long v[6];
	int64_t frac = 0, scale = 100000000;
	size_t i;
	const char *p = s;

	/* YYYY-MM-DD HH:MM:SS */
	for (i = 0; i < 6; i++) {
		static const char seps[] = "-- ::";
		int digits = i == 0 ? 4 : 2, k;

		v[i] = 0;
		for (k = 0; k < digits; k++, p++) {
			if (!isdigit((unsigned char)*p))
				return -1;
			v[i] = v[i] * 10 + (*p - '0');
		}
		if (i < 5) {
			if (*p != seps[i] && !(i == 2 && *p == 'T'))
				return -1;
			p++;
		}
	}
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		for (; isdigit((unsigned char)*p); p++) {
			if (scale == 0)
				return -1;      /* more than 9 digits */
			frac += (*p - '0') * scale;
			scale /= 10;
		}
	}
	if (*p == 'Z')
		p++;
	/* years 1970-2200: nanoseconds of any two such times differ by less
	 * than INT64_MAX, so arrival offsets cannot overflow */
	if (*p || v[0] < 1970 || v[0] > 2200 || v[1] < 1 || v[1] > 12 || v[2] < 1 ||
	    v[2] > mdays[v[1] - 1] || v[3] > 23 || v[4] > 59 || v[5] > 60)
		return -1;
	*ns = ((days_from_civil(v[0], v[1], v[2]) * 86400 + v[3] * 3600 + v[4] * 60 + v[5])
	       * 1000000000LL) + frac;
	return 0;
}

/* Column of 'name' (case and surrounding blanks ignored) in the header, or -1. */
static int column(char **names, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++) {
		const char *s = names[i];
		size_t len;

		while (*s == ' ')
			s++;
		len = strlen(s);
		while (len > 0 && s[len - 1] == ' ')
			len--;
		if (len == strlen(name) && strncasecmp(s, name, len) == 0)
			return i;
	}
	return -1;
}

/* The columns of time, input and output length in a header line of n
 * fields. Returns 0, or -1 with a message in err. */
static int csv_header(const struct import *im, long line, char **fields, int n,
		      int *c_time, int *c_in, int *c_out, char *err, size_t errlen)
{
	const char *want_time = im->format == IMPORT_AZURE ? "TIMESTAMP" : "Timestamp";
	const char *want_in = im->format == IMPORT_AZURE ? "ContextTokens" : "Request tokens";
	const char *want_out = im->format == IMPORT_AZURE ? "GeneratedTokens" : "Response tokens";

	if (n > 0) {
		*c_time = column(fields, n, want_time);
		*c_in = column(fields, n, want_in);
		*c_out = column(fields, n, want_out);
	}
	if (n < 0 || *c_time < 0 || *c_in < 0 || *c_out < 0) {
		snprintf(err, errlen, "'%s' line %ld: no '%s', '%s' and '%s' columns; "
			 "is this %s trace?", im->path, line, want_time, want_in, want_out,
			 im->format == IMPORT_AZURE ? "an Azure LLM inference" : "a BurstGPT");
		return -1;
	}
	return 0;
}

/*
 * Azure and BurstGPT: a header line naming the columns, then one row per
 * request. Returns 0, or -1 with a message in err.
 */
int import_read_csv(struct import *im, FILE *f, char *err, size_t errlen)
{
	const char *want_time = im->format == IMPORT_AZURE ? "TIMESTAMP" : "Timestamp";
	const char *want_in = im->format == IMPORT_AZURE ? "ContextTokens" : "Request tokens";
	const char *want_out = im->format == IMPORT_AZURE ? "GeneratedTokens" : "Response tokens";
	char *fields[CSV_MAX_FIELDS];
	char *buf = malloc(CSV_MAX_LINE);
	const char *what;
	int n_cols = 0, c_time = -1, c_in = -1, c_out = -1, n, rc = 0, got;
	long line = 0;
	size_t len;

	if (!buf)
		return import_out_of_memory(im, err, errlen);
	while ((got = csv_read_line(f, buf, CSV_MAX_LINE, &len)) != 0) {
		struct row r = { .conv = -1, .session = -1, .parent = -1 };

		line++;
		if (got == -2) {
			rc = import_read_error(im, err, errlen);
			break;
		}
		if (got == -1) {
			import_bad_row(im, line, "longer than %d bytes", CSV_MAX_LINE);
			continue;
		}
		if (len == 0)
			continue;
		n = csv_split(buf, fields, CSV_MAX_FIELDS);
		if (n_cols == 0) {
			if ((rc = csv_header(im, line, fields, n, &c_time, &c_in, &c_out, err, errlen)) < 0)
				break;
			n_cols = n;
			continue;
		}
		if (n == -1) {
			import_bad_row(im, line, "malformed quoted field");
			continue;
		}
		if (n != n_cols) {
			import_bad_row(im, line, "%s%d fields, the header has %d", n < 0 ? "more than " : "",
				n < 0 ? CSV_MAX_FIELDS : n, n_cols);
			continue;
		}
		if ((im->format == IMPORT_AZURE ? import_parse_azure_time(fields[c_time], &r.t_ns)
		     : parse_time(fields[c_time], 1e9, &r.t_ns)) < 0) {
			import_bad_row(im, line, "%s '%.40s' is not a %s", want_time, fields[c_time],
				im->format == IMPORT_AZURE ? "time like 2023-11-16 18:15:46.6805900"
				: "non-negative number of seconds");
			continue;
		}
		what = parse_length(fields[c_in], &r.in) < 0 ? want_in
		       : parse_length(fields[c_out], &r.out) < 0 ? want_out : NULL;
		if (what) {
			import_bad_row(im, line, "%s '%.40s' is not an integer in [0, %ld]", what,
				fields[what == want_in ? c_in : c_out], IMPORT_MAX_LENGTH);
			continue;
		}
		if (!import_lengths_ok(im, line, r.in, r.out))
			continue;
		r.line = line;
		if (import_add_row(im, &r) < 0) {
			rc = import_out_of_memory(im, err, errlen);
			break;
		}
	}
	if (rc == 0 && n_cols == 0) {
		snprintf(err, errlen, "'%s' is empty: no header line", im->path);
		rc = -1;
	}
	free(buf);
	return rc;
}
