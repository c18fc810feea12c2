/*
 * import_sharegpt.c - the ShareGPT format of `record import`: one JSON
 * array of conversations, each kept with its real text and all its turns
 * as a session (schema/FORMAT.md, "Sessions"): turn k sends the human
 * turns and answers before it, the answers being placeholders replay fills
 * with the server's, then human turn k; max_tokens is answer k's length.
 * ShareGPT has no times: every turn arrives at 0, and the sort of import.c
 * puts the turns of the file's first conversations first, then their
 * second turns, and so on.
 */
#include "import.h"
#include "import_rows.h"
#include "words.h"
#include "lib/json.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define SHAREGPT_MAX_FILE (1024L << 20)

static long count_lines(const char *from, const char *to)
{
	long n = 0;

	for (; from < to; from++)
		n += *from == '\n';
	return n;
}

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	return p;
}

static int is_role(const char *role, const char *a, const char *b, const char *c)
{
	return role && (strcmp(role, a) == 0 || strcmp(role, b) == 0 || strcmp(role, c) == 0);
}

/* Appends text to c (copied); returns 0 or -1. */
static int conv_push(struct conv *c, const char *text)
{
	char **t = realloc(c->text, (c->n + 1) * sizeof(*t));

	if (!t)
		return -1;
	c->text = t;
	if (!(c->text[c->n] = strdup(text)))
		return -1;
	c->n++;
	return 0;
}

void import_conv_release(struct conv *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->text[i]);
	free(c->text);
	memset(c, 0, sizeof(*c));
}

/*
 * The pairs of a conversation into c: each human turn with the answer
 * that follows it (system turns, and answers without a human turn before
 * them, left out; human turns in a row joined by a blank line). Returns 0,
 * or -1 when out of memory.
 */
static int sharegpt_pairs(const cJSON *turns, struct conv *c)
{
	const cJSON *t;
	char *pending = NULL;
	int oom = 0;

	cJSON_ArrayForEach(t, turns) {
		const char *from = json_get_string(t, "from"), *value = json_get_string(t, "value");

		if (!value || oom)
			continue;
		if (is_role(from, "human", "user", "human")) {
			size_t len = pending ? strlen(pending) + 2 : 0;
			char *joined = malloc(len + strlen(value) + 1);

			if (!joined) {
				oom = 1;
				continue;
			}
			snprintf(joined, len + strlen(value) + 1, "%s%s%s", pending ? pending : "",
				 pending ? "\n\n" : "", value);
			free(pending);
			pending = joined;
		} else if (pending && is_role(from, "gpt", "assistant", "chatgpt")) {
			oom |= conv_push(c, pending) < 0 || conv_push(c, value) < 0;
			free(pending);
			pending = NULL;
		}
	}
	free(pending);
	return oom ? -1 : 0;
}

/* 1 when the conversation may be replayed (cut before a turn that cannot
 * be), else 0 after saying why. */
static int sharegpt_check(struct import *im, long line, struct conv *c)
{
	long words = 0;
	size_t i;

	if (c->n == 0) {
		import_bad_row(im, line, "no human turn followed by an answer");
		return 0;
	}
	for (i = 0; i < c->n; i++) {
		if (words_count(c->text[i]) > IMPORT_MAX_LENGTH - words) {
			import_bad_row(im, line, "longer than %ld words", IMPORT_MAX_LENGTH);
			return 0;
		}
		words += words_count(c->text[i]);
	}
	for (i = 0; i < c->n; i += 2) {
		long in = words_count(c->text[i]), out = words_count(c->text[i + 1]);

		/* a session ends before a turn that cannot be replayed */
		if (in < 1 || out < 1) {
			if (i == 0) {
				import_lengths_ok(im, line, in, out);
				return 0;
			}
			while (c->n > i)    /* the turns cut off are freed here */
				free(c->text[--c->n]);
			break;
		}
	}
	return 1;
}

