/*
 * options.h - the command lines of `tracebench analyze SUBCOMMAND`: what
 * each subcommand asks for, its help text and its parsing (lib/cli.h says
 * how parsers return). analyze.c only reads a struct analyze_options.
 */
#ifndef TB_ANALYZE_OPTIONS_H
#define TB_ANALYZE_OPTIONS_H

#include <stddef.h>

#include "analyze/plot.h"
#include "lib/energy.h"
#include "lib/metric.h"
#include "lib/table.h"

#define ANALYZE_MAX_RUNS 64     /* most --run options plot accepts */

/* The options of every subcommand; each fills what it takes (strings
 * point into argv). */
struct analyze_options {
	const char *db_path;
	const char *label;              /* load --label */
	const char *run;                /* report, export --run */
	const char *out_path;           /* report, export --out: the file, written
					 * whole or not at all; NULL: stdout */
	const char *runs[ANALYZE_MAX_RUNS];   /* plot --run, repeatable */
	size_t n_runs;
	enum table_format fmt;        /* report, export, runs, compare */
	int jsonl, gaps;                /* export --format jsonl, --gaps */
	int html;                       /* report --format html */
	int latex;                      /* report, compare --format latex (fmt: Markdown) */
	enum plot_format plot_fmt;
	struct metric_slo slo;         /* report --slo */
	int has_slo;
	int intervals;                  /* report --intervals */
	double client_limit;            /* report --client-limit, a share; 0: default */
	const char *dir;                /* plot --out */
	int force;                      /* plot --force */
	long gpus;                      /* plot --gpus; 0: not given */
	double fail_pct;                /* compare --fail-on-regression; -1: none */
	int gate_client;                /* compare --gate-client-limited */
	double min_effect;              /* compare --min-effect, percent */
	double noise_pct;               /* compare --noise, percent; < 0 measured */
	double effect_pct;              /* plan --effect, percent; < 0: not given */
	double power_pct;               /* plan --power, percent */
	const char *metric;             /* plan --metric ("ttft_p99", "tok_s"), or NULL */
	/* report, compare, plot --energy-metric, --price-per-hour: in place
	 * of what the runs' headers name (analyze/efficiency.h) */
	int has_energy, has_price;
	struct energy_counter energy;
	struct metric_price price;
	const char *tags[ANALYZE_MAX_RUNS];   /* runs --tag KEY=VALUE, repeatable */
	size_t n_tags;
	char **args;                    /* the operands: files, runs */
	int n_args;
};

/*
 * Fills *o for the subcommand sub ("load", "report", "export", "runs",
 * "rm", "plot", "compare", "plan") from argv (argv[0] is sub), defaults first.
 * Returns CLI_CONTINUE to run; else the exit status after printing the
 * help to stdout (0) or a one-line error to stderr (2).
 */
int analyze_options_parse(const char *sub, struct analyze_options *o, int argc, char **argv);

/* The help of `tracebench analyze` itself. */
void analyze_options_usage(FILE *out);

#endif
