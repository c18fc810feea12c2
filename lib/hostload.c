/*
 * hostload.c - /proc/stat and /proc/loadavg as node_exporter's series;
 * see hostload.h.
 */
#include "lib/hostload.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The modes of /proc/stat's cpu line, in its order (proc(5)). */
static const char *const modes[] = {
	"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"
};
#define N_MODES (sizeof(modes) / sizeof(modes[0]))

/* Appends to out[*len..cap); returns -1 once it would not fit. */
static int put(char *out, size_t cap, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out + *len, cap - *len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= cap - *len)
		return -1;
	*len += (size_t)n;
	return 0;
}

/* The line of text[0..len) that starts with key and a space, copied into
 * line (NUL-terminated, cut to fit); 0, or -1 when there is none. */
static int find_line(const char *text, size_t len, const char *key, char *line, size_t cap)
{
	size_t klen = strlen(key), i = 0;

	while (i < len) {
		const char *end = memchr(text + i, '\n', len - i);
		size_t n = end ? (size_t)(end - (text + i)) : len - i;

		if (n > klen && !memcmp(text + i, key, klen) && text[i + klen] == ' ') {
			n = n < cap - 1 ? n : cap - 1;
			memcpy(line, text + i, n);
			line[n] = '\0';
			return 0;
		}
		i += n + 1;
	}
	return -1;
}

int hostload_format(const char *stat, size_t stat_len, const char *loadavg,
		    long ticks_per_s, double process_cpu_s, char *out, size_t cap)
{
	char line[512], *p, *end;
	double ticks[N_MODES];
	size_t k, len = 0, got = 0;
	unsigned long long v;

	if (!stat || cap == 0 || ticks_per_s <= 0 ||
	    find_line(stat, stat_len, "cpu", line, sizeof(line)) < 0)
		return -1;
	/* the counters, in ticks; fewer fields on old kernels */
	for (p = line + 3; got < N_MODES; got++) {
		errno = 0;
		v = strtoull(p, &end, 10);
		if (end == p || errno || *p == '-' || v > (1ULL << 62))
			break;
		ticks[got] = (double)v;
		p = end;
	}
	if (got < 4)    /* user, nice, system, idle at the least */
		return -1;
	out[0] = '\0';
	if (put(out, cap, &len, "# TYPE node_cpu_seconds_total counter\n") < 0)
		return -1;
	for (k = 0; k < got; k++)
		if (put(out, cap, &len, "node_cpu_seconds_total{mode=\"%s\"} %.2f\n", modes[k],
			ticks[k] / (double)ticks_per_s) < 0)
			return -1;
	if (find_line(stat, stat_len, "procs_running", line, sizeof(line)) == 0) {
		errno = 0;
		v = strtoull(line + 14, &end, 10);
		if (end != line + 14 && !errno && line[14] != '-' && v <= 1000000000ULL &&
		    put(out, cap, &len, "# TYPE node_procs_running gauge\nnode_procs_running %llu\n",
			v) < 0)
			return -1;
	}
	if (loadavg) {
		double l1 = strtod(loadavg, &end);

		if (end != loadavg && isfinite(l1) && l1 >= 0 && l1 <= 1e9 &&
		    put(out, cap, &len, "# TYPE node_load1 gauge\nnode_load1 %.2f\n", l1) < 0)
			return -1;
	}
	if (process_cpu_s >= 0 && isfinite(process_cpu_s) && process_cpu_s < 1e12 &&
	    put(out, cap, &len, "# TYPE process_cpu_seconds_total counter\n"
		"process_cpu_seconds_total %.4f\n", process_cpu_s) < 0)
		return -1;
	return (int)len;
}

/* A small /proc file into buf (NUL-terminated); its length, or -1. */
static long read_small(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, cap - 1, f);
	fclose(f);
	buf[n] = '\0';
	return (long)n;
}

int hostload_read(char *out, size_t cap)
{
	/* /proc/stat's cpu lines come first; the counts after them are
	 * per-CPU and interrupt lines, which can be long: procs_running is
	 * near the end, so the whole file is read (bounded) */
	static char stat[256 * 1024];
	char loadavg[128];
	struct timespec cpu;
	long n = read_small("/proc/stat", stat, sizeof(stat));
	double process_s = -1;

	if (n < 0)
		return -1;
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu) == 0)
		process_s = (double)cpu.tv_sec + (double)cpu.tv_nsec / 1e9;
	return hostload_format(stat, (size_t)n, read_small("/proc/loadavg", loadavg,
			       sizeof(loadavg)) > 0 ? loadavg : NULL, sysconf(_SC_CLK_TCK),
			       process_s, out, cap);
}
