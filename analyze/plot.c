/*
 * plot.c - `tracebench analyze plot`; see plot.h.
 *
 * The numbers come from run_read (lib/summary.c underneath), the
 * same as the report's table (plot_data.c). Each figure writes its data
 * and script (plot_figures.h); this file puts them in the directory,
 * through temporary files renamed into place, and has gnuplot render
 * them (plot_render.c).
 */
#include "analyze/plot.h"
#include "lib/errmsg.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "analyze/plot_data.h"
#include "analyze/plot_figures.h"
#include "analyze/plot_render.h"
#include "analyze/plot_script.h"
#include "lib/tmpfile.h"

/* Joins dir and name into buf (PATH_MAX bytes). Returns 0 or -1 if too long. */
static int plot_path(char *buf, const char *dir, const char *name, const char *suffix)
{
	int len = snprintf(buf, PATH_MAX, "%s/%s%s", dir, name, suffix);

	return len < 0 || len >= PATH_MAX ? -1 : 0;
}

/*
 * Creates dir unless it exists as a directory (one level, like mkdir).
 * A directory that cannot be made is an input error (exit 2), as an output
 * file that cannot be created is for the other commands.
 */
static int plot_make_dir(const char *dir, char *err, size_t errlen)
{
	struct stat sb;

	if (mkdir(dir, 0777) == 0)
		return DB_OK;
	if (errno == EEXIST && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
		return DB_OK;
	if (errno == EEXIST)
		errno = ENOTDIR;
	errmsg_set(err, errlen, "cannot create directory '%s': %s", dir, strerror(errno));
	return DB_ERR_INPUT;
}

/* Writes dir/name through an exclusive temporary file renamed into place
 * (lib/tmpfile.h: a planted link is never followed). */
static int plot_write_file(const char *dir, const char *name,
			   void (*fill)(FILE *, const struct plot_data *),
			   const struct plot_data *d, char *err, size_t errlen)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	FILE *f;

	if (plot_path(path, dir, name, "")) {
		errmsg_set(err, errlen, "cannot write '%s/%s': path too long", dir, name);
		return DB_ERR_WORK;
	}
	f = tmpfile_create(path, tmp, sizeof(tmp));
	if (!f) {
		errmsg_set(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		return DB_ERR_WORK;
	}
	fill(f, d);
	if (tmpfile_commit(f, tmp, path) != 0) {
		errmsg_set(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		return DB_ERR_WORK;
	}
	return DB_OK;
}

/* Every figure, in the order it is written (plot_figures.h). */
static const struct plot_figure *const plot_figures[] = {
	&plot_fig_forest, &plot_fig_scaling, &plot_fig_pareto, &plot_fig_ttft, &plot_fig_ttfa,
	&plot_fig_tpot, &plot_fig_itl, &plot_fig_e2e, &plot_fig_time_split, &plot_fig_rate,
	&plot_fig_cdf, &plot_fig_timeline, &plot_fig_load_curve, &plot_fig_turns, &plot_fig_models,
};

#define PLOT_N_FIGURES (sizeof(plot_figures) / sizeof(plot_figures[0]))

/*
 * Refuses (DB_ERR_INPUT) when any file plot_write would write in dir is
 * there already: NAME.dat, NAME.gp and the image of each plot. Checked
 * before anything is written, so a refused plot leaves dir as it was.
 */
static int plot_check_free(const char *dir, const struct plot_data *d, char *err,
			   size_t errlen)
{
	static const char *const kinds[] = { "dat", "gp", NULL };
	char path[PATH_MAX], suffix[8];
	struct stat sb;
	size_t k, e;

	for (k = 0; k < PLOT_N_FIGURES; k++) {
		if (!plot_figures[k]->wanted(d))
			continue;
		for (e = 0; e < 3; e++) {
			snprintf(suffix, sizeof(suffix), ".%s", kinds[e] ? kinds[e] : plot_ext(d->fmt));
			if (plot_path(path, dir, plot_figures[k]->name, suffix))
				continue;   /* plot_write_file says so */
			if (lstat(path, &sb) == 0) {
				errmsg_set(err, errlen, "'%s' already exists (use --force to replace it)",
					    path);
				return DB_ERR_INPUT;
			}
		}
	}
	return DB_OK;
}

static void plot_note_file(struct plot_output *out, const char *name, const char *ext)
{
	if (out->n_files < PLOT_MAX_FILES)
		snprintf(out->files[out->n_files++], sizeof(out->files[0]), "%s.%s", name, ext);
}

/* How many figures there is anything to draw from. */
static size_t plot_n_wanted(const struct plot_data *d)
{
	size_t k, n = 0;

	for (k = 0; k < PLOT_N_FIGURES; k++)
		n += plot_figures[k]->wanted(d) != 0;
	return n;
}

int plot_write(struct db *db, const char *const *labels, size_t n_labels, const char *dir,
	       const struct plot_options *opt, struct plot_output *out, char *err, size_t errlen)
{
	struct plot_data d;
	enum plot_format fmt = opt->fmt;
	char name[64], image[64];
	size_t k;
	int missing = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&d, 0, sizeof(d));
	d.fmt = fmt;
	d.gpus = opt->gpus > 1 ? opt->gpus : 1;
	rc = plot_load_data(db, labels, n_labels, &d, err, errlen);
	if (rc)
		goto cleanup;
	if (!plot_n_wanted(&d)) {
		errmsg_set(err, errlen, "nothing to plot: the runs have no measured requests");
		rc = DB_ERR_INPUT;
		goto cleanup;
	}
	rc = plot_make_dir(dir, err, errlen);
	if (rc)
		goto cleanup;
	if (!opt->force && (rc = plot_check_free(dir, &d, err, errlen)))
		goto cleanup;
	for (k = 0; k < PLOT_N_FIGURES; k++) {
		const struct plot_figure *p = plot_figures[k];

		if (!p->wanted(&d))
			continue;
		snprintf(name, sizeof(name), "%s.dat", p->name);
		rc = plot_write_file(dir, name, p->dat, &d, err, errlen);
		if (rc)
			goto cleanup;
		plot_note_file(out, p->name, "dat");
		snprintf(name, sizeof(name), "%s.gp", p->name);
		rc = plot_write_file(dir, name, p->gp, &d, err, errlen);
		if (rc)
			goto cleanup;
		plot_note_file(out, p->name, "gp");
		if (missing)
			continue;
		snprintf(image, sizeof(image), "%s.%s", p->name, plot_ext(fmt));
		rc = plot_render(dir, name, image, &missing, err, errlen);
		if (rc)
			goto cleanup;
		if (!missing)
			plot_note_file(out, p->name, plot_ext(fmt));
	}
	out->rendered = !missing;
	out->gnuplot_missing = missing;
cleanup:
	plot_data_release(&d);
	return rc;
}
