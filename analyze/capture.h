/*
 * capture.h - a `record proxy` capture read as a run: production beside
 * its replay.
 *
 * The proxy writes each request with the upstream's response as it saw it
 * (the "recorded" object: the fields of a results record, schema/FORMAT.md).
 * Read as a run, every inference request of the capture is one result of
 * an open-loop level (level 0): its start is its arrival at the proxy, so
 * `analyze report` shows what clients saw and `analyze compare capture
 * replay` how far a replay is from it. Requests of kind "other" (models
 * lists, HEAD, health checks) are left out, and counted in a note.
 */
#ifndef TB_ANALYZE_CAPTURE_H
#define TB_ANALYZE_CAPTURE_H

#include <stddef.h>

#include "analyze/db.h"
#include "lib/result.h"

/* A capture read as a run; everything owned (capture_run_release). */
struct capture_run {
	struct db_import run;   /* run_id "capture-<trace digest>", label the file's
				 * name without .jsonl.gz, mode "open" */
	size_t skipped;         /* requests of kind "other" left out */
	char *damage;           /* the reader's sentence for a truncated file, or NULL */
};

/*
 * Reads the trace at 'path', which must be a capture (header source kind
 * "proxy"). Returns DB_OK and fills *out, or DB_ERR_INPUT / DB_ERR_WORK
 * with a one-line message naming the file (and line) in err; nothing is
 * returned half-read.
 */
int capture_read(const char *path, struct capture_run *out, char *err, size_t errlen);

void capture_run_release(struct capture_run *r);

#endif
