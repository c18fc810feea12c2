/*
 * db.h - the analysis database: results files in, struct result arrays out.
 *
 * `tracebench analyze` keeps every run it is given in one SQLite file whose
 * schema is schema/tracebench.sql (compiled in). This module is the only
 * part of analyze that speaks SQL: it opens and migrates the database, loads
 * results files (lib/tracefile.h + lib/result.h) and reads runs back as
 * struct result arrays, so that report and plot compute their numbers with
 * lib/summary.h exactly as replay does.
 *
 * A "run" here is a label: every results file loaded under one label (the
 * shards of one sweep, see docs/DESIGN.md "Scale past one machine") is reported
 * as one run. Loading the same file (same run_id) twice is a no-op.
 *
 * Errors are values: functions return 0 or a negative DB_ERR_* code and put
 * a one-line message naming the file or run into 'err' (errlen bytes); they
 * never print.
 */
#ifndef TB_ANALYZE_DB_H
#define TB_ANALYZE_DB_H

#include "analyze/run_params.h"
#include "lib/energy.h"
#include "lib/clientbound.h"
#include "lib/srvmetric.h"
#include <stddef.h>
#include "lib/result.h"

/* Schema version this build creates (PRAGMA user_version). It reads and,
 * when writing, migrates databases of version 1 (no requests.repeat) and
 * 2 (no runs.clock, no requests.streamed), 3 (no token source, cached
 * tokens, salt or connection times), 4 (no metrics tables) and 5 (no
 * requests.session or requests.turn); 9 added the requests columns of the
 * per-request server timings, 10 metric_scrapes.at, 11
 * metric_scrapes.source (several --metrics-url). */
#define DB_SCHEMA_VERSION 15

/* Suggested size of the 'err' buffers below. */
#define DB_ERRLEN 1024

enum db_status {
	DB_ALREADY_LOADED = 1,  /* db_load_results: run_id present, nothing done */
	DB_OK = 0,
	DB_ERR_WORK = -1,       /* SQLite or I/O failure: the work failed (exit 1) */
	DB_ERR_INPUT = -2,      /* bad input: missing/bad file, unknown run (exit 2) */
};

enum db_mode {
	DB_READ,                /* the file must exist and hold a tracebench db */
	DB_WRITE,               /* created if missing; schema applied */
};

struct db;

/*
 * Opens the database at 'path'. DB_WRITE creates the file if needed and
 * applies the schema; DB_READ opens an existing database read-only. Either
 * way a database of a newer schema version is refused (DB_ERR_INPUT).
 * On success sets *out (free with db_close) and returns DB_OK.
 */
int db_open(const char *path, enum db_mode mode, struct db **out, char *err, size_t errlen);

/* Closes the database and frees db (NULL is a no-op). */
void db_close(struct db *db);

/* What db_load_results did; strings owned by the struct (db_load_info_release). */
struct db_load_info {
	char *run_id;
	char *label;        /* label the run was stored under */
	size_t requests;    /* records stored (warm-ups included) */
	char *damage;       /* NULL, or the reader's damage sentence (file truncated) */
};

void db_load_info_release(struct db_load_info *info);

/*
 * Loads the results file 'path' in one transaction; 'label' (may be NULL)
 * overrides the label in the file's header. Returns DB_OK, DB_ALREADY_LOADED
 * when its run_id is in the database already (nothing changed), DB_ERR_INPUT
 * for an unreadable or malformed file (message names file and line; the
 * database is left as it was), or DB_ERR_WORK. 'info' is filled on DB_OK and
 * DB_ALREADY_LOADED; the caller releases it with db_load_info_release. The
 * complete records of a truncated file are loaded, and info->damage says what
 * was dropped.
 */
int db_load_results(struct db *db, const char *path, const char *label,
		    struct db_load_info *info, char *err, size_t errlen);

/*
 * A run read from something other than a tracebench results file (a
 * proxy's capture, another tool's results: analyze/capture.c,
 * analyze/foreign.c), ready to store. It owns its strings and results.
 */
struct db_import {
	char *run_id;              /* unique; a run_id already loaded is a no-op */
	char *label;               /* the run's own label (a --label wins) */
	char *created, *tool, *endpoint, *model;
	char *trace_path, *trace_digest, *trace_crc32;
	char *mode;                /* "closed", "open" */
	char *params_json;         /* a JSON object, or NULL */
	struct result *results;
	size_t n;
};

