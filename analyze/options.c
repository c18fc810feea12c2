/*
 * options.c - the command lines of `tracebench analyze SUBCOMMAND`; see
 * options.h.
 *
 * A table holds each subcommand's options, help text, take() for lib/cli's
 * getopt loop and the checks once all are read. Every usage error is one
 * line naming the subcommand.
 */
#include "analyze/options.h"
#include "analyze/verdict.h"
#include "lib/cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char analyze_usage_text[] =
	"usage: tracebench analyze <subcommand> --db FILE [options]\n"
	"\n"
	"Keep results files in a SQLite database and report on them.\n"
	"\n"
	"subcommands:\n"
	"  load      add results files (from 'tracebench replay') to the database\n"
	"  report    print the sweep table of each run (text, markdown, csv, json)\n"
	"  export    write one row per request (CSV or JSON Lines)\n"
	"  runs      list the runs in the database\n"
	"  compare   before/after: changes per level and metric, with a verdict\n"
	"  diff      what differs between two runs: server, trace, parameters, tags, host\n"
	"  plan      the blocks or runs a comparison needs to see a given change\n"
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
	"                                  [--noise PCT] [--fail-on-regression PCT]\n"
	"                                  [--gate-client-limited] BEFORE AFTER\n"
	"\n"
	"Compare two runs (by label) level by level: the P50, P90, P95 and P99 of\n"
	"TTFT, TTFA, TPOT, ITL and E2E, and aggregate tok/s (tokens / wall time),\n"
	"before and after, the change with its 95% interval, and a verdict per\n"
	"number: 'same' (the interval lies inside +-min-effect), 'faster' or\n"
	"'slower' (beyond it), 'inconclusive' (it straddles the threshold, or the\n"
	"run-to-run noise was not measured), or 'n/a' (too few requests: P50 needs\n"
	"5 a side, P90 20, P95 40, P99 200). Requests are paired by trace id when\n"
	"both runs replayed the same ones. Seeded: the same database gives the same\n"
	"verdicts. Warns when the runs replayed different traces or used different\n"
	"parameters.\n"
	"\n"
	"A figure moves between runs of an unchanged server by more than its own\n"
	"requests show, so 'faster' and 'slower' need that noise measured: the two\n"
	"sides of an A/B run (replay -e A -e B --repeat 3) are paired block by\n"
	"block; other runs take it from the runs of BEFORE's experiment in the\n"
	"database (3 or more runs of the same endpoint, trace and parameters), or\n"
	"from --noise. Without it, a change is 'inconclusive' and the text says so.\n"
	"\n"
	"options:\n"
	"  -d, --db FILE                  the database to read\n"
	"  -f, --format FMT               text (default), markdown, csv, json or latex\n"
	"                                 (booktabs tabulars, the notes as comments)\n"
	"  -m, --min-effect PCT           smallest change that matters, in percent;\n"
	"                                 smaller ones are 'same'. Default 1 where\n"
	"                                 the run-to-run noise is measured, else 3\n"
	"  -n, --noise PCT                one run's figures vary by PCT percent\n"
	"                                 (standard deviation) between runs of an\n"
	"                                 unchanged server: use that, not the history\n"
	"  -F, --fail-on-regression PCT   exit 1 when a verdict is 'slower' by more\n"
	"                                 than PCT percent, one line per regression\n"
	"                                 on stderr\n"
	"      --gate-client-limited      the gate also fails a 'client-limited' change\n"
	"                                 (within the runs' client bounds) that would\n"
	"                                 have been 'slower'\n"
	"      --energy-metric NAME[:UNIT]  tokens per joule from the scraped counter\n"
	"                                 NAME (UNIT J, the default, or mJ) for both\n"
	"                                 runs, not the one replay was given\n"
	"      --price-per-hour P[:R]     cost per million tokens at P per hour, an\n"
	"                                 output token costing R input tokens\n"
	"                                 (default 4), for both runs, not replay's\n"
	"  -h, --help                     show this help\n"
	"\n"
	"exit status: 0 done (no regression), 1 a regression beyond PCT or the work\n"
	"failed, 2 usage or input error (an unknown run, no level in common)\n"
	"\n"
	"examples:\n"
	"  tracebench analyze compare --db bench.db baseline tuned\n"
	"  tracebench analyze compare --db ci.db --fail-on-regression 5 main pr-123\n"
	"  tracebench analyze compare --db ab.db --min-effect 2 --format markdown a b\n";

