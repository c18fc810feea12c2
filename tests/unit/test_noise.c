/*
 * test_noise.c - the noise model of `mock --noise` (mock/noise.h) at fixed
 * times: the drift is a function of the wall clock alone, shared by every
 * seed, with the spread and the memory it is given; jitter and tail draw
 * the distributions they name; stalls come at their rate, the same for one
 * seed; specs are parsed or refused naming their part.
 */
#include "harness.h"
#include "mock/noise.h"
#include "lib/stats.h"

#define T0 1.7e9        /* a wall-clock time: late 2023 */

static struct noise_spec spec_of(const char *text)
{
	struct noise_spec s;
	char err[256];

	if (noise_spec_parse(&s, text, err, sizeof(err)) < 0) {
		printf("  cannot parse '%s': %s\n", text, err);
		memset(&s, 0, sizeof(s));
	}
	return s;
}

/* The drift's log at n times step seconds apart from t, into v. */
static void drift_logs(const struct noise_spec *s, double t, double step, double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = log(noise_drift(s, t + step * (double)i));
}

static double mean_of(const double *v, size_t n)
{
	double m = 0;
	size_t i;

	for (i = 0; i < n; i++)
		m += v[i];
	return m / (double)n;
}

static double sd_of(const double *v, size_t n)
{
	double m = mean_of(v, n), q = 0;
	size_t i;

	for (i = 0; i < n; i++)
		q += (v[i] - m) * (v[i] - m);
	return sqrt(q / (double)(n - 1));
}

/* Correlation of the drift's log with itself lag seconds later, over n
 * times step apart. */
static double drift_corr(const struct noise_spec *s, double lag, double step, size_t n)
{
	double *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	double ma, mb, sab = 0, saa = 0, sbb = 0;
	size_t i;

	drift_logs(s, T0, step, a, n);
	drift_logs(s, T0 + lag, step, b, n);
	ma = mean_of(a, n);
	mb = mean_of(b, n);
	for (i = 0; i < n; i++) {
		sab += (a[i] - ma) * (b[i] - mb);
		saa += (a[i] - ma) * (a[i] - ma);
		sbb += (b[i] - mb) * (b[i] - mb);
	}
	free(a);
	free(b);
	return sab / sqrt(saa * sbb);
}

TEST(drift_is_a_function_of_time_alone)
{
	struct noise_spec s = spec_of("drift=10%");

	CHECK(noise_drift(&s, T0) == noise_drift(&s, T0));
	CHECK(noise_drift(&s, T0 + 1234.5) == noise_drift(&s, T0 + 1234.5));
	CHECK(noise_drift(&s, T0) != noise_drift(&s, T0 + 30));
	/* no seed goes in: every mock on the host sees the one drift */
	CHECK(noise_drift(&s, T0) > 0);
	s.drift_sigma = 0;
	CHECK_NEAR(noise_drift(&s, T0), 1, 0);
}

TEST(drift_spread_is_its_sigma)
{
	struct noise_spec s = spec_of("drift=10%:30s-180s");
	static double v[200000];
	size_t n = sizeof(v) / sizeof(v[0]);

	/* a week, every 3 s: the periods' ratios are irrational, so the
	 * sinusoids do not stay in step */
	drift_logs(&s, T0, 3.0, v, n);
	CHECK_NEAR(sd_of(v, n), 0.10, 0.01);
	CHECK_NEAR(mean_of(v, n), 0, 0.005);
	s = spec_of("drift=25%");
	drift_logs(&s, T0, 3.0, v, n);
	CHECK_NEAR(sd_of(v, n), 0.25, 0.025);
}

TEST(drift_remembers_seconds_and_forgets_minutes)
{
	struct noise_spec s = spec_of("drift=10%:30s-180s");
	double c1 = drift_corr(&s, 1, 7.0, 50000);
	double c600 = drift_corr(&s, 600, 7.0, 50000);

	CHECK(c1 > 0.98);               /* repeats a second apart: alike */
	CHECK(fabs(c600) < 0.35);       /* runs ten minutes apart: not */
	/* two mocks a second apart differ by far less than sigma */
	CHECK(fabs(log(noise_drift(&s, T0 + 1)) - log(noise_drift(&s, T0))) < 0.03);
}

TEST(instance_is_per_seed_and_constant)
{
	struct noise_spec s = spec_of("instance=2%");
	double v[4000];
	size_t i;

	CHECK(noise_instance(&s, 1) == noise_instance(&s, 1));
	CHECK(noise_instance(&s, 1) != noise_instance(&s, 2));
	for (i = 0; i < 4000; i++)
		v[i] = log(noise_instance(&s, i));
	CHECK_NEAR(sd_of(v, 4000), 0.02, 0.002);
}

