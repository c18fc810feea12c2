/*
 * test_schedule.c - open-loop schedules: exact constant spacing, Poisson
 * and gamma gaps with the right mean and spread, reproducible from a seed,
 * trace timing scaled by the speed factor, and the duration cut-off.
 */
#include "harness.h"
#include "lib/clock.h"
#include "lib/tracefile.h"
#include "record/synth.h"
#include "replay/schedule.h"

#include <stdlib.h>
#include <unistd.h>

/* Mean and coefficient of variation of the gaps of d[0..n). */
static void gap_stats(const int64_t *d, size_t n, double *mean_s, double *cv)
{
	double sum = 0, sq = 0, m;
	size_t i;

	for (i = 1; i < n; i++)
		sum += (double)(d[i] - d[i - 1]) / NS_PER_S;
	m = sum / (double)(n - 1);
	for (i = 1; i < n; i++) {
		double g = (double)(d[i] - d[i - 1]) / NS_PER_S - m;

		sq += g * g;
	}
	*mean_s = m;
	*cv = sqrt(sq / (double)(n - 2)) / m;
}

TEST(constant_rate_is_exact)
{
	struct schedule_options o = { .arrival = ARRIVAL_CONSTANT, .rate = 100, .max_requests = 1000 };
	int64_t *d = NULL;
	size_t i, n = schedule_build(&o, NULL, 0, &d);

	CHECK_EQ_INT(n, 1000);
	for (i = 0; i < n; i++)
		if (d[i] != (int64_t)i * 10 * NS_PER_MS)
			CHECK_EQ_INT(d[i], (int64_t)i * 10 * NS_PER_MS);
	free(d);
}

/* Request i at i/rate exactly: a million gaps of 1/3 s summed in double
 * would be off by microseconds; each offset here is rounded once. */
TEST(constant_rate_does_not_accumulate)
{
	struct schedule_options o = { .arrival = ARRIVAL_CONSTANT, .rate = 3,
				      .max_requests = 1000000 };
	int64_t *d = NULL, wrong = -1;
	size_t i, n = schedule_build(&o, NULL, 0, &d);

	CHECK_EQ_INT(n, 1000000);
	for (i = 0; i < n && wrong < 0; i++)
		if (d[i] != ((int64_t)i * 2 * NS_PER_S + 3) / 6)   /* i/3 s, rounded half up */
			wrong = (int64_t)i;
	CHECK_EQ_INT(wrong, -1);
	free(d);
}

/* record synth and replay's open loop draw from one arrival module with
 * one seed rule: the same kind, rate and seed give the same offsets. */
TEST(synth_and_replay_draw_the_same_arrivals)
{
	struct schedule_options o = { .arrival = ARRIVAL_GAMMA, .rate = 40, .burstiness = 0.5,
				      .seed = 11, .max_requests = 200 };
	char path[] = "/tmp/tb-schedule-XXXXXX", err[TRACEFILE_ERRLEN];
	struct synth_options so;
	struct tracefile_reader *r;
	int64_t *d = NULL;
	size_t n = schedule_build(&o, NULL, 0, &d), i = 0, same = 0;
	cJSON *rec;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	close(fd);
	synth_options_init(&so);
	so.requests = 200;
	so.input.a = so.input.b = so.output.a = so.output.b = 4;
	so.rate = o.rate;
	so.arrival = o.arrival;
	so.burstiness = o.burstiness;
	so.seed = o.seed;
	CHECK_EQ_INT(synth_write(&so, path, 1, err, sizeof(err)), 0);
	r = tracefile_reader_open(path, TRACEFILE_KIND_TRACE, err, sizeof(err));
	CHECK(r != NULL);
	while (r && tracefile_reader_next(r, &rec) == 1) {
		const cJSON *a = cJSON_GetObjectItem(rec, "arrival_ns");

		same += i < n && cJSON_IsNumber(a) && (int64_t)a->valuedouble == d[i];
		i++;
		cJSON_Delete(rec);
	}
	CHECK_EQ_INT(n, 200);
	CHECK_EQ_INT(i, 200);
	CHECK_EQ_INT(same, 200);
	CHECK(d[199] > 0);
	tracefile_reader_close(r);
	unlink(path);
	free(d);
}