static const char plan_usage_text[] =
	"usage: tracebench analyze plan --db FILE --effect PCT [--power PCT]\n"
	"                               [--metric NAME] [--min-effect PCT] [--format FMT]\n"
	"                               BEFORE AFTER\n"
	"\n"
	"What a comparison needs to see a change of PCT percent (a latency PCT%\n"
	"higher, a throughput PCT% lower), from the run-to-run noise that compare\n"
	"measures between BEFORE and AFTER - best two runs of one server (an A/A\n"
	"pair). For each level and number compare judges:\n"
	"  - an A/B pair: the blocks (replay -e A -e B --repeat K) that see it\n"
	"    with probability --power, from the spread of its blocks' ratios;\n"
	"  - runs judged by their history or --noise: the smallest change one run\n"
	"    a side sees (more requests do not shrink a run-to-run noise), and\n"
	"    whether that will do;\n"
	"  - a percentile with too few requests: how many it needs a side.\n"
	"\n"
	"options:\n"
	"  -d, --db FILE           the database to read\n"
	"  -e, --effect PCT        the change to see, percent (e.g. 5)\n"
	"  -p, --power PCT         the share of runs that should see it (default 90)\n"
	"  -M, --metric NAME       only this number: ttft_p50 ... e2e_p99 (TTFT, TTFA,\n"
	"                          TPOT, ITL, E2E at P50, P90, P95, P99) or tok_s\n"
	"  -m, --min-effect PCT    compare's threshold (default 1 where the noise\n"
	"                          is measured)\n"
	"  -n, --noise PCT         one run's figures vary by PCT percent between runs\n"
	"  -f, --format FMT        text (default), markdown, csv or json\n"
	"  -h, --help              show this help\n"
	"\n"
	"examples:\n"
	"  tracebench analyze plan --db ab.db --effect 10 aa-a aa-b\n"
	"  tracebench analyze plan --db ab.db --effect 5 --metric ttft_p99 aa-a aa-b\n";

static const char runs_usage_text[] =
	"usage: tracebench analyze runs --db FILE [--format FMT] [--tag KEY=VALUE]\n"
	"\n"
	"List the runs: label, created, endpoint, model asked for, model served\n"
	"(as the server listed it), trace digest, mode, concurrency levels,\n"
	"requests (without warm-ups), errors and tags (replay --tag).\n"
	"\n"
	"options:\n"
	"  -d, --db FILE      the database to read\n"
	"  -f, --format FMT   text (default), markdown, csv or json\n"
	"  -t, --tag K=V      only the runs tagged so (repeatable: all must hold)\n"
	"  -h, --help         show this help\n"
	"\n"
	"examples:\n"
	"  tracebench analyze runs --db bench.db\n"
	"  tracebench analyze runs --db bench.db --tag gpu=H100\n";

