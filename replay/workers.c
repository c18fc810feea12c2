/*
 * workers.c - replay --workers: fork, start together, merge; see workers.h.
 *
 * The start handshake is two pipes: each worker writes one byte to 'ready'
 * when it is set up; the parent, once it has read one from each, writes the
 * start time (a double) once for each worker to 'go'. All the messages on
 * 'go' are the same, so which worker reads which does not matter. A worker
 * that dies early closes its end of 'ready'; the parent then closes 'go'
 * and every worker reads end-of-file: nobody starts.
 */
#include "workers.h"
#include "lib/clock.h"
#include "lib/result.h"
#include "lib/tracefile.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A moment for the workers to get from 'go' into their wait. */
#define WORKERS_START_LEAD_S 0.25

struct workers {
	int n;
	pid_t *pids;
	int ready_rd, go_wr;
};

/* For the signal handler: whom to forward to. */
static pid_t *forward_pids;
static int forward_n;
static volatile sig_atomic_t forwarded;

static void on_parent_signal(int sig, siginfo_t *info, void *uctx)
{
	int i;

	(void)uctx;
	if (!forwarded)
		forwarded = sig;
	/* From the terminal (SI_KERNEL) every worker got it already. */
	if (info && info->si_code == SI_KERNEL)
		return;
	for (i = 0; i < forward_n; i++)
		if (forward_pids[i] > 0)
			kill(forward_pids[i], sig);
}

int workers_signal(void)
{
	return forwarded;
}

int workers_spawn(int n, struct workers **out, int *index, int fd[2], char *err, size_t errlen)
{
	struct workers *w = calloc(1, sizeof(*w));
	int ready[2] = { -1, -1 }, go[2] = { -1, -1 };
	struct sigaction sa;
	int i;

	if (!w || !(w->pids = calloc((size_t)n, sizeof(pid_t)))) {
		free(w);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (pipe(ready) < 0 || pipe(go) < 0) {
		snprintf(err, errlen, "cannot create a pipe: %s", strerror(errno));
		goto fail;
	}
	w->n = n;
	fflush(stdout);
	fflush(stderr);
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			snprintf(err, errlen, "cannot start worker %d: %s", i, strerror(errno));
			goto fail;
		}
		if (pid == 0) {
			/* The worker keeps the write end of 'ready', the read end of 'go'. */
			close(ready[0]);
			close(go[1]);
			fd[0] = ready[1];
			fd[1] = go[0];
			*index = i;
			free(w->pids);
			free(w);
			return 1;
		}
		w->pids[i] = pid;
	}
	close(ready[1]);
	close(go[0]);
	w->ready_rd = ready[0];
	w->go_wr = go[1];
	forward_pids = w->pids;
	forward_n = n;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_parent_signal;
	sa.sa_flags = SA_SIGINFO;     /* no SA_RESTART: a signal ends the parent's waits */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	*out = w;
	*index = -1;
	return 0;

fail:
	for (i = 0; w->pids && i < w->n; i++)
		if (w->pids[i] > 0) {
			kill(w->pids[i], SIGKILL);
			waitpid(w->pids[i], NULL, 0);
		}
	for (i = 0; i < 2; i++) {
		if (ready[i] >= 0)
			close(ready[i]);
		if (go[i] >= 0)
			close(go[i]);
	}
	free(w->pids);
	free(w);
	return -1;
}

