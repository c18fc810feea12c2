/*
 * info.c - `tracebench record info TRACE`: a summary of a trace, so a user
 * knows what a replay of it will send: how many requests over what time
 * span at what rate, the spread of prompt and output lengths (P50, P90,
 * P99, max; lib/stats), endpoints, models, and how much of the prompt text
 * a server's prefix cache could reuse, and the sessions (turns per session,
 * think times) a replay of it runs as conversations.
 *
 * Prefix sharing is measured on words, the unit record uses for tokens:
 * each prompt (the completion prompt, or the chat messages' text in order)
 * is cut into blocks of --block-words words, and a block counts as shared
 * when the whole prefix up to its end appeared in an earlier request - the
 * reuse a block-based prefix cache of unlimited size would find.
 */
#include "info.h"
#include "lib/cli.h"
#include "lib/json.h"
#include "lib/stats.h"
#include "lib/table.h"
#include "lib/trace.h"
#include "lib/tracefile.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "tracebench record info"
#define MAX_NAMES 1000          /* distinct paths or models listed */

/* A set of 64-bit prefix hashes (open addressing; 0 is stored apart). */
struct hash_set {
	uint64_t *slot;
	size_t cap, n;
	int has_zero;
};

/* Adds h; returns 1 when it was there already, 0 when added, -1 out of memory. */
static int hash_set_add(struct hash_set *s, uint64_t h)
{
	size_t i;

	if (h == 0) {
		int had = s->has_zero;

		s->has_zero = 1;
		return had;
	}
	if (2 * (s->n + 1) > s->cap) {
		struct hash_set bigger = { 0 };
		size_t j;

		bigger.cap = s->cap ? s->cap * 2 : 1024;
		bigger.slot = calloc(bigger.cap, sizeof(uint64_t));
		if (!bigger.slot)
			return -1;
		for (j = 0; j < s->cap; j++)
			if (s->slot[j])
				hash_set_add(&bigger, s->slot[j]);
		bigger.has_zero = s->has_zero;
		free(s->slot);
		*s = bigger;
	}
	for (i = (size_t)(h * 0x9e3779b97f4a7c15ULL) & (s->cap - 1); s->slot[i]; i = (i + 1) & (s->cap - 1))
		if (s->slot[i] == h)
			return 1;
	s->slot[i] = h;
	s->n++;
	return 0;
}

/* Counts of distinct strings, in order of first appearance. */
struct tally {
	char *name[MAX_NAMES];
	long count[MAX_NAMES];
	size_t n;
	long others;    /* past MAX_NAMES distinct names */
};

static void tally_add(struct tally *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->name[i], name) == 0) {
			t->count[i]++;
			return;
		}
	if (t->n == MAX_NAMES || !(t->name[t->n] = strdup(name))) {
		t->others++;
		return;
	}
	t->count[t->n++] = 1;
}

static void tally_print(const char *label, const struct tally *t)
{
	size_t i;

	printf("%-16s", label);
	for (i = 0; i < t->n; i++) {
		/* a trace's words, shown as text: no control byte reaches the
		 * terminal (lib/table.h) */
		fputs(i ? ", " : "", stdout);
		table_put_text(stdout, t->name[i]);
		printf(" %ld", t->count[i]);
	}
	if (t->others)
		printf("%sothers %ld", t->n ? ", " : "", t->others);
	if (!t->n && !t->others)
		printf("none");
	printf("\n");
}

static void tally_release(struct tally *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->name[i]);
}

struct prefix_state {
	struct hash_set seen;
	long block_words;
	long requests_sharing;  /* first block seen before */
	long blocks, blocks_shared;
};

/*
 * Feeds the words of s into the running FNV-1a hash *h (words separated by
 * one space, whatever the whitespace was); at each block end, looks the
 * prefix hash up. Returns -1 when out of memory.
 */
static int prefix_feed(struct prefix_state *p, const char *s, uint64_t *h, long *words, int *first)
{
	while (*s) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		if (*words > 0) {
			*h ^= ' ';
			*h *= 0x100000001b3ULL;
		}
		while (*s && !isspace((unsigned char)*s)) {
			*h ^= (unsigned char)*s++;
			*h *= 0x100000001b3ULL;
		}
		if (++*words % p->block_words == 0) {
			int had = hash_set_add(&p->seen, *h);

			if (had < 0)
				return -1;
			p->blocks++;
			p->blocks_shared += had;
			if (*first && had)
				p->requests_sharing++;
			*first = 0;
		}
	}
	return 0;
}

