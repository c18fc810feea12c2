/*
 * test_provenance.c - what a results file says about how it was made:
 * the command line with its secrets taken out (replay/provenance.c) and
 * the server as it describes itself (replay/server_info.c), asked over
 * real sockets of a small server thread that answers as llama.cpp's
 * captured replies do (tests/fixtures/llama-server/), or hostilely: never,
 * with 10 MB, or with a credential in its version answer.
 */
#include "harness.h"
#include "lib/clock.h"
#include "replay/provenance.h"
#include "replay/server_info.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

enum mode { LLAMA, SILENT, HUGE_BODY };

struct server {
	int fd, port;
	enum mode mode;
	pthread_t thread;
	volatile int stop;
	char last_auth[256];      /* the Authorization header of the last request */
};

static const char *fixture_models;   /* tests/fixtures/llama-server/models.json */

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(1 << 16);
	size_t n;

	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void send_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t w = send(fd, p, len, MSG_NOSIGNAL);

		if (w <= 0)
			return;
		p += w;
		len -= (size_t)w;
	}
}

static void reply(int fd, int status, const char *body)
{
	char head[256];
	int n = snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\nServer: llama.cpp\r\n"
			 "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
			 status, status == 200 ? "OK" : "Not Found", strlen(body));

	send_all(fd, head, (size_t)n);
	send_all(fd, body, strlen(body));
}

/* Answers one connection's requests until it closes. */
static void serve(struct server *s, int fd)
{
	char req[8192];
	size_t have = 0;

	for (;;) {
		ssize_t r = recv(fd, req + have, sizeof(req) - 1 - have, 0);
		char *end, *auth;

		if (r <= 0)
			return;
		have += (size_t)r;
		req[have] = '\0';
		if (!(end = strstr(req, "\r\n\r\n")))
			continue;
		if ((auth = strstr(req, "Authorization: ")))
			snprintf(s->last_auth, sizeof(s->last_auth), "%.*s",
				 (int)strcspn(auth, "\r"), auth);
		if (s->mode == SILENT) {
			while (!s->stop)
				usleep(10000);
			return;
		}
		if (s->mode == HUGE_BODY) {
			static char chunk[65536];
			const char *head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
					   "Content-Length: 10485760\r\n\r\n";
			int k;

			memset(chunk, 'x', sizeof(chunk));
			send_all(fd, head, strlen(head));
			for (k = 0; k < 160 && !s->stop; k++)
				send_all(fd, chunk, sizeof(chunk));
			return;
		}
		if (!strncmp(req, "GET /v1/models ", 15))
			reply(fd, 200, fixture_models);
		else if (!strncmp(req, "GET /props ", 11))
			reply(fd, 200, "{\"build_info\":\"b12074-dc02e1f83\",\"total_slots\":8,"
			      "\"model_path\":\"tiny.gguf\",\"api_key\":\"sk-server-side-1\","
			      "\"hf_token\":\"hf_abcdef\",\"max_tokens\":64,\"is_sleeping\":false,"
			      "\"note\":\"called with sk-client-key-9 today\","
			      "\"default_generation_settings\":{\"n_ctx\":4096}}");
		else
			reply(fd, 404, "{\"error\":{\"code\":404,\"message\":\"File Not Found\"}}");
		memmove(req, end + 4, have - (size_t)(end + 4 - req));
		have -= (size_t)(end + 4 - req);
	}
}

static void *server_main(void *arg)
{
	struct server *s = arg;

	while (!s->stop) {
		int c = accept(s->fd, NULL, NULL);

		if (c < 0)
			continue;
		serve(s, c);
		close(c);
	}
	return NULL;
}

static int server_start(struct server *s, enum mode mode)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	struct timeval tv = { 0, 200000 };

	memset(s, 0, sizeof(*s));
	s->mode = mode;
	s->fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(s->fd, 16) < 0 || getsockname(s->fd, (struct sockaddr *)&a, &len) < 0)
		return -1;
	/* accept() wakes up to see stop */
	setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	s->port = ntohs(a.sin_port);
	return pthread_create(&s->thread, NULL, server_main, s) ? -1 : 0;
}

static void server_stop(struct server *s)
{
	s->stop = 1;
	pthread_join(s->thread, NULL);
	close(s->fd);
}

static cJSON *probe(struct server *s, const char *key, long budget_ms)
{
	char url[64];
	struct server_info_options o = { url, key, 0, 0, budget_ms };

	snprintf(url, sizeof(url), "http://127.0.0.1:%d", s->port);
	return server_info_probe(&o);
}

static const char *str(const cJSON *o, const char *name)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, name));
}