double workers_ready(int fd[2])
{
	char one = 1;
	double at;
	size_t got = 0;
	ssize_t r;

	if (write(fd[0], &one, 1) != 1)
		return -1;
	close(fd[0]);
	while (got < sizeof(at)) {
		r = read(fd[1], (char *)&at + got, sizeof(at) - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd[1]);
	return got == sizeof(at) ? at : -1;
}

double workers_release(struct workers *w, double start_at)
{
	int ready = 0, i;
	char c;

	while (ready < w->n && !forwarded) {
		ssize_t r = read(w->ready_rd, &c, 1);

		if (r == 1)
			ready++;
		else if (r == 0 || errno != EINTR)
			break;
	}
	close(w->ready_rd);
	w->ready_rd = -1;
	if (ready == w->n && !forwarded) {
		if (start_at <= 0)
			start_at = (double)clock_wall_ns() / 1e9 + WORKERS_START_LEAD_S;
		for (i = 0; i < w->n; i++)
			if (write(w->go_wr, &start_at, sizeof(start_at)) != (ssize_t)sizeof(start_at))
				break;
	} else {
		start_at = -1;
	}
	close(w->go_wr);
	w->go_wr = -1;
	return start_at;
}

int workers_wait(struct workers *w)
{
	int worst = 0, i, status;

	for (i = 0; i < w->n; i++) {
		int code;

		while (waitpid(w->pids[i], &status, 0) < 0) {
			if (errno != EINTR) {
				status = -1;
				break;
			}
		}
		w->pids[i] = -1;
		if (status == -1)
			code = 1;
		else if (WIFSIGNALED(status))
			code = 128 + WTERMSIG(status);
		else
			code = WEXITSTATUS(status);
		if (code > worst)
			worst = code;
	}
	return worst;
}

void workers_free(struct workers *w)
{
	if (!w)
		return;
	if (w->ready_rd >= 0)
		close(w->ready_rd);
	if (w->go_wr >= 0)
		close(w->go_wr);
	forward_pids = NULL;
	forward_n = 0;
	free(w->pids);
	free(w);
}

/* ---- the merge ------------------------------------------------------- */

/* When a record's request ended, as an offset: records are appended in
 * this order, so each worker's file is sorted by it. */
static int64_t end_of(const cJSON *rec)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(rec, "sched_ns");
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(rec, "e2e_ns");

	if (cJSON_GetObjectItemCaseSensitive(rec, "type")) {  /* a metrics record: its reply */
		s = cJSON_GetObjectItemCaseSensitive(rec, "t_ns");
		e = cJSON_GetObjectItemCaseSensitive(rec, "latency_us");
		return (int64_t)((cJSON_IsNumber(s) ? s->valuedouble : 0) +
				 (cJSON_IsNumber(e) ? e->valuedouble * 1000 : 0));
	}
	return (int64_t)((cJSON_IsNumber(s) ? s->valuedouble : 0) +
			 (cJSON_IsNumber(e) ? e->valuedouble : 0));
}

/* Orders results by level, ties in merge order (stable). */
static int by_level(const void *a, const void *b)
{
	const struct result *x = a, *y = b;

	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The sweep table of the merged results, one row a level, its optional
 * columns decided by all of them (summary_groups). Returns 0, or -1 when
 * out of memory. */
static int print_table(FILE *table, enum table_format fmt, const char *label,
		       struct result *res, size_t n)
{
	double base_tps = NAN;   /* aggregate tok/s at C=1, for scaling */
	struct level_summary *rows;
	struct table t;
	size_t i = 0, j, k, n_rows = 0, levels = 1;

	if (n)
		qsort(res, n, sizeof(*res), by_level);
	for (k = 1; k < n; k++)
		levels += res[k].level != res[k - 1].level;
	rows = calloc(levels, sizeof(*rows));
	if (!rows)
		return -1;
	while (i < n) {
		struct level_summary *s = &rows[n_rows];

		for (j = i; j < n && res[j].level == res[i].level; j++)
			;
		summary_compute(res + i, j - i, load_of_code(res[i].level, res[i].rate), NULL, s);
		if (load_same(s->level, load_closed(1)))
			base_tps = s->agg_tps;
		summary_set_scaling(s, base_tps);
		n_rows += s->requests > 0;
		i = j;
	}
	summary_table_init(&t, table, fmt, summary_groups(rows, n_rows));
	table_begin(&t);
	for (k = 0; k < n_rows; k++)
		summary_table_row(&t, label, &rows[k]);
	table_end(&t);
	free(rows);
	return 0;
}

/* The workers' results files, read in step: each one's next record. */
struct merge_in {
	int n;
	struct tracefile_reader **rd;
	cJSON **head;
	long *count;            /* records taken from each */
};

static void merge_in_close(struct merge_in *m)
{
	int i;

	for (i = 0; m->rd && i < m->n; i++) {
		cJSON_Delete(m->head ? m->head[i] : NULL);
		tracefile_reader_close(m->rd[i]);
	}
	free(m->rd);
	free(m->head);
	free(m->count);
}

/* Opens the n files and reads each one's header record into head. */
static int merge_in_open(struct merge_in *m, char *const *paths, int n, char *err,
			 size_t errlen)
{
	char terr[TRACEFILE_ERRLEN];
	int i;

	m->n = n;
	m->rd = calloc((size_t)n, sizeof(struct tracefile_reader *));
	m->head = calloc((size_t)n, sizeof(cJSON *));
	m->count = calloc((size_t)n, sizeof(*m->count));
	if (!m->rd || !m->head || !m->count) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		m->rd[i] = tracefile_reader_open(paths[i], TRACEFILE_KIND_RESULTS, terr, sizeof(terr));
		if (!m->rd[i]) {
			snprintf(err, errlen, "worker %d: %s", i, terr);
			return -1;
		}
		if (tracefile_reader_next(m->rd[i], &m->head[i]) < 0) {
			snprintf(err, errlen, "worker %d: %s", i, tracefile_reader_error(m->rd[i]));
			return -1;
		}
	}
	return 0;
}

