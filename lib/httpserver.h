/*
 * httpserver.h - what the mock and record's proxy share as libevent evhttp
 * servers: the event loop and the server's limits, the --listen address,
 * binding it, the --port-file, JSON replies, and a connection that streams
 * a reply.
 *
 * Both answer with SSE streams: while a reply streams, its client is silent
 * by design, and each small event must leave at once; httpserver_busy and
 * httpserver_flush say so to the connection. Errors are values (lib/errmsg.h):
 * nothing here prints.
 */
#ifndef TB_HTTPSERVER_H
#define TB_HTTPSERVER_H

#include <stddef.h>
#include <sys/socket.h>
#include <cjson/cJSON.h>
#include <event2/event.h>
#include <event2/http.h>

/* An event loop for a streaming server: precise timers (timerfd rather than
 * epoll's millisecond timeout) and epoll's changelist (see httpserver_flush).
 * Returns NULL when libevent cannot allocate; event_base_free frees it. */
struct event_base *httpserver_base_new(void);

/*
 * An evhttp server on base calling cb(req, arg) for every request, with
 * caps on a request's body and headers (bytes) and idle_s as its idle
 * timeout. Returns NULL when out of memory; evhttp_free frees it.
 */
struct evhttp *httpserver_new(struct event_base *base, void (*cb)(struct evhttp_request *, void *),
			      void *arg, long max_body, long max_headers, int idle_s);

/* Parses HOST:PORT ([V6ADDR]:PORT too; port 0 picks a free one) into host
 * (of size hostlen) and *port. Returns 0, or -1 when s is not one. */
int httpserver_parse_listen(const char *s, char *host, size_t hostlen, int *port);

/*
 * Binds http to host:*port with a listen queue of 4096 (evhttp's 128 drops
 * the SYNs of a burst of new streams, which then show as a second of TTFT);
 * sets *port to the port bound and, unless NULL, *self to the address.
 * Returns the bound socket (evhttp_del_accept_socket stops accepting), or
 * NULL with why in err ("cannot listen on 'HOST:PORT': ...").
 */
struct evhttp_bound_socket *httpserver_listen(struct evhttp *http, const char *host, int *port,
					      struct sockaddr_storage *self, char *err,
					      size_t errlen);

/* Writes "PORT\n" to path.tmp and renames it to path, so a reader never
 * sees half of it. Returns 0, or -1 with why in err. */
int httpserver_write_port_file(const char *path, int port, char *err, size_t errlen);

/*
 * Sets the reply's Date header from this host's wall clock, read now.
 * evhttp's own Date comes from time(2), which reads the kernel's coarse
 * clock: it turns to the next second up to a scheduler tick late (5.7 ms
 * on the machine this was written on), and a client that times the Date's
 * turns to measure its clock's offset (replay's clocksync) would be that
 * far off.
 */
void httpserver_add_date(struct evhttp_request *req);

/* "GET", "POST", ... or NULL for a method evhttp knows but we do not name. */
const char *httpserver_method_name(enum evhttp_cmd_type m);

/* Sends obj as the whole reply, one line of JSON, then frees it
 * (cJSON_Delete; NULL is taken for out of memory: a 500). */
void httpserver_reply_json(struct evhttp_request *req, int code, const char *reason, cJSON *obj);

/* An OpenAI-style error reply: {"error":{"message":...,"type":...,"code":N}}. */
void httpserver_reply_error(struct evhttp_request *req, int code, const char *reason,
			    const char *type, const char *message);

/*
 * Call from a connection's close callback, for the request that was
 * unfinished on it: libevent has detached such a request from the
 * connection and left it to the caller, so this frees it (one still
 * attached is the connection's to free, and is left alone).
 */
void httpserver_free_detached(struct evhttp_request *req);

/* Stop hearing about req's connection closing (its reply is over or about
 * to be) and put the idle timeout, idle_ms, back. req may be NULL. */
void httpserver_forget_conn(struct evhttp_request *req, long idle_ms);

/*
 * busy 1: a reply is being produced. Lift the read timeout (a long TTFT or
 * gap must not cut the client off; a client that stops reading is still
 * dropped by the write timeout) and turn Nagle off so small events leave
 * at once. busy 0: put the idle keep-alive timeout, idle_ms, back.
 */
void httpserver_busy(struct evhttp_connection *conn, int busy, long idle_ms);

/*
 * Write what evhttp has queued for the connection now, from the caller's
 * callback, rather than on the next pass of the loop. What the socket does
 * not take stays queued for the bufferevent, and a write error is left for
 * it to find (so it reaches the connection's close callback).
 */
void httpserver_flush(struct evhttp_connection *conn);

/* True when req's reply, begun with evhttp_send_reply_start, goes out in
 * HTTP chunks (an HTTP/1.1 client, no Content-Length). */
int httpserver_chunked(struct evhttp_request *req);

/*
 * Sends data (len > 0 bytes) as one HTTP chunk of req's chunked reply, now:
 * what evhttp_send_reply_chunk and httpserver_flush do, without copying
 * the bytes through evbuffers when nothing is queued before them (the
 * streaming case): one sendmsg(2) of the chunk's size line, data and CRLF.
 * What the socket does not take, or all of it behind bytes still queued,
 * is queued for the bufferevent; a write error is left for it to find.
 */
void httpserver_send_chunk(struct evhttp_request *req, const char *data, size_t len);

/*
 * Ends req's chunked reply now: data (len bytes, none when len is 0) as its
 * last chunk and the terminating chunk leave in one write, with anything
 * still queued before them, rather than the last chunk in one and
 * evhttp_send_reply_end's terminator in another one loop pass later. What
 * the socket does not take stays queued for the bufferevent. evhttp's
 * completion (req freed, the connection reading its next request) runs
 * from the loop, as after the bufferevent's own write: req must not be
 * used after the call.
 */
void httpserver_end_chunks(struct evhttp_request *req, const char *data, size_t len);

#endif