static const char diff_usage_text[] =
	"usage: tracebench analyze diff --db FILE RUN_A RUN_B\n"
	"\n"
	"What differs between two runs, one line per difference: the endpoint,\n"
	"the model asked for and the server as it described itself (the models it\n"
	"serves, its version answer), the trace, the parameters, the tags, the host\n"
	"and the build. What differs by design (salt seeds, labels, dates, an A/B\n"
	"run's order) is left out; nothing printed means one experiment. Runs\n"
	"loaded from files older than provenance compare by what they have.\n"
	"\n"
	"options:\n"
	"  -d, --db FILE      the database to read\n"
	"  -h, --help         show this help\n"
	"\n"
	"examples:\n"
	"  tracebench analyze diff --db bench.db baseline tuned\n";

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
	"                                 [--energy-metric NAME[:UNIT]] [--price-per-hour P[:R]]\n"
	"                                 [--out FILE]\n"
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
	"  -f, --format FMT     text (default), markdown, csv, json, latex (every\n"
	"                       table a booktabs tabular, the notes as comments), or\n"
	"                       html: one self-contained page (the text report, the\n"
	"                       first run compared with each other, every figure as\n"
	"                       inline SVG, the definitions), e.g. -o report.html\n"
	"  -o, --out FILE       write to FILE (whole, or not at all: an earlier FILE\n"
	"                       stays as it was when the report fails), not stdout\n"
	"  -s, --slo LIST       goodput: share of requests within every limit, and\n"
	"                       good requests/s; LIST of ttft|ttfa|tpot|e2e=LIMIT\n"
	"                       with LIMIT in us, ms (default) or s; a capacity\n"
	"                       search's run without it: the search's SLO\n"
	"      --intervals      text, markdown and html: each percentile of the latency\n"
	"                       table with its 95% interval by order statistics\n"
	"                       (csv and json always have them: p50_ttft_lo95_ms,\n"
	"                       p50_ttft_hi95_ms, ...)\n"
	"      --client-limit PCT  a level is client-limited when the client's own\n"
	"                       part of its TTFT bound is over PCT% of its TTFT at\n"
	"                       P50 or P99 (default 5; replay's note uses 5)\n"
	"      --energy-metric NAME[:UNIT]  tokens per joule per level from the\n"
	"                       scraped counter NAME (UNIT J, the default, or mJ),\n"
	"                       in place of the one each run was replayed with\n"
	"                       (default DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION, mJ)\n"
	"      --price-per-hour P[:R]  cost per million input and output tokens per\n"
	"                       level at P per hour, an output token costing R input\n"
	"                       tokens (default 4), in place of replay's\n"
	"  -h, --help           show this help\n"
	"\n"
	"examples:\n"
	"  tracebench analyze report --db bench.db\n"
	"  tracebench analyze report --db bench.db --run baseline --format markdown\n"
	"  tracebench analyze report --db bench.db --slo ttft=500ms,tpot=50ms,e2e=10s\n"
	"  tracebench analyze report --db bench.db --price-per-hour 2.5\n";

static const char export_usage_text[] =
	"usage: tracebench analyze export --db FILE [--run LABEL] [--format csv|jsonl] [--gaps]\n"
	"                                 [--out FILE]\n"
	"\n"
	"Write one row per request, warm-ups included (warmup=1): CSV with a\n"
	"header row (empty fields are NULL), or JSON Lines (one object a line,\n"
	"null for NULL). Columns: run, concurrency, seq, trace_id, warmup, status,\n"
	"error, ttft_ms, ttfa_ms, e2e_ms, tpot_ms, input_tokens, output_tokens,\n"
	"tokens_estimated, run_id, error_detail, repeat, sched_ms, send_ms,\n"
	"tokens_source (usage, tokenize or events: estimated), token_events,\n"
	"cached_tokens, salt, new_connection, connect_ms, tls_ms, session, turn\n"
	"(a session's turns; empty for a request of its own), server_timings,\n"
	"server_queue_ms, server_prefill_ms, server_decode_ms (the server's own\n"
	"account of the request, when it sent one: llama.cpp, vllm or sglang),\n"
	"rest_ttft_ms, rest_e2e_ms (the client's TTFT and E2E beyond it), cancel\n"
	"(the point replay --cancel chose the request to be cut at: error\n"
	"cancelled when it was, none when it ended first; empty: not chosen),\n"
	"model (the model replay --model-mix sent it to; empty without one); with\n"
	"--gaps itl_us, the inter-token gaps in microseconds.\n"
	"\n"
	"options:\n"
	"  -d, --db FILE        the database to read\n"
	"  -r, --run LABEL      only the run LABEL\n"
	"  -f, --format FMT     csv (default) or jsonl\n"
	"  -g, --gaps           add each request's inter-token gaps (itl_us)\n"
	"  -o, --out FILE       write to FILE (whole, or not at all), not stdout\n"
	"  -h, --help           show this help\n"
	"\n"
	"examples:\n"
	"  tracebench analyze export --db bench.db --format csv > requests.csv\n"
	"  tracebench analyze export --db bench.db --run baseline --format jsonl --gaps > baseline.jsonl\n";

