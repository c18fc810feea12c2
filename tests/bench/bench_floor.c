/*
 * bench_floor.c - what one streamed event costs the machine itself, for
 * make bench (scripts/bench-client.sh, section 1): the floor under the
 * mock's and replay's CPU per event.
 *
 *   bench_floor C EVENTS PERIOD_US BYTES
 *
 * Two processes joined by C loopback TCP connections, as the mock and
 * replay are. The writer (this process, the mock's part) sends EVENTS
 * events of BYTES bytes on each connection, one write(2) per event, every
 * PERIOD_US microseconds, the connections' events spread evenly over the
 * period; the reader (a child, replay's part) takes them with epoll and
 * read(2) until every byte is in. Neither parses, formats or allocates:
 * what they spend is the kernel's share of an event (the system calls,
 * TCP over loopback, the wake-ups) and the few instructions around it.
 *
 * Prints "events N writer_cpu_s W reader_cpu_s R": each process's CPU
 * time from its first event to its last. Exit status 0, 1 on a failure,
 * 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* The reader: connects c sockets to port, then reads total bytes. */
static int reader(int port, long c, long long total, int out_fd)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct epoll_event ev, evs[256];
	static char buf[65536];
	long long got = 0;
	double cpu0 = -1;
	int ep = epoll_create1(0), one = 1;
	long i;

	if (ep < 0)
		return 1;
	for (i = 0; i < c; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
			return 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		fcntl(fd, F_SETFL, O_NONBLOCK);
		ev.events = EPOLLIN;
		ev.data.fd = fd;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0)
			return 1;
	}
	while (got < total) {
		int n = epoll_wait(ep, evs, 256, 10000), k;

		if (n <= 0)
			return 1;       /* ten seconds without a byte: the writer is gone */
		if (cpu0 < 0)
			cpu0 = cpu_now();
		for (k = 0; k < n; k++) {
			ssize_t r;

			while ((r = read(evs[k].data.fd, buf, sizeof(buf))) > 0)
				got += r;
			if (r == 0)
				return 1;
		}
	}
	dprintf(out_fd, "%.6f\n", cpu_now() - cpu0);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	long c, events, period_us, bytes, i, r;
	int lfd, *fds, pipefd[2], one = 1, status;
	char *event, line[64] = "";
	double cpu0, writer_cpu;
	long long t0;
	pid_t pid;
	ssize_t n;

	if (argc != 5 || parse_long(argv[1], 1, 20000, &c) ||
	    parse_long(argv[2], 1, 1000000, &events) ||
	    parse_long(argv[3], 1, 10000000, &period_us) ||
	    parse_long(argv[4], 1, 65536, &bytes)) {
		fprintf(stderr, "usage: bench_floor C EVENTS PERIOD_US BYTES\n");
		return 2;
	}
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(lfd, 4096) < 0 || getsockname(lfd, (struct sockaddr *)&a, &alen) < 0 ||
	    pipe(pipefd) < 0) {
		perror("bench_floor");
		return 1;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(pipefd[0]);
		_exit(reader(ntohs(a.sin_port), c, (long long)c * events * bytes, pipefd[1]));
	}
	close(pipefd[1]);
	fds = calloc((size_t)c, sizeof(*fds));
	event = malloc((size_t)bytes);
	if (!fds || !event)
		return 1;
	memset(event, 'x', (size_t)bytes);
	for (i = 0; i < c; i++) {
		if ((fds[i] = accept(lfd, NULL, NULL)) < 0) {
			perror("bench_floor: accept");
			return 1;
		}
		setsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
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
			if (write(fds[i], event, (size_t)bytes) != bytes) {
				perror("bench_floor: write");
				return 1;
			}
		}
	}
	writer_cpu = cpu_now() - cpu0;
	n = read(pipefd[0], line, sizeof(line) - 1);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    n <= 0) {
		fprintf(stderr, "bench_floor: the reader failed\n");
		return 1;
	}
	line[n] = '\0';
	printf("events %ld writer_cpu_s %.6f reader_cpu_s %s", c * events, writer_cpu, line);
	return 0;
}
