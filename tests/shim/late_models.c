/*
 * late_models.c - preloaded into replay by t0357: each answer of
 * GET /v1/models (a list of models) is read 400 ms late, as by a client
 * the host stalls while its answers arrive, so that the test sees how
 * replay's warm-up judges a server that holds connections when its
 * first answer was read late. Every other read is as it would be.
 */
#define _GNU_SOURCE     /* RTLD_NEXT */ /* NOLINT(bugprone-reserved-identifier) */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

#define LATE_MS 400

typedef ssize_t (*recv_fn)(int fd, void *buf, size_t len, int flags);

/* True when the n bytes at buf hold a list of models. */
static int models_answer(const void *buf, ssize_t n)
{
	static const char mark[] = "\"object\":\"list\"";

	return n > 0 && memmem(buf, (size_t)n, mark, sizeof(mark) - 1) != NULL;
}

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	recv_fn fn = (recv_fn)dlsym(RTLD_NEXT, "recv");
	struct timespec late = { LATE_MS / 1000, (LATE_MS % 1000) * 1000000L };
	ssize_t n;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	n = fn(fd, buf, len, flags);
	if (models_answer(buf, n))
		while (nanosleep(&late, &late) < 0 && errno == EINTR)
			;
	return n;
}
