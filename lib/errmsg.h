/*
 * errmsg.h - how a function that can fail says why: the one convention for
 * error buffers in tracebench.
 *
 * A function that can fail for a reason worth telling takes two last
 * parameters, 'char *err, size_t errlen', and returns 0 (or a pointer) on
 * success and a negative code (or NULL) on failure. On failure it writes
 * one line into err: lower case, naming its subject ("cannot open
 * 'trace.jsonl.gz': No such file or directory"), without the program's
 * name (the caller prefixes "tracebench replay: "), without a newline,
 * truncated to errlen. err may be NULL or errlen 0: nothing is written.
 * On success err is left as it was. Library functions never print.
 *
 * Buffers: any size works; the *_ERRLEN constants of some headers are
 * sizes that fit their longest messages with a path in them. An object
 * that outlives one call (a tracefile reader or writer) keeps its last
 * message itself, behind a *_error() function.
 */
#ifndef TB_ERRMSG_H
#define TB_ERRMSG_H

#include <stddef.h>

/* Fills err (errlen bytes) printf-style; nothing when err is NULL or errlen 0. */
void errmsg_set(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
