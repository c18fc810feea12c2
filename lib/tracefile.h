/*
 * tracefile.h - gzip-compressed JSON Lines files with a versioned header.
 *
 * Traces (written by record, read by replay) and results (written by replay,
 * read by analyze) share one container, specified in schema/FORMAT.md:
 * a gzip stream of UTF-8 lines, each one JSON object; the first line is a
 * header naming the kind of file and its format version.
 *
 * The writer flushes the gzip stream (Z_SYNC_FLUSH) at least once a second
 * while records arrive (appending, and the caller's once-a-second timer
 * calling tracefile_writer_flush), so a killed process leaves a readable
 * prefix missing at most about a second of records. The reader returns every complete line
 * of a truncated or damaged file and then says what it had to drop.
 */
#ifndef TB_TRACEFILE_H
#define TB_TRACEFILE_H

#include <stddef.h>
#include <cjson/cJSON.h>

#define TRACEFILE_KIND_TRACE   "tracebench-trace"
#define TRACEFILE_KIND_RESULTS "tracebench-results"
/* The newest format version this build reads of a trace, and of a results
 * file. A writer writes version 1 unless the header it is given asks for
 * another ("version": N, up to the kind's newest): a trace with sessions is
 * version 2, a results file with metrics records version 2, one of a
 * replay of sessions version 3 and one of a search over rates (several
 * open-loop levels) version 4 (schema/FORMAT.md). */
#define TRACEFILE_VERSION      2
#define TRACEFILE_RESULTS_VERSION 4

/*
 * Longest line (one record, without its newline) of a file: the one limit
 * shared by every writer and reader. A writer refuses a longer record
 * (TRACEFILE_ETOOLONG) and writes nothing of it, so the file stays
 * readable; a reader that meets a longer line anyway (another program
 * wrote it) skips that record, reads on, and says so in
 * tracefile_reader_damage.
 */
#define TRACEFILE_MAX_LINE (64u << 20)

/* Returned by the append functions for a record longer than TRACEFILE_MAX_LINE:
 * nothing was written, the writer is still good. */
#define TRACEFILE_ETOOLONG (-2)

/* A size for the 'err' buffers the functions below fill (lib/errmsg.h):
 * their longest message, with a path in it, fits. */
#define TRACEFILE_ERRLEN 512

struct tracefile_writer;
struct tracefile_reader;

/*
 * Creates 'path' and writes the header line: 'header' (may be NULL) with
 * "format": kind and "version" put first (the header's "version" when it
 * is an integer from 1 to the kind's newest, else 1). The caller
 * keeps ownership of 'header'. An existing file is refused unless 'force'.
 * Returns NULL and fills err (lib/errmsg.h) on failure.
 */
struct tracefile_writer *tracefile_writer_open(const char *path, const char *kind,
					       const cJSON *header, int force,
					       char *err, size_t errlen);

/* Appends one record as a line. Returns 0, TRACEFILE_ETOOLONG (the record is
 * not written; the next may be), or -1 (see tracefile_writer_error). */
int tracefile_writer_append(struct tracefile_writer *w, const cJSON *record);

/* Appends an already serialized JSON object (no newline). Returns 0,
 * TRACEFILE_ETOOLONG or -1, as tracefile_writer_append. */
int tracefile_writer_append_raw(struct tracefile_writer *w, const char *json, size_t len);

/* Flushes the gzip stream if the last flush is more than a second old
 * (appending does this itself). Returns 0, or -1 (see tracefile_writer_error). */
int tracefile_writer_flush_if_due(struct tracefile_writer *w);

/*
 * Flushes the gzip stream now if anything was appended since the last
 * flush. For a once-a-second timer: lines appended just after a flush
 * reach the disk at the next tick, not up to two ticks later (a tick that
 * comes a hair under a second after the last flush would skip it in
 * tracefile_writer_flush_if_due). Returns 0, or -1 (see tracefile_writer_error).
 */
int tracefile_writer_flush(struct tracefile_writer *w);

/* As tracefile_writer_flush, but a background writer's thread is only
 * asked to flush, for an event loop's once-a-second timer: it returns once
 * the flush the previous call asked for is done (long done, unless the
 * machine gave the thread no time since: then the caller writes it), so
 * that everything appended
 * before the previous call is on disk (see tracefile_writer_background). */
int tracefile_writer_flush_soon(struct tracefile_writer *w);

