/*
 * prom.c - the Prometheus text exposition format, parsed line by line
 * (see prom.h for the caps and what a bad line costs).
 *
 * Grammar (one line):
 *   # HELP name text | # TYPE name type | # anything | blank
 *   name [ { label="value" [, label="value"]... [,] } ] value [ timestamp ]
 * with name [a-zA-Z_:][a-zA-Z0-9_:]*, label [a-zA-Z_][a-zA-Z0-9_]*, value
 * a decimal float or NaN, +Inf, -Inf, and timestamp an integer (ms).
 */
#include "lib/prom.h"
#include "lib/errmsg.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void prom_scrape_init(struct prom_scrape *s)
{
	memset(s, 0, sizeof(*s));
	s->max_line = PROM_MAX_LINE;
	s->max_samples = PROM_MAX_SAMPLES;
}

static void sample_release(struct prom_sample *x)
{
	size_t i;

	for (i = 0; i < x->nlabels; i++) {
		free(x->labels[i].name);
		free(x->labels[i].value);
	}
	free(x->labels);
	free(x->name);
}

void prom_scrape_release(struct prom_scrape *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		sample_release(&s->samples[i]);
	free(s->samples);
	s->samples = NULL;
	s->n = s->cap = 0;
}

static int is_name_start(int c, int colon)
{
	return isalpha(c) || c == '_' || (colon && c == ':');
}

static int is_name_char(int c, int colon)
{
	return is_name_start(c, colon) || isdigit(c);
}

/* Length of the name at p (below end): 0 when none starts there. */
static size_t name_len(const char *p, const char *end, int colon)
{
	size_t n = 0;

	if (p >= end || !is_name_start((unsigned char)*p, colon))
		return 0;
	while (p + n < end && is_name_char((unsigned char)p[n], colon))
		n++;
	return n;
}

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/*
 * A value: a decimal float (no hex, no locale), NaN, +Inf, -Inf or Inf in
 * any case, as Prometheus reads them. The token runs from p to end.
 */
static int parse_value(const char *p, size_t n, double *out)
{
	char buf[64], *stop;
	size_t i;

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	if (!strcasecmp(buf, "nan")) {
		*out = NAN;
		return 0;
	}
	if (!strcasecmp(buf, "+inf") || !strcasecmp(buf, "inf")) {
		*out = INFINITY;
		return 0;
	}
	if (!strcasecmp(buf, "-inf")) {
		*out = -INFINITY;
		return 0;
	}
	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)buf[i]) && !strchr("+-.eE", buf[i]))
			return -1;
	errno = 0;
	*out = strtod(buf, &stop);
	if (stop != buf + n || stop == buf)
		return -1;
	return 0;           /* an overflow is the infinity strtod gives */
}

static int parse_timestamp(const char *p, size_t n, int64_t *out)
{
	char buf[32], *stop;
	long long v;

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	if (!isdigit((unsigned char)buf[buf[0] == '-' ? 1 : 0]))
		return -1;
	errno = 0;
	v = strtoll(buf, &stop, 10);
	if (errno || *stop)
		return -1;
	*out = v;
	return 0;
}

/* Unescapes the quoted label value starting after the opening quote at *pp;
 * *pp is left after the closing quote. NULL: malformed (why says) or OOM
 * (*oom set). */
static char *parse_label_value(const char **pp, const char *end, const char **why, int *oom)
{
	const char *p = *pp;
	char *v, *w;

	/* the unescaped value is never longer than the escaped one */
	v = malloc((size_t)(end - p) + 1);
	if (!v) {
		*oom = 1;
		return NULL;
	}
	w = v;
	while (p < end && *p != '"') {
		if (*p == '\\') {
			if (++p == end)
				break;
			switch (*p) {
			case '\\': *w++ = '\\'; break;
			case '"':  *w++ = '"';  break;
			case 'n':  *w++ = '\n'; break;
			default:
				*why = "unknown escape in a label value";
				free(v);
				return NULL;
			}
			p++;
			continue;
		}
		*w++ = *p++;
	}
	if (p == end) {
		*why = "unterminated label value";
		free(v);
		return NULL;
	}
	*w = '\0';
	*pp = p + 1;
	return v;
}

/* The family the sample name belongs to under the last # TYPE line. */
static enum prom_type sample_type(const struct prom_scrape *s, const char *name)
{
	static const char *const hist[] = { "_bucket", "_sum", "_count", "_created", NULL };
	size_t fl = strlen(s->family), i;

