/*
 * tokenize.h - a client of a server's /tokenize endpoint, so record synth
 * and record import can build prompts of an exact token length as that
 * server's tokenizer counts them (one word is only about one token).
 *
 * Three shapes are spoken: vLLM and SGLang, POST {"model", "prompt"} or
 * {"model", "messages"} (the chat template applied) answering
 * {"count": N, "tokens": [...]}; llama.cpp, POST {"content"} answering
 * {"tokens": [...]}. The client finds which one the server takes with a
 * probe when it is made. Requests are synchronous, on one libcurl easy
 * handle whose connection is kept alive between them, with a connect and
 * a total timeout; what comes back is capped in size and range-checked.
 */
#ifndef TB_TOKENIZE_H
#define TB_TOKENIZE_H

#include <stddef.h>

/* Most tokens a count may say: far above any model's context, so a larger
 * number is a broken or hostile answer, not a prompt. */
#define TOKENIZE_MAX_COUNT 10000000L

/* Largest answer read: a token id list of TOKENIZE_MAX_COUNT short ids. */
#define TOKENIZE_MAX_ANSWER ((size_t)64 << 20)

struct tokenize_client;

/*
 * Reads a /tokenize answer (len bytes, not NUL-terminated): its "count",
 * else the length of its "tokens" array; both given, they must agree.
 * A count must be an integer from 0 to TOKENIZE_MAX_COUNT. Returns 0 with
 * *count set, or -1 with err saying what is wrong (*count untouched).
 */
int tokenize_parse_answer(const char *body, size_t len, long *count, char *err, size_t errlen);

/*
 * A client of the /tokenize endpoint at url, for 'model'. It probes the
 * server at once (a chat probe when chat is set, else a prompt probe), so
 * an unreachable or unfit tokenizer is an error here: NULL with err
 * naming the URL (redacted as lib/redact.h does) and why. Both strings
 * are copied. Free with tokenize_client_free.
 */
struct tokenize_client *tokenize_client_new(const char *url, const char *model, int chat,
					    char *err, size_t errlen);

/* Frees c; NULL is a no-op. */
void tokenize_client_free(struct tokenize_client *c);

/*
 * Counts the tokens of a generation request's prompt: 'body' is its JSON
 * (chat "messages" or completions "prompt"). A chat request is counted
 * with the server's chat template when it takes "messages"; else its
 * contents are counted joined by newlines (tokenize_template_counted
 * says which). Returns 0 with *count set, or -1 with err filled.
 */
int tokenize_count_body(struct tokenize_client *c, const char *body, long *count, char *err,
			size_t errlen);

/* 1 when chat prompts are counted with the server's chat template. */
int tokenize_template_counted(const struct tokenize_client *c);

/* The redacted URL, fit for a file. */
const char *tokenize_url(const struct tokenize_client *c);

/* Requests made so far. */
long tokenize_requests(const struct tokenize_client *c);

#endif
