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
 * This file runs the command and keeps the rows (import_rows.h); a reader
 * per format fills them (import_mooncake.c, import_csv.c for Azure and
 * BurstGPT, import_sharegpt.c) and import_write.c turns the rows kept
 * into the trace's requests.
 */
#include "import.h"
#include "import_rows.h"
#include "lib/cli.h"
#include "lib/tracefile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MESSAGES 20                 /* bad-row messages shown */

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

void import_bad_row(struct import *im, long line, const char *fmt, ...)
{
	va_list ap;

	im->malformed++;
	if (im->shown == MAX_MESSAGES) {
		fprintf(stderr, IMPORT_PROG ": further bad rows are counted, not shown\n");
		im->shown++;
	}
	if (im->shown > MAX_MESSAGES)
		return;
	im->shown++;
	fprintf(stderr, IMPORT_PROG ": '%s' line %ld: ", im->path, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; skipped\n");
}

int import_add_row(struct import *im, const struct row *r)
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

int import_add_hash(struct import *im, uint64_t h)
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
int import_lengths_ok(struct import *im, long line, long in, long out)
{
	if (in < 1) {
		import_bad_row(im, line, "input length is 0");
		return 0;
	}
	if (out == 0) {
		im->zero_output++;      /* failed requests in BurstGPT: counted only */
		return 0;
	}
	return 1;
}

/* The readers' failures: each fills err (errlen bytes) and returns -1. */
int import_out_of_memory(const struct import *im, char *err, size_t errlen)
{
	snprintf(err, errlen, "'%s': out of memory", im->path);
	return -1;
}

int import_read_error(const struct import *im, char *err, size_t errlen)
{
	snprintf(err, errlen, "cannot read '%s': %s", im->path, strerror(errno));
	return -1;
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
		fprintf(stderr, IMPORT_PROG ": cannot open '%s': %s\n", im->path, strerror(errno));
		return CLI_EXIT_USAGE;
	}
	if (im->format == IMPORT_MOONCAKE)
		got = import_read_mooncake(im, f, err, sizeof(err));
	else if (im->format == IMPORT_SHAREGPT)
		got = import_read_sharegpt(im, f, err, sizeof(err));
	else
		got = import_read_csv(im, f, err, sizeof(err));
	fclose(f);
	if (got < 0) {
		fprintf(stderr, IMPORT_PROG ": %s\n", err);
		return CLI_EXIT_USAGE;
	}
	if (im->n_rows == 0) {
		skipped_detail(im, detail, sizeof(detail));
		fprintf(stderr, IMPORT_PROG ": no valid row in '%s'; skipped %ld row%s%s\n", im->path,
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
		fprintf(stderr, IMPORT_PROG ": no row of '%s' falls in --time-window %s\n", im->path,
			o->window);
		return CLI_EXIT_USAGE;
	}
	*first = i;
	*kept = n;
	return 0;
}

/* The trace's header: where its requests came from and how. */
static cJSON *make_header(const struct import *im, const struct record_import_options *o,
			  const struct tokfit *fit, size_t kept)
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
	cJSON_AddStringToObject(source, "endpoint_kind", record_api_name(o->api));
	cJSON_AddBoolToObject(source, "ignore_eos", o->ignore_eos);
	tokfit_describe(fit, source);
	if (o->session_prefix)
		cJSON_AddStringToObject(source, "sessions", "prefix");
	return header;
}

static void print_imported(const struct import *im, size_t kept)
{
	char detail[128];

	skipped_detail(im, detail, sizeof(detail));
	fprintf(stderr, IMPORT_PROG ": imported %zu request%s from '%s'; skipped %ld row%s%s", kept,
		kept == 1 ? "" : "s", im->path, im->malformed + im->zero_output,
		im->malformed + im->zero_output == 1 ? "" : "s", detail);
	if (kept < im->n_rows)
		fprintf(stderr, "; left out %zu outside --time-window or past --limit", im->n_rows - kept);
	fprintf(stderr, "\n");
}

int import_run(const struct record_import_options *o)
{
	struct import im = { 0 };
	struct tokfit fit = { 0 };
	char err[TRACEFILE_ERRLEN] = "";
	size_t i, first = 0, kept = 0;
	cJSON *header = NULL;
	int rc;

	if ((rc = read_input(&im, o)) || (rc = select_rows(&im, o, &first, &kept)))
		goto cleanup;
	if (o->session_prefix && import_group_by_prefix(&im, im.rows + first, kept) < 0) {
		fprintf(stderr, IMPORT_PROG ": '%s': out of memory\n", im.path);
		rc = CLI_EXIT_FAILED;
		goto cleanup;
	}
	if (tokfit_init(&fit, &o->tok, o->model, record_api_chat(o->api), err, sizeof(err)) < 0) {
		fprintf(stderr, IMPORT_PROG ": %s\n", err);
		rc = CLI_EXIT_FAILED;
		goto cleanup;
	}
	header = make_header(&im, o, &fit, kept);
	if (cli_catch_stop_signals() < 0) {
		fprintf(stderr, IMPORT_PROG ": cannot handle signals\n");
		rc = CLI_EXIT_FAILED;
		goto cleanup;
	}
	if ((rc = import_write_trace(&im, im.rows + first, kept, o, &fit, header, o->output,
				     o->force, err, sizeof(err)))) {
		fprintf(stderr, IMPORT_PROG ": %s\n", err);
		if (rc < 0)
			rc = fit.failed ? CLI_EXIT_FAILED : CLI_EXIT_USAGE;
		goto cleanup;
	}
	print_imported(&im, kept);
	tokfit_summary(&fit, IMPORT_PROG);
cleanup:
	for (i = 0; i < im.n_rows; i++)
		free(im.rows[i].text);
	for (i = 0; i < im.n_convs; i++)
		import_conv_release(&im.convs[i]);
	free(im.convs);
	free(im.rows);
	free(im.hashes);
	cJSON_Delete(header);
	tokfit_release(&fit);
	return rc;
}
