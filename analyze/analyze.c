/*
 * analyze.c - `tracebench analyze load|report|export|plot`: option parsing,
 * help texts and exit codes; the work is in db.c, report.c and plot.c.
 *
 * Results files go into one SQLite database (load); everything else reads
 * it. Exit status: 0 success, 1 the work failed (a SQLite or write error,
 * gnuplot failing), 2 a usage or input error (missing or malformed file,
 * unknown run, an output that cannot be created or would replace a file
 * without --force). Messages are one line on stderr; data goes to stdout.
 */
#include "analyze/analyze.h"

#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "analyze/capture.h"
#include "analyze/compare.h"
#include "analyze/db.h"
#include "analyze/foreign.h"
#include "analyze/plot.h"
#include "analyze/report.h"
#include "analyze/shards.h"
#include "lib/cli.h"
#include "lib/metric.h"
#include "lib/table.h"
#include "lib/tracefile.h"

/* Most --run options plot accepts. */
#define ANALYZE_MAX_RUNS 64

static const char analyze_usage_text[] =
	"usage: tracebench analyze <subcommand> --db FILE [options]\n"
	"\n"
	"Keep results files in a SQLite database and report on them.\n"
	"\n"
	"subcommands:\n"
	"  load      add results files (from 'tracebench replay') to the database\n"
	"  report    print the sweep table of each run (text, markdown, csv, json)\n"
	"  export    write one CSV row per request\n"
	"  runs      list the runs in the database\n"
	"  compare   before/after: changes per level and metric, with a verdict\n"
	"  rm        remove a run from the database\n"
	"  plot      write gnuplot scripts and data, render them (png, svg, pdf)\n"
	"\n"
	"options:\n"
	"  -h, --help   show this help\n"
	"\n"
	"Run 'tracebench analyze <subcommand> --help' for its options.\n"
	"\n"
	"examples:\n"
	"  tracebench analyze load --db bench.db before.jsonl.gz after.jsonl.gz\n"
	"  tracebench analyze report --db bench.db --format markdown > report.md\n"
	"  tracebench analyze compare --db bench.db baseline tuned\n"
	"  tracebench analyze plot --db bench.db --out plots\n";

static const char compare_usage_text[] =
	"usage: tracebench analyze compare --db FILE [--format FMT] [--min-effect PCT]\n"
	"                                  [--fail-on-regression PCT] BEFORE AFTER\n"
	"\n"
	"Compare two runs (by label) level by level: the P50 and P99 of TTFT, TTFA,\n"
	"TPOT, ITL and E2E, and aggregate tok/s (tokens / wall time), before and\n"
	"after, the change with its 95% interval, and a verdict per number: 'same'\n"
	"(the interval lies inside +-min-effect), 'faster' or 'slower' (beyond it),\n"
	"'inconclusive' (it straddles the threshold: run more requests or repeats),\n"
	"or 'n/a' (too few requests: P50 needs 5 a side, P99 200). Repeats (replay\n"
	"--repeat) are the unit of noise; requests are paired by trace id when both\n"
	"runs replayed the same ones. Seeded: the same database gives the same\n"
	"verdicts. Warns when the runs replayed different traces or used different\n"
	"parameters.\n"
	"\n"
	"options:\n"
	"  -d, --db FILE                  the database to read\n"
	"  -f, --format FMT               text (default), markdown, csv or json\n"
	"  -m, --min-effect PCT           smallest change that matters, in percent\n"
	"                                 (default 3); smaller ones are 'same'\n"
	"  -F, --fail-on-regression PCT   exit 1 when a verdict is 'slower' by more\n"
	"                                 than PCT percent, one line per regression\n"
	"                                 on stderr. Reliable with --repeat 3 or more\n"
	"                                 on both sides (run-to-run noise measured);\n"
	"                                 with one run a side it leans on --min-effect\n"
	"  -h, --help                     show this help\n"
	"\n"
	"exit status: 0 done (no regression), 1 a regression beyond PCT or the work\n"
	"failed, 2 usage or input error (an unknown run, no level in common)\n"
	"\n"
	"examples:\n"
	"  tracebench analyze compare --db bench.db baseline tuned\n"
	"  tracebench analyze compare --db ci.db --fail-on-regression 5 main pr-123\n"
	"  tracebench analyze compare --db ab.db --min-effect 2 --format markdown a b\n";

