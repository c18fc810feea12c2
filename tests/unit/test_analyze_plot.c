/*
 * test_analyze_plot.c - plot.c: gnuplot scripts and data of real runs,
 * rendered by the real gnuplot when installed (PNG, SVG, PDF), labels that
 * cannot inject gnuplot commands, overlays of several runs.
 */
#define _XOPEN_SOURCE 700   /* nftw */  /* NOLINT(bugprone-reserved-identifier): POSIX's own name */
#include "harness.h"
#include "analyze_fixture.h"
#include "analyze/plot_data.h"
#include "analyze/plot_figures.h"

static const struct plot_options png_opt = { PLOT_PNG, 0, 0 };
static const struct plot_options svg_opt = { PLOT_SVG, 0, 0 };
static const struct plot_options pdf_opt = { PLOT_PDF, 0, 0 };

/* Loads the sample under each label (a run_id per label) into name. */
static struct db *db_with_labels(const char *name, const char *const *labels, size_t n)
{
	const char *file = path_of("labels.jsonl.gz");
	struct db *db = fresh_db(name);
	char run_id[32];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(run_id, sizeof(run_id), "%s-%zu", name, i);
		write_results(file, run_id, labels[i], NULL);
		CHECK_EQ_INT(load(db, file, NULL, NULL), DB_OK);
	}
	return db;
}

