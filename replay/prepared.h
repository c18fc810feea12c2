/*
 * prepared.h - the trace, read and made ready to send: each request's body
 * as it goes on the wire (the command line's overrides applied,
 * replay/body.h), its headers (-H ones replacing the trace's), and where
 * its prompt can take a salt. A record the trace cannot replay is said
 * (the first PREPARED_SKIPS_SHOWN one by one) and counted; the rest
 * replays.
 */
#ifndef TB_REPLAY_PREPARED_H
#define TB_REPLAY_PREPARED_H

#include <stddef.h>
#include "options.h"
#include "lib/trace.h"
#include "lib/tracefile.h"

#define PREPARED_SKIPS_SHOWN 10   /* bad trace records said one by one */

/* A trace request made ready to send: the body as it goes on the wire. */
struct prepared {
	struct trace_request req;
	char *body;               /* the trace's body, with include_usage and overrides */
	size_t body_len;
	char **headers;           /* the trace's headers, with -H ones replacing them */
	size_t n_headers;
	int salt_ok;              /* the body has prompt text to salt ... */
	size_t salt_off;          /* ... starting at this byte (replay/body.h) */
	size_t lineno;            /* its line in the trace */
	const char *model;        /* --model-mix: the model drawn for it (into the
				   * options' mix), else NULL */
};


/*
 * Reads every request of the trace at 'path'. Returns the array (free with
 * prepared_free) and sets *n and the trace's identity, or NULL after
 * printing why.
 */
struct prepared *prepared_load(const char *path, const struct replay_options *o, size_t *n,
			       struct tracefile_id *id);

void prepared_free(struct prepared *reqs, size_t n);

#endif
