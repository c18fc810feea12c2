/*
 * test_energy.c - a level's energy from an energy counter (lib/energy.c):
 * DCGM's millijoules summed over GPUs over a level's window, repeats
 * adding up; a reset, NaN, a negative value or one past 1e18, a GPU at one edge only,
 * overlapping windows (shards), no window, no counter: no figure, each
 * with its reason; --energy-metric's NAME[:UNIT]; and the per-level
 * figures of lib/metric.c (tokens per joule, cost per million tokens).
 */
#include "tests/unit/harness.h"
#include "lib/energy.h"
#include "lib/metric.h"

#include <math.h>
#include <string.h>

#define DCGM ENERGY_DCGM_NAME

/* One scrape of two GPUs' counters (mJ), at t seconds. */
static void gpus(struct energy_level *e, long scrape, enum srvmetric_at at, double t,
		 double gpu0, double gpu1)
{
	int64_t t_ns = (int64_t)(t * 1e9);

	energy_level_add(e, scrape, at, t_ns, "vllm:num_requests_running",
			 "vllm:num_requests_running", 3);
	energy_level_add(e, scrape, at, t_ns, DCGM, DCGM "{gpu=\"0\"}", gpu0);
	energy_level_add(e, scrape, at, t_ns, DCGM, DCGM "{gpu=\"1\"}", gpu1);
}

static void dcgm_level(struct energy_level *e)
{
	struct energy_counter c;

	energy_counter_default(&c);
	energy_level_init(e, &c);
}

TEST(gpus_summed_over_the_window)
{
	struct energy_level e;

	dcgm_level(&e);
	gpus(&e, 0, SRVMETRIC_AT_BETWEEN, 0, 1000, 5000);      /* before: not counted */
	gpus(&e, 1, SRVMETRIC_AT_START, 1, 2000, 6000);
	gpus(&e, 2, SRVMETRIC_AT_INTERVAL, 1.5, 200000, 206000);
	gpus(&e, 3, SRVMETRIC_AT_END, 3, 402000, 406000);
	gpus(&e, 4, SRVMETRIC_AT_BETWEEN, 4, 999000, 999000);  /* after: not counted */
	energy_level_finish(&e);
	CHECK_EQ_INT(e.rc, 0);
	CHECK_NEAR(e.joules, 800, 1e-9);       /* (400000 + 400000) mJ */
	CHECK_NEAR(e.window_s, 2, 1e-9);
	CHECK_EQ_INT((int)e.windows, 1);
	CHECK_EQ_INT((int)e.series, 2);
	CHECK_NEAR(metric_tokens_per_joule(1600, e.joules), 2, 1e-12);
	CHECK_NEAR(metric_joules_per_request(e.joules, 8), 100, 1e-12);
}

TEST(repeats_add_up)
{
	struct energy_level e;

	dcgm_level(&e);
	gpus(&e, 0, SRVMETRIC_AT_START, 0, 0, 0);
	gpus(&e, 1, SRVMETRIC_AT_END, 1, 1000, 1000);
	gpus(&e, 2, SRVMETRIC_AT_BETWEEN, 2, 5000, 5000);  /* idle between: not counted */
	gpus(&e, 3, SRVMETRIC_AT_START, 3, 9000, 9000);
	gpus(&e, 4, SRVMETRIC_AT_END, 5, 12000, 11000);
	energy_level_finish(&e);
	CHECK_EQ_INT(e.rc, 0);
	CHECK_NEAR(e.joules, 7, 1e-12);        /* 2 J, then 5 J */
	CHECK_NEAR(e.window_s, 3, 1e-9);
	CHECK_EQ_INT((int)e.windows, 2);
}