/* One conversation: each of its pairs is a turn of its session. */
static int sharegpt_row(struct import *im, long line, const cJSON *conv)
{
	const cJSON *turns = cJSON_GetObjectItemCaseSensitive(conv, "conversations");
	struct conv c = { NULL, 0 };
	struct conv *grown;
	long words = 0, k;
	int rc = 0;

	if (!cJSON_IsArray(turns)) {
		import_bad_row(im, line, "no 'conversations' array");
		return 0;
	}
	if (sharegpt_pairs(turns, &c) < 0 ||
	    !(grown = realloc(im->convs, (im->n_convs + 1) * sizeof(*grown)))) {
		import_conv_release(&c);
		return -1;
	}
	im->convs = grown;
	if (!sharegpt_check(im, line, &c)) {
		import_conv_release(&c);
		return 0;
	}
	im->convs[im->n_convs] = c;
	for (k = 0; (size_t)k * 2 < c.n && rc == 0; k++) {
		struct row r = { .conv = -1, .session = -1, .parent = -1 };

		words += words_count(c.text[2 * k]);
		r.line = line;
		r.in = words;
		r.out = words_count(c.text[2 * k + 1]);
		r.conv = (long)im->n_convs;
		r.turn = k;
		rc = import_add_row(im, &r);
		words += r.out;
	}
	im->n_convs++;
	return rc;
}

/*
 * ShareGPT: one JSON array of conversations. cJSON parses one element at a
 * time (the array's brackets and commas are stepped over here), so a bad
 * element is reported with the line it starts on, and everything before a
 * syntax error is kept. Returns 0, or -1 with a message in err.
 */
int import_read_sharegpt(struct import *im, FILE *f, char *err, size_t errlen)
{
	char *data = NULL;
	const char *p, *end, *counted;
	size_t len = 0, cap = 0, got;
	long line = 1;
	int rc = 0;

	do {
		if (len == cap) {
			char *q;

			if (cap >= (size_t)SHAREGPT_MAX_FILE) {
				snprintf(err, errlen, "'%s' is larger than %ld MiB", im->path,
					 SHAREGPT_MAX_FILE >> 20);
				free(data);
				return -1;
			}
			cap = cap ? cap * 2 : 1 << 16;
			q = realloc(data, cap + 1);
			if (!q) {
				free(data);
				return import_out_of_memory(im, err, errlen);
			}
			data = q;
		}
		got = fread(data + len, 1, cap - len, f);
		len += got;
	} while (got > 0);
	if (ferror(f)) {
		free(data);
		return import_read_error(im, err, errlen);
	}
	data[len] = '\0';
	p = counted = skip_space(data, data + len);
	end = data + len;
	line += count_lines(data, p);
	if (p == end || *p != '[') {
		snprintf(err, errlen, "'%s' line %ld: expected a JSON array of conversations", im->path, line);
		free(data);
		return -1;
	}
	p = skip_space(p + 1, end);
	while (p < end && *p != ']') {
		const char *after = NULL;
		cJSON *conv;

		line += count_lines(counted, p);
		counted = p;
		conv = cJSON_ParseWithLengthOpts(p, (size_t)(end - p), &after, 0);
		if (!conv) {
			const char *at = after ? after : cJSON_GetErrorPtr();

			if (!at || at < p || at > end)
				at = p;
			import_bad_row(im, line + count_lines(p, at),
				"not valid JSON; the rest of the file is ignored");
			break;
		}
		if (!cJSON_IsObject(conv))
			import_bad_row(im, line, "not a JSON object");
		else
			rc = sharegpt_row(im, line, conv);
		cJSON_Delete(conv);
		if (rc < 0)
			break;
		p = skip_space(after, end);
		if (p < end && *p == ',')
			p = skip_space(p + 1, end);
		else if (p < end && *p != ']') {
			line += count_lines(counted, p);
			import_bad_row(im, line, "expected ',' or ']' between conversations; "
				       "the rest of the file is ignored");
			break;
		}
	}
	free(data);
	return rc < 0 ? import_out_of_memory(im, err, errlen) : 0;
}
