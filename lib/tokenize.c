/*
 * tokenize.c - a client of a server's /tokenize endpoint; see tokenize.h.
 *
 * Whatever a server sends is taken as hostile: the answer is capped at
 * TOKENIZE_MAX_ANSWER while it arrives, a count must be a whole number in
 * range, and a count and a token list that disagree are refused rather
 * than one of them believed.
 */
#include "tokenize.h"
#include "errmsg.h"
#include "redact.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CONNECT_TIMEOUT_MS 5000L
/* A 100k-token prompt tokenizes in well under a second; the rest is room
 * for a busy server. */
#define TOTAL_TIMEOUT_MS 60000L

/* How the server takes a prompt, found by the probe. */
enum form { FORM_PROMPT, FORM_CONTENT };

struct tokenize_client {
	CURL *easy;
	struct curl_slist *headers;
	char *url, *shown, *model;
	enum form form;
	int messages;           /* chat counted through "messages" */
	long requests;
	char errbuf[CURL_ERROR_SIZE];
	char *buf;              /* the answer being read */
	size_t len, cap;
	int too_big;
};

/* A count from a JSON number: whole, 0 .. TOKENIZE_MAX_COUNT. */
static int read_count(const cJSON *n, long *out)
{
	double v;

	if (!cJSON_IsNumber(n))
		return -1;
	v = n->valuedouble;
	if (!isfinite(v) || v < 0 || v > (double)TOKENIZE_MAX_COUNT || floor(v) != v)
		return -1;
	*out = (long)v;
	return 0;
}

int tokenize_parse_answer(const char *body, size_t len, long *count, char *err, size_t errlen)
{
	cJSON *root = cJSON_ParseWithLength(body, len);
	const cJSON *c, *tokens;
	long from_count = -1, from_tokens = -1;
	int rc = -1;

	if (!cJSON_IsObject(root)) {
		errmsg_set(err, errlen, "the answer is not a JSON object");
		goto cleanup;
	}
	c = cJSON_GetObjectItemCaseSensitive(root, "count");
	tokens = cJSON_GetObjectItemCaseSensitive(root, "tokens");
	if (c && read_count(c, &from_count) < 0) {
		errmsg_set(err, errlen, "its \"count\" is not a whole number from 0 to %ld",
			   TOKENIZE_MAX_COUNT);
		goto cleanup;
	}
	if (tokens) {
		const cJSON *t;
		long n = 0;

		if (!cJSON_IsArray(tokens)) {
			errmsg_set(err, errlen, "its \"tokens\" is not an array");
			goto cleanup;
		}
		cJSON_ArrayForEach(t, tokens)
			if (++n > TOKENIZE_MAX_COUNT)
				break;
		if (n > TOKENIZE_MAX_COUNT) {
			errmsg_set(err, errlen, "its \"tokens\" holds more than %ld",
				   TOKENIZE_MAX_COUNT);
			goto cleanup;
		}
		from_tokens = n;
	}
	if (from_count < 0 && from_tokens < 0) {
		errmsg_set(err, errlen, "the answer has neither \"count\" nor \"tokens\"");
		goto cleanup;
	}
	if (from_count >= 0 && from_tokens >= 0 && from_count != from_tokens) {
		errmsg_set(err, errlen, "its \"count\" (%ld) and its \"tokens\" (%ld) disagree",
			   from_count, from_tokens);
		goto cleanup;
	}
	*count = from_count >= 0 ? from_count : from_tokens;
	rc = 0;
cleanup:
	cJSON_Delete(root);
	return rc;
}

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct tokenize_client *c = arg;
	size_t len = size * n;

	if (len > TOKENIZE_MAX_ANSWER - c->len) {
		c->too_big = 1;
		return 0;       /* libcurl ends the transfer: CURLE_WRITE_ERROR */
	}
	if (c->len + len > c->cap) {
		size_t cap = c->cap ? c->cap : 4096;
		char *nb;

		while (cap < c->len + len)
			cap *= 2;
		if (cap > TOKENIZE_MAX_ANSWER)
			cap = TOKENIZE_MAX_ANSWER;
		if (!(nb = realloc(c->buf, cap)))
			return 0;
		c->buf = nb;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, p, len);
	c->len += len;
	return len;
}

