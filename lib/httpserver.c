/*
 * httpserver.c - what the mock and record's proxy share as evhttp servers;
 * see httpserver.h.
 */
#include "httpserver.h"
#include "clock.h"
#include "errmsg.h"
#include "tmpfile.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/keyvalq_struct.h>
#include <event2/util.h>

#define LISTEN_BACKLOG 4096

struct event_base *httpserver_base_new(void)
{
	struct event_config *cfg = event_config_new();
	struct event_base *base = NULL;

	if (cfg) {
		event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER |
				      EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
		base = event_base_new_with_config(cfg);
		event_config_free(cfg);
	}
	return base;
}

struct evhttp *httpserver_new(struct event_base *base, void (*cb)(struct evhttp_request *, void *),
			      void *arg, long max_body, long max_headers, int idle_s)
{
	struct evhttp *http = evhttp_new(base);

	if (!http)
		return NULL;
	evhttp_set_gencb(http, cb, arg);
	evhttp_set_max_body_size(http, (ev_ssize_t)max_body);
	evhttp_set_max_headers_size(http, (ev_ssize_t)max_headers);
	evhttp_set_timeout(http, idle_s);
	return http;
}

void httpserver_add_date(struct evhttp_request *req)
{
	time_t now = (time_t)(clock_wall_ns() / NS_PER_S);
	struct tm tm;
	char date[64];

	if (gmtime_r(&now, &tm) && strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm))
		evhttp_add_header(evhttp_request_get_output_headers(req), "Date", date);
}

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
					      struct sockaddr_storage *self, char *err,
					      size_t errlen)
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
		errmsg_set(err, errlen, "cannot listen on '%s:%d': %s", host, *port,
			   gai_strerror(rc));
		return NULL;
	}
	freeaddrinfo(ai);
	errno = 0;
	bound = evhttp_bind_socket_with_handle(http, host, (ev_uint16_t)*port);
	if (!bound) {
		errmsg_set(err, errlen, "cannot listen on '%s:%d': %s", host, *port,
			   strerror(errno ? errno : EADDRNOTAVAIL));
		return NULL;
	}
	fd = evhttp_bound_socket_get_fd(bound);
	listen(fd, LISTEN_BACKLOG);     /* Linux raises the queue in place */
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
		errmsg_set(err, errlen, "cannot read the bound address: %s", strerror(errno));
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

