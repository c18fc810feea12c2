/*
 * fuzz_latex.c - libFuzzer target for the LaTeX tables (lib/latex.c).
 *
 * Whatever the Markdown: every line out is empty, a comment ("% "), one
 * of the tabular's own lines, or a row ending in " \\" whose unescaped
 * '&' are exactly its tabular's column separators and which holds no
 * unescaped % # $ _ { } ~ ^ (a cell that could end the row, open a group
 * or run a command); and a tabular that begins ends. A breach aborts,
 * which libFuzzer reports as a crash.
 */
#include "lib/latex.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Is line l (n bytes) a tabular row of cols columns, every special escaped? */
static int good_row(const char *l, size_t n, size_t cols)
{
	size_t i, amps = 0;

	if (n < 3 || memcmp(l + n - 3, " \\\\", 3))
		return 0;
	n -= 3;
	for (i = 0; i < n; i++) {
		if (l[i] == '\\') {
			/* an escaped character, or one of the escapes' commands */
			static const char *const cmds[] = {
				"textbackslash{}", "textasciitilde{}", "textasciicircum{}",
				"textless{}", "textgreater{}", "textbar{}",
			};
			size_t k, m;

			if (i + 1 < n && strchr("&%$#_{}", l[i + 1])) {
				i++;
				continue;
			}
			for (k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++) {
				m = strlen(cmds[k]);
				if (i + 1 + m <= n && !memcmp(l + i + 1, cmds[k], m))
					break;
			}
			if (k == sizeof(cmds) / sizeof(cmds[0]))
				return 0;
			i += m;
			continue;
		}
		if (l[i] == '&')
			amps++;
		else if (strchr("%#$_{}~^", l[i]) || (unsigned char)l[i] < 0x20)
			return 0;
	}
	return amps + 1 == cols;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *out = NULL, *line, *end;
	size_t len = 0, cols = 0;
	FILE *f = open_memstream(&out, &len);
	int in_table = 0;

	if (!f)
		return 0;
	if (latex_from_markdown(f, (const char *)data, size) != 0)
		abort();
	fclose(f);
	for (line = out; line < out + len; line = end + 1) {
		size_t n;

		end = memchr(line, '\n', (size_t)(out + len - line));
		if (!end)
			abort();   /* every line ends */
		n = (size_t)(end - line);
		if (!in_table) {
			if (n >= 16 && !memcmp(line, "\\begin{tabular}{", 16) && line[n - 1] == '}') {
				cols = n - 17;
				if (cols == 0 || strspn(line + 16, "lrc") != cols)
					abort();
				in_table = 1;
			} else if (n && (n < 2 || memcmp(line, "% ", 2) || memchr(line, '\r', n))) {
				abort();
			}
			continue;
		}
		if ((n == 8 && !memcmp(line, "\\toprule", 8)) || (n == 8 && !memcmp(line, "\\midrule", 8)))
			continue;
		if (n == 11 && !memcmp(line, "\\bottomrule", 11))
			continue;
		if (n == 13 && !memcmp(line, "\\end{tabular}", 13)) {
			in_table = 0;
			continue;
		}
		if (!good_row(line, n, cols))
			abort();
	}
	if (in_table)
		abort();
	free(out);
	return 0;
}
