/*
 * fuzz_foreign.c - libFuzzer target for the importers of other tools'
 * result files, `analyze load` of a vLLM or SGLang file
 * (analyze/foreign.c). Byte 0 picks how the rest is written to the
 * scratch file foreign_read takes: plain, gzip-compressed, or gzip cut
 * short. The outcome must be one of foreign_read's codes; a refusal names
 * the file, and "not mine" leaves the message untouched. A run it accepts
 * must hold requests the results reader takes back (each one through
 * result_to_json and result_from_json): times and counts in range, the
 * start times from 0, TTFT and the gaps within a day, and params that are
 * one JSON object naming the format. A broken rule aborts.
 */
#include "fuzz_util.h"
#include "analyze/foreign.h"

/* The reader's own bounds (foreign.c): a day per time, a month of starts. */
#define DAY_NS (86400LL * 1000000000LL)

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_foreign: %s: %s\n", what, detail ? detail : "(null)");
	abort();
}

/* The checks of one request of an accepted run. */
static void check_result(const struct result *r)
{
	int64_t sum = 0;
	size_t k;

	if (r->input_tokens < -1 || r->input_tokens > RESULT_MAX_TOKENS ||
	    r->output_tokens < 0 || r->output_tokens > RESULT_MAX_TOKENS)
		fail("a token count out of range", NULL);
	if (r->sched_ns < 0 || r->sched_ns > 31 * DAY_NS || r->send_ns != r->sched_ns)
		fail("a start time out of range", NULL);
	if (r->e2e_ns < 0 || r->e2e_ns > 2 * DAY_NS)
		fail("an E2E out of range", NULL);
	for (k = 0; k < r->n_itl; k++) {
		if (r->itl_ns[k] < 0 || r->itl_ns[k] > DAY_NS)
			fail("a gap out of range", NULL);
		sum += r->itl_ns[k];
	}
	if (sum > DAY_NS)
		fail("the gaps add up past a day", NULL);
	if (result_ok(r) && (r->status != 200 || r->ttft_ns < 0 || r->ttft_ns > DAY_NS))
		fail("a request that succeeded without a status or a TTFT", NULL);
	if (!result_ok(r) && (!r->error_detail || strlen(r->error_detail) > RESULT_DETAIL_MAX))
		fail("a failed request without its detail, or one past the cap", r->error_detail);
	/* what analyze load stores must be what the results reader reads */
	fuzz_result_reads_back(r);
}

static void check_run(const struct db_import *run)
{
	cJSON *params;
	const char *format;
	size_t i;

	if (!run->n || !run->results || !run->run_id || !run->label || !run->tool ||
	    !run->mode || !run->params_json)
		fail("an accepted run without requests or a field", run->run_id);
	params = cJSON_Parse(run->params_json);
	format = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "source_format"));
	if (!cJSON_IsObject(params) || !format ||
	    strncmp(run->run_id, format, strlen(format)) != 0)
		fail("params are not an object naming the format of the run id", run->params_json);
	cJSON_Delete(params);
	for (i = 0; i < run->n; i++) {
		if (run->results[i].seq != (long)i)
			fail("requests out of order", run->run_id);
		check_result(&run->results[i]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct db_import run;
	char path[96], err[512];
	int rc;

	if (size < 1)
		return 0;
	fuzz_path("in", path, sizeof(path));
	fuzz_write_input(path, data, size);
	snprintf(err, sizeof(err), "untouched");
	rc = foreign_read(path, &run, err, sizeof(err));
	switch (rc) {
	case FOREIGN_OK:
		check_run(&run);
		db_import_release(&run);
		break;
	case FOREIGN_NOT_MINE:
		if (strcmp(err, "untouched") != 0)
			fail("a file not of a known tool, yet a message", err);
		if (run.n || run.results || run.run_id)
			fail("a file not of a known tool, yet something filled", NULL);
		break;
	case FOREIGN_ERR_INPUT:
	case FOREIGN_ERR_WORK:
		if (err[0] != '\'' || strncmp(err + 1, path, strlen(path)) != 0)
			fail("a refusal that does not name the file", err);
		if (run.n || run.results || run.run_id || run.params_json)
			fail("a refused file, yet something returned", err);
		break;
	default:
		fail("an unknown return code", NULL);
	}
	return 0;
}
