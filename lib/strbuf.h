/*
 * strbuf.h - a growable NUL-terminated byte buffer: char *buf with its
 * length and capacity, as the SSE parser, replay's client and record's
 * proxy keep them for lines and response bodies.
 */
#ifndef TB_STRBUF_H
#define TB_STRBUF_H

#include <stddef.h>

/* Appends n bytes of src to *buf (growing it by doubling from 256 bytes)
 * and keeps a NUL after them. Returns 0, or -1 when out of memory (*buf is
 * then as it was). Caps are the caller's to check. */
int strbuf_append(char **buf, size_t *len, size_t *cap, const char *src, size_t n);

#endif
