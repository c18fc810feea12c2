/*
 * toolcall.h - the tool calls of one answer, assembled from what a server
 * sends: the fragments of a stream's delta.tool_calls (an index, then an
 * id and a function name once, then pieces of the arguments), or a whole
 * body's message.tool_calls. A session's next turn sends them back in its
 * history (replay/session.h; schema/FORMAT.md, "Tool calls").
 *
 * What a server sends is hostile: at most TOOLCALLS_MAX calls, an index
 * below it, an id and a name of at most TOOLCALLS_MAX_NAME bytes, and all
 * the calls' bytes together under the cap the caller sets.
 */
#ifndef TB_TOOLCALL_H
#define TB_TOOLCALL_H

#include <stddef.h>
#include <cjson/cJSON.h>

#define TOOLCALLS_MAX      128    /* calls in one answer */
#define TOOLCALLS_MAX_NAME 256    /* bytes of an id, of a function name */

/* One call, in the order its index was first seen. */
struct toolcall {
	long index;               /* the server's index */
	char *id;                 /* NULL until given; owned */
	char *name;               /* function name, NULL until given; owned */
	char *args;               /* the arguments' pieces joined; NULL none; owned */
	size_t args_len, args_cap;
};

struct toolcalls {
	struct toolcall *c;       /* owned */
	size_t n, cap;
	size_t bytes;             /* of ids, names and arguments together */
	size_t max_bytes;         /* the caller's cap on 'bytes'; 0: none kept */
};

enum {
	TOOLCALLS_OK = 0,
	TOOLCALLS_EINVAL = -1,    /* the server broke a rule or a cap */
	TOOLCALLS_ENOMEM = -2,
};

/* An empty set whose ids, names and arguments may take max_bytes. */
void toolcalls_init(struct toolcalls *t, size_t max_bytes);

/* Frees what t owns and leaves it empty (its cap kept). */
void toolcalls_release(struct toolcalls *t);

/*
 * Folds one "tool_calls" array in: a streamed delta's fragments or a whole
 * message's calls. Each element is an object; its "index" (an integer 0 to
 * TOOLCALLS_MAX - 1; absent: its place in the array) names the call it
 * adds to, a new one when not seen yet. Its "id" and "function"."name",
 * when strings, are the call's if it has none yet (servers send them with
 * a call's first fragment; a repeat is ignored); its "function".
 * "arguments", when a string, is appended. A NULL or non-array 'arr' adds
 * nothing. Returns TOOLCALLS_OK; TOOLCALLS_EINVAL with *why (a static
 * string) when an element is not an object, an index is out of range or
 * not an integer, a call is past TOOLCALLS_MAX, an id or name is longer
 * than TOOLCALLS_MAX_NAME or the bytes pass max_bytes; TOOLCALLS_ENOMEM.
 * After an error t holds part of the answer: release it (the caller fails
 * the request).
 */
int toolcalls_feed(struct toolcalls *t, const cJSON *arr, const char **why);

#endif
