/*
 * tmpfile.h - a file written under a temporary name beside its final one
 * and renamed into place, so that a reader never sees half of it.
 *
 * The temporary name is unique ("PATH.XXXXXX") and created exclusively
 * (mkstemp: O_CREAT | O_EXCL), so a link planted at a guessable name like
 * "PATH.tmp" can never make tracebench write through it. Every temporary
 * file of tracebench is created here.
 */
#ifndef TB_TMPFILE_H
#define TB_TMPFILE_H

#include <stdio.h>

/* Room for PATH plus the suffix. */
#define TMPFILE_SUFFIX ".XXXXXX"

/*
 * Creates a new temporary file for 'path' (mode 0644), its name written to
 * tmp (len bytes). Returns the stream, or NULL with errno set (ENAMETOOLONG
 * when tmp is too small).
 */
FILE *tmpfile_create(const char *path, char *tmp, size_t len);

/*
 * Closes f and renames tmp to path; on any failure removes tmp. Returns 0,
 * or -1 with errno set.
 */
int tmpfile_commit(FILE *f, const char *tmp, const char *path);

#endif