TEST(llama_server_is_recorded_as_it_describes_itself)
{
	struct server s;
	cJSON *info, *v, *models;
	char *text;

	if (!fixture_models) {
		CHECK(!"tests/fixtures/llama-server/models.json not readable");
		return;
	}
	CHECK_EQ_INT(server_start(&s, LLAMA), 0);
	info = probe(&s, "sk-client-key-9", 0);
	server_stop(&s);
	CHECK(info != NULL);
	models = cJSON_GetObjectItemCaseSensitive(info, "models");
	CHECK_EQ_INT(cJSON_GetArraySize(models), 1);
	CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(models, 0)), "tiny-random-llama"));
	/* llama.cpp states its context as meta.n_ctx */
	CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(info, "max_model_len")),
		   4096, 0);
	CHECK(str(info, "server_header") && !strcmp(str(info, "server_header"), "llama.cpp"));
	/* /version answered 404: the next one, /props, is kept */
	CHECK(str(info, "version_endpoint") && !strcmp(str(info, "version_endpoint"), "/props"));
	v = cJSON_GetObjectItemCaseSensitive(info, "version");
	CHECK(str(v, "build_info") && !strcmp(str(v, "build_info"), "b12074-dc02e1f83"));
	CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(v, "total_slots")), 8, 0);
	CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(v, "max_tokens")), 64, 0);
	CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(v, "is_sleeping")));
	/* credentials by name, the client's key anywhere, nested objects out */
	CHECK(str(v, "api_key") && !strcmp(str(v, "api_key"), "REDACTED"));
	CHECK(str(v, "hf_token") && !strcmp(str(v, "hf_token"), "REDACTED"));
	CHECK(cJSON_GetObjectItemCaseSensitive(v, "default_generation_settings") == NULL);
	text = cJSON_PrintUnformatted(info);
	CHECK(text && !strstr(text, "sk-server-side-1") && !strstr(text, "hf_abcdef") &&
	      !strstr(text, "sk-client-key-9"));
	CHECK(cJSON_GetObjectItemCaseSensitive(info, "unknown") == NULL);
	/* the probes carried the key, as replay's requests do */
	CHECK(!strcmp(s.last_auth, "Authorization: Bearer sk-client-key-9"));
	free(text);
	cJSON_Delete(info);
}

TEST(a_silent_server_is_unknown_within_the_budget)
{
	struct server s;
	int64_t t0;
	double took_ms;
	cJSON *info;

	CHECK_EQ_INT(server_start(&s, SILENT), 0);
	t0 = clock_now_ns();
	info = probe(&s, NULL, 600);
	took_ms = (double)(clock_now_ns() - t0) / 1e6;
	server_stop(&s);
	CHECK(info && str(info, "unknown") && strstr(str(info, "unknown"), "/v1/models"));
	CHECK(cJSON_GetObjectItemCaseSensitive(info, "models") == NULL);
	/* the budget bounds every probe together: without it the probe would
	 * wait for the silent server forever; the upper bound is loose, for a
	 * busy host, and the lower one says the budget was used, not skipped */
	CHECK(took_ms >= 500 && took_ms < 20000);
	cJSON_Delete(info);
}

TEST(ten_megabytes_are_not_kept)
{
	struct server s;
	cJSON *info;

	CHECK_EQ_INT(server_start(&s, HUGE_BODY), 0);
	info = probe(&s, NULL, 3000);
	server_stop(&s);
	CHECK(info && str(info, "unknown") && strstr(str(info, "unknown"), "answer over"));
	CHECK(cJSON_GetObjectItemCaseSensitive(info, "version") == NULL);
	cJSON_Delete(info);
}

TEST(a_dead_port_is_unknown_at_once)
{
	struct server_info_options o = { "http://127.0.0.1:1", NULL, 0, 0, 2000 };
	cJSON *info = server_info_probe(&o);

	CHECK(info && str(info, "unknown") && strstr(str(info, "unknown"), "GET /v1/models"));
	cJSON_Delete(info);
}

TEST(a_version_answer_keeps_scalars_within_caps)
{
	cJSON *in = cJSON_CreateObject(), *out;
	char name[32], big[1000];
	int i;

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	cJSON_AddStringToObject(in, "long", big);
	/* "Bearer x" becomes "Bearer REDACTED": longer, so cut after it */
	snprintf(big + 230, sizeof(big) - 230, " Bearer x Bearer y");
	cJSON_AddStringToObject(in, "grows", big);
	cJSON_AddStringToObject(in, "Password", "hunter22");
	cJSON_AddStringToObject(in, "max_total_tokens", "16384");
	cJSON_AddItemToObject(in, "list", cJSON_CreateArray());
	cJSON_AddNullToObject(in, "none");
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		cJSON_AddNumberToObject(in, name, i);
	}
	out = server_info_keep(in, NULL);
	CHECK(out != NULL);
	CHECK_EQ_INT(strlen(str(out, "long")), SERVER_INFO_MAX_STRING);
	CHECK_EQ_INT(strlen(str(out, "grows")), SERVER_INFO_MAX_STRING);
	CHECK(strstr(str(out, "grows"), " Bearer REDACTED") != NULL);
	CHECK(!strcmp(str(out, "Password"), "REDACTED"));
	CHECK(!strcmp(str(out, "max_total_tokens"), "16384"));   /* not a credential */
	CHECK(cJSON_GetObjectItemCaseSensitive(out, "list") == NULL);
	CHECK(cJSON_GetObjectItemCaseSensitive(out, "none") == NULL);
	CHECK_EQ_INT(cJSON_GetArraySize(out), SERVER_INFO_MAX_FIELDS);
	cJSON_Delete(in);
	cJSON_Delete(out);
}