int httpserver_write_port_file(const char *path, int port, char *err, size_t errlen)
{
	char tmp[4096];
	FILE *f = tmpfile_create(path, tmp, sizeof(tmp));

	/* a failed fprintf sets the stream's error: the commit refuses it */
	if (!f || (fprintf(f, "%d\n", port), tmpfile_commit(f, tmp, path)) != 0) {
		errmsg_set(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

void httpserver_busy(struct evhttp_connection *conn, int busy, long idle_ms)
{
	struct bufferevent *bev = evhttp_connection_get_bufferevent(conn);
	struct timeval idle = { idle_ms / 1000, (suseconds_t)(idle_ms % 1000) * 1000 };
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
 * write_now writes the output of bev so, and returns 1 when it is all out
 * (write interest dropped), 0 when some of it, or an error, is left to the
 * bufferevent.
 */
static int write_now(struct bufferevent *bev)
{
	struct evbuffer *out = bufferevent_get_output(bev);
	int rc = 0;

	if (evbuffer_get_length(out)) {         /* else httpserver_send_chunk wrote it all */
		evbuffer_unfreeze(out, 1);
		rc = evbuffer_write(out, bufferevent_getfd(bev));
		evbuffer_freeze(out, 1);
	}
	if (rc < 0 || evbuffer_get_length(out))
		return 0;
	bufferevent_disable(bev, EV_WRITE);
	return 1;
}

void httpserver_flush(struct evhttp_connection *conn)
{
	if (conn)
		write_now(evhttp_connection_get_bufferevent(conn));
}

int httpserver_chunked(struct evhttp_request *req)
{
	const char *te = evhttp_find_header(evhttp_request_get_output_headers(req),
					    "Transfer-Encoding");

	return te && evutil_ascii_strcasecmp(te, "chunked") == 0;
}

void httpserver_send_chunk(struct evhttp_request *req, const char *data, size_t len)
{
	struct evhttp_connection *conn = evhttp_request_get_connection(req);
	struct bufferevent *bev;
	struct evbuffer *out;
	char size[24];
	struct iovec iov[3];
	struct msghdr msg;
	ssize_t sent = 0;
	size_t i;

	if (!conn || len == 0)
		return;
	bev = evhttp_connection_get_bufferevent(conn);
	out = bufferevent_get_output(bev);
	iov[0].iov_base = size;
	iov[0].iov_len = (size_t)snprintf(size, sizeof(size), "%zx\r\n", len);
	iov[1].iov_base = (void *)data;
	iov[1].iov_len = len;
	iov[2].iov_base = (void *)"\r\n";
	iov[2].iov_len = 2;
	if (evbuffer_get_length(out) == 0) {
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = iov;
		msg.msg_iovlen = 3;
		sent = sendmsg(bufferevent_getfd(bev), &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (sent < 0)
			sent = 0;       /* EAGAIN, or an error the bufferevent will meet */
	}
	for (i = 0; i < 3; i++) {
		size_t skip = (size_t)sent < iov[i].iov_len ? (size_t)sent : iov[i].iov_len;

		sent -= (ssize_t)skip;
		if (skip < iov[i].iov_len)
			evbuffer_add(out, (const char *)iov[i].iov_base + skip, iov[i].iov_len - skip);
	}
	if (evbuffer_get_length(out))
		bufferevent_enable(bev, EV_WRITE);
}

/*
 * evhttp_send_reply_end queues the terminator and asks the bufferevent to
 * write it, evhttp's completion (evhttp_send_done) running from the write
 * callback once the output drains. Writing it here instead, that callback
 * must still run: bufferevent_trigger runs it, deferred to the loop as the
 * bufferevent's own would be, since evhttp_send_done frees req.
 */
void httpserver_end_chunks(struct evhttp_request *req, const char *data, size_t len)
{
	struct evhttp_connection *conn = evhttp_request_get_connection(req);
	struct bufferevent *bev;
	struct evbuffer *out;

	if (!conn) {
		evhttp_send_reply_end(req);
		return;
	}
	bev = evhttp_connection_get_bufferevent(conn);
	out = bufferevent_get_output(bev);
	if (len) {              /* framed as evhttp_send_reply_chunk does */
		evbuffer_add_printf(out, "%zx\r\n", len);
		evbuffer_add(out, data, len);
		evbuffer_add(out, "\r\n", 2);
	}
	evhttp_send_reply_end(req);
	if (write_now(bev))
		bufferevent_trigger(bev, EV_WRITE, BEV_TRIG_DEFER_CALLBACKS);
}

const char *httpserver_method_name(enum evhttp_cmd_type m)
{
	switch (m) {
	case EVHTTP_REQ_GET:     return "GET";
	case EVHTTP_REQ_POST:    return "POST";
	case EVHTTP_REQ_HEAD:    return "HEAD";
	case EVHTTP_REQ_PUT:     return "PUT";
	case EVHTTP_REQ_DELETE:  return "DELETE";
	case EVHTTP_REQ_OPTIONS: return "OPTIONS";
	case EVHTTP_REQ_PATCH:   return "PATCH";
	default:                 return NULL;
	}
}

void httpserver_reply_json(struct evhttp_request *req, int code, const char *reason, cJSON *obj)
{
	char *text = obj ? cJSON_PrintUnformatted(obj) : NULL;
	struct evbuffer *body = evbuffer_new();

	if (text && body && evbuffer_add_printf(body, "%s\n", text) > 0) {
		evhttp_add_header(evhttp_request_get_output_headers(req),
				  "Content-Type", "application/json");
		evhttp_send_reply(req, code, reason, body);
	} else {
		evhttp_send_error(req, HTTP_INTERNAL, "out of memory");
	}
	if (body)
		evbuffer_free(body);
	cJSON_free(text);
	cJSON_Delete(obj);
}

void httpserver_reply_error(struct evhttp_request *req, int code, const char *reason,
			    const char *type, const char *message)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *err = cJSON_AddObjectToObject(root, "error");

	cJSON_AddStringToObject(err, "message", message);
	cJSON_AddStringToObject(err, "type", type);
	cJSON_AddNumberToObject(err, "code", code);
	httpserver_reply_json(req, code, reason, err ? root : NULL);
	if (!err)
		cJSON_Delete(root);
}

void httpserver_free_detached(struct evhttp_request *req)
{
	if (!evhttp_request_get_connection(req))
		evhttp_request_free(req);
}

void httpserver_forget_conn(struct evhttp_request *req, long idle_ms)
{
	struct evhttp_connection *conn = req ? evhttp_request_get_connection(req) : NULL;

	if (conn) {
		evhttp_connection_set_closecb(conn, NULL, NULL);
		httpserver_busy(conn, 0, idle_ms);
	}
}
