/*
 * failures.h - why requests failed, told as it happens and counted: the
 * first few distinct failures (error class and HTTP status) are printed
 * with the server's own message the moment they come back, and the end of
 * the run counts every failure by class and status. A 429 storm and a
 * wrong model no longer end alike in "every request failed".
 *
 * The messages come from the results' error details, which
 * result_set_error has already cut to their cap and scrubbed of the
 * credentials the request sent; here they are cut again to one line.
 */
#ifndef TB_FAILURES_H
#define TB_FAILURES_H

#include <stddef.h>
#include <stdio.h>

#include "lib/result.h"

#define FAILURES_SHOWN 3          /* distinct failures printed as they happen */
#define FAILURES_KINDS 16         /* distinct (class, status) counted apart */
#define FAILURES_MESSAGE 160      /* bytes of a message shown */

struct failure_kind {
	char error[RESULT_ERROR_MAX];
	int status;
	size_t n;
	char message[FAILURES_MESSAGE + 4];   /* the first one's, one line */
};

struct failures {
	FILE *out;                /* where they are told (stderr), NULL: silent */
	struct failure_kind kinds[FAILURES_KINDS];
	size_t n_kinds;
	size_t others;            /* failures of kinds past FAILURES_KINDS */
	size_t shown;
	char warmup[FAILURES_MESSAGE + 24];   /* the first failed warm-up's message */
};

/*
 * Notes the failed request r (its class, status and detail), printing it
 * to f->out when it is of a kind not seen before and fewer than
 * FAILURES_SHOWN have been printed.
 */
void failures_note(struct failures *f, const struct result *r);

/* The message of a failure in buf (len bytes): the server's JSON "message"
 * (or error.message) when the detail holds one, else the detail; one line,
 * cut at FAILURES_MESSAGE bytes. */
void failures_message(const struct result *r, char *buf, size_t len);

/* "9 http 404, 2 timeout" into buf: every failure counted by kind, the most
 * first, and the first message of the most common kind in parentheses. */
void failures_summary(const struct failures *f, char *buf, size_t len);

/* How many failures were noted. */
size_t failures_count(const struct failures *f);

#endif
