/*
 * analyze.c - `tracebench analyze load|report|export|runs|compare|diff|plan|rm|plot`:
 * each subcommand's run and exit code; the options are read in options.c,
 * the work is in db.c, report.c, compare.c and plot.c.
 *
 * Results files go into one SQLite database (load); everything else reads
 * it. Exit status (lib/cli.h): 0 success, 1 the work failed (a SQLite or write error,
 * gnuplot failing), 2 a usage or input error (missing or malformed file,
 * unknown run, an output that cannot be created or would replace a file
 * without --force). Messages are one line on stderr; data goes to stdout.
 */
#include "analyze/analyze.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#ifdef __GLIBC__        /* defined by the headers above */
#include <malloc.h>
#endif

#include "analyze/capture.h"
#include "analyze/compare.h"
#include "analyze/diff.h"
#include "analyze/efficiency.h"
#include "analyze/plan.h"
#include "analyze/options.h"
#include "analyze/db.h"
#include "analyze/foreign.h"
#include "analyze/html.h"
#include "lib/latex.h"
#include "analyze/plot.h"
#include "analyze/report.h"
#include "analyze/report_client.h"
#include "analyze/shards.h"
#include "lib/cli.h"
#include "lib/errmsg.h"
#include "lib/metric.h"
#include "lib/table.h"
#include "lib/tmpfile.h"
#include "lib/tracefile.h"

/* Maps a DB_ERR_* code to the exit status. */
static int analyze_exit_code(int rc)
{
	if (rc == DB_OK || rc == DB_ALREADY_LOADED)
		return 0;
	return rc == DB_ERR_INPUT ? 2 : 1;
}

/* Prints "tracebench analyze SUB: MSG" and returns the exit status for rc. */
/* A line to stderr, shown as lib/table.c shows text: a run's label, id
 * or a file's words may hold control bytes (a label is any bytes), and
 * none may reach the terminal as a control sequence. */
static void analyze_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void analyze_say(const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	table_clean_text(line);
	fprintf(stderr, "%s\n", line);
}

static int analyze_fail(const char *sub, int rc, const char *msg)
{
	analyze_say("tracebench analyze %s: %s", sub, msg);
	return analyze_exit_code(rc);
}

static void analyze_print_load_info(const char *path, int rc, const struct db_load_info *info)
{
	if (info->damage)
		analyze_say("tracebench analyze load: warning: '%s': %s", path, info->damage);
	if (rc == DB_ALREADY_LOADED)
		analyze_say("tracebench analyze load: '%s': run '%s' already loaded (run_id %s); "
			    "nothing to do", path, info->label, info->run_id);
	else
		analyze_say("loaded '%s': run '%s', %zu request%s", path, info->label,
			    info->requests, info->requests == 1 ? "" : "s");
}

/* Warns when the run 'label' is shards with some not loaded (yet). */
static void analyze_warn_missing(struct db *db, const char *label)
{
	struct shards_view v;
	char err[DB_ERRLEN];

	if (shards_view(db, label, NULL, &v, err, sizeof(err)) == DB_OK && v.n_missing)
		analyze_say("tracebench analyze load: warning: run '%s' lacks shard%s %s "
			    "(%zu of %ld loaded)", label, v.n_missing == 1 ? "" : "s", v.missing,
			    v.loaded, v.expected);
}

/*
 * Loads one file, whatever it holds: a tracebench results file, a record
 * proxy capture (analyze/capture.c), or another tool's results
 * (analyze/foreign.c). A tracebench file names its kind in its header;
 * anything that is not one may be another tool's JSON.
 */
static int analyze_load_one(struct db *db, const char *path, const char *label,
			    struct db_load_info *info, char *err, size_t errlen)
{
	char rerr[TRACEFILE_ERRLEN];
	struct tracefile_reader *rd = tracefile_reader_open(path, NULL, rerr, sizeof(rerr));
	struct capture_run cr;
	struct db_import fr;
	int is_trace, rc;

	memset(info, 0, sizeof(*info));
	if (rd) {
		const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
			tracefile_reader_header(rd), "format"));

		is_trace = kind && strcmp(kind, TRACEFILE_KIND_TRACE) == 0;
		tracefile_reader_close(rd);
		if (!is_trace)
			return db_load_results(db, path, label, info, err, errlen);
		rc = capture_read(path, &cr, err, errlen);
		if (rc)
			return rc;
		rc = db_load_import(db, path, &cr.run, label, info, err, errlen);
		if (rc == DB_OK && cr.damage)
			info->damage = strdup(cr.damage);
		capture_run_release(&cr);
		return rc;
	}
	rc = foreign_read(path, &fr, err, errlen);
	if (rc == FOREIGN_NOT_MINE) {
		snprintf(err, errlen, "%s", rerr);
		return DB_ERR_INPUT;
	}
	if (rc)
		return rc == FOREIGN_ERR_WORK ? DB_ERR_WORK : DB_ERR_INPUT;
	rc = db_load_import(db, path, &fr, label, info, err, errlen);
	db_import_release(&fr);
	return rc;
}