static const char plot_usage_text[] =
	"usage: tracebench analyze plot --db FILE [--run LABEL]... --out DIR [--format FMT]\n"
	"\n"
	"Write a gnuplot script NAME.gp with its data NAME.dat for each plot, and\n"
	"render NAME.png (or .svg, .pdf) when gnuplot is installed; one curve (or\n"
	"set of curves) per run, so several runs overlay. Prints the files written.\n"
	"  scaling            aggregate and per-request tok/s by concurrency\n"
	"  compare_forest     two runs: every change analyze compare judged, with its\n"
	"                     95% interval, coloured by verdict\n"
	"  latency_ttft       TTFT by concurrency: P50 line, P90-P99 band, the range\n"
	"                     of the repeats' P50s; latency_tpot, latency_itl,\n"
	"                     latency_e2e (and latency_ttfa after reasoning) alike\n"
	"  latency_by_rate    open loop: TTFT, TPOT, E2E against the offered rate,\n"
	"                     and the achieved rate\n"
	"  latency_cdf        CDF of TTFT and of E2E per level and run\n"
	"  ttft_timeline      TTFT of each request over the run (cold start, queueing),\n"
	"                     with the server's running and waiting requests below it\n"
	"                     when the run scraped --metrics-url\n"
	"  load_curve         a --find-capacity run: P50 and P99 TTFT and P99 E2E\n"
	"                     against the achieved load, the SLO and the capacity marked\n"
	"  pareto             aggregate tok/s (per GPU with --gpus) against tok/s per\n"
	"                     user, one point per concurrency\n"
	"  ttft_by_turn       a replay of sessions: TTFT by turn index\n"
	"  latency_by_model   a replay --model-mix: P50 TTFT and TPOT of each model\n"
	"                     by concurrency\n"
	"\n"
	"options:\n"
	"  -d, --db FILE      the database to read\n"
	"  -r, --run LABEL    plot the run LABEL (repeatable; default: all runs)\n"
	"  -o, --out DIR      the output directory (created if missing)\n"
	"  -f, --format FMT   png (default), svg or pdf\n"
	"      --force        replace the files of an earlier plot in DIR\n"
	"      --gpus N       the server ran on N GPUs: the Pareto view gives\n"
	"                     aggregate tok/s per GPU\n"
	"      --energy-metric NAME[:UNIT], --price-per-hour P[:R]  pareto.dat's\n"
	"                     tokens per joule and cost per million output tokens\n"
	"                     by these, not replay's (see analyze report --help)\n"
	"  -h, --help         show this help\n"
	"\n"
	"examples:\n"
	"  tracebench analyze plot --db bench.db --out plots\n"
	"  tracebench analyze plot --db bench.db --run before --run after --out plots\n"
	"  tracebench analyze plot --db bench.db --out plots --format svg\n"
	"  tracebench analyze plot --db bench.db --out plots --force   # plot again\n"
	"  cd plots && gnuplot scaling.gp      # re-render after editing the script\n";

void analyze_options_usage(FILE *out)
{
	fputs(analyze_usage_text, out);
}

/* --format of the tables: text, markdown, csv or json; latex (report and
 * compare: their Markdown as booktabs tabulars, lib/latex.h). */
static int take_format(struct analyze_options *o, const char *arg, char *msg, size_t len)
{
	o->latex = strcmp(arg, "latex") == 0;
	if (o->latex) {
		o->fmt = TABLE_MARKDOWN;
		return 0;
	}
	if (table_format_parse(arg, &o->fmt) == 0)
		return 0;
	snprintf(msg, len, "unknown format '%s' (text, markdown, csv or json)", arg);
	return -1;
}