	if (!fl || strncmp(name, s->family, fl))
		return PROM_UNTYPED;
	if (name[fl] == '\0')
		return s->family_type;
	if (s->family_type == PROM_HISTOGRAM || s->family_type == PROM_SUMMARY ||
	    s->family_type == PROM_COUNTER)
		for (i = 0; hist[i]; i++)
			if (!strcmp(name + fl, hist[i]) ||
			    (s->family_type == PROM_COUNTER && !strcmp(name + fl, "_total")))
				return s->family_type;
	return PROM_UNTYPED;
}

/* A # line: TYPE sets the family, the rest are ignored. Returns 0 or -1
 * (why says) for a TYPE line that is malformed. */
static int parse_comment(struct prom_scrape *s, const char *p, const char *end,
			 const char **why)
{
	static const char *const types[] = {
		"untyped", "counter", "gauge", "histogram", "summary"
	};
	size_t n, tl, i;
	const char *name;

	p = skip_blanks(p + 1, end);
	if (end - p < 5 || strncmp(p, "TYPE", 4) || (p[4] != ' ' && p[4] != '\t'))
		return 0;       /* HELP, or a plain comment */
	p = skip_blanks(p + 4, end);
	name = p;
	if (!(n = name_len(p, end, 1)) || n >= sizeof(s->family)) {
		*why = "bad metric name in a TYPE line";
		return -1;
	}
	p = skip_blanks(p + n, end);
	tl = (size_t)(end - p);
	while (tl && (p[tl - 1] == ' ' || p[tl - 1] == '\t'))
		tl--;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strlen(types[i]) == tl && !strncmp(p, types[i], tl))
			break;
	if (i == sizeof(types) / sizeof(types[0])) {
		*why = "unknown type in a TYPE line";
		return -1;
	}
	memcpy(s->family, name, n);
	s->family[n] = '\0';
	s->family_type = (enum prom_type)i;
	return 0;
}

/* One label, name="value", at *pp into x's next slot; *pp moves past it
 * and a ',' after it. Returns as parse_sample does. */
static int parse_label(struct prom_sample *x, const char **pp, const char *end, const char **why)
{
	const char *p = *pp;
	struct prom_label *l;
	size_t n;
	int oom = 0;

	if (x->nlabels == PROM_MAX_LABELS) {
		*why = "too many labels";
		return -1;
	}
	if (!(n = name_len(p, end, 0))) {
		*why = "bad label name";
		return -1;
	}
	if (!x->labels && !(x->labels = calloc(PROM_MAX_LABELS, sizeof(*x->labels))))
		return -2;
	l = &x->labels[x->nlabels];
	if (!(l->name = strndup(p, n)))
		return -2;
	x->nlabels++;
	p = skip_blanks(p + n, end);
	if (p == end || *p != '=') {
		*why = "label without '='";
		return -1;
	}
	p = skip_blanks(p + 1, end);
	if (p == end || *p != '"') {
		*why = "label value not quoted";
		return -1;
	}
	p++;
	if (!(l->value = parse_label_value(&p, end, why, &oom)))
		return oom ? -2 : -1;
	p = skip_blanks(p, end);
	if (p < end && *p == ',') {
		p = skip_blanks(p + 1, end);
	} else if (p < end && *p != '}') {
		*why = "labels not separated by ','";
		return -1;
	}
	*pp = p;
	return 0;
}

/* The value, and the timestamp that may follow it, from p to the line's end. */
static int parse_value_part(struct prom_sample *x, const char *p, const char *end,
			    const char **why)
{
	const char *tok;

	if (p == end || (*p != ' ' && *p != '\t')) {
		*why = "no value";
		return -1;
	}
	p = skip_blanks(p, end);
	for (tok = p; p < end && *p != ' ' && *p != '\t'; p++)
		;
	if (parse_value(tok, (size_t)(p - tok), &x->value) < 0) {
		*why = "bad value";
		return -1;
	}
	p = skip_blanks(p, end);
	if (p == end)
		return 0;
	for (tok = p; p < end && *p != ' ' && *p != '\t'; p++)
		;
	if (parse_timestamp(tok, (size_t)(p - tok), &x->timestamp_ms) < 0 ||
	    skip_blanks(p, end) != end) {
		*why = "bad timestamp";
		return -1;
	}
	x->has_timestamp = 1;
	return 0;
}