/* Loads each file; an input error skips to the next file, a SQLite failure stops. */
static int analyze_load_files(struct db *db, const char *label, char **paths, int n)
{
	struct db_load_info info;
	char err[DB_ERRLEN];
	char **labels = calloc((size_t)n, sizeof(char *));
	int status = 0, n_labels = 0;
	int i, j, rc;

	for (i = 0; i < n; i++) {
		rc = analyze_load_one(db, paths[i], label, &info, err, sizeof(err));
		if (rc == DB_OK || rc == DB_ALREADY_LOADED) {
			analyze_print_load_info(paths[i], rc, &info);
			for (j = 0; labels && info.label && j < n_labels &&
				    strcmp(labels[j], info.label); j++)
				;
			if (labels && info.label && j == n_labels)
				labels[n_labels++] = strdup(info.label);
			db_load_info_release(&info);
			continue;
		}
		analyze_fail("load", rc, err);
		if (rc != DB_ERR_INPUT) {
			status = analyze_exit_code(rc);
			goto cleanup;
		}
		status = 2;
	}
	for (j = 0; j < n_labels; j++)
		if (labels[j])
			analyze_warn_missing(db, labels[j]);
cleanup:
	for (j = 0; j < n_labels; j++)
		free(labels[j]);
	free(labels);
	return status;
}

static int analyze_load(int argc, char **argv)
{
	struct analyze_options o;
	char err[DB_ERRLEN];
	struct db *db = NULL;
	long runs = -1;
	int rc, existed;

	if ((rc = analyze_options_parse("load", &o, argc, argv)) != CLI_CONTINUE)
		return rc;
	existed = access(o.db_path, F_OK) == 0;
	rc = db_open(o.db_path, DB_WRITE, &db, err, sizeof(err));
	if (rc) {
		if (!existed)
			unlink(o.db_path);
		return analyze_fail("load", rc, err);
	}
	rc = analyze_load_files(db, o.label, o.args, o.n_args);
	/* a database this load created and could put nothing into goes */
	if (rc && !existed && db_count_runs(db, &runs, err, sizeof(err)) == DB_OK && runs == 0) {
		db_close(db);
		unlink(o.db_path);
		return rc;
	}
	db_close(db);
	return rc;
}

/* The Markdown of the LaTeX output, gathered in memory (--format latex). */
static char *latex_buf;
static size_t latex_len;

/* Where a report or comparison prints: dest, or for --format latex a
 * memory stream of its Markdown that latex_end converts. NULL: no memory. */
static FILE *latex_begin(const struct analyze_options *o, FILE *dest)
{
	return o->latex ? open_memstream(&latex_buf, &latex_len) : dest;
}

/* Ends what latex_begin started: the Markdown as LaTeX on dest. Returns
 * 0, or -1 when it cannot be written. */
static int latex_end(const struct analyze_options *o, FILE *out, FILE *dest)
{
	int rc;

	if (!o->latex)
		return 0;
	rc = fclose(out) == 0 ? latex_from_markdown(dest, latex_buf, latex_len) : -1;
	free(latex_buf);
	latex_buf = NULL;
	return rc;
}

static int analyze_fail_write(char *err, size_t errlen)
{
	snprintf(err, errlen, "cannot write output");
	return DB_ERR_WORK;
}

/* Where report and export write: stdout, or with --out a temporary file
 * beside FILE (its name in tmp) that dest_end renames into place. NULL,
 * with err set, when it cannot be created. */
static FILE *dest_begin(const struct analyze_options *o, char *tmp, size_t tmplen, char *err,
			size_t errlen)
{
	FILE *f;

	if (!o->out_path)
		return stdout;
	f = tmpfile_create(o->out_path, tmp, tmplen);
	if (!f)
		snprintf(err, errlen, "cannot write '%s': %s", o->out_path, strerror(errno));
	return f;
}

/* Ends what dest_begin started: on success (rc 0) FILE takes the output
 * whole; else the temporary file goes and an earlier FILE stays. Returns
 * rc, or the failure to write FILE. */
