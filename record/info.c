/*
 * info.c - `tracebench record info TRACE`: a summary of a trace, so a user
 * knows what a replay of it will send: how many requests over what time
 * span at what rate, the spread of prompt and output lengths (P50, P90,
 * P99, max; lib/stats), endpoints, models, and how much of the prompt text
 * a server's prefix cache could reuse.
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
#include "lib/trace.h"
#include "lib/tracefile.h"

#include <ctype.h>
#include <getopt.h>
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
	for (i = 0; i < t->n; i++)
		printf("%s%s %ld", i ? ", " : "", t->name[i], t->count[i]);
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

static void usage(FILE *out)
{
	fprintf(out,
		"usage: tracebench record info [options] TRACE\n"
		"\n"
		"Describe a trace before replaying it: requests, time span, mean rate,\n"
		"input and output length percentiles, endpoints, models and prefix sharing\n"
		"(blocks of prompt words that repeat an earlier request's prefix).\n"
		"\n"
		"options:\n"
		"      --block-words N   prefix block size in words (default 512)\n"
		"  -h, --help            show this help\n"
		"\n"
		"examples:\n"
		"  tracebench record info trace.jsonl.gz\n"
		"  tracebench record info --block-words 16 chat4.jsonl.gz\n");
}

int info_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "block-words", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct prefix_state prefix = { .block_words = 512 };
	struct tally *paths = calloc(1, sizeof(*paths)), *models = calloc(1, sizeof(*models));
	struct tracefile_reader *r = NULL;
	double *in = NULL, *out = NULL;
	size_t n_in = 0, n_out = 0, cap = 0;
	int64_t first_ns = 0, last_ns = 0;
	char err[TRACEFILE_ERRLEN];
	const cJSON *source;
	const char *path, *kind, *damage;
	long n = 0;
	int c, rc = 2, got;
	cJSON *rec = NULL;

	if (!paths || !models) {
		fprintf(stderr, PROG ": out of memory\n");
		goto cleanup;
	}
	optind = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (cli_parse_long(optarg, 1, 1000000, &prefix.block_words) < 0) {
				fprintf(stderr, PROG ": invalid value '%s' for --block-words\n", optarg);
				goto cleanup;
			}
			break;
		case 'h':
			usage(stdout);
			rc = 0;
			goto cleanup;
		default:
			fprintf(stderr, "see '" PROG " --help'\n");
			goto cleanup;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, PROG ": %s\n", optind == argc ? "no trace; give TRACE" : "give exactly one TRACE");
		goto cleanup;
	}
	path = argv[optind];
	r = tracefile_reader_open(path, TRACEFILE_KIND_TRACE, err);
	if (!r) {
		fprintf(stderr, PROG ": %s\n", err);
		goto cleanup;
	}
	while ((got = tracefile_reader_next(r, &rec)) == 1) {
		struct trace_request t;
		cJSON *body;

		trace_request_init(&t);
		if (trace_request_from_json(&t, rec, err, sizeof(err)) < 0) {
			fprintf(stderr, PROG ": '%s' line %zu: %s\n", path, tracefile_reader_lineno(r), err);
			trace_request_release(&t);
			goto cleanup;
		}
		if ((size_t)n == cap) {
			double *a, *b;

			cap = cap ? cap * 2 : 1024;
			a = realloc(in, cap * sizeof(*in));
			if (a)
				in = a;
			b = realloc(out, cap * sizeof(*out));
			if (b)
				out = b;
			if (!a || !b) {
				fprintf(stderr, PROG ": out of memory\n");
				trace_request_release(&t);
				goto cleanup;
			}
		}
		if (n == 0 || t.arrival_ns < first_ns)
			first_ns = t.arrival_ns;
		if (n == 0 || t.arrival_ns > last_ns)
			last_ns = t.arrival_ns;
		if (t.input_tokens >= 0)
			in[n_in++] = (double)t.input_tokens;
		if (t.output_tokens >= 0)
			out[n_out++] = (double)t.output_tokens;
		tally_add(paths, t.path);
		body = cJSON_Parse(t.body);
		tally_add(models, json_get_string(body, "model") ? json_get_string(body, "model") : "(none)");
		got = prefix_request(&prefix, body);
		cJSON_Delete(body);
		trace_request_release(&t);
		cJSON_Delete(rec);
		rec = NULL;
		if (got < 0) {
			fprintf(stderr, PROG ": out of memory\n");
			goto cleanup;
		}
		n++;
	}
	if (got < 0) {
		fprintf(stderr, PROG ": %s\n", tracefile_reader_error(r));
		goto cleanup;
	}
	damage = tracefile_reader_damage(r);
	if (damage)
		fprintf(stderr, PROG ": '%s': %s\n", path, damage);

	source = cJSON_GetObjectItemCaseSensitive(tracefile_reader_header(r), "source");
	kind = json_get_string(source, "kind");
	printf("%-16s%s\n", "trace", path);
	printf("%-16s%s", "source", kind ? kind : "unknown");
	if (json_get_string(source, "format"))
		printf(" (%s)", json_get_string(source, "format"));
	printf("\n%-16s%ld\n", "requests", n);
	if (n > 1 && last_ns > first_ns) {
		double span = (double)(last_ns - first_ns) / 1e9;

		printf("%-16s%.3f s (first to last arrival)\n", "time span", span);
		printf("%-16s%.3f req/s\n", "mean rate", (double)(n - 1) / span);
	} else {
		printf("%-16s0 s: every request arrives at once (a closed-loop trace)\n", "time span");
	}
	print_lengths("input tokens", in, n_in, n);
	print_lengths("output tokens", out, n_out, n);
	tally_print("endpoints", paths);
	tally_print("models", models);
	printf("%-16s%ld of %ld requests (%.1f%%) start with a %ld-word block seen earlier\n",
	       "prefix sharing", prefix.requests_sharing, n,
	       n ? 100.0 * (double)prefix.requests_sharing / (double)n : 0.0, prefix.block_words);
	printf("%-16s%ld of %ld full %ld-word blocks (%.1f%%) repeat an earlier prefix\n", "",
	       prefix.blocks_shared, prefix.blocks, prefix.block_words,
	       prefix.blocks ? 100.0 * (double)prefix.blocks_shared / (double)prefix.blocks : 0.0);
	rc = 0;
cleanup:
	cJSON_Delete(rec);
	tracefile_reader_close(r);
	if (paths)
		tally_release(paths);
	if (models)
		tally_release(models);
	free(paths);
	free(models);
	free(prefix.seen.slot);
	free(in);
	free(out);
	return rc;
}
