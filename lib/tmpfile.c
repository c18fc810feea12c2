/*
 * tmpfile.c - exclusive temporary files renamed into place; see tmpfile.h.
 */
#include "tmpfile.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *tmpfile_create(const char *path, char *tmp, size_t len)
{
	int n = snprintf(tmp, len, "%s" TMPFILE_SUFFIX, path), fd;
	FILE *f;

	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = mkstemp(tmp);
	if (fd < 0)
		return NULL;
	if (fchmod(fd, 0644) != 0 || !(f = fdopen(fd, "w"))) {
		int saved = errno;

		close(fd);
		unlink(tmp);
		errno = saved;
		return NULL;
	}
	return f;
}

int tmpfile_commit(FILE *f, const char *tmp, const char *path)
{
	int failed = ferror(f), saved;

	errno = 0;
	if (fclose(f) != 0)
		failed = 1;
	saved = errno ? errno : EIO;
	if (!failed && rename(tmp, path) == 0)
		return 0;
	if (!failed)
		saved = errno;
	unlink(tmp);
	errno = saved;
	return -1;
}