TEST(poisson_has_mean_gap_one_over_rate_and_cv_one)
{
	struct schedule_options o = { .arrival = ARRIVAL_POISSON, .rate = 200, .seed = 7,
				      .max_requests = 20000 };
	int64_t *d = NULL;
	size_t n = schedule_build(&o, NULL, 0, &d), i, windows = 0, counted = 0;
	double mean, cv;

	CHECK_EQ_INT(n, 20000);
	gap_stats(d, n, &mean, &cv);
	CHECK_NEAR(mean, 1.0 / 200, 0.02 / 200);     /* within 2% */
	CHECK_NEAR(cv, 1.0, 0.05);
	/* Requests per whole second average the rate. */
	for (i = 0; i < n && d[i] < d[n - 1] / NS_PER_S * NS_PER_S; i++)
		counted++;
	windows = (size_t)(d[n - 1] / NS_PER_S);
	CHECK_NEAR((double)counted / (double)windows, 200, 200 * 0.03);
	free(d);
}

TEST(gamma_burstiness_sets_the_spread)
{
	struct schedule_options o = { .arrival = ARRIVAL_GAMMA, .rate = 50, .burstiness = 0.25,
				      .seed = 3, .max_requests = 40000 };
	int64_t *d = NULL;
	size_t n = schedule_build(&o, NULL, 0, &d);
	double mean, cv;

	CHECK_EQ_INT(n, 40000);
	gap_stats(d, n, &mean, &cv);
	CHECK_NEAR(mean, 1.0 / 50, 0.04 / 50);
	CHECK_NEAR(cv, 2.0, 0.2);                     /* 1 / sqrt(shape) */
	free(d);

	o.burstiness = 4;
	n = schedule_build(&o, NULL, 0, &d);
	gap_stats(d, n, &mean, &cv);
	CHECK_NEAR(cv, 0.5, 0.05);
	free(d);
}

TEST(same_seed_same_schedule)
{
	struct schedule_options o = { .arrival = ARRIVAL_POISSON, .rate = 10, .seed = 42,
				      .max_requests = 500 };
	int64_t *a = NULL, *b = NULL, *c = NULL;
	size_t na = schedule_build(&o, NULL, 0, &a), nb = schedule_build(&o, NULL, 0, &b), nc;

	o.seed = 43;
	nc = schedule_build(&o, NULL, 0, &c);
	CHECK_EQ_INT(na, nb);
	CHECK_EQ_INT(na, nc);
	CHECK(memcmp(a, b, na * sizeof(*a)) == 0);
	CHECK(memcmp(a, c, na * sizeof(*a)) != 0);
	free(a);
	free(b);
	free(c);
}

TEST(trace_timing_divides_by_speed)
{
	int64_t arrivals[] = { 5 * NS_PER_S, 5 * NS_PER_S, 6 * NS_PER_S, 9 * NS_PER_S };
	struct schedule_options o = { .arrival = ARRIVAL_TRACE, .speed = 2 };
	int64_t *d = NULL;
	size_t n = schedule_build(&o, arrivals, 4, &d);

	CHECK_EQ_INT(n, 4);
	CHECK_EQ_INT(d[0], 0);
	CHECK_EQ_INT(d[1], 0);
	CHECK_EQ_INT(d[2], NS_PER_S / 2);
	CHECK_EQ_INT(d[3], 2 * NS_PER_S);
	free(d);

	o.duration_ns = NS_PER_S;    /* offsets at or past 1 s are cut */
	n = schedule_build(&o, arrivals, 4, &d);
	CHECK_EQ_INT(n, 3);
	free(d);
}

/*
 * Offsets are range-checked before they become integers: a huge trace
 * arrival slowed by --speed 1e-6, or a rate of 1e-6 req/s, ends the
 * schedule at its horizon instead of overflowing (undefined behaviour,
 * which make asan's float-cast-overflow check reports).
 */
