/*
 * fuzz_capture.c - libFuzzer target for a `record proxy` capture read as a
 * run by `analyze load` (analyze/capture.c). Byte 0 picks how the rest
 * is written to the scratch file capture_read takes: plain,
 * gzip-compressed, or gzip cut short. The outcome must be DB_OK or a
 * refusal naming the file with nothing returned; a run it accepts holds
 * one open-loop level of inference requests, each timed from its
 * arrival, that tracebench's results reader takes back. A broken rule
 * aborts.
 */
#include "fuzz_util.h"
#include "analyze/capture.h"
#include "lib/json.h"

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_capture: %s: %s\n", what, detail ? detail : "(null)");
	abort();
}

static void check_run(const struct capture_run *c)
{
	const struct db_import *run = &c->run;
	cJSON *params;
	size_t i;

	if (!run->n || !run->results || !run->run_id || !run->label || !run->mode ||
	    !run->params_json || strncmp(run->run_id, "capture-", 8) != 0)
		fail("an accepted capture without requests or a field", run->run_id);
	params = cJSON_Parse(run->params_json);
	if (!cJSON_IsObject(params))
		fail("params are not an object", run->params_json);
	cJSON_Delete(params);
	for (i = 0; i < run->n; i++) {
		struct result r = run->results[i];   /* a copy read only */

		if (r.level != 0 || r.repeat != 0 || r.warmup || r.seq != r.trace_id ||
		    r.sched_ns != r.send_ns || r.sched_ns < 0 || r.sched_ns > (int64_t)JSON_MAX_EXACT)
			fail("a request not of one open-loop level timed from its arrival", NULL);
		/* a capture's arrivals count from the proxy's start, which may be
		 * longer ago than a results file's times; the rest must read back */
		r.sched_ns = r.send_ns = 0;
		fuzz_result_reads_back(&r);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct capture_run c;
	char path[96], err[DB_ERRLEN];
	int rc;

	if (size < 1)
		return 0;
	fuzz_path("in", path, sizeof(path));
	fuzz_write_input(path, data, size);
	err[0] = '\0';
	rc = capture_read(path, &c, err, sizeof(err));
	if (rc == DB_OK) {
		check_run(&c);
		capture_run_release(&c);
	} else if (rc == DB_ERR_INPUT || rc == DB_ERR_WORK) {
		if (!strstr(err, path))
			fail("a refusal that does not name the file", err);
		if (c.run.n || c.run.results || c.run.run_id || c.damage)
			fail("a refused capture, yet something returned", err);
	} else {
		fail("an unknown return code", NULL);
	}
	return 0;
}
