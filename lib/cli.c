/*
 * cli.c - strict option value parsing; see cli.h.
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>

int cli_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int cli_parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int cli_parse_long_list(const char *s, long min, long max, long *out, size_t cap)
{
	char item[32];
	size_t n = 0;

	if (!s || !*s)
		return -1;
	for (;;) {
		size_t len = strcspn(s, ",");

		if (len == 0 || len >= sizeof(item) || n == cap)
			return -1;
		memcpy(item, s, len);
		item[len] = '\0';
		if (cli_parse_long(item, min, max, &out[n]) < 0)
			return -1;
		n++;
		if (s[len] == '\0')
			return (int)n;
		s += len + 1;
	}
}

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

int cli_catch_stop_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) < 0 || sigaction(SIGTERM, &sa, NULL) < 0)
		return -1;
	return 0;
}

int cli_stop_signal(void)
{
	return stop_signal;
}

long cli_raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return -1;
	if (rl.rlim_cur < rl.rlim_max) {
		rlim_t want = rl.rlim_max;

		rl.rlim_cur = want;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0 && getrlimit(RLIMIT_NOFILE, &rl) != 0)
			return -1;
	}
	return rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (rlim_t)0x7fffffff ?
	       0x7fffffffL : (long)rl.rlim_cur;
}
