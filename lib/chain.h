/*
 * chain.h - sessions found by the conversation-prefix relation, for
 * sources that name none: a request continues an earlier one when what it
 * sends begins with all that the earlier one sent (and its answer). Each
 * session is one link keyed by a hash of its latest turn's whole prefix; a
 * request whose prefix hash finds a link becomes that session's next turn
 * and moves the link to its own hash. A second request continuing the same
 * turn (a retry, an edited message: a branch) finds the link moved and
 * starts a session of its own, so that every session stays a line of turns
 * 0, 1, 2, ... (schema/FORMAT.md, "Sessions").
 *
 * record proxy --sessions prefix keys a chat request's messages; record
 * import keys Mooncake's prompt block hashes (hash_ids).
 */
#ifndef TB_CHAIN_H
#define TB_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#define CHAIN_MAX_SESSIONS 1000000L     /* past it, requests are in none */

/* One session's latest turn. */
struct chain_link {
	uint64_t key;             /* hash of its whole prefix */
	long session;             /* the trace's session id */
	long turn;                /* its latest turn */
	int64_t end_ns;           /* when that turn ended; 0 while in flight */
	int in_flight;            /* its turns in flight */
	struct chain_link *next;  /* in its bucket */
};

struct chain_bucket {
	struct chain_link *head;
};

struct chain_table {
	struct chain_bucket *bucket;  /* owned */
	size_t n_buckets;
	long n_sessions;
};

/* What chain_join made of a request. */
struct chain_turn {
	long session, turn;
	int64_t think_ns;         /* from the end of the turn before, 0 for turn 0 */
	struct chain_link *link;  /* for chain_end; owned by the table */
};

/* Starts with no sessions. Returns 0, or -1 when out of memory. */
int chain_init(struct chain_table *t);

/* Frees every link. */
void chain_release(struct chain_table *t);

/* Continues the 64-bit FNV-1a hash h over n bytes: keys are built with it
 * from CHAIN_HASH_INIT. */
#define CHAIN_HASH_INIT 0xcbf29ce484222325ULL
uint64_t chain_hash(uint64_t h, const void *p, size_t n);

/* The session whose latest turn's key is 'key', or NULL. */
struct chain_link *chain_find(const struct chain_table *t, uint64_t key);

/*
 * A request arriving at arrival_ns whose prefix, without its own part, has
 * the key 'prefix' (0: none) and whose whole prefix has 'key'. It becomes
 * the next turn of the session found at 'prefix', its think time the pause
 * since that turn ended (0 while it is in flight), unless that session's
 * latest turn ended more than TRACE_MAX_THINK_NS before; else turn 0 of a
 * new session. Returns 0 with *out; 1 when CHAIN_MAX_SESSIONS sessions
 * exist and a new one would be needed (the request is in none); -1 when out
 * of memory.
 */
int chain_join(struct chain_table *t, uint64_t prefix, uint64_t key, int64_t arrival_ns,
	       struct chain_turn *out);

/* A turn of link's session ended at end_ns. */
void chain_end(struct chain_link *link, int64_t end_ns);

#endif
