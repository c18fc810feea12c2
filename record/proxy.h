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

/* argv[0] is "proxy". Returns the exit status: 0, 1 (the recording failed)
 * or 2 (usage or input error). */
int proxy_main(int argc, char **argv);

#endif
