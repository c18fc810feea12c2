/*
 * fuzz_htmltable.c - libFuzzer target for the HTML report's tables
 * (lib/htmltable.c over lib/mdtable.c, the reader latex.c shares).
 *
 * Whatever the Markdown: every '<' of the output opens one of the
 * writer's own tags, every '&' one of its four references, no control
 * byte but the newline is left; the tags close in the order they opened
 * and all close; and every row of a table has
 * as many cells as its header row. A breach aborts, which libFuzzer
 * reports as a crash.
 */
#include "lib/htmltable.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const tags[] = {
	"table", "thead", "tbody", "tr", "th", "td", "p", "ul", "li",
	"h2", "h3", "h4", "h5", "h6",
};

/* The index of the tag that s names (up to '>' or ' class="num|mid"'), its
 * length into *n; -1 for anything else. */
static int tag_at(const char *s, size_t left, size_t *n)
{
	size_t k, m;

	for (k = 0; k < sizeof(tags) / sizeof(tags[0]); k++) {
		m = strlen(tags[k]);
		if (m >= left || memcmp(s, tags[k], m))
			continue;
		if (s[m] == '>') {
			*n = m + 1;
			return (int)k;
		}
		if (m + 13 < left && (!memcmp(s + m, " class=\"num\">", 13) ||
				      !memcmp(s + m, " class=\"mid\">", 13))) {
			*n = m + 13;
			return (int)k;
		}
	}
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *out = NULL;
	size_t len = 0, i, n, depth = 0, cells = 0, head_cells = 0;
	int stack[16], t;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return 0;
	if (htmltable_from_markdown(f, (const char *)data, size) != 0)
		abort();
	fclose(f);
	for (i = 0; i < len; i++) {
		const char *s = out + i;

		if ((unsigned char)*s < 0x20 && *s != '\n')
			abort();
		if (*s == '&') {
			if (strncmp(s, "&amp;", 5) && strncmp(s, "&lt;", 4) &&
			    strncmp(s, "&gt;", 4) && strncmp(s, "&quot;", 6))
				abort();
			continue;
		}
		if (*s == '>' || *s == '"')
			abort();   /* only inside our own tags, which are skipped */
		if (*s != '<')
			continue;
		if (!strncmp(s, "<br>", 4)) {
			i += 3;
			continue;
		}
		if (i + 1 < len && s[1] == '/') {
			if ((t = tag_at(s + 2, len - i - 2, &n)) < 0 || n != strlen(tags[t]) + 1 ||
			    !depth || stack[--depth] != t)
				abort();
			if (!strcmp(tags[t], "tr")) {
				if (!head_cells)
					head_cells = cells;
				else if (cells != head_cells)
					abort();
			}
			if (!strcmp(tags[t], "table"))
				head_cells = 0;
			i += n + 1;
			continue;
		}
		if ((t = tag_at(s + 1, len - i - 1, &n)) < 0 || depth == 16)
			abort();
		if (!strcmp(tags[t], "tr"))
			cells = 0;
		if (!strcmp(tags[t], "th") || !strcmp(tags[t], "td"))
			cells++;
		stack[depth++] = t;
		i += n;
	}
	if (depth)
		abort();
	free(out);
	return 0;
}
