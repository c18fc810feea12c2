/*
 * failures.c - why requests failed; see failures.h.
 */
#include "failures.h"
#include "lib/table.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* The server's own words in a JSON error body: "message", or
 * error.message (OpenAI's and vLLM's shapes), or error as a string. */
static const char *json_message(const cJSON *j)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
	const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "message"));

	if (m)
		return m;
	if ((m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "message"))))
		return m;
	return cJSON_GetStringValue(e);
}

/* s as one line of text, cut, into buf: what a server said reaches the
 * terminal without its control bytes (lib/table.h's table_clean_text). */
static void one_line(const char *s, char *buf, size_t len)
{
	size_t i, k = 0;

	for (i = 0; s[i] && k + 1 < len && k < FAILURES_MESSAGE; i++)
		buf[k++] = s[i];
	buf[k] = '\0';
	table_clean_text(buf);
	k = strlen(buf);
	while (k > 0 && buf[k - 1] == ' ')
		k--;
	if (s[i] && k + 4 < len) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	buf[k] = '\0';
}

void failures_message(const struct result *r, char *buf, size_t len)
{
	const char *d = r->error_detail, *brace = d ? strchr(d, '{') : NULL;
	cJSON *j = brace ? cJSON_Parse(brace) : NULL;
	const char *m = json_message(j);

	if (m && r->status)
		snprintf(buf, len, "HTTP %d: ", r->status);
	else
		buf[0] = '\0';
	one_line(m ? m : d ? d : r->error, buf + strlen(buf), len - strlen(buf));
	cJSON_Delete(j);
}

void failures_note(struct failures *f, const struct result *r)
{
	struct failure_kind *k = NULL;
	size_t i;

	if (r->warmup && !f->warmup[0])
		failures_message(r, f->warmup, sizeof(f->warmup));
	for (i = 0; i < f->n_kinds && !k; i++)
		if (f->kinds[i].status == r->status && !strcmp(f->kinds[i].error, r->error))
			k = &f->kinds[i];
	if (!k && f->n_kinds == FAILURES_KINDS) {
		f->others++;
		return;
	}
	if (!k) {
		k = &f->kinds[f->n_kinds++];
		snprintf(k->error, sizeof(k->error), "%s", r->error);
		k->status = r->status;
		failures_message(r, k->message, sizeof(k->message));
		if (f->out && f->shown < FAILURES_SHOWN) {
			fprintf(f->out, "tracebench replay: %s failed (%s, trace request %ld): %s\n",
				r->warmup ? "a warm-up request" : "a request", r->error, r->trace_id,
				k->message);
			if (++f->shown == FAILURES_SHOWN)
				fprintf(f->out, "tracebench replay: further kinds of failure are "
					"counted at the end, not shown\n");
		}
	}
	k->n++;
}

size_t failures_count(const struct failures *f)
{
	size_t i, n = f->others;

	for (i = 0; i < f->n_kinds; i++)
		n += f->kinds[i].n;
	return n;
}

void failures_summary(const struct failures *f, char *buf, size_t len)
{
	size_t used = 0, i, j, top = 0;
	int done[FAILURES_KINDS] = { 0 };

	buf[0] = '\0';
	for (j = 0; j < f->n_kinds && used < len; j++) {
		size_t best = f->n_kinds;

		for (i = 0; i < f->n_kinds; i++)
			if (!done[i] && (best == f->n_kinds || f->kinds[i].n > f->kinds[best].n))
				best = i;
		done[best] = 1;
		if (j == 0)
			top = best;
		if (f->kinds[best].status)
			used += (size_t)snprintf(buf + used, len - used, "%s%zu %s %d", j ? ", " : "",
						 f->kinds[best].n, f->kinds[best].error,
						 f->kinds[best].status);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%zu %s", j ? ", " : "",
						 f->kinds[best].n, f->kinds[best].error);
	}
	if (f->others && used < len)
		used += (size_t)snprintf(buf + used, len - used, ", %zu of other kinds", f->others);
	if (f->n_kinds && used < len)
		snprintf(buf + used, len - used, " (%s)", f->kinds[top].message);
}
