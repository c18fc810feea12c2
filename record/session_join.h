/*
 * session_join.h - which session a request the proxy sees belongs to, and
 * which turn of it it is: by a header the client sends (--session-header)
 * or by the conversation itself (--sessions prefix: lib/chain.h).
 *
 * Each request joins as it arrives (session_join) and ends when its
 * response does (session_join_end); the next turn's think time is the
 * pause between them. A request that is in no session keeps the trace's
 * defaults (no session, turn 0).
 */
#ifndef TB_SESSION_JOIN_H
#define TB_SESSION_JOIN_H

#include <stdint.h>

#include "lib/chain.h"

#define SESSION_JOIN_BUCKETS  4096
#define SESSION_JOIN_MAX      1000000L     /* past it, requests are in none */
#define SESSION_JOIN_KEY_MAX  256          /* bytes of a header value told apart */

struct evkeyvalq;
struct trace_request;
struct header_session;

struct session_join {
	const char *header;        /* --session-header, or NULL */
	int by_prefix;             /* --sessions prefix */
	struct header_session *buckets[SESSION_JOIN_BUCKETS];
	long n;                    /* header sessions so far */
	struct chain_table chains; /* by_prefix */
	int full_said;             /* the "sessions seen" line is printed */
};

/* A request's place in its session, for session_join_end. */
struct session_turn {
	struct header_session *session;   /* by header, or NULL */
	struct chain_link *link;          /* by prefix, or NULL */
};

/* Joins by 'header' when not NULL, by prefix when by_prefix (one of them
 * at most), or not at all. Returns 0, or -1 when out of memory. */
int session_join_init(struct session_join *j, const char *header, int by_prefix);

/*
 * Sets tr's session, turn and think time from the request's headers (by
 * header) or body (by prefix), arriving at arrival_ns; *turn remembers it
 * for session_join_end. By header the turn is final only when it ends.
 * Returns 0, or -1 when out of memory.
 */
int session_join(struct session_join *j, const struct evkeyvalq *headers,
		 struct trace_request *tr, int64_t arrival_ns, struct session_turn *turn);

/*
 * The request of 'turn', tr, has ended at end_ns (nothing for none). By
 * header it gets its turn number here, in the order its session's turns
 * end: the order the proxy writes them, which replay reads as turns 0, 1,
 * 2 ... even when a client sent one before the one before it had ended.
 */
void session_join_end(struct session_turn *turn, struct trace_request *tr, int64_t end_ns);

void session_join_release(struct session_join *j);

#endif
