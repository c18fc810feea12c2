/*
 * fuzz_hostload.c - libFuzzer target for the reader of /proc/stat and
 * /proc/loadavg (lib/hostload.c).
 *
 * The input is split at its first NUL into a /proc/stat text and a
 * /proc/loadavg text; the ticks per second come from its first byte. What
 * hostload_format writes must fit its buffer and parse back (lib/prom.c)
 * without a bad line, every value finite and not negative, at most the
 * eight CPU modes and three other series. A mismatch aborts, which
 * libFuzzer reports as a crash.
 */
#include "lib/hostload.h"
#include "lib/prom.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), out[HOSTLOAD_TEXT_MAX];
	const char *loadavg = NULL;
	struct prom_scrape ps;
	size_t stat_len = size, i;
	long hz = size ? 1 + data[0] % 1000 : 100;
	int n;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (memchr(data, '\0', size)) {
		stat_len = strlen(text);
		loadavg = text + stat_len + 1;
	}
	n = hostload_format(text, stat_len, loadavg, hz, size > 1 ? data[1] / 3.0 : -1, out,
			    sizeof(out));
	if (n >= 0) {
		if ((size_t)n >= sizeof(out) || strlen(out) != (size_t)n)
			abort();
		prom_scrape_init(&ps);
		if (prom_parse(&ps, out, (size_t)n, NULL, 0) < 0 || ps.bad_lines || ps.n > 11 ||
		    ps.n < 4)
			abort();
		for (i = 0; i < ps.n; i++)
			if (!isfinite(ps.samples[i].value) || ps.samples[i].value < 0)
				abort();
		prom_scrape_release(&ps);
	}
	free(text);
	return 0;
}