static const char runs_usage_text[] =
	"usage: tracebench analyze runs --db FILE [--format FMT]\n"
	"\n"
	"List the runs: label, created, endpoint, model, trace digest, mode,\n"
	"concurrency levels, requests (without warm-ups) and errors.\n"
	"\n"
	"options:\n"
	"  -d, --db FILE      the database to read\n"
	"  -f, --format FMT   text (default), markdown, csv or json\n"
	"  -h, --help         show this help\n"
	"\n"
	"examples:\n"
	"  tracebench analyze runs --db bench.db\n";

static const char rm_usage_text[] =
	"usage: tracebench analyze rm --db FILE RUN...\n"
	"\n"
	"Remove the runs labelled RUN (every results file loaded under the label)\n"
	"and their requests from the database.\n"
	"\n"
	"options:\n"
	"  -d, --db FILE      the database to change\n"
	"  -h, --help         show this help\n"
	"\n"
	"examples:\n"
	"  tracebench analyze rm --db bench.db run-20261130-120000\n";

static const char load_usage_text[] =
	"usage: tracebench analyze load --db FILE [--label L] RESULTS...\n"
	"\n"
	"Add results files to the database (created if missing), one transaction\n"
	"per file. A run already in the database (same run_id) is skipped. The\n"
	"complete records of a truncated file are loaded, with a warning.\n"
	"Files loaded under one label are reported as one run (shards of a sweep).\n"
	"\n"
	"RESULTS may also be a 'tracebench record proxy' capture (what clients saw,\n"
	"as one open-loop level, inference requests only), or another tool's\n"
	"per-request results: 'vllm bench serve --save-result --save-detailed' JSON\n"
	"or 'sglang bench_serving --output-details' JSON Lines, each run one level\n"
	"(its max concurrency, 0 when uncapped); what such a file lacks is noted in\n"
	"the report, not invented (README, Metrics).\n"
	"\n"
	"options:\n"
	"  -d, --db FILE      the database (SQLite) to add to\n"
	"  -l, --label L      store the runs as L instead of their own label\n"
	"  -h, --help         show this help\n"
	"\n"
	"examples:\n"
	"  tracebench analyze load --db bench.db results.jsonl.gz\n"
	"  tracebench analyze load --db bench.db --label after-tuning r.jsonl.gz\n"
	"  tracebench analyze load --db bench.db --label production capture.jsonl.gz\n"
	"  tracebench analyze load --db bench.db vllm-infqps-llama-20250101-120000.json\n";

static const char report_usage_text[] =
	"usage: tracebench analyze report --db FILE [--run LABEL] [--format FMT] [--slo LIST]\n"
	"\n"
	"Print the sweep table of each run: one row per concurrency level with the\n"
	"seed benchmark's columns first (C, Agg tok/s, Per-req tok/s, Avg TTFT,\n"
	"Tokens, Wall(s), Ok), then TTFT P50/P95/P99, errors and scaling efficiency.\n"
	"Text and markdown add per run a heading, the warm-up (cold-start) TTFT,\n"
	"errors by class and a latency table: mean, P50, P90, P95, P99 and max of\n"
	"TTFT, TTFA, TPOT, ITL and E2E per level. csv and json print one flat row\n"
	"per run and level with all of these, the run in the first column.\n"
	"\n"
	"options:\n"
	"  -d, --db FILE        the database to read\n"
	"  -r, --run LABEL      only the run LABEL\n"
	"  -f, --format FMT     text (default), markdown, csv or json\n"
	"  -s, --slo LIST       goodput: share of requests within every limit, and\n"
	"                       good requests/s; LIST of ttft|ttfa|tpot|e2e=LIMIT\n"
	"                       with LIMIT in us, ms (default) or s\n"
	"  -h, --help           show this help\n"
	"\n"
	"examples:\n"
	"  tracebench analyze report --db bench.db\n"
	"  tracebench analyze report --db bench.db --run baseline --format markdown\n"
	"  tracebench analyze report --db bench.db --slo ttft=500ms,tpot=50ms,e2e=10s\n";