/* Frees every string and result imp owns and zeroes it; NULL fields are fine. */
void db_import_release(struct db_import *imp);

/*
 * Stores imp in one transaction, as db_load_results does with a results
 * file ('path' names the source in messages and in runs.source). Returns
 * DB_OK, DB_ALREADY_LOADED, DB_ERR_INPUT (two results with one seq) or
 * DB_ERR_WORK; 'info' is filled on the first two (db_load_info_release).
 */
int db_load_import(struct db *db, const char *path, const struct db_import *imp,
		   const char *label, struct db_load_info *info, char *err, size_t errlen);

/* One run (label) as the report heading shows it. Strings may be NULL. */
struct db_run {
	char *label;
	char *endpoint;
	char *model;
	char *trace_digest;
	char *trace_crc32;  /* beside a SHA-256 digest, else NULL (tracefile_same_trace) */
	int files;          /* results files loaded under this label */
	char *created;      /* of the first results file */
	char *mode;         /* "closed", "open" */
	char *params;       /* JSON object of the first results file's params */
	struct run_params param;   /* ... read (run_params.h) */
	char *served;       /* the first model the server listed, or NULL */
	char *tags;         /* "key=value key=value" of --tag, or NULL */
	char *provenance;   /* JSON object of the header's provenance, or NULL */
	char *trace_path;   /* the trace replayed, as the results header names it, or NULL */
};

/*
 * Lists the runs in the order they were created, or only the one labelled
 * 'label' (NULL: all). An unknown label, or a database without runs, is
 * DB_ERR_INPUT. On success sets *runs (free with db_runs_free) and *n >= 1.
 */
int db_runs(struct db *db, const char *label, struct db_run **runs, size_t *n,
	    char *err, size_t errlen);
void db_runs_free(struct db_run *runs, size_t n);

/* Sets *n to the number of runs the database holds. Returns DB_OK or an error. */
int db_count_runs(struct db *db, long *n, char *err, size_t errlen);

/* Counts of one run, for `analyze runs`. */
struct db_run_counts {
	long requests;      /* non-warm-up requests */
	long errors;        /* of which failed */
	long warmups;
	char *levels;       /* "1,2,4" (malloc'd), "" when none */
};

/* Fills *out for the run 'label' (which need not exist: zero counts). */
int db_run_counts(struct db *db, const char *label, struct db_run_counts *out,
		  char *err, size_t errlen);

/*
 * Deletes the run 'label' (every results file loaded under it) and its
 * requests in one transaction. Sets *files to the number of results files
 * removed; an unknown label is DB_ERR_INPUT. The db must be opened DB_WRITE.
 */
int db_remove_run(struct db *db, const char *label, int *files, char *err, size_t errlen);

/* One results file of a run, as a merged run's shard section shows it. */
struct db_shard {
	char *run_id;
	char *source;       /* the results file it was loaded from */
	char *shard;        /* "K/N", NULL when the file is no shard */
	long k, n;          /* of shard; 0, 0 when none */
	int open_loop;      /* its params' mode is "open" */
	char *params;       /* JSON object */
	char *clock;        /* JSON object of the header's clock, NULL when none */
	long requests;      /* non-warm-up requests */
	int64_t first_send_ns, first_sched_ns, last_sched_ns;   /* of those */
	double *lag_ms;     /* with_lags: send - sched of each, ascending */
};

/*
 * The results files of the run 'label' in the order they were loaded
 * (an unknown label gives *n = 0). With 'with_lags' each one's send lags
 * are read too. On success sets *out (free with db_shards_free) and *n.
 */
int db_shards(struct db *db, const char *label, int with_lags, struct db_shard **out,
	      size_t *n, char *err, size_t errlen);
void db_shards_free(struct db_shard *s, size_t n);

/* A model a replay --model-mix sent requests to (requests.model). */
struct db_model {
	char name[RESULT_MODEL_MAX];
};

/*
 * The distinct models the requests of the run 'label' were sent to, by
 * name (free with free()); none (*n 0) for a run without a --model-mix
 * and in a database before schema version 13.
 */
