/*
 * cli.h - what every program's command line shares: strict parsing of
 * option values, so "-c 1,2,x" or "-n 10k" is refused the same way
 * everywhere (no atoi); the getopt loop and the messages naming a bad
 * option; and the exit codes.
 *
 * Each program keeps its options in its own file (replay/options.c,
 * record/options.c, analyze/options.c, mock/options.c): the struct, the
 * help text and a parse function on cli_parse. That function prints
 * --help to stdout or a one-line error to stderr, and returns
 * CLI_CONTINUE when the program should run, else the exit status to stop
 * with. A *_main reads:
 *
 *	if ((rc = replay_options_parse(&o, argc, argv)) != CLI_CONTINUE)
 *		return rc;
 *	... the work, returning CLI_EXIT_OK or CLI_EXIT_FAILED ...
 */
#ifndef TB_CLI_H
#define TB_CLI_H

#include <getopt.h>
#include <stddef.h>

/* Exit status of tracebench and of each of its programs. */
enum cli_exit {
	CLI_EXIT_OK = 0,        /* done; also after --help and --version */
	CLI_EXIT_FAILED = 1,    /* the work failed: a server, a write, SQLite, gnuplot */
	CLI_EXIT_USAGE = 2,     /* usage or input error: a bad option, a missing or
				 * malformed file, an output that would replace a file */
	/* replay stopped by signal N returns 128 + N, as a shell would */
};

/* Returned by the options parsers: run the program (not an exit status). */
#define CLI_CONTINUE (-1)

#define CLI_MSGLEN 512          /* room for any message of cli_parse */

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

/*
 * A command's options for cli_parse. take() stores one option (c is the
 * val of its longopts entry, arg its value or NULL) into opts and returns
 * 0, or -1 when the value is refused: then it may write the reason into
 * msg (len bytes), else cli_parse says "invalid value 'ARG' for --NAME".
 * The val 'h' is --help.
 */
struct cli_command {
	const char *prog;             /* "tracebench replay", for the hints */
	const char *shortopts;        /* starts with ':' */
	const struct option *longopts;
	int (*take)(void *opts, int c, char *arg, char *msg, size_t len);
};

/*
 * Reads every option of argv (argv[0] is the command's name) through
 * cmd->take, leaving optind at the first operand. Returns CLI_CONTINUE;
 * CLI_EXIT_OK when --help was given (the caller prints the help); or
 * CLI_EXIT_USAGE with the reason in msg (len bytes), naming the option:
 * "invalid value '10x' for --requests", "unknown option '--bogus'; see
 * 'tracebench replay --help'".
 */
int cli_parse(const struct cli_command *cmd, void *opts, int argc, char **argv,
	      char *msg, size_t len);

/* The long name ("requests") of the option of val, or NULL when longopts
 * has none. */
const char *cli_option_name(const struct option *longopts, int val);

#endif
