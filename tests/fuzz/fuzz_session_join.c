/*
 * fuzz_session_join.c - libFuzzer target for record proxy's sessions
 * (record/session_join.c): which session and turn each request passing
 * through is, by a header the client sends (--session-header) or by its
 * conversation (--sessions prefix). Clients are not ours: the header's
 * value and the body are whatever they send.
 *
 * Byte 0 picks the way (bit 0: by header, else by prefix). Each line
 * after it is one request, in arrival order. Its first byte says what
 * happens before it arrives: how many turns in flight end (bits 0-1; the
 * oldest or, with bit 2, the newest), how far the clock moves on after
 * that (bits 3-5, from none to past a day) and, with bit 6, that it is no
 * request a session takes (not for inference by header, a completion by
 * prefix). The rest of the line is the header's value (by header: empty,
 * no header) or the body (by prefix).
 *
 * A record is checked when it is final, as the proxy writes it: by
 * header when its request ends, by prefix on arrival. It must be one
 * replay reads back the same (trace.c), with session and turn both set or
 * both unset and a think time from 0 to a day, 0 for a turn 0; a turn's
 * session must be its header value's (by header) or its conversation a
 * continuation of the turn before, message by message (by prefix); and
 * the records, in the order the proxy writes them (by header: as their
 * requests end), must be sessions replay accepts whole
 * (replay/session.c). A broken rule aborts.
 */
#include "record/session_join.h"
#include "replay/session.h"
#include "lib/trace.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <event2/http.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_REQUESTS 64
#define HEADER       "X-Session-Id"
#define NS_PER_S     1000000000LL

/* One request: its record, and what its session rule compares. */
struct seen {
	struct trace_request t;
	long session, turn;    /* once final: by prefix at arrival, by header at its end */
	int final;
	int eligible;          /* a request a session may take */
	int in_flight;
	struct session_turn turn_state;
	char *key;             /* by header: the value's first bytes told apart */
	char **msgs;           /* by prefix: each message printed compactly */
	size_t n_msgs;
	size_t last_assistant; /* its index + 1; 0: none */
};

static void fail(const char *what, long i)
{
	fprintf(stderr, "fuzz_session_join: request %ld: %s\n", i, what);
	abort();
}

static void seen_release(struct seen *s)
{
	size_t i;

	trace_request_release(&s->t);
	free(s->key);
	for (i = 0; i < s->n_msgs; i++)
		cJSON_free(s->msgs[i]);
	free(s->msgs);
}

/* Reads body's messages into s as the prefix rule compares them; leaves
 * s without messages when the body is no chat request (or out of memory). */
static void read_messages(struct seen *s, const char *body, size_t len)
{
	cJSON *root = cJSON_ParseWithLength(body, len), *m;
	const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(root, "messages");
	int n = cJSON_GetArraySize(msgs);

	if (!cJSON_IsArray(msgs) || n <= 0 || !(s->msgs = calloc((size_t)n, sizeof(char *)))) {
		cJSON_Delete(root);
		return;
	}
	cJSON_ArrayForEach(m, msgs) {
		const char *role = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "role"));

		if (!(s->msgs[s->n_msgs] = cJSON_PrintUnformatted(m)))
			break;
		s->n_msgs++;
		if (role && strcmp(role, "assistant") == 0)
			s->last_assistant = s->n_msgs;
	}
	cJSON_Delete(root);
}

/* The record as the proxy writes it and as replay reads it back. */
static void check_reads_back(const struct trace_request *t, long i)
{
	struct trace_request back;
	char err[256], *text;
	cJSON *j = trace_request_to_json(t), *parsed;

	if (!j)
		return;         /* out of memory: no verdict */
	text = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	parsed = text ? cJSON_Parse(text) : NULL;
	cJSON_free(text);
	if (!parsed)
		return;
	trace_request_init(&back);
	if (trace_request_from_json(&back, parsed, err, sizeof(err)) != 0)
		fail("replay refuses the record", i);
	if (back.session != t->session || back.turn != t->turn || back.think_ns != t->think_ns)
		fail("the record's session does not read back the same", i);
	trace_request_release(&back);
	cJSON_Delete(parsed);
}

/* The rules a record keeps whichever way it was joined. */
static void check_turn(const struct seen *all, long n, long i)
{
	const struct seen *s = &all[i];
	const struct trace_request *t = &s->t;
	long k;

	if ((t->session < 0) != (t->turn < 0))
		fail("a session without a turn, or a turn without one", i);
	if (t->session < 0) {
		if (t->think_ns)
			fail("a think time outside sessions", i);
		return;
	}
	if (!s->eligible)
		fail("a request no session takes in one", i);
	if (t->session > INT32_MAX || t->think_ns < 0 || t->think_ns > TRACE_MAX_THINK_NS ||
	    (t->turn == 0 && t->think_ns))
		fail("a session id or think time out of range", i);
	if (t->turn == 0)
		return;
	/* turn k > 0: its session's turn k - 1 is final already */
	for (k = 0; k < n; k++)
		if (k != i && all[k].final && all[k].session == t->session &&
		    all[k].turn == t->turn - 1)
			break;
	if (k == n)
		fail("a turn whose turn before is nowhere", i);
	if (s->key && (!all[k].key || strcmp(s->key, all[k].key) != 0))
		fail("a turn of another header value's session", i);
	if (s->msgs) {
		size_t m;

		if (s->last_assistant != all[k].n_msgs + 1)
			fail("a turn that does not end the turn before with an answer", i);
		for (m = 0; m < all[k].n_msgs; m++)
			if (strcmp(s->msgs[m], all[k].msgs[m]) != 0)
				fail("a turn whose history is not the turn before's", i);
	}
}

