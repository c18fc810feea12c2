/*
 * diff.c - what differs between two runs; see diff.h.
 *
 * Objects are walked field by field, a nested one under a dotted name
 * ("params.overrides.max_tokens"), so that one changed field is one line
 * and not a dump of the object around it; arrays and scalars are compared
 * whole and shown cut to DIFF_MAX_VALUE bytes.
 */
#include "diff.h"
#include "lib/table.h"
#include "lib/tracefile.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fields that differ between two runs of one command by design. */
static int by_design(const char *path)
{
	static const char *const names[] = {
		"params.salt_seed",       /* drawn per run, so caches are not shared */
		"params.ab",              /* an A/B run's own labels and order */
		"params.start_at",        /* the moment a sharded run started */
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(path, names[i]))
			return 1;
	return 0;
}

static int add_line(struct diff *d, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (d->n == DIFF_MAX_LINES) {
		d->more++;
		return 0;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* values come from files and from what servers said of themselves */
	table_clean_text(buf);
	if (!(d->lines[d->n] = strdup(buf)))
		return -1;
	d->n++;
	return 0;
}

/* Absent, null, [] and {} all say nothing. */
static int absent(const cJSON *v)
{
	return !v || cJSON_IsNull(v) || ((cJSON_IsArray(v) || cJSON_IsObject(v)) && !v->child);
}

/* A value as a line shows it: a string bare, the rest as JSON, cut. */
static void value_text(const cJSON *v, char *buf, size_t len)
{
	char *s = NULL;
	const char *text;

	if (absent(v))
		text = "none";
	else if (cJSON_IsString(v))
		text = v->valuestring;
	else
		text = (s = cJSON_PrintUnformatted(v)) ? s : "?";
	if (strlen(text) > DIFF_MAX_VALUE && len > DIFF_MAX_VALUE + 4)
		snprintf(buf, len, "%.*s...", DIFF_MAX_VALUE, text);
	else
		snprintf(buf, len, "%s", text);
	cJSON_free(s);
}


/* Lines for the differences of a and b under the dotted name 'path'. */
static int diff_json(struct diff *d, const char *path, const cJSON *a, const cJSON *b)
{
	char va[DIFF_MAX_VALUE + 8], vb[DIFF_MAX_VALUE + 8];
	const cJSON *it;
	int pass;

	if (by_design(path) || (absent(a) && absent(b)))
		return 0;
	/* an object against nothing: field by field, each against nothing */
	if ((cJSON_IsObject(a) || absent(a)) && (cJSON_IsObject(b) || absent(b))) {
		/* a's fields, then those only b has */
		for (pass = 0; pass < 2; pass++) {
			const cJSON *from = pass ? b : a;

			cJSON_ArrayForEach(it, from) {
				const cJSON *peer;
				char sub[256];

				if (!it->string)
					continue;
				peer = cJSON_GetObjectItemCaseSensitive(pass ? a : b, it->string);
				if (pass && peer)
					continue;
				snprintf(sub, sizeof(sub), "%s.%s", path, it->string);
				if (diff_json(d, sub, pass ? peer : it, pass ? it : peer) < 0)
					return -1;
			}
		}
		return 0;
	}
	if (!absent(a) && !absent(b) && cJSON_Compare(a, b, 1))
		return 0;
	value_text(a, va, sizeof(va));
	value_text(b, vb, sizeof(vb));
	return add_line(d, "%s: %s vs %s", path, va, vb);
}

static int diff_str(struct diff *d, const char *what, const char *a, const char *b)
{
	if ((!a || !*a) && (!b || !*b))
		return 0;
	if (a && b && !strcmp(a, b))
		return 0;
	return add_line(d, "%s: %s vs %s", what, a && *a ? a : "none", b && *b ? b : "none");
}

static const cJSON *member(const cJSON *o, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(o, name);
}

/* The provenance's server, less "unknown" (why it said nothing). */
static int diff_server(struct diff *d, const cJSON *a, const cJSON *b)
{
	cJSON *ca = cJSON_Duplicate(a, 1), *cb = cJSON_Duplicate(b, 1);
	int rc;

	if ((a && !ca) || (b && !cb)) {
		cJSON_Delete(ca);
		cJSON_Delete(cb);
		return -1;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(ca, "unknown");
	cJSON_DeleteItemFromObjectCaseSensitive(cb, "unknown");
	rc = diff_json(d, "server", ca, cb);
	cJSON_Delete(ca);
	cJSON_Delete(cb);
	return rc;
}

int diff_runs(const struct db_run *a, const struct db_run *b, unsigned parts, struct diff *d)
{
	const unsigned from_prov = DIFF_SERVER | DIFF_TAGS | DIFF_HOST;
	cJSON *pa = NULL, *pb = NULL, *va = NULL, *vb = NULL;
	int rc = 0;

	memset(d, 0, sizeof(*d));
	if (parts & DIFF_PARAMS) {
		pa = cJSON_Parse(a->params ? a->params : "{}");
		pb = cJSON_Parse(b->params ? b->params : "{}");
	}
	if (parts & from_prov) {
		va = cJSON_Parse(a->provenance ? a->provenance : "{}");
		vb = cJSON_Parse(b->provenance ? b->provenance : "{}");
	}
	/* a file from before provenance: its tags and host are unknown, not
	 * different; the server part says so in one line */
	if ((parts & from_prov) && absent(va) != absent(vb)) {
		if (parts & DIFF_SERVER)
			rc = add_line(d, "provenance: %s vs %s (a results file older than it)",
				      absent(va) ? "none" : "recorded",
				      absent(vb) ? "none" : "recorded");
		parts &= ~(unsigned)(DIFF_TAGS | DIFF_HOST);
		cJSON_Delete(va);
		cJSON_Delete(vb);
		va = vb = NULL;
	}
	if (!rc && (parts & DIFF_SERVER))
		rc = diff_str(d, "endpoint", a->endpoint, b->endpoint) ||
		     diff_str(d, "model asked for", a->model, b->model) ||
		     diff_server(d, member(va, "server"), member(vb, "server"));
	if (!rc && (parts & DIFF_TRACE))
		rc = tracefile_same_trace(a->trace_digest, a->trace_crc32, b->trace_digest,
					  b->trace_crc32) ? 0 :
		     diff_str(d, "trace", a->trace_digest, b->trace_digest);
	if (!rc && (parts & DIFF_PARAMS))
		rc = diff_json(d, "params", pa, pb);
	if (!rc && (parts & DIFF_TAGS))
		rc = diff_json(d, "tag", member(va, "tags"), member(vb, "tags"));
	if (!rc && (parts & DIFF_HOST))
		rc = diff_json(d, "host", member(va, "host"), member(vb, "host")) ||
		     diff_json(d, "build", member(va, "build"), member(vb, "build"));
	cJSON_Delete(pa);
	cJSON_Delete(pb);
	cJSON_Delete(va);
	cJSON_Delete(vb);
	return rc ? -1 : 0;
}

void diff_release(struct diff *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->lines[i]);
	memset(d, 0, sizeof(*d));
}