/* True when gnuplot can be run from PATH. */
static int have_gnuplot(void)
{
	const char *path = getenv("PATH");
	char buf[4096], *dir, *save = NULL, exe[4200];

	snprintf(buf, sizeof(buf), "%s", path ? path : "");
	for (dir = strtok_r(buf, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		snprintf(exe, sizeof(exe), "%s/gnuplot", dir);
		if (access(exe, X_OK) == 0)
			return 1;
	}
	return 0;
}

/* Checks that path is a PNG file of more than 1000 bytes. */
static void check_png(const char *path)
{
	unsigned char sig[8] = { 0 };
	FILE *f = fopen(path, "rb");

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_EQ_INT(fread(sig, 1, 8, f), 8);
	fclose(f);
	CHECK(memcmp(sig, "\x89PNG\r\n\x1a\n", 8) == 0);
	CHECK(file_size(path) > 1000);
}

/* Width and height from a PNG's IHDR chunk (bytes 16..23), -1 if unreadable. */
static long png_dim(const char *path, int which)
{
	unsigned char b[24];
	FILE *f = fopen(path, "rb");
	long v = -1;

	if (f && fread(b, 1, 24, f) == 24) {
		const unsigned char *p = b + 16 + 4 * which;

		v = ((long)p[0] << 24) | ((long)p[1] << 16) | ((long)p[2] << 8) | p[3];
	}
	if (f)
		fclose(f);
	return v;
}

static long png_width(const char *path) { return png_dim(path, 0); }

static long png_height(const char *path) { return png_dim(path, 1); }

TEST(plot_writes_data_script_and_png)
{
	static const char *const labels[] = { "baseline" };
	struct db *db = db_with_labels("plot.db", labels, 1);
	struct plot_output po = { 0 };
	char err[DB_ERRLEN], *dat, *gp;
	const char *out = path_of("plots");

	CHECK_EQ_INT(plot_write(db, NULL, 0, out, &png_opt, &po, err, sizeof(err)), DB_OK);
	dat = read_text(path_of("plots/scaling.dat"));
	CHECK(strstr(dat, "\n1 26.316 100.000\n2 72.727 80.000\n") != NULL);
	gp = read_text(path_of("plots/scaling.gp"));
	CHECK(strstr(gp, "set logscale x 2\n") != NULL);
	CHECK(strstr(gp, "title 'baseline: aggregate'") != NULL);
	CHECK(strstr(gp, "/tmp") == NULL);   /* relative paths only */
	if (have_gnuplot()) {
		static const char *const names[] = {
			"scaling", "pareto", "latency_ttft", "latency_tpot", "latency_itl",
			"latency_e2e", "latency_cdf", "ttft_timeline",
		};
		char png[256];
		size_t i;

		CHECK(po.rendered);
		CHECK_EQ_INT(po.n_files, 3 * 8);
		for (i = 0; i < 8; i++) {
			snprintf(png, sizeof(png), "plots/%s.png", names[i]);
			check_png(path_of(png));
			/* a 3.5-in column at 288 pixels to the inch; the CDF's
			 * two panels a 7-in page */
			CHECK(png_width(path_of(png)) == (strcmp(names[i], "latency_cdf") ? 1008 : 2016));
			CHECK(png_height(path_of(png)) == 756);
		}
	} else {
		CHECK(po.gnuplot_missing);
		SKIP("gnuplot not installed: PNGs not checked");
	}
	free(dat);
	free(gp);

	CHECK_EQ_INT(plot_write(db, (const char *const[]){ "nope" }, 1, out, &png_opt, &po,
				  err, sizeof(err)), DB_ERR_INPUT);
	CHECK(strstr(err, "'nope'") != NULL);
	db_close(db);
}

TEST(plot_labels_cannot_inject_gnuplot_commands)
{
	static const char *const labels[] = {
		"\"; system(\"touch pwned\"); \"",
		"'; system('touch pwned'); '",
		"`touch pwned`",
		"x'\nsystem('touch pwned')\nprint '",
		"@x $(touch pwned) \\' ; system('touch pwned') #",
	};
	struct db *db = db_with_labels("hostile.db", labels, 5);
	struct plot_output po = { 0 };
	char err[DB_ERRLEN], *gp;
	const char *out = path_of("hostile");

	CHECK_EQ_INT(plot_write(db, NULL, 0, out, &png_opt, &po, err, sizeof(err)), DB_OK);
	gp = read_text(path_of("hostile/scaling.gp"));
	/* (in keys, labels over PLOT_LABEL_MAX characters keep their first 11
	 * and last 10: quotes on both sides of the cut) */
	CHECK(strstr(gp, "title tb_quote . '; system(' . tb_quote . '...pwned' . "
		      "tb_quote . '); ' . tb_quote . ': aggregate'") != NULL);
	CHECK(strstr(gp, "title 'x' . tb_quote . ' system(' . tb_quote . '...' . "
		      "tb_quote . ') print ' . tb_quote . ': per request'") != NULL);
	free(gp);
	if (have_gnuplot()) {
		/* Each script ran to the end (its PNG exists) and ran nothing else. */
		CHECK(po.rendered);
		size_t i;

		for (i = 0; i < po.n_files; i++)
			if (strstr(po.files[i], ".png")) {
				char png[96];

				snprintf(png, sizeof(png), "hostile/%s", po.files[i]);
				check_png(path_of(png));
			}
		/* every figure, the labels in each: the forest plot of each run
		 * against the first among them */
		CHECK_EQ_INT(po.n_files, 3 * 9);
		CHECK(file_exists(path_of("hostile/compare_forest.png")));
	} else {
		SKIP("gnuplot not installed: scripts not run");
	}
	CHECK(!file_exists(path_of("hostile/pwned")));
	CHECK(!file_exists("pwned"));
	db_close(db);
}

TEST(plot_overlays_runs_and_renders_svg_and_pdf)
{
	static const char *const labels[] = { "before", "after" };
	struct db *db = db_with_labels("overlay.db", labels, 2);
	struct plot_output po = { 0 };
	char err[DB_ERRLEN], *gp, *dat, head[8] = { 0 };
	FILE *f;

	CHECK_EQ_INT(plot_write(db, NULL, 0, path_of("svg"), &svg_opt, &po, err, sizeof(err)),
		     DB_OK);
	gp = read_text(path_of("svg/latency_ttft.gp"));
	CHECK(strstr(gp, "set terminal svg") != NULL);
	CHECK(strstr(gp, "tb_output = 'latency_ttft.svg'\nset output tb_output") != NULL);
	CHECK(strstr(gp, "using 1:3:4 with filledcurves lc 1 title 'before: P90-P99'") != NULL);
	CHECK(strstr(gp, "using 1:7 with linespoints lc 2 lw 2 pt 7 title 'after: P50'") != NULL);
	CHECK(strstr(gp, "yerrorbars") == NULL);   /* no repeats, no bars */
	free(gp);
	/* TTFT per level and run: C=1 100 200 300 400 1000 ms, whose P50, P90,
	 * P99 are 300, 400 + 0.6 x 600 and 400 + 0.96 x 600 (linear between
	 * ranks); C=2 all 150; no repeats. */
	dat = read_text(path_of("svg/latency_ttft.dat"));
	CHECK(strstr(dat, "\n1 300.000 760.000 976.000 ? ? 300.000 760.000 976.000 ? ?\n"
		      "2 150.000 150.000 150.000 ? ? 150.000 150.000 150.000 ? ?\n") != NULL);
	free(dat);
	/* One curve per level and run: the colour the run, the dash the level. */
	gp = read_text(path_of("svg/latency_cdf.gp"));
	CHECK(strstr(gp, "'latency_cdf.dat' index 4 using 1:2 with steps lc 2 dt 1 lw 1.5 "
		      "title 'after C=1'") != NULL);
	CHECK(strstr(gp, "'latency_cdf.dat' index 7 using 1:2 with steps lc 2 dt 2 lw 1.5 "
		      "title 'after C=2'") != NULL);
	free(gp);
	/* The CDF of C=1's five TTFTs, then its E2Es, each ending at 1. */
	dat = read_text(path_of("svg/latency_cdf.dat"));
	CHECK(strstr(dat, "# run 1, C=1\n100.000 0.200000\n200.000 0.400000\n300.000 0.600000\n"
		      "400.000 0.800000\n1000.000 1.000000\n\n\n600.000 0.200000\n") != NULL);
	CHECK(strstr(dat, "# run 2, C=2\n150.000 0.333333\n150.000 0.666667\n150.000 1.000000\n")
	      != NULL);
	free(dat);
	gp = read_text(path_of("svg/ttft_timeline.gp"));
	CHECK(strstr(gp, "title 'after: warm-up'") != NULL);
	free(gp);
	if (have_gnuplot()) {
		CHECK(po.rendered);
		f = fopen(path_of("svg/latency_cdf.svg"), "rb");
		CHECK(f != NULL);
		if (f) {
			gp = read_text(path_of("svg/latency_cdf.svg"));
			CHECK(strstr(gp, "<svg") != NULL);
			free(gp);
			fclose(f);
		}
		CHECK_EQ_INT(plot_write(db, (const char *const[]){ "after" }, 1, path_of("pdf"),
					&pdf_opt, &po, err, sizeof(err)), DB_OK);
		f = fopen(path_of("pdf/scaling.pdf"), "rb");
		CHECK(f && fread(head, 1, 5, f) == 5 && memcmp(head, "%PDF-", 5) == 0);
		if (f)
			fclose(f);
		CHECK(file_size(path_of("pdf/ttft_timeline.pdf")) > 1000);
	} else {
		SKIP("gnuplot not installed: SVG and PDF not rendered");
	}
	db_close(db);
}

TEST(plot_without_gnuplot_writes_script_only)
{
	static const char *const labels[] = { "nognuplot" };
	struct db *db = db_with_labels("nogp.db", labels, 1);
	struct plot_output po = { 0 };
	const char *path = getenv("PATH");
	char err[DB_ERRLEN], *saved = path ? strdup(path) : NULL;
	const char *out = path_of("nogp");

	mkdir(path_of("emptybin"), 0777);
	setenv("PATH", path_of("emptybin"), 1);
	CHECK_EQ_INT(plot_write(db, NULL, 0, out, &png_opt, &po, err, sizeof(err)), DB_OK);
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
	CHECK(po.gnuplot_missing);
	CHECK(!po.rendered);
	CHECK(file_exists(path_of("nogp/scaling.gp")));
	CHECK(file_exists(path_of("nogp/scaling.dat")));
	CHECK(!file_exists(path_of("nogp/scaling.png")));
	db_close(db);
}

/* plot_put_gp_string(s) into a string; the caller frees it. */
static char *gp_string(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	plot_put_gp_string(f, s);
	fclose(f);
	return buf;
}

/* Runs gnuplot on script (in tmp, nothing but argv, no shell); its exit status. */
static int run_gnuplot(const char *script)
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(gp_strings_hold_no_quote_in_literals)
{
	static const char *const tricky[] = {
		"'", "''", "''''", "'a'''''b'", "it's", "\\'", "`id`", "@x", "\"q\"", "",
	};
	const char *script = path_of("roundtrip.gp"), *printed = path_of("roundtrip.txt");
	char *s, *got, *line;
	FILE *f;
	size_t i;

	s = gp_string("it's \"x\"\n`y`");
	CHECK_STR(s, "'it' . tb_quote . 's \"x\" `y`'");
	free(s);
	s = gp_string("'");
	CHECK_STR(s, "tb_quote");
	free(s);
	s = gp_string("");
	CHECK_STR(s, "''");
	free(s);
	if (!have_gnuplot()) {
		SKIP("gnuplot not installed: literals not read back by gnuplot");
		return;
	}
	/* What gnuplot makes of them: each prints back exactly. */
	f = fopen(script, "w");
	fprintf(f, "tb_quote = sprintf('%%c', 39)\nset print '%s'\n", printed);
	for (i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++) {
		s = gp_string(tricky[i]);
		fprintf(f, "print %s\n", s);
		free(s);
	}
	fclose(f);
	CHECK_EQ_INT(run_gnuplot(script), 0);
	got = read_text(printed);
	line = got;
	for (i = 0; i < sizeof(tricky) / sizeof(tricky[0]) && line; i++) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		CHECK_STR(line, tricky[i]);
		line = nl ? nl + 1 : NULL;
	}
	free(got);
}

