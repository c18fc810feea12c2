/*
 * session.h - the sessions of a trace, as replay sends them: records grouped
 * by session id, checked to be turns 0, 1, 2, ... in file order with a
 * think time in range, and the history of a later turn filled with what the
 * server answered to the earlier ones (schema/FORMAT.md, "Sessions").
 *
 * Pure functions over arrays, apart from replay's event loop, so that the
 * unit tests (tests/unit/test_session.c) reach every rule.
 */
#ifndef TB_SESSION_H
#define TB_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "lib/meter.h"

/* What the grouping needs of one trace record. */
struct session_key {
	long session;          /* -1: not in a session (a one-turn session of its own) */
	long turn;
	int64_t think_ns;
	size_t lineno;         /* its line in the trace, for messages */
};

/* One session: its records, turn by turn. */
struct session_entry {
	long id;               /* the trace's id; -1 for a record outside sessions */
	size_t first;          /* its records are turns[first .. first + n_turns) */
	size_t n_turns;
};

struct session_set {
	struct session_entry *s;  /* in the order of their first records */
	size_t n;
	size_t *turns;            /* record indices */
	size_t skipped;           /* sessions refused */
};

/* Told once for each session refused: the line of the record at fault and
 * why ("session 3: turn 2 missing (turn 3 follows turn 1)"). */
typedef void (*session_warn_fn)(void *ctx, size_t lineno, const char *why);

/*
 * Groups the n records of 'keys' into sessions. A session whose records are
 * not turns 0, 1, 2, ... in file order (a turn missing, one repeated or out
 * of order), or one with a think time below 0 or above TRACE_MAX_THINK_NS,
 * is refused as a whole: warn is called with the line at fault, and its
 * records are in no session. Returns 0, or -1 when out of memory. Free with
 * session_set_release.
 */
int session_set_build(struct session_set *set, const struct session_key *keys, size_t n,
		      session_warn_fn warn, void *ctx);

void session_set_release(struct session_set *set);

enum {
	SESSION_FILLED = 0,
	SESSION_ENOMEM = -1,
	SESSION_ASIS = 1,      /* nothing to fill: send the body as recorded */
};

/*
 * The body of turn k (k = n_answers) of a chat session: 'body' (len bytes,
 * one JSON object with a "messages" array, as chat and Anthropic's
 * Messages API send, or else an "input" array of items, as the Responses
 * API does) whose last k messages of role
 * "assistant" stand for the answers of turns 0 .. k-1, in order. Each gets
 * answers[i]'s text as its "content" (null when the answer is tool calls
 * alone) and loses "reasoning_content" and "reasoning": a reasoning
 * model's earlier thoughts are not sent back, as the chat templates of
 * DeepSeek-R1 and Qwen3 drop them and the OpenAI and DeepSeek APIs ask.
 *
 * A placeholder whose content is a list of blocks with a "tool_use" (the
 * Messages API's) keeps them: the answer's text in one text block, no
 * thinking, and tool_use block j the server's call j (its id, name and
 * input) as chat's calls below, each tool_result after it naming the
 * server's id; a block past the server's calls stays as recorded.
 *
 * A placeholder's recorded "tool_calls" keeps its length: its call j
 * becomes the server's call j (id, function name, arguments; what the
 * server left out stays as recorded), and each "tool" message after it,
 * up to the next assistant message, whose "tool_call_id" is call j's
 * recorded id gets the server's id. Live calls past the recorded ones,
 * or where none was recorded, are left out: no tool message of the trace
 * answers them. Returns SESSION_FILLED with *out (malloc'd,
 * NUL-terminated, the caller frees) and *out_len; SESSION_ASIS when the
 * body is no such object or holds fewer than k assistant messages (a
 * completions prompt, a foreign body); SESSION_ENOMEM.
 */
int session_fill_body(const char *body, size_t len, const struct meter_answer *answers,
		      size_t n_answers, char **out, size_t *out_len);

/*
 * A later turn of a session of Responses API requests as a chain (replay
 * --previous-response-id; its body asks the server to store it, the
 * "store" override of replay/body.h): 'body' (len bytes) with
 * "previous_response_id" set to previous_id, the id the server gave the
 * turn before, and its "input" cut to the items after the last one the
 * model made (its messages, function calls, reasoning): the server holds
 * the rest. Returns SESSION_FILLED with *out (malloc'd, the caller frees)
 * and *out_len; SESSION_ASIS when the body is no JSON object;
 * SESSION_ENOMEM.
 */
int session_chain_body(const char *body, size_t len, const char *previous_id, char **out,
		       size_t *out_len);

#endif
