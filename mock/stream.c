/*
 * stream.c - a generation request's life in the mock: see mock.c's opening comment for
 * the timing model and the request lifecycle, server.h for the files.
 */
#include "mock/server.h"
#include "lib/clock.h"
#include "lib/httpserver.h"
#include "lib/random.h"
#include "lib/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

/* ---- streams ----------------------------------------------------------- */

/* How much slower generation runs with srv->active requests in flight. */
static double load_factor(const struct mock_server *srv)
{
	if (srv->opt.profile != MOCK_PROFILE_BATCHING || srv->active <= 1)
		return 1.0;
	return 1.0 + srv->opt.slope * (double)(srv->active - 1);
}

/*
 * --noise: how long a stretch of the schedule of 'ns' starting at 'at_ns'
 * (monotonic) takes for s: times the host's drift then and s's factors
 * (the tail's, too, when 'tail': the ttft's stretch).
 */
static int64_t noisy_ns(const struct mock_stream *s, double ns, int64_t at_ns, int tail)
{
	const struct mock_server *srv = s->srv;
	double wall = (double)at_ns / NS_PER_S + srv->wall_offset_s;

	return llround(ns * s->slow * (tail ? s->tail : 1) * noise_drift(&srv->opt.noise, wall));
}

/* --noise: a due time inside a stall moves to the stall's end. */
static int64_t stall_release(const struct mock_server *srv, int64_t due_ns)
{
	double t = (double)(due_ns - srv->start_ns) / NS_PER_S;
	double end = noise_stall_end(&srv->opt.noise, srv->opt.seed, t);

	return end > t ? srv->start_ns + (int64_t)ceil(end * NS_PER_S) : due_ns;
}

/* Arm the stream's timer for when token k is due (at once if overdue). */
static void stream_arm(struct mock_stream *s)
{
	int64_t us = (s->due_ns - clock_now_ns() + 999) / 1000; /* round up */
	struct timeval tv;

	if (us < 0)
		us = 0;
	tv.tv_sec = (time_t)(us / 1000000);
	tv.tv_usec = (suseconds_t)(us % 1000000);
	/* libevent adds tv to the time it cached when this loop pass began;
	 * refresh it, or a busy pass would make the timer fire early. */
	event_base_update_cache_time(s->srv->base);
	evtimer_add(s->timer, &tv);
}

/* Frees s, linked or not yet; the request itself is left to the caller. */
static void stream_free_unlinked(struct mock_stream *s)
{
	long j;

	if (s->srv->batch_of == s) {    /* a reset: what it batched is not sent */
		s->srv->batch_of = NULL;
		s->srv->batch_len = 0;
	}
	for (j = 0; j < s->tool_calls; j++)
		free(s->tool_names[j]);
	if (s->timer)
		event_free(s->timer);
	if (s->trickle_timer)
		event_free(s->trickle_timer);
	if (s->trickle)
		evbuffer_free(s->trickle);
	free(s->model);
	free(s->head);
	free(s->ticks);
	gzip_free(s->z);
	free(s);
}

static void stream_admit_waiting(struct mock_server *srv, int64_t now_ns);

/* Unlink and free s; the request itself is left to the caller. */
void stream_free(struct mock_stream *s)
{
	struct mock_server *srv = s->srv;

	if (s->prev)
		s->prev->next = s->next;
	else
		srv->streams = s->next;
	if (s->next)
		s->next->prev = s->prev;
	if (s->queued) {                /* --slots: it leaves the queue */
		struct mock_stream **p = &srv->wait_head, *before = NULL;

		while (*p && *p != s)
			before = *p, p = &(*p)->wait_next;
		if (*p)
			*p = s->wait_next;
		if (srv->wait_tail == s)
			srv->wait_tail = before;
		srv->queued--;
		stream_free_unlinked(s);
		return;
	}
	srv->active--;
	stream_free_unlinked(s);
	if (srv->wait_head)
		stream_admit_waiting(srv, clock_now_ns());
}

/* Sends the events s has batched (stream_send) as one HTTP chunk. */
static void stream_push(struct mock_stream *s)
{
	struct mock_server *srv = s->srv;

	if (srv->batch_of == s && srv->batch_len)
		httpserver_send_chunk(s->req, srv->batch, srv->batch_len);
	if (srv->batch_of == s)
		srv->batch_len = 0;
}

/* Send what is queued for s's client now (lib/httpserver.h). */
static void stream_flush(struct mock_stream *s)
{
	stream_push(s);
	httpserver_flush(evhttp_request_get_connection(s->req));
}

/* Arm the trickle timer for the next byte, --trickle-us from now. */
static void trickle_arm(struct mock_stream *s)
{
	int64_t us = s->srv->opt.trickle_ns / 1000;
	struct timeval tv = { (time_t)(us / 1000000), (suseconds_t)(us % 1000000) };

	event_base_update_cache_time(s->srv->base);
	evtimer_add(s->trickle_timer, &tv);
}

