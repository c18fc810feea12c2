/*
 * test_hostload.c - the host's own condition (lib/hostload.c): /proc/stat
 * and /proc/loadavg texts as node_exporter's series, hostile numbers left
 * out, this machine's /proc read; and a level's host scrapes folded
 * (lib/srvmetric.c): the busy, stolen and process shares of the CPU time
 * over the level's window, a node_exporter's per-CPU series summed.
 */
#include "tests/unit/harness.h"
#include "lib/hostload.h"
#include "lib/prom.h"
#include "lib/srvmetric.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char stat_text[] =
	"cpu  200 10 100 600 40 0 10 40 0 0\n"
	"cpu0 100 5 50 300 20 0 5 20 0 0\n"
	"intr 12345 0 0\n"
	"ctxt 999\n"
	"procs_running 3\n"
	"procs_blocked 0\n";

TEST(proc_stat_as_node_exporter_series)
{
	char out[HOSTLOAD_TEXT_MAX];
	int n = hostload_format(stat_text, sizeof(stat_text) - 1, "1.50 0.98 0.80 2/300 1234\n",
				100, 12.5, out, sizeof(out));

	CHECK(n > 0);
	CHECK_EQ_INT((long)strlen(out), n);
	CHECK(strstr(out, "node_cpu_seconds_total{mode=\"user\"} 2.00\n") != NULL);
	CHECK(strstr(out, "node_cpu_seconds_total{mode=\"idle\"} 6.00\n") != NULL);
	CHECK(strstr(out, "node_cpu_seconds_total{mode=\"steal\"} 0.40\n") != NULL);
	CHECK(strstr(out, "node_procs_running 3\n") != NULL);
	CHECK(strstr(out, "node_load1 1.50\n") != NULL);
	CHECK(strstr(out, "process_cpu_seconds_total 12.5000\n") != NULL);
	/* the per-CPU line is not the aggregate */
	CHECK(strstr(out, "{mode=\"user\"} 1.00") == NULL);
}

TEST(hostile_or_short_texts)
{
	char out[HOSTLOAD_TEXT_MAX];
	static const char old[] = "cpu 1 2 3 4\nprocs_running -5\n";
	static const char neg[] = "cpu -1 2 3 4\n";
	static const char huge[] = "cpu 99999999999999999999999 2 3 4\n";

	CHECK_EQ_INT(hostload_format("cpu0 1 2 3 4\n", 13, NULL, 100, -1, out, sizeof(out)), -1);
	CHECK_EQ_INT(hostload_format("cpu 1 2 3\n", 10, NULL, 100, -1, out, sizeof(out)), -1);
	CHECK_EQ_INT(hostload_format(neg, sizeof(neg) - 1, NULL, 100, -1, out, sizeof(out)), -1);
	CHECK_EQ_INT(hostload_format(huge, sizeof(huge) - 1, NULL, 100, -1, out, sizeof(out)), -1);
	CHECK_EQ_INT(hostload_format(old, sizeof(old) - 1, NULL, 0, -1, out, sizeof(out)), -1);
	/* an old kernel's four modes; a negative count and NaN left out */
	CHECK(hostload_format(old, sizeof(old) - 1, "nan 1 1", 100, NAN, out, sizeof(out)) > 0);
	CHECK(strstr(out, "mode=\"idle\"} 0.04\n") != NULL);
	CHECK(strstr(out, "iowait") == NULL);
	CHECK(strstr(out, "procs_running") == NULL);
	CHECK(strstr(out, "load1") == NULL);
	CHECK(strstr(out, "process_cpu") == NULL);
	/* too small a buffer: refused, not cut */
	CHECK_EQ_INT(hostload_format(stat_text, sizeof(stat_text) - 1, NULL, 100, 1, out, 40), -1);
}

TEST(this_machine)
{
	char out[HOSTLOAD_TEXT_MAX];
	struct prom_scrape ps;
	int n = hostload_read(out, sizeof(out));

	CHECK(n > 0);
	prom_scrape_init(&ps);
	CHECK_EQ_INT(prom_parse(&ps, out, n > 0 ? (size_t)n : 0, NULL, 0), 0);
	CHECK_EQ_INT((long)ps.bad_lines, 0);
	CHECK(ps.n >= 6);
	prom_scrape_release(&ps);
}

