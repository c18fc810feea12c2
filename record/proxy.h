/*
 * proxy.h - `tracebench record proxy`: a streaming reverse proxy that
 * records the traffic passing through it as a trace.
 *
 * Real clients point their base URL at the proxy; each request goes to the
 * upstream unchanged and its response comes back unchanged, SSE bytes passed
 * on as they arrive. Every request is appended to the trace with the
 * upstream's timing and outcome as the proxy saw it ("recorded",
 * schema/FORMAT.md).
 */
#ifndef TB_PROXY_H
#define TB_PROXY_H

#include <stddef.h>

#define PROXY_MAX_KEEP 64                      /* --keep-header, --keep-query names */
#define PROXY_MAX_BODY (32L * 1024 * 1024)     /* default request body cap */

/* record proxy; the strings point into argv. */
struct proxy_options {
	char host[256];
	int port;
	const char *upstream;
	const char *output;
	const char *port_file;
	const char *keep[PROXY_MAX_KEEP];  /* --keep-header names */
	size_t n_keep;
	const char *keep_query[PROXY_MAX_KEEP];  /* --keep-query names */
	size_t n_keep_query;
	int force;
	long grace_s;
	long max_requests;                 /* 0: no limit */
	double duration_s;                 /* 0: no limit */
	long timeout_s;                    /* whole upstream transfer; 0: none */
	long connect_timeout_s;
	long max_body;                     /* request body cap, bytes */
	int insecure;                      /* -k: skip the upstream's TLS checks */
	int progress;                      /* 1 on, 0 off, -1 when a terminal */
	const char *session_header;        /* groups requests into sessions, or NULL */
	int session_prefix;                /* --sessions prefix: by the conversation */
};

/*
 * Listens, forwards to o->upstream and records to o->output until stopped
 * (a signal, --duration, --max-requests). Returns the exit status: 0, 1
 * (the recording failed) or 2 (usage or input error).
 */
int proxy_run(const struct proxy_options *o);

#endif