/* A gnuplot script of figure fig drawn from d, as a string (caller frees). */
static char *figure_gp(const struct plot_figure *fig, const struct plot_data *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fig->gp(f, d);
	fclose(f);
	return buf;
}

TEST(a_flat_figure_gets_a_range_around_its_value)
{
	/* A deterministic server: every TPOT of the one level 5 ms, so P50 =
	 * P90 = P99 and gnuplot's autoscale would warn of an empty range. */
	struct level_summary l;
	struct plot_level x;
	struct plot_series s;
	struct plot_data d;
	int level = 4;
	char *gp;
	int k;

	memset(&l, 0, sizeof(l));
	memset(&x, 0, sizeof(x));
	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	l.level = load_closed(level);
	l.tpot.n = 4;
	l.tpot.p50 = l.tpot.p90 = l.tpot.p95 = l.tpot.p99 = 5.0;
	x.level = load_closed(level);
	for (k = 0; k < PLOT_N_METRICS; k++)
		x.p50_min[k] = x.p50_max[k] = NAN;
	s.label = (char *)"flat";
	s.run.levels = &l;
	s.run.n_levels = 1;
	s.lv = &x;
	s.n_lv = 1;
	d.series = &s;
	d.n_series = 1;
	d.levels = &level;
	d.n_levels = 1;
	d.fmt = PLOT_SVG;
	gp = figure_gp(&plot_fig_tpot, &d);
	CHECK(strstr(gp, "set yrange [4.749:5.251]\n") != NULL);
	CHECK(strstr(gp, "set logscale y") == NULL);
	free(gp);
	/* two values a decade and more apart: a log axis, no fixed range */
	l.tpot.p99 = 200.0;
	gp = figure_gp(&plot_fig_tpot, &d);
	CHECK(strstr(gp, "set logscale y 10\n") != NULL);
	CHECK(strstr(gp, "set yrange") == NULL);
	free(gp);
}

int main(void)
{
	if (fixture_setup() != 0)
		return 1;
	RUN(plot_writes_data_script_and_png);
	RUN(plot_labels_cannot_inject_gnuplot_commands);
	RUN(plot_overlays_runs_and_renders_svg_and_pdf);
	RUN(plot_without_gnuplot_writes_script_only);
	RUN(a_flat_figure_gets_a_range_around_its_value);
	RUN(gp_strings_hold_no_quote_in_literals);
	return fixture_done();
}
