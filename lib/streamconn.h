/*
 * streamconn.h - an evhttp server connection that streams a reply.
 *
 * The mock and record's proxy both answer with SSE streams through
 * libevent's evhttp: while a reply streams, its client is silent by design,
 * and each small event must leave at once. These two helpers say so to the
 * connection.
 */
#ifndef TB_STREAMCONN_H
#define TB_STREAMCONN_H

#include <event2/http.h>

/*
 * busy 1: a reply is being produced. Lift the read timeout (a long TTFT or
 * gap must not cut the client off; a client that stops reading is still
 * dropped by the write timeout) and turn Nagle off so small events leave
 * at once. busy 0: put the idle keep-alive timeout, idle_s, back.
 */
void streamconn_busy(struct evhttp_connection *conn, int busy, int idle_s);

/*
 * Write what evhttp has queued for the connection now, from the caller's
 * callback, rather than on the next pass of the loop. What the socket does
 * not take stays queued for the bufferevent, and a write error is left for
 * it to find (so it reaches the connection's close callback).
 */
void streamconn_flush(struct evhttp_connection *conn);

#endif
