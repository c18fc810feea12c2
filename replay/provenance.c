/*
 * provenance.c - the results header's "provenance"; see provenance.h.
 *
 * Everything here is read once, before the run starts: the host from
 * uname(2), sysconf(3) and /proc/cpuinfo (absent fields are left out,
 * never guessed), the command line from the options.
 */
#include "provenance.h"
#include "lib/redact.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* A header argument "Name: value" with its value redacted unless the name
 * is harmless. */
static char *redact_header_arg(const char *prefix, const char *h)
{
	size_t name = replay_header_name_len(h), len = strlen(prefix) + strlen(h) + 16;
	char *out = malloc(len);

	if (!out)
		return NULL;
	if (redact_header_is_safe(h, name, NULL))
		snprintf(out, len, "%s%s", prefix, h);
	else
		snprintf(out, len, "%s%.*s: %s", prefix, (int)name, h, REDACT_MARK);
	return out;
}

char *provenance_arg(const char *prev, const char *arg)
{
	const char *eq, *value;

	/* a header as getopt reads -H, however it is spelled ("--hea",
	 * "-kH", "-kHName: value"): the spelling is not the option */
	if (prev && replay_option_value(prev, &value) == 'H' && !value)
		return redact_header_arg("", arg);
	if (replay_option_value(arg, &value) == 'H' && value) {
		char *prefix = strndup(arg, (size_t)(value - arg)), *out;

		out = prefix ? redact_header_arg(prefix, value) : NULL;
		free(prefix);
		return out;
	}
	if (strstr(arg, "://")) {
		/* --endpoint=URL keeps its option name */
		if (!strncmp(arg, "--", 2) && (eq = strchr(arg, '=')) && eq < strstr(arg, "://")) {
			char *url = redact_url(eq + 1, NULL), *out;
			size_t len = (size_t)(eq + 1 - arg) + (url ? strlen(url) : 0) + 1;

			if (!url || !(out = malloc(len))) {
				free(url);
				return NULL;
			}
			snprintf(out, len, "%.*s%s", (int)(eq + 1 - arg), arg, url);
			free(url);
			return out;
		}
		return redact_url(arg, NULL);
	}
	return strdup(arg);
}

/* The CPU's model name from /proc/cpuinfo into buf, or "" when unknown. */
static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		const char *v;

		if (strncmp(line, "model name", 10) || !(v = strchr(line, ':')))
			continue;
		v += 1 + strspn(v + 1, " \t");
		snprintf(buf, len, "%.*s", (int)strcspn(v, "\n"), v);
		break;
	}
	fclose(f);
}

static void add_host(cJSON *p)
{
	cJSON *h = cJSON_AddObjectToObject(p, "host");
	struct utsname u;
	char cpu[256];
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	if (!h)
		return;
	cpu_model(cpu, sizeof(cpu));
	if (cpu[0])
		cJSON_AddStringToObject(h, "cpu", cpu);
	if (cores > 0)
		cJSON_AddNumberToObject(h, "cores", (double)cores);
	if (uname(&u) == 0) {
		char kernel[2 * sizeof(u.release) + 2];

		snprintf(kernel, sizeof(kernel), "%s %s", u.sysname, u.release);
		cJSON_AddStringToObject(h, "kernel", kernel);
		cJSON_AddStringToObject(h, "machine", u.machine);
	}
	/* lib/clock.c: every duration is of this clock */
	cJSON_AddStringToObject(h, "clock", "CLOCK_MONOTONIC");
}

static int add_command(cJSON *p, const struct replay_options *o)
{
	cJSON *cmd = cJSON_AddArrayToObject(p, "command");
	int i;

	if (!cmd || !cJSON_AddItemToArray(cmd, cJSON_CreateString("tracebench")))
		return -1;
	for (i = 0; i < o->argc; i++) {
		char *a = provenance_arg(i ? o->argv[i - 1] : NULL, o->argv[i]);
		cJSON *s = a ? cJSON_CreateString(a) : NULL;

		free(a);
		if (!s || !cJSON_AddItemToArray(cmd, s)) {
			cJSON_Delete(s);
			return -1;
		}
	}
	return 0;
}

cJSON *provenance_new(const struct replay_options *o, const cJSON *server)
{
	cJSON *p = cJSON_CreateObject(), *tags;
	char build[160];
	size_t i;

	if (!p || add_command(p, o) < 0)
		goto nomem;
	snprintf(build, sizeof(build), "tracebench %s (%s)", TB_VERSION, tracebench_build_id);
	cJSON_AddStringToObject(p, "build", build);
	add_host(p);
	if (o->n_tags) {
		if (!(tags = cJSON_AddObjectToObject(p, "tags")))
			goto nomem;
		for (i = 0; i < o->n_tags; i++) {
			size_t k = strcspn(o->tags[i], "=");
			char key[REPLAY_MAX_TAG_KEY + 1];

			snprintf(key, sizeof(key), "%.*s", (int)k, o->tags[i]);
			if (!cJSON_AddStringToObject(tags, key, o->tags[i] + k + 1))
				goto nomem;
		}
	}
	if (o->rerun_of) {
		cJSON *r = cJSON_Duplicate(o->rerun_of, 1);

		if (!r || !cJSON_AddItemToObject(p, "rerun_of", r)) {
			cJSON_Delete(r);
			goto nomem;
		}
	}
	if (server) {
		cJSON *s = cJSON_Duplicate(server, 1);

		if (!s || !cJSON_AddItemToObject(p, "server", s)) {
			cJSON_Delete(s);
			goto nomem;
		}
	}
	return p;
nomem:
	cJSON_Delete(p);
	return NULL;
}