static void stream_end(struct mock_stream *s);

/*
 * Trickle timer callback: send the next queued byte as an HTTP chunk of its
 * own, written at once, so the client reads the body a byte at a time. When
 * the queue empties on a finished stream, end the reply (frees s).
 */
static void trickle_tick(evutil_socket_t fd, short what, void *arg)
{
	struct mock_stream *s = arg;
	struct evbuffer *b = s->srv->scratch;

	(void)fd;
	(void)what;
	if (evbuffer_remove_buffer(s->trickle, b, 1) == 1) {
		evhttp_send_reply_chunk(s->req, b);     /* moves b's contents out */
		evbuffer_drain(b, evbuffer_get_length(b));
		stream_flush(s);
	}
	if (evbuffer_get_length(s->trickle))
		trickle_arm(s);
	else if (s->ending)
		stream_end(s);
}

/* Flags of stream_event(). */
enum {
	EVENT_HEAD = 1,         /* the data starts with s->head */
	EVENT_UNENDED = 2,      /* no blank line after it (--no-final-newline) */
};

/*
 * Send one SSE event: "data: " + (EVENT_HEAD ? s->head : "") + the printf
 * of fmt + "\n\n" (nothing with EVENT_UNENDED), as one HTTP chunk; with
 * --trickle-us, queue it to leave a byte at a time.
 */
static void stream_queue(struct mock_stream *s, struct evbuffer *b);
static void stream_send(struct mock_stream *s, const char *data, size_t len);

static void stream_event(struct mock_stream *s, int flags,
			 const char *fmt, ...)
{
	struct evbuffer *b = s->srv->scratch;
	va_list ap;

	evbuffer_add(b, "data: ", 6);
	if (flags & EVENT_HEAD)
		evbuffer_add(b, s->head, strlen(s->head));
	va_start(ap, fmt);
	evbuffer_add_vprintf(b, fmt, ap);
	va_end(ap);
	if (!(flags & EVENT_UNENDED))
		evbuffer_add(b, "\n\n", 2);
	stream_queue(s, b);
}

/* Sends what b holds (compressed first with --gzip) as one HTTP chunk, or
 * queues it to trickle out; b is left empty. */
static void stream_queue(struct mock_stream *s, struct evbuffer *b)
{
	if (s->z)
		gzip_buffer(s->z, b, s->srv->zscratch, 0);
	if (s->trickle) {
		if (!evbuffer_get_length(s->trickle))
			trickle_arm(s);
		evbuffer_add_buffer(s->trickle, b);     /* moves b's contents */
		return;
	}
	if (s->direct)
		stream_send(s, (const char *)evbuffer_pullup(b, -1), evbuffer_get_length(b));
	else
		evhttp_send_reply_chunk(s->req, b);     /* moves b's contents out */
	evbuffer_drain(b, evbuffer_get_length(b));
}

void stream_send_typed(struct mock_stream *s, const char *name, const char *data)
{
	struct evbuffer *b = s->srv->scratch;

	evbuffer_add_printf(b, "event: %s\ndata: %s\n\n", name, data);
	stream_queue(s, b);
}

/*
 * Sends len bytes of SSE events as stream_queue does. A direct stream
 * batches them instead, without copying them through evbuffers: the
 * events of one pass (the role chunk with the first token, the last token
 * with usage and [DONE]) leave in one write at stream_flush or stream_end,
 * as they would from a server that has them all at once.
 */
static void stream_send(struct mock_stream *s, const char *data, size_t len)
{
	struct mock_server *srv = s->srv;

	if (!s->direct) {
		evbuffer_add(srv->scratch, data, len);
		stream_queue(s, srv->scratch);
		return;
	}
	if (srv->batch_of != s && srv->batch_of)
		stream_push(srv->batch_of);     /* not left behind: never happens */
	srv->batch_of = s;
	if (strbuf_append(&srv->batch, &srv->batch_len, &srv->batch_cap, data, len) < 0) {
		stream_push(s);                 /* out of memory: all of it now */
		httpserver_send_chunk(s->req, data, len);
	}
}

/*
 * The common token event, put together without printf: choice 0, no
 * padding; the same bytes stream_send_token's formats make. Returns 0, or
 * -1 when it is longer than the line kept for it (a long model name): the
 * caller formats it then.
 */
static int stream_send_plain_token(struct mock_stream *s, const char *field, const char *word,
				   const char *finish)
{
	int chat = s->api == MOCK_API_CHAT;
	const char *parts[] = {
		"data: ", s->head, chat ? "\"choices\":[{\"index\":0,\"delta\":{\"" :
		"\"choices\":[{\"index\":0,\"text\":\"", chat ? field : "", chat ? "\":\"" : "",
		word, chat ? "\"},\"finish_reason\":" : "\",\"finish_reason\":", finish, "}]}\n\n",
	};
	char line[1024];
	size_t n = 0, i;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		size_t len = strlen(parts[i]);

		if (len > sizeof(line) - n)
			return -1;
		memcpy(line + n, parts[i], len);
		n += len;
	}
	stream_send(s, line, n);
	return 0;
}

