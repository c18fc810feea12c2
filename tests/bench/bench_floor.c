/*
 * bench_floor.c - what the machine itself costs a streamed benchmark, for
 * make bench (scripts/bench-client.sh, section 1): the floor under the
 * mock's and replay's figures.
 *
 *   bench_floor stream C EVENTS PERIOD_US BYTES
 *   bench_floor loop C REQUESTS TTFT_US ITL_US EVENTS
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
 * N events E ttft_error_ms T gap_p99_ms G writer_cpu_s W reader_cpu_s R":
 * the median over all requests of TTFT - TTFT_US, the 99th percentile of
 * the gaps between a request's events, and each process's CPU time. This
 * is the machine's share of section 1's TTFT error and inter-token gap.
 *
 * Exit status 0, 1 on a failure, 2 on a usage error.
 */
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

/* loop's reader: args = { requests, ttft_us, events }. Sends the requests,
 * a connection's next when its response is whole, and times the events. */
static int loop_reader(int port, long c, int out_fd, const long *args)
{
	long requests = args[0], events = args[2], issued = 0, done = 0, ngaps = 0, i, k;
	long long ttft_ns = args[1] * 1000LL, *sent_at, *last_at, *ends, total;
	long *got, *next, *id;
	double *ttft, *gaps, cpu0;
	static char buf[65536], request[REQUEST_BYTES];
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
	memset(request, 'x', sizeof(request));
	cpu0 = cpu_now();
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
					if (write(fds[i], request, sizeof(request)) !=
					    (ssize_t)sizeof(request)) {
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
	stats_sort(ttft, (size_t)requests);
	stats_sort(gaps, (size_t)ngaps);
	dprintf(out_fd, "ttft_error_ms %.3f gap_p99_ms %.3f reader_cpu_s %.6f\n",
		stats_percentile(ttft, (size_t)requests, 50),
		ngaps ? stats_percentile(gaps, (size_t)ngaps, 99) : 0.0, cpu_now() - cpu0);
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

/* loop's writer: answers the requests on its c connections, the due
 * events timed by a timerfd in the epoll set, as libevent's precise timer
 * (the mock's) does. */
static int loop_main(long c, long requests, long ttft_us, long itl_us, long events)
{
	long args[3] = { requests, ttft_us, events }, *got, *sent, nheap = 0, done = 0, i;
	static char buf[65536], out[LAST_BYTES];
	struct epoll_event ev, evs[256];
	long long armed = -1;
	struct due *heap;
	struct pair p;
	char line[128];
	double cpu0 = -1, writer_cpu;
	int ep, tfd, rc = 1;

	if (pair_start(&p, c, loop_reader, args) < 0)
		return 1;
	got = calloc((size_t)c, sizeof(*got));
	sent = calloc((size_t)c, sizeof(*sent));
	heap = calloc((size_t)c, sizeof(*heap));
	ep = epoll_create1(0);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	if (ep < 0 || tfd < 0 || !got || !sent || !heap)
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
	memset(out, 'x', sizeof(out));
	while (done < requests) {
		long long now = mono_ns();
		int n, k;

		while (nheap && heap[0].at <= now) {
			struct due d = heap_pop(heap, &nheap);
			long bytes = loop_event_bytes(sent[d.conn]++, events);

			if (write(p.fds[d.conn], out, (size_t)bytes) != bytes) {
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
			ssize_t r;

			if (evs[k].data.u64 == UINT64_MAX) {
				if (read(tfd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
					goto cleanup;
				continue;
			}
			i = (long)evs[k].data.u64;
			while ((r = read(p.fds[i], buf, sizeof(buf))) > 0) {
				if (cpu0 < 0)
					cpu0 = cpu_now();
				for (got[i] += r; got[i] >= REQUEST_BYTES; got[i] -= REQUEST_BYTES) {
					if (nheap == c || write(p.fds[i], out, HEAD_BYTES) != HEAD_BYTES)
						goto cleanup;
					sent[i] = 0;
					heap_push(heap, &nheap, (struct due){ mono_ns() + ttft_us * 1000LL, i });
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
	free(got);
	free(sent);
	free(heap);
	free(p.fds);
	return rc;
}

int main(int argc, char **argv)
{
	long c, a, b, d, e;

	if (argc == 6 && strcmp(argv[1], "stream") == 0 && !parse_long(argv[2], 1, 20000, &c) &&
	    !parse_long(argv[3], 1, 1000000, &a) && !parse_long(argv[4], 1, 10000000, &b) &&
	    !parse_long(argv[5], 1, 65536, &d))
		return stream_main(c, a, b, d);
	if (argc == 7 && strcmp(argv[1], "loop") == 0 && !parse_long(argv[2], 1, 20000, &c) &&
	    !parse_long(argv[3], 1, 1000000, &a) && !parse_long(argv[4], 0, 10000000, &b) &&
	    !parse_long(argv[5], 0, 10000000, &d) && !parse_long(argv[6], 1, 100000, &e))
		return loop_main(c, a, b, d, e);
	fprintf(stderr, "usage: bench_floor stream C EVENTS PERIOD_US BYTES\n"
			"       bench_floor loop C REQUESTS TTFT_US ITL_US EVENTS\n");
	return 2;
}
