/*
 * html.c - the report as one self-contained HTML file; see html.h.
 *
 * Nothing is computed here: the Markdown of report.c and compare_print.c,
 * written as HTML tables and paragraphs by lib/htmltable.c, and the
 * figures of plot.c are put together. The figures are drawn as SVG into
 * a private temporary folder, inlined, and removed with it.
 */
#include "analyze/html.h"
#include "analyze/compare.h"
#include "analyze/plot.h"
#include "analyze/report.h"
#include "analyze/svg_inline.h"
#include "analyze/verdict.h"
#include "lib/errmsg.h"
#include "lib/htmltable.h"

#include <cjson/cJSON.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Files larger than this are not figures of ours. */
#define HTML_MAX_SVG (8L << 20)

static const char html_head[] =
	"<!DOCTYPE html>\n"
	"<html lang=\"en\">\n"
	"<head>\n"
	"<meta charset=\"utf-8\">\n"
	"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	"<title>tracebench report</title>\n"
	"<style>\n"
	"body { font-family: sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem;"
	" color: #222; }\n"
	"h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2.5rem;"
	" border-bottom: 1px solid #ccc; }\n"
	"h3 { font-size: 1.05rem; margin-top: 1.75rem; }\n"
	/* a wide sweep table scrolls on its own rather than widening the page */
	"table { display: block; overflow-x: auto; max-width: 100%; border-collapse: collapse;"
	" font-size: 0.8rem; margin: 0.75rem 0; }\n"
	"th, td { padding: 0.2rem 0.55rem; text-align: left; border-bottom: 1px solid #e2e2e2; }\n"
	"thead th { background: #e8ecf1; border-bottom: 2px solid #999; white-space: nowrap; }\n"
	"tbody tr:nth-child(even) { background: #f6f6f6; }\n"
	".num { text-align: right; font-family: monospace; font-variant-numeric: tabular-nums;"
	" white-space: nowrap; }\n"
	"th.num { font-family: inherit; } .mid { text-align: center; }\n"
	/* a figure at its own size (analyze plot draws it as printed, its
	 * text as large as the page's), narrowed on a narrow screen */
	"figure { margin: 1.5rem 0; } figure svg { max-width: 100%; height: auto; }\n"
	"figcaption { font-weight: bold; margin-bottom: 0.3rem; }\n"
	"dt { font-weight: bold; margin-top: 0.5rem; } .note { color: #a33; }\n"
	"</style>\n"
	"</head>\n"
	"<body>\n";

static const char html_definitions[] =
	"<h2 id=\"definitions\">Definitions</h2>\n"
	"<dl>\n"
	"<dt>TTFT</dt><dd>from the request's send (closed loop) or its scheduled time (open "
	"loop) to the first SSE event carrying a token of any kind: content, reasoning or a "
	"tool call.</dd>\n"
	"<dt>TTFA</dt><dd>to the first event carrying answer content (after any "
	"reasoning).</dd>\n"
	"<dt>E2E</dt><dd>to the end of the response.</dd>\n"
	"<dt>ITL</dt><dd>the gaps between consecutive token-carrying events, pooled over "
	"every request of a level.</dd>\n"
	"<dt>TPOT</dt><dd>(E2E &minus; TTFT) / (output tokens &minus; 1) of each request; "
	"none for a one-token or non-streamed answer.</dd>\n"
	"<dt>Tokens</dt><dd>from the server's usage; where a server reports none, token "
	"events are counted and the run says so (Est tok).</dd>\n"
	"<dt>Aggregate tok/s</dt><dd>output tokens of a level / its wall time.</dd>\n"
	"<dt>Percentiles</dt><dd>linear interpolation between the closest ranks, of the "
	"successful requests that are not warm-ups; a percentile from fewer requests "
	"than its rank needs is marked *.</dd>\n"
	"<dt>Verdicts</dt><dd>each change with its 95% interval; <i>faster</i> or "
	"<i>slower</i> only when the interval lies past the threshold, <i>same</i> when "
	"it lies within it, else <i>inconclusive</i>.</dd>\n"
	"</dl>\n";

/* The whole of a file into a malloc'd buffer; NULL when it cannot be read. */
static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long size;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && size <= HTML_MAX_SVG &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)size + 1))) {
		*len = fread(buf, 1, (size_t)size, f);
		buf[*len] = '\0';
	}
	fclose(f);
	return buf;
}

