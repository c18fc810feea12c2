/*
 * request.c - what a generation request asks the mock: its prompt as tokens, the
 * prefix cache that finds them, and the options checked as vLLM checks
 * them (parse_request).
 */
#include "mock/server.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>

/* ---- generation requests ----------------------------------------------- */

static int tokens_push(struct mock_tokens *tk, uint64_t h)
{
	if (tk->n == tk->cap) {
		size_t cap = tk->cap ? tk->cap * 2 : 256;
		uint64_t *nt = realloc(tk->t, cap * sizeof(*nt));

		if (!nt)
			return -1;
		tk->t = nt;
		tk->cap = cap;
	}
	tk->t[tk->n++] = h;
	return 0;
}

static uint64_t hash_bytes(const char *p, size_t len, uint64_t h)
{
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;     /* FNV-1a */
	return h;
}

/* The first word of a prompt, len bytes at s, into buf as struct
 * mock_tokens keeps it: up to the first byte outside [A-Za-z0-9._-]. */
static void first_word(char *buf, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len && i < MOCK_WORD_MAX - 1; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!isalnum(c) && c != '.' && c != '_' && c != '-')
			break;
		buf[i] = (char)c;
	}
	buf[i] = '\0';
}

/* The words of s, each a token. */
static int tokens_words(struct mock_tokens *tk, const char *s)
{
	while (*s) {
		size_t len;

		while (*s && isspace((unsigned char)*s))
			s++;
		len = 0;
		while (s[len] && !isspace((unsigned char)s[len]))
			len++;
		if (len && tk->n == 0)
			first_word(tk->first_word, s, len);
		if (len && tokens_push(tk, hash_bytes(s, len, 0xcbf29ce484222325ULL)) < 0)
			return -1;
		s += len;
	}
	return 0;
}

/* A chat message's content: a string, or an array of parts. */
static int tokens_content(struct mock_tokens *tk, const cJSON *content)
{
	const cJSON *part, *text;

	if (cJSON_IsString(content))
		return tokens_words(tk, content->valuestring);
	cJSON_ArrayForEach(part, content) {
		text = cJSON_GetObjectItemCaseSensitive(part, "text");
		if (cJSON_IsString(part) && tokens_words(tk, part->valuestring) < 0)
			return -1;
		if (cJSON_IsString(text) && tokens_words(tk, text->valuestring) < 0)
			return -1;
	}
	return 0;
}

/* Ends prompt p: at least one token, as a tokenizer's BOS would make it. */
static int tokens_end_prompt(struct mock_tokens *tk)
{
	if (tk->n == tk->bounds[tk->prompts] && tokens_push(tk, 1) < 0)
		return -1;
	tk->bounds[++tk->prompts] = tk->n;
	return 0;
}

/* Token ids (numbers) of one prompt; -1 when one is not a number. */
static int tokens_ids(struct mock_tokens *tk, const cJSON *arr)
{
	const cJSON *el;

	cJSON_ArrayForEach(el, arr) {
		/* a token id is a whole number a vocabulary can hold; anything
		 * else would make the cast below undefined */
		if (!cJSON_IsNumber(el) || !(el->valuedouble >= 0 && el->valuedouble <= 4294967295.0) ||
		    el->valuedouble != floor(el->valuedouble))
			return -1;
		if (tokens_push(tk, (uint64_t)(el->valuedouble + 7) * 0x9e3779b97f4a7c15ULL) < 0)
			return -1;
	}
	return 0;
}

/* A Responses request's input: a string, or items whose content is a
 * string or parts with text (a function call's output counts too). */
