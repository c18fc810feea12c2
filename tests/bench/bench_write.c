/*
 * bench_write.c - what writing a results record costs, for make bench
 * (scripts/bench-files.sh, section 7).
 *
 *   bench_write RESULTS OUT N
 *
 * Reads the records of RESULTS (a real replay's results file) into struct
 * result, then writes N records, going round those, to the new results
 * file OUT exactly as replay's on_done() does: result_to_json(),
 * tracefile_writer_append(), cJSON_Delete(), tracefile_writer_flush_if_due().
 * Prints "records N cpu_s S bytes B": the process CPU time of the writing
 * (from before the first record to the file closed) and the size of OUT.
 * Exit status 0, 1 on a failure, 2 on a usage error.
 */
#include "lib/result.h"
#include "lib/tracefile.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char err[TRACEFILE_ERRLEN];
	struct tracefile_reader *r = NULL;
	struct tracefile_writer *w = NULL;
	struct result *recs = NULL;
	size_t n_recs = 0, cap = 0;
	cJSON *obj = NULL;
	struct stat st;
	long n, i;
	double t0, t1;
	int rc = 1, got;

	if (argc != 4 || (n = strtol(argv[3], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: bench_write RESULTS OUT N\n");
		return 2;
	}
	if (!(r = tracefile_reader_open(argv[1], TRACEFILE_KIND_RESULTS, err, sizeof(err)))) {
		fprintf(stderr, "bench_write: %s\n", err);
		goto cleanup;
	}
	while ((got = tracefile_reader_next(r, &obj)) == 1) {
		if (n_recs == cap) {
			struct result *grown = realloc(recs, (cap = cap ? 2 * cap : 256) * sizeof(*recs));

			if (!grown) {
				fprintf(stderr, "bench_write: out of memory\n");
				goto cleanup;
			}
			recs = grown;
		}
		result_init(&recs[n_recs]);
		if (result_from_json(&recs[n_recs], obj, err, sizeof(err)) < 0) {
			fprintf(stderr, "bench_write: '%s': %s\n", argv[1], err);
			goto cleanup;
		}
		n_recs++;
		cJSON_Delete(obj);
		obj = NULL;
	}
	if (got < 0 || n_recs == 0) {
		fprintf(stderr, "bench_write: '%s': %s\n", argv[1],
			got < 0 ? tracefile_reader_error(r) : "no records");
		goto cleanup;
	}

	t0 = cpu_now();
	if (!(w = tracefile_writer_open(argv[2], TRACEFILE_KIND_RESULTS,
					tracefile_reader_header(r), 1, err, sizeof(err)))) {
		fprintf(stderr, "bench_write: %s\n", err);
		goto cleanup;
	}
	for (i = 0; i < n; i++) {
		cJSON *rec = result_to_json(&recs[i % (long)n_recs]);

		if (!rec || tracefile_writer_append(w, rec) < 0 ||
		    tracefile_writer_flush_if_due(w) < 0) {
			fprintf(stderr, "bench_write: %s\n", rec ? tracefile_writer_error(w) : "out of memory");
			cJSON_Delete(rec);
			goto cleanup;
		}
		cJSON_Delete(rec);
	}
	got = tracefile_writer_close(w, err, sizeof(err));
	w = NULL;
	t1 = cpu_now();
	if (got < 0 || stat(argv[2], &st) < 0) {
		fprintf(stderr, "bench_write: %s\n", got < 0 ? err : "cannot stat the output");
		goto cleanup;
	}
	printf("records %ld cpu_s %.6f bytes %lld\n", n, t1 - t0, (long long)st.st_size);
	rc = 0;
cleanup:
	tracefile_writer_close(w, NULL, 0);
	cJSON_Delete(obj);
	for (i = 0; i < (long)n_recs; i++)
		result_release(&recs[i]);
	free(recs);
	tracefile_reader_close(r);
	return rc;
}
