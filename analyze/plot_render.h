/*
 * plot_render.h - runs gnuplot on one script of analyze plot.
 */
#ifndef TB_ANALYZE_PLOT_RENDER_H
#define TB_ANALYZE_PLOT_RENDER_H

#include <stddef.h>

/*
 * Renders the script dir/script into dir/image: gnuplot runs in dir (no
 * shell) and writes a file created exclusively under a fresh name
 * (lib/tmpfile.h), renamed into place when it succeeded, so a link planted
 * at the image's name is replaced, never written through. Sets *missing
 * (and returns DB_OK) when gnuplot is not on PATH. Returns DB_OK or
 * DB_ERR_WORK with a message in err.
 */
int plot_render(const char *dir, const char *script, const char *image, int *missing,
		char *err, size_t errlen);

#endif