static int tokens_input(struct mock_tokens *tk, const cJSON *input, const char **why)
{
	const cJSON *el;

	if (cJSON_IsString(input))
		return tokens_words(tk, input->valuestring);
	if (!cJSON_IsArray(input) || !cJSON_GetArraySize(input)) {
		*why = "'input' must be a string or a non-empty array";
		return -1;
	}
	cJSON_ArrayForEach(el, input) {
		const cJSON *output = cJSON_GetObjectItemCaseSensitive(el, "output");

		if (tokens_content(tk, cJSON_GetObjectItemCaseSensitive(el, "content")) < 0 ||
		    (cJSON_IsString(output) && tokens_words(tk, output->valuestring) < 0))
			return -1;
	}
	return 0;
}

/*
 * The prompt(s) of a request as tokens: a chat's messages (role and
 * content), a Messages request's system prompt and messages, a Responses
 * request's instructions and input, or a completion's prompt: a string,
 * token ids, or a list of either (one prompt each). Returns 0, or -1 with
 * *why set.
 */
int prompt_tokens(const cJSON *root, enum mock_api api, struct mock_tokens *tk,
			 const char **why)
{
	const cJSON *item, *el;

	*why = "out of memory";
	if (api == MOCK_API_RESPONSES) {
		if (tokens_content(tk, cJSON_GetObjectItemCaseSensitive(root, "instructions")) < 0 ||
		    tokens_input(tk, cJSON_GetObjectItemCaseSensitive(root, "input"), why) < 0)
			return -1;
		return tokens_end_prompt(tk);
	}
	if (api == MOCK_API_MESSAGES &&     /* a string, or text blocks */
	    tokens_content(tk, cJSON_GetObjectItemCaseSensitive(root, "system")) < 0)
		return -1;
	if (api == MOCK_API_CHAT || api == MOCK_API_MESSAGES) {
		item = cJSON_GetObjectItemCaseSensitive(root, "messages");
		if (!cJSON_IsArray(item) || !cJSON_GetArraySize(item)) {
			*why = "'messages' must be a non-empty array";
			return -1;
		}
		cJSON_ArrayForEach(el, item) {
			/* content words only: a chat template's tokens are not counted */
			if (tokens_content(tk, cJSON_GetObjectItemCaseSensitive(el, "content")) < 0)
				return -1;
		}
		return tokens_end_prompt(tk);
	}
	item = cJSON_GetObjectItemCaseSensitive(root, "prompt");
	if (cJSON_IsString(item))
		return tokens_words(tk, item->valuestring) < 0 ? -1 : tokens_end_prompt(tk);
	if (!cJSON_IsArray(item) || !cJSON_GetArraySize(item)) {
		*why = "'prompt' must be a string, token ids or a non-empty list of them";
		return -1;
	}
	if (cJSON_IsNumber(cJSON_GetArrayItem(item, 0))) {
		if (tokens_ids(tk, item) < 0) {
			*why = "'prompt' mixes token ids with something else, or an id is not a whole number from 0 to 2^32 - 1";
			return -1;
		}
		return tokens_end_prompt(tk);
	}
	cJSON_ArrayForEach(el, item) {
		if (tk->prompts == MOCK_MAX_CHOICES) {
			*why = "too many prompts in one request";
			return -1;
		}
		if (cJSON_IsString(el)) {
			if (tokens_words(tk, el->valuestring) < 0)
				return -1;
		} else if (cJSON_IsArray(el)) {
			if (tokens_ids(tk, el) < 0) {
				*why = "a prompt of 'prompt' holds something other than token ids";
				return -1;
			}
		} else {
			*why = "'prompt' lists something other than strings or token ids";
			return -1;
		}
		if (tokens_end_prompt(tk) < 0)
			return -1;
	}
	return 0;
}

/* ---- the prefix cache -------------------------------------------------- */

static uint64_t *cache_find(struct mock_cache *c, uint64_t h)
{
	size_t i = (size_t)(h ^ (h >> 29)) & (c->size - 1);

	while (c->slot[i] && c->slot[i] != h)
		i = (i + 1) & (c->size - 1);
	return &c->slot[i];
}

