/*
 * fuzz_mock_request.c - libFuzzer target for the mock's reading of a
 * generation request (mock/request.c): parse_request, the options checked
 * as vLLM checks them, the prompt as tokens and the prefix cache, and
 * prompt_tokens alone as POST /tokenize calls it. The mock is a server
 * users run; whatever a client sends reaches this code.
 *
 * Byte 0 sets up the server and the route: bit 0 a completion (else a
 * chat; with bit 6 a Responses request, else a Messages one), bit 1 a
 * prefix cache of 4 blocks (else of 4096), bit 2 --tool-calls 2, bits
 * 3-4 --max-model-len (131072, 4096, 64, 1). The
 * rest is the request body. parse_request is linked alone (Makefile): the
 * target stands in for mock.c's reply helper and keeps what would have
 * been sent.
 *
 * A body is either refused with one reply, a 400 or the unknown model's
 * 404 in vLLM's error shape, or accepted without one as a request the
 * stream can serve: max_tokens as asked within 1 to MOCK_MAX_TOKENS, 1 to
 * MOCK_MAX_CHOICES choices, each prompt at least one token and within
 * --max-model-len, only whole cached blocks and never a prompt's last
 * token, tool names the events can carry. Sent again, an accepted body
 * finds its blocks in a cache big enough to hold them. prompt_tokens
 * must split the prompts it accepts into non-empty ranges. A broken rule
 * aborts.
 */
#include "mock/server.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the server would have replied: the count, and the last one. */
static struct {
	int n;
	int code;
	char type[64];
	char param[64];
	char msg[512];
} reply;

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_mock_request: %s: %s\n", what, detail ? detail : "(null)");
	abort();
}

/* mock.c's helper (not linked): keeps the reply instead of sending it. */
void reply_vllm_error(struct evhttp_request *req, int code, const char *type,
		      const char *param, const char *fmt, ...)
{
	va_list ap;
	int len;

	(void)req;
	reply.n++;
	reply.code = code;
	snprintf(reply.type, sizeof(reply.type), "%s", type);
	snprintf(reply.param, sizeof(reply.param), "%s", param ? param : "");
	va_start(ap, fmt);
	len = vsnprintf(reply.msg, sizeof(reply.msg), fmt, ap);
	va_end(ap);
	if (len <= 0)
		fail("an error reply without a message", type);
}

static void check_refused(void)
{
	if (reply.n != 1)
		fail("a refused body with no reply, or several", reply.msg);
	if (reply.code == 404 ? strcmp(reply.type, "NotFoundError") || strcmp(reply.param, "model") :
	    reply.code != 400 || strcmp(reply.type, "BadRequestError"))
		fail("an error reply of another code or type", reply.type);
}

/* The prompts prompt_tokens read into tk: non-empty ranges, in order. */
static void check_tokens(const struct mock_tokens *tk)
{
	size_t p;

	if (!tk->prompts || tk->prompts > MOCK_MAX_CHOICES || tk->bounds[0] != 0 ||
	    tk->bounds[tk->prompts] != tk->n)
		fail("prompts that do not cover the tokens", NULL);
	for (p = 0; p < tk->prompts; p++)
		if (tk->bounds[p + 1] <= tk->bounds[p])
			fail("an empty prompt", NULL);
}

static void check_accepted(const struct mock_server *srv, const cJSON *root,
			   const struct mock_request *r)
{
	const cJSON *max = cJSON_GetObjectItemCaseSensitive(root, r->api == MOCK_API_RESPONSES ?
							    "max_output_tokens" : "max_completion_tokens");
	struct mock_tokens tk = { 0 };
	const char *why;
	size_t p;
	long j;

	if (reply.n)
		fail("an accepted body answered with an error", reply.msg);
	if (!cJSON_IsNumber(max))
		max = cJSON_GetObjectItemCaseSensitive(root, "max_tokens");
	if (r->n < 1 || r->n > MOCK_MAX_TOKENS ||
	    (cJSON_IsNumber(max) && r->n != (max->valuedouble > MOCK_MAX_TOKENS ?
					     MOCK_MAX_TOKENS : (long)max->valuedouble)))
		fail("max_tokens not as asked", NULL);
	if (r->choices < 1 || r->choices > MOCK_MAX_CHOICES || r->model != srv->opt.model ||
	    (r->include_usage && !r->stream))
		fail("choices, model or usage out of what the stream serves", NULL);
	if (prompt_tokens(root, r->api, &tk, &why) < 0)
		fail("an accepted body whose prompts are refused", why);
	check_tokens(&tk);
	if ((long)tk.n != r->prompt_tokens || r->choices % (long)tk.prompts)
		fail("prompt tokens or choices not those of the prompts", NULL);
	if (r->cached < 0 || r->cached % MOCK_BLOCK || r->cached > r->prompt_tokens - (long)tk.prompts)
		fail("a cached count of part of a block or of a last token", NULL);
	for (p = 0; p < tk.prompts; p++)
		if ((long)(tk.bounds[p + 1] - tk.bounds[p]) >= srv->opt.max_model_len)
			fail("a prompt past --max-model-len accepted", NULL);
	free(tk.t);
	if (r->tool_calls && (r->tool_calls != srv->opt.tool_calls || !cJSON_IsArray(r->tools)))
		fail("tool calls without the request's tools", NULL);
	/* stream.c names call j after tool j mod the tools offered */
	for (j = 0; j < r->tool_calls; j++) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
			cJSON_GetArrayItem(r->tools, (int)(j % cJSON_GetArraySize(r->tools))),
			"function"), "name");

		if (!cJSON_IsString(name) || !*name->valuestring || strlen(name->valuestring) > 256)
			fail("a tool call of a tool without a name the events can carry", NULL);
	}
}

