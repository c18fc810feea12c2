/*
 * tracefile.c - gzip JSON Lines with a versioned header; see tracefile.h
 * and schema/FORMAT.md.
 *
 * Writing goes straight to the named file (never a temporary one): a run
 * that is killed must still leave its finished records behind, and a
 * gzip sync flush every second makes the bytes on disk a decodable prefix.
 *
 * In the background (tracefile_writer_background) an append only copies
 * its line into a queue; a thread of the writer's own takes the whole
 * queue at once and compresses and writes it in steps. A caller that
 * would have to wait for the thread takes the steps itself; whoever is in
 * a step (bg->busy) is the only one to touch the gzip stream.
 */
#define _GNU_SOURCE     /* SCHED_IDLE */ /* NOLINT(bugprone-reserved-identifier) */
#include "tracefile.h"
#include "errmsg.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <openssl/evp.h>
#include <zlib.h>

#define FLUSH_INTERVAL_NS NS_PER_S
/* Bytes of lines the background queue holds before an append waits for
 * the thread to take them (a longer line still goes, alone). */
#define QUEUE_MAX (16u << 20)
/* Bytes queued before an append wakes the thread from its sleep: a wake-up
 * takes a core from whatever ran there (the measuring, or the server it
 * measures), so it comes once for some seventy records, not for each; a
 * flush asked wakes it too. */
#define WAKE_BYTES (64u << 10)
/* Bytes written in one step (background_step): what a caller may have to
 * wait for when the thread is in the middle of a step. */
#define STEP_BYTES (64u << 10)
#define READ_CHUNK (128u << 10)

struct background;

struct tracefile_writer {
	gzFile gz;
	char *path;
	int64_t last_flush_ns;
	int pending;            /* lines appended since the last flush */
	char error[TRACEFILE_ERRLEN];
	struct background *bg;  /* NULL: the caller's thread writes */
};

/* tracefile_writer_background's thread and the queue it takes lines from;
 * 'lock' guards every field but 'thread'. */
struct background {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;    /* for the thread: lines, a flush asked, the end */
	pthread_cond_t done;    /* for the caller: the queue taken, a flush done */
	char *queue;            /* lines not taken yet, each with its newline */
	size_t len, cap;
	unsigned long asked;    /* flushes asked for, */
	unsigned long flushed;  /* and done: 'asked' when the thread took it */
	unsigned long soon;     /* the flush the last flush_soon asked for */
	char *batch;            /* the lines taken: written up to batch_off */
	size_t batch_len, batch_off, batch_cap;
	unsigned long batch_asked;      /* 'asked' when it was taken, */
	int batch_flush;        /* and whether a flush was asked by then */
	int64_t taken_ns;       /* when a batch was last taken */
	int busy;               /* a step is writing (the thread's, or a caller's) */
	int closing;
	int failed;             /* a write failed: 'error' says why */
	char error[TRACEFILE_ERRLEN];
};

struct tracefile_reader {
	gzFile gz;
	char *path;
	cJSON *header;
	char *buf;              /* undelivered bytes are buf[start, end) */
	size_t start, end, cap;
	int eof;                /* gzread has nothing more to give */
	char *zerror;           /* zlib's message when the stream broke */
	size_t lineno;
	uLong crc;
	EVP_MD_CTX *sha;        /* NULL when the digest could not be set up */
	char digest[TRACEFILE_DIGEST_LEN];
	char crc_text[16];
	char damage[TRACEFILE_ERRLEN];   /* what a broken gzip stream cost */
	size_t skipped;                  /* lines over TRACEFILE_MAX_LINE passed over */
	size_t skipped_first;            /* line number of the first of them */
	char report[2 * TRACEFILE_ERRLEN];  /* damage and skips, for the caller */
	char error[TRACEFILE_ERRLEN];
};

/* "trace" for "tracebench-trace", for messages. */
static const char *kind_noun(const char *kind)
{
	if (strcmp(kind, TRACEFILE_KIND_TRACE) == 0)
		return "a trace";
	if (strcmp(kind, TRACEFILE_KIND_RESULTS) == 0)
		return "a results file";
	return "an unknown kind of file";
}

/* zlib's message without the "<fd:3>: " it prefixes for gzdopen'ed files. */
static const char *zlib_text(const char *msg)
{
	const char *p;

	if (msg && strncmp(msg, "<fd:", 4) == 0 && (p = strstr(msg, ": ")))
		return p + 2;
	return msg;
}