static int dest_end(const struct analyze_options *o, FILE *dest, const char *tmp, int rc,
		    char *err, size_t errlen)
{
	if (!o->out_path || !dest)
		return rc;
	if (rc) {
		fclose(dest);
		unlink(tmp);
		return rc;
	}
	if (tmpfile_commit(dest, tmp, o->out_path) != 0) {
		snprintf(err, errlen, "cannot write '%s': %s", o->out_path, strerror(errno));
		return DB_ERR_WORK;
	}
	return 0;
}

static int analyze_report(int argc, char **argv)
{
	struct analyze_options o;
	char err[DB_ERRLEN], tmp[PATH_MAX];
	struct db *db = NULL;
	FILE *dest = NULL;
	int rc;

	if ((rc = analyze_options_parse("report", &o, argc, argv)) != CLI_CONTINUE)
		return rc;
	efficiency_override(o.has_energy ? &o.energy : NULL, o.has_price ? &o.price : NULL);
	report_client_limit(o.client_limit);
	rc = db_open(o.db_path, DB_READ, &db, err, sizeof(err));
	if (!rc && !(dest = dest_begin(&o, tmp, sizeof(tmp), err, sizeof(err))))
		rc = DB_ERR_WORK;
	if (!rc && o.html) {
		rc = html_report(db, o.run, o.has_slo ? &o.slo : NULL, o.intervals, dest, err,
				 sizeof(err));
	} else if (!rc) {
		FILE *out = latex_begin(&o, dest);

		rc = out ? report_print(db, o.run, o.fmt, o.has_slo ? &o.slo : NULL, o.intervals,
					out, err, sizeof(err)) : DB_ERR_WORK;
		if (!out)
			snprintf(err, sizeof(err), "out of memory");
		else if (latex_end(&o, out, dest) != 0 && !rc)
			rc = analyze_fail_write(err, sizeof(err));
	}
	rc = dest_end(&o, dest, tmp, rc, err, sizeof(err));
	db_close(db);
	return rc ? analyze_fail("report", rc, err) : 0;
}

static int analyze_export(int argc, char **argv)
{
	struct analyze_options o;
	char err[DB_ERRLEN], tmp[PATH_MAX];
	struct db *db = NULL;
	FILE *dest = NULL;
	int rc;

	if ((rc = analyze_options_parse("export", &o, argc, argv)) != CLI_CONTINUE)
		return rc;
	rc = db_open(o.db_path, DB_READ, &db, err, sizeof(err));
	if (!rc && !(dest = dest_begin(&o, tmp, sizeof(tmp), err, sizeof(err))))
		rc = DB_ERR_WORK;
	if (!rc)
		rc = report_export(db, o.run, o.jsonl, o.gaps, dest, err, sizeof(err));
	rc = dest_end(&o, dest, tmp, rc, err, sizeof(err));
	db_close(db);
	return rc ? analyze_fail("export", rc, err) : 0;
}

static void analyze_print_plot_files(const char *dir, const struct plot_output *po)
{
	size_t i;

	for (i = 0; i < po->n_files; i++)
		printf("%s/%s\n", dir, po->files[i]);
	if (po->gnuplot_missing)
		fprintf(stderr, "tracebench analyze plot: note: gnuplot not found on PATH; "
			"to render: cd '%s' && gnuplot NAME.gp\n", dir);
}

static int analyze_plot(int argc, char **argv)
{
	struct analyze_options o;
	struct plot_output po;
	char err[DB_ERRLEN];
	struct db *db = NULL;
	int rc;

	if ((rc = analyze_options_parse("plot", &o, argc, argv)) != CLI_CONTINUE)
		return rc;
	efficiency_override(o.has_energy ? &o.energy : NULL, o.has_price ? &o.price : NULL);
	rc = db_open(o.db_path, DB_READ, &db, err, sizeof(err));
	if (!rc) {
		struct plot_options po_opt = { o.plot_fmt, o.force, (int)o.gpus };

		rc = plot_write(db, o.runs, o.n_runs, o.dir, &po_opt, &po, err, sizeof(err));
	}
	db_close(db);
	if (rc)
		return analyze_fail("plot", rc, err);
	analyze_print_plot_files(o.dir, &po);
	return 0;
}