/*
 * From now on w compresses and writes in a thread of its own, for a caller
 * whose event loop must not wait for zlib (replay: some 60 µs a record).
 * The thread runs at the system's idle priority (SCHED_IDLE): beside a
 * thread that wants its core it gets a sliver of it (Linux weighs it at
 * some 0.3% of an ordinary thread). An append only copies its line into a
 * queue and wakes the thread once 64 KiB are queued; the thread takes the
 * queue whole and writes it, flushing when asked, or when it writes a
 * second or more after the last flush. tracefile_writer_flush returns once everything appended
 * before it is written and flushed; tracefile_writer_flush_soon asks for
 * that and waits only for what it asked the time before: called once a
 * second, it leaves a killed process without the last two seconds at
 * most; tracefile_writer_flush_if_due wakes the thread when a second has
 * passed. Where a caller would wait for the thread (a flush, 16 MiB
 * queued and not yet taken, close), it writes itself instead, but for
 * the 64 KiB the thread may be in the middle of: a busy machine that
 * gives the thread no time never holds the caller long. A failed write
 * reaches the caller at its next append, flush or close. Returns 0, or -1
 * when no thread could start (see tracefile_writer_error; w goes on
 * writing in the caller's thread).
 */
int tracefile_writer_background(struct tracefile_writer *w);

/* Ends the gzip stream and closes the file; frees w (NULL is a no-op).
 * Returns 0, or -1 with a message in err (lib/errmsg.h; may be NULL). */
int tracefile_writer_close(struct tracefile_writer *w, char *err, size_t errlen);

/* Last error of w, e.g. "cannot write 'x.gz': No space left on device". */
const char *tracefile_writer_error(const struct tracefile_writer *w);

/*
 * Opens 'path' and reads its header. When 'kind' is not NULL the header
 * must name that kind ("'r.jsonl.gz' is a results file, not a trace").
 * A file of a newer format version than this build knows is refused.
 * Returns NULL and fills err (lib/errmsg.h) on failure.
 */
struct tracefile_reader *tracefile_reader_open(const char *path, const char *kind, char *err,
					      size_t errlen);

/* The header object; owned by the reader. */
const cJSON *tracefile_reader_header(const struct tracefile_reader *r);

/*
 * Reads the next record. Returns 1 and sets *record (the caller frees it
 * with cJSON_Delete), 0 at the end of the data (check tracefile_reader_damage),
 * or -1 on a malformed record (message from tracefile_reader_error names the
 * file and line). Blank lines are skipped.
 */
int tracefile_reader_next(struct tracefile_reader *r, cJSON **record);

/* Same as tracefile_reader_next, but hands out the raw line (owned by the
 * reader, valid until the next call; NUL-terminated, no newline). */
int tracefile_reader_next_line(struct tracefile_reader *r, const char **line, size_t *len);

/* Line number (1 = header) of the record last returned. */
size_t tracefile_reader_lineno(const struct tracefile_reader *r);

/* NULL when the file was whole so far, else a sentence such as
 * "truncated gzip stream: dropped 1 incomplete record (37 bytes)" or
 * "skipped 1 record longer than 64 MiB (line 3)". Read it after the end. */
const char *tracefile_reader_damage(const struct tracefile_reader *r);

/* Message of the last error. */
const char *tracefile_reader_error(const struct tracefile_reader *r);

/* Room for a digest string of either kind below, with its NUL. */
#define TRACEFILE_DIGEST_LEN 80

/* "sha256:<64 hex digits>" of every uncompressed byte read so far: a
 * trace's identity. Read to the end first to get the digest of the whole
 * file. Owned by the reader; "" when the digest could not be computed. */
const char *tracefile_reader_digest(struct tracefile_reader *r);

/* "crc32:xxxxxxxx" of the same bytes: the identity files written before
 * the SHA-256 carry, kept beside it so they can still be matched. */
const char *tracefile_reader_crc32(struct tracefile_reader *r);

/* Both identities of what a reader has read, for a results header. */
struct tracefile_id {
	char digest[TRACEFILE_DIGEST_LEN];  /* "sha256:..." */
	char crc32[16];                     /* "crc32:xxxxxxxx" */
};
void tracefile_reader_id(struct tracefile_reader *r, struct tracefile_id *id);

/*
 * Do two recorded identities name one trace? Each side is its digest and
 * the crc32 recorded beside it (NULL when absent; a digest may itself be
 * "crc32:..." in older files). Two SHA-256 digests decide by themselves;
 * otherwise the CRC-32s decide, so an old file still matches a new one.
 * A side that records neither matches only a side that records neither.
 */
int tracefile_same_trace(const char *digest_a, const char *crc_a,
			 const char *digest_b, const char *crc_b);

/* Closes the file and frees r (NULL is a no-op). */
void tracefile_reader_close(struct tracefile_reader *r);

#endif
