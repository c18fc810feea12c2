/*
 * transfer.c - one measured libcurl transfer, as replay's client and
 * record's proxy run them; see transfer.h.
 */
#include "transfer.h"
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The result's error class for a transfer libcurl ended with 'code':
 * connect (the connection or its TLS handshake failed), timeout,
 * malformed (a response header over libcurl's 100 KB limit, which libcurl
 * 7.x reports as out of memory: see transfer_curl_message), or transfer
 * (anything else after the connection was up). */
static const char *error_class(CURLcode code)
{
	switch (code) {
	case CURLE_OPERATION_TIMEDOUT:
		return RESULT_ERR_TIMEOUT;
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
		return RESULT_ERR_CONNECT;
	case CURLE_OUT_OF_MEMORY:
		return RESULT_ERR_MALFORMED;
	default:
		return RESULT_ERR_TRANSFER;
	}
}

static long http_version(const struct transfer_options *o, const char *url)
{
	if (!o->http2)
		return (long)CURL_HTTP_VERSION_1_1;
	if (strncmp(url, "https:", 6) == 0)
		return (long)CURL_HTTP_VERSION_2TLS;
	return (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE;
}

char *transfer_url(const char *base_url, const char *path)
{
	size_t head = strcspn(base_url, "?#"), plen = strlen(path), qlen = 0;
	const char *query = NULL;
	char *url;

	if (base_url[head] == '?') {
		query = base_url + head + 1;
		qlen = strcspn(query, "#");
	}
	/* "http://h/" + "/v1/x": one slash between them, not two */
	if (head > 0 && base_url[head - 1] == '/' && path[0] == '/')
		head--;
	url = malloc(head + plen + qlen + 2);
	if (!url)
		return NULL;
	memcpy(url, base_url, head);
	memcpy(url + head, path, plen);
	if (query && qlen) {
		url[head + plen] = strchr(path, '?') ? '&' : '?';
		memcpy(url + head + plen + 1, query, qlen);
		url[head + plen + 1 + qlen] = '\0';
	} else {
		url[head + plen] = '\0';
	}
	return url;
}

int transfer_init(struct transfer *t, const struct transfer_options *o, const char *base_url,
		  const char *path, struct result *r, int64_t start_ns,
		  curl_write_callback write, void *priv)
{
	char *url = transfer_url(base_url, path);
	CURL *e;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	t->result = r;
	t->max_body = o->max_body;
	meter_init(&t->meter, r, start_ns, o->max_event);
	e = t->easy = curl_easy_init();
	if (!url || !e)
		goto cleanup;
	if (curl_easy_setopt(e, CURLOPT_URL, url) != CURLE_OK)
		goto cleanup;
	curl_easy_setopt(e, CURLOPT_HTTP_VERSION, http_version(o, url));
	if (o->insecure) {
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, write);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, priv);
	curl_easy_setopt(e, CURLOPT_PRIVATE, priv);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, o->timeout_ms);
	if (o->connect_timeout_ms)
		curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
	/* "Expect:" stops libcurl from waiting for 100-continue on large bodies. */
	rc = transfer_add_header(t, "Expect:");
cleanup:
	free(url);
	return rc;
}

int transfer_add_header(struct transfer *t, const char *line)
{
	struct curl_slist *l = curl_slist_append(t->headers, line);

	if (!l)
		return -1;
	t->headers = l;
	return 0;
}

void transfer_set_request(struct transfer *t, const char *method, const char *body,
			  size_t body_len)
{
	CURL *e = t->easy;

	if (strcmp(method, "HEAD") == 0) {
		curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
	} else if (strcmp(method, "GET") == 0 && body_len == 0) {
		curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
	} else if (body_len > 0 || strcmp(method, "POST") == 0 ||
		   strcmp(method, "PUT") == 0 || strcmp(method, "PATCH") == 0) {
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
		if (strcmp(method, "POST") != 0)
			curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
	} else {
		curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
	}
}

int transfer_start(struct transfer *t, CURLM *multi)
{
	curl_easy_setopt(t->easy, CURLOPT_HTTPHEADER, t->headers);
	if (curl_multi_add_handle(multi, t->easy) != CURLM_OK)
		return -1;
	t->multi = multi;
	return 0;
}

