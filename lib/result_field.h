/*
 * result_field.h - every field of a request's record, said once: its name
 * (the same in a results file, schema/FORMAT.md, and as a column of the
 * database's requests table, schema/tracebench.sql), its place and type
 * in struct result, the range a file may hold, how a file writes "none",
 * and the database schema version that added its column.
 *
 * lib/result.c writes and reads results files by this table;
 * analyze/db_load.c builds its INSERT and binds by it, analyze/db.c adds
 * the columns an older database lacks by it, and analyze/db_read.c builds
 * the SELECT of any schema version and reads the row by it. A new field is
 * a row here, its column in the schema, and its row in FORMAT.md
 * (test_analyze_db holds the table to the schema's columns, test_result
 * to FORMAT.md's rows).
 */
#ifndef TB_RESULT_FIELD_H
#define TB_RESULT_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum result_field_type {
	RESULT_FIELD_I64,    /* int64_t; -1 is none where 'optional' */
	RESULT_FIELD_LONG,   /* long; -1 is none where 'optional' */
	RESULT_FIELD_INT,    /* int */
	RESULT_FIELD_BOOL,   /* bool */
	RESULT_FIELD_TEXT,   /* char[size], NUL-terminated; "" is none */
	/* The fields with code of their own wherever they are read or
	 * written (result.c, db_load.c, db_read.c): */
	RESULT_FIELD_ERROR,         /* the class, "" (null) on success */
	RESULT_FIELD_ERROR_DETAIL,  /* owned; only with an error */
	RESULT_FIELD_RATE,          /* double; a rate level's only */
	RESULT_FIELD_TOKENS_SOURCE, /* enum result_tokens, by name */
	RESULT_FIELD_STREAMED,      /* the inverse of 'unstreamed' */
	RESULT_FIELD_SERVER_TIMINGS,/* enum srvtiming_shape, by name */
	RESULT_FIELD_GAPS,          /* itl_ns[n_itl], an array of microseconds */
};

/* How a results file writes a field's none (-1, "" or, for ZERO, 0). */
enum result_field_json {
	RESULT_JSON_VALUE,   /* always its value */
	RESULT_JSON_NULL,    /* none as null */
	RESULT_JSON_OMIT,    /* none left out */
	RESULT_JSON_ZERO,    /* 0 left out */
};

struct result_field {
	const char *name;
	enum result_field_type type;
	size_t off;              /* in struct result */
	size_t size;             /* TEXT: the array's size */
	bool optional;           /* none is the database's NULL */
	bool required;           /* a results file must have it */
	enum result_field_json json;
	bool server;             /* written with the server's timings only */
	int64_t lo, hi;          /* an integer's range in a file: out of it refused */
	int since;               /* the database schema version of its column */
	const char *decl;        /* the column's type, as an older one gets it */
};

/* The fields in a results record's order, which the database's INSERT,
 * SELECT and reads follow too. */
extern const struct result_field result_fields[];
extern const size_t result_n_fields;

struct result;

/* The field named name, or NULL. */
const struct result_field *result_field_find(const char *name);

/* An integer or boolean field's value (0 for another type), and setting
 * it (an INT out of int's range is set to 0). */
int64_t result_field_get(const struct result *r, const struct result_field *f);
void result_field_set(struct result *r, const struct result_field *f, int64_t v);

/* A TEXT field's string (NULL for another type), and setting it, cut to
 * fit (NULL sets ""). */
const char *result_field_text(const struct result *r, const struct result_field *f);
void result_field_set_text(struct result *r, const struct result_field *f, const char *s);

#endif
