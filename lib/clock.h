/*
 * clock.h - the one clock every measurement in tracebench uses.
 *
 * All durations are int64_t nanoseconds read from CLOCK_MONOTONIC, so that a
 * wall-clock step (NTP, a suspended laptop) can never shorten or stretch a
 * measured latency. Wall-clock time appears only in file headers.
 */
#ifndef TB_CLOCK_H
#define TB_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#define NS_PER_MS 1000000LL
#define NS_PER_S  1000000000LL

/* Monotonic time in nanoseconds since an arbitrary fixed point. */
int64_t clock_now_ns(void);

/*
 * Wall-clock time in nanoseconds since 1970 (CLOCK_REALTIME): only for
 * agreeing on an instant with other hosts (replay --start-at), never for a
 * duration.
 */
int64_t clock_wall_ns(void);

/* Sleep until the monotonic instant 'when_ns' (absolute, not relative). */
void clock_sleep_until_ns(int64_t when_ns);

/* Current UTC time as "2026-11-30T13:49:43Z" into buf (at least 21 bytes). */
void clock_utc_iso8601(char *buf, size_t len);

#endif
