/*
 * traceout.c - a trace written whole, its too-long records left out; see
 * traceout.h.
 */
#include "traceout.h"
#include "lib/errmsg.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int traceout_open(struct traceout *t, const char *prog, const char *path, const cJSON *header,
		  int force, char *err, size_t errlen)
{
	t->prog = prog;
	t->path = path;
	t->written = t->too_long = 0;
	t->w = tracefile_writer_open(path, TRACEFILE_KIND_TRACE, header, force, err, errlen);
	return t->w ? 0 : -1;
}

int traceout_append(struct traceout *t, const cJSON *rec, char *err, size_t errlen,
		    const char *fmt, ...)
{
	va_list ap;
	int rc;

	if (!rec) {
		errmsg_set(err, errlen, "cannot write '%s': out of memory", t->path);
		return -1;
	}
	rc = tracefile_writer_append(t->w, rec);
	if (rc == TRACEFILE_ETOOLONG) {
		fprintf(stderr, "%s: ", t->prog);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fprintf(stderr, " left out: %s\n", tracefile_writer_error(t->w));
		t->too_long++;
		return 0;
	}
	if (rc < 0) {
		errmsg_set(err, errlen, "%s", tracefile_writer_error(t->w));
		return -1;
	}
	t->written++;
	tracefile_writer_flush_if_due(t->w);
	return 0;
}

int traceout_close(struct traceout *t, int ok, long total, int sig, char *err, size_t errlen)
{
	int rc = tracefile_writer_close(t->w, ok ? err : NULL, errlen);
	size_t used;

	t->w = NULL;
	if (!ok && rc == 0 && t->written > 0 && (used = strlen(err)) + 1 < errlen)
		/* the work failed after some records: they are kept, whole */
		snprintf(err + used, errlen - used, "; wrote %ld of %ld requests to '%s' "
			 "(a whole file)", t->written, total, t->path);
	if (rc < 0 || !ok)
		return -1;
	if (t->too_long)
		fprintf(stderr, "%s: %ld request%s left out, longer than a trace line may hold "
			"(%u MiB)\n", t->prog, t->too_long, t->too_long == 1 ? "" : "s",
			TRACEFILE_MAX_LINE >> 20);
	if (!sig)
		return 0;
	errmsg_set(err, errlen, "%s: wrote %ld of %ld requests to '%s' (a whole file)",
		   sig == SIGINT ? "interrupted" : "terminated", t->written, total, t->path);
	return 128 + sig;
}
