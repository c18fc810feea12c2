/*
 * provenance.h - what a results file says about how it was made, so that
 * a reader of a write-up can tell two runs apart and run one again: the
 * command line (secrets taken out), this build, the host, the user's tags
 * and the server as it described itself (replay/server_info.h). The
 * header's "provenance" object; its fields are in schema/FORMAT.md.
 */
#ifndef TB_PROVENANCE_H
#define TB_PROVENANCE_H

#include <cjson/cJSON.h>

#include "replay/options.h"

/* The build this binary came from: `git describe` when it was built in a
 * checkout, else "unknown" (generated into the build folder). */
extern const char tracebench_build_id[];

/*
 * A new "provenance" object for the results header of o's run, with a
 * copy of 'server' (server_info_probe's answer; NULL: not asked). Returns
 * NULL when out of memory; the caller frees it (cJSON_Delete).
 */
cJSON *provenance_new(const struct replay_options *o, const cJSON *server);

/*
 * The command-line argument 'arg' fit to be written, given the one before
 * it ('prev', NULL for the first): a header's value (-H 'Name: value',
 * --header=...) becomes REDACTED unless the name is known to be harmless,
 * and a URL loses its userinfo and the values of its query parameters
 * (lib/redact.h). Returns a malloc'd string, or NULL when out of memory.
 */
char *provenance_arg(const char *prev, const char *arg);

#endif