/* Message for the last gz error of 'gz', with errno for Z_ERRNO. */
static const char *gz_message(gzFile gz, int saved_errno)
{
	int errnum = Z_OK;
	const char *msg = gz ? gzerror(gz, &errnum) : NULL;

	if (errnum == Z_ERRNO || !msg || !*msg)
		return strerror(saved_errno ? saved_errno : EIO);
	return zlib_text(msg);
}

/* The newest version of a kind of file this build reads. */
static int tracefile_newest(const char *kind)
{
	return strcmp(kind, TRACEFILE_KIND_RESULTS) == 0 ? TRACEFILE_RESULTS_VERSION :
							   TRACEFILE_VERSION;
}

struct tracefile_writer *tracefile_writer_open(const char *path, const char *kind,
					       const cJSON *header, int force,
					       char *err, size_t errlen)
{
	struct tracefile_writer *w = NULL;
	cJSON *head = NULL;
	const cJSON *item;
	int fd = -1;

	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL), 0644);
	if (fd < 0) {
		if (errno == EEXIST)
			errmsg_set(err, errlen,
				 "'%s' already exists (use --force to replace it)", path);
		else
			errmsg_set(err, errlen, "cannot create '%s': %s",
				 path, strerror(errno));
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w || !(w->path = strdup(path)))
		goto oom;
	w->gz = gzdopen(fd, "wb6");
	if (!w->gz)
		goto oom;
	fd = -1;
	gzbuffer(w->gz, 64u << 10);

	head = cJSON_CreateObject();
	if (!head)
		goto oom;
	cJSON_AddStringToObject(head, "format", kind);
	{
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(header, "version");
		int version = cJSON_IsNumber(v) && v->valuedouble >= 1 &&
			      v->valuedouble <= tracefile_newest(kind) ? v->valueint : 1;

		cJSON_AddNumberToObject(head, "version", version);
	}
	cJSON_ArrayForEach(item, header) {
		if (strcmp(item->string, "format") && strcmp(item->string, "version"))
			cJSON_AddItemToObject(head, item->string, cJSON_Duplicate(item, 1));
	}
	if (tracefile_writer_append(w, head) < 0) {
		errmsg_set(err, errlen, "%s", w->error);
		goto fail;
	}
	if (gzflush(w->gz, Z_SYNC_FLUSH) != Z_OK) {
		errmsg_set(err, errlen, "cannot write '%s': %s",
			 path, gz_message(w->gz, errno));
		goto fail;
	}
	w->last_flush_ns = clock_now_ns();
	cJSON_Delete(head);
	return w;

oom:
	errmsg_set(err, errlen, "cannot create '%s': out of memory", path);
fail:
	cJSON_Delete(head);
	if (fd >= 0)
		close(fd);
	if (w) {
		if (w->gz)
			gzclose(w->gz);
		free(w->path);
		free(w);
	}
	return NULL;
}

/* The gzip stream, from the caller's thread or the background's: each
 * says why it failed in error[TRACEFILE_ERRLEN]. */
static int write_bytes(struct tracefile_writer *w, const char *buf, size_t len, char *error)
{
	if (len && gzwrite(w->gz, buf, (unsigned)len) != (int)len) {
		snprintf(error, TRACEFILE_ERRLEN, "cannot write '%s': %s", w->path,
			 gz_message(w->gz, errno));
		return -1;
	}
	w->pending = 1;
	return 0;
}

static int flush_now(struct tracefile_writer *w, char *error)
{
	if (!w->pending)
		return 0;
	w->last_flush_ns = clock_now_ns();
	w->pending = 0;
	if (gzflush(w->gz, Z_SYNC_FLUSH) != Z_OK) {
		snprintf(error, TRACEFILE_ERRLEN, "cannot write '%s': %s", w->path,
			 gz_message(w->gz, errno));
		return -1;
	}
	return 0;
}

static int flush_due(struct tracefile_writer *w, char *error)
{
	if (clock_now_ns() - w->last_flush_ns < FLUSH_INTERVAL_NS)
		return 0;
	return flush_now(w, error);
}

/* Lines taken, written or not, asked for or not: work for a step. */
static int background_work(const struct background *bg)
{
	return bg->batch_off < bg->batch_len || bg->len || bg->flushed != bg->asked;
}

