/*
 * cli.h - strict parsing of option values, shared by every program, so
 * "-c 1,2,x" or "-n 10k" is refused the same way everywhere (no atoi).
 */
#ifndef TB_CLI_H
#define TB_CLI_H

#include <stddef.h>

/* Parses a whole decimal integer in [min, max]. Returns 0, or -1 when s is
 * not one (nothing written to *out then). */
int cli_parse_long(const char *s, long min, long max, long *out);

/* Parses a whole finite number in [min, max]. Returns 0 or -1. */
int cli_parse_double(const char *s, double min, double max, double *out);

/*
 * Parses a comma-separated list of integers in [min, max], e.g. "1,2,4,8".
 * Returns the count (1..cap) written to out, or -1 when malformed, empty or
 * longer than cap.
 */
int cli_parse_long_list(const char *s, long min, long max, long *out, size_t cap);

/*
 * Raises the soft limit on open files to the hard one (a client or a proxy
 * of thousands of connections needs that many descriptors) and returns the
 * limit now in force, or -1 when it cannot be read.
 */
long cli_raise_fd_limit(void);

/* Descriptors a program needs beside one per connection (stdio, files,
 * the event loop, libcurl's resolver). */
#define CLI_FD_RESERVE 32

/*
 * For programs without an event loop (record synth, record import): from
 * now on SIGINT and SIGTERM only set a flag, which cli_stop_signal reads,
 * so a long write can stop between records and end its file whole.
 * Returns 0, or -1 when the handlers cannot be installed.
 */
int cli_catch_stop_signals(void);

/* The signal caught since cli_catch_stop_signals (SIGINT, SIGTERM), or 0. */
int cli_stop_signal(void);

#endif
