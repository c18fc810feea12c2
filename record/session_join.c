/*
 * session_join.c - which session a request the proxy sees belongs to;
 * see session_join.h.
 */
#include "session_join.h"
#include "lib/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <event2/http.h>

/* A session named by the header's value. */
struct header_session {
	char *key;                 /* the value (malloc), at most SESSION_JOIN_KEY_MAX bytes */
	long id;                   /* the trace's session id */
	long arrived;              /* its turns that have arrived */
	long ended;                /* of which ended: the next to end is turn 'ended' */
	int64_t last_end_ns;       /* when its last turn ended, 0: none yet */
	int in_flight;             /* its turns in flight */
	struct header_session *next;
};

int session_join_init(struct session_join *j, const char *header, int by_prefix)
{
	memset(j, 0, sizeof(*j));
	j->header = header;
	j->by_prefix = by_prefix;
	return by_prefix ? chain_init(&j->chains) : 0;
}

static void say_full(struct session_join *j, long max)
{
	if (!j->full_said)
		fprintf(stderr, "\ntracebench record proxy: %ld sessions seen; later ones are "
			"recorded as requests of their own\n", max);
	j->full_said = 1;
}

/*
 * By header: tr is a turn of the session the header names, its think time
 * the pause since the session's last turn ended (0 while one is still in
 * flight). Its turn number is given when it ends (session_join_end): a
 * client may send a turn before the one before it has ended, the proxy
 * writes each record when its response ends, and replay takes a session's
 * records as turns 0, 1, 2 ... in file order. A session idle for longer
 * than a think time may be (TRACE_MAX_THINK_NS) starts anew under a new
 * id. Requests not for inference, without the header, or past
 * SESSION_JOIN_MAX sessions are in none. Returns 0, or -1 when out of
 * memory.
 */
static int join_by_header(struct session_join *j, const struct evkeyvalq *headers,
			  struct trace_request *tr, int64_t arrival, struct session_turn *turn)
{
	const char *v = evhttp_find_header(headers, j->header);
	size_t len, i;
	uint64_t h = 0xcbf29ce484222325ULL;
	struct header_session *s;

	if (!v || !*v || !trace_kind_is_inference(tr->kind))
		return 0;
	len = strnlen(v, SESSION_JOIN_KEY_MAX);
	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)v[i]) * 0x100000001b3ULL;     /* FNV-1a */
	for (s = j->buckets[h % SESSION_JOIN_BUCKETS]; s; s = s->next)
		if (strlen(s->key) == len && memcmp(s->key, v, len) == 0)
			break;
	if (!s) {
		if (j->n >= SESSION_JOIN_MAX) {
			say_full(j, SESSION_JOIN_MAX);
			return 0;
		}
		if (!(s = calloc(1, sizeof(*s))) || !(s->key = strndup(v, len))) {
			free(s);
			return -1;
		}
		s->id = j->n++;
		s->next = j->buckets[h % SESSION_JOIN_BUCKETS];
		j->buckets[h % SESSION_JOIN_BUCKETS] = s;
	} else if (!s->in_flight && arrival - s->last_end_ns > TRACE_MAX_THINK_NS) {
		s->id = j->n++;      /* idle past any think time: a new session */
		s->arrived = s->ended = 0;
	}
	tr->session = s->id;
	tr->turn = s->arrived;  /* until it ends */
	/* a think time needs every turn before it ended, so a turn with one is
	 * never the first to end, never turn 0 */
	tr->think_ns = s->arrived && !s->in_flight && arrival > s->last_end_ns ?
		       arrival - s->last_end_ns : 0;
	s->arrived++;
	s->in_flight++;
	turn->session = s;
	return 0;
}

/*
 * By prefix: a chat request whose messages begin with all of an earlier
 * request's messages followed by an answer (its last assistant message;
 * what follows that is a user's or tools' part) is that request's next
 * turn (lib/chain.h). The key of a list of messages hashes each one as
 * printed compactly, so a client resending its history byte for byte, or
 * reformatted, finds it. A body that is no chat request is in no session.
 * Returns 0, or -1 when out of memory.
 */
static int join_by_prefix(struct session_join *j, struct trace_request *tr, int64_t arrival,
			  struct session_turn *turn)
{
	cJSON *root, *msgs, *m;
	uint64_t h = CHAIN_HASH_INIT, prefix = 0;
	struct chain_turn ct;
	int rc = 0;

	if (!tr->kind || strcmp(tr->kind, TRACE_KIND_CHAT) != 0)
		return 0;
	root = cJSON_ParseWithLength(tr->body, tr->body_len);
	msgs = cJSON_GetObjectItemCaseSensitive(root, "messages");
	if (!cJSON_IsArray(msgs) || !cJSON_GetArraySize(msgs))
		goto cleanup;
	cJSON_ArrayForEach(m, msgs) {
		const char *role = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "role"));
		char *text = cJSON_PrintUnformatted(m);

		if (!text) {
			rc = -1;
			goto cleanup;
		}
		if (role && strcmp(role, "assistant") == 0)
			prefix = h;
		h = chain_hash(chain_hash(h, text, strlen(text)), "\n", 1);
		cJSON_free(text);
	}
	switch (chain_join(&j->chains, prefix, h, arrival, &ct)) {
	case 0:
		tr->session = ct.session;
		tr->turn = ct.turn;
		tr->think_ns = ct.think_ns;
		turn->link = ct.link;
		break;
	case 1:
		say_full(j, CHAIN_MAX_SESSIONS);
		break;
	default:
		rc = -1;
	}
cleanup:
	cJSON_Delete(root);
	return rc;
}

int session_join(struct session_join *j, const struct evkeyvalq *headers,
		 struct trace_request *tr, int64_t arrival_ns, struct session_turn *turn)
{
	memset(turn, 0, sizeof(*turn));
	if (j->header)
		return join_by_header(j, headers, tr, arrival_ns, turn);
	if (j->by_prefix)
		return join_by_prefix(j, tr, arrival_ns, turn);
	return 0;
}

void session_join_end(struct session_turn *turn, struct trace_request *tr, int64_t end_ns)
{
	if (turn->session) {
		tr->turn = turn->session->ended++;
		turn->session->last_end_ns = end_ns;
		turn->session->in_flight--;
	}
	if (turn->link)
		chain_end(turn->link, end_ns);
	memset(turn, 0, sizeof(*turn));
}

void session_join_release(struct session_join *j)
{
	size_t i;

	for (i = 0; i < SESSION_JOIN_BUCKETS; i++) {
		while (j->buckets[i]) {
			struct header_session *s = j->buckets[i];

			j->buckets[i] = s->next;
			free(s->key);
			free(s);
		}
	}
	if (j->by_prefix)
		chain_release(&j->chains);
}