/*
 * Looks the prompt tokens t[0..n) up block by block (each block's hash
 * chains the blocks before it, so a hit means the whole prefix matched),
 * then adds its full blocks. Returns the prompt tokens found cached: whole
 * blocks, never the last token (which is always computed, as in vLLM).
 */
static long cache_lookup_insert(struct mock_server *srv, const uint64_t *t, size_t n)
{
	struct mock_cache *c = &srv->cache;
	uint64_t h = 0x6a09e667f3bcc908ULL;
	size_t b, blocks = n / MOCK_BLOCK, hits = 0, k;
	int missed = 0;

	if (!srv->opt.cache_blocks)
		return 0;
	if (!c->slot) {
		for (c->size = 16; c->size < 2 * (size_t)srv->opt.cache_blocks; c->size *= 2)
			;
		if (!(c->slot = calloc(c->size, sizeof(*c->slot))))
			return 0;
	}
	for (b = 0; b < blocks; b++) {
		uint64_t *slot;

		for (k = 0; k < MOCK_BLOCK; k++)
			h = (h ^ t[b * MOCK_BLOCK + k]) * 0x100000001b3ULL;
		h |= 1;                 /* 0 marks an empty slot */
		slot = cache_find(c, h);
		if (*slot && !missed) {
			hits++;
			continue;
		}
		missed = 1;
		if (!*slot) {
			if (c->used >= (size_t)srv->opt.cache_blocks) {   /* full: empty it */
				memset(c->slot, 0, c->size * sizeof(*c->slot));
				c->used = 0;
				slot = cache_find(c, h);
			}
			*slot = h;
			c->used++;
		}
	}
	if (hits * MOCK_BLOCK >= n)
		hits = (n - 1) / MOCK_BLOCK;
	return (long)(hits * MOCK_BLOCK);
}

/* A whole-number field: 1 and *out set when present, 0 absent, -1 not an integer. */
static int get_integer(const cJSON *root, const char *key, double *out)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, key);

	if (!item || cJSON_IsNull(item))
		return 0;
	if (!cJSON_IsNumber(item) || item->valuedouble != floor(item->valuedouble))
		return -1;
	*out = item->valuedouble;
	return 1;
}

/* How a check of the request body ended: accepted, refused with a 400
 * whose message is *why, or refused with a reply already sent. */
enum check_end { CHECK_OK, CHECK_BAD, CHECK_REPLIED };

/* Which served model 'name' is into r (model, slot, time factor): --model
 * (also for "", a body naming none; its factor from --models if listed
 * there) or one of --models; -1 for a model not served. */
static int served_model(const struct mock_options *o, const char *name, struct mock_request *r)
{
	int base = !*name || strcmp(name, o->model) == 0;
	int i = modelmix_find(&o->models, base ? o->model : name);

	if (!base && i < 0)
		return -1;
	r->model = base ? o->model : o->models.e[i].name;
	r->model_slot = base ? 0 : 1 + i;
	r->time_factor = i >= 0 ? o->models.e[i].weight : 1;
	return 0;
}

/* Whether id is a response id this mock gave: "resp-mock-N", N from 1 to
 * the last stream begun (typed_stream.c names them so). */
static int given_response(const struct mock_server *srv, const cJSON *id)
{
	static const char prefix[] = "resp-mock-";
	const char *s = cJSON_GetStringValue(id), *d;
	unsigned long long n = 0;

	if (!s || strncmp(s, prefix, sizeof(prefix) - 1) != 0)
		return 0;
	for (d = s + sizeof(prefix) - 1; *d >= '0' && *d <= '9' && d - s < 30; d++)
		n = n * 10 + (unsigned long long)(*d - '0');
	return !*d && d > s + sizeof(prefix) - 1 && n >= 1 && n <= srv->next_id;
}

/* The body's model, max_tokens (into *max, *has_max), n, stream,
 * stream_options and ignore_eos. */
