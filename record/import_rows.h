/*
 * import_rows.h - what the files of `tracebench record import` share: the
 * rows read from the input, the import that holds them, and the functions
 * one file calls in another. import.c runs the command and keeps the row
 * store; a reader per format fills it (import_mooncake.c, import_csv.c,
 * import_sharegpt.c); import_write.c writes the rows kept as a trace.
 * Internal to record/import*.c.
 */
#ifndef TB_RECORD_IMPORT_ROWS_H
#define TB_RECORD_IMPORT_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "import.h"

#define IMPORT_PROG "tracebench record import"
#define IMPORT_MAX_LENGTH 10000000L     /* longest input or output accepted */

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

/* One import's input, read whole: the rows, the Mooncake hash ids they
 * point into and the ShareGPT conversations, all owned and freed by
 * import_run; and the bad rows counted and shown. */
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

/* The row store (import.c). */

/* Counts a bad row and says on stderr, naming the file and line, why it is
 * skipped: the first 20 of them, then that the rest are only counted. */
void import_bad_row(struct import *im, long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Append a copy of *r, or a hash id, to im. Return 0, or -1 when out of
 * memory. */
int import_add_row(struct import *im, const struct row *r);
int import_add_hash(struct import *im, uint64_t h);

/* The checks of a row's lengths every format makes: 1 when the row is to
 * be kept, else 0 after counting it (a bad row, or one with 0 output). */
int import_lengths_ok(struct import *im, long line, long in, long out);

/* The readers' failures: each fills err (errlen bytes) and returns -1. */
int import_out_of_memory(const struct import *im, char *err, size_t errlen);
int import_read_error(const struct import *im, char *err, size_t errlen);

/* The readers: each reads all of f (named im->path) into im, bad rows
 * said and counted. Return 0, or -1 with a message in err. */
int import_read_mooncake(struct import *im, FILE *f, char *err, size_t errlen);
int import_read_csv(struct import *im, FILE *f, char *err, size_t errlen);  /* Azure, BurstGPT */
int import_read_sharegpt(struct import *im, FILE *f, char *err, size_t errlen);

/* Frees a ShareGPT conversation's texts and empties it (import_sharegpt.c). */
void import_conv_release(struct conv *c);

/*
 * --sessions prefix: the Mooncake rows[0, n) (kept, in time order) into
 * sessions by their hash_ids (import_mooncake.c, where the rule is told).
 * Returns 0, or -1 when out of memory.
 */
int import_group_by_prefix(const struct import *im, struct row *rows, size_t n);

/* Writes rows[0, n) as the trace 'out' (import_write.c). Returns 0; -1 with
 * err filled; or 128 + a signal that stopped it (err says what was
 * written). A row whose record is longer than a trace line may hold is
 * left out and said on stderr. With fit's tokenizer (lib/tokfit.h) a
 * row of synthesized words is fitted to its input length and a row of
 * fixed text measured; a tokenizer's failure is -1 with fit->failed set. */
int import_write_trace(const struct import *im, const struct row *rows, size_t n,
		       const struct record_import_options *o, struct tokfit *fit, cJSON *header,
		       const char *out, int force, char *err, size_t errlen);

#endif