static int analyze_compare(int argc, char **argv)
{
	struct analyze_options o;
	struct compare_opts co = { VERDICT_MIN_EFFECT, -1, VERDICT_RESAMPLES, VERDICT_SEED };
	struct compare_result res = { 0 };
	const char *before, *after;
	char err[DB_ERRLEN], msg[256];
	struct db *db = NULL;
	size_t i, n_bad, bad[8];
	int rc;

	if ((rc = analyze_options_parse("compare", &o, argc, argv)) != CLI_CONTINUE)
		return rc;
	efficiency_override(o.has_energy ? &o.energy : NULL, o.has_price ? &o.price : NULL);
	co.min_effect = o.min_effect;
	co.noise_pct = o.noise_pct;
	before = o.args[0];
	after = o.args[1];
	rc = db_open(o.db_path, DB_READ, &db, err, sizeof(err));
	if (!rc)
		rc = compare_runs(db, before, after, &co, &res, err, sizeof(err));
	db_close(db);
	if (rc)
		return analyze_fail("compare", rc, err);
	/* Warnings once: in the text and Markdown output, else on stderr. */
	for (i = 0; (o.fmt == TABLE_CSV || o.fmt == TABLE_JSON) && i < res.n_warnings; i++)
		analyze_say("tracebench analyze compare: warning: %s", res.warnings[i]);
	{
		FILE *out = latex_begin(&o, stdout);

		if (out)
			compare_print(out, o.fmt, before, after, &res);
		if (!out || latex_end(&o, out, stdout) != 0) {
			compare_result_release(&res);
			return analyze_fail("compare", DB_ERR_WORK, "cannot write output");
		}
	}
	n_bad = o.fail_pct >= 0 ? compare_regressions(&res, o.fail_pct, o.gate_client, bad, 8) : 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		compare_result_release(&res);
		return analyze_fail("compare", DB_ERR_WORK, "cannot write output");
	}
	for (i = 0; i < n_bad && i < 8; i++) {
		compare_describe(&res.rows[bad[i]], msg, sizeof(msg));
		analyze_say("tracebench analyze compare: regression: %s > %g%%", msg, o.fail_pct);
	}
	if (n_bad > 8)
		fprintf(stderr, "tracebench analyze compare: ... and %zu more regressions\n",
			n_bad - 8);
	/* A level that worked before and not at all after has no verdict, but
	 * fails a gate all the same. */
	for (i = 0; o.fail_pct >= 0 && i < res.n_levels; i++) {
		const struct compare_level *lv = &res.levels[i];

		if (!lv->compared && lv->ok_before && !lv->ok_after) {
			char name[32];

			analyze_say("tracebench analyze compare: regression: no successful "
				    "request at %s in '%s' (%zu failed: %s)",
				    load_name(lv->level, name, sizeof(name)), after,
				    lv->failed_after, lv->errors_after);
			n_bad++;
		}
	}
	compare_result_release(&res);
	return n_bad ? 1 : 0;
}

static int analyze_runs(int argc, char **argv)
{
	struct analyze_options o;
	char err[DB_ERRLEN];
	struct db *db = NULL;
	int rc;

	if ((rc = analyze_options_parse("runs", &o, argc, argv)) != CLI_CONTINUE)
		return rc;
	rc = db_open(o.db_path, DB_READ, &db, err, sizeof(err));
	if (!rc)
		rc = report_print_runs(db, o.fmt, o.tags, o.n_tags, stdout, err, sizeof(err));
	db_close(db);
	return rc ? analyze_fail("runs", rc, err) : 0;
}

/* analyze diff: a line per difference on stdout; exit 0 whether or not. */
static int analyze_diff(int argc, char **argv)
{
	struct analyze_options o;
	char err[DB_ERRLEN];
	struct db_run *a = NULL, *b = NULL;
	size_t na = 0, nb = 0, i;
	struct db *db = NULL;
	struct diff d = { 0 };
	int rc;

	if ((rc = analyze_options_parse("diff", &o, argc, argv)) != CLI_CONTINUE)
		return rc;
	rc = db_open(o.db_path, DB_READ, &db, err, sizeof(err));
	if (!rc)
		rc = db_runs(db, o.args[0], &a, &na, err, sizeof(err));
	if (!rc)
		rc = db_runs(db, o.args[1], &b, &nb, err, sizeof(err));
	if (!rc && diff_runs(a, b, DIFF_ALL, &d) < 0) {
		errmsg_set(err, sizeof(err), "out of memory");
		rc = DB_ERR_WORK;
	}
	for (i = 0; !rc && i < d.n; i++)
		printf("%s\n", d.lines[i]);
	if (!rc && d.more)
		printf("... and %zu more\n", d.more);
	diff_release(&d);
	db_runs_free(a, na);
	db_runs_free(b, nb);
	db_close(db);
	return rc ? analyze_fail("diff", rc, err) : 0;
}