/* Sends body to parse_request as a client would; *out gets what it read. */
static cJSON *send_body(struct mock_server *srv, enum mock_api api, const uint8_t *body,
			size_t len, struct mock_request *out)
{
	struct evhttp_request *req = evhttp_request_new(NULL, NULL);
	cJSON *root;

	memset(out, 0, sizeof(*out));
	out->api = api;
	memset(&reply, 0, sizeof(reply));
	if (!req || evbuffer_add(evhttp_request_get_input_buffer(req), body, len) < 0) {
		if (req)
			evhttp_request_free(req);
		return NULL;
	}
	root = parse_request(srv, req, out);
	evhttp_request_free(req);
	return root;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const long model_lens[4] = { 131072, 4096, 64, 1 };
	struct mock_server srv;
	struct mock_request r, again;
	struct mock_tokens tk = { 0 };
	enum mock_api api;
	const char *why;
	cJSON *root, *root2, *body;

	if (size < 1)
		return 0;
	memset(&srv, 0, sizeof(srv));
	srv.opt.model = "mock";
	srv.opt.tokens = 16;
	srv.opt.max_model_len = model_lens[(data[0] >> 3) & 3];
	srv.opt.cache_blocks = data[0] & 2 ? 4 : 4096;
	srv.opt.tool_calls = data[0] & 4 ? 2 : 0;
	srv.opt.tool_rounds = 1;
	/* bits 0 and 6: chat, completions, Messages, Responses */
	api = data[0] & 0x40 ? (data[0] & 1 ? MOCK_API_RESPONSES : MOCK_API_MESSAGES) :
	      data[0] & 1 ? MOCK_API_COMPLETIONS : MOCK_API_CHAT;

	root = send_body(&srv, api, data + 1, size - 1, &r);
	if (!root && !reply.n)
		goto tokenize;          /* out of memory before the parse */
	if (!root) {
		check_refused();
		goto tokenize;
	}
	check_accepted(&srv, root, &r);
	/* sent again: its whole blocks are cached now, unless the cache is
	 * too small to keep them (4 blocks, emptied when full) */
	root2 = send_body(&srv, api, data + 1, size - 1, &again);
	if (!root2)
		fail("a body accepted once and refused the second time", reply.msg);
	check_accepted(&srv, root2, &again);
	if (srv.opt.cache_blocks == 4096 && r.choices == again.choices && again.cached < r.cached)
		fail("a body sent again finds less of itself cached", NULL);
	if (srv.opt.cache_blocks == 4096 && r.prompt_tokens < 4096 && again.choices == 1 &&
	    again.cached != (again.prompt_tokens - 1) / MOCK_BLOCK * MOCK_BLOCK)
		fail("a prompt sent again does not find its whole blocks cached", NULL);
	cJSON_Delete(root2);
	cJSON_Delete(root);

tokenize:
	/* POST /tokenize: the route is the body's "messages" */
	body = cJSON_ParseWithLength((const char *)data + 1, size - 1);
	if (cJSON_IsObject(body) &&
	    prompt_tokens(body, cJSON_GetObjectItemCaseSensitive(body, "messages") ?
			  MOCK_API_CHAT : MOCK_API_COMPLETIONS, &tk, &why) == 0)
		check_tokens(&tk);
	free(tk.t);
	cJSON_Delete(body);
	free(srv.cache.slot);
	return 0;
}
