/*
 * plot.c - `tracebench analyze plot`; see plot.h.
 *
 * The numbers come from report_summarize (lib/summary.c underneath), the
 * same as the report's table. gnuplot is started with fork and execvp in
 * the output directory, with an argv and no shell, and its exit status is
 * checked. Its absence is not an error: the script is still useful.
 */
#include "analyze/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze/report.h"

#define PLOT_WIDTH  1000
#define PLOT_HEIGHT 600

/* One curve pair: a run and its summarized levels. */
struct plot_series {
	char *label;              /* owned */
	struct report_run run;
};

struct plot_data {
	struct plot_series *series;  /* owned, n_series of them */
	size_t n_series;
	int *levels;                 /* owned: every level > 0 of any run, ascending */
	size_t n_levels;
};

static void plot_seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void plot_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static void plot_data_release(struct plot_data *d)
{
	size_t i;

	for (i = 0; i < d->n_series; i++) {
		free(d->series[i].label);
		report_run_release(&d->series[i].run);
	}
	free(d->series);
	free(d->levels);
	memset(d, 0, sizeof(*d));
}

/* Joins dir and name into buf (PATH_MAX bytes). Returns 0 or -1 if too long. */
static int plot_path(char *buf, const char *dir, const char *name, const char *suffix)
{
	int len = snprintf(buf, PATH_MAX, "%s/%s%s", dir, name, suffix);

	return len < 0 || len >= PATH_MAX ? -1 : 0;
}

/* Creates dir unless it exists as a directory (one level, like mkdir). */
static int plot_make_dir(const char *dir, char *err, size_t errlen)
{
	struct stat sb;

	if (mkdir(dir, 0777) == 0)
		return DB_OK;
	if (errno == EEXIST && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
		return DB_OK;
	if (errno == EEXIST)
		errno = ENOTDIR;
	plot_seterr(err, errlen, "cannot create directory '%s': %s", dir, strerror(errno));
	return DB_ERR_WORK;
}

static int plot_int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Collects the distinct positive levels of all series into d->levels. */
static int plot_collect_levels(struct plot_data *d)
{
	size_t total = 0, i, j, n = 0;

	for (i = 0; i < d->n_series; i++)
		total += d->series[i].run.n_levels;
	d->levels = malloc((total ? total : 1) * sizeof(*d->levels));
	if (!d->levels)
		return -1;
	for (i = 0; i < d->n_series; i++)
		for (j = 0; j < d->series[i].run.n_levels; j++)
			if (d->series[i].run.levels[j].level > 0)
				d->levels[n++] = d->series[i].run.levels[j].level;
	qsort(d->levels, n, sizeof(*d->levels), plot_int_cmp);
	for (i = 0, j = 0; i < n; i++)
		if (j == 0 || d->levels[j - 1] != d->levels[i])
			d->levels[j++] = d->levels[i];
	d->n_levels = j;
	return 0;
}

/* Adds the run 'label' (which must exist) to d. */
static int plot_add_series(struct plot_data *d, struct db *db, const char *label,
			   char *err, size_t errlen)
{
	struct plot_series *s;
	int rc;

	s = realloc(d->series, (d->n_series + 1) * sizeof(*s));
	if (!s) {
		plot_seterr(err, errlen, "run '%s': out of memory", label);
		return DB_ERR_WORK;
	}
	d->series = s;
	s = &d->series[d->n_series];
	memset(s, 0, sizeof(*s));
	if (!(s->label = strdup(label))) {
		plot_seterr(err, errlen, "run '%s': out of memory", label);
		return DB_ERR_WORK;
	}
	rc = report_summarize(db, label, &s->run, err, errlen);
	if (rc) {
		free(s->label);
		return rc;
	}
	d->n_series++;
	return DB_OK;
}

/* Summarizes the requested runs (all when n_labels is 0) into d. */
static int plot_load_data(struct db *db, const char *const *labels, size_t n_labels,
			  struct plot_data *d, char *err, size_t errlen)
{
	struct db_run *runs = NULL;
	size_t n = 0, i, k;
	int rc = DB_OK;

	for (k = 0; !rc && k < (n_labels ? n_labels : 1); k++) {
		rc = db_runs(db, n_labels ? labels[k] : NULL, &runs, &n, err, errlen);
		for (i = 0; !rc && i < n; i++)
			rc = plot_add_series(d, db, runs[i].label, err, errlen);
		db_runs_free(runs, n);
		runs = NULL;
		n = 0;
	}
	if (rc)
		return rc;
	if (plot_collect_levels(d) != 0) {
		plot_seterr(err, errlen, "out of memory");
		return DB_ERR_WORK;
	}
	if (d->n_levels == 0) {
		plot_seterr(err, errlen, "nothing to plot: the runs have no concurrency "
			    "levels with measured requests");
		return DB_ERR_INPUT;
	}
	return DB_OK;
}

/*
 * A gnuplot string expression for untrusted text, built from single-quoted
 * literals (no backslash escapes, no `command` or @macro substitution in
 * them) that never contain a quote: each ' in the text becomes the variable
 * PLOT_GP_QUOTE_VAR, joined with the '.' operator. Doubling quotes inside
 * the literal is not enough: gnuplot 5.4 misreads a literal that starts
 * with two quotes or holds four in a row, and the script fails. Control
 * characters (a newline would end the command) become spaces.
 */
struct gp_string {
	FILE *f;
	int open;    /* inside a quoted literal */
	int parts;   /* literals and quote variables written so far */
};

static void gp_string_chars(struct gp_string *g, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\'') {
			if (g->open)
				fputc('\'', g->f);
			g->open = 0;
			fputs(g->parts++ ? " . " PLOT_GP_QUOTE_VAR : PLOT_GP_QUOTE_VAR, g->f);
			continue;
		}
		if (!g->open) {
			fputs(g->parts++ ? " . '" : "'", g->f);
			g->open = 1;
		}
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			fputc(' ', g->f);
		else
			fputc(*s, g->f);
	}
}