TEST(far_offsets_end_the_schedule_without_overflow)
{
	int64_t arrivals[] = { 0, NS_PER_S, 9007199254740992LL };
	struct schedule_options o = { .arrival = ARRIVAL_TRACE, .speed = 1e-6 };
	struct schedule_options slow = { .arrival = ARRIVAL_CONSTANT, .rate = 1e-6,
					 .burstiness = 1, .max_requests = 100000 };
	int64_t *d = NULL;
	size_t n = schedule_build(&o, arrivals, 3, &d);

	CHECK_EQ_INT(n, 2);
	CHECK_EQ_INT(d[1], 1000000LL * NS_PER_S);
	free(d);
	d = NULL;
	n = schedule_build(&slow, NULL, 0, &d);
	CHECK(n > 0 && n < 100000);
	CHECK(d && d[n - 1] < (int64_t)SCHEDULE_MAX_NS);
	free(d);
}

TEST(duration_bounds_a_generated_schedule)
{
	struct schedule_options o = { .arrival = ARRIVAL_CONSTANT, .rate = 10,
				      .duration_ns = NS_PER_S };
	int64_t *d = NULL;
	size_t n = schedule_build(&o, NULL, 0, &d);

	CHECK_EQ_INT(n, 10);
	CHECK_EQ_INT(d[9], 900 * NS_PER_MS);
	free(d);
	o.duration_ns = 0;           /* neither a count nor a duration: nothing */
	CHECK_EQ_INT(schedule_build(&o, NULL, 0, &d), 0);
}

TEST(arrival_names_parse)
{
	enum arrival_kind a;

	CHECK_EQ_INT(arrival_parse("poisson", &a), 0);
	CHECK_EQ_INT(a, ARRIVAL_POISSON);
	CHECK_EQ_INT(arrival_parse("gamma", &a), 0);
	CHECK_EQ_INT(a, ARRIVAL_GAMMA);
	CHECK_EQ_INT(arrival_parse("trace", &a), -1);   /* that is --timing trace */
	CHECK_EQ_INT(arrival_parse("Poisson", &a), -1);
}

/* A/B order: opposite in each two blocks, the same for a seed, seeds differ. */
TEST(ab_order_is_balanced_seeded_and_reproducible)
{
	unsigned char o1[40], o2[40], o3[40], odd[5];
	size_t k, b_first = 0, differ = 0;

	schedule_ab_order(40, 1, o1);
	schedule_ab_order(40, 1, o2);
	schedule_ab_order(40, 2, o3);
	for (k = 0; k < 40; k++) {
		CHECK(o1[k] == 0 || o1[k] == 1);
		CHECK_EQ_INT(o1[k], o2[k]);
		b_first += o1[k];
		differ += o1[k] != o3[k];
		if (k % 2)
			CHECK_EQ_INT(o1[k], !o1[k - 1]);   /* AB BA or BA AB */
	}
	CHECK_EQ_INT(b_first, 20);
	CHECK(differ > 0);
	/* both orders of a pair occur: a coin, not a fixed ABBA */
	for (k = 2, differ = 0; k < 40; k += 2)
		differ += o1[k] != o1[0];
	CHECK(differ > 0 && differ < 19);
	schedule_ab_order(5, 7, odd);
	CHECK_EQ_INT(odd[0] + odd[1] + odd[2] + odd[3], 2);
	CHECK(odd[4] <= 1);
}

int main(void)
{
	RUN(constant_rate_is_exact);
	RUN(constant_rate_does_not_accumulate);
	RUN(synth_and_replay_draw_the_same_arrivals);
	RUN(poisson_has_mean_gap_one_over_rate_and_cv_one);
	RUN(gamma_burstiness_sets_the_spread);
	RUN(same_seed_same_schedule);
	RUN(trace_timing_divides_by_speed);
	RUN(duration_bounds_a_generated_schedule);
	RUN(far_offsets_end_the_schedule_without_overflow);
	RUN(arrival_names_parse);
	RUN(ab_order_is_balanced_seeded_and_reproducible);
	return harness_done();
}