/* The prompt text of a request body: "prompt", or the messages' contents. */
static int prefix_request(struct prefix_state *p, const cJSON *body)
{
	const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(body, "messages"), *m, *part;
	const char *prompt = json_get_string(body, "prompt");
	uint64_t h = 0xcbf29ce484222325ULL;
	long words = 0;
	int first = 1;

	if (prompt)
		return prefix_feed(p, prompt, &h, &words, &first);
	cJSON_ArrayForEach(m, msgs) {
		const cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");

		if (cJSON_IsString(content) && prefix_feed(p, content->valuestring, &h, &words, &first) < 0)
			return -1;
		if (!cJSON_IsArray(content))
			continue;
		cJSON_ArrayForEach(part, content) {
			const char *text = json_get_string(part, "text");

			if (text && prefix_feed(p, text, &h, &words, &first) < 0)
				return -1;
		}
	}
	return 0;
}

static void print_lengths(const char *label, double *v, size_t n, long total)
{
	printf("%-16s", label);
	if (n == 0) {
		printf("unknown\n");
		return;
	}
	stats_sort(v, n);
	printf("P50 %.0f  P90 %.0f  P99 %.0f  max %.0f  mean %.1f", stats_percentile(v, n, 50),
	       stats_percentile(v, n, 90), stats_percentile(v, n, 99), v[n - 1], stats_mean(v, n));
	if ((long)n < total)
		printf("  (%zu of %ld known)", n, total);
	printf("\n");
}

/* What info gathers from the records of a trace. */
struct info {
	struct prefix_state prefix;
	struct tally paths, models;
	double *in, *out;       /* the known lengths */
	size_t n_in, n_out, cap;
	int64_t first_ns, last_ns;
	long n;
	long *sessions;         /* the session of each request in one, in file order */
	double *think_ms;       /* the think times of later turns */
	size_t n_sessions, n_think;
};

/* Counts one request. Returns 0, or -1 when out of memory. */
static int info_add(struct info *inf, const struct trace_request *t)
{
	cJSON *body;
	int rc;

	if ((size_t)inf->n == inf->cap) {
		double *a, *b, *c;
		long *d;

		inf->cap = inf->cap ? inf->cap * 2 : 1024;
		a = realloc(inf->in, inf->cap * sizeof(*inf->in));
		if (a)
			inf->in = a;
		b = realloc(inf->out, inf->cap * sizeof(*inf->out));
		if (b)
			inf->out = b;
		c = realloc(inf->think_ms, inf->cap * sizeof(*inf->think_ms));
		if (c)
			inf->think_ms = c;
		d = realloc(inf->sessions, inf->cap * sizeof(*inf->sessions));
		if (d)
			inf->sessions = d;
		if (!a || !b || !c || !d)
			return -1;
	}
	if (t->session >= 0) {
		inf->sessions[inf->n_sessions++] = t->session;
		if (t->turn > 0)
			inf->think_ms[inf->n_think++] = (double)t->think_ns / 1e6;
	}
	if (inf->n == 0 || t->arrival_ns < inf->first_ns)
		inf->first_ns = t->arrival_ns;
	if (inf->n == 0 || t->arrival_ns > inf->last_ns)
		inf->last_ns = t->arrival_ns;
	if (t->input_tokens >= 0)
		inf->in[inf->n_in++] = (double)t->input_tokens;
	if (t->output_tokens >= 0)
		inf->out[inf->n_out++] = (double)t->output_tokens;
	tally_add(&inf->paths, t->path);
	body = cJSON_Parse(t->body);
	tally_add(&inf->models, json_get_string(body, "model") ? json_get_string(body, "model") : "(none)");
	rc = prefix_request(&inf->prefix, body);
	cJSON_Delete(body);
	if (rc < 0)
		return -1;
	inf->n++;
	return 0;
}

/* Reads every record of r. Returns 0, or -1 after saying why. */
static int info_read(struct info *inf, struct tracefile_reader *r, const char *path)
{
	char err[TRACEFILE_ERRLEN];
	cJSON *rec;
	int got;

	while ((got = tracefile_reader_next(r, &rec)) == 1) {
		struct trace_request t;

		trace_request_init(&t);
		got = trace_request_from_json(&t, rec, err, sizeof(err));
		cJSON_Delete(rec);
		if (got < 0) {
			fprintf(stderr, PROG ": '%s' line %zu: %s\n", path, tracefile_reader_lineno(r), err);
			trace_request_release(&t);
			return -1;
		}
		got = info_add(inf, &t);
		trace_request_release(&t);
		if (got < 0) {
			fprintf(stderr, PROG ": out of memory\n");
			return -1;
		}
	}
	if (got < 0) {
		fprintf(stderr, PROG ": %s\n", tracefile_reader_error(r));
		return -1;
	}
	if (tracefile_reader_damage(r))
		fprintf(stderr, PROG ": '%s': %s\n", path, tracefile_reader_damage(r));
	return 0;
}