/*
 * Send token k as its own event; the last one carries finish_reason. Token
 * --big-event-after has its text padded with spaces until the event's data
 * is --big-event-bytes long.
 */
static void stream_send_token(struct mock_stream *s, long k, long count, long index)
{
	static const char text[] = "\"choices\":[{\"index\":%ld,"
		"\"text\":\"%s%*s\",\"finish_reason\":%s}]}";
	static const char delta[] = "\"choices\":[{\"index\":%ld,"
		"\"delta\":{\"%s\":\"%s%*s\"},\"finish_reason\":%s}]}";
	static const char text0[] = "\"choices\":[{\"index\":0,"
		"\"text\":\"%s%*s\",\"finish_reason\":%s}]}";
	static const char delta0[] = "\"choices\":[{\"index\":0,"
		"\"delta\":{\"%s\":\"%s%*s\"},\"finish_reason\":%s}]}";
	const struct mock_options *o = &s->srv->opt;
	const char *finish = k + count < s->n ? "null" : s->stop ? "\"stop\"" : "\"length\"";
	const char *field = k < s->reasoning ? "reasoning_content" : "content";
	const char *word = mock_spaced[(unsigned long)k % 16];
	char words[64 * 8];
	long pad = 0, j;

	if (count > 1) {        /* several tokens in one event */
		size_t len = 0;

		for (j = k; j < k + count && len + 8 < sizeof(words); j++)
			len += (size_t)snprintf(words + len, sizeof(words) - len, "%s",
						mock_spaced[(unsigned long)j % 16]);
		word = words;
	}
	if (k == o->big_event_after && index == 0) {
		int len = s->api == MOCK_API_COMPLETIONS ?
			  snprintf(NULL, 0, text, index, word, 0, "", finish) :
			  snprintf(NULL, 0, delta, index, field, word, 0, "", finish);

		pad = o->big_event_bytes - (long)strlen(s->head) - len;
		if (pad < 0)
			pad = 0;
	}
	if (index == 0 && pad == 0 && stream_send_plain_token(s, field, word, finish) == 0)
		return;
	if (index == 0 && s->api == MOCK_API_COMPLETIONS)  /* no index to format */
		stream_event(s, EVENT_HEAD, text0, word, (int)pad, "", finish);
	else if (index == 0)
		stream_event(s, EVENT_HEAD, delta0, field, word, (int)pad, "", finish);
	else if (s->api == MOCK_API_COMPLETIONS)
		stream_event(s, EVENT_HEAD, text, index, word, (int)pad, "", finish);
	else
		stream_event(s, EVENT_HEAD, delta, index, field, word, (int)pad, "",
			     finish);
}

/* The chat role chunk of each choice: a delta without a token. */
static void stream_send_roles(struct mock_stream *s)
{
	long c;

	s->role_sent = 1;
	for (c = 0; c < s->choices; c++)
		stream_event(s, EVENT_HEAD, "\"choices\":[{\"index\":%ld,"
			     "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
			     "\"finish_reason\":null}]}", c);
}

/*
 * --tool-calls: the n tokens of the answer are spread over its calls, call
 * j (of c = min(calls, n)) taking tokens [j*n/c, (j+1)*n/c). Sets *first
 * and *end to token k's call's range and returns the call.
 */
static long tool_call_of(const struct mock_stream *s, long k, long *first, long *end)
{
	long c = s->tool_calls < s->n ? s->tool_calls : s->n, j = 0;

	while (j + 1 < c && (j + 1) * s->n / c <= k)
		j++;
	*first = j * s->n / c;
	*end = (j + 1) * s->n / c;
	return j;
}

/* The id of call j of choice c: "call-mock-<request>-<c * calls + j>". */
static char *tool_call_id(const struct mock_stream *s, long c, long j)
{
	return str_printf("call-mock-%llu-%ld", s->id, c * s->tool_calls + j);
}

/*
 * Token k of choice c as a tool call's fragment, as llama.cpp streams them:
 * a call's first token brings its index, id, type and name with empty
 * arguments ("{}" when the call has one token), the others the arguments
 * {"q":"<words>"} in pieces; finish_reason comes in a chunk of its own.
 */