static const char export_usage_text[] =
	"usage: tracebench analyze export --db FILE [--run LABEL] [--format csv]\n"
	"\n"
	"Write one CSV row per request, warm-ups included (warmup=1), with a\n"
	"header row. Columns: run, concurrency, seq, trace_id, warmup, status,\n"
	"error, ttft_ms, ttfa_ms, e2e_ms, tpot_ms, input_tokens, output_tokens,\n"
	"tokens_estimated, run_id, error_detail. Empty fields are NULL.\n"
	"\n"
	"options:\n"
	"  -d, --db FILE        the database to read\n"
	"  -r, --run LABEL      only the run LABEL\n"
	"  -f, --format csv     the output format (csv, the only one)\n"
	"  -h, --help           show this help\n"
	"\n"
	"examples:\n"
	"  tracebench analyze export --db bench.db --format csv > requests.csv\n"
	"  tracebench analyze export --db bench.db --run baseline > baseline.csv\n";

static const char plot_usage_text[] =
	"usage: tracebench analyze plot --db FILE [--run LABEL]... --out DIR [--format FMT]\n"
	"\n"
	"Write a gnuplot script NAME.gp with its data NAME.dat for each plot, and\n"
	"render NAME.png (or .svg, .pdf) when gnuplot is installed; one curve (or\n"
	"set of curves) per run, so several runs overlay. Prints the files written.\n"
	"  scaling            aggregate and per-request tok/s by concurrency\n"
	"  ttft_percentiles   TTFT P50, P95 and P99 by concurrency\n"
	"  latency_cdf        CDF of TTFT and of E2E per run\n"
	"  ttft_timeline      TTFT of each request over the run (cold start, queueing)\n"
	"\n"
	"options:\n"
	"  -d, --db FILE      the database to read\n"
	"  -r, --run LABEL    plot the run LABEL (repeatable; default: all runs)\n"
	"  -o, --out DIR      the output directory (created if missing)\n"
	"  -f, --format FMT   png (default), svg or pdf\n"
	"      --force        replace the files of an earlier plot in DIR\n"
	"  -h, --help         show this help\n"
	"\n"
	"examples:\n"
	"  tracebench analyze plot --db bench.db --out plots\n"
	"  tracebench analyze plot --db bench.db --run before --run after --out plots\n"
	"  tracebench analyze plot --db bench.db --out plots --format svg\n"
	"  tracebench analyze plot --db bench.db --out plots --force   # plot again\n"
	"  cd plots && gnuplot scaling.gp      # re-render after editing the script\n";

/* Maps a DB_ERR_* code to the exit status. */
static int analyze_exit_code(int rc)
{
	if (rc == DB_OK || rc == DB_ALREADY_LOADED)
		return 0;
	return rc == DB_ERR_INPUT ? 2 : 1;
}

/* Prints "tracebench analyze SUB: MSG" and returns the exit status for rc. */
static int analyze_fail(const char *sub, int rc, const char *msg)
{
	fprintf(stderr, "tracebench analyze %s: %s\n", sub, msg);
	return analyze_exit_code(rc);
}

/* One line for a getopt_long error ('?' or ':'); returns 2. */
static int analyze_bad_option(const char *sub, int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		fprintf(stderr, "tracebench analyze %s: option '%s' needs a value\n", sub, arg);
	else if (optopt)
		fprintf(stderr, "tracebench analyze %s: unknown option '-%c'; see "
			"'tracebench analyze %s --help'\n", sub, optopt, sub);
	else
		fprintf(stderr, "tracebench analyze %s: unknown option '%s'; see "
			"'tracebench analyze %s --help'\n", sub, arg, sub);
	return 2;
}

static int analyze_usage_error(const char *sub, const char *msg)
{
	fprintf(stderr, "tracebench analyze %s: %s; see 'tracebench analyze %s --help'\n",
		sub, msg, sub);
	return 2;
}