/* A sample line into x (zeroed by the caller). Returns 0, -1 malformed
 * (why says; x holds what was allocated, for the caller to release) or
 * -2 out of memory. */
static int parse_sample(struct prom_scrape *s, struct prom_sample *x,
			const char *p, const char *end, const char **why)
{
	const char *tok;
	size_t n;
	int rc;

	if (!(n = name_len(p, end, 1))) {
		*why = "bad metric name";
		return -1;
	}
	if (!(x->name = strndup(p, n)))
		return -2;
	p += n;
	tok = skip_blanks(p, end);
	if (tok < end && *tok == '{') {
		p = skip_blanks(tok + 1, end);
		while (p < end && *p != '}')
			if ((rc = parse_label(x, &p, end, why)) < 0)
				return rc;
		if (p == end) {
			*why = "unterminated label set";
			return -1;
		}
		p++;
	}
	if (parse_value_part(x, p, end, why) < 0)
		return -1;
	x->type = sample_type(s, x->name);
	return 0;
}

static void count_bad(struct prom_scrape *s, const char *why)
{
	if (!s->bad_lines++) {
		s->first_bad = s->lines;
		snprintf(s->why_bad, sizeof(s->why_bad), "%s", why);
	}
}

int prom_parse(struct prom_scrape *s, const char *text, size_t len, char *err, size_t errlen)
{
	const char *p = text, *stop = text + len;

	while (p < stop) {
		const char *nl = memchr(p, '\n', (size_t)(stop - p));
		const char *end = nl ? nl : stop, *start, *why = "malformed line";
		struct prom_sample x;
		int rc;

		s->lines++;
		if ((size_t)(end - p) > s->max_line) {
			count_bad(s, "line too long");
			p = nl ? nl + 1 : stop;
			continue;
		}
		start = p;
		p = nl ? nl + 1 : stop;
		if (end > start && end[-1] == '\r')
			end--;
		start = skip_blanks(start, end);
		while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (start == end)
			continue;
		if (*start == '#') {
			if (parse_comment(s, start, end, &why) < 0)
				count_bad(s, why);
			continue;
		}
		if (s->n >= s->max_samples) {
			count_bad(s, "too many samples");
			continue;
		}
		memset(&x, 0, sizeof(x));
		rc = parse_sample(s, &x, start, end, &why);
		if (rc == 0 && s->n == s->cap) {
			size_t cap = s->cap ? 2 * s->cap : 64;
			struct prom_sample *grown = realloc(s->samples, cap * sizeof(*grown));

			if (!grown)
				rc = -2;
			else {
				s->samples = grown;
				s->cap = cap;
			}
		}
		if (rc == -2) {
			sample_release(&x);
			errmsg_set(err, errlen, "out of memory parsing metrics");
			return -1;
		}
		if (rc < 0) {
			sample_release(&x);
			count_bad(s, why);
			continue;
		}
		s->samples[s->n++] = x;
	}
	return 0;
}

const char *prom_label(const struct prom_sample *x, const char *name)
{
	size_t i;

	for (i = 0; i < x->nlabels; i++)
		if (!strcmp(x->labels[i].name, name))
			return x->labels[i].value;
	return NULL;
}

/* Appends c to buf[*at] within size (always counting it). */
static void put(char *buf, size_t size, size_t *at, char c)
{
	if (*at + 1 < size)
		buf[*at] = c;
	(*at)++;
}

size_t prom_series(const struct prom_sample *x, char *buf, size_t size)
{
	size_t at = 0, i;
	const char *c;

	for (c = x->name; *c; c++)
		put(buf, size, &at, *c);
	if (x->nlabels)
		put(buf, size, &at, '{');
	for (i = 0; i < x->nlabels; i++) {
		if (i)
			put(buf, size, &at, ',');
		for (c = x->labels[i].name; *c; c++)
			put(buf, size, &at, *c);
		put(buf, size, &at, '=');
		put(buf, size, &at, '"');
		for (c = x->labels[i].value; *c; c++) {
			if (*c == '\\' || *c == '"')
				put(buf, size, &at, '\\');
			if (*c == '\n') {
				put(buf, size, &at, '\\');
				put(buf, size, &at, 'n');
			} else
				put(buf, size, &at, *c);
		}
		put(buf, size, &at, '"');
	}
	if (x->nlabels)
		put(buf, size, &at, '}');
	if (size)
		buf[at < size ? at : size - 1] = '\0';
	return at;
}