/* load: --db, --label. rm: --db. */
static int take_load(void *opts, int c, char *arg, char *msg, size_t len)
{
	struct analyze_options *o = opts;

	(void)msg;
	(void)len;
	switch (c) {
	case 'd': o->db_path = arg; return 0;
	case 'l': o->label = arg; return 0;
	default: return -1;
	}
}

/* report, compare, plot: --energy-metric NAME[:UNIT] ('E'),
 * --price-per-hour P[:R] ('P'), parsed as replay parses them. 1 when c is
 * neither. */
static int take_efficiency(struct analyze_options *o, int c, const char *arg, char *msg,
			   size_t len)
{
	char why[160];

	if (c == 'E') {
		o->has_energy = 1;
		if (energy_counter_parse(arg, &o->energy, why, sizeof(why)) == 0)
			return 0;
		snprintf(msg, len, "invalid --energy-metric '%s': %s", arg, why);
		return -1;
	}
	if (c == 'P') {
		o->has_price = 1;
		if (metric_price_parse(arg, &o->price, why, sizeof(why)) == 0)
			return 0;
		snprintf(msg, len, "invalid --price-per-hour: %s", why);
		return -1;
	}
	return 1;
}

/* report, export, runs: --db, --run, --format, --slo; export's --gaps
 * and --format jsonl (the others refuse them in their checks). */
static int take_read(void *opts, int c, char *arg, char *msg, size_t len)
{
	struct analyze_options *o = opts;

	switch (c) {
	case 'd': o->db_path = arg; return 0;
	case 'r': o->run = arg; return 0;
	case 'o':
		if (*arg)
			o->out_path = arg;
		else
			snprintf(msg, len, "--out wants a file name");
		return *arg ? 0 : -1;
	case 'g': o->gaps = 1; return 0;
	case 'I': o->intervals = 1; return 0;
	case 'C':
		if (cli_parse_double(arg, 0.01, 10000, &o->client_limit) == 0) {
			o->client_limit /= 100;
			return 0;
		}
		snprintf(msg, len, "bad --client-limit '%s' (a percentage over 0, e.g. 5)", arg);
		return -1;
	case 'f':
		if (strcmp(arg, "jsonl") == 0) {
			o->jsonl = 1;
			o->fmt = TABLE_JSON;
			return 0;
		}
		if (strcmp(arg, "html") == 0) {
			o->html = 1;
			o->fmt = TABLE_TEXT;
			return 0;
		}
		o->html = 0;
		return take_format(o, arg, msg, len);
	case 's':
		o->has_slo = 1;
		return metric_slo_parse(arg, &o->slo, msg, len) == 0 ? 0 : -1;
	case 'E': case 'P': return take_efficiency(o, c, arg, msg, len);
	default: return -1;
	}
}

/* runs: --db, --format, --tag K=V (repeatable). */
static int take_runs(void *opts, int c, char *arg, char *msg, size_t len)
{
	struct analyze_options *o = opts;

	switch (c) {
	case 't':
		if (!strchr(arg, '=') || arg[0] == '=' || o->n_tags == ANALYZE_MAX_RUNS) {
			snprintf(msg, len, "bad --tag '%s' (give KEY=VALUE)", arg);
			return -1;
		}
		o->tags[o->n_tags++] = arg;
		return 0;
	case 'd': case 'f': return take_read(opts, c, arg, msg, len);
	default: return -1;
	}
}

