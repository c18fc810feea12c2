/*
 * import.c - `tracebench record import`: reads a published trace, keeps
 * each valid row's arrival time and token lengths, and writes a trace whose
 * requests have prompts of the recorded input length and max_tokens of the
 * recorded output length.
 *
 * The input is read whole before anything is written: rows are sorted by
 * time (stable, so file order breaks ties), the --time-window and --limit
 * applied, and arrival offsets taken from the first row kept. Bad rows are
 * reported with their line number, skipped and counted; an input without a
 * valid row is an input error (exit 2) and writes no file.
 *
 * Prompts (see record/words.h): each Mooncake hash id seeds the words of
 * its 512-word block, so rows sharing hash_ids share those blocks of text;
 * the rest of a prompt is seeded by the row's line number, so a row's
 * prompt does not depend on which other rows are kept. A ShareGPT
 * conversation keeps its real text and all its turns, as a session
 * (schema/FORMAT.md, "Sessions"): turn k sends the human turns and answers
 * before it, the answers being placeholders replay fills with the
 * server's, then human turn k; max_tokens is answer k's length. ShareGPT
 * has no times: every turn arrives at 0, the turns of the file's first
 * conversations first, then their second turns, and so on.
 */
#include "import.h"
#include "csv.h"
#include "words.h"
#include "traceout.h"
#include "lib/chain.h"
#include "lib/errmsg.h"
#include "lib/cli.h"
#include "lib/json.h"
#include "lib/trace.h"
#include "lib/tracefile.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PROG "tracebench record import"
#define MAX_MESSAGES 20                 /* bad-row messages shown */
#define MAX_LENGTH 10000000L            /* longest input or output accepted */
#define MOONCAKE_MAX_LINE (1u << 20)
#define SHAREGPT_MAX_FILE (1024L << 20)

static const char *const format_names[] = { "mooncake", "azure", "burstgpt", "sharegpt" };

int import_format_parse(const char *s, enum import_format *out)
{
	size_t i;

	for (i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++) {
		if (strcmp(s, format_names[i]) == 0) {
			*out = (enum import_format)i;
			return 0;
		}
	}
	return -1;
}

const char *import_format_name(enum import_format f)
{
	return format_names[f];
}

struct row {
	int64_t t_ns;           /* as recorded; offsets are taken later */
	long line;
	long in, out;
	size_t hash_off, n_hash;        /* into import.hashes */
	char *text;             /* real prompt (ShareGPT), else NULL */
	long conv;              /* ShareGPT: its conversation (import.convs), else -1 */
	long turn;              /* ... and its turn there, from 0; else 0 */
	/* --sessions prefix (Mooncake): set on the rows kept, in time order */
	long session;           /* its session, or -1 */
	long parent;            /* the kept row of its turn before, or -1 */
	int64_t think_ns;
};

/* A ShareGPT conversation: human turns and answers alternating (owned). */
struct conv {
	char **text;
	size_t n;
};

struct import {
	const char *path;
	enum import_format format;
	struct row *rows;
	size_t n_rows, cap_rows;
	uint64_t *hashes;
	size_t n_hashes, cap_hashes;
	struct conv *convs;     /* ShareGPT */
	size_t n_convs;
	long malformed, zero_output, shown;
};