void transfer_response_starts(struct transfer *t)
{
	long status = 0;
	char *ctype = NULL;

	curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(t->easy, CURLINFO_CONTENT_TYPE, &ctype);
	t->result->status = (int)status;
	if (status >= 200 && status < 300 && ctype &&
	    strncasecmp(ctype, "text/event-stream", 17) == 0)
		t->mode = TRANSFER_SSE;
	else
		t->mode = TRANSFER_BODY;
}

int transfer_feed(struct transfer *t, const char *buf, size_t len, int64_t now_ns)
{
	if (t->mode == TRANSFER_UNKNOWN)
		transfer_response_starts(t);
	if (t->gave_up)
		return -1;
	if (t->mode == TRANSFER_SSE) {
		int rc = meter_feed(&t->meter, buf, len, now_ns);

		t->gave_up = rc != SSE_OK;
		if (rc == METER_STOPPED)
			return rc;
	} else if (t->meter.plain && t->result->status >= 200 && t->result->status < 300)
		return 0;       /* not for inference: its status says all, nothing kept */
	else
		t->gave_up = len > t->max_body - t->body_len ||
			     strbuf_append(&t->body, &t->body_len, &t->body_cap, buf, len) < 0;
	return t->gave_up ? -1 : 0;
}

/*
 * Whether the request opened its own connection and, if so, how long the
 * TCP connect (from the transfer's start, name lookup included) and the
 * TLS handshake took.
 */
static void note_connection(CURL *easy, struct result *r)
{
	long connects = 0;
	curl_off_t connect_us = 0, tls_us = 0;

	curl_easy_getinfo(easy, CURLINFO_NUM_CONNECTS, &connects);
	r->new_connection = connects > 0;
	r->connect_ns = r->tls_ns = -1;
	if (!r->new_connection)
		return;
	if (curl_easy_getinfo(easy, CURLINFO_CONNECT_TIME_T, &connect_us) == CURLE_OK &&
	    connect_us > 0)
		r->connect_ns = (int64_t)connect_us * 1000;
	if (curl_easy_getinfo(easy, CURLINFO_APPCONNECT_TIME_T, &tls_us) == CURLE_OK &&
	    tls_us > 0 && tls_us >= connect_us)
		r->tls_ns = (int64_t)(tls_us - connect_us) * 1000;
}

void transfer_finish(struct transfer *t, CURLcode code, int64_t now_ns)
{
	struct result *r = t->result;

	note_connection(t->easy, r);

	if (t->mode == TRANSFER_UNKNOWN)
		transfer_response_starts(t);
	if (code != CURLE_OK && !t->gave_up) {
		result_set_error(r, error_class(code), transfer_curl_message(t, code));
		meter_end_failed(&t->meter, now_ns);
	} else if (r->status < 200 || r->status >= 300) {
		/* the whole body is redacted before it is cut (lib/redact.h) */
		result_set_http_error(r, r->status, t->body, t->body_len);
		meter_end_failed(&t->meter, now_ns);
	} else if (t->mode == TRANSFER_SSE) {
		meter_end_stream(&t->meter, now_ns);
	} else if (t->gave_up) {
		char detail[96];

		snprintf(detail, sizeof(detail), "response body larger than %zu bytes", t->max_body);
		result_set_error(r, RESULT_ERR_MALFORMED, detail);
		meter_end_failed(&t->meter, now_ns);
	} else {
		meter_end_body(&t->meter, t->body, t->body_len, now_ns);
	}
}

const char *transfer_curl_message(const struct transfer *t, CURLcode code)
{
	if (code == CURLE_OUT_OF_MEMORY)
		return "a response header longer than libcurl's 100 KB limit (or out of memory)";
	return t->errbuf[0] ? t->errbuf : curl_easy_strerror(code);
}

void transfer_release(struct transfer *t)
{
	if (t->multi && t->easy)
		curl_multi_remove_handle(t->multi, t->easy);
	if (t->easy)
		curl_easy_cleanup(t->easy);
	curl_slist_free_all(t->headers);
	meter_release(&t->meter);
	free(t->body);
	memset(t, 0, sizeof(*t));
}