int db_models(struct db *db, const char *label, struct db_model **models, size_t *n,
	      char *err, size_t errlen);

/*
 * Concurrency levels of the run 'label', ascending. On success sets *levels
 * (the caller frees it with free(); NULL when *n is 0) and *n.
 */
int db_levels(struct db *db, const char *label, int **levels, size_t *n,
	      char *err, size_t errlen);

/* The server's own metrics of one level of a run from one of its
 * --metrics-url (replay). */
struct db_metric_level {
	char source[160];           /* the endpoint (redacted; cut to fit), "" when
				     * the scrapes name none (one --metrics-url,
				     * or a database before schema version 11) */
	long source_order;          /* the sources' rank: db_metric_levels */
	int level;
	long scrapes, failed;       /* scrapes recorded, of which not ok */
	long bad_lines;             /* lines the ok ones skipped */
	struct srvmetric_level m;   /* the ok ones folded (lib/srvmetric.h) */
	struct energy_level e;      /* ... and their energy counter (lib/energy.h) */
};

/*
 * Per source (in the run's --metrics-url order) and level (ascending) of
 * the run 'label', its scrapes folded, energy as counter c says. On
 * success sets *out (free() it; NULL when *n is 0: no scrapes, or a
 * database from before schema version 5) and *n.
 */
int db_metric_levels(struct db *db, const char *label, const struct energy_counter *c,
		     struct db_metric_level **out, size_t *n, char *err, size_t errlen);

/* Whether a scrape of the run 'label' holds a sample named 'name': *yes 1
 * or 0 (0 in a database from before schema version 5). */
int db_run_has_sample(struct db *db, const char *label, const char *name, int *yes,
		      char *err, size_t errlen);

/* A level's bound on the client's own error (lib/clientbound.h), from
 * its host records at level end: the largest of each figure over the
 * level's repeats and shards. */
struct db_client_level {
	int level;
	struct clientbound_watch w;
	struct clientbound b;
};

/*
 * The client bounds of run 'label', by level in ascending order. On
 * success sets *out (free() it; NULL when *n is 0: a run without them,
 * or a database before schema version 10) and *n.
 */
int db_client_levels(struct db *db, const char *label, struct db_client_level **out,
		     size_t *n, char *err, size_t errlen);

/* One ok scrape on the timeline: seconds from the run's start, and the
 * known gauges summed over their label sets (NaN when not reported). */
struct db_metric_point {
	double t_s;
	double running, waiting, kv_usage;
};

/*
 * Every ok scrape of the run 'label' in time order. On success sets *out
 * (free() it; NULL when *n is 0) and *n.
 */
int db_metric_timeline(struct db *db, const char *label, struct db_metric_point **out,
		       size_t *n, char *err, size_t errlen);

/*
 * Every request (warm-ups included) of one level of the run 'label', file
 * by file (by run_id), each in sending order, as initialized struct results. On success sets *out (free
 * with db_results_free; NULL when *n is 0) and *n.
 */
int db_results(struct db *db, const char *label, int level, struct result **out,
	       size_t *n, char *err, size_t errlen);
void db_results_free(struct result *r, size_t n);

/*
 * Called by db_export_rows: first once with cells NULL (the header), then
 * once per request. 'names' are the column names, 'cells' the values as
 * text: integers in decimal, milliseconds with three decimals, NULL for SQL
 * NULL. Both arrays are valid during the call only. Return 0 to go on,
 * non-zero to stop (that value is then returned by db_export_rows).
 */
typedef int (*db_row_fn)(void *ctx, int ncols, const char *const *names,
			 const char *const *cells);

/*
 * Calls fn for every request of the run 'label' (not NULL), warm-ups
 * included, in sending order. Columns: run, concurrency, seq, trace_id,
 * warmup, status, error, ttft_ms, ttfa_ms, e2e_ms, tpot_ms, input_tokens,
 * output_tokens, tokens_estimated, run_id, error_detail, repeat, sched_ms,
 * send_ms, tokens_source, token_events, cached_tokens, salt,
 * new_connection, connect_ms, tls_ms, and with 'gaps' itl_us (a JSON
 * array of the inter-token gaps in microseconds).
 */
int db_export_rows(struct db *db, const char *label, int gaps, db_row_fn fn, void *ctx,
		   char *err, size_t errlen);

#endif
