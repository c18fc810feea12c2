/*
 * tracefile.c - gzip JSON Lines with a versioned header; see tracefile.h
 * and schema/FORMAT.md.
 *
 * Writing goes straight to the named file (never a temporary one): a run
 * that is killed must still leave its finished records behind, and a
 * gzip sync flush every second makes the bytes on disk a decodable prefix.
 */
#include "tracefile.h"
#include "errmsg.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define FLUSH_INTERVAL_NS NS_PER_S
#define READ_CHUNK (128u << 10)

struct tracefile_writer {
	gzFile gz;
	char *path;
	int64_t last_flush_ns;
	int pending;            /* lines appended since the last flush */
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
	char digest[32];
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

int tracefile_writer_append_raw(struct tracefile_writer *w, const char *json, size_t len)
{
	if (len > TRACEFILE_MAX_LINE) {
		snprintf(w->error, sizeof(w->error),
			 "record of %zu bytes not written to '%s': longer than the %u MiB a line may hold",
			 len, w->path, TRACEFILE_MAX_LINE >> 20);
		return TRACEFILE_ETOOLONG;
	}
	if ((len && gzwrite(w->gz, json, (unsigned)len) != (int)len) ||
	    gzputc(w->gz, '\n') != '\n') {
		snprintf(w->error, sizeof(w->error), "cannot write '%s': %s",
			 w->path, gz_message(w->gz, errno));
		return -1;
	}
	w->pending = 1;
	return tracefile_writer_flush_if_due(w);
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
	if (!w->pending)
		return 0;
	w->last_flush_ns = clock_now_ns();
	w->pending = 0;
	if (gzflush(w->gz, Z_SYNC_FLUSH) != Z_OK) {
		snprintf(w->error, sizeof(w->error), "cannot write '%s': %s",
			 w->path, gz_message(w->gz, errno));
		return -1;
	}
	return 0;
}

int tracefile_writer_flush_if_due(struct tracefile_writer *w)
{
	if (clock_now_ns() - w->last_flush_ns < FLUSH_INTERVAL_NS)
		return 0;
	return tracefile_writer_flush(w);
}

int tracefile_writer_close(struct tracefile_writer *w, char *err, size_t errlen)
{
	int rc = 0, zrc;

	if (!w)
		return 0;
	errno = 0;
	zrc = gzclose(w->gz);
	if (zrc != Z_OK) {
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
	snprintf(r->digest, sizeof(r->digest), "crc32:%08lx", (unsigned long)r->crc);
	return r->digest;
}

void tracefile_reader_close(struct tracefile_reader *r)
{
	if (!r)
		return;
	if (r->gz)
		gzclose(r->gz);
	cJSON_Delete(r->header);
	free(r->zerror);
	free(r->buf);
	free(r->path);
	free(r);
}