/* plot: --db, --run (repeatable), --out, --format, --force, --gpus. */
static int take_plot(void *opts, int c, char *arg, char *msg, size_t len)
{
	struct analyze_options *o = opts;

	switch (c) {
	case 'd': o->db_path = arg; return 0;
	case 'o': o->dir = arg; return 0;
	case 'F': o->force = 1; return 0;
	case 'G':
		if (cli_parse_long(arg, 1, 1000000, &o->gpus) == 0)
			return 0;
		snprintf(msg, len, "--gpus wants a whole number of GPUs from 1, not '%s'", arg);
		return -1;
	case 'r':
		if (o->n_runs == ANALYZE_MAX_RUNS) {
			snprintf(msg, len, "too many --run options");
			return -1;
		}
		o->runs[o->n_runs++] = arg;
		return 0;
	case 'f':
		if (plot_format_parse(arg, &o->plot_fmt) == 0)
			return 0;
		snprintf(msg, len, "unknown format '%s' (png, svg or pdf)", arg);
		return -1;
	case 'E': case 'P': return take_efficiency(o, c, arg, msg, len);
	default: return -1;
	}
}

/* compare: --db, --format, --min-effect, --noise, --fail-on-regression,
 * --gate-client-limited. */
static int take_compare(void *opts, int c, char *arg, char *msg, size_t len)
{
	struct analyze_options *o = opts;

	switch (c) {
	case 'd': o->db_path = arg; return 0;
	case 'f': return take_format(o, arg, msg, len);
	case 'm':
		if (cli_parse_double(arg, 0, 100, &o->min_effect) == 0)
			return 0;
		snprintf(msg, len, "bad --min-effect '%s' (a percentage from 0 to 100, e.g. 3)", arg);
		return -1;
	case 'n':
		if (cli_parse_double(arg, 0, 100, &o->noise_pct) == 0)
			return 0;
		snprintf(msg, len, "bad --noise '%s' (a percentage from 0 to 100, e.g. 4)", arg);
		return -1;
	case 'F':
		if (cli_parse_double(arg, 0, 1e9, &o->fail_pct) == 0)
			return 0;
		snprintf(msg, len, "bad --fail-on-regression '%s' (a percentage, e.g. 5)", arg);
		return -1;
	case 'G': o->gate_client = 1; return 0;
	case 'E': case 'P': return take_efficiency(o, c, arg, msg, len);
	default: return -1;
	}
}

/* plan: compare's, --effect, --power, --metric. */
static int take_plan(void *opts, int c, char *arg, char *msg, size_t len)
{
	struct analyze_options *o = opts;
	static const char *const names[] = { "ttft", "ttfa", "tpot", "itl", "e2e" };
	static const char *const stats[] = { "p50", "p90", "p95", "p99" };
	char key[16];
	size_t i, k;

	switch (c) {
	case 'e':
		if (cli_parse_double(arg, 0.01, 99, &o->effect_pct) == 0)
			return 0;
		snprintf(msg, len, "bad --effect '%s' (a percentage above 0 and below 100, e.g. 5)",
			 arg);
		return -1;
	case 'p':
		if (cli_parse_double(arg, 50, 99.9, &o->power_pct) == 0)
			return 0;
		snprintf(msg, len, "bad --power '%s' (a percentage from 50 to 99.9, e.g. 90)", arg);
		return -1;
	case 'M':
		o->metric = arg;
		if (strcmp(arg, "tok_s") == 0)
			return 0;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			for (k = 0; k < sizeof(stats) / sizeof(stats[0]); k++) {
				snprintf(key, sizeof(key), "%s_%s", names[i], stats[k]);
				if (strcmp(arg, key) == 0)
					return 0;
			}
		}
		snprintf(msg, len, "unknown --metric '%s' (ttft_p50 ... e2e_p99, or tok_s)", arg);
		return -1;
	default: return take_compare(opts, c, arg, msg, len);
	}
}

