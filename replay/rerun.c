/*
 * rerun.c - the recorded experiment's command line, expanded; see rerun.h.
 *
 * Which words are options, and which take the next word as their value,
 * replay/options.c says (replay_option_id), so that a value is never
 * mistaken for an operand and an option's short and long names are one.
 */
#include "rerun.h"
#include "options.h"
#include "provenance.h"
#include "lib/redact.h"
#include "lib/table.h"
#include "lib/tracefile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RERUN_MAX_WORDS 512

/* One word of a command line: its option (0: an operand) and, for an
 * option whose value is the next word, that word. */
struct word {
	const char *text, *value;
	int id;
};

/* Splits words[0 .. n) into options and operands; returns how many. */
static size_t split(char *const *words, size_t n, struct word *out)
{
	size_t i, k = 0;
	int takes, ended = 0;
	const char *attached;

	for (i = 0; i < n && k < RERUN_MAX_WORDS; i++) {
		out[k].text = words[i];
		out[k].value = NULL;
		out[k].id = ended ? 0 : replay_option_id(words[i], &takes);
		/* the next word is a value when an option in this word takes
		 * it, the last of a run of short ones too ("-qc 2") */
		takes = out[k].id > 0 && replay_option_value(words[i], &attached) > 0 && !attached;
		if (!ended && !strcmp(words[i], "--"))
			ended = 1;          /* kept as an operand word: getopt reads it again */
		else if (takes && i + 1 < n)
			out[k].value = words[++i];
		k++;
	}
	return k;
}

static int given(const struct word *w, size_t n, int id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (w[i].id == id)
			return 1;
	return 0;
}

static int push(struct rerun *r, const char *s)
{
	if (r->argc + 1 >= RERUN_MAX_WORDS * 2 + 8 || !(r->argv[r->argc] = strdup(s)))
		return -1;
	r->argc++;
	return 0;
}

/* The recorded run's words, after "tracebench replay", into store. */
static size_t recorded(const cJSON *cmd, char **store, size_t max)
{
	const cJSON *it = cmd ? cmd->child : NULL;
	size_t n = 0;

	/* past "tracebench", "replay" */
	it = it ? it->next : NULL;
	for (it = it ? it->next : NULL; it && n < max; it = it->next)
		if (cJSON_IsString(it))
			store[n++] = it->valuestring;
	return n;
}

/* A recorded word redacted: say which, and how to give it again. */
static int redacted(const struct word *w, const char *path, char *err, size_t errlen)
{
	const char *v = w->value ? w->value : w->text;

	if (!strstr(v, REDACT_MARK))
		return 0;
	snprintf(err, errlen, "'%s' recorded %s%s%s without its secret value; give it again "
		 "(e.g. -e URL, -H 'Name: value')", path, w->text, w->value ? " " : "",
		 w->value ? w->value : "");
	return -1;
}

/* The getopt value of the long option "--name". */
static int option(const char *name)
{
	int takes;

	return replay_option_id(name, &takes);
}

/* r->of: which run this reruns, from which file, with which words now. */
static int note_origin(struct rerun *r, const cJSON *h, const char *path,
		       const struct word *now, size_t n_now)
{
	cJSON *of = cJSON_CreateObject(), *over;
	const char *prev = NULL;
	size_t i;

	if (!of || !(over = cJSON_CreateArray())) {
		cJSON_Delete(of);
		return -1;
	}
	r->of = of;
	cJSON_AddItemToObject(of, "run_id", cJSON_Duplicate(
		cJSON_GetObjectItemCaseSensitive(h, "run_id"), 0));
	cJSON_AddItemToObject(of, "label", cJSON_Duplicate(
		cJSON_GetObjectItemCaseSensitive(h, "label"), 0));
	cJSON_AddStringToObject(of, "file", path);
	cJSON_AddItemToObject(of, "overrides", over);
	for (i = 0; i < n_now; i++) {
		const char *words[2] = { now[i].text, now[i].value };
		int k;

		for (k = 0; k < 2 && words[k]; k++) {
			char *a = provenance_arg(prev, words[k]);

			if (!a || !cJSON_AddItemToArray(over, cJSON_CreateString(a))) {
				free(a);
				return -1;
			}
			free(a);
			prev = words[k];
		}
	}
	return 0;
}