static void stream_send_tool_token(struct mock_stream *s, long k, long c)
{
	long first, end, j = tool_call_of(s, k, &first, &end), p = k - first;

	if (p == 0) {
		char *id = tool_call_id(s, c, j);

		stream_event(s, EVENT_HEAD, "\"choices\":[{\"index\":%ld,\"delta\":{\"tool_calls\":["
			     "{\"index\":%ld,\"id\":\"%s\",\"type\":\"function\",\"function\":"
			     "{\"name\":%s,\"arguments\":\"%s\"}}]},\"finish_reason\":null}]}",
			     c, j, id ? id : "", s->tool_names[j], end - first == 1 ? "{}" : "");
		free(id);
		return;
	}
	stream_event(s, EVENT_HEAD, "\"choices\":[{\"index\":%ld,\"delta\":{\"tool_calls\":["
		     "{\"index\":%ld,\"function\":{\"arguments\":\"%s%s%s\"}}]},"
		     "\"finish_reason\":null}]}", c, j, p == 1 ? "{\\\"q\\\":\\\"" : "",
		     mock_spaced[(unsigned long)k % 16], p == end - first - 1 ? "\\\"}" : "");
}

/* Tokens from..to-1, each with its leading space (malloc, caller frees). */
char *words_join(long from, long to)
{
	size_t len = 1;
	char *out, *p;
	long k;

	for (k = from; k < to; k++)
		len += 1 + strlen(token_word(k));
	if (!(out = malloc(len)))
		return NULL;
	for (p = out, k = from; k < to; k++) {
		size_t wl = strlen(token_word(k));

		*p++ = ' ';
		memcpy(p, token_word(k), wl);
		p += wl;
	}
	*p = '\0';
	return out;
}

/* The calls of choice c, whole, into arr (a non-streamed answer's
 * message.tool_calls). Returns arr, or NULL when out of memory. */
static cJSON *add_tool_calls(const struct mock_stream *s, long c, cJSON *arr)
{
	long k, first, end;

	if (!arr)
		return NULL;
	for (k = 0; k < s->n; k = end) {
		long j = tool_call_of(s, k, &first, &end);
		char *id = tool_call_id(s, c, j), *words = words_join(first + 1, end);
		char *args = end - first == 1 ? str_printf("{}") :
			     str_printf("{\"q\":\"%s\"}", words ? words : "");
		cJSON *call = cJSON_CreateObject(), *fn, *name = cJSON_Parse(s->tool_names[j]);
		int ok = id && words && args && call && name && cJSON_AddItemToArray(arr, call);

		if (!ok)
			cJSON_Delete(call);
		if (ok) {
			cJSON_AddStringToObject(call, "id", id);
			cJSON_AddStringToObject(call, "type", "function");
			fn = cJSON_AddObjectToObject(call, "function");
			ok = fn && cJSON_AddItemToObject(fn, "name", name);
			if (ok)
				name = NULL;
			cJSON_AddStringToObject(fn, "arguments", args);
		}
		cJSON_Delete(name);
		free(id);
		free(words);
		free(args);
		if (!ok)
			return NULL;
	}
	return arr;
}

/* The whole non-streaming response, sent when the last token is due. */
static void stream_reply_whole(struct mock_stream *s)
{
	int chat = s->api == MOCK_API_CHAT;

	if (MOCK_API_TYPED(s->api)) {
		typed_reply_whole(s);
		return;
	}
	char *content = words_join(s->reasoning, s->n);
	char *reasoning = words_join(0, s->reasoning);
	char *id = str_printf(chat ? "chatcmpl-mock-%llu" : "cmpl-mock-%llu",
			      s->id);
	cJSON *root = cJSON_CreateObject();
	cJSON *choices, *choice, *counts, *msg;
	long c;
	int oom = 0;

	cJSON_AddStringToObject(root, "id", id ? id : "");
	cJSON_AddStringToObject(root, "object",
				chat ? "chat.completion" : "text_completion");
	cJSON_AddNumberToObject(root, "created", (double)s->created);
	cJSON_AddStringToObject(root, "model", s->model);
	choices = cJSON_AddArrayToObject(root, "choices");
	for (c = 0; c < s->choices; c++) {
		choice = cJSON_CreateObject();
		cJSON_AddItemToArray(choices, choice);
		cJSON_AddNumberToObject(choice, "index", (double)c);
		if (chat && s->tool_calls) {
			msg = cJSON_AddObjectToObject(choice, "message");
			cJSON_AddStringToObject(msg, "role", "assistant");
			cJSON_AddNullToObject(msg, "content");
			oom |= !add_tool_calls(s, c, cJSON_AddArrayToObject(msg, "tool_calls"));
		} else if (chat) {
			msg = cJSON_AddObjectToObject(choice, "message");
			cJSON_AddStringToObject(msg, "role", "assistant");
			cJSON_AddStringToObject(msg, "content", content ? content : "");
			if (s->reasoning > 0)
				cJSON_AddStringToObject(msg, "reasoning_content",
							reasoning ? reasoning : "");
		} else {
			cJSON_AddStringToObject(choice, "text", content ? content : "");
		}
		cJSON_AddStringToObject(choice, "finish_reason", s->tool_calls ? "tool_calls" :
					s->stop ? "stop" : "length");
		if (chat)
			timings_add_choice(s, choice);
	}
	counts = cJSON_AddObjectToObject(root, "usage");
	cJSON_AddNumberToObject(counts, "prompt_tokens",
				(double)s->prompt_tokens);
	cJSON_AddNumberToObject(counts, "completion_tokens", (double)(s->n * s->choices));
	cJSON_AddNumberToObject(counts, "total_tokens",
				(double)(s->prompt_tokens + s->n * s->choices));
	if (s->srv->opt.cache_blocks)
		cJSON_AddNumberToObject(cJSON_AddObjectToObject(counts, "prompt_tokens_details"),
					"cached_tokens", (double)s->cached);
	if (s->reasoning > 0)
		cJSON_AddNumberToObject(cJSON_AddObjectToObject(counts,
					"completion_tokens_details"),
					"reasoning_tokens",
					(double)s->reasoning);
	timings_add(s, root);
	if (!id || !content || !reasoning || oom) {    /* out of memory: say so */
		cJSON_Delete(root);
		root = NULL;
	}
	reply_cjson(s->req, HTTP_OK, "OK", root);
	free(id);
	free(content);
	free(reasoning);
}

