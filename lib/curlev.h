/*
 * curlev.h - a libcurl multi handle driven by a libevent loop.
 *
 * libcurl's multi socket API says which sockets to watch and when to call
 * it back; this module turns those wishes into libevent events and hands
 * readiness back with curl_multi_socket_action. Whoever runs many
 * transfers on one event loop (replay's client, record's proxy, through
 * lib/transfer.h) adds easy handles to curlev_multi() and hears of each
 * finished one through 'done'.
 */
#ifndef TB_CURLEV_H
#define TB_CURLEV_H

#include <curl/curl.h>
#include <event2/event.h>

struct curlev;

/* A transfer ended with 'code'; 'priv' is its easy handle's
 * CURLOPT_PRIVATE. The handle is still in the multi handle: the callback
 * removes it (and may add new ones). */
typedef void (*curlev_done_fn)(void *priv, CURLcode code);

/* A multi handle on 'base'. Returns NULL when libcurl or libevent cannot
 * allocate. The caller frees it with curlev_free, after removing its
 * easy handles. */
struct curlev *curlev_new(struct event_base *base, curlev_done_fn done);

/* The multi handle, to add and remove easy handles and set options. */
CURLM *curlev_multi(struct curlev *cv);

/*
 * 0 when 'url' is an http:// or https:// URL with a host that libcurl
 * parses ("http://", "http://[::1" are not); else -1 with the reason in
 * err (errlen bytes).
 */
int curlev_check_url(const char *url, char *err, size_t errlen);

/* Frees the multi handle and its events (NULL is a no-op). */
void curlev_free(struct curlev *cv);

#endif