static int analyze_rm(int argc, char **argv)
{
	struct analyze_options o;
	char err[DB_ERRLEN];
	struct db *db = NULL;
	int i, rc, files = 0, status = 0;

	if ((rc = analyze_options_parse("rm", &o, argc, argv)) != CLI_CONTINUE)
		return rc;
	/* DB_WRITE would create a missing file: check it exists and is ours first. */
	rc = db_open(o.db_path, DB_READ, &db, err, sizeof(err));
	db_close(db);
	db = NULL;
	if (!rc)
		rc = db_open(o.db_path, DB_WRITE, &db, err, sizeof(err));
	if (rc)
		return analyze_fail("rm", rc, err);
	for (i = 0; i < o.n_args; i++) {
		rc = db_remove_run(db, o.args[i], &files, err, sizeof(err));
		if (rc) {
			status = analyze_fail("rm", rc, err);
			if (rc != DB_ERR_INPUT)
				break;
			continue;
		}
		fprintf(stderr, "removed run '%s' (%d results file%s)\n", o.args[i], files,
			files == 1 ? "" : "s");
	}
	db_close(db);
	return status;
}

/*
 * A report reads each level into arrays of tens of megabytes (a million
 * requests' inter-token gaps) and frees them before the next level. glibc
 * serves such blocks with mmap and unmaps them on free, so every level
 * faults its memory in afresh: half of the time of a 1M-request report.
 * Keep freed memory in the heap instead (tuning only; failure is harmless).
 * Under a limit on address space (ulimit -v) the heap's 256 MiB of
 * padding alone would pass it, and every command would fail at its first
 * allocation: the tuning is then left out.
 */
static void analyze_tune_malloc(void)
{
#ifdef __GLIBC__
	struct rlimit rl;

	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		return;
	mallopt(M_MMAP_THRESHOLD, 512 * 1024 * 1024);
	mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);
	mallopt(M_TOP_PAD, 256 * 1024 * 1024);
#endif
}

static int analyze_plan(int argc, char **argv)
{
	struct analyze_options o;
	struct compare_opts co = { VERDICT_MIN_EFFECT, -1, VERDICT_RESAMPLES, VERDICT_SEED };
	struct compare_result res = { 0 };
	struct plan_opts po;
	char err[DB_ERRLEN];
	struct db *db = NULL;
	size_t i, shown;
	int rc;

	if ((rc = analyze_options_parse("plan", &o, argc, argv)) != CLI_CONTINUE)
		return rc;
	co.min_effect = o.min_effect;
	co.noise_pct = o.noise_pct;
	po = (struct plan_opts){ o.effect_pct, o.power_pct, o.metric };
	rc = db_open(o.db_path, DB_READ, &db, err, sizeof(err));
	if (!rc)
		rc = compare_runs(db, o.args[0], o.args[1], &co, &res, err, sizeof(err));
	db_close(db);
	if (rc)
		return analyze_fail("plan", rc, err);
	for (i = 0; i < res.n_warnings; i++)
		analyze_say("tracebench analyze plan: warning: %s", res.warnings[i]);
	shown = plan_print(stdout, o.fmt, o.args[0], o.args[1], &res, &po);
	compare_result_release(&res);
	if (fflush(stdout) != 0 || ferror(stdout))
		return analyze_fail("plan", DB_ERR_WORK, "cannot write output");
	if (!shown) {
		fprintf(stderr, "tracebench analyze plan: no level of '%s' and '%s' has %s\n",
			o.args[0], o.args[1], o.metric ? o.metric : "a number to judge");
		return 2;
	}
	return 0;
}

int analyze_main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(int argc, char **argv);
	} subs[] = {
		{ "load", analyze_load },
		{ "report", analyze_report },
		{ "export", analyze_export },
		{ "plot", analyze_plot },
		{ "compare", analyze_compare },
		{ "plan", analyze_plan },
		{ "diff", analyze_diff },
		{ "runs", analyze_runs },
		{ "rm", analyze_rm },
	};
	size_t i;

	if (argc < 2) {
		fprintf(stderr, "tracebench analyze: no subcommand (load, report, export, "
			"compare, diff, plan, runs, rm, plot); "
			"see 'tracebench analyze --help'\n");
		return 2;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		analyze_options_usage(stdout);
		return 0;
	}
	analyze_tune_malloc();
	for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		if (strcmp(argv[1], subs[i].name) == 0)
			return subs[i].run(argc - 1, argv + 1);
	fprintf(stderr, "tracebench analyze: '%s' is not a subcommand; "
		"see 'tracebench analyze --help'\n", argv[1]);
	return 2;
}