/*
 * End a stream's reply and free s, once its tail is out: with --trickle-us
 * still queued, trickle_tick() calls this again when the queue empties.
 */
static void stream_end(struct mock_stream *s)
{
	if (s->z && !s->ending) {       /* --gzip: the stream's trailer */
		struct evbuffer *b = s->srv->scratch;

		gzip_buffer(s->z, b, s->srv->zscratch, 1);
		gzip_free(s->z);
		s->z = NULL;
		stream_queue(s, b);
	}
	if (s->trickle && evbuffer_get_length(s->trickle)) {
		s->ending = 1;
		return;
	}
	/* Ending the reply may close the connection, whose close callback
	 * must not find s: detach first. */
	mock_conn_forget(s->srv, s->req);
	if (s->direct) {        /* the last events and the end in one write */
		struct mock_server *srv = s->srv;
		size_t len = srv->batch_of == s ? srv->batch_len : 0;

		httpserver_end_chunks(s->req, srv->batch, len);
		if (srv->batch_of == s)
			srv->batch_len = 0;
	} else {
		stream_push(s);
		evhttp_send_reply_end(s->req);
	}
	stream_free(s);
}

/* After the last token: usage, [DONE] and the end of the reply; frees s
 * (with --trickle-us, once the tail has trickled out). */
static void stream_finish(struct mock_stream *s)
{
	const struct mock_options *o = &s->srv->opt;
	/* --no-final-newline: the stream's last event stops short */
	int last_flags = o->no_final_newline ? EVENT_UNENDED : 0;
	char timings[384];
	long c;

	if (s->stop)
		s->srv->count.success_stop++;
	else
		s->srv->count.success_length++;
	mock_observe(s->srv, s, clock_now_ns());
	if (s->ticks)
		truth_write(s);
	if (!s->stream) {
		mock_conn_forget(s->srv, s->req);  /* as in stream_end() */
		stream_reply_whole(s);
		stream_free(s);
		return;
	}
	if (MOCK_API_TYPED(s->api)) {
		typed_stream_finish(s, o->no_done);
		stream_end(s);
		return;
	}
	for (c = 0; c < s->choices && s->tool_calls; c++)
		stream_event(s, EVENT_HEAD, "\"choices\":[{\"index\":%ld,\"delta\":{},"
			     "\"finish_reason\":\"tool_calls\"}]}", c);
	timings_member(s, timings, sizeof(timings));
	if (s->include_usage) {
		char details[80] = "", cached[64] = "";

		if (s->reasoning > 0)
			snprintf(details, sizeof(details),
				 ",\"completion_tokens_details\":"
				 "{\"reasoning_tokens\":%ld}", s->reasoning);
		if (o->cache_blocks)
			snprintf(cached, sizeof(cached), ",\"prompt_tokens_details\":"
				 "{\"cached_tokens\":%ld}", s->cached);
		stream_event(s, EVENT_HEAD | (o->no_done ? last_flags : 0),
			     "\"choices\":[],\"usage\":{"
			     "\"prompt_tokens\":%ld,"
			     "\"completion_tokens\":%ld,"
			     "\"total_tokens\":%ld%s%s}%s}",
			     s->prompt_tokens, s->n * s->choices,
			     s->prompt_tokens + s->n * s->choices, cached, details, timings);
	} else if (o->timings == MOCK_TIMINGS_LLAMA) {   /* vLLM's come with usage only */
		stream_event(s, EVENT_HEAD | (o->no_done ? last_flags : 0),
			     "\"choices\":[]%s}", timings);
	}
	if (!o->no_done)
		stream_event(s, last_flags, "[DONE]");
	stream_end(s);
}

/*
 * Faults that strike once k tokens are out. Returns 1 when the stream is
 * over (reset: s is freed) or silent for good (stall: the client's timeout
 * or disconnect ends it, in on_conn_close()).
 */