int rerun_expand(int argc, char **argv, struct rerun *r, char *err, size_t errlen)
{
	struct word *now = calloc(RERUN_MAX_WORDS, sizeof(*now));
	struct word *old = calloc(RERUN_MAX_WORDS, sizeof(*old));
	char **old_words = calloc(RERUN_MAX_WORDS, sizeof(*old_words));
	struct tracefile_reader *rd = NULL;
	const cJSON *h, *prov, *seed, *trace;
	const char *path = NULL;
	size_t n_now = 0, n_old, i;
	int rc = -1, operand_now, rerun = option("--rerun");

	memset(r, 0, sizeof(*r));
	if (!now || !old || !old_words)
		goto nomem;
	n_now = split(argv + 1, (size_t)(argc > 0 ? argc - 1 : 0), now);
	for (i = 0; i < n_now; i++)
		if (now[i].id == rerun)
			path = now[i].value ? now[i].value : strchr(now[i].text, '=') ?
			       strchr(now[i].text, '=') + 1 : NULL;
	if (!path) {
		rc = 0;
		goto done;
	}
	if (!(rd = tracefile_reader_open(path, TRACEFILE_KIND_RESULTS, err, errlen)))
		goto done;
	h = tracefile_reader_header(rd);
	prov = cJSON_GetObjectItemCaseSensitive(h, "provenance");
	if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(prov, "command"))) {
		snprintf(err, errlen, "'%s' does not record its command line (written before "
			 "provenance, or not by replay): nothing to rerun", path);
		goto done;
	}
	trace = cJSON_GetObjectItemCaseSensitive(h, "trace");
	snprintf(r->trace_id.digest, sizeof(r->trace_id.digest), "%s",
		 cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(trace, "digest")) ? : "");
	snprintf(r->trace_id.crc32, sizeof(r->trace_id.crc32), "%s",
		 cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(trace, "crc32")) ? : "");
	n_old = split(old_words, recorded(cJSON_GetObjectItemCaseSensitive(prov, "command"),
					  old_words, RERUN_MAX_WORDS), old);
	if (!(r->argv = calloc(RERUN_MAX_WORDS * 2 + 8, sizeof(char *))) || push(r, "replay"))
		goto nomem;
	operand_now = given(now, n_now, 0);
	for (i = 0; i < n_old; i++) {
		const struct word *w = &old[i];

		/* replaced by the words given now, or a run's own */
		if (w->id < 0 || (w->id == 0 && operand_now) ||
		    (w->id > 0 && given(now, n_now, w->id)) || w->id == 'l' || w->id == 'f' ||
		    w->id == rerun || w->id == option("--label-a") || w->id == option("--label-b"))
			continue;
		if (redacted(w, path, err, errlen))
			goto done;
		/* a file must not choose which of the user's variables is sent
		 * (to the endpoint it records, unless -e is given) */
		if (w->id == option("--api-key-env")) {
			snprintf(err, errlen, "'%s' recorded %s%s%s: which variable's secret is "
				 "sent is not taken from a file; give it again (--api-key-env NAME)",
				 path, w->text, w->value ? " " : "", w->value ? w->value : "");
			goto done;
		}
		if (push(r, w->text) || (w->value && push(r, w->value)))
			goto nomem;
	}
	/* the salt the run drew: the same bodies, byte for byte */
	seed = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(h, "params"),
						"salt_seed");
	if (cJSON_IsNumber(seed) && seed->valuedouble >= 0 && seed->valuedouble <= 0x7fffffff &&
	    !given(now, n_now, option("--salt-seed")) && !given(now, n_now, option("--no-salt")) &&
	    !given(old, n_old, option("--salt-seed"))) {
		char num[24];

		snprintf(num, sizeof(num), "%.0f", seed->valuedouble);
		if (push(r, "--salt-seed") || push(r, num))
			goto nomem;
	}
	for (i = 0; i < n_now; i++)
		if (push(r, now[i].text) || (now[i].value && push(r, now[i].value)))
			goto nomem;
	if (note_origin(r, h, path, now, n_now) < 0)
		goto nomem;
	rc = 1;
	goto done;
nomem:
	snprintf(err, errlen, "out of memory");
	rc = -1;
done:
	if (rc < 0)
		table_clean_text(err);  /* it may name a file's words: as text */
	tracefile_reader_close(rd);
	free(now);
	free(old);
	free(old_words);
	return rc;
}

void rerun_release(struct rerun *r)
{
	int i;

	for (i = 0; r->argv && i < r->argc; i++)
		free(r->argv[i]);
	free(r->argv);
	cJSON_Delete(r->of);
	memset(r, 0, sizeof(*r));
}
