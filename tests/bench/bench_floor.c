/*
 * bench_floor.c - what the machine itself costs a streamed benchmark, for
 * make bench (scripts/bench-client.sh, section 1): the floor under the
 * mock's and replay's figures.
 *
 *   bench_floor stream C EVENTS PERIOD_US BYTES
 *   bench_floor loop C REQUESTS TTFT_US ITL_US EVENTS
 *   bench_floor curl C REQUESTS TTFT_US ITL_US EVENTS [SERVER]
 *   bench_floor wake N
 *
 * Two processes joined by C loopback TCP connections, as the mock and
 * replay are. Neither parses, formats or allocates: what they spend is the
 * kernel's share (the system calls, TCP over loopback, the wake-ups) and
 * the few instructions around it.
 *
 * stream: the writer (this process, the mock's part) sends EVENTS events
 * of BYTES bytes on each connection, one write(2) per event, every
 * PERIOD_US microseconds, the connections' events spread evenly over the
 * period; the reader (a child, replay's part) takes them with epoll and
 * read(2) until every byte is in. Prints "events N writer_cpu_s W
 * reader_cpu_s R": each process's CPU time from its first event to its
 * last.
 *
 * loop: the closed loop of section 1 without HTTP, JSON or libraries. The
 * reader sends a request of the mock's size on each connection at once
 * and, whenever a response ends, the next one on the same connection,
 * REQUESTS in all. The writer answers a request at once with a head, then
 * EVENTS events, the first TTFT_US after the request came in and one every
 * ITL_US after it (each due time from the last, as the mock keeps them),
 * the bytes of the mock's chat stream (head, first event with the role,
 * token events, the last with usage and the end, one write each). The
 * reader takes an event's time when its last byte is in. Prints "requests
 * N events E writer_cpu_s W ttft_error_ms T gap_p99_ms G reader_cpu_s R
 * wall_s S": the median over all requests of TTFT - TTFT_US, the 99th
 * percentile of the gaps between a request's events, each process's CPU
 * time, and the time from the first request to the last event. This
 * is the machine's share of section 1's TTFT error and inter-token gap.
 * The bytes are HTTP: a POST with its Content-Length, a chunked response
 * whose chunks are the events.
 *
 * curl: loop, with libcurl as the reader, used as replay uses it (its
 * multi socket API on a libevent loop through lib/curlev.c, a multi handle
 * for every 64 connections, the connections opened by a round of GETs
 * before the clock starts) and as lean as it goes: one easy handle per
 * connection, re-added for its next request, and a write callback that
 * only counts bytes. Prints what loop prints. The distance from loop is
 * libcurl's share; the distance from here to replay's figures, replay's.
 *
 * wake: how late a thread blocked in epoll wakes, for a timer and for a
 * socket's data (section 14: why the client's own part of replay's bound
 * counts only the loop's part of its probe timer's lateness). One epoll
 * loop waits on a timerfd
 * re-armed 2 ms ahead each time it fires (replay's probe, libevent's
 * precise timer) and on one end of a socket pair, into whose other end a
 * child writes its clock N times, 2 to 4 ms apart. Prints "timer_p50_ms A
 * timer_p99_ms B socket_p50_ms C socket_p99_ms D": the timer's lateness
 * and the data's wait from its write to the loop's wake-up.
 *
 * Exit status 0, 1 on a failure, 2 on a usage error.
 */
#include "lib/curlev.h"
#include "lib/random.h"
#include "lib/stats.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* loop: the bytes of the mock's chat stream and of replay's request, as
 * they go over the wire (strace of one 200-token request). */
enum {
	REQUEST_BYTES = 519,    /* replay's POST: headers and body */
	HEAD_BYTES = 142,       /* the response head */
	FIRST_BYTES = 368,      /* the role and the first token, one chunk */
	EVENT_BYTES = 181,      /* a token */
	LAST_BYTES = 434,       /* the last token, usage, [DONE] and the end */
	INBOX_BYTES = 4096,     /* the writer's room for a request */
};

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Says what failed, with errno's text. */
static void floor_fail(const char *what)
{
	fprintf(stderr, "bench_floor: %s: %s\n", what, errno ? strerror(errno) : "failed");
}

/* Connects c non-blocking sockets to port into fds[], each in epoll ep
 * with its index as data. */
static int connect_all(int port, long c, int ep, int *fds)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct epoll_event ev;
	int one = 1;
	long i;

	for (i = 0; i < c; i++) {
		if ((fds[i] = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
		    connect(fds[i], (struct sockaddr *)&a, sizeof(a)) < 0)
			return -1;
		setsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		fcntl(fds[i], F_SETFL, O_NONBLOCK);
		ev.events = EPOLLIN;
		ev.data.u64 = (uint64_t)i;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev) < 0)
			return -1;
	}
	return 0;
}