/*
 * One step of the writing, with bg->lock and bg->busy clear: when the
 * batch taken before is written, takes the queue whole as the next one
 * (the old batch's buffer in exchange); then writes the next STEP_BYTES
 * of the batch and, at its end, flushes if a flush was asked when it was
 * taken, or a second after the last flush. 'busy' is set while it writes
 * (whoever steps owns the gzip stream) and the lock is let go. After a
 * failed write it drops what comes, so that no caller waits for it; they
 * fail from then on.
 */
static void background_step(struct tracefile_writer *w)
{
	struct background *bg = w->bg;
	size_t n;

	if (bg->batch_off == bg->batch_len) {
		char *buf = bg->batch;
		size_t cap = bg->batch_cap;

		bg->batch = bg->queue;
		bg->batch_cap = bg->cap;
		bg->batch_len = bg->len;
		bg->batch_off = 0;
		bg->batch_asked = bg->asked;
		bg->batch_flush = bg->asked != bg->flushed;
		bg->queue = buf;
		bg->cap = cap;
		bg->len = 0;
		bg->taken_ns = clock_now_ns();
	}
	n = bg->batch_len - bg->batch_off;
	if (n > STEP_BYTES)
		n = STEP_BYTES;
	if (!bg->failed) {
		const char *from = bg->batch + bg->batch_off;
		int end = n == bg->batch_len - bg->batch_off, flush = bg->batch_flush, rc;

		bg->busy = 1;
		pthread_mutex_unlock(&bg->lock);
		rc = write_bytes(w, from, n, bg->error);
		if (rc == 0 && end)
			rc = flush ? flush_now(w, bg->error) : flush_due(w, bg->error);
		pthread_mutex_lock(&bg->lock);
		bg->busy = 0;
		if (rc < 0)
			bg->failed = 1;
	}
	bg->batch_off = bg->failed ? bg->batch_len : bg->batch_off + n;
	if (bg->batch_off == bg->batch_len)
		bg->flushed = bg->batch_asked;
	else
		pthread_cond_signal(&bg->wake); /* the rest: the thread's, unless a caller goes on */
	pthread_cond_broadcast(&bg->done);
}

/*
 * The background thread: steps while there is work (64 KiB queued, a
 * flush asked, a batch half written), until the writer closes.
 *
 * It runs at the lowest priority there is (SCHED_IDLE, where the system
 * has it): it gets a core while no other thread wants one, and all but
 * never takes one from the caller's loop or from a server on the same
 * machine (replay at C = 1000: zlib's 60 ms for a closed loop's wave of
 * records would land in the next wave's TTFT). So that a caller never
 * waits long for a thread that a busy machine gives no time, a caller
 * that would wait for it steps itself instead (background_help); it
 * waits only for the step the thread is in, STEP_BYTES at most.
 */
static void *background_main(void *arg)
{
	struct tracefile_writer *w = arg;
	struct background *bg = w->bg;
#ifdef SCHED_IDLE
	struct sched_param idle = { .sched_priority = 0 };

	(void)pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
#endif

	pthread_mutex_lock(&bg->lock);
	for (;;) {
		while (bg->busy || (!background_work(bg) && !bg->closing))
			pthread_cond_wait(&bg->wake, &bg->lock);
		if (!background_work(bg))
			break;          /* closing, and everything written */
		background_step(w);
	}
	pthread_mutex_unlock(&bg->lock);
	return NULL;
}