/* Each hostile shape gives no figure and its reason. */
TEST(hostile_counters_refused)
{
	struct energy_level e;

	dcgm_level(&e);                /* a reset inside the window, though end > start */
	gpus(&e, 0, SRVMETRIC_AT_START, 0, 5000, 5000);
	gpus(&e, 1, SRVMETRIC_AT_INTERVAL, 1, 100, 6000);
	gpus(&e, 2, SRVMETRIC_AT_END, 2, 9000, 7000);
	energy_level_finish(&e);
	CHECK_EQ_INT(e.rc, ENERGY_RESET);
	CHECK(isnan(e.joules));
	CHECK(strstr(energy_strerror(e.rc), "went down") != NULL);

	dcgm_level(&e);                /* lower at the end than at the start */
	gpus(&e, 0, SRVMETRIC_AT_START, 0, 5000, 5000);
	gpus(&e, 1, SRVMETRIC_AT_END, 1, 4000, 6000);
	energy_level_finish(&e);
	CHECK_EQ_INT(e.rc, ENERGY_RESET);

	dcgm_level(&e);
	gpus(&e, 0, SRVMETRIC_AT_START, 0, 5000, NAN);
	gpus(&e, 1, SRVMETRIC_AT_END, 1, 6000, 6000);
	energy_level_finish(&e);
	CHECK_EQ_INT(e.rc, ENERGY_BAD_VALUE);
	CHECK(isnan(e.joules));

	dcgm_level(&e);
	gpus(&e, 0, SRVMETRIC_AT_START, 0, -5000, 0);
	gpus(&e, 1, SRVMETRIC_AT_END, 1, 6000, 6000);
	energy_level_finish(&e);
	CHECK_EQ_INT(e.rc, ENERGY_BAD_VALUE);

	dcgm_level(&e);
	gpus(&e, 0, SRVMETRIC_AT_START, 0, 0, INFINITY);
	gpus(&e, 1, SRVMETRIC_AT_END, 1, 6000, 6000);
	energy_level_finish(&e);
	CHECK_EQ_INT(e.rc, ENERGY_BAD_VALUE);

	dcgm_level(&e);                /* a GPU gone by the end */
	gpus(&e, 0, SRVMETRIC_AT_START, 0, 0, 0);
	energy_level_add(&e, 1, SRVMETRIC_AT_END, 1000000000, DCGM, DCGM "{gpu=\"0\"}", 9000);
	energy_level_finish(&e);
	CHECK_EQ_INT(e.rc, ENERGY_SERIES_CHANGED);

	dcgm_level(&e);                /* two shards' windows */
	gpus(&e, 0, SRVMETRIC_AT_START, 0, 0, 0);
	gpus(&e, 1, SRVMETRIC_AT_START, 0.1, 100, 100);
	gpus(&e, 2, SRVMETRIC_AT_END, 1, 1000, 1000);
	gpus(&e, 3, SRVMETRIC_AT_END, 1.1, 1100, 1100);
	energy_level_finish(&e);
	CHECK_EQ_INT(e.rc, ENERGY_OVERLAP);

	dcgm_level(&e);                /* interval scrapes only: no window */
	gpus(&e, 0, SRVMETRIC_AT_INTERVAL, 0, 0, 0);
	gpus(&e, 1, SRVMETRIC_AT_INTERVAL, 1, 1000, 1000);
	energy_level_finish(&e);
	CHECK_EQ_INT(e.rc, ENERGY_NO_WINDOW);

	dcgm_level(&e);                /* no increase: nothing to divide by */
	gpus(&e, 0, SRVMETRIC_AT_START, 0, 7, 7);
	gpus(&e, 1, SRVMETRIC_AT_END, 1, 7, 7);
	energy_level_finish(&e);
	CHECK_EQ_INT(e.rc, ENERGY_NO_INCREASE);

	dcgm_level(&e);                /* an engine without the counter */
	energy_level_add(&e, 0, SRVMETRIC_AT_START, 0, "vllm:num_requests_running", NULL, 1);
	energy_level_add(&e, 1, SRVMETRIC_AT_END, 1, "vllm:num_requests_running", NULL, 1);
	energy_level_finish(&e);
	CHECK_EQ_INT(e.rc, ENERGY_NOT_SCRAPED);
	CHECK(isnan(metric_tokens_per_joule(100, e.joules)));
}

/*
 * A counter past 1e18 (ENERGY_MAX_VALUE): eight GPUs each rising from 0 to
 * 1.7e308 mJ summed past a double's range, and the level read 0.000
 * tokens per joule as if measured. Refused as a bad value, like NaN; a
 * counter of exactly the cap is a figure.
 */
TEST(a_counter_past_its_range_refused)
{
	struct energy_level e;
	char series[64];
	int g, at;

	dcgm_level(&e);
	for (at = 0; at < 2; at++)
		for (g = 0; g < 8; g++) {
			snprintf(series, sizeof(series), DCGM "{gpu=\"%d\"}", g);
			energy_level_add(&e, at, at ? SRVMETRIC_AT_END : SRVMETRIC_AT_START,
					 at * 1000000000LL, DCGM, series, at ? 1.7e308 : 0);
		}
	energy_level_finish(&e);
	CHECK_EQ_INT(e.rc, ENERGY_BAD_VALUE);
	CHECK(isnan(e.joules));
	CHECK(isnan(metric_tokens_per_joule(1000, e.joules)));
	CHECK(strstr(energy_strerror(e.rc), "past 1e18") != NULL);

	dcgm_level(&e);
	gpus(&e, 0, SRVMETRIC_AT_START, 0, 0, 0);
	gpus(&e, 1, SRVMETRIC_AT_END, 1, 1e18, 1e18);
	energy_level_finish(&e);
	CHECK_EQ_INT(e.rc, 0);
	CHECK_NEAR(e.joules, 2e15, 1);
}

