/*
 * httpserver.c - what the mock and record's proxy share as evhttp servers;
 * see httpserver.h.
 */
#include "httpserver.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#define LISTEN_BACKLOG 4096

int httpserver_parse_listen(const char *s, char *host, size_t hostlen, int *port)
{
	const char *colon = strrchr(s, ':');
	const char *h = s;
	size_t hlen;
	char *end;
	long p;

	if (!colon || colon == s)
		return -1;
	hlen = (size_t)(colon - s);
	if (s[0] == '[' && hlen >= 2 && s[hlen - 1] == ']') {
		h = s + 1;
		hlen -= 2;
	}
	errno = 0;
	p = strtol(colon + 1, &end, 10);
	if (hlen == 0 || hlen >= hostlen || !colon[1] || *end || errno || p < 0 || p > 65535)
		return -1;
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	*port = (int)p;
	return 0;
}

struct evhttp_bound_socket *httpserver_listen(struct evhttp *http, const char *host, int *port,
					      struct sockaddr_storage *self, const char *prog)
{
	struct evhttp_bound_socket *bound;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct addrinfo hints, *ai;
	evutil_socket_t fd;
	int rc;

	/* Resolve first, for getaddrinfo's own message (libevent has none). */
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	if ((rc = getaddrinfo(host, NULL, &hints, &ai)) != 0) {
		fprintf(stderr, "%s: cannot listen on '%s:%d': %s\n", prog, host, *port,
			gai_strerror(rc));
		return NULL;
	}
	freeaddrinfo(ai);
	errno = 0;
	bound = evhttp_bind_socket_with_handle(http, host, (ev_uint16_t)*port);
	if (!bound) {
		fprintf(stderr, "%s: cannot listen on '%s:%d': %s\n", prog, host, *port,
			strerror(errno ? errno : EADDRNOTAVAIL));
		return NULL;
	}
	fd = evhttp_bound_socket_get_fd(bound);
	listen(fd, LISTEN_BACKLOG);     /* Linux raises the queue in place */
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
		fprintf(stderr, "%s: cannot read the bound address: %s\n", prog, strerror(errno));
		return NULL;
	}
	if (ss.ss_family == AF_INET)
		*port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	else if (ss.ss_family == AF_INET6)
		*port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	if (self)
		*self = ss;
	return bound;
}

int httpserver_write_port_file(const char *path, int port, const char *prog)
{
	size_t len = strlen(path) + 5;
	char *tmp = malloc(len);
	FILE *f;
	int ok;

	if (!tmp) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -1;
	}
	snprintf(tmp, len, "%s.tmp", path);
	f = fopen(tmp, "w");
	ok = f && fprintf(f, "%d\n", port) > 0;
	if (f && fclose(f) != 0)
		ok = 0;
	if (!ok || rename(tmp, path) != 0) {
		fprintf(stderr, "%s: cannot write '%s': %s\n", prog, path, strerror(errno));
		remove(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

void httpserver_busy(struct evhttp_connection *conn, int busy, int idle_s)
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
void httpserver_flush(struct evhttp_connection *conn)
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