/* The worker whose next record ended first, or -1 when all are read. */
static int merge_in_first(const struct merge_in *m)
{
	int i, best = -1;

	for (i = 0; i < m->n; i++)
		if (m->head[i] && (best < 0 || end_of(m->head[i]) < end_of(m->head[best])))
			best = i;
	return best;
}

/* Keeps rec as a result for the table; one it cannot read is left out. */
static int keep_result(struct result **res, size_t *n, size_t *cap, const cJSON *rec)
{
	char rerr[256];

	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		struct result *nr = realloc(*res, ncap * sizeof(*nr));

		if (!nr)
			return -1;
		*res = nr;
		*cap = ncap;
	}
	result_init(&(*res)[*n]);
	if (result_from_json(&(*res)[*n], rec, rerr, sizeof(rerr)) == 0)
		++*n;
	else
		result_release(&(*res)[*n]);
	return 0;
}

int workers_merge(char *const *paths, int n, const char *output, const cJSON *header,
		  int force, FILE *table, enum table_format fmt, const char *label,
		  long *written, char *err, size_t errlen)
{
	struct merge_in in = { 0 };
	struct tracefile_writer *out = NULL;
	struct result *res = NULL;
	size_t n_res = 0, cap = 0;
	int best, rc = -1;

	*written = 0;
	if (merge_in_open(&in, paths, n, err, errlen) < 0)
		goto cleanup;
	out = tracefile_writer_open(output, TRACEFILE_KIND_RESULTS, header, force, err, errlen);
	if (!out)
		goto cleanup;
	while ((best = merge_in_first(&in)) >= 0) {
		cJSON *rec = in.head[best];
		int request = !cJSON_GetObjectItemCaseSensitive(rec, "type");

		/* Worker w's k-th request: seq k*W + w, unique in the merged file;
		 * a metrics record (the host's, a scrape's) goes as it came. */
		if (request)
			cJSON_ReplaceItemInObjectCaseSensitive(rec, "seq",
				cJSON_CreateNumber((double)(in.count[best]++ * n + best)));
		if (tracefile_writer_append(out, rec) < 0) {
			snprintf(err, errlen, "%s", tracefile_writer_error(out));
			goto cleanup;
		}
		if (request && keep_result(&res, &n_res, &cap, rec) < 0) {
			snprintf(err, errlen, "out of memory");
			goto cleanup;
		}
		*written += request;
		cJSON_Delete(rec);
		in.head[best] = NULL;
		if (tracefile_reader_next(in.rd[best], &in.head[best]) < 0) {
			snprintf(err, errlen, "worker %d: %s", best, tracefile_reader_error(in.rd[best]));
			goto cleanup;
		}
	}
	rc = tracefile_writer_close(out, err, errlen);
	out = NULL;
	if (rc == 0 && print_table(table, fmt, label, res, n_res) < 0) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	}
cleanup:
	if (out)
		tracefile_writer_close(out, NULL, 0);
	merge_in_close(&in);
	while (n_res)
		result_release(&res[--n_res]);
	free(res);
	return rc < 0 ? -1 : 0;
}