/* The keys of the records in the order replay reads them. */
struct written {
	struct session_key keys[MAX_REQUESTS];
	size_t n;
};

static void add_key(struct written *w, const struct seen *s, long i)
{
	w->keys[w->n].session = s->t.session;
	w->keys[w->n].turn = s->t.turn;
	w->keys[w->n].think_ns = s->t.think_ns;
	w->keys[w->n].lineno = (size_t)i + 1;
	w->n++;
}

/* Request i's turn is final: checks its record. */
static void finalize(struct seen *all, long n, long i)
{
	all[i].session = all[i].t.session;
	all[i].turn = all[i].t.turn;
	check_turn(all, n, i);
	all[i].final = 1;
	check_reads_back(&all[i].t, i);
}

/*
 * Ends request i at now, as the proxy does when its response ends: by
 * header its turn is numbered then, and the record is written. By prefix
 * the turn was final on arrival, and the record's place in the file is
 * taken as its arrival: a turn continues one that has ended (its answer
 * is in it), but for a client making an answer up before it came.
 */
static void end_request(struct seen *all, long n, long i, int by_header, int64_t now,
			struct written *w)
{
	session_join_end(&all[i].turn_state, &all[i].t, now);
	all[i].in_flight = 0;
	if (by_header) {
		finalize(all, n, i);
		add_key(w, &all[i], i);
	}
}

/* Ends the in-flight request at which end (oldest or newest). */
static void end_one(struct seen *all, long n, int newest, int by_header, int64_t now,
		    struct written *w)
{
	long i;

	for (i = newest ? n - 1 : 0; i >= 0 && i < n; i += newest ? -1 : 1) {
		if (all[i].in_flight) {
			end_request(all, n, i, by_header, now, w);
			return;
		}
	}
}

static void session_refused(void *ctx, size_t lineno, const char *why)
{
	(void)ctx;
	fprintf(stderr, "fuzz_session_join: replay refuses request %zu: %s\n", lineno, why);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int64_t steps[8] = {
		0, 1000000, NS_PER_S, 60 * NS_PER_S, 3600 * NS_PER_S,
		TRACE_MAX_THINK_NS - NS_PER_S, TRACE_MAX_THINK_NS + 1, 31 * 86400LL * NS_PER_S,
	};
	static struct seen all[MAX_REQUESTS];
	static struct written w;
	struct session_set set;
	struct session_join j;
	const char *p, *end = (const char *)data + size;
	int by_header;
	int64_t now = NS_PER_S;
	long n = 0, i;

	if (size < 1)
		return 0;
	by_header = data[0] & 1;
	if (session_join_init(&j, by_header ? HEADER : NULL, !by_header) < 0)
		return 0;
	memset(all, 0, sizeof(all));
	w.n = 0;
	for (p = (const char *)data + 1; p < end && n < MAX_REQUESTS; n++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p), rest = len ? len - 1 : 0;
		unsigned ctl = len ? (unsigned char)p[0] : 0;
		int other = (ctl & 0x40) != 0;
		struct evhttp_request *req = evhttp_request_new(NULL, NULL);
		struct seen *s = &all[n];
		struct trace_request *t = &s->t;
		unsigned e;

		if (!req)
			break;
		for (e = 0; e < (ctl & 3); e++)
			end_one(all, n, (ctl & 4) != 0, by_header, now, &w);
		now += steps[(ctl >> 3) & 7];
		trace_request_init(t);
		t->method = strdup("POST");
		t->id = n;
		if (by_header) {
			char *v = strndup(p + (len ? 1 : 0), rest);

			t->kind = other ? TRACE_KIND_OTHER : TRACE_KIND_CHAT;
			t->path = strdup(other ? "/v1/responses" : "/v1/chat/completions");
			t->body = strdup("{}");
			t->body_len = 2;
			/* evhttp keeps no value with CR or LF; one with a NUL
			 * reaches the proxy cut there, as here */
			s->eligible = !other && v && *v &&
				      evhttp_add_header(evhttp_request_get_input_headers(req), HEADER,
							v) == 0;
			if (s->eligible)
				s->key = strndup(v, SESSION_JOIN_KEY_MAX);
			free(v);
		} else {
			t->kind = other ? TRACE_KIND_COMPLETIONS : TRACE_KIND_CHAT;
			t->path = strdup(other ? "/v1/completions" : "/v1/chat/completions");
			t->body = malloc(rest + 1);
			if (t->body) {
				memcpy(t->body, p + (len ? 1 : 0), rest);
				t->body[rest] = '\0';
				t->body_len = rest;
			}
			if (!other && t->body)
				read_messages(s, t->body, t->body_len);
			s->eligible = s->msgs != NULL;
		}
		if (!t->method || !t->path || !t->body ||
		    session_join(&j, evhttp_request_get_input_headers(req), t, now,
				 &s->turn_state) < 0) {
			evhttp_request_free(req);
			seen_release(s);
			memset(s, 0, sizeof(*s));
			break;          /* out of memory: no verdict */
		}
		evhttp_request_free(req);
		s->in_flight = 1;
		if (!by_header) {
			finalize(all, n + 1, n);
			add_key(&w, s, n);
		}
		p += len + 1;
	}
	for (i = 0; i < n; i++)
		if (all[i].in_flight)
			end_request(all, n, i, by_header, now, &w);
	/* as written, every session is one replay takes whole */
	if (session_set_build(&set, w.keys, w.n, session_refused, NULL) == 0) {
		if (set.skipped)
			fail("replay refuses a session", -1);
		session_set_release(&set);
	}
	for (i = 0; i < n; i++)
		seen_release(&all[i]);
	session_join_release(&j);
	return 0;
}
