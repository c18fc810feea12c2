/*
 * svg_inline.h - an SVG document from gnuplot as an inline <svg> element of
 * an HTML page (analyze/html.c).
 */
#ifndef TB_ANALYZE_SVG_INLINE_H
#define TB_ANALYZE_SVG_INLINE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Writes the SVG document svg (len bytes, any bytes) to out as an inline
 * <svg> element: what comes before the first "<svg" (the XML prolog) left
 * out, and every id (id="x", id='x') and every reference to one
 * (href="#x", url(#x)) given the prefix "fN-", so that several figures in
 * one page keep their ids apart. Nothing when svg holds no "<svg".
 */
void svg_inline(FILE *out, const char *svg, size_t len, int n);

#endif