static void add(struct srvmetric_level *l, long scrape, enum srvmetric_at at, const char *text)
{
	struct prom_scrape s;
	char series[1024];
	size_t i;

	prom_scrape_init(&s);
	CHECK_EQ_INT(prom_parse(&s, text, strlen(text), NULL, 0), 0);
	for (i = 0; i < s.n; i++) {
		prom_series(&s.samples[i], series, sizeof(series));
		srvmetric_level_add(l, scrape, at, s.samples[i].name, series, s.samples[i].value);
	}
	prom_scrape_release(&s);
}

/* Over the window: 100 s of CPU time, 30 idle and 10 iowait (busy 60%),
 * 5 stolen, the process 2 s; the interval scrape's run queue averaged. */
TEST(a_level_of_host_scrapes_folded)
{
	struct srvmetric_level l;

	srvmetric_level_init(&l);
	add(&l, 0, SRVMETRIC_AT_START, "node_cpu_seconds_total{mode=\"user\"} 100\n"
	    "node_cpu_seconds_total{mode=\"idle\"} 500\n"
	    "node_cpu_seconds_total{mode=\"iowait\"} 50\n"
	    "node_cpu_seconds_total{mode=\"steal\"} 10\n"
	    "node_procs_running 1\nprocess_cpu_seconds_total 7\n");
	add(&l, 1, SRVMETRIC_AT_INTERVAL, "node_cpu_seconds_total{mode=\"user\"} 120\n"
	    "node_cpu_seconds_total{mode=\"idle\"} 515\n"
	    "node_cpu_seconds_total{mode=\"iowait\"} 55\n"
	    "node_cpu_seconds_total{mode=\"steal\"} 12\n"
	    "node_procs_running 5\nprocess_cpu_seconds_total 8\n");
	add(&l, 2, SRVMETRIC_AT_END, "node_cpu_seconds_total{mode=\"user\"} 155\n"
	    "node_cpu_seconds_total{mode=\"idle\"} 530\n"
	    "node_cpu_seconds_total{mode=\"iowait\"} 60\n"
	    "node_cpu_seconds_total{mode=\"steal\"} 15\n"
	    "node_procs_running 1\nprocess_cpu_seconds_total 9\n");
	srvmetric_level_finish(&l);
	CHECK_NEAR(l.delta[SRVMETRIC_CPU_ALL], 100, 1e-9);
	CHECK_NEAR(l.cpu_busy, 0.6, 1e-9);
	CHECK_NEAR(l.cpu_steal, 0.05, 1e-9);
	CHECK_NEAR(l.process_cpu, 0.02, 1e-9);
	CHECK_NEAR(l.mean[SRVMETRIC_PROCS_RUNNING], 5, 0);
	CHECK(l.family == NULL);
	CHECK(isnan(l.prefix_hit_rate));
}

/* A node_exporter's series, one per CPU and mode, summed; a server's
 * scrape without them says nothing of a host. */
TEST(per_cpu_series_summed_and_none_is_nan)
{
	struct srvmetric_level l;

	srvmetric_level_init(&l);
	add(&l, 0, SRVMETRIC_AT_START,
	    "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 10\n"
	    "node_cpu_seconds_total{cpu=\"1\",mode=\"idle\"} 10\n"
	    "node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 0\n"
	    "node_cpu_seconds_total{cpu=\"1\",mode=\"user\"} 0\n");
	add(&l, 1, SRVMETRIC_AT_END,
	    "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 11\n"
	    "node_cpu_seconds_total{cpu=\"1\",mode=\"idle\"} 10\n"
	    "node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 0\n"
	    "node_cpu_seconds_total{cpu=\"1\",mode=\"user\"} 3\n");
	srvmetric_level_finish(&l);
	CHECK_NEAR(l.cpu_busy, 0.75, 1e-9);
	CHECK(isnan(l.cpu_steal));
	CHECK(isnan(l.process_cpu));

	srvmetric_level_init(&l);
	add(&l, 0, SRVMETRIC_AT_START, "vllm:num_requests_running 2\n");
	add(&l, 1, SRVMETRIC_AT_END, "vllm:num_requests_running 0\n");
	srvmetric_level_finish(&l);
	CHECK(isnan(l.cpu_busy) && isnan(l.cpu_steal) && isnan(l.process_cpu));
	CHECK_STR(l.family, "vllm");
}

int main(void)
{
	RUN(proc_stat_as_node_exporter_series);
	RUN(hostile_or_short_texts);
	RUN(this_machine);
	RUN(a_level_of_host_scrapes_folded);
	RUN(per_cpu_series_summed_and_none_is_nan);
	return harness_done();
}
