/*
 * hostload.h - the replaying host's own condition, read from /proc and
 * written as Prometheus text in node_exporter's names, so that replay
 * keeps it beside a server's metrics (a "metrics" record of source
 * "host", replay/scrape.h) and analyze folds both the same way
 * (lib/srvmetric.h): per level, how busy the host's CPUs were, how much
 * time the hypervisor took from them (steal), how many tasks wanted a CPU,
 * and replay's own CPU time. A level run on a busy host can then be told
 * from one run on a quiet host (issue 32).
 *
 *   node_cpu_seconds_total{mode="user"|"nice"|"system"|"idle"|"iowait"|
 *                          "irq"|"softirq"|"steal"}   all CPUs summed
 *   node_procs_running                               tasks runnable now
 *   node_load1                                       1-minute load average
 *   process_cpu_seconds_total                        replay's own CPU time
 */
#ifndef TB_HOSTLOAD_H
#define TB_HOSTLOAD_H

#include <stddef.h>

#define HOSTLOAD_TEXT_MAX 1024   /* the text is always shorter */

/*
 * The exposition text of /proc/stat's text 'stat' (its aggregate "cpu"
 * line, in ticks_per_s units, and "procs_running"), /proc/loadavg's
 * 'loadavg' (NULL: left out) and the process's CPU seconds (< 0: left
 * out), into out (cap bytes, NUL-terminated). Returns its length, or -1
 * when stat has no usable cpu line (nothing written). Numbers out of
 * range are left out, not trusted.
 */
int hostload_format(const char *stat, size_t stat_len, const char *loadavg,
		    long ticks_per_s, double process_cpu_s, char *out, size_t cap);

/* The same from this host's /proc and this process, now: the length,
 * or -1 (no /proc: not Linux, or not mounted). */
int hostload_read(char *out, size_t cap);

#endif