TEST(energy_metric_named)
{
	struct energy_counter c;
	struct energy_level e;
	char err[128];

	CHECK_EQ_INT(energy_counter_parse("node_energy_joules_total", &c, err, sizeof(err)), 0);
	CHECK_STR(c.name, "node_energy_joules_total");
	CHECK_NEAR(c.to_joules, 1, 0);
	CHECK_EQ_INT(energy_counter_parse("gpu:energy_mj:mJ", &c, err, sizeof(err)), 0);
	CHECK_STR(c.name, "gpu:energy_mj");
	CHECK_NEAR(c.to_joules, 1e-3, 0);
	CHECK_EQ_INT(energy_counter_parse("x:kWh", &c, err, sizeof(err)), -1);
	CHECK(strstr(err, "J or mJ") != NULL);
	CHECK_EQ_INT(energy_counter_parse("9lives", &c, err, sizeof(err)), -1);
	CHECK_EQ_INT(energy_counter_parse(":J", &c, err, sizeof(err)), -1);

	CHECK_EQ_INT(energy_counter_parse("node_energy_joules_total:J", &c, err, sizeof(err)), 0);
	energy_level_init(&e, &c);
	energy_level_add(&e, 0, SRVMETRIC_AT_START, 0, "node_energy_joules_total", NULL, 10);
	energy_level_add(&e, 0, SRVMETRIC_AT_START, 0, DCGM, DCGM "{gpu=\"0\"}", 1);
	energy_level_add(&e, 1, SRVMETRIC_AT_END, 500000000, "node_energy_joules_total", NULL, 60);
	energy_level_add(&e, 1, SRVMETRIC_AT_END, 500000000, DCGM, DCGM "{gpu=\"0\"}", 1e9);
	energy_level_finish(&e);
	CHECK_EQ_INT(e.rc, 0);
	CHECK_NEAR(e.joules, 50, 1e-12);       /* the named counter alone */
	CHECK_NEAR(e.window_s, 0.5, 1e-12);
}

TEST(cost_per_million_tokens)
{
	struct metric_price p;
	double in, out;
	char err[128];

	CHECK_EQ_INT(metric_price_parse("2.5", &p, err, sizeof(err)), 0);
	CHECK_NEAR(p.per_hour, 2.5, 0);
	CHECK_NEAR(p.ratio, METRIC_PRICE_RATIO, 0);
	/* 1 h at 2.5 an hour; 1e6 output and 4e6 input tokens weigh 2e6 output */
	metric_cost_per_mtok(&p, 3600, 4e6, 1e6, &in, &out);
	CHECK_NEAR(out, 1.25, 1e-12);
	CHECK_NEAR(in, 1.25 / 4, 1e-12);
	CHECK_EQ_INT(metric_price_parse("3:1e6", &p, err, sizeof(err)), 0);
	metric_cost_per_mtok(&p, 1800, 0, 3e6, &in, &out);   /* all to output */
	CHECK_NEAR(out, 0.5, 1e-12);
	CHECK_EQ_INT(metric_price_parse("0", &p, err, sizeof(err)), -1);
	CHECK_EQ_INT(metric_price_parse("-1", &p, err, sizeof(err)), -1);
	CHECK_EQ_INT(metric_price_parse("nan", &p, err, sizeof(err)), -1);
	CHECK_EQ_INT(metric_price_parse("2:0", &p, err, sizeof(err)), -1);
	CHECK_EQ_INT(metric_price_parse("2:", &p, err, sizeof(err)), -1);
	CHECK_EQ_INT(metric_price_parse("2x", &p, err, sizeof(err)), -1);
	CHECK_EQ_INT(metric_price_parse("2", &p, err, sizeof(err)), 0);
	metric_cost_per_mtok(&p, 0, 10, 10, &in, &out);     /* no wall time */
	CHECK(isnan(in) && isnan(out));
	metric_cost_per_mtok(&p, 10, 0, 0, &in, &out);      /* no tokens */
	CHECK(isnan(in) && isnan(out));
	metric_cost_per_mtok(NULL, 10, 10, 10, &in, &out);  /* no price */
	CHECK(isnan(in) && isnan(out));
}

int main(void)
{
	RUN(gpus_summed_over_the_window);
	RUN(repeats_add_up);
	RUN(hostile_counters_refused);
	RUN(a_counter_past_its_range_refused);
	RUN(energy_metric_named);
	RUN(cost_per_million_tokens);
	return harness_done();
}
