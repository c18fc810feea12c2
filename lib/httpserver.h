/*
 * httpserver.h - what the mock and record's proxy share as libevent evhttp
 * servers: the --listen address, binding it, the --port-file, and a
 * connection that streams a reply.
 *
 * Both answer with SSE streams: while a reply streams, its client is silent
 * by design, and each small event must leave at once; httpserver_busy and
 * httpserver_flush say so to the connection. 'prog' is the program's name
 * for error messages ("tracebench mock").
 */
#ifndef TB_HTTPSERVER_H
#define TB_HTTPSERVER_H

#include <stddef.h>
#include <sys/socket.h>
#include <event2/http.h>

/* Parses HOST:PORT ([V6ADDR]:PORT too; port 0 picks a free one) into host
 * (of size hostlen) and *port. Returns 0, or -1 when s is not one. */
int httpserver_parse_listen(const char *s, char *host, size_t hostlen, int *port);

/*
 * Binds http to host:*port with a listen queue of 4096 (evhttp's 128 drops
 * the SYNs of a burst of new streams, which then show as a second of TTFT);
 * sets *port to the port bound and, unless NULL, *self to the address.
 * Returns the bound socket (evhttp_del_accept_socket stops accepting), or
 * NULL after printing why.
 */
struct evhttp_bound_socket *httpserver_listen(struct evhttp *http, const char *host, int *port,
		      struct sockaddr_storage *self, const char *prog);

/* Writes "PORT\n" to path.tmp and renames it to path, so a reader never
 * sees half of it. Returns 0, or -1 after printing why. */
int httpserver_write_port_file(const char *path, int port, const char *prog);

/*
 * busy 1: a reply is being produced. Lift the read timeout (a long TTFT or
 * gap must not cut the client off; a client that stops reading is still
 * dropped by the write timeout) and turn Nagle off so small events leave
 * at once. busy 0: put the idle keep-alive timeout, idle_s, back.
 */
void httpserver_busy(struct evhttp_connection *conn, int busy, int idle_s);

/*
 * Write what evhttp has queued for the connection now, from the caller's
 * callback, rather than on the next pass of the loop. What the socket does
 * not take stays queued for the bufferevent, and a write error is left for
 * it to find (so it reaches the connection's close callback).
 */
void httpserver_flush(struct evhttp_connection *conn);

#endif
