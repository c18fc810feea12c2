/*
 * fuzz_modelmix.c - libFuzzer target for the model mix spec of replay
 * --model-mix and mock --models (lib/modelmix.c).
 *
 * The input up to its first NUL is the spec; the 8 bytes after it, when
 * there, a seed. The rules checked:
 *
 *   refused    a message, one line, that fits its buffer;
 *   accepted   1 to MODELMIX_MAX models, each name non-empty, shorter
 *              than MODELMIX_NAME_MAX, without commas, spaces or control
 *              bytes, none twice; each weight finite in (0, MODELMIX_WEIGHT_MAX],
 *              the total their sum; written back as NAME:WEIGHT (17
 *              digits) the spec parses to the same mix;
 *   the draw   always a model of the mix, the same for the same seed
 *              and key, and the one model of a mix of one.
 *
 * A broken rule aborts.
 */
#include "lib/modelmix.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_modelmix: %s: %s\n", what, detail);
	abort();
}

static void check_mix(const struct modelmix *m, const char *spec)
{
	double total = 0;
	size_t i, j;

	if (m->n < 1 || m->n > MODELMIX_MAX)
		fail("a count out of range", spec);
	for (i = 0; i < m->n; i++) {
		const char *name = m->e[i].name;
		size_t len = strnlen(name, MODELMIX_NAME_MAX);

		if (len == 0 || len >= MODELMIX_NAME_MAX)
			fail("a name's length out of range", spec);
		for (j = 0; j < len; j++)
			if ((unsigned char)name[j] <= 0x20 || name[j] == 0x7f || name[j] == ',')
				fail("a name holds a byte it may not", spec);
		for (j = 0; j < i; j++)
			if (strcmp(m->e[j].name, name) == 0)
				fail("a name twice", spec);
		if (!isfinite(m->e[i].weight) || !(m->e[i].weight > 0) ||
		    m->e[i].weight > MODELMIX_WEIGHT_MAX)
			fail("a weight out of range", spec);
		total += m->e[i].weight;
	}
	if (total != m->total)
		fail("the total is not the weights' sum", spec);
}

/* m written back as NAME:WEIGHT,... parses to m again. */
static void check_round_trip(const struct modelmix *m, const char *spec)
{
	static char text[MODELMIX_MAX * (MODELMIX_NAME_MAX + 32)];
	struct modelmix again;
	char err[256];
	size_t i, len = 0;

	for (i = 0; i < m->n; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%s:%.17g", i ? "," : "",
					m->e[i].name, m->e[i].weight);
	if (modelmix_parse(&again, text, err, sizeof(err)) != 0)
		fail("a mix written back is refused", err);
	if (again.n != m->n)
		fail("a mix written back has another count", text);
	for (i = 0; i < m->n; i++)
		if (strcmp(again.e[i].name, m->e[i].name) != 0 ||
		    again.e[i].weight != m->e[i].weight)
			fail("a mix written back differs", spec);
}

static void check_draws(const struct modelmix *m, uint64_t seed, const char *spec)
{
	uint64_t key;

	for (key = 0; key < 64; key++) {
		size_t k = modelmix_pick(m, seed, key * 0x9e3779b97f4a7c15ULL);

		if (k >= m->n)
			fail("a draw outside the mix", spec);
		if (modelmix_pick(m, seed, key * 0x9e3779b97f4a7c15ULL) != k)
			fail("a draw not repeated", spec);
		if (m->n == 1 && k != 0)
			fail("a mix of one drew another", spec);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct modelmix m;
	char *spec = malloc(size + 1), err[256];
	uint64_t seed = 1;
	size_t len;

	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	len = strlen(spec);
	if (len + 1 + sizeof(seed) <= size)
		memcpy(&seed, data + len + 1, sizeof(seed));
	err[0] = '\0';
	if (modelmix_parse(&m, spec, err, sizeof(err)) != 0) {
		if (!err[0] || strchr(err, '\n') || strlen(err) >= sizeof(err))
			fail("a refusal without a one-line message", spec);
	} else {
		check_mix(&m, spec);
		check_round_trip(&m, spec);
		check_draws(&m, seed, spec);
	}
	free(spec);
	return 0;
}
