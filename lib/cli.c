/*
 * cli.c - option value parsing and getopt error messages; see cli.h.
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

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

const char *cli_option_name(const struct option *longopts, int val)
{
	for (; longopts->name; longopts++)
		if (longopts->val == val && !longopts->flag)
			return longopts->name;
	return NULL;
}

/* True when arg is "--NAME=..." for a long option of val that takes no
 * value: what getopt_long reports as '?' with optopt set to val. */
static int is_value_given_to_flag(const char *arg, const struct option *longopts, int val)
{
	size_t len;

	if (strncmp(arg, "--", 2) != 0 || !strchr(arg, '='))
		return 0;
	len = strcspn(arg + 2, "=");
	for (; longopts->name; longopts++)
		if (longopts->val == val && longopts->has_arg == no_argument &&
		    strncmp(longopts->name, arg + 2, len) == 0)
			return 1;
	return 0;
}

/*
 * After getopt_long returned '?' or ':' (run with opterr = 0 and an
 * optstring that starts with ':'), writes into buf (len bytes) why, naming
 * the option as given: "unknown option '--bogus'", "unknown option '-x'",
 * "option '--rate' needs a value", "option '--force' takes no value".
 * Must be called before getopt_long is called again.
 */
static void cli_getopt_error(int c, char *const argv[], const struct option *longopts,
		      char *buf, size_t len)
{
	/* getopt_long has stepped past a long option, and past a short one
	 * when it ended its argument ("-x"), not inside a cluster ("-xq"). */
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	int is_long = strncmp(arg, "--", 2) == 0;

	if (c == ':') {
		if (is_long)
			snprintf(buf, len, "option '%s' needs a value", arg);
		else
			snprintf(buf, len, "option '-%c' needs a value", optopt);
	} else if (optopt && is_value_given_to_flag(arg, longopts, optopt)) {
		snprintf(buf, len, "option '%.*s' takes no value", (int)strcspn(arg, "="), arg);
	} else if (optopt) {
		snprintf(buf, len, "unknown option '-%c'", optopt);
	} else {
		snprintf(buf, len, "unknown option '%.*s'", (int)strcspn(arg, "="), arg);
	}
}

int cli_parse(const struct cli_command *cmd, void *opts, int argc, char **argv,
	      char *msg, size_t len)
{
	char why[CLI_MSGLEN / 2];
	int c;

	optind = 0;     /* glibc: start afresh; argv[0] is not an option */
	opterr = 0;
	msg[0] = '\0';
	while ((c = getopt_long(argc, argv, cmd->shortopts, cmd->longopts, NULL)) != -1) {
		if (c == 'h')
			return CLI_EXIT_OK;
		if (c == '?' || c == ':') {
			cli_getopt_error(c, argv, cmd->longopts, why, sizeof(why));
			snprintf(msg, len, "%s; see '%s --help'", why, cmd->prog);
			return CLI_EXIT_USAGE;
		}
		if (cmd->take(opts, c, optarg, msg, len) < 0) {
			if (!msg[0])
				snprintf(msg, len, "invalid value '%s' for --%s", optarg ? optarg : "",
					 cli_option_name(cmd->longopts, c));
			return CLI_EXIT_USAGE;
		}
	}
	return CLI_CONTINUE;
}