static void analyze_print_load_info(const char *path, int rc, const struct db_load_info *info)
{
	if (info->damage)
		fprintf(stderr, "tracebench analyze load: warning: '%s': %s\n", path, info->damage);
	if (rc == DB_ALREADY_LOADED)
		fprintf(stderr, "tracebench analyze load: '%s': run '%s' already loaded (run_id %s); "
			"nothing to do\n", path, info->label, info->run_id);
	else
		fprintf(stderr, "loaded '%s': run '%s', %zu request%s\n", path, info->label,
			info->requests, info->requests == 1 ? "" : "s");
}

/* Warns when the run 'label' is shards with some not loaded (yet). */
static void analyze_warn_missing(struct db *db, const char *label)
{
	struct shards_view v;
	char err[DB_ERRLEN];

	if (shards_view(db, label, NULL, &v, err, sizeof(err)) == DB_OK && v.n_missing)
		fprintf(stderr, "tracebench analyze load: warning: run '%s' lacks shard%s %s "
			"(%zu of %ld loaded)\n", label, v.n_missing == 1 ? "" : "s", v.missing,
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
	struct tracefile_reader *rd = tracefile_reader_open(path, NULL, rerr);
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
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "label", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db_path = NULL, *label = NULL;
	char err[DB_ERRLEN];
	struct db *db = NULL;
	long runs = -1;
	int c, rc, existed;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:l:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': db_path = optarg; break;
		case 'l': label = optarg; break;
		case 'h': fputs(load_usage_text, stdout); return 0;
		default: return analyze_bad_option("load", c, argv);
		}
	}
	if (!db_path)
		return analyze_usage_error("load", "no database; give --db FILE");
	if (label && !*label)
		return analyze_usage_error("load", "empty --label");
	if (optind >= argc)
		return analyze_usage_error("load", "no results files given");
	existed = access(db_path, F_OK) == 0;
	rc = db_open(db_path, DB_WRITE, &db, err, sizeof(err));
	if (rc) {
		if (!existed)
			unlink(db_path);
		return analyze_fail("load", rc, err);
	}
	rc = analyze_load_files(db, label, argv + optind, argc - optind);
	/* a database this load created and could put nothing into goes */
	if (rc && !existed && db_count_runs(db, &runs, err, sizeof(err)) == DB_OK && runs == 0) {
		db_close(db);
		unlink(db_path);
		return rc;
	}
	db_close(db);
	return rc;
}

/* Options shared by report and export. */
struct analyze_read_opts {
	const char *db_path;
	const char *run;
	enum table_format fmt;
	const char *slo;     /* report only */
};

/* Parses --db, --run, --format for report and export; returns -1 to go on,
 * else the exit status (help printed, or a usage error). */
static int analyze_parse_read_opts(const char *sub, const char *usage, int argc, char **argv,
				   struct analyze_read_opts *o)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "run", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' },
		{ "slo", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char msg[256];
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:r:f:s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o->db_path = optarg; break;
		case 'r': o->run = optarg; break;
		case 's': o->slo = optarg; break;
		case 'f':
			if (table_format_parse(optarg, &o->fmt) != 0) {
				snprintf(msg, sizeof(msg), "unknown format '%s' "
					 "(text, markdown, csv or json)", optarg);
				return analyze_usage_error(sub, msg);
			}
			break;
		case 'h': fputs(usage, stdout); return 0;
		default: return analyze_bad_option(sub, c, argv);
		}
	}
	if (optind < argc) {
		snprintf(msg, sizeof(msg), "unexpected argument '%s'", argv[optind]);
		return analyze_usage_error(sub, msg);
	}
	if (!o->db_path)
		return analyze_usage_error(sub, "no database; give --db FILE");
	return -1;
}