/* The Markdown md (len bytes; malloc'd, freed here) as HTML: its tables as
 * <table>, its notes as paragraphs (lib/htmltable.h). */
static int put_markdown(FILE *out, char *md, size_t len, char *err, size_t errlen)
{
	int rc = htmltable_from_markdown(out, md, len);

	free(md);
	if (rc) {
		errmsg_set(err, errlen, "cannot write the report");
		return DB_ERR_WORK;
	}
	return DB_OK;
}

static int put_report(struct db *db, const char *label, const struct metric_slo *slo,
		      int intervals, FILE *out, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int rc;

	if (!mem) {
		errmsg_set(err, errlen, "out of memory");
		return DB_ERR_WORK;
	}
	rc = report_print(db, label, TABLE_MARKDOWN, slo, intervals, mem, err, errlen);
	fclose(mem);
	if (rc) {
		free(text);
		return rc;
	}
	fputs("<h2 id=\"report\">Runs</h2>\n", out);
	return put_markdown(out, text, len, err, errlen);
}

/* A string member of o as "name: value" in a <dd>, escaped; nothing when absent. */
static void put_member(FILE *out, const char *name, const cJSON *v)
{
	char *text = NULL;
	const char *s;

	if (!v || cJSON_IsNull(v))
		return;
	s = cJSON_IsString(v) ? v->valuestring : (text = cJSON_PrintUnformatted(v));
	if (!s)
		return;
	fprintf(out, "<dt>%s</dt><dd>", name);
	htmltable_put_text(out, s, strlen(s));
	fputs("</dd>\n", out);
	cJSON_free(text);
}

/* How each run was made (its provenance, replay/provenance.h): the command,
 * the build, the host, the tags, the server as it described itself. */
static void put_provenance(FILE *out, const struct db_run *runs, size_t n)
{
	size_t i;

	fputs("<h2 id=\"provenance\">How the runs were made</h2>\n", out);
	for (i = 0; i < n; i++) {
		cJSON *p = runs[i].provenance ? cJSON_Parse(runs[i].provenance) : NULL;
		const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(p, "command"), *w;

		fputs("<h3>", out);
		htmltable_put_text(out, runs[i].label, strlen(runs[i].label));
		fputs("</h3>\n", out);
		if (!p) {
			fputs("<p>not recorded (a results file older than provenance, or another "
			      "tool's)</p>\n", out);
			continue;
		}
		fputs("<dl>\n", out);
		if (cJSON_IsArray(cmd)) {
			int words = 0;

			fputs("<dt>command</dt><dd><code>", out);
			cJSON_ArrayForEach(w, cmd) {
				if (!cJSON_IsString(w))
					continue;
				if (words++)
					fputc(' ', out);
				htmltable_put_text(out, w->valuestring, strlen(w->valuestring));
			}
			fputs("</code></dd>\n", out);
		}
		put_member(out, "build", cJSON_GetObjectItemCaseSensitive(p, "build"));
		put_member(out, "host", cJSON_GetObjectItemCaseSensitive(p, "host"));
		put_member(out, "tags", cJSON_GetObjectItemCaseSensitive(p, "tags"));
		put_member(out, "server", cJSON_GetObjectItemCaseSensitive(p, "server"));
		put_member(out, "rerun of", cJSON_GetObjectItemCaseSensitive(p, "rerun_of"));
		fputs("</dl>\n", out);
		cJSON_Delete(p);
	}
}

/* The first run against each of the others, each under the one heading
 * compare's own Markdown gives it ("compare 'A' (before) with 'B' (after)"). */
static int put_comparisons(struct db *db, const struct db_run *runs, size_t n, FILE *out,
			   char *err, size_t errlen)
{
	struct compare_opts co = { -1, -1, VERDICT_RESAMPLES, VERDICT_SEED };
	size_t i;

	if (n < 2)
		return DB_OK;
	fputs("<h2 id=\"compare\">Comparisons</h2>\n", out);
	for (i = 1; i < n; i++) {
		struct compare_result res = { 0 };
		char *text = NULL;
		size_t len = 0;
		FILE *mem;
		int rc = compare_runs(db, runs[0].label, runs[i].label, &co, &res, err, errlen);

		if (rc == DB_ERR_INPUT) {
			/* no common level, say: said under the heading compare's
			 * own text would have had, and the report goes on */
			fputs("<h3>compare '", out);
			htmltable_put_text(out, runs[0].label, strlen(runs[0].label));
			fputs("' (before) with '", out);
			htmltable_put_text(out, runs[i].label, strlen(runs[i].label));
			fputs("' (after)</h3>\n<p class=\"note\">not compared: ", out);
			htmltable_put_text(out, err, strlen(err));
			fputs("</p>\n", out);
			continue;
		}
		if (rc)
			return rc;
		if (!(mem = open_memstream(&text, &len))) {
			compare_result_release(&res);
			errmsg_set(err, errlen, "out of memory");
			return DB_ERR_WORK;
		}
		compare_print(mem, TABLE_MARKDOWN, runs[0].label, runs[i].label, &res);
		fclose(mem);
		compare_result_release(&res);
		if ((rc = put_markdown(out, text, len, err, errlen)) != DB_OK)
			return rc;
	}
	return DB_OK;
}