static void bad_row(struct import *im, long line, const char *fmt, ...)
{
	va_list ap;

	im->malformed++;
	if (im->shown == MAX_MESSAGES) {
		fprintf(stderr, PROG ": further bad rows are counted, not shown\n");
		im->shown++;
	}
	if (im->shown > MAX_MESSAGES)
		return;
	im->shown++;
	fprintf(stderr, PROG ": '%s' line %ld: ", im->path, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; skipped\n");
}

static int add_row(struct import *im, const struct row *r)
{
	if (im->n_rows == im->cap_rows) {
		size_t cap = im->cap_rows ? im->cap_rows * 2 : 1024;
		struct row *p = realloc(im->rows, cap * sizeof(*p));

		if (!p)
			return -1;
		im->rows = p;
		im->cap_rows = cap;
	}
	im->rows[im->n_rows++] = *r;
	return 0;
}

static int add_hash(struct import *im, uint64_t h)
{
	if (im->n_hashes == im->cap_hashes) {
		size_t cap = im->cap_hashes ? im->cap_hashes * 2 : 4096;
		uint64_t *p = realloc(im->hashes, cap * sizeof(*p));

		if (!p)
			return -1;
		im->hashes = p;
		im->cap_hashes = cap;
	}
	im->hashes[im->n_hashes++] = h;
	return 0;
}

/* Common checks of a row's lengths; 1 when the row is to be kept. */
static int lengths_ok(struct import *im, long line, long in, long out)
{
	if (in < 1) {
		bad_row(im, line, "input length is 0");
		return 0;
	}
	if (out == 0) {
		im->zero_output++;      /* failed requests in BurstGPT: counted only */
		return 0;
	}
	return 1;
}

/* A whole non-negative integral number (also "12.0") up to MAX_LENGTH. */
static int parse_length(const char *s, long *out)
{
	double d;

	while (isspace((unsigned char)*s))
		s++;
	if (cli_parse_double(s, 0, (double)MAX_LENGTH, &d) < 0 || d != floor(d))
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

/* Mooncake: {"timestamp": ms, "input_length": N, "output_length": N, "hash_ids": [...]} */
static int mooncake_row(struct import *im, long line, const char *text, size_t len)
{
	cJSON *o = cJSON_ParseWithLengthOpts(text, len + 1, NULL, 1);     /* text[len] is NUL */
	const cJSON *t, *ids, *h;
	int64_t in, out;
	struct row r = { .conv = -1, .session = -1, .parent = -1 };
	size_t max_blocks, n = 0;
	int rc = 0;

	if (!cJSON_IsObject(o)) {
		bad_row(im, line, o ? "not a JSON object" : "not valid JSON");
		goto cleanup;
	}
	t = cJSON_GetObjectItemCaseSensitive(o, "timestamp");
	if (!cJSON_IsNumber(t) || !(t->valuedouble >= 0) || t->valuedouble > 9e12) {
		bad_row(im, line, "field 'timestamp' is missing or not a non-negative number of ms");
		goto cleanup;
	}
	if (json_get_int64(o, "input_length", &in) != 1 || in < 0 || in > MAX_LENGTH) {
		bad_row(im, line, "field 'input_length' is missing or not an integer in [0, %ld]", MAX_LENGTH);
		goto cleanup;
	}
	if (json_get_int64(o, "output_length", &out) != 1 || out < 0 || out > MAX_LENGTH) {
		bad_row(im, line, "field 'output_length' is missing or not an integer in [0, %ld]", MAX_LENGTH);
		goto cleanup;
	}
	ids = cJSON_GetObjectItemCaseSensitive(o, "hash_ids");
	if (ids && !cJSON_IsNull(ids) && !cJSON_IsArray(ids)) {
		bad_row(im, line, "field 'hash_ids' is not an array");
		goto cleanup;
	}
	max_blocks = (size_t)(in + IMPORT_BLOCK_WORDS - 1) / IMPORT_BLOCK_WORDS;
	if ((size_t)cJSON_GetArraySize(ids) > max_blocks) {
		bad_row(im, line, "%d hash_ids, but input_length %ld fills only %zu block%s of %d",
			cJSON_GetArraySize(ids), (long)in, max_blocks, max_blocks == 1 ? "" : "s",
			IMPORT_BLOCK_WORDS);
		goto cleanup;
	}
	cJSON_ArrayForEach(h, ids) {
		if (!cJSON_IsNumber(h) || h->valuedouble < 0 || h->valuedouble != floor(h->valuedouble) ||
		    h->valuedouble > 9007199254740992.0) {
			bad_row(im, line, "hash_ids[%zu] is not a non-negative integer", n);
			im->n_hashes -= n;
			goto cleanup;
		}
		if (add_hash(im, (uint64_t)h->valuedouble) < 0) {
			rc = -1;
			goto cleanup;
		}
		n++;
	}
	if (!lengths_ok(im, line, (long)in, (long)out)) {
		im->n_hashes -= n;
		goto cleanup;
	}
	r.t_ns = (int64_t)floor(t->valuedouble * 1e6 + 0.5);
	r.line = line;
	r.in = (long)in;
	r.out = (long)out;
	r.hash_off = im->n_hashes - n;
	r.n_hash = n;
	rc = add_row(im, &r);
cleanup:
	cJSON_Delete(o);
	return rc;
}

/* The readers' failures: each fills err (errlen bytes) and returns -1. */
static int out_of_memory(const struct import *im, char *err, size_t errlen)
{
	snprintf(err, errlen, "'%s': out of memory", im->path);
	return -1;
}

static int read_error(const struct import *im, char *err, size_t errlen)
{
	snprintf(err, errlen, "cannot read '%s': %s", im->path, strerror(errno));
	return -1;
}

/* Mooncake: one JSON object per line. Returns 0, or -1 with a message in err. */
static int read_mooncake(struct import *im, FILE *f, char *err, size_t errlen)
{
	char *buf = malloc(MOONCAKE_MAX_LINE);
	long line = 0;
	size_t len;
	int rc = 0, got;

	if (!buf)
		return out_of_memory(im, err, errlen);
	while ((got = csv_read_line(f, buf, MOONCAKE_MAX_LINE, &len)) != 0) {
		line++;
		if (got == -2) {
			rc = read_error(im, err, errlen);
			break;
		}
		if (got == -1) {
			bad_row(im, line, "longer than %u bytes", MOONCAKE_MAX_LINE);
			continue;
		}
		if (strspn(buf, " \t") == len)
			continue;
		if (mooncake_row(im, line, buf, len) < 0) {
			rc = out_of_memory(im, err, errlen);
			break;
		}
	}
	free(buf);
	return rc;
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
static int read_csv(struct import *im, FILE *f, char *err, size_t errlen)
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
		return out_of_memory(im, err, errlen);
	while ((got = csv_read_line(f, buf, CSV_MAX_LINE, &len)) != 0) {
		struct row r = { .conv = -1, .session = -1, .parent = -1 };

		line++;
		if (got == -2) {
			rc = read_error(im, err, errlen);
			break;
		}
		if (got == -1) {
			bad_row(im, line, "longer than %d bytes", CSV_MAX_LINE);
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
			bad_row(im, line, "malformed quoted field");
			continue;
		}
		if (n != n_cols) {
			bad_row(im, line, "%s%d fields, the header has %d", n < 0 ? "more than " : "",
				n < 0 ? CSV_MAX_FIELDS : n, n_cols);
			continue;
		}
		if ((im->format == IMPORT_AZURE ? import_parse_azure_time(fields[c_time], &r.t_ns)
		     : parse_time(fields[c_time], 1e9, &r.t_ns)) < 0) {
			bad_row(im, line, "%s '%.40s' is not a %s", want_time, fields[c_time],
				im->format == IMPORT_AZURE ? "time like 2023-11-16 18:15:46.6805900"
				: "non-negative number of seconds");
			continue;
		}
		what = parse_length(fields[c_in], &r.in) < 0 ? want_in
		       : parse_length(fields[c_out], &r.out) < 0 ? want_out : NULL;
		if (what) {
			bad_row(im, line, "%s '%.40s' is not an integer in [0, %ld]", what,
				fields[what == want_in ? c_in : c_out], MAX_LENGTH);
			continue;
		}
		if (!lengths_ok(im, line, r.in, r.out))
			continue;
		r.line = line;
		if (add_row(im, &r) < 0) {
			rc = out_of_memory(im, err, errlen);
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

static long count_lines(const char *from, const char *to)
{
	long n = 0;

	for (; from < to; from++)
		n += *from == '\n';
	return n;
}

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	return p;
}

static int is_role(const char *role, const char *a, const char *b, const char *c)
{
	return role && (strcmp(role, a) == 0 || strcmp(role, b) == 0 || strcmp(role, c) == 0);
}

/* Appends text to c (copied); returns 0 or -1. */
static int conv_push(struct conv *c, const char *text)
{
	char **t = realloc(c->text, (c->n + 1) * sizeof(*t));

	if (!t)
		return -1;
	c->text = t;
	if (!(c->text[c->n] = strdup(text)))
		return -1;
	c->n++;
	return 0;
}

static void conv_release(struct conv *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->text[i]);
	free(c->text);
	memset(c, 0, sizeof(*c));
}

/*
 * The pairs of a conversation into c: each human turn with the answer
 * that follows it (system turns, and answers without a human turn before
 * them, left out; human turns in a row joined by a blank line). Returns 0,
 * or -1 when out of memory.
 */
static int sharegpt_pairs(const cJSON *turns, struct conv *c)
{
	const cJSON *t;
	char *pending = NULL;
	int oom = 0;

	cJSON_ArrayForEach(t, turns) {
		const char *from = json_get_string(t, "from"), *value = json_get_string(t, "value");

		if (!value || oom)
			continue;
		if (is_role(from, "human", "user", "human")) {
			size_t len = pending ? strlen(pending) + 2 : 0;
			char *joined = malloc(len + strlen(value) + 1);

			if (!joined) {
				oom = 1;
				continue;
			}
			snprintf(joined, len + strlen(value) + 1, "%s%s%s", pending ? pending : "",
				 pending ? "\n\n" : "", value);
			free(pending);
			pending = joined;
		} else if (pending && is_role(from, "gpt", "assistant", "chatgpt")) {
			oom |= conv_push(c, pending) < 0 || conv_push(c, value) < 0;
			free(pending);
			pending = NULL;
		}
	}
	free(pending);
	return oom ? -1 : 0;
}

/* 1 when the conversation may be replayed (cut before a turn that cannot
 * be), else 0 after saying why. */
static int sharegpt_check(struct import *im, long line, struct conv *c)
{
	long words = 0;
	size_t i;

	if (c->n == 0) {
		bad_row(im, line, "no human turn followed by an answer");
		return 0;
	}
	for (i = 0; i < c->n; i++) {
		if (words_count(c->text[i]) > MAX_LENGTH - words) {
			bad_row(im, line, "longer than %ld words", MAX_LENGTH);
			return 0;
		}
		words += words_count(c->text[i]);
	}
	for (i = 0; i < c->n; i += 2) {
		long in = words_count(c->text[i]), out = words_count(c->text[i + 1]);

		/* a session ends before a turn that cannot be replayed */
		if (in < 1 || out < 1) {
			if (i == 0) {
				lengths_ok(im, line, in, out);
				return 0;
			}
			while (c->n > i)    /* the turns cut off are freed here */
				free(c->text[--c->n]);
			break;
		}
	}
	return 1;
}

/* One conversation: each of its pairs is a turn of its session. */
static int sharegpt_row(struct import *im, long line, const cJSON *conv)
{
	const cJSON *turns = cJSON_GetObjectItemCaseSensitive(conv, "conversations");
	struct conv c = { NULL, 0 };
	struct conv *grown;
	long words = 0, k;
	int rc = 0;

	if (!cJSON_IsArray(turns)) {
		bad_row(im, line, "no 'conversations' array");
		return 0;
	}
	if (sharegpt_pairs(turns, &c) < 0 ||
	    !(grown = realloc(im->convs, (im->n_convs + 1) * sizeof(*grown)))) {
		conv_release(&c);
		return -1;
	}
	im->convs = grown;
	if (!sharegpt_check(im, line, &c)) {
		conv_release(&c);
		return 0;
	}
	im->convs[im->n_convs] = c;
	for (k = 0; (size_t)k * 2 < c.n && rc == 0; k++) {
		struct row r = { .conv = -1, .session = -1, .parent = -1 };

		words += words_count(c.text[2 * k]);
		r.line = line;
		r.in = words;
		r.out = words_count(c.text[2 * k + 1]);
		r.conv = (long)im->n_convs;
		r.turn = k;
		rc = add_row(im, &r);
		words += r.out;
	}
	im->n_convs++;
	return rc;
}

/*
 * ShareGPT: one JSON array of conversations. cJSON parses one element at a
 * time (the array's brackets and commas are stepped over here), so a bad
 * element is reported with the line it starts on, and everything before a
 * syntax error is kept. Returns 0, or -1 with a message in err.
 */
static int read_sharegpt(struct import *im, FILE *f, char *err, size_t errlen)
{
	char *data = NULL;
	const char *p, *end, *counted;
	size_t len = 0, cap = 0, got;
	long line = 1;
	int rc = 0;

	do {
		if (len == cap) {
			char *q;

			if (cap >= (size_t)SHAREGPT_MAX_FILE) {
				snprintf(err, errlen, "'%s' is larger than %ld MiB", im->path,
					 SHAREGPT_MAX_FILE >> 20);
				free(data);
				return -1;
			}
			cap = cap ? cap * 2 : 1 << 16;
			q = realloc(data, cap + 1);
			if (!q) {
				free(data);
				return out_of_memory(im, err, errlen);
			}
			data = q;
		}
		got = fread(data + len, 1, cap - len, f);
		len += got;
	} while (got > 0);
	if (ferror(f)) {
		free(data);
		return read_error(im, err, errlen);
	}
	data[len] = '\0';
	p = counted = skip_space(data, data + len);
	end = data + len;
	line += count_lines(data, p);
	if (p == end || *p != '[') {
		snprintf(err, errlen, "'%s' line %ld: expected a JSON array of conversations", im->path, line);
		free(data);
		return -1;
	}
	p = skip_space(p + 1, end);
	while (p < end && *p != ']') {
		const char *after = NULL;
		cJSON *conv;

		line += count_lines(counted, p);
		counted = p;
		conv = cJSON_ParseWithLengthOpts(p, (size_t)(end - p), &after, 0);
		if (!conv) {
			const char *at = after ? after : cJSON_GetErrorPtr();

			if (!at || at < p || at > end)
				at = p;
			bad_row(im, line + count_lines(p, at),
				"not valid JSON; the rest of the file is ignored");
			break;
		}
		if (!cJSON_IsObject(conv))
			bad_row(im, line, "not a JSON object");
		else
			rc = sharegpt_row(im, line, conv);
		cJSON_Delete(conv);
		if (rc < 0)
			break;
		p = skip_space(after, end);
		if (p < end && *p == ',')
			p = skip_space(p + 1, end);
		else if (p < end && *p != ']') {
			line += count_lines(counted, p);
			bad_row(im, line, "expected ',' or ']' between conversations; the rest of the file is ignored");
			break;
		}
	}
	free(data);
	return rc < 0 ? out_of_memory(im, err, errlen) : 0;
}

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	if (x->turn != y->turn)         /* a session's turns in order, first turns first */
		return x->turn < y->turn ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/* r's words from its hash block 'from' on (each block's words seeded by
 * its hash id, so rows that share a block share its words), then words
 * seeded by its line: 'left' in all. Returns 0 or -1. */
static int block_words(const struct import *im, const struct row *r, size_t from, long left,
		       uint64_t seed, struct words_buf *b)
{
	struct rng rng;
	size_t i;

	for (i = from; i < r->n_hash && left > 0; i++) {
		long n = left < IMPORT_BLOCK_WORDS ? left : IMPORT_BLOCK_WORDS;

		rng_init(&rng, rng_derive(seed ^ 0x6d6f6f6e63616b65ULL, im->hashes[r->hash_off + i]));
		if (words_append(b, n, &rng) < 0)
			return -1;
		left -= n;
	}
	rng_init(&rng, rng_derive(seed, (uint64_t)r->line));
	return words_append(b, left, &rng);
}

/* The prompt of r; the caller frees b->p. Returns 0 or -1. */
static int make_prompt(const struct import *im, const struct row *r, uint64_t seed,
		       struct words_buf *b)
{
	if (r->text)
		return words_append_text(b, r->text);
	return block_words(im, r, 0, r->in, seed, b);
}

/* The request body: 'prompt' after the n texts of 'history' (human turns
 * and answers alternating; the answers are placeholders). */
static char *make_body(const struct record_import_options *o, char *const *history, size_t n,
		       const char *prompt, long max_tokens)
{
	cJSON *body = cJSON_CreateObject();
	char *text;
	size_t i;

	cJSON_AddStringToObject(body, "model", o->model);
	if (o->completions) {
		struct words_buf all = { 0 };
		int bad = 0;

		for (i = 0; i < n; i++)
			bad |= words_append_text(&all, history[i]);
		bad |= words_append_text(&all, prompt);
		if (!bad)
			cJSON_AddStringToObject(body, "prompt", all.p);
		free(all.p);
	} else {
		cJSON *msgs = cJSON_AddArrayToObject(body, "messages");

		for (i = 0; i <= n; i++) {
			cJSON *m = cJSON_CreateObject();

			cJSON_AddStringToObject(m, "role", i % 2 ? "assistant" : "user");
			cJSON_AddStringToObject(m, "content", i < n ? history[i] : prompt);
			cJSON_AddItemToArray(msgs, m);
		}
	}
	cJSON_AddNumberToObject(body, "max_tokens", (double)max_tokens);
	if (o->ignore_eos)
		cJSON_AddBoolToObject(body, "ignore_eos", 1);
	cJSON_AddBoolToObject(body, "stream", 1);
	text = cJSON_PrintUnformatted(body);
	cJSON_Delete(body);
	return text;
}

/*
 * --sessions prefix: the Mooncake rows[0, n) (kept, in time order) into
 * sessions. A row whose hash_ids begin with all of an earlier row's, two
 * blocks or more and fewer than its own, continues that row's session
 * (lib/chain.h: the longest such prefix, each turn continued once); its
 * think time is the gap between the two arrivals, all that the trace
 * tells. One block is not enough: every row of the published traces
 * begins with the same block, a shared system prompt. A session of one
 * turn is left a request of its own. Returns 0, or -1 when out of memory.
 */
static int group_by_prefix(const struct import *im, struct row *rows, size_t n)
{
	struct chain_table t;
	uint64_t *pre = NULL;
	long *last = malloc((n ? n : 1) * sizeof(*last)), *turns = calloc(n ? n : 1, sizeof(*turns));
	size_t i, j, cap = 0;
	int rc = -1;

	if (!last || !turns || chain_init(&t) < 0) {
		free(last);
		free(turns);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct row *r = &rows[i];
		uint64_t h = CHAIN_HASH_INIT, prefix = 0;
		struct chain_turn ct;
		int got;

		if (!r->n_hash)
			continue;
		if (r->n_hash > cap) {
			uint64_t *p = realloc(pre, r->n_hash * sizeof(*p));

			if (!p)
				goto cleanup;
			pre = p;
			cap = r->n_hash;
		}
		for (j = 0; j < r->n_hash; j++)
			pre[j] = h = chain_hash(h, &im->hashes[r->hash_off + j], sizeof(uint64_t));
		for (j = r->n_hash - 1; j >= 2 && !prefix; j--)
			if (chain_find(&t, pre[j - 1]))
				prefix = pre[j - 1];
		if ((got = chain_join(&t, prefix, pre[r->n_hash - 1], r->t_ns, &ct)) < 0)
			goto cleanup;
		if (got > 0)
			continue;       /* past the sessions' cap: a request of its own */
		chain_end(ct.link, r->t_ns);
		r->session = ct.session;
		r->turn = ct.turn;
		r->think_ns = ct.think_ns;
		r->parent = ct.turn ? last[ct.session] : -1;
		last[ct.session] = (long)i;
		turns[ct.session]++;
	}
	for (i = 0; i < n; i++)
		if (rows[i].session >= 0 && turns[rows[i].session] == 1) {
			rows[i].session = -1;
			rows[i].turn = 0;
		}
	rc = 0;
cleanup:
	chain_release(&t);
	free(pre);
	free(last);
	free(turns);
	return rc;
}

/* Words of turn r of a prefix session: what it adds to its turn before p,
 * its blocks past p's (each seeded by its hash id, as make_prompt's) and
 * then words seeded by its line, r->in - p->in - p->out of them (the
 * turn before's prompt and answer are in the history), at least one. */
static int session_prompt(const struct import *im, const struct row *r, const struct row *p,
			  uint64_t seed, struct words_buf *b)
{
	long left = r->in - p->in - p->out;

	return block_words(im, r, p->n_hash, left < 1 ? 1 : left, seed, b);
}

/*
 * The body of row i, turn k of a prefix session: the prompts of its turns
 * 0 .. k-1 with placeholder answers of their recorded output lengths
 * (words seeded by their lines), then its own part; every turn's body thus
 * begins with the one before's. NULL when out of memory.
 */
static char *prefix_session_body(const struct import *im, const struct row *rows, size_t i,
				 const struct record_import_options *o)
{
	long k = rows[i].turn, j;
	size_t *chain = malloc((size_t)(k + 1) * sizeof(*chain));
	struct words_buf *text = calloc((size_t)(2 * k + 1), sizeof(*text));
	char **history = calloc((size_t)(2 * k + 1), sizeof(*history));
	char *body = NULL;
	int bad = !chain || !text || !history;

	for (j = k; !bad && j >= 0; j--)
		chain[j] = j == k ? i : (size_t)rows[chain[j + 1]].parent;
	for (j = 0; !bad && j <= k; j++) {
		const struct row *r = &rows[chain[j]];
		struct rng rng;

		bad |= j ? session_prompt(im, r, &rows[chain[j - 1]], o->seed, &text[2 * j]) :
			   make_prompt(im, r, o->seed, &text[0]);
		if (j < k) {
			rng_init(&rng, rng_derive(o->seed ^ 0x616e73776572ULL, (uint64_t)r->line));
			bad |= words_append(&text[2 * j + 1], r->out, &rng);
		}
	}
	for (j = 0; !bad && j < 2 * k + 1; j++)
		history[j] = text[j].p ? text[j].p : (char *)"";
	if (!bad)
		body = make_body(o, history, (size_t)(2 * k), history[2 * k], rows[i].out);
	for (j = 0; text && j < 2 * k + 1; j++)
		free(text[j].p);
	free(text);
	free(history);
	free(chain);
	return body;
}

/* Row i as a trace record; NULL when out of memory. */
static cJSON *import_request(const struct import *im, const struct row *rows, size_t i,
			     const struct record_import_options *o)
{
	const char *path = o->completions ? "/v1/completions" : "/v1/chat/completions";
	const struct row *row = &rows[i];
	struct words_buf prompt = { 0 };
	struct trace_request t;
	cJSON *rec = NULL;

	trace_request_init(&t);
	t.id = (long)i;
	t.arrival_ns = row->t_ns - rows[0].t_ns;
	t.input_tokens = row->in;
	t.output_tokens = row->out;
	if (row->conv >= 0) {
		const struct conv *c = &im->convs[row->conv];

		t.session = row->conv;
		t.turn = row->turn;
		if (trace_request_set_json_post(&t, path, make_body(o, c->text,
				(size_t)row->turn * 2, c->text[row->turn * 2], row->out)) == 0)
			rec = trace_request_to_json(&t);
	} else if (row->session >= 0) {
		t.session = row->session;
		t.turn = row->turn;
		t.think_ns = row->think_ns;
		if (trace_request_set_json_post(&t, path, prefix_session_body(im, rows, i, o)) == 0)
			rec = trace_request_to_json(&t);
	} else if (make_prompt(im, row, o->seed, &prompt) == 0 &&
		   trace_request_set_json_post(&t, path, make_body(o, NULL, 0, prompt.p,
								  row->out)) == 0) {
		rec = trace_request_to_json(&t);
	}
	trace_request_release(&t);
	free(prompt.p);
	return rec;
}

/* Writes rows[0, n) as a trace. Returns 0; -1 with err filled; or 128 + a
 * signal that stopped it (err says what was written). A row whose record
 * is longer than a trace line may hold is left out and said on stderr. */
static int write_trace(const struct import *im, const struct row *rows, size_t n,
		       const struct record_import_options *o, cJSON *header, const char *out,
		       int force, char *err, size_t errlen)
{
	struct traceout to;
	int rc, sig = 0;
	size_t i;

	rc = traceout_open(&to, PROG, out, header, force, err, errlen);
	if (rc < 0)
		return -1;
	for (i = 0; rc == 0 && i < n && !(sig = cli_stop_signal()); i++) {
		cJSON *rec = import_request(im, rows, i, o);

		rc = traceout_append(&to, rec, err, errlen, "'%s' line %ld: row", im->path,
				     rows[i].line);
		cJSON_Delete(rec);
	}
	return traceout_close(&to, rc == 0, (long)n, sig, err, errlen);
}

/* "(2 malformed, 1 with 0 output tokens)" or "" */
static void skipped_detail(const struct import *im, char *buf, size_t len)
{
	buf[0] = '\0';
	if (im->malformed && im->zero_output)
		snprintf(buf, len, " (%ld malformed, %ld with 0 output tokens)", im->malformed, im->zero_output);
	else if (im->malformed)
		snprintf(buf, len, " (malformed)");
	else if (im->zero_output)
		snprintf(buf, len, " (0 output tokens)");
}

/* Reads the whole input into im. Returns 0 or the exit status (printed). */
static int read_input(struct import *im, const struct record_import_options *o)
{
	char err[TRACEFILE_ERRLEN] = "", detail[128];
	FILE *f = fopen(o->input, "rb");
	int got;

	im->path = o->input;
	im->format = o->format;
	if (!f) {
		fprintf(stderr, PROG ": cannot open '%s': %s\n", im->path, strerror(errno));
		return CLI_EXIT_USAGE;
	}
	if (im->format == IMPORT_MOONCAKE)
		got = read_mooncake(im, f, err, sizeof(err));
	else if (im->format == IMPORT_SHAREGPT)
		got = read_sharegpt(im, f, err, sizeof(err));
	else
		got = read_csv(im, f, err, sizeof(err));
	fclose(f);
	if (got < 0) {
		fprintf(stderr, PROG ": %s\n", err);
		return CLI_EXIT_USAGE;
	}
	if (im->n_rows == 0) {
		skipped_detail(im, detail, sizeof(detail));
		fprintf(stderr, PROG ": no valid row in '%s'; skipped %ld row%s%s\n", im->path,
			im->malformed + im->zero_output, im->malformed + im->zero_output == 1 ? "" : "s",
			detail);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

/* Sorts the rows by time and picks those of --time-window and --limit:
 * *kept of them from *first on. Returns 0 or the exit status (printed). */
static int select_rows(struct import *im, const struct record_import_options *o,
		       size_t *first, size_t *kept)
{
	size_t i, n;

	/* in time order; window from the first row; offsets from the first kept */
	qsort(im->rows, im->n_rows, sizeof(*im->rows), cmp_row);
	for (i = 0; i < im->n_rows; i++)
		if ((double)(im->rows[i].t_ns - im->rows[0].t_ns) / 1e9 >= o->win_start)
			break;
	for (n = 0; i + n < im->n_rows; n++) {
		if ((double)(im->rows[i + n].t_ns - im->rows[0].t_ns) / 1e9 >= o->win_end ||
		    (o->limit && (long)n == o->limit))
			break;
	}
	if (n == 0) {
		fprintf(stderr, PROG ": no row of '%s' falls in --time-window %s\n", im->path,
			o->window);
		return CLI_EXIT_USAGE;
	}
	*first = i;
	*kept = n;
	return 0;
}

/* The trace's header: where its requests came from and how. */
static cJSON *make_header(const struct import *im, const struct record_import_options *o,
			  size_t kept)
{
	cJSON *header = cJSON_CreateObject(), *source;

	if (o->format == IMPORT_SHAREGPT || o->session_prefix)   /* session records (FORMAT.md) */
		cJSON_AddNumberToObject(header, "version", 2);
	cJSON_AddStringToObject(header, "tool", "tracebench " TB_VERSION);
	source = cJSON_AddObjectToObject(header, "source");
	cJSON_AddStringToObject(source, "kind", "import");
	cJSON_AddStringToObject(source, "format", import_format_name(o->format));
	cJSON_AddStringToObject(source, "file", im->path);
	cJSON_AddNumberToObject(source, "requests", (double)kept);
	cJSON_AddNumberToObject(source, "skipped", (double)(im->malformed + im->zero_output));
	if (o->window)
		cJSON_AddStringToObject(source, "time_window", o->window);
	if (o->limit)
		cJSON_AddNumberToObject(source, "limit", (double)o->limit);
	cJSON_AddNumberToObject(source, "seed", (double)o->seed);
	cJSON_AddStringToObject(source, "model", o->model);
	cJSON_AddStringToObject(source, "endpoint_kind", o->completions ? "completions" : "chat");
	cJSON_AddBoolToObject(source, "ignore_eos", o->ignore_eos);
	if (o->session_prefix)
		cJSON_AddStringToObject(source, "sessions", "prefix");
	return header;
}

static void print_imported(const struct import *im, size_t kept)
{
	char detail[128];

	skipped_detail(im, detail, sizeof(detail));
	fprintf(stderr, PROG ": imported %zu request%s from '%s'; skipped %ld row%s%s", kept,
		kept == 1 ? "" : "s", im->path, im->malformed + im->zero_output,
		im->malformed + im->zero_output == 1 ? "" : "s", detail);
	if (kept < im->n_rows)
		fprintf(stderr, "; left out %zu outside --time-window or past --limit", im->n_rows - kept);
	fprintf(stderr, "\n");
}

int import_run(const struct record_import_options *o)
{
	struct import im = { 0 };
	char err[TRACEFILE_ERRLEN] = "";
	size_t i, first = 0, kept = 0;
	cJSON *header = NULL;
	int rc;

	if ((rc = read_input(&im, o)) || (rc = select_rows(&im, o, &first, &kept)))
		goto cleanup;
	if (o->session_prefix && group_by_prefix(&im, im.rows + first, kept) < 0) {
		fprintf(stderr, PROG ": '%s': out of memory\n", im.path);
		rc = CLI_EXIT_FAILED;
		goto cleanup;
	}
	header = make_header(&im, o, kept);
	if (cli_catch_stop_signals() < 0) {
		fprintf(stderr, PROG ": cannot handle signals\n");
		rc = CLI_EXIT_FAILED;
		goto cleanup;
	}
	if ((rc = write_trace(&im, im.rows + first, kept, o, header, o->output, o->force, err,
			      sizeof(err)))) {
		fprintf(stderr, PROG ": %s\n", err);
		if (rc < 0)
			rc = CLI_EXIT_USAGE;
		goto cleanup;
	}
	print_imported(&im, kept);
cleanup:
	for (i = 0; i < im.n_rows; i++)
		free(im.rows[i].text);
	for (i = 0; i < im.n_convs; i++)
		conv_release(&im.convs[i]);
	free(im.convs);
	free(im.rows);
	free(im.hashes);
	cJSON_Delete(header);
	return rc;
}