static int analyze_report(int argc, char **argv)
{
	struct analyze_read_opts o = { NULL, NULL, TABLE_TEXT, NULL };
	struct metric_slo slo;
	char err[DB_ERRLEN];
	struct db *db = NULL;
	int rc;

	rc = analyze_parse_read_opts("report", report_usage_text, argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (o.slo && metric_slo_parse(o.slo, &slo, err, sizeof(err)) != 0)
		return analyze_usage_error("report", err);
	rc = db_open(o.db_path, DB_READ, &db, err, sizeof(err));
	if (!rc)
		rc = report_print(db, o.run, o.fmt, o.slo ? &slo : NULL, stdout, err, sizeof(err));
	db_close(db);
	return rc ? analyze_fail("report", rc, err) : 0;
}

static int analyze_export(int argc, char **argv)
{
	struct analyze_read_opts o = { NULL, NULL, TABLE_CSV, NULL };
	char err[DB_ERRLEN];
	struct db *db = NULL;
	int rc;

	rc = analyze_parse_read_opts("export", export_usage_text, argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (o.fmt != TABLE_CSV)
		return analyze_usage_error("export", "export writes csv only (--format csv)");
	if (o.slo)
		return analyze_usage_error("export", "--slo is an option of report");
	rc = db_open(o.db_path, DB_READ, &db, err, sizeof(err));
	if (!rc)
		rc = report_export_csv(db, o.run, stdout, err, sizeof(err));
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
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "run", required_argument, NULL, 'r' },
		{ "out", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "force", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *runs[ANALYZE_MAX_RUNS];
	const char *db_path = NULL, *dir = NULL;
	int force = 0;
	enum plot_format fmt = PLOT_PNG;
	struct plot_output po;
	char msg[256];
	char err[DB_ERRLEN];
	struct db *db = NULL;
	size_t n_runs = 0;
	int c, rc;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:r:o:f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': db_path = optarg; break;
		case 'o': dir = optarg; break;
		case 'f':
			if (plot_format_parse(optarg, &fmt) != 0) {
				snprintf(msg, sizeof(msg), "unknown format '%s' (png, svg or pdf)",
					 optarg);
				return analyze_usage_error("plot", msg);
			}
			break;
		case 'r':
			if (n_runs == ANALYZE_MAX_RUNS)
				return analyze_usage_error("plot", "too many --run options");
			runs[n_runs++] = optarg;
			break;
		case 'F': force = 1; break;
		case 'h': fputs(plot_usage_text, stdout); return 0;
		default: return analyze_bad_option("plot", c, argv);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tracebench analyze plot: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!db_path)
		return analyze_usage_error("plot", "no database; give --db FILE");
	if (!dir || !*dir)
		return analyze_usage_error("plot", "no output directory; give --out DIR");
	rc = db_open(db_path, DB_READ, &db, err, sizeof(err));
	if (!rc)
		rc = plot_write(db, runs, n_runs, dir, fmt, force, &po, err, sizeof(err));
	db_close(db);
	if (rc)
		return analyze_fail("plot", rc, err);
	analyze_print_plot_files(dir, &po);
	return 0;
}

static int analyze_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "min-effect", required_argument, NULL, 'm' },
		{ "fail-on-regression", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum table_format fmt = TABLE_TEXT;
	struct compare_opts co = { VERDICT_MIN_EFFECT, VERDICT_RESAMPLES, VERDICT_SEED };
	struct compare_result res = { 0 };
	const char *db_path = NULL;
	double fail_pct = -1;
	char err[DB_ERRLEN], msg[256];
	struct db *db = NULL;
	size_t i, n_bad, bad[8];
	int c, rc;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:f:m:F:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': db_path = optarg; break;
		case 'f':
			if (table_format_parse(optarg, &fmt) != 0) {
				snprintf(msg, sizeof(msg), "unknown format '%s' "
					 "(text, markdown, csv or json)", optarg);
				return analyze_usage_error("compare", msg);
			}
			break;
		case 'm':
			if (cli_parse_double(optarg, 0, 100, &co.min_effect) != 0) {
				snprintf(msg, sizeof(msg), "bad --min-effect '%s' "
					 "(a percentage from 0 to 100, e.g. 3)", optarg);
				return analyze_usage_error("compare", msg);
			}
			break;
		case 'F':
			if (cli_parse_double(optarg, 0, 1e9, &fail_pct) != 0) {
				snprintf(msg, sizeof(msg), "bad --fail-on-regression '%s' "
					 "(a percentage, e.g. 5)", optarg);
				return analyze_usage_error("compare", msg);
			}
			break;
		case 'h': fputs(compare_usage_text, stdout); return 0;
		default: return analyze_bad_option("compare", c, argv);
		}
	}
	if (!db_path)
		return analyze_usage_error("compare", "no database; give --db FILE");
	if (argc - optind != 2)
		return analyze_usage_error("compare", "give two runs: BEFORE AFTER");
	rc = db_open(db_path, DB_READ, &db, err, sizeof(err));
	if (!rc)
		rc = compare_runs(db, argv[optind], argv[optind + 1], &co, &res, err, sizeof(err));
	db_close(db);
	if (rc)
		return analyze_fail("compare", rc, err);
	/* Warnings once: in the text and Markdown output, else on stderr. */
	for (i = 0; (fmt == TABLE_CSV || fmt == TABLE_JSON) && i < res.n_warnings; i++)
		fprintf(stderr, "tracebench analyze compare: warning: %s\n", res.warnings[i]);
	compare_print(stdout, fmt, argv[optind], argv[optind + 1], &res);
	n_bad = fail_pct >= 0 ? compare_regressions(&res, fail_pct, bad, 8) : 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		compare_result_release(&res);
		return analyze_fail("compare", DB_ERR_WORK, "cannot write output");
	}
	for (i = 0; i < n_bad && i < 8; i++) {
		compare_describe(&res.rows[bad[i]], msg, sizeof(msg));
		fprintf(stderr, "tracebench analyze compare: regression: %s > %g%%\n", msg,
			fail_pct);
	}
	if (n_bad > 8)
		fprintf(stderr, "tracebench analyze compare: ... and %zu more regressions\n",
			n_bad - 8);
	/* A level that worked before and not at all after has no verdict, but
	 * fails a gate all the same. */
	for (i = 0; fail_pct >= 0 && i < res.n_levels; i++) {
		const struct compare_level *lv = &res.levels[i];

		if (!lv->compared && lv->ok_before && !lv->ok_after) {
			fprintf(stderr, "tracebench analyze compare: regression: no successful "
				"request at C=%d in '%s' (%zu failed)\n", lv->level,
				argv[optind + 1], lv->failed_after);
			n_bad++;
		}
	}
	compare_result_release(&res);
	return n_bad ? 1 : 0;
}

