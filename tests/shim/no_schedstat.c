/*
 * no_schedstat.c - preloaded into replay by t0872: every open of a
 * thread's schedstat fails (EACCES), as on a host whose /proc withholds it,
 * so that the test sees what replay says when it cannot read its thread's
 * wait to run. Every other path opens as it would.
 */
#define _GNU_SOURCE     /* RTLD_NEXT, O_TMPFILE, open64 */ /* NOLINT(bugprone-reserved-identifier) */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/types.h>

typedef int (*open_fn)(const char *path, int flags, ...);

static int withheld(const char *path)
{
	const char *tail = path ? strrchr(path, '/') : NULL;

	return tail && strcmp(tail, "/schedstat") == 0;
}

/* The real one of name, or NULL. */
static open_fn real(const char *name)
{
	return (open_fn)dlsym(RTLD_NEXT, name);
}

static int shim_open(const char *name, const char *path, int flags, mode_t mode)
{
	open_fn fn;

	if (withheld(path)) {
		errno = EACCES;
		return -1;
	}
	fn = real(name);
	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	return fn(path, flags, mode);
}

/* The mode argument is there only with O_CREAT or O_TMPFILE. */
#define SHIM_MODE(flags, mode) do { \
	va_list ap; \
	if ((flags) & (O_CREAT | O_TMPFILE)) { \
		va_start(ap, flags); \
		(mode) = va_arg(ap, mode_t); \
		va_end(ap); \
	} \
} while (0)

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	SHIM_MODE(flags, mode);
	return shim_open("open", path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;

	SHIM_MODE(flags, mode);
	return shim_open("open64", path, flags, mode);
}
