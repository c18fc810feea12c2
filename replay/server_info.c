/*
 * server_info.c - the server as it describes itself; see server_info.h.
 *
 * Plain blocking libcurl requests, one easy handle reused so that the
 * probes share a connection, each with the time left of one budget as its
 * deadline. Nothing here prints: what went wrong is the "unknown" text.
 */
#include "server_info.h"
#include "lib/clock.h"
#include "lib/redact.h"
#include "lib/transfer.h"

#include <ctype.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct answer {
	char *body;
	size_t len, cap;
	int over;                 /* the body passed SERVER_INFO_MAX_BODY */
	char server[SERVER_INFO_MAX_STRING];
};

static size_t on_body(char *buf, size_t size, size_t n, void *arg)
{
	struct answer *a = arg;
	size_t len = size * n;

	if (a->len + len > SERVER_INFO_MAX_BODY) {
		a->over = 1;
		return 0;                 /* libcurl ends the transfer */
	}
	if (a->len + len + 1 > a->cap) {
		size_t cap = a->cap ? a->cap : 4096;
		char *p;

		while (cap < a->len + len + 1)
			cap *= 2;
		if (!(p = realloc(a->body, cap)))
			return 0;
		a->body = p;
		a->cap = cap;
	}
	memcpy(a->body + a->len, buf, len);
	a->len += len;
	a->body[a->len] = '\0';
	return len;
}

/* Keeps the Server header's value, printable bytes only. */
static size_t on_header(char *buf, size_t size, size_t n, void *arg)
{
	struct answer *a = arg;
	size_t len = size * n, i, k = 0;

	if (len > 7 && !strncasecmp(buf, "Server:", 7)) {
		for (i = 7; i < len && buf[i] == ' '; i++)
			;
		for (; i < len && k + 1 < sizeof(a->server); i++)
			if (buf[i] >= 0x20 && buf[i] < 0x7f)
				a->server[k++] = buf[i];
		a->server[k] = '\0';
	}
	return len;
}

/*
 * GETs endpoint + path into *a with the time left until deadline_ns.
 * Returns the HTTP status (0 when no answer), with why in err.
 */
static long get(CURL *easy, const char *endpoint, const char *path, int64_t deadline_ns,
		struct answer *a, char *err, size_t errlen)
{
	int64_t left_ms = (deadline_ns - clock_now_ns()) / NS_PER_MS;
	char *url = transfer_url(endpoint, path);
	long status = 0;
	CURLcode rc;

	a->len = 0;
	a->over = 0;
	if (a->body)
		a->body[0] = '\0';
	if (!url || left_ms < 50) {
		snprintf(err, errlen, url ? "no time left" : "out of memory");
		free(url);
		return 0;
	}
	curl_easy_setopt(easy, CURLOPT_URL, url);
	curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, (long)left_ms);
	curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, (long)left_ms);
	rc = curl_easy_perform(easy);
	free(url);
	if (a->over) {
		snprintf(err, errlen, "GET %s: answer over %d bytes", path, SERVER_INFO_MAX_BODY);
		return 0;
	}
	if (rc != CURLE_OK) {
		snprintf(err, errlen, "GET %s: %s", path, curl_easy_strerror(rc));
		return 0;
	}
	curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
	if (status != 200)
		snprintf(err, errlen, "GET %s: HTTP %ld", path, status);
	return status;
}

/* Does a field named so speak of a credential? */
static int name_is_secret(const char *name)
{
	static const char *const words[] = { "key", "secret", "passw", "auth", "credential",
					     "cookie" };
	size_t i, n;
	char low[128];

	for (n = 0; name[n] && n + 1 < sizeof(low); n++)
		low[n] = (char)tolower((unsigned char)name[n]);
	low[n] = '\0';
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(low, words[i]))
			return 1;
	/* "token" and "api_token", not "max_tokens" */
	return n >= 5 && !strcmp(low + n - 5, "token");
}

/*
 * A string of the server's as it may be kept: the API key and every Bearer
 * token taken out of it whole, then cut to SERVER_INFO_MAX_STRING bytes (a
 * cut first could halve a key out of redact_text's sight, and REDACTED can
 * be longer than what it replaces). NULL when out of memory.
 */
static cJSON *kept_string(const char *text, const char *api_key)
{
	const char *secrets[1] = { api_key };
	char *s = redact_text(text, strlen(text), secrets, api_key ? 1 : 0);
	cJSON *v;

	if (!s)
		return NULL;
	if (strlen(s) > SERVER_INFO_MAX_STRING)
		s[SERVER_INFO_MAX_STRING] = '\0';
	v = cJSON_CreateString(s);
	free(s);
	return v;
}