static int analyze_runs(int argc, char **argv)
{
	struct analyze_read_opts o = { NULL, NULL, TABLE_TEXT, NULL };
	char err[DB_ERRLEN];
	struct db *db = NULL;
	int rc;

	rc = analyze_parse_read_opts("runs", runs_usage_text, argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (o.run || o.slo)
		return analyze_usage_error("runs", "runs takes --db and --format only");
	rc = db_open(o.db_path, DB_READ, &db, err, sizeof(err));
	if (!rc)
		rc = report_print_runs(db, o.fmt, stdout, err, sizeof(err));
	db_close(db);
	return rc ? analyze_fail("runs", rc, err) : 0;
}

static int analyze_rm(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db_path = NULL;
	char err[DB_ERRLEN];
	struct db *db = NULL;
	int c, rc, files = 0, status = 0;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': db_path = optarg; break;
		case 'h': fputs(rm_usage_text, stdout); return 0;
		default: return analyze_bad_option("rm", c, argv);
		}
	}
	if (!db_path)
		return analyze_usage_error("rm", "no database; give --db FILE");
	if (optind >= argc)
		return analyze_usage_error("rm", "no run given");
	/* DB_WRITE would create a missing file: check it exists and is ours first. */
	rc = db_open(db_path, DB_READ, &db, err, sizeof(err));
	db_close(db);
	db = NULL;
	if (!rc)
		rc = db_open(db_path, DB_WRITE, &db, err, sizeof(err));
	if (rc)
		return analyze_fail("rm", rc, err);
	for (; optind < argc; optind++) {
		rc = db_remove_run(db, argv[optind], &files, err, sizeof(err));
		if (rc) {
			status = analyze_fail("rm", rc, err);
			if (rc != DB_ERR_INPUT)
				break;
			continue;
		}
		fprintf(stderr, "removed run '%s' (%d results file%s)\n", argv[optind], files,
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
		{ "runs", analyze_runs },
		{ "rm", analyze_rm },
	};
	size_t i;

	if (argc < 2) {
		fprintf(stderr, "tracebench analyze: no subcommand (load, report, export, "
			"compare, runs, rm, plot); "
			"see 'tracebench analyze --help'\n");
		return 2;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		fputs(analyze_usage_text, stdout);
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
