/*
 * conns.c - the mock's client connections: their timeouts, their close
 * callbacks and, with --http-threads N, a server that holds at most N of
 * them at once.
 *
 * llama.cpp's server (cpp-httplib) serves each connection on a thread of a
 * fixed pool from its accept to its close: a kept-alive connection that
 * sits idle holds its thread until the keep-alive timeout (5 s) closes it,
 * and a connection accepted past the pool waits, its request unread,
 * until a thread is free. --http-threads N plays that: once N connections
 * are open the listener stops accepting (the kernel completes the
 * handshakes and queues them, so a client's connect succeeds and its
 * request waits), and each close lets the next one in. An idle connection
 * is closed after --keepalive-timeout-ms (5000 by default with
 * --http-threads; without it the mock's own MOCK_TIMEOUT_S).
 *
 * evhttp says when it accepts a connection only through the callback that
 * makes its bufferevent (evhttp_set_bevcb), and when it closes one only
 * through the connection's close callback, which the streams use too: so
 * with --http-threads every connection's close callback is this file's,
 * calling the one a stream or a held reply asked for (mock_conn_watch). A
 * connection is known by its bufferevent until its first request names
 * its evhttp connection; one that closes before any request is forgotten
 * once the keep-alive timeout would have closed it.
 */
#include "mock/server.h"
#include "lib/clock.h"
#include "lib/httpserver.h"

#include <stdlib.h>
#include <event2/bufferevent.h>
#include <event2/listener.h>

/* One connection the server holds (--http-threads). */
struct mock_conn {
	struct mock_server *srv;
	struct bufferevent *bev;
	struct evhttp_connection *conn;   /* NULL until its first request */
	int64_t accepted_ns;
	void (*cb)(struct evhttp_connection *, void *);   /* mock_conn_watch's */
	void *arg;
	struct mock_conn *prev, *next;
};

/* The idle timeout. */
static long mock_idle_ms(const struct mock_server *srv)
{
	if (srv->opt.keepalive_ms > 0)
		return srv->opt.keepalive_ms;
	return srv->opt.http_threads > 0 ? MOCK_KEEPALIVE_MS : MOCK_TIMEOUT_S * 1000L;
}

static void conn_unlink(struct mock_server *srv, struct mock_conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		srv->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c);
	srv->n_conns--;
	if (srv->listener && srv->n_conns < srv->opt.http_threads && srv->accept_paused) {
		srv->accept_paused = 0;
		evconnlistener_enable(srv->listener);
	}
}

/* evhttp_set_bevcb: a connection accepted; the listener pauses at N. */
static struct bufferevent *on_accept(struct event_base *base, void *arg)
{
	struct mock_server *srv = arg;
	struct bufferevent *bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	struct mock_conn *c = bev ? calloc(1, sizeof(*c)) : NULL;

	if (c) {
		c->srv = srv;
		c->bev = bev;
		c->accepted_ns = clock_now_ns();
		c->next = srv->conns;
		if (c->next)
			c->next->prev = c;
		srv->conns = c;
		srv->n_conns++;
		srv->conns_accepted++;
		if (srv->n_conns >= srv->opt.http_threads && !srv->accept_paused) {
			srv->accept_paused = 1;
			evconnlistener_disable(srv->listener);
		}
	}
	return bev;
}

/* The record of conn, found by its evhttp connection or, at its first
 * request, by its bufferevent (the newest first: a freed one's address may
 * come back). NULL when unknown. */
static struct mock_conn *conn_find(struct mock_server *srv, struct evhttp_connection *conn)
{
	struct bufferevent *bev = evhttp_connection_get_bufferevent(conn);
	struct mock_conn *c;

	for (c = srv->conns; c; c = c->next)
		if (c->conn == conn)
			return c;
	for (c = srv->conns; c; c = c->next)
		if (!c->conn && c->bev == bev)
			return c;
	return NULL;
}

/* Forgets the connections that never sent a request and that the idle
 * timeout has closed by now (evhttp told no one). */
static void on_sweep(evutil_socket_t fd, short what, void *arg)
{
	struct mock_server *srv = arg;
	int64_t cutoff = clock_now_ns() - (mock_idle_ms(srv) + 1000) * NS_PER_MS;
	struct mock_conn *c, *next;

	(void)fd;
	(void)what;
	for (c = srv->conns; c; c = next) {
		next = c->next;
		if (!c->conn && c->accepted_ns < cutoff)
			conn_unlink(srv, c);
	}
}

/* The connection's close callback under --http-threads: the watcher
 * first (a stream whose client went), then the thread is free. */
static void on_conn_gone(struct evhttp_connection *conn, void *arg)
{
	struct mock_conn *c = arg;

	if (c->cb)
		c->cb(conn, c->arg);
	conn_unlink(c->srv, c);
}

int mock_conns_init(struct mock_server *srv, struct evhttp_bound_socket *bound)
{
	struct timeval idle = { mock_idle_ms(srv) / 1000,
				(suseconds_t)(mock_idle_ms(srv) % 1000) * 1000 };
	struct timeval every = { 1, 0 };

	evhttp_set_timeout_tv(srv->http, &idle);
	if (srv->opt.http_threads <= 0)
		return 0;
	srv->listener = evhttp_bound_socket_get_listener(bound);
	srv->conn_sweep = event_new(srv->base, -1, EV_PERSIST, on_sweep, srv);
	if (!srv->listener || !srv->conn_sweep || event_add(srv->conn_sweep, &every) < 0)
		return -1;
	evhttp_set_bevcb(srv->http, on_accept, srv);
	return 0;
}

void mock_conns_release(struct mock_server *srv)
{
	if (srv->conn_sweep)
		event_free(srv->conn_sweep);
	srv->conn_sweep = NULL;
	while (srv->conns) {
		struct mock_conn *c = srv->conns;

		srv->conns = c->next;
		free(c);
	}
}

void mock_conn_seen(struct mock_server *srv, struct evhttp_request *req)
{
	struct evhttp_connection *conn = evhttp_request_get_connection(req);
	struct mock_conn *c;

	if (srv->opt.http_threads <= 0 || !conn)
		return;
	c = conn_find(srv, conn);
	if (c && !c->conn) {
		c->conn = conn;
		evhttp_connection_set_closecb(conn, on_conn_gone, c);
	}
}

void mock_conn_watch(struct mock_server *srv, struct evhttp_connection *conn,
		     void (*cb)(struct evhttp_connection *, void *), void *arg)
{
	struct mock_conn *c;

	if (srv->opt.http_threads <= 0 || !(c = conn_find(srv, conn))) {
		evhttp_connection_set_closecb(conn, cb, arg);
		return;
	}
	c->cb = cb;
	c->arg = arg;
}

void mock_conn_forget(struct mock_server *srv, struct evhttp_request *req)
{
	struct evhttp_connection *conn = req ? evhttp_request_get_connection(req) : NULL;
	struct mock_conn *c;

	if (srv->opt.http_threads <= 0 || !conn || !(c = conn_find(srv, conn))) {
		httpserver_forget_conn(req, mock_idle_ms(srv));
		return;
	}
	c->cb = NULL;
	c->arg = NULL;
	httpserver_busy(conn, 0, mock_idle_ms(srv));
}

void mock_conn_busy(struct mock_server *srv, struct evhttp_connection *conn)
{
	httpserver_busy(conn, 1, mock_idle_ms(srv));
}
