/*
 * foreign.h - other benchmark tools' per-request results, read as runs.
 *
 * `analyze load` stores these beside tracebench's own results, so that
 * report, compare and plot judge every run by one set of definitions
 * (README, "Metrics"). Two formats are read:
 *
 *   vllm     `vllm bench serve --save-result --save-detailed`: one JSON
 *            object (several, one a line, with --append-result) holding
 *            per-request arrays: input_lens, output_lens, ttfts, itls,
 *            errors and start_times (seconds, time.perf_counter()); only
 *            vLLM's newest sources add latencies.
 *   sglang   `python -m sglang.bench_serving --output-file F --output-details`:
 *            JSON Lines, one object per run, with input_lens, output_lens,
 *            ttfts, itls and errors, but no start times and no latencies.
 *
 * Each object becomes one level: its max_concurrency, or 0 (open loop)
 * when the tool did not cap concurrency; objects of the same level are
 * repeats. What a format lacks is not invented: a missing latency is
 * TTFT + the gaps (to the last token), a missing start time puts the
 * request at 0, TTFA stays unknown, and each such gap is written into the
 * run's params as a "notes" array that `analyze report` prints.
 */
#ifndef TB_ANALYZE_FOREIGN_H
#define TB_ANALYZE_FOREIGN_H

#include <stddef.h>

#include "analyze/db.h"
#include "lib/result.h"

/* Largest file read (a detailed result of a million requests is ~100 MiB). */
#define FOREIGN_MAX_BYTES (512u << 20)

enum foreign_status {
	FOREIGN_NOT_MINE = 1,   /* not JSON of a known tool: try something else */
	FOREIGN_OK = 0,
	FOREIGN_ERR_INPUT = -2, /* truncated, malformed, or an unknown version */
	FOREIGN_ERR_WORK = -1,  /* out of memory */
};

/*
 * Reads 'path' (plain or gzip-compressed). Returns FOREIGN_OK and fills
 * *out (free with db_import_release): run_id "<format>-<crc32 of the
 * file>", the tool's label or "<format>-<date>-<crc32>" (two unlabelled
 * runs of one second stay apart), params_json
 * {"mode":...,"source_format":...,"notes":[...]}, with "start_times":false
 * when the file has none; FOREIGN_NOT_MINE when the file does not start with a JSON object
 * (nothing filled, err untouched); or a negative code with a one-line
 * message naming the file and line in err. Nothing is returned half-read.
 */
int foreign_read(const char *path, struct db_import *out, char *err, size_t errlen);

#endif
