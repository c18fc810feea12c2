/*
 * plot_data.h - what the figures of analyze plot are drawn from: each run's
 * summarized levels (run_read, the numbers of the report's tables)
 * and its requests, read once from the database. Internal to analyze plot.
 */
#ifndef TB_ANALYZE_PLOT_DATA_H
#define TB_ANALYZE_PLOT_DATA_H

#include <stddef.h>
#include "analyze/compare.h"
#include "analyze/db.h"
#include "analyze/plot.h"
#include "analyze/report.h"
#include "lib/capacity.h"
#include "lib/metric.h"
#include "lib/stats.h"

/* One point of the TTFT timeline. */
struct plot_point {
	double t_s;      /* send time from the run's start, seconds */
	double ttft_ms;
	int warmup;
};

/* One turn of a session, for the TTFT by turn index. */
struct plot_turn {
	long turn;
	double ttft_ms;
};

/* The latency metrics drawn by level, in the order of their figures. */
enum plot_metric { PLOT_TTFT, PLOT_TTFA, PLOT_TPOT, PLOT_ITL, PLOT_E2E, PLOT_N_METRICS };

/* The distribution of metric m in s. */
const struct stats_dist *plot_dist(const struct level_summary *s, enum plot_metric m);

/* What a level of a run adds to its summary: the samples of its CDF, where
 * it starts on the timeline and how its P50s vary across repeats. */
struct plot_level {
	struct load level;        /* as level_summary.level, no rate */
	double *ttft, *e2e;       /* owned, sorted: successful non-warm-up requests */
	size_t n_ttft, n_e2e;
	double t_start_s;         /* its first send (warm-ups too), s from the run's start */
	int repeats;              /* distinct repeats (--repeat) */
	/* The lowest and highest P50 of each metric over the repeats, each
	 * repeat summarized alone; NaN with fewer than two repeats. */
	double p50_min[PLOT_N_METRICS], p50_max[PLOT_N_METRICS];
};

/* One run: its summarized levels and its requests. */
struct plot_series {
	char *label;              /* owned */
	struct run run;
	struct plot_level *lv;    /* owned: its levels, in the database's order */
	size_t n_lv;
	struct plot_point *pts;   /* owned: every request with a TTFT, sending order */
	size_t n_pts;
	struct db_metric_point *srv;  /* owned: the server's scrapes (--metrics-url) */
	size_t n_srv;
	int is_cap;               /* a run of replay --find-capacity: */
	struct capacity_options cap;   /* ... its search */
	struct metric_slo slo;    /* ... and SLO */
	struct plot_turn *turns;  /* owned: successful measured turns with a TTFT,
				   * by turn then TTFT */
	size_t n_turns;
	struct db_model *models;  /* owned: a run of replay --model-mix, 2 or more */
	size_t n_models;
	struct report_model_row *model_rows;  /* owned: by level, then model */
	size_t n_model_rows;
};

struct plot_data {
	struct plot_series *series;  /* owned, n_series of them */
	size_t n_series;
	int *levels;                 /* owned: every concurrency of any run, ascending */
	size_t n_levels;
	enum plot_format fmt;
	int gpus;                    /* the Pareto view's throughput is per GPU of gpus (>= 1) */
	/* Two runs or more: each later run compared with the first (analyze
	 * compare's result with its defaults), for the forest plot: cmp[i - 1]
	 * is run i's, valid when compared[i - 1] (0: no level in common with
	 * the first). Both NULL for one run. */
	int *compared;               /* owned, n_series - 1 of them */
	struct compare_result *cmp;  /* owned, n_series - 1 of them */
};

/* Summarizes the runs 'labels' (all when n_labels is 0) into d. Returns
 * DB_OK, DB_ERR_INPUT (an unknown run, nothing to plot) or DB_ERR_WORK. */
int plot_load_data(struct db *db, const char *const *labels, size_t n_labels,
		   struct plot_data *d, char *err, size_t errlen);
void plot_data_release(struct plot_data *d);


/* The plot_level of load 'load' in s (load_same), or NULL. */
const struct plot_level *plot_find_extra(const struct plot_series *s, struct load load);

/* The levels of s that are not concurrencies (open loop, rates), in order
 * of their offered rate; the caller frees the array. *n is their number
 * (0 and NULL when none or out of memory). */
const struct level_summary **plot_open_levels(const struct plot_series *s, size_t *n);

/* A level's offered rate: its records' rate, else its schedule's. */
double plot_offered_rps(const struct level_summary *l);

/* The load of level l as a plot names it: a rate probe's rate is
 * plot_offered_rps. */
struct load plot_load(const struct level_summary *l);

/* Names the level of load 'load' of s for a key: "C=4", "open loop",
 * "5 req/s" (plot_load; "rate level 3" when s has no such level). */
const char *plot_level_label(const struct plot_series *s, struct load load, char *buf,
			     size_t len);

/* Has s a concurrency level (closed loop)? A run without one (open loop)
 * has no curve in the figures by concurrency. */
int plot_series_closed(const struct plot_series *s);
/* Does any run have requests with a TTFT and an E2E (the CDF, the timeline)? */
int plot_has_requests(const struct plot_data *d);
/* Does any run have levels that are not concurrencies (open loop, rates)? */
int plot_has_open(const struct plot_data *d);
/* Does any run have the server's scrapes (--metrics-url)? */
int plot_has_server(const struct plot_data *d);
/* Is any run a capacity search with levels? */
int plot_has_capacity(const struct plot_data *d);
/* Does any run have requests sent to more than one model (--model-mix)? */
int plot_has_models(const struct plot_data *d);
/* The highest turn index of any run's sessions, + 1 (0: no sessions). */
long plot_max_turn(const struct plot_data *d);

#endif
