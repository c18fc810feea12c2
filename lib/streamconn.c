/*
 * streamconn.c - an evhttp server connection that streams a reply; see
 * streamconn.h.
 */
#include "streamconn.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

void streamconn_busy(struct evhttp_connection *conn, int busy, int idle_s)
{
	struct bufferevent *bev = evhttp_connection_get_bufferevent(conn);
	struct timeval idle = { idle_s, 0 };
	int one = 1;

	bufferevent_set_timeouts(bev, busy ? NULL : &idle, &idle);
	if (busy)
		setsockopt(bufferevent_getfd(bev), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/*
 * evhttp_send_reply_chunk queues the bytes and registers write interest;
 * writing them here and dropping that interest in the same pass means the
 * epoll changelist (EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST) never takes it to
 * the kernel: an event costs one writev, not a writev, two epoll_ctl and an
 * epoll_wait, and it leaves now, not one loop pass later. A socket
 * bufferevent keeps its output frozen at the start between its own writes
 * (so, after the first reply on a keep-alive connection, a plain
 * evbuffer_write fails): thaw it around ours, as the bufferevent does.
 */
void streamconn_flush(struct evhttp_connection *conn)
{
	struct bufferevent *bev;
	struct evbuffer *out;
	int rc;

	if (!conn)
		return;
	bev = evhttp_connection_get_bufferevent(conn);
	out = bufferevent_get_output(bev);
	evbuffer_unfreeze(out, 1);
	rc = evbuffer_write(out, bufferevent_getfd(bev));
	evbuffer_freeze(out, 1);
	if (rc >= 0 && evbuffer_get_length(out) == 0)
		bufferevent_disable(bev, EV_WRITE);
}