static const struct option load_longopts[] = {
	{ "db", required_argument, NULL, 'd' },
	{ "label", required_argument, NULL, 'l' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct option read_longopts[] = {
	{ "db", required_argument, NULL, 'd' },
	{ "run", required_argument, NULL, 'r' },
	{ "format", required_argument, NULL, 'f' },
	{ "slo", required_argument, NULL, 's' },
	{ "gaps", no_argument, NULL, 'g' },
	{ "intervals", no_argument, NULL, 'I' },
	{ "client-limit", required_argument, NULL, 'C' },
	{ "out", required_argument, NULL, 'o' },
	{ "energy-metric", required_argument, NULL, 'E' },
	{ "price-per-hour", required_argument, NULL, 'P' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct option runs_longopts[] = {
	{ "db", required_argument, NULL, 'd' },
	{ "format", required_argument, NULL, 'f' },
	{ "tag", required_argument, NULL, 't' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct option plot_longopts[] = {
	{ "db", required_argument, NULL, 'd' },
	{ "run", required_argument, NULL, 'r' },
	{ "out", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, 'f' },
	{ "force", no_argument, NULL, 'F' },
	{ "gpus", required_argument, NULL, 'G' },
	{ "energy-metric", required_argument, NULL, 'E' },
	{ "price-per-hour", required_argument, NULL, 'P' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct option compare_longopts[] = {
	{ "db", required_argument, NULL, 'd' },
	{ "format", required_argument, NULL, 'f' },
	{ "min-effect", required_argument, NULL, 'm' },
	{ "noise", required_argument, NULL, 'n' },
	{ "fail-on-regression", required_argument, NULL, 'F' },
	{ "gate-client-limited", no_argument, NULL, 'G' },
	{ "energy-metric", required_argument, NULL, 'E' },
	{ "price-per-hour", required_argument, NULL, 'P' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct option plan_longopts[] = {
	{ "db", required_argument, NULL, 'd' },
	{ "format", required_argument, NULL, 'f' },
	{ "effect", required_argument, NULL, 'e' },
	{ "power", required_argument, NULL, 'p' },
	{ "metric", required_argument, NULL, 'M' },
	{ "min-effect", required_argument, NULL, 'm' },
	{ "noise", required_argument, NULL, 'n' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct option rm_longopts[] = {
	{ "db", required_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/*
 * The checks once every option is read (and --db given, and no operand
 * where none is taken): NULL when the command line will do, else what is
 * wrong. o->args and o->n_args hold the operands.
 */
static const char *check_load(const struct analyze_options *o)
{
	if (o->label && !*o->label)
		return "empty --label";
	return o->n_args ? NULL : "no results files given";
}

static const char *check_report(const struct analyze_options *o)
{
	if (o->gaps)
		return "--gaps is an option of export";
	return o->jsonl ? "report writes text, markdown, csv, json, latex or html" : NULL;
}

static const char *check_export(const struct analyze_options *o)
{
	if ((o->fmt != TABLE_CSV && !o->jsonl) || o->html || o->latex)
		return "export writes csv or jsonl (--format csv|jsonl)";
	if (o->intervals)
		return "--intervals is an option of report";
	if (o->client_limit > 0)
		return "--client-limit is an option of report";
	if (o->has_energy || o->has_price)
		return "--energy-metric and --price-per-hour are options of report, compare "
		       "and plot";
	return o->has_slo ? "--slo is an option of report" : NULL;
}

static const char *check_runs(const struct analyze_options *o)
{
	if (o->jsonl || o->html || o->latex)
		return "runs writes text, markdown, csv or json";
	return NULL;
}

static const char *check_diff(const struct analyze_options *o)
{
	return o->n_args == 2 ? NULL : "give two runs: RUN_A RUN_B";
}

static const char *check_rm(const struct analyze_options *o)
{
	return o->n_args ? NULL : "no run given";
}

static const char *check_plot(const struct analyze_options *o)
{
	return o->dir && *o->dir ? NULL : "no output directory; give --out DIR";
}

static const char *check_compare(const struct analyze_options *o)
{
	return o->n_args == 2 ? NULL : "give two runs: BEFORE AFTER";
}

static const char *check_plan(const struct analyze_options *o)
{
	if (o->latex)
		return "plan writes text, markdown, csv or json";
	if (o->effect_pct < 0)
		return "no --effect: the change to see, in percent";
	if (o->min_effect >= 0 && o->effect_pct <= o->min_effect)
		return "--effect must exceed --min-effect (a smaller change is 'same')";
	return o->n_args == 2 ? NULL : "give two runs: BEFORE AFTER (best an A/A pair)";
}

static const struct analyze_sub {
	const char *name;
	const char *usage;
	struct cli_command cmd;
	enum table_format fmt;        /* the default --format */
	int operands;                   /* takes operands (files, runs) */
	const char *(*check)(const struct analyze_options *o);
} subs[] = {
	{ "load", load_usage_text,
	  { "tracebench analyze load", ":d:l:h", load_longopts, take_load },
	  TABLE_TEXT, 1, check_load },
	{ "report", report_usage_text,
	  { "tracebench analyze report", ":d:r:f:s:gIo:h", read_longopts, take_read },
	  TABLE_TEXT, 0, check_report },
	{ "export", export_usage_text,
	  { "tracebench analyze export", ":d:r:f:s:gIo:h", read_longopts, take_read },
	  TABLE_CSV, 0, check_export },
	{ "runs", runs_usage_text,
	  { "tracebench analyze runs", ":d:f:t:h", runs_longopts, take_runs },
	  TABLE_TEXT, 0, check_runs },
	{ "rm", rm_usage_text,
	  { "tracebench analyze rm", ":d:h", rm_longopts, take_load },
	  TABLE_TEXT, 1, check_rm },
	{ "plot", plot_usage_text,
	  { "tracebench analyze plot", ":d:r:o:f:h", plot_longopts, take_plot },
	  TABLE_TEXT, 0, check_plot },
	{ "compare", compare_usage_text,
	  { "tracebench analyze compare", ":d:f:m:n:F:h", compare_longopts, take_compare },
	  TABLE_TEXT, 1, check_compare },
	{ "diff", diff_usage_text,
	  { "tracebench analyze diff", ":d:h", rm_longopts, take_load },
	  TABLE_TEXT, 1, check_diff },
	{ "plan", plan_usage_text,
	  { "tracebench analyze plan", ":d:f:e:p:M:m:n:h", plan_longopts, take_plan },
	  TABLE_TEXT, 1, check_plan },
};

int analyze_options_parse(const char *sub, struct analyze_options *o, int argc, char **argv)
{
	const struct analyze_sub *s = NULL;
	const char *why;
	char msg[CLI_MSGLEN];
	size_t i;
	int rc;

	for (i = 0; i < sizeof(subs) / sizeof(subs[0]) && !s; i++)
		if (strcmp(sub, subs[i].name) == 0)
			s = &subs[i];
	if (!s)
		return CLI_EXIT_USAGE;          /* analyze_main routes known names only */
	memset(o, 0, sizeof(*o));
	o->fmt = s->fmt;
	o->plot_fmt = PLOT_PNG;
	o->fail_pct = -1;
	o->noise_pct = -1;              /* measured: blocks or history */
	o->min_effect = -1;             /* each level's default (compare_min_effect) */
	o->effect_pct = -1;
	o->power_pct = 90;
	rc = cli_parse(&s->cmd, o, argc, argv, msg, sizeof(msg));
	if (rc == CLI_EXIT_OK)
		fputs(s->usage, stdout);
	if (rc != CLI_CONTINUE) {
		if (rc != CLI_EXIT_OK)
			fprintf(stderr, "%s: %s\n", s->cmd.prog, msg);
		return rc;
	}
	o->args = argv + optind;
	o->n_args = argc - optind;
	if (o->n_args && !s->operands) {
		fprintf(stderr, "%s: unexpected argument '%s'; see '%s --help'\n", s->cmd.prog,
			o->args[0], s->cmd.prog);
		return CLI_EXIT_USAGE;
	}
	why = !o->db_path ? "no database; give --db FILE" : s->check ? s->check(o) : NULL;
	if (!why)
		return CLI_CONTINUE;
	fprintf(stderr, "%s: %s; see '%s --help'\n", s->cmd.prog, why, s->cmd.prog);
	return CLI_EXIT_USAGE;
}