static int stream_fault(struct mock_stream *s)
{
	const struct mock_options *o = &s->srv->opt;

	if (s->k == o->malformed_after)
		stream_event(s, 0, "{\"choices\": [not json");
	if (s->k == o->stall_after)
		return 1;
	if (s->k == o->reset_after) {
		struct evhttp_connection *conn = evhttp_request_get_connection(s->req);
		struct linger hard = { 1, 0 };   /* close() then sends RST, not FIN */

		mock_conn_forget(s->srv, s->req);
		setsockopt(bufferevent_getfd(evhttp_connection_get_bufferevent(conn)),
			   SOL_SOCKET, SO_LINGER, &hard, sizeof(hard));
		evhttp_connection_free(conn);    /* frees s->req with it */
		stream_free(s);
		return 1;
	}
	return 0;
}

/* Timer callback: token k is due. Emit it and schedule token k + 1. */
static void stream_tick(evutil_socket_t fd, short what, void *arg)
{
	struct mock_stream *s = arg;
	struct mock_server *srv = s->srv;

	(void)fd;
	(void)what;
	if (clock_now_ns() < s->due_ns) {       /* early: never send ahead */
		stream_arm(s);
		return;
	}
	if (s->stream && stream_fault(s))
		return;
	if (s->k == 0)
		s->first_ns = clock_now_ns();
	if (s->ticks)
		truth_tick(s, s->k ? clock_now_ns() : s->first_ns);
	if (s->stream) {
		long per = srv->opt.tokens_per_event, c;

		if (per > s->n - s->k || s->tool_calls)
			per = s->tool_calls ? 1 : s->n - s->k;
		if (s->api == MOCK_API_CHAT && !s->role_sent)
			stream_send_roles(s);   /* with the first token, as vLLM */
		if (MOCK_API_TYPED(s->api))     /* one choice, no tool calls */
			typed_stream_token(s, s->k, per);
		for (c = 0; c < s->choices && !MOCK_API_TYPED(s->api); c++)
			if (s->tool_calls)
				stream_send_tool_token(s, s->k, c);
			else
				stream_send_token(s, s->k, per, c);
		s->k += per - 1;
		srv->count.generation_tokens += (unsigned long long)(per * s->choices);
	} else {
		srv->count.generation_tokens += (unsigned long long)s->choices;
	}
	if (++s->k >= s->n) {
		s->last_ns = clock_now_ns();
		stream_finish(s);       /* the tail goes out the ordinary way */
		return;
	}
	if (s->stream)
		stream_flush(s);
	if (srv->opt.noisy)
		s->due_ns = stall_release(srv, s->due_ns + noisy_ns(s, (double)srv->opt.itl_ns *
								    s->time_factor * load_factor(srv),
								    s->due_ns, 0));
	else
		s->due_ns += llround((double)srv->opt.itl_ns * s->time_factor * load_factor(srv));
	stream_arm(s);
}

/*
 * The connection of an unfinished request closed: the client went away, or
 * a write failed. Cancel and free the stream. libevent has then detached the
 * unfinished request from the connection and left it to us to free (were it
 * still attached, the connection would free it).
 */
static void on_conn_close(struct evhttp_connection *conn, void *arg)
{
	struct mock_stream *s = arg;

	(void)conn;
	httpserver_free_detached(s->req);
	stream_free(s);
}

/* '{"id":"chatcmpl-mock-N","object":"...","created":0,"model":"M",', the
 * common prefix of s's SSE events (malloc, caller frees). */
static char *make_head(const struct mock_stream *s)
{
	int chat = s->api == MOCK_API_CHAT;
	cJSON *model = cJSON_CreateString(s->model);
	char *quoted = model ? cJSON_PrintUnformatted(model) : NULL;
	char *head = NULL;

	if (quoted)
		head = str_printf("{\"id\":\"%s-mock-%llu\",\"object\":\"%s\","
				  "\"created\":%lld,\"model\":%s,",
				  chat ? "chatcmpl" : "cmpl", s->id, chat ?
				  "chat.completion.chunk" : "text_completion",
				  s->created, quoted);
	cJSON_free(quoted);
	cJSON_Delete(model);
	return head;
}