static void gp_string_end(struct gp_string *g)
{
	if (g->open)
		fputc('\'', g->f);
	else if (!g->parts)
		fputs("''", g->f);
}

void plot_put_gp_string(FILE *f, const char *s)
{
	struct gp_string g = { f, 0, 0 };

	gp_string_chars(&g, s);
	gp_string_end(&g);
}

/* Writes prefix, label and suffix as one gnuplot string expression. */
static void plot_put_gp_title(FILE *f, const char *prefix, const char *label,
			      const char *suffix)
{
	struct gp_string g = { f, 0, 0 };

	gp_string_chars(&g, prefix);
	gp_string_chars(&g, label);
	gp_string_chars(&g, suffix);
	gp_string_end(&g);
}

/* A number for the .dat file, '?' (gnuplot's "missing") when there is none. */
static void plot_put_value(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs(" ?", f);
	else
		fprintf(f, " %.3f", v);
}

static const struct level_summary *plot_find_level(const struct report_run *run, int level)
{
	size_t i;

	for (i = 0; i < run->n_levels; i++)
		if (run->levels[i].level == level)
			return &run->levels[i];
	return NULL;
}

static void plot_write_dat(FILE *f, const struct plot_data *d)
{
	const struct level_summary *s;
	size_t i, j;

	fputs("# scaling.dat - written by tracebench analyze plot, read by scaling.gp.\n"
	      "# concurrency, then per run (in the order of scaling.gp's plot command):\n"
	      "# aggregate tok/s, per-request tok/s. '?' marks a missing value.\n", f);
	for (i = 0; i < d->n_levels; i++) {
		fprintf(f, "%d", d->levels[i]);
		for (j = 0; j < d->n_series; j++) {
			s = plot_find_level(&d->series[j].run, d->levels[i]);
			plot_put_value(f, s ? s->agg_tps : NAN);
			plot_put_value(f, s ? s->per_req_tps : NAN);
		}
		fputc('\n', f);
	}
}