static enum check_end check_options(struct mock_server *srv, struct evhttp_request *req,
				    const cJSON *root, struct mock_request *r, double *n,
				    double *max, int *has_max, const char **why)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, "model");

	if (item && !cJSON_IsNull(item) && (!cJSON_IsString(item) ||
	    served_model(&srv->opt, item->valuestring, r) < 0)) {
		reply_vllm_error(req, 404, "NotFoundError", "model",
				 "The model `%s` does not exist.",
				 cJSON_IsString(item) ? item->valuestring : "?");
		return CHECK_REPLIED;
	}
	if (!item || cJSON_IsNull(item))
		served_model(&srv->opt, "", r);
	/* max_completion_tokens (the current name; a Responses request's
	 * max_output_tokens) wins over max_tokens, and both over --tokens. */
	r->n = srv->opt.tokens;
	*has_max = r->api == MOCK_API_RESPONSES ? get_integer(root, "max_output_tokens", max) :
		   get_integer(root, "max_completion_tokens", max);
	if (*has_max == 0)
		*has_max = get_integer(root, "max_tokens", max);
	if (*has_max < 0) {
		*why = "max_tokens must be an integer";
		return CHECK_BAD;
	}
	if (*has_max && *max < 1) {
		reply_vllm_error(req, 400, "BadRequestError", "max_tokens",
				 "max_tokens must be at least 1, got %.0f.", *max);
		return CHECK_REPLIED;
	}
	if (get_integer(root, "n", n) < 0 || *n < 1 || *n > MOCK_MAX_CHOICES) {
		*why = *n < 1 ? "n must be at least 1." : "n must be an integer up to 128";
		return CHECK_BAD;
	}
	item = cJSON_GetObjectItemCaseSensitive(root, "stream");
	if (item && !cJSON_IsNull(item) && !cJSON_IsBool(item)) {
		*why = "'stream' must be a boolean";
		return CHECK_BAD;
	}
	r->stream = cJSON_IsTrue(item);
	item = cJSON_GetObjectItemCaseSensitive(root, "stream_options");
	if (item && !cJSON_IsNull(item) && !r->stream) {
		*why = "Stream options can only be defined when `stream=True`.";
		return CHECK_BAD;
	}
	r->include_usage = r->stream &&
		cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(item, "include_usage"));
	r->ignore_eos = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "ignore_eos"));
	/* a Responses request continuing a stored one names an id this mock
	 * gave, else it gets the 404 vLLM answers (the mock keeps every
	 * response, store or not) */
	item = cJSON_GetObjectItemCaseSensitive(root, "previous_response_id");
	if (r->api == MOCK_API_RESPONSES && item && !cJSON_IsNull(item)) {
		if (!given_response(srv, item)) {
			reply_vllm_error(req, 404, "NotFoundError", "previous_response_id",
					 "Response with id '%.64s' not found.",
					 cJSON_IsString(item) ? item->valuestring : "?");
			return CHECK_REPLIED;
		}
		r->chained = 1;
	}
	/* SGLang's return_meta_info: a chat body's choices carry its meta_info;
	 * a streamed request asking for it is refused, as SGLang does */
	r->meta_info = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "return_meta_info"));
	if (r->meta_info && r->stream && srv->opt.timings == MOCK_TIMINGS_SGLANG) {
		*why = "return_meta_info is not supported with streaming. Please set "
		       "stream=false when using return_meta_info=true.";
		return CHECK_BAD;
	}
	return CHECK_OK;
}

/* The longest prompt and the answer asked for fit --max-model-len; else
 * vLLM's 400 is sent. */