TEST(jitter_is_lognormal)
{
	struct noise_spec s = spec_of("jitter=20%");
	static double v[40000];
	size_t n = sizeof(v) / sizeof(v[0]), i;

	for (i = 0; i < n; i++)
		v[i] = noise_jitter(&s, 7, i + 1);
	stats_sort(v, n);
	/* median exp(0) = 1; P10 and P90 exp(-+1.2816 sigma) */
	CHECK_NEAR(stats_percentile(v, n, 50), 1.0, 0.01);
	CHECK_NEAR(stats_percentile(v, n, 10), exp(-1.2816 * 0.2), 0.01);
	CHECK_NEAR(stats_percentile(v, n, 90), exp(1.2816 * 0.2), 0.01);
	CHECK_NEAR(stats_percentile(v, n, 99), exp(2.3263 * 0.2), 0.03);
	/* a request's factor is its number's: asked again, the same */
	CHECK(noise_jitter(&s, 7, 5) == noise_jitter(&s, 7, 5));
	CHECK(noise_jitter(&s, 7, 5) != noise_jitter(&s, 8, 5));
}

TEST(tail_strikes_its_share_with_pareto_factors)
{
	struct noise_spec s = spec_of("tail=2%:3:2");
	static double slowed[4000];
	size_t n = 0, i, total = 100000;

	for (i = 0; i < total; i++) {
		double f = noise_tail(&s, 3, i + 1);

		CHECK(f == 1 || f >= 3);
		if (f > 1 && n < 4000)
			slowed[n++] = f;
	}
	CHECK_NEAR((double)n / (double)total, 0.02, 0.003);
	/* Pareto(3, 2): median 3 * 2^(1/2), P90 3 * 10^(1/2) */
	stats_sort(slowed, n);
	CHECK_NEAR(stats_percentile(slowed, n, 50), 3 * sqrt(2), 0.25);
	CHECK_NEAR(stats_percentile(slowed, n, 90), 3 * sqrt(10), 1.0);
}

TEST(stalls_come_at_their_rate_and_repeat_per_seed)
{
	struct noise_spec s = spec_of("stall=6/min:200ms");
	double t, end, last_end = -1;
	long stalls = 0, inside = 0, steps = 8640000, i;

	/* a day every 10 ms: count the stalls' starts and the time inside */
	for (i = 0; i < steps; i++) {
		t = (double)i * 0.01;
		end = noise_stall_end(&s, 5, t);
		CHECK(end >= t);
		if (end > t) {
			inside++;
			if (end != last_end)
				stalls++;
			last_end = end;
		}
		if (end > t + 0.2 + 1e-9)       /* a run of touching stalls */
			CHECK(noise_stall_end(&s, 5, end) == end);
	}
	CHECK_NEAR((double)stalls / 1440.0, 6, 0.3);          /* per minute */
	CHECK_NEAR((double)inside / (double)steps, 0.1 * 0.2 * (1 - 0.02), 0.003);
	/* the same seed, the same stalls; another seed, others */
	for (i = 0, inside = 0; i < 60000; i++)
		inside += noise_stall_end(&s, 5, (double)i * 0.01) !=
			  noise_stall_end(&s, 6, (double)i * 0.01);
	CHECK(inside > 100);
	CHECK(noise_stall_end(&s, 5, 1234.567) == noise_stall_end(&s, 5, 1234.567));
	s.stall_rate = 0;
	CHECK(noise_stall_end(&s, 5, 12.5) == 12.5);
}

TEST(a_stall_ends_where_it_says)
{
	struct noise_spec s = spec_of("stall=10/min:500ms");
	double t = 0, end = 0;
	long i;

	for (i = 0; i < 600000 && end <= t; i++) {
		t = (double)i * 0.001;
		end = noise_stall_end(&s, 9, t);
	}
	CHECK(end > t);
	/* every time inside it ends at the same end, at most 500 ms on */
	CHECK(end - t <= 0.5 + 1e-9);
	CHECK(noise_stall_end(&s, 9, (t + end) / 2) == end);
	CHECK(noise_stall_end(&s, 9, end) == end);
}