/* --fail-every: answers every Nth request with the fault; 1 when it did. */
static int inject_fault(struct mock_server *srv, struct evhttp_request *req)
{
	const struct mock_options *o = &srv->opt;
	const char *auth;

	if (!o->fail_every || srv->requests % (unsigned long long)o->fail_every != 0)
		return 0;
	auth = evhttp_find_header(evhttp_request_get_input_headers(req), "Authorization");
	/* as OpenAI's 401 does, the body echoes the credential it got, and as
	 * an echoing server (httpbin) does, the request's URI and headers:
	 * what a client records of them must not */
	if (o->fail_status == 401) {
		struct evkeyvalq *in = evhttp_request_get_input_headers(req);
		const struct evkeyval *h;
		char heads[1024];
		size_t used = 0;

		heads[0] = '\0';
		for (h = in->tqh_first; h && used < sizeof(heads); h = h->next.tqe_next)
			used += (size_t)snprintf(heads + used, sizeof(heads) - used, "%s%s: %s",
						 used ? "; " : "", h->key, h->value);
		reply_error(req, 401, "Unauthorized", "Incorrect API key provided: %.200s "
			    "(Authorization: %.200s) for %.300s with %s",
			    auth && strlen(auth) > 7 ? auth + 7 : "", auth ? auth : "",
			    evhttp_request_get_uri(req), heads);
	} else {
		reply_error(req, (int)o->fail_status, "Injected Fault", "injected by --fail-every");
	}
	return 1;
}

/* --eos-prob: each token may be the last, a draw per token seeded by
 * --seed and the request's number, so a run repeats exactly. */
static void draw_eos(struct mock_stream *s, double eos_prob)
{
	struct rng g;
	long k;

	rng_init(&g, rng_derive(s->srv->opt.seed, s->id));
	for (k = 0; k < s->n - 1; k++) {
		if (rng_uniform(&g) < eos_prob) {
			s->n = k + 1;
			s->stop = 1;
			break;
		}
	}
	if (s->reasoning > s->n)
		s->reasoning = s->n;
}

/* --tool-calls: call j of s is of tool j (mod the tools r offers), its
 * name kept JSON-quoted for the events. Returns 0, or -1 when out of
 * memory (the names so far are s's to free). */
static int stream_tool_names(struct mock_stream *s, const struct mock_request *r)
{
	int nt = cJSON_GetArraySize(r->tools);

	s->reasoning = 0;
	for (s->tool_calls = 0; s->tool_calls < r->tool_calls; s->tool_calls++) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
			cJSON_GetArrayItem(r->tools, (int)(s->tool_calls % nt)), "function"), "name");
		char *quoted = cJSON_PrintUnformatted(name);

		s->tool_names[s->tool_calls] = quoted ? strdup(quoted) : NULL;
		cJSON_free(quoted);
		if (!s->tool_names[s->tool_calls])
			return -1;
	}
	return 0;
}

/* A stream for request r, not yet linked or started; NULL when out of memory. */
static struct mock_stream *stream_new(struct mock_server *srv, struct evhttp_request *req,
				      const struct mock_request *r)
{
	const struct mock_options *o = &srv->opt;
	struct mock_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->srv = srv;
	s->req = req;
	s->api = r->api;
	s->stream = r->stream;
	s->include_usage = r->include_usage;
	s->meta_info = r->meta_info;
	s->n = r->n;
	if (r->api != MOCK_API_COMPLETIONS)    /* thinking, reasoning text */
		s->reasoning = o->reasoning_tokens < r->n ? o->reasoning_tokens : r->n;
	s->prompt_tokens = r->prompt_tokens;
	s->choices = r->choices > 0 ? r->choices : 1;
	s->cached = r->cached;
	s->created = (long long)time(NULL);
	s->id = srv->next_id + 1;
	if (o->eos_prob > 0 && !r->ignore_eos)
		draw_eos(s, o->eos_prob);
	if (r->tool_calls && stream_tool_names(s, r) < 0) {
		stream_free_unlinked(s);
		return NULL;
	}
	s->model = strdup(r->model);
	s->time_factor = r->time_factor;
	memcpy(s->first_word, r->first_word, sizeof(s->first_word));
	if (srv->truth && s->stream)
		s->ticks = calloc((size_t)(s->n < MOCK_TRUTH_TICKS ? s->n : MOCK_TRUTH_TICKS) + 1,
				  sizeof(*s->ticks));
	srv->model_requests[r->model_slot]++;
	s->timer = evtimer_new(srv->base, stream_tick, s);
	if (s->stream && s->model)
		s->head = make_head(s);
	if (s->stream && o->trickle_ns) {
		s->trickle = evbuffer_new();
		s->trickle_timer = evtimer_new(srv->base, trickle_tick, s);
	}
	if (!s->model || !s->timer || (s->stream && !s->head) || (srv->truth && s->stream && !s->ticks) ||
	    (s->stream && o->trickle_ns && (!s->trickle || !s->trickle_timer))) {
		stream_free_unlinked(s);
		return NULL;
	}
	return s;
}

/*
 * --noise: s's factors, and a header that shows them, so that a client can
 * tell what the mock meant without timing it: "X-Mock-Noise: jitter=J
 * tail=T instance=I drift=D" (D the host's drift at arrival).
 */
