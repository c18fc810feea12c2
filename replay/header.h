/*
 * header.h - the results file's header (schema/FORMAT.md): what a reader
 * needs to know what a replay measured and to run it again: its id, label,
 * endpoint, trace, every parameter, the provenance (provenance.h) and the
 * clock its offsets count from.
 */
#ifndef TB_REPLAY_HEADER_H
#define TB_REPLAY_HEADER_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include "options.h"
#include "clocksync.h"
#include "session.h"
#include "lib/tracefile.h"

/*
 * A new header for one side's results file (label, endpoint as shown:
 * redacted), the server's own description 'server' (server_info.h; may be
 * NULL), the trace's digest and request count, the model asked for in
 * first_body, an A/B run's block order (ab_order, n_blocks) and the
 * sessions (NULL: none). NULL when out of memory.
 */
cJSON *header_create(const struct replay_options *o, const struct session_set *sessions,
		      const char *label, const char *endpoint, const cJSON *server,
		      const struct tracefile_id *trace_id, const unsigned char *ab_order, size_t n_blocks,
		      const char *first_body, size_t n_reqs);

/* Adds "clock": this host, the wall-clock instant origin_unix the run's
 * offsets count from and, when cs measured it, the server clock's offset. */
void header_add_clock(cJSON *h, double origin_unix, const struct clocksync_result *cs);

#endif