/* POSTs the JSON of 'req' and reads the count. Returns 0; -1 with err
 * filled; or 1 when the server refused the request's shape (HTTP 4xx,
 * or 0 tokens for a prompt that is not empty: a field it does not read). */
static int post(struct tokenize_client *c, const cJSON *req, int nonempty, long *count,
		char *err, size_t errlen)
{
	char *text = cJSON_PrintUnformatted(req);
	long status = 0;
	CURLcode code;
	int rc = -1;

	if (!text) {
		errmsg_set(err, errlen, "out of memory");
		return -1;
	}
	c->len = 0;
	c->too_big = 0;
	c->errbuf[0] = '\0';
	curl_easy_setopt(c->easy, CURLOPT_POSTFIELDS, text);
	curl_easy_setopt(c->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(text));
	c->requests++;
	code = curl_easy_perform(c->easy);
	if (code != CURLE_OK) {
		if (c->too_big)
			errmsg_set(err, errlen, "tokenizer '%s' sent an answer over %zu MiB",
				   c->shown, TOKENIZE_MAX_ANSWER >> 20);
		else
			errmsg_set(err, errlen, "cannot reach tokenizer '%s': %s", c->shown,
				   c->errbuf[0] ? c->errbuf : curl_easy_strerror(code));
		goto cleanup;
	}
	curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &status);
	if (status >= 400 && status < 500 && status != 401 && status != 403 && status != 404) {
		rc = 1;
		errmsg_set(err, errlen, "tokenizer '%s' answered HTTP %ld", c->shown, status);
		goto cleanup;
	}
	if (status < 200 || status > 299) {
		errmsg_set(err, errlen, "tokenizer '%s' answered HTTP %ld", c->shown, status);
		goto cleanup;
	}
	if (tokenize_parse_answer(c->buf ? c->buf : "", c->len, count, c->errbuf,
				  sizeof(c->errbuf)) < 0) {
		errmsg_set(err, errlen, "tokenizer '%s' answered badly: %s", c->shown, c->errbuf);
		goto cleanup;
	}
	rc = nonempty && *count == 0 ? 1 : 0;
	if (rc)
		errmsg_set(err, errlen, "tokenizer '%s' counted no token in a prompt", c->shown);
cleanup:
	free(text);
	return rc;
}

/* Counts 'prompt' in the form the server takes. */
static int count_prompt(struct tokenize_client *c, const char *prompt, long *count, char *err,
			size_t errlen)
{
	cJSON *req = cJSON_CreateObject();
	int rc;

	if (c->form == FORM_PROMPT) {
		cJSON_AddStringToObject(req, "model", c->model);
		cJSON_AddStringToObject(req, "prompt", prompt);
	} else {
		cJSON_AddStringToObject(req, "content", prompt);
	}
	rc = post(c, req, prompt[0] != '\0', count, err, errlen);
	cJSON_Delete(req);
	if (rc > 0 && c->form == FORM_PROMPT) {
		/* vLLM and SGLang would have counted it: try llama.cpp's field */
		c->form = FORM_CONTENT;
		rc = count_prompt(c, prompt, count, err, errlen);
		if (rc != 0)
			c->form = FORM_PROMPT;
	}
	return rc < 0 ? -1 : rc > 0 ? -1 : 0;
}

/* The contents of 'messages' joined by newlines; malloc'd, or NULL. */
static char *join_contents(const cJSON *messages)
{
	const cJSON *m;
	size_t len = 1, at = 0;
	char *s;

	cJSON_ArrayForEach(m, messages) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(m, "content");

		if (cJSON_IsString(t))
			len += strlen(t->valuestring) + 1;
	}
	if (!(s = malloc(len)))
		return NULL;
	cJSON_ArrayForEach(m, messages) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(m, "content");
		size_t tl;

		if (!cJSON_IsString(t))
			continue;
		if (at)
			s[at++] = '\n';
		tl = strlen(t->valuestring);
		memcpy(s + at, t->valuestring, tl);
		at += tl;
	}
	s[at] = '\0';
	return s;
}