static void noise_draw(struct mock_stream *s, int64_t arrival_ns)
{
	const struct mock_server *srv = s->srv;
	double jitter = noise_jitter(&srv->opt.noise, srv->opt.seed, s->id);
	double tail = noise_tail(&srv->opt.noise, srv->opt.seed, s->id);
	double drift = noise_drift(&srv->opt.noise, (double)arrival_ns / NS_PER_S +
				   srv->wall_offset_s);
	char v[128];

	s->slow = srv->instance * jitter;
	s->tail = tail;
	snprintf(v, sizeof(v), "jitter=%.6f tail=%.6f instance=%.6f drift=%.6f", jitter, tail,
		 srv->instance, drift);
	evhttp_add_header(evhttp_request_get_output_headers(s->req), "X-Mock-Noise", v);
}

/* Sends a streamed reply's status and headers (and the early role). */
static void stream_open(struct mock_stream *s)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(s->req);

	evhttp_add_header(h, "Content-Type", "text/event-stream");
	evhttp_add_header(h, "Cache-Control", "no-cache");
	if (wants_gzip(s->req) && (s->z = gzip_new()))
		evhttp_add_header(h, "Content-Encoding", "gzip");
	evhttp_send_reply_start(s->req, HTTP_OK, "OK");
	s->direct = !s->z && !s->trickle && httpserver_chunked(s->req);
	if (s->api == MOCK_API_CHAT && s->srv->opt.early_role)   /* role only: not a token */
		stream_send_roles(s);
	stream_flush(s);
}

/*
 * s gets a slot at 'at_ns' and starts its prefill: the uncached prompt
 * tokens cost --prefill-us-per-token each.
 */
static void stream_admit(struct mock_stream *s, int64_t at_ns)
{
	struct mock_server *srv = s->srv;
	const struct mock_options *o = &srv->opt;
	double fresh = (double)(s->prompt_tokens - s->cached);

	srv->active++;
	s->admit_ns = at_ns;
	if (o->noisy)
		s->due_ns = at_ns + noisy_ns(s, (double)o->ttft_ns * s->time_factor *
					     load_factor(srv) + fresh * (double)o->prefill_ns, at_ns, 1);
	else
		s->due_ns = at_ns + llround((double)o->ttft_ns * s->time_factor * load_factor(srv)) +
			    (int64_t)fresh * o->prefill_ns;
	if (srv->cold_pending) {
		s->due_ns += o->cold_start_ns;
		srv->cold_pending = 0;
	}
	if (o->noisy)
		s->due_ns = stall_release(srv, s->due_ns);
	stream_arm(s);
}

/* --slots: a slot freed at now_ns goes to the request waiting longest. */
static void stream_admit_waiting(struct mock_server *srv, int64_t now_ns)
{
	while (srv->wait_head && srv->active < srv->opt.slots) {
		struct mock_stream *s = srv->wait_head;

		srv->wait_head = s->wait_next;
		if (!srv->wait_head)
			srv->wait_tail = NULL;
		s->wait_next = NULL;
		s->queued = 0;
		srv->queued--;
		stream_admit(s, now_ns);
	}
}

/*
 * Start serving a parsed generation request that arrived at 'arrival_ns'.
 * The stream joins srv->streams and lives until stream_finish() or
 * on_conn_close() frees it. Per-request fault decisions go here.
 */
void stream_start(struct mock_server *srv, struct evhttp_request *req,
			 const struct mock_request *r, int64_t arrival_ns)
{
	struct evhttp_connection *conn = evhttp_request_get_connection(req);
	const struct mock_options *o = &srv->opt;
	struct mock_stream *s;
	int64_t arrived_ns;

	if (srv->requests++ == 0)
		srv->first_arrival_ns = arrival_ns;
	if (inject_fault(srv, req))
		return;
	arrived_ns = arrival_ns;
	if (o->stall_ns) {      /* a stalled server starts nothing until it recovers */
		int64_t from = srv->first_arrival_ns + o->stall_at_ns;

		if (arrival_ns >= from && arrival_ns < from + o->stall_ns)
			arrival_ns = from + o->stall_ns;
	}
	s = stream_new(srv, req, r);
	if (!s) {
		reply_error(req, HTTP_INTERNAL, "Internal Server Error", "out of memory");
		return;
	}
	if (o->noisy)
		noise_draw(s, arrival_ns);
	srv->next_id++;
	s->next = srv->streams;
	if (s->next)
		s->next->prev = s;
	srv->streams = s;
	s->arrival_ns = arrived_ns;
	srv->count.prompt_tokens += (unsigned long long)r->prompt_tokens;
	srv->count.chained += (unsigned long long)r->chained;
	mock_conn_busy(srv, conn);
	if (s->stream)
		stream_open(s);
	mock_conn_watch(srv, conn, on_conn_close, s);
	if (o->slots && srv->active >= o->slots) {      /* every slot busy: wait */
		s->queued = 1;
		if (srv->wait_tail)
			srv->wait_tail->wait_next = s;
		else
			srv->wait_head = s;
		srv->wait_tail = s;
		srv->queued++;
		return;
	}
	stream_admit(s, arrival_ns);
}