/* Every figure of the runs, drawn as SVG in a private folder and inlined. */
static int put_figures(struct db *db, const char *label, FILE *out, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], path[4200];
	const char *labels[1] = { label };
	const struct plot_options svg_opt = { PLOT_SVG, 1, 0 };
	struct plot_output po;
	size_t i;
	int rc, n = 0;

	snprintf(dir, sizeof(dir), "%s/tracebench-html-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		errmsg_set(err, errlen, "cannot make a folder for the figures in '%s'",
			   tmp && *tmp ? tmp : "/tmp");
		return DB_ERR_WORK;
	}
	memset(&po, 0, sizeof(po));
	rc = plot_write(db, labels, label ? 1 : 0, dir, &svg_opt, &po, err, errlen);
	fputs("<h2 id=\"figures\">Figures</h2>\n", out);
	if (rc == DB_ERR_INPUT) {
		fputs("<p class=\"note\">no figures: ", out);
		htmltable_put_text(out, err, strlen(err));
		fputs("</p>\n", out);
		rc = DB_OK;
	} else if (!rc && po.gnuplot_missing) {
		fputs("<p class=\"note\">no figures: gnuplot is not installed where this report "
		      "was made; the tables above hold every number.</p>\n", out);
	}
	for (i = 0; i < po.n_files; i++) {
		size_t len = strlen(po.files[i]), svg_len = 0;
		char *svg;

		snprintf(path, sizeof(path), "%s/%s", dir, po.files[i]);
		if (!rc && len > 4 && !strcmp(po.files[i] + len - 4, ".svg") &&
		    (svg = read_all(path, &svg_len))) {
			fprintf(out, "<figure id=\"fig-%.*s\"><figcaption>", (int)(len - 4),
				po.files[i]);
			htmltable_put_text(out, po.files[i], len - 4);
			fputs("</figcaption>\n", out);
			svg_inline(out, svg, svg_len, ++n);
			fputs("</figure>\n", out);
			free(svg);
		}
		unlink(path);
	}
	rmdir(dir);
	return rc;
}

int html_report(struct db *db, const char *label, const struct metric_slo *slo, int intervals,
		FILE *out, char *err, size_t errlen)
{
	struct db_run *runs = NULL;
	size_t n = 0, i;
	int rc = db_runs(db, label, &runs, &n, err, errlen);

	if (rc)
		return rc;
	fputs(html_head, out);
	fputs("<h1>tracebench report</h1>\n<p>Runs:", out);
	for (i = 0; i < n; i++) {
		fputs(i ? ", " : " ", out);
		htmltable_put_text(out, runs[i].label, strlen(runs[i].label));
	}
	fputs(". <a href=\"#report\">Runs</a> &middot; ", out);
	if (n > 1)
		fputs("<a href=\"#compare\">Comparisons</a> &middot; ", out);
	fputs("<a href=\"#figures\">Figures</a> &middot; <a href=\"#provenance\">How the runs "
	      "were made</a> &middot; <a href=\"#definitions\">Definitions</a></p>\n", out);
	rc = put_report(db, label, slo, intervals, out, err, errlen);
	if (!rc)
		rc = put_comparisons(db, runs, n, out, err, errlen);
	if (!rc)
		rc = put_figures(db, label, out, err, errlen);
	if (!rc) {
		put_provenance(out, runs, n);
		fputs(html_definitions, out);
		fputs("</body>\n</html>\n", out);
		if (fflush(out) != 0 || ferror(out)) {
			errmsg_set(err, errlen, "cannot write the report");
			rc = DB_ERR_WORK;
		}
	}
	db_runs_free(runs, n);
	return rc;
}
