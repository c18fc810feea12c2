/*
 * diff.h - what differs between two runs, one short line per real
 * difference: the server (endpoint, the model asked for, what the server
 * said it serves and its version answer), the trace, the parameters, the
 * tags, the host and the build. What differs by design (salt seeds, run
 * ids, labels, dates, an A/B run's own order) is no difference; an absent
 * field and a null one are the same. A results file older than provenance
 * has unknown tags and host, not different ones: one line says so where
 * the server part is asked for, and nothing else of it is compared. `analyze diff` prints the lines and
 * `analyze compare` warns with them.
 */
#ifndef TB_DIFF_H
#define TB_DIFF_H

#include <stddef.h>

#include "analyze/db.h"

#define DIFF_MAX_LINES 64
#define DIFF_MAX_VALUE 48         /* bytes of a value shown, then "..." */

enum diff_part {
	DIFF_SERVER = 1 << 0,     /* endpoint, model, provenance.server */
	DIFF_TRACE = 1 << 1,
	DIFF_PARAMS = 1 << 2,
	DIFF_TAGS = 1 << 3,
	DIFF_HOST = 1 << 4,       /* provenance.host and .build */
	DIFF_ALL = 0x1f,
};

struct diff {
	char *lines[DIFF_MAX_LINES];   /* each "what: A vs B", malloc'd */
	size_t n;
	size_t more;                   /* differences past DIFF_MAX_LINES */
};

/*
 * Fills d (whose contents it replaces) with the differences of a and b in
 * the parts asked for (an OR of enum diff_part). Returns 0, or -1 when out
 * of memory (d holds what was found; diff_release it either way).
 */
int diff_runs(const struct db_run *a, const struct db_run *b, unsigned parts, struct diff *d);

void diff_release(struct diff *d);

#endif
