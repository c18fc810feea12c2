/*
 * server_info.h - the server as it describes itself, asked once before a
 * run's warm-up, for the results header's provenance (schema/FORMAT.md).
 *
 * GET /v1/models gives the served model ids, the context length where the
 * engine states one (vLLM's max_model_len, llama.cpp's meta.n_ctx) and the
 * Server response header; then the engines' own version endpoints are
 * asked in turn (vLLM /version, llama.cpp /props, SGLang /get_server_info,
 * TGI /info) and the first that answers 200 with a JSON object is kept.
 *
 * A server is hostile until range-checked: every request has a deadline
 * within one budget, every body a cap (an answer over it is not kept), and
 * of a version answer only the top-level strings, numbers and booleans are
 * kept, each string capped (and the model ids and the Server header), at most SERVER_INFO_MAX_FIELDS of them, with
 * the value of any field whose name speaks of a credential (key, secret,
 * password, auth, token) replaced by REDACTED and the API key taken out
 * of every string. A server that answers nothing is recorded as such and
 * the run goes on.
 */
#ifndef TB_SERVER_INFO_H
#define TB_SERVER_INFO_H

#include <stddef.h>
#include <cjson/cJSON.h>

#define SERVER_INFO_BUDGET_MS 3000L      /* all the probes of one server */
#define SERVER_INFO_MAX_BODY (256 * 1024)
#define SERVER_INFO_MAX_FIELDS 48
#define SERVER_INFO_MAX_STRING 256

struct server_info_options {
	const char *endpoint;     /* base URL, as replay sends to it */
	const char *api_key;      /* sent as a Bearer token; NULL = none */
	int http2, insecure;      /* as replay's client */
	long budget_ms;           /* 0: SERVER_INFO_BUDGET_MS */
};

/*
 * Asks the server and returns a new object the caller frees (cJSON_Delete):
 *   "models": [ids], "max_model_len": N, "server_header": "...",
 *   "version_endpoint": "/props", "version": { top-level scalars },
 * each present only when the server said it, and "unknown": "why" when it
 * said nothing usable. Returns NULL only when out of memory. Blocks for at
 * most the budget.
 */
cJSON *server_info_probe(const struct server_info_options *o);

/*
 * The scalars of a version answer 'in' kept as described above, in a new
 * object (NULL when out of memory). 'api_key' may be NULL. Exposed for the
 * tests and the fuzz target.
 */
cJSON *server_info_keep(const cJSON *in, const char *api_key);

/*
 * Adds to 'out' what a GET /v1/models answer 'body' (NUL-terminated) says:
 * "models" (the ids, at most SERVER_INFO_MAX_FIELDS, each kept as a
 * version answer's strings are: 'api_key' (may be NULL) and Bearer tokens
 * taken out, cut to SERVER_INFO_MAX_STRING bytes) and "max_model_len" (a
 * positive one under 1e12). Returns 1 when body is a models list, 0 when it is not (out
 * unchanged), -1 when out of memory.
 */
int server_info_read_models(cJSON *out, const char *body, const char *api_key);

#endif