int tracefile_writer_background(struct tracefile_writer *w)
{
	struct background *bg;
	sigset_t all, old;
	int rc;

	if (w->bg)
		return 0;
	if (!(bg = calloc(1, sizeof(*bg)))) {
		snprintf(w->error, sizeof(w->error), "cannot write '%s' in the background: out of memory",
			 w->path);
		return -1;
	}
	pthread_mutex_init(&bg->lock, NULL);
	pthread_cond_init(&bg->wake, NULL);
	pthread_cond_init(&bg->done, NULL);
	w->bg = bg;
	/* Signals stay with the caller's threads: this one starts with every
	 * signal blocked (a failed write is EPIPE or EFBIG to it, not death). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&bg->thread, NULL, background_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		w->bg = NULL;
		pthread_cond_destroy(&bg->done);
		pthread_cond_destroy(&bg->wake);
		pthread_mutex_destroy(&bg->lock);
		free(bg);
		snprintf(w->error, sizeof(w->error), "cannot write '%s' in the background: %s",
			 w->path, strerror(rc));
		return -1;
	}
	return 0;
}

/* The background thread's failure, into w->error; call with bg->lock. */
static int background_failed(struct tracefile_writer *w)
{
	if (!w->bg->failed)
		return 0;
	snprintf(w->error, sizeof(w->error), "%s", w->bg->error);
	return 1;
}

/* For a caller that must wait for the thread (with bg->lock): takes a
 * step itself, or waits for the end of the thread's. */
static void background_help(struct tracefile_writer *w)
{
	if (w->bg->busy)
		pthread_cond_wait(&w->bg->done, &w->bg->lock);
	else
		background_step(w);
}

/* Queues a line (json and its newline) for the background thread. */
static int background_append(struct tracefile_writer *w, const char *json, size_t len)
{
	struct background *bg = w->bg;
	int rc = 0;

	pthread_mutex_lock(&bg->lock);
	while (!bg->failed && bg->len && bg->len + len + 1 > QUEUE_MAX)
		background_help(w);
	if (background_failed(w)) {
		rc = -1;
	} else if (bg->cap - bg->len < len + 1) {
		size_t cap = bg->cap ? bg->cap : 64u << 10;
		char *q;

		while (cap - bg->len < len + 1)
			cap *= 2;
		if (!(q = realloc(bg->queue, cap))) {
			snprintf(w->error, sizeof(w->error), "cannot write '%s': out of memory", w->path);
			rc = -1;
		} else {
			bg->queue = q;
			bg->cap = cap;
		}
	}
	if (rc == 0) {
		memcpy(bg->queue + bg->len, json, len);
		bg->queue[bg->len + len] = '\n';
		bg->len += len + 1;
		if (bg->len >= WAKE_BYTES)
			pthread_cond_signal(&bg->wake);
	}
	pthread_mutex_unlock(&bg->lock);
	return rc;
}

/* Waits until flush 'ticket' is done (or a write failed); with bg->lock. */
static void background_wait(struct tracefile_writer *w, unsigned long ticket)
{
	while (!w->bg->failed && w->bg->flushed < ticket)
		background_help(w);
}

/* With 'ask': has the thread write and flush what is queued, and with
 * 'wait' waits until it did; without, first waits for the flush the last
 * call without 'wait' asked for. Either way: -1 once one of its writes
 * failed. */
static int background_sync(struct tracefile_writer *w, int ask, int wait)
{
	struct background *bg = w->bg;
	int rc;

	pthread_mutex_lock(&bg->lock);
	if (!ask && bg->len && clock_now_ns() - bg->taken_ns >= FLUSH_INTERVAL_NS)
		pthread_cond_signal(&bg->wake);         /* less than 64 KiB, but due */
	if (ask && !bg->failed) {
		unsigned long mine;

		if (!wait)
			background_wait(w, bg->soon);
		mine = ++bg->asked;
		if (!wait)
			bg->soon = mine;
		pthread_cond_signal(&bg->wake);
		if (wait)
			background_wait(w, mine);
	}
	rc = background_failed(w) ? -1 : 0;
	pthread_mutex_unlock(&bg->lock);
	return rc;
}

/* Lets the background thread write what is queued and joins it; -1 when
 * one of its writes failed (err says why). */
static int background_end(struct tracefile_writer *w, char *err, size_t errlen)
{
	struct background *bg = w->bg;
	int rc = 0;

	pthread_mutex_lock(&bg->lock);
	while (!bg->failed && (background_work(bg) || bg->busy))
		background_help(w);
	bg->closing = 1;
	pthread_cond_signal(&bg->wake);
	pthread_mutex_unlock(&bg->lock);
	pthread_join(bg->thread, NULL);
	if (bg->failed) {
		rc = -1;
		if (err)
			errmsg_set(err, errlen, "%s", bg->error);
	}
	pthread_cond_destroy(&bg->done);
	pthread_cond_destroy(&bg->wake);
	pthread_mutex_destroy(&bg->lock);
	free(bg->queue);
	free(bg->batch);
	free(bg);
	w->bg = NULL;
	return rc;
}

int tracefile_writer_append_raw(struct tracefile_writer *w, const char *json, size_t len)
{
	if (len > TRACEFILE_MAX_LINE) {
		snprintf(w->error, sizeof(w->error),
			 "record of %zu bytes not written to '%s': longer than the %u MiB a line may hold",
			 len, w->path, TRACEFILE_MAX_LINE >> 20);
		return TRACEFILE_ETOOLONG;
	}
	if (w->bg)
		return background_append(w, json, len);
	if (write_bytes(w, json, len, w->error) < 0 || write_bytes(w, "\n", 1, w->error) < 0)
		return -1;
	return flush_due(w, w->error);
}

int tracefile_writer_append(struct tracefile_writer *w, const cJSON *record)
{
	char *json = cJSON_PrintUnformatted(record);
	int rc;

	if (!json) {
		snprintf(w->error, sizeof(w->error), "cannot write '%s': out of memory", w->path);
		return -1;
	}
	rc = tracefile_writer_append_raw(w, json, strlen(json));
	cJSON_free(json);
	return rc;
}

int tracefile_writer_flush(struct tracefile_writer *w)
{
	return w->bg ? background_sync(w, 1, 1) : flush_now(w, w->error);
}

int tracefile_writer_flush_soon(struct tracefile_writer *w)
{
	return w->bg ? background_sync(w, 1, 0) : flush_now(w, w->error);
}

int tracefile_writer_flush_if_due(struct tracefile_writer *w)
{
	return w->bg ? background_sync(w, 0, 0) : flush_due(w, w->error);
}

int tracefile_writer_close(struct tracefile_writer *w, char *err, size_t errlen)
{
	int rc = 0, zrc;

	if (!w)
		return 0;
	if (w->bg)
		rc = background_end(w, err, errlen);
	errno = 0;
	zrc = gzclose(w->gz);
	if (zrc != Z_OK && rc == 0) {
		rc = -1;
		if (err)
			errmsg_set(err, errlen, "cannot write '%s': %s", w->path,
				 zrc == Z_ERRNO ? strerror(errno ? errno : EIO) : zError(zrc));
	}
	free(w->path);
	free(w);
	return rc;
}

const char *tracefile_writer_error(const struct tracefile_writer *w)
{
	return w->error;
}

/*
 * Refills r->buf from the gzip stream, keeping undelivered bytes. Returns
 * the number of bytes added, 0 at the end (or when the stream broke, which
 * sets r->zerror).
 */
static size_t reader_fill(struct tracefile_reader *r)
{
	int n;

	if (r->eof)
		return 0;
	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	if (r->cap - r->end < READ_CHUNK) {
		size_t cap = r->cap ? r->cap * 2 : 2 * READ_CHUNK;
		char *nb = realloc(r->buf, cap + 1);

		if (!nb) {
			r->eof = 1;
			r->zerror = strdup("out of memory");
			return 0;
		}
		r->buf = nb;
		r->cap = cap;
	}
	n = gzread(r->gz, r->buf + r->end, READ_CHUNK);
	if (n > 0) {
		r->crc = crc32(r->crc, (const Bytef *)r->buf + r->end, (uInt)n);
		if (r->sha && !EVP_DigestUpdate(r->sha, r->buf + r->end, (size_t)n)) {
			EVP_MD_CTX_free(r->sha);
			r->sha = NULL;
		}
		r->end += (size_t)n;
		return (size_t)n;
	}
	r->eof = 1;
	{
		int errnum = Z_OK;
		const char *msg = gzerror(r->gz, &errnum);

		if (n < 0 || errnum != Z_OK)
			r->zerror = strdup(errnum == Z_ERRNO ? strerror(errno ? errno : EIO) : zlib_text(msg));
	}
	return 0;
}

/* Rebuilds r->report from the gzip damage and the lines skipped. */
static void update_report(struct tracefile_reader *r)
{
	int n = 0;

	if (r->damage[0])
		n = snprintf(r->report, sizeof(r->report), "%s", r->damage);
	if (r->skipped && n >= 0 && (size_t)n < sizeof(r->report))
		snprintf(r->report + n, sizeof(r->report) - (size_t)n,
			 "%sskipped %zu record%s longer than %u MiB (line %zu%s)",
			 n ? "; " : "", r->skipped, r->skipped == 1 ? "" : "s",
			 TRACEFILE_MAX_LINE >> 20, r->skipped_first, r->skipped == 1 ? "" : " first");
}

/* One more over-long line, numbered r->lineno, was passed over. */
static void note_skipped(struct tracefile_reader *r)
{
	if (r->skipped++ == 0)
		r->skipped_first = r->lineno;
	update_report(r);
}

/*
 * Finds the next line. Returns 1 with *line and *len set, 0 at the end. At
 * the end, a last line without a newline is a line if the stream ended
 * cleanly; after a broken stream it is dropped. A line longer than
 * TRACEFILE_MAX_LINE is passed over (note_skipped) without holding more
 * than that much of it in memory, and the next one returned.
 */
static int reader_line(struct tracefile_reader *r, char **line, size_t *len)
{
	size_t scanned = 0;
	int skipping = 0;       /* inside an over-long line: drop to its newline */

	for (;;) {
		/* no bytes left to scan, and buf may still be NULL */
		char *p = r->end - r->start > scanned ?
			  memchr(r->buf + r->start + scanned, '\n', r->end - r->start - scanned) :
			  NULL;
		if (p) {
			size_t n = (size_t)(p - (r->buf + r->start));

			r->lineno++;
			if (skipping || n > TRACEFILE_MAX_LINE) {
				r->start += n + 1;
				note_skipped(r);
				skipping = 0;
				scanned = 0;
				continue;
			}
			*line = r->buf + r->start;
			*len = n;
			*p = '\0';
			r->start += n + 1;
			return 1;
		}
		scanned = r->end - r->start;
		if (skipping || scanned > TRACEFILE_MAX_LINE) {
			skipping = 1;   /* what was read of it goes */
			r->start = r->end;
			scanned = 0;
		}
		if (reader_fill(r) == 0)
			break;
	}
	if (skipping) {         /* the over-long line was the last one */
		r->lineno++;
		note_skipped(r);
	}
	if (r->end == r->start) {
		if (r->zerror && !r->damage[0]) {
			snprintf(r->damage, sizeof(r->damage),
				 "damaged or truncated gzip stream (%s) after line %zu",
				 r->zerror, r->lineno);
			update_report(r);
		}
		return 0;
	}
	if (r->zerror) {
		snprintf(r->damage, sizeof(r->damage),
			 "damaged or truncated gzip stream (%s): dropped 1 incomplete record (%zu bytes) after line %zu",
			 r->zerror, r->end - r->start, r->lineno);
		update_report(r);
		r->start = r->end;
		return 0;
	}
	*line = r->buf + r->start;
	*len = r->end - r->start;
	(*line)[*len] = '\0';
	r->start = r->end;
	r->lineno++;
	return 1;
}

struct tracefile_reader *tracefile_reader_open(const char *path, const char *kind, char *err,
					      size_t errlen)
{
	struct tracefile_reader *r;
	const cJSON *format, *version;
	char *line;
	size_t len;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		errmsg_set(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->path = strdup(path)) || !(r->gz = gzdopen(fd, "rb"))) {
		errmsg_set(err, errlen, "cannot open '%s': out of memory", path);
		close(fd);
		if (r)
			free(r->path);
		free(r);
		return NULL;
	}
	gzbuffer(r->gz, READ_CHUNK);
	r->crc = crc32(0L, Z_NULL, 0);
	if ((r->sha = EVP_MD_CTX_new()) && !EVP_DigestInit_ex(r->sha, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(r->sha);
		r->sha = NULL;
	}

	rc = reader_line(r, &line, &len);
	if (r->skipped) {
		errmsg_set(err, errlen, "'%s' is not a tracebench file (line 1 is longer "
			 "than %u MiB)", path, TRACEFILE_MAX_LINE >> 20);
		goto fail;
	}
	if (rc == 0) {
		if (r->zerror)
			errmsg_set(err, errlen, "cannot read '%s': %s", path, r->zerror);
		else
			errmsg_set(err, errlen, "'%s' is empty, not a tracebench file", path);
		goto fail;
	}
	r->header = cJSON_ParseWithLength(line, len);
	format = cJSON_GetObjectItemCaseSensitive(r->header, "format");
	version = cJSON_GetObjectItemCaseSensitive(r->header, "version");
	if (!cJSON_IsObject(r->header) || !cJSON_IsString(format) || !cJSON_IsNumber(version) ||
	    strncmp(format->valuestring, "tracebench-", 11) != 0) {
		errmsg_set(err, errlen,
			 "'%s' is not a tracebench file (line 1 is not a tracebench header)", path);
		goto fail;
	}
	if (kind && strcmp(format->valuestring, kind) != 0) {
		errmsg_set(err, errlen, "'%s' is %s, not %s", path,
			 kind_noun(format->valuestring), kind_noun(kind));
		goto fail;
	}
	if (version->valuedouble > tracefile_newest(format->valuestring)) {
		errmsg_set(err, errlen,
			 "'%s' has format version %d; this tracebench reads version %d: upgrade tracebench",
			 path, version->valueint, tracefile_newest(format->valuestring));
		goto fail;
	}
	return r;

fail:
	tracefile_reader_close(r);
	return NULL;
}

const cJSON *tracefile_reader_header(const struct tracefile_reader *r)
{
	return r->header;
}

int tracefile_reader_next_line(struct tracefile_reader *r, const char **line, size_t *len)
{
	char *l;
	int rc;

	do {
		rc = reader_line(r, &l, len);
		if (rc <= 0)
			return rc;
	} while (strspn(l, " \t\r") == *len);
	*line = l;
	return 1;
}

int tracefile_reader_next(struct tracefile_reader *r, cJSON **record)
{
	const char *line;
	size_t len;
	cJSON *obj;
	int rc = tracefile_reader_next_line(r, &line, &len);

	if (rc <= 0)
		return rc;
	obj = cJSON_ParseWithLength(line, len);
	if (!cJSON_IsObject(obj)) {
		cJSON_Delete(obj);
		snprintf(r->error, sizeof(r->error), "'%s' line %zu: not a JSON object",
			 r->path, r->lineno);
		return -1;
	}
	*record = obj;
	return 1;
}

size_t tracefile_reader_lineno(const struct tracefile_reader *r)
{
	return r->lineno;
}

const char *tracefile_reader_damage(const struct tracefile_reader *r)
{
	return r->report[0] ? r->report : NULL;
}

const char *tracefile_reader_error(const struct tracefile_reader *r)
{
	return r->error;
}

const char *tracefile_reader_digest(struct tracefile_reader *r)
{
	EVP_MD_CTX *copy = EVP_MD_CTX_new();
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned len = 0, i;

	/* Finish a copy, so reading may go on and the digest grow with it. */
	r->digest[0] = '\0';
	if (r->sha && copy && EVP_MD_CTX_copy_ex(copy, r->sha) &&
	    EVP_DigestFinal_ex(copy, md, &len) && len == 32) {
		memcpy(r->digest, "sha256:", 7);
		for (i = 0; i < len; i++)
			snprintf(r->digest + 7 + 2 * i, 3, "%02x", md[i]);
	}
	EVP_MD_CTX_free(copy);
	return r->digest;
}

const char *tracefile_reader_crc32(struct tracefile_reader *r)
{
	snprintf(r->crc_text, sizeof(r->crc_text), "crc32:%08lx", (unsigned long)r->crc);
	return r->crc_text;
}

void tracefile_reader_id(struct tracefile_reader *r, struct tracefile_id *id)
{
	snprintf(id->digest, sizeof(id->digest), "%s", tracefile_reader_digest(r));
	snprintf(id->crc32, sizeof(id->crc32), "%s", tracefile_reader_crc32(r));
}

static int is_crc32(const char *id)
{
	return id && strncmp(id, "crc32:", 6) == 0;
}

int tracefile_same_trace(const char *digest_a, const char *crc_a,
			 const char *digest_b, const char *crc_b)
{
	if (digest_a && digest_b && strncmp(digest_a, "sha256:", 7) == 0 &&
	    strncmp(digest_b, "sha256:", 7) == 0)
		return strcmp(digest_a, digest_b) == 0;
	crc_a = is_crc32(digest_a) ? digest_a : crc_a;
	crc_b = is_crc32(digest_b) ? digest_b : crc_b;
	if (!crc_a && !crc_b)
		return !digest_a && !digest_b ? 1 : digest_a && digest_b &&
		       strcmp(digest_a, digest_b) == 0;
	return crc_a && crc_b && strcmp(crc_a, crc_b) == 0;
}

void tracefile_reader_close(struct tracefile_reader *r)
{
	if (!r)
		return;
	if (r->gz)
		gzclose(r->gz);
	EVP_MD_CTX_free(r->sha);
	cJSON_Delete(r->header);
	free(r->zerror);
	free(r->buf);
	free(r->path);
	free(r);
}