static int by_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* "sessions  S of R requests ...; turns per session ...; think time ...",
 * for a trace with sessions. Sorts inf's session and think arrays. */
static void print_sessions(struct info *inf)
{
	size_t i, j, k = 0;
	double *turns;

	if (!inf->n_sessions)
		return;
	qsort(inf->sessions, inf->n_sessions, sizeof(*inf->sessions), by_long);
	turns = malloc(inf->n_sessions * sizeof(*turns));
	if (!turns)
		return;
	for (i = 0; i < inf->n_sessions; i = j) {
		for (j = i; j < inf->n_sessions && inf->sessions[j] == inf->sessions[i]; j++)
			;
		turns[k++] = (double)(j - i);
	}
	stats_sort(turns, k);
	printf("%-16s%zu, holding %zu of %ld requests; turns per session P50 %.0f  max %.0f  "
	       "mean %.1f\n", "sessions", k, inf->n_sessions, inf->n, stats_percentile(turns, k, 50),
	       turns[k - 1], (double)inf->n_sessions / (double)k);
	free(turns);
	if (inf->n_think) {
		stats_sort(inf->think_ms, inf->n_think);
		printf("%-16sP50 %.0f  P90 %.0f  max %.0f ms (before a later turn)\n", "think time",
		       stats_percentile(inf->think_ms, inf->n_think, 50),
		       stats_percentile(inf->think_ms, inf->n_think, 90),
		       inf->think_ms[inf->n_think - 1]);
	}
}

static void info_print(struct info *inf, const cJSON *header, const char *path)
{
	const cJSON *source = cJSON_GetObjectItemCaseSensitive(header, "source");
	const char *kind = json_get_string(source, "kind");
	const struct prefix_state *p = &inf->prefix;
	long n = inf->n;

	printf("%-16s%s\n", "trace", path);
	printf("%-16s", "source");
	table_put_text(stdout, kind ? kind : "unknown");
	if (json_get_string(source, "format")) {
		fputs(" (", stdout);
		table_put_text(stdout, json_get_string(source, "format"));
		fputs(")", stdout);
	}
	printf("\n%-16s%ld\n", "requests", n);
	if (n > 1 && inf->last_ns > inf->first_ns) {
		double span = (double)(inf->last_ns - inf->first_ns) / 1e9;

		printf("%-16s%.3f s (first to last arrival)\n", "time span", span);
		printf("%-16s%.3f req/s\n", "mean rate", (double)(n - 1) / span);
	} else {
		printf("%-16s0 s: every request arrives at once (a closed-loop trace)\n", "time span");
	}
	print_lengths("input tokens", inf->in, inf->n_in, n);
	print_lengths("output tokens", inf->out, inf->n_out, n);
	print_sessions(inf);
	tally_print("endpoints", &inf->paths);
	tally_print("models", &inf->models);
	printf("%-16s%ld of %ld requests (%.1f%%) start with a %ld-word block seen earlier\n",
	       "prefix sharing", p->requests_sharing, n,
	       n ? 100.0 * (double)p->requests_sharing / (double)n : 0.0, p->block_words);
	printf("%-16s%ld of %ld full %ld-word blocks (%.1f%%) repeat an earlier prefix\n", "",
	       p->blocks_shared, p->blocks, p->block_words,
	       p->blocks ? 100.0 * (double)p->blocks_shared / (double)p->blocks : 0.0);
}

int info_run(const struct record_info_options *o)
{
	struct info inf;
	struct tracefile_reader *r;
	char err[TRACEFILE_ERRLEN];
	int rc;

	memset(&inf, 0, sizeof(inf));
	inf.prefix.block_words = o->block_words;
	r = tracefile_reader_open(o->trace, TRACEFILE_KIND_TRACE, err, sizeof(err));
	if (!r) {
		fprintf(stderr, PROG ": %s\n", err);
		return CLI_EXIT_USAGE;
	}
	rc = CLI_EXIT_USAGE;
	if (info_read(&inf, r, o->trace) == 0) {
		info_print(&inf, tracefile_reader_header(r), o->trace);
		rc = CLI_EXIT_OK;
	}
	tracefile_reader_close(r);
	tally_release(&inf.paths);
	tally_release(&inf.models);
	free(inf.prefix.seen.slot);
	free(inf.in);
	free(inf.out);
	free(inf.sessions);
	free(inf.think_ms);
	return rc;
}