/* The two processes: a listening socket, the reader forked off with the
 * write end of a pipe for its one line, the writer's c connections
 * accepted into fds[] (the caller frees it once pair_start succeeded). */
struct pair {
	pid_t reader;
	int line_fd;            /* the read end of the reader's pipe */
	int *fds;
};

typedef int reader_fn(int port, long c, int out_fd, const long *args);

static int pair_start(struct pair *p, long c, reader_fn *fn, const long *args)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int lfd, pipefd[2], one = 1;
	long i;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(lfd, 4096) < 0 || getsockname(lfd, (struct sockaddr *)&a, &alen) < 0 ||
	    pipe(pipefd) < 0) {
		perror("bench_floor");
		return -1;
	}
	p->reader = fork();
	if (p->reader < 0)
		return -1;
	if (p->reader == 0) {
		close(pipefd[0]);
		_exit(fn(ntohs(a.sin_port), c, pipefd[1], args));
	}
	close(pipefd[1]);
	p->line_fd = pipefd[0];
	if (!(p->fds = calloc((size_t)c, sizeof(*p->fds))))
		return -1;
	for (i = 0; i < c; i++) {
		if ((p->fds[i] = accept(lfd, NULL, NULL)) < 0) {
			perror("bench_floor: accept");
			free(p->fds);
			return -1;
		}
		setsockopt(p->fds[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	close(lfd);
	return 0;
}

/* Waits for the reader; its line into line[cap]. */
static int pair_finish(struct pair *p, char *line, size_t cap)
{
	ssize_t n = read(p->line_fd, line, cap - 1);
	int status;

	if (waitpid(p->reader, &status, 0) != p->reader || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || n <= 0) {
		fprintf(stderr, "bench_floor: the reader failed\n");
		return -1;
	}
	line[n] = '\0';
	return 0;
}

/* stream's reader: reads args[0] bytes from its c connections. */
static int stream_reader(int port, long c, int out_fd, const long *args)
{
	struct epoll_event evs[256];
	static char buf[65536];
	long long got = 0, total = args[0];
	double cpu0 = -1;
	int ep = epoll_create1(0), *fds = calloc((size_t)c, sizeof(int)), rc = 1;

	if (ep < 0 || !fds || connect_all(port, c, ep, fds) < 0)
		goto cleanup;
	while (got < total) {
		int n = epoll_wait(ep, evs, 256, 10000), k;

		if (n <= 0)
			goto cleanup;   /* ten seconds without a byte: the writer is gone */
		if (cpu0 < 0)
			cpu0 = cpu_now();
		for (k = 0; k < n; k++) {
			ssize_t r;

			while ((r = read(fds[evs[k].data.u64], buf, sizeof(buf))) > 0)
				got += r;
			if (r == 0)
				goto cleanup;
		}
	}
	dprintf(out_fd, "%.6f\n", cpu_now() - cpu0);
	rc = 0;
cleanup:
	free(fds);
	return rc;
}

static int stream_main(long c, long events, long period_us, long bytes)
{
	long total = c * events * bytes, i, r;
	struct pair p;
	char *event = NULL, line[64];
	int rc = 1;
	double cpu0, writer_cpu;
	long long t0;

	if (pair_start(&p, c, stream_reader, &total) < 0)
		return 1;
	if (!(event = malloc((size_t)bytes)))
		goto cleanup;
	memset(event, 'x', (size_t)bytes);
	/* Event r of connection i is due at t0 + r * period + i * period / c. */
	t0 = mono_ns() + 1000000;
	cpu0 = -1;
	for (r = 0; r < events; r++) {
		for (i = 0; i < c; i++) {
			long long due = t0 + (r * period_us + i * period_us / c) * 1000LL;
			long long wait = due - mono_ns();

			if (wait > 50000) {     /* else now: a sleep would cost more */
				struct timespec ts = { (time_t)(due / 1000000000LL),
						       (long)(due % 1000000000LL) };

				clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			}
			if (cpu0 < 0)
				cpu0 = cpu_now();
			if (write(p.fds[i], event, (size_t)bytes) != bytes) {
				perror("bench_floor: write");
				goto cleanup;
			}
		}
	}
	writer_cpu = cpu_now() - cpu0;
	if (pair_finish(&p, line, sizeof(line)) < 0)
		goto cleanup;
	printf("events %ld writer_cpu_s %.6f reader_cpu_s %s", c * events, writer_cpu, line);
	rc = 0;
cleanup:
	free(event);
	free(p.fds);
	return rc;
}

/* loop: the size of event k of a stream of n. */
static long loop_event_bytes(long k, long n)
{
	return k == n - 1 ? LAST_BYTES : k == 0 ? FIRST_BYTES : EVENT_BYTES;
}

/*
 * loop's bytes on the wire, HTTP/1.1 as the mock and replay send it: the
 * request (a POST of REQUEST_BYTES with its body), the head of a chunked
 * response, and an event, one chunk of 'bytes' in all ("b2\r\ndata:
 * {...}\n\n\r\n"), the last followed by the terminating chunk. The
 * answer to a GET (the curl reader's warm-up) is empty.
 */
static const char TERMINATOR[] = "0\r\n\r\n";
static const char WARM_ANSWER[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";

/* An event chunk: its bytes without the terminator, the digits of its
 * size, and its payload, what libcurl hands over once it took the chunk's
 * framing (size, CRLF, CRLF) off. */
static long event_chunk_bytes(long k, long n)
{
	return loop_event_bytes(k, n) - (k == n - 1 ? (long)strlen(TERMINATOR) : 0);
}

static int event_hex_digits(long k, long n)
{
	return event_chunk_bytes(k, n) - 6 <= 0xff ? 2 : 3;
}

static long event_payload(long k, long n)
{
	return event_chunk_bytes(k, n) - 4 - event_hex_digits(k, n);
}

static void fill_event(char *dst, long k, long n)
{
	long p = event_payload(k, n);
	int h = sprintf(dst, "%0*lx\r\ndata: {", event_hex_digits(k, n), (unsigned long)p);

	memset(dst + h, 'x', (size_t)(p - 10));
	memcpy(dst + h + p - 10, "}\n\n\r\n", 6);      /* dst has room for the NUL */
	if (k == n - 1)
		memcpy(dst + h + p - 10 + 5, TERMINATOR, sizeof(TERMINATOR));
}

static void fill_head(char *dst)
{
	static const char start[] = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
				    "Transfer-Encoding: chunked\r\nX-Pad: ";
	size_t pad = HEAD_BYTES - (sizeof(start) - 1) - 4;

	memcpy(dst, start, sizeof(start) - 1);
	memset(dst + sizeof(start) - 1, 'x', pad);
	memcpy(dst + sizeof(start) - 1 + pad, "\r\n\r\n", 5);   /* dst has room for the NUL */
}

static void fill_request(char *dst)
{
	static const char start[] = "POST / HTTP/1.1\r\nHost: f\r\nContent-Length: ";
	int h = (int)sizeof(start) - 1 + 3 + 4;     /* a 3-digit length, CRLF CRLF */
	int body = REQUEST_BYTES - h;

	sprintf(dst, "%s%d\r\n\r\n", start, body);
	memset(dst + h, 'x', (size_t)body);
}

/* The first 'needle' in buf[len], or NULL. */
static const char *find(const char *buf, size_t len, const char *needle)
{
	size_t n = strlen(needle), i;

	for (i = 0; i + n <= len; i++)
		if (buf[i] == needle[0] && memcmp(buf + i, needle, n) == 0)
			return buf + i;
	return NULL;
}

/* The length of the request at the start of buf[len] (headers and body),
 * its body's in *body; 0 while it is not all in, -1 when it is not one. */
static long request_length(const char *buf, size_t len, long *body)
{
	const char *end = find(buf, len, "\r\n\r\n"), *cl;

	if (!end)
		return len < INBOX_BYTES ? 0 : -1;
	*body = 0;
	cl = find(buf, (size_t)(end - buf), "Content-Length: ");
	if (cl)
		*body = strtol(cl + 16, NULL, 10);
	if (*body < 0 || (end + 4 - buf) + *body > INBOX_BYTES)
		return -1;
	return (size_t)(end + 4 - buf) + (size_t)*body <= len ? end + 4 - buf + *body : 0;
}

/* A loop reader's line: the median TTFT error and the P99 gap (both
 * arrays sorted here), its CPU since cpu0 and the time since t0. */
static void report_loop(int out_fd, double *ttft, size_t n, double *gaps, size_t ngaps,
			double cpu0, long long t0)
{
	stats_sort(ttft, n);
	stats_sort(gaps, ngaps);
	dprintf(out_fd, "ttft_error_ms %.3f gap_p99_ms %.3f reader_cpu_s %.6f wall_s %.6f\n",
		stats_percentile(ttft, n, 50), ngaps ? stats_percentile(gaps, ngaps, 99) : 0.0,
		cpu_now() - cpu0, (double)(mono_ns() - t0) / 1e9);
}

/* loop's reader: args = { requests, ttft_us, events }. Sends the requests,
 * a connection's next when its response is whole, and times the events. */
static int loop_reader(int port, long c, int out_fd, const long *args)
{
	long requests = args[0], events = args[2], issued = 0, done = 0, ngaps = 0, i, k;
	long long ttft_ns = args[1] * 1000LL, *sent_at, *last_at, *ends, total, t0;
	long *got, *next, *id;
	double *ttft, *gaps, cpu0;
	static char buf[65536], request[REQUEST_BYTES + 1];
	struct epoll_event evs[256];
	int ep = epoll_create1(0), *fds, rc = 1;
	const char *what = NULL;

	fds = calloc((size_t)c, sizeof(*fds));
	sent_at = calloc((size_t)c, sizeof(*sent_at));
	last_at = calloc((size_t)c, sizeof(*last_at));
	got = calloc((size_t)c, sizeof(*got));
	next = calloc((size_t)c, sizeof(*next));
	id = calloc((size_t)c, sizeof(*id));
	ends = calloc((size_t)events, sizeof(*ends));
	ttft = calloc((size_t)requests, sizeof(*ttft));
	gaps = calloc((size_t)(requests * events), sizeof(*gaps));
	if (ep < 0 || !fds || !sent_at || !last_at || !got || !next || !id || !ends ||
	    !ttft || !gaps || connect_all(port, c, ep, fds) < 0) {
		what = "reader: set-up";
		goto cleanup;
	}
	for (k = 0, total = HEAD_BYTES; k < events; k++)
		ends[k] = total += loop_event_bytes(k, events);
	fill_request(request);
	cpu0 = cpu_now();
	t0 = mono_ns();
	for (i = 0; i < c && issued < requests; i++) {
		id[i] = issued++;
		sent_at[i] = mono_ns();
		if (write(fds[i], request, sizeof(request)) != (ssize_t)sizeof(request)) {
			what = "reader: write";
			goto cleanup;
		}
	}
	while (done < requests) {
		int n = epoll_wait(ep, evs, 256, 10000);

		if (n <= 0) {   /* ten seconds without a byte: the writer is gone */
			what = "reader: epoll_wait";
			goto cleanup;
		}
		for (k = 0; k < n; k++) {
			ssize_t r;

			i = (long)evs[k].data.u64;
			while ((r = read(fds[i], buf, sizeof(buf))) > 0) {
				long long now = mono_ns();

				got[i] += r;
				for (; next[i] < events && got[i] >= ends[next[i]]; next[i]++) {
					if (next[i] == 0)
						ttft[id[i]] = (double)(now - sent_at[i] - ttft_ns) / 1e6;
					else
						gaps[ngaps++] = (double)(now - last_at[i]) / 1e6;
					last_at[i] = now;
				}
				if (got[i] > total) {
					what = "reader: more bytes than a response";
					goto cleanup;
				}
				if (got[i] < total)
					continue;
				done++;
				got[i] = next[i] = 0;
				if (issued < requests) {
					id[i] = issued++;
					sent_at[i] = mono_ns();
					if (write(fds[i], request, REQUEST_BYTES) != REQUEST_BYTES) {
						what = "reader: write";
						goto cleanup;
					}
				}
			}
			if (r == 0 || errno != EAGAIN) {
				what = "reader: read";
				goto cleanup;
			}
		}
	}
	report_loop(out_fd, ttft, (size_t)requests, gaps, (size_t)ngaps, cpu0, t0);
	rc = 0;
cleanup:
	if (what)
		floor_fail(what);
	free(fds);
	free(sent_at);
	free(last_at);
	free(got);
	free(next);
	free(id);
	free(ends);
	free(ttft);
	free(gaps);
	return rc;
}

/*
 * curl's reader: loop's reader with libcurl. A slot is one connection's
 * easy handle; slot i runs on shard i % n_shards, as replay spreads its
 * connections over multi handles of at most 64.
 */
enum { CONNECTIONS_PER_SHARD = 64 };

struct curl_reader;

struct slot {
	struct curl_reader *cr;
	CURL *easy;
	CURLM *multi;
	long id;                /* the request it runs, -1 the warm-up's GET */
	long events;            /* its events whole so far */
	int newline;            /* the last byte in was a newline */
	long long sent_at, last_at;
};

struct curl_reader {
	struct event_base *base;
	struct slot *slots;
	long c, requests, events, issued, done, warm, ngaps;
	long long ttft_ns, t0;
	double *ttft, *gaps, cpu0;
	char url[256];
	struct curl_slist *headers;
	char body[REQUEST_BYTES - 160];   /* about replay's request, with libcurl's head */
	const char *what;       /* why it stopped early */
};

/* The server to run against instead of loop's writer (curl's last
 * argument), or NULL. */
static const char *curl_server;

/* libcurl: payload bytes. An event is whole at its blank line (SSE's
 * "\n\n"); a read that completes one or more is timed as one. */
/* cppcheck-suppress constParameter ; libcurl's type */
static size_t on_curl_data(char *ptr, size_t size, size_t nmemb, void *userp)
{
	struct slot *s = userp;
	struct curl_reader *cr = s->cr;
	size_t len = size * nmemb, i;
	long whole = 0;
	long long now;

	if (s->id < 0)
		return len;
	for (i = 0; i < len; i++) {
		if (ptr[i] == '\n')
			whole += s->newline;
		s->newline = ptr[i] == '\n';
	}
	if (whole == 0)
		return len;
	now = mono_ns();
	if (s->events == 0)
		cr->ttft[s->id] = (double)(now - s->sent_at - cr->ttft_ns) / 1e6;
	else if (cr->ngaps < cr->requests * cr->events)
		cr->gaps[cr->ngaps++] = (double)(now - s->last_at) / 1e6;
	s->events += whole;
	s->last_at = now;
	return len;
}

static int curl_send(struct slot *s)
{
	struct curl_reader *cr = s->cr;

	s->id = cr->issued++;
	s->events = 0;
	s->newline = 0;
	curl_easy_setopt(s->easy, CURLOPT_URL, cr->url);
	curl_easy_setopt(s->easy, CURLOPT_HTTPHEADER, cr->headers);
	curl_easy_setopt(s->easy, CURLOPT_POSTFIELDS, cr->body);
	curl_easy_setopt(s->easy, CURLOPT_POSTFIELDSIZE, (long)sizeof(cr->body));
	s->sent_at = mono_ns();
	return curl_multi_add_handle(s->multi, s->easy) == CURLM_OK ? 0 : -1;
}

/* lib/curlev: slot priv's transfer ended. */
static void on_curl_done(void *priv, CURLcode code)
{
	struct slot *s = priv;
	struct curl_reader *cr = s->cr;
	long i;

	curl_multi_remove_handle(s->multi, s->easy);
	/* loop's writer sends the events asked for; a server at least one */
	if (code != CURLE_OK ||
	    (s->id >= 0 && (curl_server ? s->events < 1 : s->events != cr->events))) {
		cr->what = code != CURLE_OK ? curl_easy_strerror(code) : "reader: a response cut short";
		event_base_loopbreak(cr->base);
		return;
	}
	if (s->id < 0) {
		if (--cr->warm > 0)
			return;
		cr->cpu0 = cpu_now();   /* every connection is open: the clock starts */
		cr->t0 = mono_ns();
		for (i = 0; i < cr->c && cr->issued < cr->requests; i++)
			if (curl_send(&cr->slots[i]) < 0)
				cr->what = "reader: curl_multi_add_handle";
	} else if (++cr->done < cr->requests && cr->issued < cr->requests) {
		if (curl_send(s) < 0)
			cr->what = "reader: curl_multi_add_handle";
	}
	if (cr->what || cr->done == cr->requests)
		event_base_loopbreak(cr->base);
}

static int curl_reader(int port, long c, int out_fd, const long *args)
{
	struct curl_reader cr = { .c = c, .requests = args[0], .ttft_ns = args[1] * 1000LL,
				  .events = args[2], .warm = c };
	long n_shards = (c + CONNECTIONS_PER_SHARD - 1) / CONNECTIONS_PER_SHARD, i;
	struct curlev **shards = calloc((size_t)n_shards, sizeof(struct curlev *));
	struct event_config *cfg = event_config_new();
	char models[256];
	int rc = 1, n;

	if (curl_server) {
		snprintf(models, sizeof(models), "%s/v1/models", curl_server);
		snprintf(cr.url, sizeof(cr.url), "%s/v1/chat/completions", curl_server);
	} else {
		snprintf(models, sizeof(models), "http://127.0.0.1:%d/v1/models", port);
		snprintf(cr.url, sizeof(cr.url), "http://127.0.0.1:%d/v1/chat/completions", port);
	}
	n = snprintf(cr.body, sizeof(cr.body),
		     "{\"model\":\"mock\",\"stream\":true,\"max_tokens\":%ld,"
		     "\"stream_options\":{\"include_usage\":true},"
		     "\"messages\":[{\"role\":\"user\",\"content\":\"", cr.events);
	memset(cr.body + n, 'x', sizeof(cr.body) - (size_t)n - 4);
	memcpy(cr.body + sizeof(cr.body) - 4, "\"}]}", 4);
	if (cfg)
		event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
	cr.base = cfg ? event_base_new_with_config(cfg) : NULL;
	cr.slots = calloc((size_t)c, sizeof(*cr.slots));
	cr.ttft = calloc((size_t)cr.requests, sizeof(*cr.ttft));
	cr.gaps = calloc((size_t)(cr.requests * cr.events), sizeof(*cr.gaps));
	cr.headers = curl_slist_append(NULL, "Content-Type: application/json");
	if (!shards || !cr.base || !cr.slots || !cr.ttft || !cr.gaps || !cr.headers ||
	    curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		cr.what = "reader: set-up";
		goto cleanup;
	}
	for (i = 0; i < n_shards; i++) {
		if (!(shards[i] = curlev_new(cr.base, on_curl_done))) {
			cr.what = "reader: curlev_new";
			goto cleanup;
		}
		curl_multi_setopt(curlev_multi(shards[i]), CURLMOPT_MAXCONNECTS,
				  (long)CONNECTIONS_PER_SHARD + 8);
	}
	/* The warm-up: a GET on every slot at once opens c connections. */
	for (i = 0; i < c; i++) {
		struct slot *s = &cr.slots[i];

		s->cr = &cr;
		s->id = -1;
		s->multi = curlev_multi(shards[i % n_shards]);
		if (!(s->easy = curl_easy_init())) {
			cr.what = "reader: curl_easy_init";
			goto cleanup;
		}
		curl_easy_setopt(s->easy, CURLOPT_URL, models);
		curl_easy_setopt(s->easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
		curl_easy_setopt(s->easy, CURLOPT_WRITEFUNCTION, on_curl_data);
		curl_easy_setopt(s->easy, CURLOPT_WRITEDATA, s);
		curl_easy_setopt(s->easy, CURLOPT_PRIVATE, s);
		curl_easy_setopt(s->easy, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(s->easy, CURLOPT_TCP_NODELAY, 1L);
		curl_easy_setopt(s->easy, CURLOPT_ACCEPT_ENCODING, "");
		if (curl_multi_add_handle(s->multi, s->easy) != CURLM_OK) {
			cr.what = "reader: curl_multi_add_handle";
			goto cleanup;
		}
	}
	event_base_dispatch(cr.base);
	if (cr.what || cr.done < cr.requests) {
		cr.what = cr.what ? cr.what : "reader: the loop ended early";
		goto cleanup;
	}
	report_loop(out_fd, cr.ttft, (size_t)cr.requests, cr.gaps, (size_t)cr.ngaps, cr.cpu0, cr.t0);
	rc = 0;
cleanup:
	if (cr.what)
		floor_fail(cr.what);
	for (i = 0; cr.slots && i < c; i++) {
		if (cr.slots[i].easy) {
			curl_multi_remove_handle(cr.slots[i].multi, cr.slots[i].easy);
			curl_easy_cleanup(cr.slots[i].easy);
		}
	}
	for (i = 0; shards && i < n_shards; i++)
		curlev_free(shards[i]);
	if (cr.base)
		event_base_free(cr.base);
	event_config_free(cfg);
	curl_slist_free_all(cr.headers);
	free(shards);
	free(cr.slots);
	free(cr.ttft);
	free(cr.gaps);
	curl_global_cleanup();
	return rc;
}

/* loop's writer: a min-heap of the streams' next due times. */
struct due {
	long long at;
	long conn;
};

static void heap_push(struct due *h, long *n, struct due d)
{
	long i = (*n)++;

	for (; i > 0 && h[(i - 1) / 2].at > d.at; i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = d;
}

static struct due heap_pop(struct due *h, long *n)
{
	struct due top = h[0], last = h[--*n];
	long i = 0, child;

	while ((child = 2 * i + 1) < *n) {
		if (child + 1 < *n && h[child + 1].at < h[child].at)
			child++;
		if (last.at <= h[child].at)
			break;
		h[i] = h[child];
		i = child;
	}
	h[i] = last;
	return top;
}

/* A connection's bytes of requests not yet answered. */
struct inbox {
	char buf[INBOX_BYTES];
	size_t len;
};

/* The event chunks a stream of n sends: 0 the first, 1 a token, 2 the last. */
static int event_kind(long k, long n)
{
	return k == n - 1 ? 2 : k == 0 ? 0 : 1;
}

/* loop's writer: answers the requests on its c connections, the due
 * events timed by a timerfd in the epoll set, as libevent's precise timer
 * (the mock's) does; 'reader' is the other side. */
static int loop_main(reader_fn *reader, long c, long requests, long ttft_us, long itl_us,
		     long events)
{
	long args[3] = { requests, ttft_us, events }, *sent, nheap = 0, done = 0, i, k;
	static char head[HEAD_BYTES + 1], chunk[3][LAST_BYTES + 1];
	struct epoll_event ev, evs[256];
	long long armed = -1;
	struct inbox *in;
	struct due *heap;
	struct pair p;
	char line[128];
	double cpu0 = -1, writer_cpu;
	int ep, tfd, rc = 1;

	if (pair_start(&p, c, reader, args) < 0)
		return 1;
	in = calloc((size_t)c, sizeof(*in));
	sent = calloc((size_t)c, sizeof(*sent));
	heap = calloc((size_t)c, sizeof(*heap));
	ep = epoll_create1(0);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	if (ep < 0 || tfd < 0 || !in || !sent || !heap)
		goto cleanup;
	ev.events = EPOLLIN;
	ev.data.u64 = UINT64_MAX;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev) < 0)
		goto cleanup;
	for (i = 0; i < c; i++) {
		fcntl(p.fds[i], F_SETFL, O_NONBLOCK);
		ev.data.u64 = (uint64_t)i;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, p.fds[i], &ev) < 0)
			goto cleanup;
	}
	fill_head(head);
	for (k = 0; k < events; k++)
		fill_event(chunk[event_kind(k, events)], k, events);
	while (done < requests) {
		long long now = mono_ns();
		int n;

		while (nheap && heap[0].at <= now) {
			struct due d = heap_pop(heap, &nheap);
			long bytes = loop_event_bytes(sent[d.conn], events);

			if (write(p.fds[d.conn], chunk[event_kind(sent[d.conn]++, events)],
				  (size_t)bytes) != bytes) {
				perror("bench_floor: write");
				goto cleanup;
			}
			if (sent[d.conn] < events) {
				d.at += itl_us * 1000LL;
				heap_push(heap, &nheap, d);
			} else {
				done++;
			}
			now = mono_ns();
		}
		if (done == requests)
			break;
		if (nheap && heap[0].at != armed) {
			struct itimerspec it = { .it_value = {
				(time_t)(heap[0].at / 1000000000LL), (long)(heap[0].at % 1000000000LL) } };

			if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &it, NULL) < 0)
				goto cleanup;
			armed = heap[0].at;
		}
		n = epoll_wait(ep, evs, 256, nheap ? -1 : 10000);
		if (n < 0 && errno != EINTR)
			goto cleanup;
		if (n == 0)
			goto cleanup;       /* ten seconds without a request: the reader is gone */
		for (k = 0; k < n; k++) {
			uint64_t expirations;
			struct inbox *b;
			long len, body;
			ssize_t r;

			if (evs[k].data.u64 == UINT64_MAX) {
				if (read(tfd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
					goto cleanup;
				continue;
			}
			i = (long)evs[k].data.u64;
			b = &in[i];
			while ((r = read(p.fds[i], b->buf + b->len, sizeof(b->buf) - b->len)) > 0) {
				b->len += (size_t)r;
				while ((len = request_length(b->buf, b->len, &body)) > 0) {
					if (body == 0) {        /* a GET: the reader's warm-up */
						if (write(p.fds[i], WARM_ANSWER, strlen(WARM_ANSWER)) < 0)
							goto cleanup;
					} else {
						if (cpu0 < 0)
							cpu0 = cpu_now();
						if (nheap == c ||
						    write(p.fds[i], head, HEAD_BYTES) != HEAD_BYTES)
							goto cleanup;
						sent[i] = 0;
						heap_push(heap, &nheap,
							  (struct due){ mono_ns() + ttft_us * 1000LL, i });
					}
					b->len -= (size_t)len;
					memmove(b->buf, b->buf + len, b->len);
				}
				if (len < 0) {
					fprintf(stderr, "bench_floor: not a request\n");
					goto cleanup;
				}
			}
			if (r == 0 || errno != EAGAIN)
				goto cleanup;
		}
	}
	writer_cpu = cpu_now() - cpu0;
	if (pair_finish(&p, line, sizeof(line)) < 0)
		goto cleanup;
	printf("requests %ld events %ld writer_cpu_s %.6f %s", requests, requests * events,
	       writer_cpu, line);
	rc = 0;
cleanup:
	free(in);
	free(sent);
	free(heap);
	free(p.fds);
	return rc;
}

/* The child of wake: n stamps of its clock into fd, 2 to 4 ms apart. */
static int wake_writer(int fd, long n)
{
	struct rng r;
	long i;

	rng_init(&r, 1);
	for (i = 0; i < n; i++) {
		struct timespec pause;
		long long now;

		pause.tv_sec = 0;
		pause.tv_nsec = 2000000 + (long)rng_below(&r, 2000000);
		while (nanosleep(&pause, &pause) < 0 && errno == EINTR)
			;
		now = mono_ns();
		if (write(fd, &now, sizeof(now)) != (ssize_t)sizeof(now))
			return 1;
	}
	return 0;
}

/* Arms the timerfd tfd to fire at 'at' (CLOCK_MONOTONIC, ns). */
static int wake_arm(int tfd, long long at)
{
	struct itimerspec its = { { 0, 0 }, { (time_t)(at / 1000000000LL), (long)(at % 1000000000LL) } };

	return timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static int wake_main(long n)
{
	double *timer = malloc((size_t)n * 4 * sizeof(double));
	double *sock = malloc((size_t)n * sizeof(double));
	int sv[2] = { -1, -1 }, ep = -1, tfd = -1, rc = 1, status;
	size_t nt = 0, ns = 0;
	long long due;
	pid_t child = -1;

	if (!timer || !sock || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
		floor_fail("wake");
		goto out;
	}
	child = fork();
	if (child == 0) {
		close(sv[0]);
		_exit(wake_writer(sv[1], n));
	}
	ep = epoll_create1(0);
	tfd = timerfd_create(CLOCK_MONOTONIC, 0);
	due = mono_ns() + 2000000;
	if (child < 0 || ep < 0 || tfd < 0 || wake_arm(tfd, due) < 0) {
		floor_fail("wake");
		goto out;
	}
	{
		struct epoll_event a = { .events = EPOLLIN, .data.fd = sv[0] };
		struct epoll_event b = { .events = EPOLLIN, .data.fd = tfd };

		if (epoll_ctl(ep, EPOLL_CTL_ADD, sv[0], &a) < 0 ||
		    epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &b) < 0) {
			floor_fail("epoll_ctl");
			goto out;
		}
	}
	while (ns < (size_t)n) {
		struct epoll_event ev[2];
		int k = epoll_wait(ep, ev, 2, 1000), i;
		long long now = mono_ns();

		if (k <= 0) {
			if (k < 0 && errno == EINTR)
				continue;
			floor_fail("epoll_wait");
			goto out;
		}
		for (i = 0; i < k; i++) {
			if (ev[i].data.fd == tfd) {
				unsigned long long fired;

				if (read(tfd, &fired, sizeof(fired)) > 0 && nt < (size_t)n * 4)
					timer[nt++] = (double)(now - due) / 1e6;
				due = now + 2000000;
				if (wake_arm(tfd, due) < 0) {
					floor_fail("timerfd_settime");
					goto out;
				}
			} else {
				long long sent;

				if (read(sv[0], &sent, sizeof(sent)) != (ssize_t)sizeof(sent)) {
					floor_fail("read");
					goto out;
				}
				sock[ns++] = (double)(now - sent) / 1e6;
			}
		}
	}
	stats_sort(timer, nt);
	stats_sort(sock, ns);
	printf("timer_p50_ms %.3f timer_p99_ms %.3f socket_p50_ms %.3f socket_p99_ms %.3f\n",
	       stats_percentile(timer, nt, 50), stats_percentile(timer, nt, 99),
	       stats_percentile(sock, ns, 50), stats_percentile(sock, ns, 99));
	rc = 0;
out:
	if (child > 0 && waitpid(child, &status, 0) == child && (!WIFEXITED(status) || WEXITSTATUS(status)))
		rc = 1;
	if (tfd >= 0)
		close(tfd);
	if (ep >= 0)
		close(ep);
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	free(timer);
	free(sock);
	return rc;
}

int main(int argc, char **argv)
{
	long c, a, b, d, e;

	if (argc == 3 && strcmp(argv[1], "wake") == 0 && !parse_long(argv[2], 1, 1000000, &a))
		return wake_main(a);

	if (argc == 6 && strcmp(argv[1], "stream") == 0 && !parse_long(argv[2], 1, 20000, &c) &&
	    !parse_long(argv[3], 1, 1000000, &a) && !parse_long(argv[4], 1, 10000000, &b) &&
	    !parse_long(argv[5], 1, 65536, &d))
		return stream_main(c, a, b, d);
	if (argc == 8 && strcmp(argv[1], "curl") == 0 && !parse_long(argv[2], 1, 20000, &c) &&
	    !parse_long(argv[3], 1, 1000000, &a) && !parse_long(argv[4], 0, 10000000, &b) &&
	    !parse_long(argv[5], 0, 10000000, &d) && !parse_long(argv[6], 1, 100000, &e)) {
		long args[3] = { a, b, e };

		curl_server = argv[7];
		printf("requests %ld events %ld ", a, a * e);
		fflush(stdout);
		return curl_reader(0, c, STDOUT_FILENO, args);
	}
	if (argc == 7 && (strcmp(argv[1], "loop") == 0 || strcmp(argv[1], "curl") == 0) &&
	    !parse_long(argv[2], 1, 20000, &c) &&
	    !parse_long(argv[3], 1, 1000000, &a) && !parse_long(argv[4], 0, 10000000, &b) &&
	    !parse_long(argv[5], 0, 10000000, &d) && !parse_long(argv[6], 1, 100000, &e))
		return loop_main(strcmp(argv[1], "loop") == 0 ? loop_reader : curl_reader,
				 c, a, b, d, e);
	fprintf(stderr, "usage: bench_floor stream C EVENTS PERIOD_US BYTES\n"
			"       bench_floor loop C REQUESTS TTFT_US ITL_US EVENTS\n"
			"       bench_floor curl C REQUESTS TTFT_US ITL_US EVENTS [SERVER]\n"
			"       bench_floor wake N\n");
	return 2;
}