/* The two curves of series j: aggregate (solid) and per-request (dashed). */
static void plot_write_curves(FILE *f, const struct plot_series *s, size_t j, int last)
{
	unsigned col = 2 + 2 * (unsigned)j;
	unsigned color = 1 + (unsigned)j;

	fprintf(f, "     '" PLOT_DAT_NAME "' using 1:%u with linespoints lc %u pt 7 dt 1 title ",
		col, color);
	plot_put_gp_title(f, "", s->label, ": aggregate");
	fputs(", \\\n", f);
	fprintf(f, "     '" PLOT_DAT_NAME "' using 1:%u with linespoints lc %u pt 6 dt 2 title ",
		col + 1, color);
	plot_put_gp_title(f, "", s->label, ": per request");
	fputs(last ? "\n" : ", \\\n", f);
}

static void plot_write_script(FILE *f, const struct plot_data *d)
{
	int lo = d->levels[0], hi = d->levels[d->n_levels - 1];
	size_t i;

	fputs("# scaling.gp - throughput by concurrency, written by tracebench analyze plot.\n"
	      "# Reads " PLOT_DAT_NAME " and writes " PLOT_PNG_NAME " in the current directory:\n"
	      "#   cd DIR && gnuplot " PLOT_SCRIPT_NAME "\n"
	      "# Solid lines: aggregate tok/s of a level (all requests); dashed:\n"
	      "# mean tok/s of one request (its output tokens / (E2E - TTFT)).\n"
	      PLOT_GP_QUOTE_VAR " = sprintf('%c', 39)   # a quote, for labels that hold one\n"
	      "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n", f);
	fprintf(f, "    set terminal pngcairo noenhanced size %d,%d\n", PLOT_WIDTH, PLOT_HEIGHT);
	fputs("} else {\n", f);
	fprintf(f, "    set terminal png noenhanced size %d,%d\n", PLOT_WIDTH, PLOT_HEIGHT);
	fputs("}\n"
	      "set output '" PLOT_PNG_NAME "'\n"
	      "set title ", f);
	if (d->n_series == 1) {
		plot_put_gp_title(f, "Throughput by concurrency: ", d->series[0].label, "");
		fputc('\n', f);
	} else {
		fputs("'Throughput by concurrency'\n", f);
	}
	fputs("set xlabel 'concurrency (requests in flight)'\n"
	      "set ylabel 'tok/s'\n"
	      "set logscale x 2\n"
	      "set xtics (", f);
	for (i = 0; i < d->n_levels; i++)
		fprintf(f, "%s%d", i ? ", " : "", d->levels[i]);
	fprintf(f, ")\n"
		"set xrange [%g:%g]\n"
		"set yrange [0:*]\n"
		"set grid\n"
		"set key below\n"
		"set datafile missing '?'\n"
		"plot \\\n", lo / 1.25, hi * 1.25);
	for (i = 0; i < d->n_series; i++)
		plot_write_curves(f, &d->series[i], i, i + 1 == d->n_series);
}

/* Writes dir/name through a temporary file renamed into place. */
static int plot_write_file(const char *dir, const char *name,
			   void (*fill)(FILE *, const struct plot_data *),
			   const struct plot_data *d, char *err, size_t errlen)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	FILE *f = NULL;
	int rc = DB_ERR_WORK;

	if (plot_path(path, dir, name, "") || plot_path(tmp, dir, name, ".tmp")) {
		plot_seterr(err, errlen, "cannot write '%s/%s': path too long", dir, name);
		return DB_ERR_WORK;
	}
	f = fopen(tmp, "w");
	if (!f) {
		plot_seterr(err, errlen, "cannot write '%s': %s", tmp, strerror(errno));
		goto cleanup;
	}
	fill(f, d);
	if (ferror(f) | fclose(f)) {
		f = NULL;
		plot_seterr(err, errlen, "cannot write '%s': %s", tmp, strerror(errno));
		goto cleanup;
	}
	f = NULL;
	if (rename(tmp, path) != 0) {
		plot_seterr(err, errlen, "cannot rename '%s' to '%s': %s", tmp, path,
			    strerror(errno));
		goto cleanup;
	}
	rc = DB_OK;
cleanup:
	if (f)
		fclose(f);
	if (rc)
		unlink(tmp);
	return rc;
}

