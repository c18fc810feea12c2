/*
 * api.h - the APIs a request that record synth or record import makes
 * speaks, and the body a client of each would send: OpenAI chat and
 * completions, Anthropic's Messages and OpenAI's Responses (both served
 * by vLLM and SGLang too). Replay reads each answer by its kind
 * (lib/trace.h: the path names it).
 */
#ifndef TB_RECORD_API_H
#define TB_RECORD_API_H

#include <stddef.h>

enum record_api {
	RECORD_API_CHAT,        /* /v1/chat/completions: "messages", "max_tokens" */
	RECORD_API_COMPLETIONS, /* /v1/completions: one "prompt" of every text */
	RECORD_API_MESSAGES,    /* /v1/messages: "messages", "max_tokens" (required) */
	RECORD_API_RESPONSES,   /* /v1/responses: "input" items, "max_output_tokens" */
};

/* --endpoint-kind NAME: "chat", "completions", "messages" or "responses".
 * Returns 0, or -1 when name is none of them. */
int record_api_parse(const char *name, enum record_api *api);

/* The API's name as --endpoint-kind takes it (static). */
const char *record_api_name(enum record_api api);

/* The path a request of the API is sent to (static). */
const char *record_api_path(enum record_api api);

/* Does the server apply a chat template to the API's prompts (all but
 * completions)? */
int record_api_chat(enum record_api api);

/*
 * The streamed request body a client of api would send: model, then the
 * n texts of history (a user's turns and the answers, alternating, the
 * user's first) and prompt, the user's turn now; at most max_tokens out;
 * "ignore_eos": true when asked (vLLM's and SGLang's extension). From
 * malloc (cJSON's allocator, which tracebench never replaces): the
 * caller frees it. NULL when out of memory.
 */
char *record_api_body(enum record_api api, const char *model, char *const *history, size_t n,
		      const char *prompt, long max_tokens, int ignore_eos);

#endif