TEST(spec_parses_parts_and_default)
{
	struct noise_spec s;
	char err[256], buf[256];

	CHECK_EQ_INT(noise_spec_parse(&s, "default", err, sizeof(err)), 0);
	CHECK(noise_spec_active(&s));
	noise_spec_format(&s, buf, sizeof(buf));
	CHECK_STR(buf, "drift=10%:30s-180s,instance=0.3%,jitter=5%,tail=1%:2:3,stall=1/min:200ms");
	CHECK_STR(buf, NOISE_DEFAULT);
	CHECK_EQ_INT(noise_spec_parse(&s, "drift=0.1:1min-1h,jitter=20%", err, sizeof(err)), 0);
	CHECK_NEAR(s.drift_sigma, 0.1, 1e-12);
	CHECK_NEAR(s.drift_min_s, 60, 1e-12);
	CHECK_NEAR(s.drift_max_s, 3600, 1e-12);
	CHECK_NEAR(s.jitter_sigma, 0.2, 1e-12);
	CHECK_NEAR(s.stall_rate, 0, 0);
	CHECK_EQ_INT(noise_spec_parse(&s, "stall=2/min:150ms,tail=1%:4", err, sizeof(err)), 0);
	CHECK_NEAR(s.stall_rate, 2.0 / 60, 1e-12);
	CHECK_NEAR(s.stall_s, 0.15, 1e-12);
	CHECK_NEAR(s.tail_p, 0.01, 1e-12);
	CHECK_NEAR(s.tail_min, 4, 0);
	CHECK_NEAR(s.tail_shape, 2, 0);
	/* later parts override: the default without its stalls */
	CHECK_EQ_INT(noise_spec_parse(&s, "default,stall=0/min:1s", err, sizeof(err)), 0);
	CHECK_NEAR(s.stall_rate, 0, 0);
	CHECK_NEAR(s.jitter_sigma, 0.05, 1e-12);
	CHECK_EQ_INT(noise_spec_parse(&s, "jitter=0", err, sizeof(err)), 0);
	CHECK(!noise_spec_active(&s));
	noise_spec_format(&s, buf, sizeof(buf));
	CHECK_STR(buf, "none");
}

/* SPEC is refused with a message containing WANT. */
static int refused(const char *spec, const char *want)
{
	struct noise_spec s;
	char err[256] = "";

	if (noise_spec_parse(&s, spec, err, sizeof(err)) == 0 || !strstr(err, want)) {
		printf("  '%s': \"%s\", expected \"%s\"\n", spec, err, want);
		return 0;
	}
	return !strchr(err, '\n');
}

TEST(spec_refuses_naming_the_part)
{
	CHECK(refused("", "empty"));
	CHECK(refused("loud", "unknown part 'loud'"));
	CHECK(refused("jitter=5%,wobble=1", "unknown part 'wobble=1'"));
	CHECK(refused("jitter", "bad part 'jitter'"));
	CHECK(refused("jitter=", "bad part 'jitter='"));
	CHECK(refused("jitter=5", "bad part 'jitter=5'"));          /* 500% */
	CHECK(refused("jitter=-1%", "bad part 'jitter=-1%'"));
	CHECK(refused("jitter=5%x", "bad part 'jitter=5%x'"));
	CHECK(refused("drift=10%:20s", "bad part 'drift=10%:20s'"));
	CHECK(refused("drift=10%:2min-20s", "bad part"));           /* MIN > MAX */
	CHECK(refused("drift=10%:20-120", "bad part"));             /* no units */
	CHECK(refused("tail=1%", "tail=P:MIN[:SHAPE]"));
	CHECK(refused("tail=1%:0.5", "bad part 'tail=1%:0.5'"));    /* MIN < 1 */
	CHECK(refused("tail=1%:3:0", "bad part"));
	CHECK(refused("stall=2/min", "stall=RATE:DURATION"));
	CHECK(refused("stall=2:150ms", "bad part"));
	CHECK(refused("stall=2/day:150ms", "bad part"));
	CHECK(refused("stall=60/min:1s", "bad part"));              /* down, not noisy */
	CHECK(refused("jitter=5%,", "ends with a comma"));
	CHECK(refused("jitter=5%,,tail=1%:2", "bad part"));
}

int main(void)
{
	RUN(drift_is_a_function_of_time_alone);
	RUN(drift_spread_is_its_sigma);
	RUN(drift_remembers_seconds_and_forgets_minutes);
	RUN(instance_is_per_seed_and_constant);
	RUN(jitter_is_lognormal);
	RUN(tail_strikes_its_share_with_pareto_factors);
	RUN(stalls_come_at_their_rate_and_repeat_per_seed);
	RUN(a_stall_ends_where_it_says);
	RUN(spec_parses_parts_and_default);
	RUN(spec_refuses_naming_the_part);
	return harness_done();
}