/* What the child reports through the pipe when it cannot exec gnuplot. */
struct plot_exec_failure {
	int in_chdir;   /* 1: chdir(dir) failed, 0: execvp failed */
	int errnum;
};

/* In the child: go to dir, stdin from /dev/null, exec gnuplot. Never returns. */
static void plot_child(const char *dir, int report_fd)
{
	char *argv[] = { (char *)"gnuplot", (char *)PLOT_SCRIPT_NAME, NULL };
	struct plot_exec_failure why = { 1, 0 };
	int null_fd;

	if (chdir(dir) == 0) {
		why.in_chdir = 0;
		null_fd = open("/dev/null", O_RDONLY);
		if (null_fd >= 0 && null_fd != STDIN_FILENO) {
			dup2(null_fd, STDIN_FILENO);
			close(null_fd);
		}
		execvp(argv[0], argv);
	}
	why.errnum = errno;
	if (write(report_fd, &why, sizeof(why)) < 0)
		_exit(127);
	_exit(127);
}

/*
 * Runs gnuplot on the script in dir and waits for it. Sets *missing when
 * gnuplot is not on PATH. The close-on-exec pipe tells an exec failure
 * (the child writes why) from gnuplot's own exit status (EOF).
 */
static int plot_render(const char *dir, int *missing, char *err, size_t errlen)
{
	struct plot_exec_failure why;
	int fds[2];
	ssize_t got;
	pid_t pid;
	int status;

	*missing = 0;
	if (pipe(fds) != 0 || fcntl(fds[1], F_SETFD, FD_CLOEXEC) != 0) {
		plot_seterr(err, errlen, "cannot run gnuplot: %s", strerror(errno));
		return DB_ERR_WORK;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		plot_seterr(err, errlen, "cannot run gnuplot: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return DB_ERR_WORK;
	}
	if (pid == 0) {
		close(fds[0]);
		plot_child(dir, fds[1]);
	}
	close(fds[1]);
	do
		got = read(fds[0], &why, sizeof(why));
	while (got < 0 && errno == EINTR);
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			plot_seterr(err, errlen, "cannot wait for gnuplot: %s", strerror(errno));
			return DB_ERR_WORK;
		}
	}
	if (got == (ssize_t)sizeof(why)) {
		if (!why.in_chdir && why.errnum == ENOENT) {
			*missing = 1;
			return DB_OK;
		}
		plot_seterr(err, errlen, why.in_chdir ? "cannot enter '%s': %s"
			    : "cannot run gnuplot in '%s': %s", dir, strerror(why.errnum));
		return DB_ERR_WORK;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return DB_OK;
	if (WIFEXITED(status))
		plot_seterr(err, errlen, "gnuplot failed on '%s/" PLOT_SCRIPT_NAME
			    "' (exit status %d)", dir, WEXITSTATUS(status));
	else
		plot_seterr(err, errlen, "gnuplot failed on '%s/" PLOT_SCRIPT_NAME
			    "' (signal %d)", dir, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return DB_ERR_WORK;
}

int plot_scaling(struct db *db, const char *const *labels, size_t n_labels, const char *dir,
		 struct plot_output *out, char *err, size_t errlen)
{
	struct plot_data d = { NULL, 0, NULL, 0 };
	int missing = 0;
	int rc;

	rc = plot_load_data(db, labels, n_labels, &d, err, errlen);
	if (rc)
		goto cleanup;
	rc = plot_make_dir(dir, err, errlen);
	if (rc)
		goto cleanup;
	rc = plot_write_file(dir, PLOT_DAT_NAME, plot_write_dat, &d, err, errlen);
	if (rc)
		goto cleanup;
	rc = plot_write_file(dir, PLOT_SCRIPT_NAME, plot_write_script, &d, err, errlen);
	if (rc)
		goto cleanup;
	rc = plot_render(dir, &missing, err, errlen);
	if (rc)
		goto cleanup;
	out->rendered = !missing;
	out->gnuplot_missing = missing;
cleanup:
	plot_data_release(&d);
	return rc;
}
