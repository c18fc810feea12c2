/*
 * rerun.h - `tracebench replay --rerun RESULTS`: the experiment a results
 * file recorded, run again.
 *
 * The results header's provenance holds the command line the run was made
 * with; --rerun expands into it: the recorded words first, then the salt
 * seed the run drew (so the bodies on the wire are the same bytes), then
 * the words given now, each of whose options replaces every recorded one
 * of its name (a new -H replaces all recorded -H). The recorded --label,
 * --label-a/-b and --force are left behind: a rerun is a run of its own.
 * A recorded value that was redacted (a secret header, a URL's key) must be
 * given anew; the trace must be the one the run replayed (its digest).
 */
#ifndef TB_RERUN_H
#define TB_RERUN_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include "lib/tracefile.h"

struct rerun {
	int argc;                 /* the command line to parse: "replay" ... */
	char **argv;              /* (owned, with its strings) */
	struct tracefile_id trace_id;  /* of the trace the recorded run replayed;
				    * crc32 "" in files before the SHA-256 */
	cJSON *of;                /* {"run_id","label","file","overrides":[...]} */
};

/*
 * When argv (argv[0] "replay") gives --rerun RESULTS, fills r with the
 * expanded command line and returns 1; returns 0 when it does not (r
 * zeroed), and -1 with a one-line message in err when RESULTS cannot be
 * rerun (unreadable, older than provenance, a redacted value not given
 * again). rerun_release frees r in every case.
 */
int rerun_expand(int argc, char **argv, struct rerun *r, char *err, size_t errlen);

void rerun_release(struct rerun *r);

#endif
