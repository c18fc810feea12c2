/*
 * modelmix.c - a mix of models and its seeded draw; see modelmix.h.
 */
#include "modelmix.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "random.h"

/* Keeps the mix's draws apart from the other streams of the run's seed
 * (the arrival process draws from the same --seed). */
#define MODELMIX_STREAM 0x6d6f64656c6d6978ULL   /* "modelmix" */

/* A name's bytes are anything but commas, spaces and control bytes: what
 * a server's model ids and LoRA adapter names are made of. */
static int name_ok(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= 0x20 || c == 0x7f || c == ',')
			return 0;
	}
	return len > 0;
}

/* s[0..len) as a message may show it, into buf (64 bytes): at most 32
 * bytes, a byte outside printable ASCII as '?', so that a message stays
 * one line of text whatever the spec held. */
static void shown(char *buf, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len && i < 32; i++) {
		unsigned char c = (unsigned char)s[i];

		buf[i] = '?';
		if (c >= 0x20 && c < 0x7f)
			buf[i] = s[i];
	}
	buf[i] = '\0';
}

/* A weight, s[0..len): a finite number in (0, MODELMIX_WEIGHT_MAX],
 * written without spaces (strtod would skip leading ones). */
static int parse_weight(const char *s, size_t len, double *w)
{
	char text[64];
	size_t i;

	if (len == 0 || len >= sizeof(text))
		return -1;
	for (i = 0; i < len; i++)
		if (s[i] <= 0x20 || s[i] >= 0x7f)
			return -1;
	memcpy(text, s, len);
	text[len] = '\0';
	return cli_parse_double(text, 0, MODELMIX_WEIGHT_MAX, w) < 0 || !(*w > 0) ? -1 : 0;
}

/* One entry, s[0..len): "NAME" or "NAME:WEIGHT". */
static int parse_entry(struct modelmix *m, const char *s, size_t len, char *err, size_t errlen)
{
	struct modelmix_entry *e = &m->e[m->n];
	const char *colon = NULL;
	size_t i, nlen = len;

	for (i = 0; i < len; i++)
		if (s[i] == ':')
			colon = s + i;
	e->weight = 1;
	if (colon) {
		size_t wlen = len - (size_t)(colon - s) - 1;

		nlen = (size_t)(colon - s);
		if (parse_weight(colon + 1, wlen, &e->weight) < 0) {
			char weight[64];

			shown(weight, colon + 1, wlen);
			snprintf(err, errlen, "entry %zu: weight '%s%s' is not a number in (0, %g]",
				 m->n + 1, weight, wlen > 32 ? "..." : "", MODELMIX_WEIGHT_MAX);
			return -1;
		}
	}
	if (!name_ok(s, nlen) || nlen >= MODELMIX_NAME_MAX) {
		snprintf(err, errlen, "entry %zu: %s", m->n + 1, nlen == 0 ? "empty model name" :
			 nlen >= MODELMIX_NAME_MAX ? "model name too long" :
			 "a model name holds a space or a control byte");
		return -1;
	}
	memcpy(e->name, s, nlen);
	e->name[nlen] = '\0';
	if (modelmix_find(m, e->name) >= 0) {
		char name[64];

		shown(name, e->name, nlen);
		snprintf(err, errlen, "model '%s%s' given twice", name, nlen > 32 ? "..." : "");
		return -1;
	}
	m->total += e->weight;
	m->n++;
	return 0;
}

int modelmix_parse(struct modelmix *m, const char *spec, char *err, size_t errlen)
{
	const char *p = spec;

	memset(m, 0, sizeof(*m));
	for (;;) {
		size_t len = strcspn(p, ",");

		if (m->n == MODELMIX_MAX) {
			snprintf(err, errlen, "more than %d models", MODELMIX_MAX);
			return -1;
		}
		if (parse_entry(m, p, len, err, errlen) < 0)
			return -1;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

size_t modelmix_pick(const struct modelmix *m, uint64_t seed, uint64_t key)
{
	struct rng r;
	double x, cum = 0;
	size_t i;

	rng_init(&r, rng_derive(rng_derive(seed, MODELMIX_STREAM), key));
	x = rng_uniform(&r) * m->total;
	for (i = 0; i + 1 < m->n; i++) {
		cum += m->e[i].weight;
		if (x < cum)
			return i;
	}
	return m->n - 1;   /* the last, also when rounding leaves x at total */
}

uint64_t modelmix_key(long trace_id, long session)
{
	return session >= 0 ? (uint64_t)session << 1 | 1 : (uint64_t)trace_id << 1;
}

int modelmix_find(const struct modelmix *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (strcmp(m->e[i].name, name) == 0)
			return (int)i;
	return -1;
}