TEST(a_model_id_never_carries_the_key)
{
	cJSON *out = cJSON_CreateObject();
	const cJSON *ids;

	CHECK_EQ_INT(server_info_read_models(out, "{\"data\":[{\"id\":\"echo sk-key-4242\"},"
					     "{\"id\":7},{\"max_model_len\":-1}]}", "sk-key-4242"), 1);
	ids = cJSON_GetObjectItemCaseSensitive(out, "models");
	CHECK_EQ_INT(cJSON_GetArraySize(ids), 1);
	CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(ids, 0)), "echo REDACTED"));
	CHECK(cJSON_GetObjectItemCaseSensitive(out, "max_model_len") == NULL);
	CHECK_EQ_INT(server_info_read_models(out, "[1,2]", NULL), 0);
	cJSON_Delete(out);
}

static int arg_is(const char *prev, const char *arg, const char *want)
{
	char *got = provenance_arg(prev, arg);
	int ok = got && !strcmp(got, want);

	if (!ok)
		printf("  provenance_arg(%s, %s) = %s, expected %s\n", prev ? prev : "NULL", arg,
		       got ? got : "NULL", want);
	free(got);
	return ok;
}

TEST(the_command_line_keeps_no_secret)
{
	CHECK(arg_is("-H", "Authorization: Bearer sk-1234", "Authorization: REDACTED"));
	CHECK(arg_is("--header", "X-Api-Token: t0k3n", "X-Api-Token: REDACTED"));
	CHECK(arg_is(NULL, "-HX-Secret: abc", "-HX-Secret: REDACTED"));
	CHECK(arg_is(NULL, "--header=Cookie: s=1", "--header=Cookie: REDACTED"));
	CHECK(arg_is("-H", "User-Agent: bench", "User-Agent: bench"));        /* harmless */
	CHECK(arg_is("-e", "http://user:pw@h:8000/v1?api_key=K9&api-version=2",
		     "http://h:8000/v1?api_key=REDACTED&api-version=2"));
	CHECK(arg_is(NULL, "--endpoint=https://u:p@h/", "--endpoint=https://h/"));
	CHECK(arg_is("-c", "1,2,4", "1,2,4"));
	CHECK(arg_is("--api-key-env", "MY_KEY", "MY_KEY"));   /* a name, not the key */
}

/*
 * -H as getopt reads it, however it is spelled: a long option's
 * unambiguous prefix ("--hea", "--heade=..."), and short options run
 * together before it ("-kH" then the header, "-kHName: value"). Before:
 * each of these kept the key in the results file's command line.
 */
TEST(a_header_however_spelled_keeps_no_secret)
{
	CHECK(arg_is("--hea", "Authorization: Bearer sk-1234", "Authorization: REDACTED"));
	CHECK(arg_is(NULL, "--heade=Authorization: Bearer sk-1234",
		     "--heade=Authorization: REDACTED"));
	CHECK(arg_is("-kH", "Authorization: Bearer sk-1234", "Authorization: REDACTED"));
	CHECK(arg_is("-qkfH", "X-Api-Key: k", "X-Api-Key: REDACTED"));
	CHECK(arg_is(NULL, "-kHAuthorization: Bearer sk-1234", "-kHAuthorization: REDACTED"));
	CHECK(arg_is("-kH", "User-Agent: bench", "User-Agent: bench"));        /* harmless */
	/* no -H in them: as given */
	CHECK(arg_is("-kq", "trace.jsonl.gz", "trace.jsonl.gz"));
	CHECK(arg_is("-He", "x", "x"));        /* "-H" with the value "e" */
	CHECK(arg_is(NULL, "-kf", "-kf"));
	CHECK(arg_is(NULL, "-lHELLO: x", "-lHELLO: x"));   /* the label "HELLO: x" */
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	fixture_models = read_file("tests/fixtures/llama-server/models.json");
	RUN(llama_server_is_recorded_as_it_describes_itself);
	RUN(a_silent_server_is_unknown_within_the_budget);
	RUN(ten_megabytes_are_not_kept);
	RUN(a_dead_port_is_unknown_at_once);
	RUN(a_version_answer_keeps_scalars_within_caps);
	RUN(a_model_id_never_carries_the_key);
	RUN(the_command_line_keeps_no_secret);
	RUN(a_header_however_spelled_keeps_no_secret);
	free((void *)fixture_models);
	return harness_done();
}
