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
 * prompt does not depend on which other rows are kept. ShareGPT rows keep
 * their real first human turn as the prompt.
 */
#include "import.h"
#include "csv.h"
#include "words.h"
#include "lib/cli.h"
#include "lib/json.h"
#include "lib/trace.h"
#include "lib/tracefile.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
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

struct row {
	int64_t t_ns;           /* as recorded; offsets are taken later */
	long line;
	long in, out;
	size_t hash_off, n_hash;        /* into import.hashes */
	char *text;             /* real prompt (ShareGPT), else NULL */
};

struct import {
	const char *path;
	enum import_format format;
	struct row *rows;
	size_t n_rows, cap_rows;
	uint64_t *hashes;
	size_t n_hashes, cap_hashes;
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
	struct row r = { 0 };
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

static int read_mooncake(struct import *im, FILE *f)
{
	char *buf = malloc(MOONCAKE_MAX_LINE);
	long line = 0;
	size_t len;
	int rc = 0, got;

	if (!buf)
		return -1;
	while ((got = csv_read_line(f, buf, MOONCAKE_MAX_LINE, &len)) != 0) {
		line++;
		if (got == -2) {
			rc = -2;
			break;
		}
		if (got == -1) {
			bad_row(im, line, "longer than %u bytes", MOONCAKE_MAX_LINE);
			continue;
		}
		if (strspn(buf, " \t") == len)
			continue;
		if (mooncake_row(im, line, buf, len) < 0) {
			rc = -1;
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

/* Azure and BurstGPT: a header line naming the columns, then one row per request. */
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
		return -1;
	while ((got = csv_read_line(f, buf, CSV_MAX_LINE, &len)) != 0) {
		struct row r = { 0 };

		line++;
		if (got == -2) {
			rc = -2;
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
			/* the header */
			if (n > 0) {
				c_time = column(fields, n, want_time);
				c_in = column(fields, n, want_in);
				c_out = column(fields, n, want_out);
			}
			if (n < 0 || c_time < 0 || c_in < 0 || c_out < 0) {
				snprintf(err, errlen, "'%s' line %ld: no '%s', '%s' and '%s' columns; "
					 "is this %s trace?", im->path, line, want_time, want_in, want_out,
					 im->format == IMPORT_AZURE ? "an Azure LLM inference" : "a BurstGPT");
				rc = -3;
				break;
			}
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
			rc = -1;
			break;
		}
	}
	if (rc == 0 && n_cols == 0) {
		snprintf(err, errlen, "'%s' is empty: no header line", im->path);
		rc = -3;
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

/* One conversation: the first human turn and the answer that follows it. */
static int sharegpt_row(struct import *im, long line, const cJSON *conv)
{
	const cJSON *turns = cJSON_GetObjectItemCaseSensitive(conv, "conversations"), *t;
	const char *prompt = NULL, *answer = NULL;
	struct row r = { 0 };

	if (!cJSON_IsArray(turns)) {
		bad_row(im, line, "no 'conversations' array");
		return 0;
	}
	cJSON_ArrayForEach(t, turns) {
		const char *from = json_get_string(t, "from"), *value = json_get_string(t, "value");

		if (!value)
			continue;
		if (!prompt && is_role(from, "human", "user", "human"))
			prompt = value;
		else if (prompt && is_role(from, "gpt", "assistant", "chatgpt")) {
			answer = value;
			break;
		}
	}
	if (!prompt || !answer) {
		bad_row(im, line, "no human turn followed by an answer");
		return 0;
	}
	r.in = words_count(prompt);
	r.out = words_count(answer);
	if (r.in > MAX_LENGTH || r.out > MAX_LENGTH) {
		bad_row(im, line, "longer than %ld words", MAX_LENGTH);
		return 0;
	}
	if (!lengths_ok(im, line, r.in, r.out))
		return 0;
	r.line = line;
	r.text = strdup(prompt);
	if (!r.text || add_row(im, &r) < 0) {
		free(r.text);
		return -1;
	}
	return 0;
}

/*
 * ShareGPT: one JSON array of conversations. cJSON parses one element at a
 * time (the array's brackets and commas are stepped over here), so a bad
 * element is reported with the line it starts on, and everything before a
 * syntax error is kept.
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
				return -3;
			}
			cap = cap ? cap * 2 : 1 << 16;
			q = realloc(data, cap + 1);
			if (!q) {
				free(data);
				return -1;
			}
			data = q;
		}
		got = fread(data + len, 1, cap - len, f);
		len += got;
	} while (got > 0);
	if (ferror(f)) {
		free(data);
		return -2;
	}
	data[len] = '\0';
	p = counted = skip_space(data, data + len);
	end = data + len;
	line += count_lines(data, p);
	if (p == end || *p != '[') {
		snprintf(err, errlen, "'%s' line %ld: expected a JSON array of conversations", im->path, line);
		free(data);
		return -3;
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
	return rc;
}

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

struct write_options {
	const char *model;
	int completions;
	int ignore_eos;
	uint64_t seed;
};

/* The prompt of r; the caller frees b->p. Returns 0 or -1. */
static int make_prompt(const struct import *im, const struct row *r, uint64_t seed,
		       struct words_buf *b)
{
	struct rng rng;
	long left = r->in;
	size_t i;

	if (r->text)
		return words_append_text(b, r->text);
	for (i = 0; i < r->n_hash && left > 0; i++) {
		long n = left < IMPORT_BLOCK_WORDS ? left : IMPORT_BLOCK_WORDS;

		rng_init(&rng, rng_derive(seed ^ 0x6d6f6f6e63616b65ULL, im->hashes[r->hash_off + i]));
		if (words_append(b, n, &rng) < 0)
			return -1;
		left -= n;
	}
	rng_init(&rng, rng_derive(seed, (uint64_t)r->line));
	return words_append(b, left, &rng);
}

static char *make_body(const struct write_options *o, const char *prompt, long max_tokens)
{
	cJSON *body = cJSON_CreateObject();
	char *text;

	cJSON_AddStringToObject(body, "model", o->model);
	if (o->completions) {
		cJSON_AddStringToObject(body, "prompt", prompt);
	} else {
		cJSON *msgs = cJSON_AddArrayToObject(body, "messages");
		cJSON *m = cJSON_CreateObject();

		cJSON_AddStringToObject(m, "role", "user");
		cJSON_AddStringToObject(m, "content", prompt);
		cJSON_AddItemToArray(msgs, m);
	}
	cJSON_AddNumberToObject(body, "max_tokens", (double)max_tokens);
	if (o->ignore_eos)
		cJSON_AddBoolToObject(body, "ignore_eos", 1);
	cJSON_AddBoolToObject(body, "stream", 1);
	text = cJSON_PrintUnformatted(body);
	cJSON_Delete(body);
	return text;
}

/* Writes rows[0, n) as a trace. Returns 0; -1 with err filled; or 128 + a
 * signal that stopped it (err says what was written). A row whose record
 * is longer than a trace line may hold is left out and said on stderr. */
static int write_trace(const struct import *im, const struct row *rows, size_t n,
		       const struct write_options *o, cJSON *header, const char *out,
		       int force, char *err)
{
	const char *path = o->completions ? "/v1/completions" : "/v1/chat/completions";
	struct tracefile_writer *w;
	int rc = -1, sig = 0, arc;
	size_t i, written = 0;
	long too_long = 0;

	w = tracefile_writer_open(out, TRACEFILE_KIND_TRACE, header, force, err);
	if (!w)
		return -1;
	for (i = 0; i < n && !(sig = cli_stop_signal()); i++) {
		struct words_buf prompt = { 0 };
		struct trace_request t;
		cJSON *rec = NULL;

		trace_request_init(&t);
		t.id = (long)i;
		t.arrival_ns = rows[i].t_ns - rows[0].t_ns;
		t.input_tokens = rows[i].in;
		t.output_tokens = rows[i].out;
		if (make_prompt(im, &rows[i], o->seed, &prompt) == 0 &&
		    trace_request_set_json_post(&t, path, make_body(o, prompt.p, rows[i].out)) == 0)
			rec = trace_request_to_json(&t);
		if (!rec)
			snprintf(err, TRACEFILE_ERRLEN, "cannot write '%s': out of memory", out);
		else if ((arc = tracefile_writer_append(w, rec)) == TRACEFILE_ETOOLONG) {
			fprintf(stderr, PROG ": '%s' line %ld: row left out: %s\n", im->path,
				rows[i].line, tracefile_writer_error(w));
			too_long++;
		} else if (arc < 0) {
			snprintf(err, TRACEFILE_ERRLEN, "%s", tracefile_writer_error(w));
		} else {
			written++;
		}
		cJSON_Delete(rec);
		trace_request_release(&t);
		free(prompt.p);
		if (err[0])
			goto cleanup;
		tracefile_writer_flush_if_due(w);
	}
	rc = 0;
cleanup:
	if (tracefile_writer_close(w, rc == 0 ? err : NULL) < 0)
		rc = -1;
	if (rc == 0 && too_long)
		fprintf(stderr, PROG ": %ld row%s left out, longer than a trace line may hold "
			"(%u MiB)\n", too_long, too_long == 1 ? "" : "s", TRACEFILE_MAX_LINE >> 20);
	if (rc == 0 && sig) {
		snprintf(err, TRACEFILE_ERRLEN, "%s: wrote %zu of %zu requests to '%s' (a whole file)",
			 sig == SIGINT ? "interrupted" : "terminated", written, n, out);
		rc = 128 + sig;
	}
	return rc;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: tracebench record import --format FORMAT [options] FILE -o TRACE\n"
		"\n"
		"Turn a published production trace into a tracebench trace, keeping its\n"
		"arrival times and token lengths. Prompts are synthesized to the recorded\n"
		"input length (one word ~ one token, an approximation); Mooncake rows that\n"
		"share hash_ids share the text of those 512-word blocks. ShareGPT keeps the\n"
		"first human turn as the prompt and its answer's length in words as max_tokens.\n"
		"\n"
		"formats:\n"
		"  mooncake   JSON Lines: timestamp (ms), input_length, output_length, hash_ids\n"
		"  azure      Azure LLM inference CSV: TIMESTAMP, ContextTokens, GeneratedTokens\n"
		"  burstgpt   BurstGPT CSV (6 or 8 columns): Timestamp (s), Request tokens,\n"
		"             Response tokens; rows with 0 response tokens are skipped\n"
		"  sharegpt   JSON array of {\"conversations\": [{\"from\": \"human\", ...}, ...]}\n"
		"\n"
		"options:\n"
		"      --format FORMAT       the input's format (required)\n"
		"      --model NAME          model field of each request (default mock)\n"
		"      --endpoint-kind K     chat (/v1/chat/completions, default) or completions\n"
		"      --ignore-eos          add \"ignore_eos\": true, so servers generate max_tokens\n"
		"      --limit N             keep the first N requests (after --time-window)\n"
		"      --time-window A-B     keep rows from A to B seconds after the first row\n"
		"                            (B may be left out); offsets restart at the first kept\n"
		"      --seed N              seed of the prompt words (default 1)\n"
		"  -o, --output FILE         trace file to write (.jsonl.gz)\n"
		"  -f, --force               replace FILE if it exists\n"
		"  -h, --help                show this help\n"
		"\n"
		"Bad rows are reported with their line number, skipped and counted; an input\n"
		"without a valid row is an error (exit 2).\n"
		"\n"
		"examples:\n"
		"  tracebench record import --format mooncake mooncake_trace.jsonl -o mooncake.jsonl.gz\n"
		"  tracebench record import --format azure --time-window 0-600 --ignore-eos \\\n"
		"      AzureLLMInferenceTrace_conv.csv -o azure-10min.jsonl.gz\n"
		"  tracebench record import --format burstgpt --limit 1000 BurstGPT_1.csv -o burst.jsonl.gz\n"
		"  tracebench record import --format sharegpt --endpoint-kind chat sharegpt.json -o sg.jsonl.gz\n");
}

static int bad_value(const char *option, const char *value)
{
	fprintf(stderr, PROG ": invalid value '%s' for --%s\n", value, option);
	return 2;
}

/* "A-B" or "A-" in seconds. Returns 0 or -1. */
static int parse_window(const char *s, double *start, double *end)
{
	const char *dash = strchr(s, '-');
	char a[64];

	if (!dash || dash == s || (size_t)(dash - s) >= sizeof(a))
		return -1;
	memcpy(a, s, (size_t)(dash - s));
	a[dash - s] = '\0';
	if (cli_parse_double(a, 0, 1e12, start) < 0)
		return -1;
	if (dash[1] == '\0') {
		*end = INFINITY;
		return 0;
	}
	return cli_parse_double(dash + 1, 0, 1e12, end) < 0 || *end <= *start ? -1 : 0;
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

int import_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'F' },
		{ "model", required_argument, NULL, 'm' },
		{ "endpoint-kind", required_argument, NULL, 'k' },
		{ "ignore-eos", no_argument, NULL, 'e' },
		{ "limit", required_argument, NULL, 'l' },
		{ "time-window", required_argument, NULL, 'w' },
		{ "seed", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct write_options wo = { .model = "mock", .seed = 1 };
	struct import im = { 0 };
	const char *out = NULL, *window = NULL;
	char err[TRACEFILE_ERRLEN] = "", detail[128];
	double win_start = 0, win_end = INFINITY;
	long limit = 0, v;
	int c, force = 0, format = -1, rc = 2, got, wrc;
	size_t i, first, kept;
	FILE *f = NULL;
	cJSON *header = NULL, *source;

	optind = 0;
	while ((c = getopt_long(argc, argv, "o:fh", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			for (format = 3; format >= 0; format--)
				if (strcmp(optarg, format_names[format]) == 0)
					break;
			if (format < 0)
				return bad_value("format", optarg);
			break;
		case 'm':
			wo.model = optarg;
			break;
		case 'k':
			if (strcmp(optarg, "chat") && strcmp(optarg, "completions"))
				return bad_value("endpoint-kind", optarg);
			wo.completions = strcmp(optarg, "completions") == 0;
			break;
		case 'e':
			wo.ignore_eos = 1;
			break;
		case 'l':
			if (cli_parse_long(optarg, 1, 1000000000L, &limit) < 0)
				return bad_value("limit", optarg);
			break;
		case 'w':
			if (parse_window(optarg, &win_start, &win_end) < 0)
				return bad_value("time-window", optarg);
			window = optarg;
			break;
		case 's':
			if (cli_parse_long(optarg, 0, 0x7fffffffL, &v) < 0)
				return bad_value("seed", optarg);
			wo.seed = (uint64_t)v;
			break;
		case 'o':
			out = optarg;
			break;
		case 'f':
			force = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "see '" PROG " --help'\n");
			return 2;
		}
	}
	if (format < 0) {
		fprintf(stderr, PROG ": no input format; give --format mooncake|azure|burstgpt|sharegpt\n");
		return 2;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, PROG ": %s\n", optind == argc ? "no input file; give FILE"
			: "give exactly one input FILE");
		return 2;
	}
	if (!out) {
		fprintf(stderr, PROG ": no output file; give -o TRACE\n");
		return 2;
	}
	im.path = argv[optind];
	im.format = (enum import_format)format;
	f = fopen(im.path, "rb");
	if (!f) {
		fprintf(stderr, PROG ": cannot open '%s': %s\n", im.path, strerror(errno));
		return 2;
	}
	if (im.format == IMPORT_MOONCAKE)
		got = read_mooncake(&im, f);
	else if (im.format == IMPORT_SHAREGPT)
		got = read_sharegpt(&im, f, err, sizeof(err));
	else
		got = read_csv(&im, f, err, sizeof(err));
	if (got == -2)
		fprintf(stderr, PROG ": cannot read '%s': %s\n", im.path, strerror(errno));
	else if (got == -1)
		fprintf(stderr, PROG ": '%s': out of memory\n", im.path);
	else if (got == -3)
		fprintf(stderr, PROG ": %s\n", err);
	if (got < 0)
		goto cleanup;
	skipped_detail(&im, detail, sizeof(detail));
	if (im.n_rows == 0) {
		fprintf(stderr, PROG ": no valid row in '%s'; skipped %ld row%s%s\n", im.path,
			im.malformed + im.zero_output, im.malformed + im.zero_output == 1 ? "" : "s", detail);
		goto cleanup;
	}

	/* in time order; window from the first row; offsets from the first kept */
	qsort(im.rows, im.n_rows, sizeof(*im.rows), cmp_row);
	for (first = 0; first < im.n_rows; first++)
		if ((double)(im.rows[first].t_ns - im.rows[0].t_ns) / 1e9 >= win_start)
			break;
	for (kept = 0; first + kept < im.n_rows; kept++) {
		if ((double)(im.rows[first + kept].t_ns - im.rows[0].t_ns) / 1e9 >= win_end ||
		    (limit && (long)kept == limit))
			break;
	}
	if (kept == 0) {
		fprintf(stderr, PROG ": no row of '%s' falls in --time-window %s\n", im.path, window);
		goto cleanup;
	}

	header = cJSON_CreateObject();
	cJSON_AddStringToObject(header, "tool", "tracebench " TB_VERSION);
	source = cJSON_AddObjectToObject(header, "source");
	cJSON_AddStringToObject(source, "kind", "import");
	cJSON_AddStringToObject(source, "format", format_names[format]);
	cJSON_AddStringToObject(source, "file", im.path);
	cJSON_AddNumberToObject(source, "requests", (double)kept);
	cJSON_AddNumberToObject(source, "skipped", (double)(im.malformed + im.zero_output));
	if (window)
		cJSON_AddStringToObject(source, "time_window", window);
	if (limit)
		cJSON_AddNumberToObject(source, "limit", (double)limit);
	cJSON_AddNumberToObject(source, "seed", (double)wo.seed);
	cJSON_AddStringToObject(source, "model", wo.model);
	cJSON_AddStringToObject(source, "endpoint_kind", wo.completions ? "completions" : "chat");
	cJSON_AddBoolToObject(source, "ignore_eos", wo.ignore_eos);
	if (cli_catch_stop_signals() < 0) {
		fprintf(stderr, PROG ": cannot handle signals\n");
		goto cleanup;
	}
	if ((wrc = write_trace(&im, im.rows + first, kept, &wo, header, out, force, err)) != 0) {
		fprintf(stderr, PROG ": %s\n", err);
		if (wrc > 0)
			rc = wrc;
		goto cleanup;
	}
	fprintf(stderr, PROG ": imported %zu request%s from '%s'; skipped %ld row%s%s", kept,
		kept == 1 ? "" : "s", im.path, im.malformed + im.zero_output,
		im.malformed + im.zero_output == 1 ? "" : "s", detail);
	if (kept < im.n_rows)
		fprintf(stderr, "; left out %zu outside --time-window or past --limit", im.n_rows - kept);
	fprintf(stderr, "\n");
	rc = 0;
cleanup:
	for (i = 0; i < im.n_rows; i++)
		free(im.rows[i].text);
	free(im.rows);
	free(im.hashes);
	cJSON_Delete(header);
	if (f)
		fclose(f);
	return rc;
}
