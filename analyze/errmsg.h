/*
 * errmsg.h - how analyze's modules fill the caller's 'err' buffer: one
 * printf-style line, nothing written when err is NULL or errlen is 0.
 */
#ifndef TB_ANALYZE_ERRMSG_H
#define TB_ANALYZE_ERRMSG_H

#include <stddef.h>

void errmsg_set(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
