/*
 * clock.c - monotonic nanosecond clock; see clock.h.
 */
#include "clock.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

int64_t clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

int64_t clock_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

void clock_sleep_until_ns(int64_t when_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(when_ns / NS_PER_S),
		.tv_nsec = (long)(when_ns % NS_PER_S),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

void clock_utc_iso8601(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
