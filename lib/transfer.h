/*
 * transfer.h - one HTTP request sent with libcurl whose response is
 * measured into a struct result as it arrives: what replay's client and
 * record's proxy share.
 *
 * A transfer owns its easy handle, the request's header list and the
 * response's meter (lib/meter.h). It sets up what both sides want of
 * libcurl (no signals, no Nagle, timeouts, TLS checks, the method and body
 * rules), decides whether a response is an SSE stream or a whole body, keeps
 * a whole body (capped) to read its usage or to quote it in an HTTP error,
 * and, when libcurl reports the end (lib/curlev.h), completes the result:
 * the first error set on it is the cause (lib/result.h), then libcurl's
 * error, the HTTP status, a body over the cap, or the stream's own end.
 *
 * Lifecycle: transfer_init, transfer_add_header / transfer_set_request,
 * transfer_start; from the write callback transfer_feed; when curlev says it
 * ended transfer_finish; then transfer_release (also after a failed init).
 */
#ifndef TB_TRANSFER_H
#define TB_TRANSFER_H

#include <stddef.h>
#include <stdint.h>
#include <curl/curl.h>

#include "meter.h"
#include "result.h"

struct transfer_options {
	long timeout_ms;          /* whole transfer; 0 = none */
	long connect_timeout_ms;  /* 0 = libcurl's default */
	int http2;                /* HTTP/2 (prior knowledge on http://); else 1.1 */
	int insecure;             /* do not verify the server's TLS certificate */
	size_t max_event;         /* cap on one SSE event (0: SSE_DEFAULT_MAX_EVENT) */
	size_t max_body;          /* cap on a whole body kept to measure, > 0 */
};

enum transfer_mode { TRANSFER_UNKNOWN, TRANSFER_SSE, TRANSFER_BODY };

struct transfer {
	CURL *easy;                  /* NULL when init failed */
	CURLM *multi;                /* the multi handle it runs in, once started */
	struct curl_slist *headers;  /* request headers, sent as they are */
	struct result *result;       /* the caller's, filled in place */
	struct meter meter;
	enum transfer_mode mode;     /* decided when the response's headers end */
	size_t max_body;
	char *body;                  /* a whole (non-SSE) body, up to max_body */
	size_t body_len, body_cap;
	int gave_up;                 /* transfer_feed failed: nothing more measured */
	char errbuf[CURL_ERROR_SIZE];
};

/*
 * Sets up t for base_url + path, measuring into r (initialized; the caller
 * keeps it) from start_ns. libcurl hands the response's bytes to 'write'
 * with 'priv', which is also the handle's CURLOPT_PRIVATE (what lib/curlev
 * reports). Returns 0, or -1 when out of memory (call transfer_release).
 */
/*
 * The URL a request for 'path' (which may carry a query) goes to on the
 * endpoint 'base_url': path goes after the base's own path, and the base's
 * query, if any, after it ("http://h/?key=K" + "/v1/x" is
 * "http://h/v1/x?key=K"; a fragment is dropped). Returns a malloc'ed string,
 * or NULL when out of memory.
 */
char *transfer_url(const char *base_url, const char *path);

int transfer_init(struct transfer *t, const struct transfer_options *o, const char *base_url,
		  const char *path, struct result *r, int64_t start_ns,
		  curl_write_callback write, void *priv);

/* Appends a "Name: value" line (copied) to the request headers. Returns 0 or -1. */
int transfer_add_header(struct transfer *t, const char *line);

/*
 * Method and body (not copied: they must outlive the transfer): HEAD asks
 * for no body, a GET without a body is a plain GET, POST, PUT, PATCH or any
 * method with a body sends it, any other method is sent as it is named.
 */
void transfer_set_request(struct transfer *t, const char *method, const char *body,
			  size_t body_len);

/* Adds t to 'multi' (lib/curlev's). Returns 0, or -1 when libcurl refuses. */
int transfer_start(struct transfer *t, CURLM *multi);

/* The response's headers are in: sets the result's status and whether the
 * body is an SSE stream (2xx, text/event-stream) or a whole body. Called
 * by transfer_feed and transfer_finish when the caller has not. */
void transfer_response_starts(struct transfer *t);

/*
 * Response bytes that arrived at now_ns. Returns 0; METER_STOPPED when the
 * meter's stop_tokens token events are in (the caller stops the transfer;
 * nothing is measured after); or -1 when the response can no longer be
 * measured: an SSE stream broke the meter's cap (the result says so), or a
 * whole body outgrew max_body or memory. Later calls then do nothing and
 * return -1; the caller may stop the transfer or pass the rest on
 * unmeasured.
 */
int transfer_feed(struct transfer *t, const char *buf, size_t len, int64_t now_ns);

/* The transfer ended with 'code' at now_ns: completes the result (see the
 * top of this file), and whether it opened its connection, with the
 * connect and TLS times (CURLINFO_CONNECT_TIME_T, APPCONNECT_TIME_T). */
void transfer_finish(struct transfer *t, CURLcode code, int64_t now_ns);

/* libcurl's own message for 'code' on t: its error buffer, else
 * curl_easy_strerror; for CURLE_OUT_OF_MEMORY what it almost always means
 * (a response header over libcurl's 100 KB limit). */
const char *transfer_curl_message(const struct transfer *t, CURLcode code);

/* Removes t from its multi handle and frees what it owns (not the result).
 * A zeroed transfer, or one released already, is a no-op. */
void transfer_release(struct transfer *t);

#endif
