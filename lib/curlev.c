/*
 * curlev.c - libcurl multi socket API on a libevent loop; see curlev.h.
 */
#include "curlev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct curlev {
	struct event_base *base;
	CURLM *multi;
	struct event *timer;
	curlev_done_fn done;
};

static void check_finished(struct curlev *cv)
{
	CURLMsg *msg;
	int left;

	while ((msg = curl_multi_info_read(cv->multi, &left))) {
		char *priv = NULL;

		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &priv);
		cv->done(priv, msg->data.result);
	}
}

static void on_socket_ready(evutil_socket_t fd, short events, void *arg)
{
	struct curlev *cv = arg;
	int action = ((events & EV_READ) ? CURL_CSELECT_IN : 0) |
		     ((events & EV_WRITE) ? CURL_CSELECT_OUT : 0);
	int running;

	curl_multi_socket_action(cv->multi, fd, action, &running);
	check_finished(cv);
}

static void on_timeout(evutil_socket_t fd, short events, void *arg)
{
	struct curlev *cv = arg;
	int running;

	(void)fd;
	(void)events;
	curl_multi_socket_action(cv->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	check_finished(cv);
}

/* libcurl: watch socket s for 'what' (CURL_POLL_*); socketp is our event. */
static int on_socket(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp)
{
	struct curlev *cv = userp;
	struct event *ev = socketp;
	short kind;

	(void)easy;
	if (what == CURL_POLL_REMOVE) {
		if (ev)
			event_free(ev);
		curl_multi_assign(cv->multi, s, NULL);
		return 0;
	}
	kind = EV_PERSIST | ((what & CURL_POLL_IN) ? EV_READ : 0) |
	       ((what & CURL_POLL_OUT) ? EV_WRITE : 0);
	if (ev) {
		event_del(ev);
		event_assign(ev, cv->base, s, kind, on_socket_ready, cv);
	} else {
		ev = event_new(cv->base, s, kind, on_socket_ready, cv);
		if (!ev)
			return -1;
		curl_multi_assign(cv->multi, s, ev);
	}
	return event_add(ev, NULL);
}

/* libcurl: call back in timeout_ms (-1: never). */
static int on_timer_change(CURLM *multi, long timeout_ms, void *userp)
{
	struct curlev *cv = userp;
	struct timeval tv;

	(void)multi;
	if (timeout_ms < 0)
		return evtimer_del(cv->timer);
	tv.tv_sec = timeout_ms / 1000;
	tv.tv_usec = (timeout_ms % 1000) * 1000;
	return evtimer_add(cv->timer, &tv);
}

struct curlev *curlev_new(struct event_base *base, curlev_done_fn done)
{
	struct curlev *cv = calloc(1, sizeof(*cv));

	if (!cv)
		return NULL;
	cv->base = base;
	cv->done = done;
	cv->multi = curl_multi_init();
	cv->timer = evtimer_new(base, on_timeout, cv);
	if (!cv->multi || !cv->timer) {
		curlev_free(cv);
		return NULL;
	}
	curl_multi_setopt(cv->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
	curl_multi_setopt(cv->multi, CURLMOPT_SOCKETDATA, cv);
	curl_multi_setopt(cv->multi, CURLMOPT_TIMERFUNCTION, on_timer_change);
	curl_multi_setopt(cv->multi, CURLMOPT_TIMERDATA, cv);
	return cv;
}

CURLM *curlev_multi(struct curlev *cv)
{
	return cv->multi;
}

int curlev_check_url(const char *url, char *err, size_t errlen)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL;
	CURLUcode uc = u ? curl_url_set(u, CURLUPART_URL, url, 0) : CURLUE_OUT_OF_MEMORY;
	int rc = -1;

	if (uc != CURLUE_OK)
		snprintf(err, errlen, "not a URL (%s)", curl_url_strerror(uc));
	else if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
		 (strcmp(scheme, "http") && strcmp(scheme, "https")))
		snprintf(err, errlen, "not an http:// or https:// URL");
	else if (curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK || !host[0])
		snprintf(err, errlen, "no host");
	else
		rc = 0;
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return rc;
}

void curlev_free(struct curlev *cv)
{
	if (!cv)
		return;
	if (cv->multi)
		curl_multi_cleanup(cv->multi);
	if (cv->timer)
		event_free(cv->timer);
	free(cv);
}