static int count_messages(struct tokenize_client *c, const cJSON *messages, long *count,
			  char *err, size_t errlen)
{
	char *joined;
	int rc;

	if (c->messages) {
		cJSON *req = cJSON_CreateObject();

		cJSON_AddStringToObject(req, "model", c->model);
		cJSON_AddItemToObject(req, "messages", cJSON_Duplicate(messages, 1));
		rc = post(c, req, 1, count, err, errlen);
		cJSON_Delete(req);
		if (rc <= 0)
			return rc;
		c->messages = 0;        /* no chat template here: count the contents */
	}
	if (!(joined = join_contents(messages))) {
		errmsg_set(err, errlen, "out of memory");
		return -1;
	}
	rc = count_prompt(c, joined, count, err, errlen);
	free(joined);
	return rc;
}

int tokenize_count_body(struct tokenize_client *c, const char *body, long *count, char *err,
			size_t errlen)
{
	cJSON *root = cJSON_Parse(body);
	const cJSON *messages, *prompt;
	int rc = -1;

	if (!root) {
		errmsg_set(err, errlen, "out of memory");
		return -1;
	}
	messages = cJSON_GetObjectItemCaseSensitive(root, "messages");
	prompt = cJSON_GetObjectItemCaseSensitive(root, "prompt");
	if (cJSON_IsArray(messages))
		rc = count_messages(c, messages, count, err, errlen);
	else if (cJSON_IsString(prompt))
		rc = count_prompt(c, prompt->valuestring, count, err, errlen);
	else
		errmsg_set(err, errlen, "a request with neither messages nor prompt");
	cJSON_Delete(root);
	return rc;
}

struct tokenize_client *tokenize_client_new(const char *url, const char *model, int chat,
					    char *err, size_t errlen)
{
	static const char probe_chat[] =
		"{\"messages\":[{\"role\":\"user\",\"content\":\"the model\"}]}";
	static const char probe_prompt[] = "{\"prompt\":\"the model\"}";
	struct tokenize_client *c = calloc(1, sizeof(*c));
	long n;

	if (!c || !(c->url = strdup(url)) || !(c->model = strdup(model)) ||
	    !(c->shown = redact_url(url, NULL)) || !(c->easy = curl_easy_init()) ||
	    !(c->headers = curl_slist_append(NULL, "Content-Type: application/json")) ||
	    /* libcurl asks a server to accept a body over 1 KiB first (Expect:
	     * 100-continue), a round trip or a wait for each long prompt */
	    !curl_slist_append(c->headers, "Expect:")) {
		errmsg_set(err, errlen, "out of memory");
		tokenize_client_free(c);
		return NULL;
	}
	c->messages = chat;
	curl_easy_setopt(c->easy, CURLOPT_URL, c->url);
	curl_easy_setopt(c->easy, CURLOPT_HTTPHEADER, c->headers);
	curl_easy_setopt(c->easy, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c->easy, CURLOPT_WRITEDATA, c);
	curl_easy_setopt(c->easy, CURLOPT_ERRORBUFFER, c->errbuf);
	curl_easy_setopt(c->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->easy, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(c->easy, CURLOPT_CONNECTTIMEOUT_MS, CONNECT_TIMEOUT_MS);
	curl_easy_setopt(c->easy, CURLOPT_TIMEOUT_MS, TOTAL_TIMEOUT_MS);
	curl_easy_setopt(c->easy, CURLOPT_PROTOCOLS_STR, "http,https");
	if (tokenize_count_body(c, chat ? probe_chat : probe_prompt, &n, err, errlen) < 0) {
		tokenize_client_free(c);
		return NULL;
	}
	return c;
}

void tokenize_client_free(struct tokenize_client *c)
{
	if (!c)
		return;
	if (c->easy)
		curl_easy_cleanup(c->easy);
	curl_slist_free_all(c->headers);
	free(c->url);
	free(c->shown);
	free(c->model);
	free(c->buf);
	free(c);
}

int tokenize_template_counted(const struct tokenize_client *c)
{
	return c->messages;
}

const char *tokenize_url(const struct tokenize_client *c)
{
	return c->shown;
}

long tokenize_requests(const struct tokenize_client *c)
{
	return c->requests;
}
