/*
 * test_httpserver.c - lib/httpserver.c's direct chunk writes, over a real
 * loopback connection: a chunk larger than the socket takes at once leaves
 * in part and is queued for the rest, the chunks after it queue behind,
 * and the client reads every byte in order with the chunked framing
 * intact; an HTTP/1.0 reply is not chunked; a reply's last chunk and its
 * end leave in the call that ends it, and the connection then serves the
 * next request.
 */
#include "tests/unit/harness.h"
#include "lib/httpserver.h"
#include "lib/clock.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>

#define BIG (1u << 20)      /* far more than the socket takes at once */

struct served {
	int requests;
	int chunked;            /* httpserver_chunked of the last request */
	size_t queued;          /* left in the output after the big chunk */
	char *big;
};

static void on_request(struct evhttp_request *req, void *arg)
{
	struct served *sv = arg;
	struct evhttp_connection *conn = evhttp_request_get_connection(req);
	char line[32];
	int k, small = 16384;

	sv->requests++;
	/* a small send buffer, so the big chunk cannot leave at once */
	setsockopt(bufferevent_getfd(evhttp_connection_get_bufferevent(conn)), SOL_SOCKET,
		   SO_SNDBUF, &small, sizeof(small));
	evhttp_send_reply_start(req, 200, "OK");
	sv->chunked = httpserver_chunked(req);
	if (sv->chunked && strcmp(evhttp_request_get_uri(req), "/end") == 0) {
		struct evbuffer *out = bufferevent_get_output(evhttp_connection_get_bufferevent(conn));

		httpserver_flush(conn);
		httpserver_send_chunk(req, "data: a\n\n", 9);
		httpserver_end_chunks(req, "data: [DONE]\n\n", 14);
		sv->queued = evbuffer_get_length(out);  /* req is gone; conn is not */
		return;
	}
	if (!sv->chunked) {
		evhttp_send_reply_end(req);
		return;
	}
	httpserver_flush(conn);         /* the headers, as the mock does */
	httpserver_send_chunk(req, sv->big, BIG);
	sv->queued = evbuffer_get_length(bufferevent_get_output(evhttp_connection_get_bufferevent(conn)));
	for (k = 1; k <= 3; k++) {
		int n = snprintf(line, sizeof(line), "data: event %d\n\n", k);

		httpserver_send_chunk(req, line, (size_t)n);
	}
	evhttp_send_reply_end(req);
}