static enum check_end check_context(struct mock_server *srv, struct evhttp_request *req,
				    const struct mock_tokens *tk, double max, int has_max)
{
	size_t p, longest = 0;

	for (p = 0; p < tk->prompts; p++)
		if (tk->bounds[p + 1] - tk->bounds[p] > longest)
			longest = tk->bounds[p + 1] - tk->bounds[p];
	if ((has_max && max + (double)longest > (double)srv->opt.max_model_len) ||
	    (long)longest >= srv->opt.max_model_len) {
		reply_vllm_error(req, 400, "BadRequestError", NULL,
				 "This model's maximum context length is %ld tokens. However, "
				 "you requested %.0f tokens (%zu in the messages, %.0f in the "
				 "completion). Please reduce the length of the messages or "
				 "completion.", srv->opt.max_model_len,
				 (double)longest + (has_max ? max : 0), longest, has_max ? max : 0);
		return CHECK_REPLIED;
	}
	return CHECK_OK;
}

/* True when the tool_calls array 'calls' holds a call of id 'id'. */
static int has_call(const cJSON *calls, const char *id)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, calls) {
		const char *cid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "id"));

		if (cid && strcmp(cid, id) == 0)
			return 1;
	}
	return 0;
}

/*
 * --tool-calls: a chat request that offers tools is answered with calls
 * of them (r->tool_calls) while fewer than --tool-rounds assistant messages
 * with calls follow its last user message. Every tool message must answer
 * a call of the assistant message before it, as OpenAI's API checks.
 * Returns 0, or -1 with why for a 400.
 */
static int tool_request(const struct mock_server *srv, const cJSON *root,
			struct mock_request *r, char *why, size_t whylen)
{
	const cJSON *tools = cJSON_GetObjectItemCaseSensitive(root, "tools"), *m;
	const cJSON *calls = NULL;
	long rounds = 0, i = 0, j, nt = cJSON_GetArraySize(tools);

	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(root, "messages")) {
		const char *role = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "role"));
		const cJSON *mc = cJSON_GetObjectItemCaseSensitive(m, "tool_calls");
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "tool_call_id"));

		if (role && strcmp(role, "user") == 0) {
			rounds = 0;
			calls = NULL;
		} else if (role && strcmp(role, "assistant") == 0) {
			calls = cJSON_GetArraySize(mc) > 0 ? mc : NULL;
			rounds += calls != NULL;
		} else if (role && strcmp(role, "tool") == 0 && (!id || !calls || !has_call(calls, id))) {
			snprintf(why, whylen, "messages[%ld]: tool_call_id '%.64s' answers no tool call "
				 "of the assistant message before it", i, id ? id : "");
			return -1;
		}
		i++;
	}
	if (!cJSON_IsArray(tools) || nt == 0 || rounds >= srv->opt.tool_rounds)
		return 0;
	for (j = 0; j < srv->opt.tool_calls && j < nt; j++) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(tools, (int)j), "function"), "name");

		if (!cJSON_IsString(name) || !name->valuestring[0] || strlen(name->valuestring) > 256) {
			snprintf(why, whylen, "tools[%ld].function.name must be a string of 1 to 256 bytes", j);
			return -1;
		}
	}
	r->tool_calls = srv->opt.tool_calls;
	r->tools = tools;
	return 0;
}

/* Whether a list of content blocks holds a tool_use of id 'id'. */
static int has_tool_use(const cJSON *blocks, const char *id)
{
	const cJSON *b;

	cJSON_ArrayForEach(b, blocks) {
		const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "type"));
		const char *bid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "id"));

		if (t && bid && strcmp(t, "tool_use") == 0 && strcmp(bid, id) == 0)
			return 1;
	}
	return 0;
}

/*
 * A Messages request's history, as Anthropic's API checks it: every
 * tool_result block names a tool_use of the message before it. Returns 0,
 * or -1 with why for a 400.
 */
