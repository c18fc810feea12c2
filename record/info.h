/*
 * info.h - `tracebench record info TRACE`: what a trace holds, so a user
 * knows it before replaying it.
 */
#ifndef TB_INFO_H
#define TB_INFO_H

/* record info. */
struct record_info_options {
	const char *trace;
	long block_words;       /* prefix block size */
};

/* Prints what o->trace holds. Returns the exit status (lib/cli.h). */
int info_run(const struct record_info_options *o);

#endif