/* Connects to port with a small receive buffer and sends request. */
static int client_open(int port, const char *request)
{
	struct sockaddr_in a;
	int fd = socket(AF_INET, SOCK_STREAM, 0), small = 4096;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    send(fd, request, strlen(request), 0) != (ssize_t)strlen(request)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Runs the loop and reads fd until the peer closes, 'end' has arrived or
 * 10 s pass; returns the bytes read (malloc, NUL-terminated), *len. */
static char *client_read(struct event_base *base, int fd, const char *end, size_t *len)
{
	size_t cap = BIG + 65536, n = 0;
	char *buf = malloc(cap + 1);
	int64_t until = clock_now_ns() + 10 * 1000000000LL;

	if (!buf)
		return NULL;
	while (clock_now_ns() < until) {
		ssize_t r;

		event_base_loop(base, EVLOOP_NONBLOCK);
		r = recv(fd, buf + n, cap - n, MSG_DONTWAIT);
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
			break;
		if (r > 0)
			n += (size_t)r;
		buf[n] = '\0';
		if (n == cap || (n >= strlen(end) && strcmp(buf + n - strlen(end), end) == 0))
			break;
		if (r < 0)
			usleep(200);
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Decodes the chunked body after the headers of reply r (len bytes) into
 * out (malloc); returns its length, or -1 when the framing is broken. */
static long dechunk(const char *r, size_t len, char **out)
{
	const char *p = strstr(r, "\r\n\r\n"), *end = r + len;
	size_t n = 0;

	*out = malloc(len + 1);
	if (!p || !*out)
		return -1;
	for (p += 4; p < end;) {
		char *after;
		unsigned long size = strtoul(p, &after, 16);

		if (after == p || end - after < 2 || memcmp(after, "\r\n", 2))
			return -1;
		after += 2;
		if (size == 0)
			return end - after == 2 && memcmp(after, "\r\n", 2) == 0 ? (long)n : -1;
		if ((size_t)(end - after) < size + 2 || memcmp(after + size, "\r\n", 2))
			return -1;
		memcpy(*out + n, after, size);
		n += size;
		p = after + size + 2;
	}
	return -1;
}

static struct event_base *base;
static struct evhttp *http;
static int port;
static struct served seen;

static int serve(void)
{
	char err[256];
	size_t i;

	base = httpserver_base_new();
	http = base ? httpserver_new(base, on_request, &seen, 1 << 20, 1 << 16, 30) : NULL;
	seen.big = malloc(BIG);
	if (!http || !seen.big || !httpserver_listen(http, "127.0.0.1", &port, NULL, err, sizeof(err)))
		return -1;
	for (i = 0; i < BIG; i++)
		seen.big[i] = (char)('a' + i % 26);
	return 0;
}

TEST(a_big_chunk_queues_its_rest_and_the_chunks_after_it)
{
	static const char tail[] = "data: event 1\n\ndata: event 2\n\ndata: event 3\n\n";
	int fd = client_open(port, "GET /s HTTP/1.1\r\nHost: t\r\n\r\n");
	size_t len = 0;
	char *reply, *body = NULL;
	long n;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	reply = client_read(base, fd, "0\r\n\r\n", &len);
	close(fd);
	CHECK_EQ_INT(seen.requests, 1);
	CHECK(seen.chunked);
	/* the case this test is for: the socket took part of the chunk */
	CHECK(seen.queued > 0 && seen.queued < BIG);
	CHECK(reply && strncmp(reply, "HTTP/1.1 200 OK\r\n", 17) == 0);
	n = reply ? dechunk(reply, len, &body) : -1;
	CHECK_EQ_INT(n, (long)(BIG + strlen(tail)));
	if (n == (long)(BIG + strlen(tail))) {
		CHECK(memcmp(body, seen.big, BIG) == 0);
		CHECK(memcmp(body + BIG, tail, strlen(tail)) == 0);
	}
	free(body);
	free(reply);
}

TEST(an_http10_reply_is_not_chunked)
{
	int fd = client_open(port, "GET /s HTTP/1.0\r\n\r\n");
	size_t len = 0;
	char *reply;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	reply = client_read(base, fd, "\r\n\r\n", &len);
	close(fd);
	CHECK_EQ_INT(seen.requests, 2);
	CHECK(!seen.chunked);
	CHECK(reply && strstr(reply, "Transfer-Encoding") == NULL);
	free(reply);
}

TEST(the_last_chunk_and_the_end_leave_at_once_and_the_connection_goes_on)
{
	static const char body_sent[] = "data: a\n\ndata: [DONE]\n\n";
	static const char request[] = "GET /end HTTP/1.1\r\nHost: t\r\n\r\n";
	int fd = client_open(port, request), before = seen.requests, k;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	for (k = 1; k <= 2; k++) {      /* the second on the same connection */
		size_t len = 0;
		char *reply, *body = NULL;
		long n;

		if (k == 2)
			CHECK(send(fd, request, strlen(request), 0) == (ssize_t)strlen(request));
		seen.queued = 1;
		reply = client_read(base, fd, "0\r\n\r\n", &len);
		CHECK_EQ_INT(seen.requests, before + k);
		CHECK_EQ_INT((long)seen.queued, 0L);    /* nothing left for a later pass */
		n = reply ? dechunk(reply, len, &body) : -1;
		CHECK_EQ_INT(n, (long)strlen(body_sent));
		CHECK(n == (long)strlen(body_sent) && memcmp(body, body_sent, (size_t)n) == 0);
		free(body);
		free(reply);
	}
	close(fd);
}

int main(void)
{
	if (serve() < 0) {
		printf("FAIL test_httpserver: cannot listen on 127.0.0.1\n");
		return 1;
	}
	RUN(a_big_chunk_queues_its_rest_and_the_chunks_after_it);
	RUN(an_http10_reply_is_not_chunked);
	RUN(the_last_chunk_and_the_end_leave_at_once_and_the_connection_goes_on);
	evhttp_free(http);
	event_base_free(base);
	free(seen.big);
	return harness_done();
}