static int messages_tool_results(const cJSON *root, char *why, size_t whylen)
{
	const cJSON *m, *b, *prev = NULL;
	long i = 0, k;

	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(root, "messages")) {
		const cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");

		k = 0;
		if (!cJSON_IsArray(content))
			content = NULL;
		cJSON_ArrayForEach(b, content) {
			const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "type"));
			const char *id = cJSON_GetStringValue(
				cJSON_GetObjectItemCaseSensitive(b, "tool_use_id"));

			if (t && strcmp(t, "tool_result") == 0 &&
			    (!id || !has_tool_use(cJSON_GetObjectItemCaseSensitive(prev, "content"), id))) {
				snprintf(why, whylen, "messages.%ld.content.%ld: unexpected `tool_use_id` "
					 "found in `tool_result` blocks: %.64s. Each `tool_result` block "
					 "must have a corresponding `tool_use` block in the previous "
					 "message.", i, k, id ? id : "");
				return -1;
			}
			k++;
		}
		prev = m;
		i++;
	}
	return 0;
}

/*
 * Read and check the request body into *r, as vLLM would: the served model
 * (404 otherwise), max_tokens at least 1 and within --max-model-len with
 * the prompt, n a positive integer, stream a boolean, stream_options only
 * with stream (400 otherwise, in vLLM's error shape); a Messages history's
 * tool results as Anthropic's API checks them. Returns the parsed body
 * (the caller frees it with cJSON_Delete; r->model points into it or into
 * srv->opt) or NULL after replying.
 */
cJSON *parse_request(struct mock_server *srv,
			    struct evhttp_request *req, struct mock_request *r)
{
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	size_t len = evbuffer_get_length(in), p;
	const char *why = "request body is not valid JSON";
	enum check_end end = CHECK_BAD;
	char tool_why[320];
	struct mock_tokens tk = { 0 };
	double max = 0, n = 1;
	int has_max = 0;
	cJSON *root;

	root = cJSON_ParseWithLength((char *)evbuffer_pullup(in, -1), len);
	if (root && !cJSON_IsObject(root))
		why = "request body must be a JSON object";
	else if (root)
		end = check_options(srv, req, root, r, &n, &max, &has_max, &why);
	if (end == CHECK_OK)
		end = prompt_tokens(root, r->api, &tk, &why) < 0 ? CHECK_BAD :
		      check_context(srv, req, &tk, max, has_max);
	if (end == CHECK_OK && r->api == MOCK_API_CHAT && srv->opt.tool_calls &&
	    tool_request(srv, root, r, tool_why, sizeof(tool_why)) < 0) {
		why = tool_why;
		end = CHECK_BAD;
	}
	if (end == CHECK_OK && r->api == MOCK_API_MESSAGES &&
	    messages_tool_results(root, tool_why, sizeof(tool_why)) < 0) {
		why = tool_why;
		end = CHECK_BAD;
	}
	/* max and n are range-checked only on the way to CHECK_OK: a refused
	 * body's (-1e300, 1e300) must not reach a cast to long */
	r->prompt_tokens = (long)tk.n;
	memcpy(r->first_word, tk.first_word, sizeof(r->first_word));
	if (end == CHECK_OK && has_max)
		r->n = max > MOCK_MAX_TOKENS ? MOCK_MAX_TOKENS : (long)max;
	if (end == CHECK_OK)
		r->choices = (long)n * (long)tk.prompts;
	if (end == CHECK_OK && r->choices > MOCK_MAX_CHOICES) {
		why = "n times the prompts must be at most 128";
		end = CHECK_BAD;
	}
	if (end != CHECK_OK) {
		if (end == CHECK_BAD)
			reply_vllm_error(req, 400, "BadRequestError", NULL, "%s", why);
		free(tk.t);
		cJSON_Delete(root);
		return NULL;
	}
	for (p = 0; p < tk.prompts; p++)
		r->cached += cache_lookup_insert(srv, tk.t + tk.bounds[p],
						 tk.bounds[p + 1] - tk.bounds[p]);
	if (srv->opt.cache_blocks) {
		srv->count.cache_queries += (unsigned long long)tk.n;
		srv->count.cache_hits += (unsigned long long)r->cached;
	}
	free(tk.t);
	return root;
}