cJSON *server_info_keep(const cJSON *in, const char *api_key)
{
	cJSON *out = cJSON_CreateObject();
	const cJSON *it;
	int kept = 0;

	if (!out)
		return NULL;
	cJSON_ArrayForEach(it, in) {
		char name[SERVER_INFO_MAX_STRING];
		cJSON *v = NULL;

		if (kept == SERVER_INFO_MAX_FIELDS)
			break;
		if (!it->string || cJSON_GetObjectItemCaseSensitive(out, it->string))
			continue;
		snprintf(name, sizeof(name), "%s", it->string);
		if (name_is_secret(name) && !cJSON_IsNull(it) && !cJSON_IsBool(it)) {
			v = cJSON_CreateString(REDACT_MARK);
		} else if (cJSON_IsString(it)) {
			v = kept_string(it->valuestring, api_key);
		} else if (cJSON_IsNumber(it)) {
			v = cJSON_CreateNumber(it->valuedouble);
		} else if (cJSON_IsBool(it)) {
			v = cJSON_CreateBool(cJSON_IsTrue(it));
		} else {
			continue;                 /* objects, arrays, null */
		}
		if (!v || !cJSON_AddItemToObject(out, name, v)) {
			cJSON_Delete(v);
			cJSON_Delete(out);
			return NULL;
		}
		kept++;
	}
	return out;
}

int server_info_read_models(cJSON *out, const char *body, const char *api_key)
{
	cJSON *j = cJSON_Parse(body);
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(j, "data"), *m;
	cJSON *ids;
	double ctx = 0;
	int n = 0;

	if (!cJSON_IsArray(data)) {
		cJSON_Delete(j);
		return 0;
	}
	if (!(ids = cJSON_AddArrayToObject(out, "models"))) {
		cJSON_Delete(j);
		return -1;
	}
	cJSON_ArrayForEach(m, data) {
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "id"));
		const cJSON *len = cJSON_GetObjectItemCaseSensitive(m, "max_model_len");

		if (!cJSON_IsNumber(len))
			len = cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(m, "meta"), "n_ctx");
		if (ctx == 0 && cJSON_IsNumber(len) && len->valuedouble > 0 &&
		    len->valuedouble < 1e12)
			ctx = len->valuedouble;
		if (!id || n == SERVER_INFO_MAX_FIELDS)
			continue;
		cJSON_AddItemToArray(ids, kept_string(id, api_key));
		n++;
	}
	if (ctx > 0)
		cJSON_AddNumberToObject(out, "max_model_len", ctx);
	cJSON_Delete(j);
	return 1;
}

cJSON *server_info_probe(const struct server_info_options *o)
{
	static const char *const versions[] = { "/version", "/props", "/get_server_info", "/info" };
	long budget = o->budget_ms > 0 ? o->budget_ms : SERVER_INFO_BUDGET_MS;
	int64_t deadline = clock_now_ns() + budget * NS_PER_MS;
	struct answer a = { 0 };
	struct curl_slist *headers = NULL;
	cJSON *out = cJSON_CreateObject();
	char auth[1024], err[256] = "", first_err[256] = "";
	int said = 0;
	size_t i;
	CURL *easy;

	if (!out)
		return NULL;
	if (!(easy = curl_easy_init())) {
		cJSON_AddStringToObject(out, "unknown", "cannot initialize libcurl");
		return out;
	}
	if (o->api_key && *o->api_key) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", o->api_key);
		headers = curl_slist_append(NULL, auth);
	}
	curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(easy, CURLOPT_WRITEDATA, &a);
	curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(easy, CURLOPT_HEADERDATA, &a);
	curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
	if (o->http2)
		curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, strncmp(o->endpoint, "https://", 8) ?
				 (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE : (long)CURL_HTTP_VERSION_2TLS);
	else
		curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	if (o->insecure) {
		curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 0L);
	}

	if (get(easy, o->endpoint, "/v1/models", deadline, &a, first_err, sizeof(first_err)) == 200 &&
	    a.body)
		said += server_info_read_models(out, a.body, o->api_key) > 0;
	if (a.server[0]) {
		cJSON_AddItemToObject(out, "server_header", kept_string(a.server, o->api_key));
		said++;
	}
	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		cJSON *j, *kept;

		if (get(easy, o->endpoint, versions[i], deadline, &a, err, sizeof(err)) != 200 ||
		    !a.body)
			continue;
		j = cJSON_Parse(a.body);
		kept = cJSON_IsObject(j) ? server_info_keep(j, o->api_key) : NULL;
		cJSON_Delete(j);
		if (kept && kept->child) {
			cJSON_AddStringToObject(out, "version_endpoint", versions[i]);
			cJSON_AddItemToObject(out, "version", kept);
			said++;
			break;
		}
		cJSON_Delete(kept);
	}
	if (!said)
		cJSON_AddStringToObject(out, "unknown", first_err[0] ? first_err :
					"the server described itself nowhere it was asked");
	free(a.body);
	curl_slist_free_all(headers);
	curl_easy_cleanup(easy);
	return out;
}
