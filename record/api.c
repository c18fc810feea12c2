/*
 * api.c - the APIs of a generated request and their bodies; see api.h.
 */
#include "api.h"
#include "words.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

static const struct {
	const char *name, *path;
} record_apis[] = {
	[RECORD_API_CHAT] = { "chat", "/v1/chat/completions" },
	[RECORD_API_COMPLETIONS] = { "completions", "/v1/completions" },
	[RECORD_API_MESSAGES] = { "messages", "/v1/messages" },
	[RECORD_API_RESPONSES] = { "responses", "/v1/responses" },
};

#define RECORD_N_APIS (sizeof(record_apis) / sizeof(record_apis[0]))

int record_api_parse(const char *name, enum record_api *api)
{
	size_t i;

	for (i = 0; i < RECORD_N_APIS; i++) {
		if (!strcmp(name, record_apis[i].name)) {
			*api = (enum record_api)i;
			return 0;
		}
	}
	return -1;
}

const char *record_api_name(enum record_api api)
{
	return record_apis[api].name;
}

const char *record_api_path(enum record_api api)
{
	return record_apis[api].path;
}

int record_api_chat(enum record_api api)
{
	return api != RECORD_API_COMPLETIONS;
}

/* The turns as role/content items of the array 'key' of body. */
static int record_api_turns(cJSON *body, const char *key, char *const *history, size_t n,
			    const char *prompt)
{
	cJSON *items = cJSON_AddArrayToObject(body, key);
	size_t i;

	if (!items)
		return -1;
	for (i = 0; i <= n; i++) {
		cJSON *m = cJSON_CreateObject();

		if (!m)
			return -1;
		cJSON_AddItemToArray(items, m);
		if (!cJSON_AddStringToObject(m, "role", i % 2 ? "assistant" : "user") ||
		    !cJSON_AddStringToObject(m, "content", i < n ? history[i] : prompt))
			return -1;
	}
	return 0;
}

/* Every text, in order, as one prompt. */
static int record_api_prompt(cJSON *body, char *const *history, size_t n, const char *prompt)
{
	struct words_buf all = { 0 };
	int bad = 0;
	size_t i;

	for (i = 0; i < n; i++)
		bad |= words_append_text(&all, history[i]);
	bad |= words_append_text(&all, prompt);
	if (!bad && !cJSON_AddStringToObject(body, "prompt", all.p))
		bad = -1;
	free(all.p);
	return bad ? -1 : 0;
}

char *record_api_body(enum record_api api, const char *model, char *const *history, size_t n,
		      const char *prompt, long max_tokens, int ignore_eos)
{
	cJSON *body = cJSON_CreateObject();
	char *text = NULL;
	int bad;

	if (!body || !cJSON_AddStringToObject(body, "model", model))
		goto cleanup;
	switch (api) {
	case RECORD_API_COMPLETIONS:
		bad = record_api_prompt(body, history, n, prompt);
		break;
	case RECORD_API_RESPONSES:
		bad = record_api_turns(body, "input", history, n, prompt);
		break;
	default:
		bad = record_api_turns(body, "messages", history, n, prompt);
		break;
	}
	if (bad || !cJSON_AddNumberToObject(body, api == RECORD_API_RESPONSES ?
					    "max_output_tokens" : "max_tokens", (double)max_tokens) ||
	    (ignore_eos && !cJSON_AddBoolToObject(body, "ignore_eos", 1)) ||
	    !cJSON_AddBoolToObject(body, "stream", 1))
		goto cleanup;
	text = cJSON_PrintUnformatted(body);
cleanup:
	cJSON_Delete(body);
	return text;
}
