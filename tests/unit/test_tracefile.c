/*
 * test_tracefile.c - the gzip JSON Lines container: round trip, recovery of
 * every complete record from a file cut at any byte, and clear refusals.
 */
#define _GNU_SOURCE     /* sched_setaffinity */ /* NOLINT(bugprone-reserved-identifier) */
#include "harness.h"
#include "lib/random.h"
#include "lib/tracefile.h"

#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

static char dir[] = "/tmp/tb-test-XXXXXX";

static char *path_of(const char *name)
{
	static char buf[8][256];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static void write_text(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");

	fwrite(text, 1, len, f);
	fclose(f);
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(1 << 20);

	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

/* Writes n records {"i": k, "pad": "..."} to path. */
static void write_sample(const char *path, int n)
{
	char err[TRACEFILE_ERRLEN];
	cJSON *h = cJSON_CreateObject();
	struct tracefile_writer *w;
	int k;

	cJSON_AddStringToObject(h, "label", "sample");
	w = tracefile_writer_open(path, TRACEFILE_KIND_RESULTS, h, 1, err, sizeof(err));
	CHECK(w != NULL);
	cJSON_Delete(h);
	for (k = 0; w && k < n; k++) {
		cJSON *r = cJSON_CreateObject();

		cJSON_AddNumberToObject(r, "i", k);
		cJSON_AddStringToObject(r, "pad", "some text that repeats some text that repeats");
		CHECK_EQ_INT(tracefile_writer_append(w, r), 0);
		cJSON_Delete(r);
	}
	CHECK_EQ_INT(tracefile_writer_close(w, err, sizeof(err)), 0);
}

/* Reads path; returns the number of records, checking they are 0, 1, 2... */
static int read_prefix(const char *path, int *opened, int *damaged)
{
	char err[TRACEFILE_ERRLEN];
	struct tracefile_reader *r = tracefile_reader_open(path, TRACEFILE_KIND_RESULTS, err, sizeof(err));
	cJSON *rec;
	int n = 0, rc;

	*opened = r != NULL;
	*damaged = 0;
	if (!r)
		return 0;
	while ((rc = tracefile_reader_next(r, &rec)) == 1) {
		CHECK_EQ_INT(cJSON_GetObjectItem(rec, "i")->valueint, n);
		cJSON_Delete(rec);
		n++;
	}
	CHECK_EQ_INT(rc, 0);
	*damaged = tracefile_reader_damage(r) != NULL;
	tracefile_reader_close(r);
	return n;
}

TEST(round_trip)
{
	char err[TRACEFILE_ERRLEN];
	struct tracefile_reader *r;
	const cJSON *h;
	int opened, damaged;

	write_sample(path_of("rt.jsonl.gz"), 100);
	CHECK_EQ_INT(read_prefix(path_of("rt.jsonl.gz"), &opened, &damaged), 100);
	CHECK(opened);
	CHECK(!damaged);

	r = tracefile_reader_open(path_of("rt.jsonl.gz"), NULL, err, sizeof(err));
	CHECK(r != NULL);
	if (!r)
		return;
	h = tracefile_reader_header(r);
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(h, "format")), TRACEFILE_KIND_RESULTS);
	/* a writer writes version 1 unless its header asks for another */
	CHECK_EQ_INT(cJSON_GetObjectItem(h, "version")->valueint, 1);
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(h, "label")), "sample");
	CHECK(strncmp(tracefile_reader_digest(r), "sha256:", 7) == 0);
	CHECK(strncmp(tracefile_reader_crc32(r), "crc32:", 6) == 0);
	tracefile_reader_close(r);
}

/* The digests are of the uncompressed bytes, as sha256sum and zlib's
 * crc32 give them for the same text; reading on makes them grow. */
TEST(digests_are_those_of_the_bytes_read)
{
	static const char text[] = "{\"format\":\"tracebench-trace\",\"version\":1}\n"
				   "{\"kind\":\"chat\"}\n";
	char err[TRACEFILE_ERRLEN], first[TRACEFILE_DIGEST_LEN];
	struct tracefile_reader *r;
	struct tracefile_id id = { "", "" };
	cJSON *rec = NULL;

	write_text(path_of("known.jsonl"), text, sizeof(text) - 1);
	r = tracefile_reader_open(path_of("known.jsonl"), NULL, err, sizeof(err));
	CHECK(r != NULL);
	if (!r)
		return;
	snprintf(first, sizeof(first), "%s", tracefile_reader_digest(r));
	while (tracefile_reader_next(r, &rec) > 0)
		cJSON_Delete(rec);
	CHECK_STR(tracefile_reader_digest(r), "sha256:b805d0d606034f2ed5b11513ff5696e3"
		  "a548035d0664e9b992be4505cc12ee0a");
	CHECK_STR(tracefile_reader_crc32(r), "crc32:8eb6b196");
	tracefile_reader_id(r, &id);
	CHECK_STR(id.digest, tracefile_reader_digest(r));
	CHECK_STR(id.crc32, "crc32:8eb6b196");
	tracefile_reader_close(r);
}

/* Two SHA-256s decide alone; a file from before them matches by CRC-32. */
TEST(same_trace_by_sha256_or_by_the_crc32_beside_it)
{
	const char *s1 = "sha256:11", *s2 = "sha256:22";

	CHECK_EQ_INT(tracefile_same_trace(s1, "crc32:aa", s1, "crc32:aa"), 1);
	CHECK_EQ_INT(tracefile_same_trace(s1, "crc32:aa", s2, "crc32:aa"), 0);
	CHECK_EQ_INT(tracefile_same_trace(s1, "crc32:aa", "crc32:aa", NULL), 1);
	CHECK_EQ_INT(tracefile_same_trace("crc32:aa", NULL, s1, "crc32:bb"), 0);
	CHECK_EQ_INT(tracefile_same_trace("crc32:aa", NULL, "crc32:aa", NULL), 1);
	CHECK_EQ_INT(tracefile_same_trace(s1, NULL, "crc32:aa", NULL), 0);
	CHECK_EQ_INT(tracefile_same_trace(NULL, NULL, NULL, NULL), 1);
	CHECK_EQ_INT(tracefile_same_trace(NULL, NULL, s1, "crc32:aa"), 0);
}

TEST(truncated_at_every_byte_keeps_a_prefix)
{
	size_t len, cut;
	char *full;
	int prev = 0, opened, damaged, n;

	write_sample(path_of("full.jsonl.gz"), 40);
	full = read_all(path_of("full.jsonl.gz"), &len);
	for (cut = 0; cut < len; cut++) {
		write_text(path_of("cut.jsonl.gz"), full, cut);
		n = read_prefix(path_of("cut.jsonl.gz"), &opened, &damaged);
		CHECK(n >= prev);       /* more bytes never give fewer records */
		CHECK(n < 40 || cut + 16 >= len);  /* only the last bytes can go unmissed */
		if (opened)
			CHECK(damaged);  /* a cut stream always says so */
		prev = n;
	}
	/* Only the 8-byte gzip trailer missing: every record is there. */
	write_text(path_of("cut.jsonl.gz"), full, len - 8);
	CHECK_EQ_INT(read_prefix(path_of("cut.jsonl.gz"), &opened, &damaged), 40);
	CHECK(damaged);
	free(full);
}

TEST(refuses_to_overwrite_without_force)
{
	char err[TRACEFILE_ERRLEN];
	struct tracefile_writer *w;

	write_sample(path_of("exists.jsonl.gz"), 1);
	w = tracefile_writer_open(path_of("exists.jsonl.gz"), TRACEFILE_KIND_TRACE, NULL, 0,
				  err, sizeof(err));
	CHECK(w == NULL);
	CHECK(strstr(err, "already exists") != NULL);
	w = tracefile_writer_open("/nonexistent-dir/x.jsonl.gz", TRACEFILE_KIND_TRACE, NULL, 0,
				  err, sizeof(err));
	CHECK(w == NULL);
	CHECK(strstr(err, "No such file or directory") != NULL);
}

static void expect_open_error(const char *name, const char *text, const char *kind,
			      const char *message)
{
	char err[TRACEFILE_ERRLEN] = "";
	struct tracefile_reader *r;

	write_text(path_of(name), text, strlen(text));
	r = tracefile_reader_open(path_of(name), kind, err, sizeof(err));
	CHECK(r == NULL);
	if (!strstr(err, message) || !strstr(err, name))
		printf("  got: %s\n", err);
	CHECK(strstr(err, message) != NULL);
	CHECK(strstr(err, name) != NULL);
	tracefile_reader_close(r);
}

TEST(bad_files_are_refused_with_a_reason)
{
	expect_open_error("empty.gz", "", NULL, "is empty");
	expect_open_error("garbage.gz", "\x1f\x8b\x08garbage that is not deflate", NULL, "cannot read");
	expect_open_error("text.gz", "hello world\n", NULL, "not a tracebench file");
	expect_open_error("future.gz", "{\"format\":\"tracebench-trace\",\"version\":99}\n",
			  NULL, "format version 99");
	expect_open_error("kind.gz", "{\"format\":\"tracebench-results\",\"version\":1}\n",
			  TRACEFILE_KIND_TRACE, "is a results file, not a trace");
}

TEST(malformed_record_names_its_line)
{
	static const char text[] =
		"{\"format\":\"tracebench-trace\",\"version\":1}\n{\"id\":0}\n\n{\"id\": oops}\n";
	char err[TRACEFILE_ERRLEN];
	struct tracefile_reader *r;
	cJSON *rec;

	write_text(path_of("bad.jsonl"), text, sizeof(text) - 1);
	r = tracefile_reader_open(path_of("bad.jsonl"), TRACEFILE_KIND_TRACE, err, sizeof(err));
	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_EQ_INT(tracefile_reader_next(r, &rec), 1);
	cJSON_Delete(rec);
	CHECK_EQ_INT(tracefile_reader_next(r, &rec), -1);
	CHECK(strstr(tracefile_reader_error(r), "line 4") != NULL);
	tracefile_reader_close(r);
}

/*
 * A line appended just after a flush is on disk once the once-a-second
 * timer calls tracefile_writer_flush, however recent that flush was (a
 * killed process loses at most the last tick's worth); with nothing
 * appended, the timer writes nothing.
 */
TEST(flush_puts_lines_appended_since_the_last_flush_on_disk)
{
	char err[TRACEFILE_ERRLEN];
	struct tracefile_writer *w;
	cJSON *r = cJSON_CreateObject();
	int opened, damaged;
	size_t before, after;
	char *buf;

	w = tracefile_writer_open(path_of("tick.jsonl.gz"), TRACEFILE_KIND_RESULTS, NULL, 1,
				  err, sizeof(err));
	CHECK(w != NULL);
	if (!w)
		return;
	cJSON_AddNumberToObject(r, "i", 0);
	CHECK_EQ_INT(tracefile_writer_append(w, r), 0);       /* < 1 s after the header's flush */
	CHECK_EQ_INT(read_prefix(path_of("tick.jsonl.gz"), &opened, &damaged), 0);
	CHECK_EQ_INT(tracefile_writer_flush(w), 0);
	CHECK_EQ_INT(read_prefix(path_of("tick.jsonl.gz"), &opened, &damaged), 1);
	CHECK(opened);
	free(read_all(path_of("tick.jsonl.gz"), &before));
	CHECK_EQ_INT(tracefile_writer_flush(w), 0);
	buf = read_all(path_of("tick.jsonl.gz"), &after);
	free(buf);
	CHECK_EQ_INT((int)after, (int)before);
	CHECK_EQ_INT(tracefile_writer_close(w, err, sizeof(err)), 0);
	cJSON_Delete(r);
}

/*
 * In the background (the thread compresses): every line in the order
 * appended, more than one queue's worth of them; a flush returns with
 * everything appended before it on disk, read back while the writer is
 * still open; a line too long is refused on the caller's side as before.
 */
TEST(background_writes_every_line_in_order_and_flush_waits_for_it)
{
	const char *path = path_of("bg.jsonl.gz");
	char err[TRACEFILE_ERRLEN], pad[600];
	struct tracefile_writer *w;
	int k, opened, damaged, n = 40000;   /* 40000 x ~640 B: past the 16 MiB queue */

	memset(pad, 'p', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = '\0';
	w = tracefile_writer_open(path, TRACEFILE_KIND_RESULTS, NULL, 1, err, sizeof(err));
	CHECK(w != NULL);
	if (!w)
		return;
	CHECK_EQ_INT(tracefile_writer_background(w), 0);
	CHECK_EQ_INT(tracefile_writer_background(w), 0);       /* once is enough */
	for (k = 0; k < 100; k++) {
		char line[64];

		snprintf(line, sizeof(line), "{\"i\":%d}", k);
		CHECK_EQ_INT(tracefile_writer_append_raw(w, line, strlen(line)), 0);
	}
	CHECK_EQ_INT(tracefile_writer_flush(w), 0);
	CHECK_EQ_INT(read_prefix(path, &opened, &damaged), 100);
	CHECK(opened);
	for (; k < n; k++) {
		cJSON *r = cJSON_CreateObject();

		cJSON_AddNumberToObject(r, "i", k);
		cJSON_AddStringToObject(r, "pad", pad);
		CHECK_EQ_INT(tracefile_writer_append(w, r), 0);
		cJSON_Delete(r);
	}
	CHECK_EQ_INT(tracefile_writer_append_raw(w, pad, TRACEFILE_MAX_LINE + 1), TRACEFILE_ETOOLONG);
	CHECK_EQ_INT(tracefile_writer_flush_if_due(w), 0);
	CHECK_EQ_INT(tracefile_writer_close(w, err, sizeof(err)), 0);
	CHECK_EQ_INT(read_prefix(path, &opened, &damaged), n);
	CHECK(!damaged);
}

/* Reads path until it holds n records, for up to 5 s (a loaded machine);
 * returns the records it holds then. */
static int wait_for_lines(const char *path, int n)
{
	int k, got = 0, opened, damaged;

	for (k = 0; k < 500; k++) {
		if ((got = read_prefix(path, &opened, &damaged)) >= n)
			break;
		usleep(10000);
	}
	return got;
}

/*
 * flush_soon only asks the thread: what was appended before it reaches
 * the disk soon after (a few lines, far below the bytes that wake the
 * thread by themselves), with the writer open; and a call returns once
 * the lines appended before the previous one are on disk.
 */
TEST(background_flush_soon_reaches_the_disk_without_waiting)
{
	const char *path = path_of("soon.jsonl.gz");
	char err[TRACEFILE_ERRLEN];
	struct tracefile_writer *w;
	cpu_set_t all, one;
	int k, opened, damaged, cpu, pinned;

	w = tracefile_writer_open(path, TRACEFILE_KIND_RESULTS, NULL, 1, err, sizeof(err));
	CHECK(w != NULL);
	if (!w)
		return;
	/* On one core with this thread, the writer's idle-priority thread runs
	 * only while this one sleeps: below, flush_soon must see to it. */
	pinned = sched_getaffinity(0, sizeof(all), &all) == 0 && (cpu = sched_getcpu()) >= 0;
	if (pinned) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		pinned = sched_setaffinity(0, sizeof(one), &one) == 0;
	}
	CHECK_EQ_INT(tracefile_writer_background(w), 0);
	for (k = 0; k < 10; k++) {
		char line[64];

		snprintf(line, sizeof(line), "{\"i\":%d}", k);
		CHECK_EQ_INT(tracefile_writer_append_raw(w, line, strlen(line)), 0);
	}
	CHECK_EQ_INT(tracefile_writer_flush_soon(w), 0);
	CHECK_EQ_INT(wait_for_lines(path, 10), 10);
	for (k = 10; k < 20; k++) {
		char line[64];

		snprintf(line, sizeof(line), "{\"i\":%d}", k);
		CHECK_EQ_INT(tracefile_writer_append_raw(w, line, strlen(line)), 0);
		/* each call returns with the lines before the previous one on disk */
		CHECK_EQ_INT(tracefile_writer_flush_soon(w), 0);
		CHECK(read_prefix(path, &opened, &damaged) >= k);
	}
	CHECK_EQ_INT(tracefile_writer_close(w, err, sizeof(err)), 0);
	CHECK_EQ_INT(read_prefix(path, &opened, &damaged), 20);
	CHECK(!damaged);
	if (pinned)
		CHECK_EQ_INT(sched_setaffinity(0, sizeof(all), &all), 0);
	else
		printf("# note: not pinned to one core, flush_soon's wait was tested loosely\n");
}

/*
 * Fewer lines than wake the thread, then one too long for the room left
 * in the queue: the append has the queue written (by the thread or
 * itself) instead of waiting for a thread nothing woke (alarm: a hang is
 * a failure). And a line below the wake-up size, left alone for more than
 * a second, is written at the next flush_if_due.
 */
TEST(background_long_line_and_flush_if_due_do_not_wait_for_a_wake_up)
{
	const char *path = path_of("long.jsonl.gz");
	char err[TRACEFILE_ERRLEN];
	struct tracefile_writer *w;
	size_t big = 20u << 20;         /* past the 16 MiB queue */
	char *line = malloc(big + 1);
	int k, opened, damaged;

	CHECK(line != NULL);
	w = tracefile_writer_open(path, TRACEFILE_KIND_RESULTS, NULL, 1, err, sizeof(err));
	CHECK(w != NULL);
	if (!w || !line) {
		free(line);
		return;
	}
	CHECK_EQ_INT(tracefile_writer_background(w), 0);
	usleep(100000);                 /* the thread asleep, nothing to do */
	alarm(30);
	CHECK_EQ_INT(tracefile_writer_append_raw(w, "{\"i\":0}", 7), 0);
	k = snprintf(line, big + 1, "{\"i\":1,\"pad\":\"");
	memset(line + k, 'p', big - (size_t)k - 2);
	memcpy(line + big - 2, "\"}", 2);
	line[big] = '\0';
	CHECK_EQ_INT(tracefile_writer_append_raw(w, line, big), 0);
	CHECK_EQ_INT(tracefile_writer_flush(w), 0);
	CHECK_EQ_INT(read_prefix(path, &opened, &damaged), 2);
	CHECK_EQ_INT(tracefile_writer_append_raw(w, "{\"i\":2}", 7), 0);
	usleep(1100000);                /* the flush above was a second ago */
	CHECK_EQ_INT(tracefile_writer_flush_if_due(w), 0);
	CHECK_EQ_INT(wait_for_lines(path, 3), 3);
	CHECK_EQ_INT(tracefile_writer_close(w, err, sizeof(err)), 0);
	alarm(0);
	free(line);
}

/*
 * A write that fails in the background thread (here: past the file size
 * limit, EFBIG; the thread has SIGXFSZ blocked, so the process lives)
 * reaches the caller at its next flush, append and close, with the reason;
 * what was on disk before stays readable.
 */
TEST(background_failure_reaches_the_caller)
{
	const char *path = path_of("full.jsonl.gz");
	char err[TRACEFILE_ERRLEN], pad[2000];
	struct rlimit old, lim;
	struct tracefile_writer *w;
	struct tracefile_reader *r;
	struct rng rng;
	cJSON *rec = NULL;
	int k, rc = 0;

	memset(pad, 0, sizeof(pad));
	rng_init(&rng, 1);
	w = tracefile_writer_open(path, TRACEFILE_KIND_RESULTS, NULL, 1, err, sizeof(err));
	CHECK(w != NULL);
	if (!w || getrlimit(RLIMIT_FSIZE, &old) < 0)
		return;
	CHECK_EQ_INT(tracefile_writer_background(w), 0);
	CHECK_EQ_INT(tracefile_writer_append_raw(w, "{\"i\":0}", 7), 0);
	CHECK_EQ_INT(tracefile_writer_flush(w), 0);
	lim = old;
	lim.rlim_cur = 4096;
	CHECK_EQ_INT(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (k = 1; k < 200 && rc == 0; k++) {
		int n;

		/* lines that do not compress: random bytes as hex */
		for (n = 0; n < (int)sizeof(pad) - 1; n++)
			pad[n] = "0123456789abcdef"[rng_below(&rng, 16)];
		rc = tracefile_writer_append_raw(w, pad, sizeof(pad) - 1);
		if (rc == 0)
			rc = tracefile_writer_flush(w);
	}
	CHECK_EQ_INT(rc, -1);
	CHECK(strstr(tracefile_writer_error(w), "cannot write") != NULL);
	CHECK(strstr(tracefile_writer_error(w), "File too large") != NULL);
	CHECK_EQ_INT(tracefile_writer_append_raw(w, "{\"i\":9}", 7), -1);
	CHECK_EQ_INT(tracefile_writer_close(w, err, sizeof(err)), -1);
	CHECK(strstr(err, "File too large") != NULL);
	CHECK_EQ_INT(setrlimit(RLIMIT_FSIZE, &old), 0);
	r = tracefile_reader_open(path, TRACEFILE_KIND_RESULTS, err, sizeof(err));
	CHECK(r != NULL);
	CHECK_EQ_INT(r ? tracefile_reader_next(r, &rec) : 0, 1);   /* the flushed record */
	if (r && rec)
		CHECK_EQ_INT(cJSON_GetObjectItem(rec, "i")->valueint, 0);
	cJSON_Delete(rec);
	tracefile_reader_close(r);
}

/*
 * One limit for writers and readers (TRACEFILE_MAX_LINE): a writer refuses
 * a longer record and stays usable, so what it wrote reads back whole; a
 * reader that meets a longer line anyway (another program wrote it: here
 * zlib directly) skips that record, reads on, and says so. Lines of
 * exactly the limit pass both ways.
 */
TEST(one_line_limit_for_every_writer_and_reader)
{
	char err[TRACEFILE_ERRLEN];
	struct tracefile_writer *w;
	struct tracefile_reader *r;
	size_t n = TRACEFILE_MAX_LINE + 1, len;
	char *big = malloc(n + 1);
	const char *line;
	gzFile gz;
	int got = 0;

	CHECK(big != NULL);
	if (!big)
		return;
	memset(big, ' ', n);
	big[0] = '{';
	big[n - 1] = '}';
	w = tracefile_writer_open(path_of("long.jsonl.gz"), TRACEFILE_KIND_TRACE, NULL, 1,
				  err, sizeof(err));
	CHECK(w != NULL);
	if (!w)
		goto out;
	CHECK_EQ_INT(tracefile_writer_append_raw(w, "{\"i\":1}", 7), 0);
	CHECK_EQ_INT(tracefile_writer_append_raw(w, big, n), TRACEFILE_ETOOLONG);
	CHECK(strstr(tracefile_writer_error(w), "longer than the 64 MiB") != NULL);
	big[n - 2] = '}';       /* exactly the limit: written */
	CHECK_EQ_INT(tracefile_writer_append_raw(w, big, n - 1), 0);
	CHECK_EQ_INT(tracefile_writer_append_raw(w, "{\"i\":3}", 7), 0);
	CHECK_EQ_INT(tracefile_writer_close(w, err, sizeof(err)), 0);
	r = tracefile_reader_open(path_of("long.jsonl.gz"), TRACEFILE_KIND_TRACE, err, sizeof(err));
	CHECK(r != NULL);
	while (r && tracefile_reader_next_line(r, &line, &len) == 1)
		got++;
	CHECK_EQ_INT(got, 3);
	CHECK(r && tracefile_reader_damage(r) == NULL);
	tracefile_reader_close(r);

	/* a foreign writer's over-long line 3, and one at the very end */
	gz = gzopen(path_of("foreign.jsonl.gz"), "wb1");
	gzputs(gz, "{\"format\":\"tracebench-trace\",\"version\":1}\n{\"i\":1}\n");
	big[n - 2] = ' ';
	gzwrite(gz, big, (unsigned)n);
	gzputs(gz, "\n{\"i\":3}\n");
	gzwrite(gz, big, (unsigned)n);
	gzclose(gz);
	r = tracefile_reader_open(path_of("foreign.jsonl.gz"), TRACEFILE_KIND_TRACE, err, sizeof(err));
	CHECK(r != NULL);
	got = 0;
	while (r && tracefile_reader_next_line(r, &line, &len) == 1) {
		got++;
		CHECK_STR(line, got == 1 ? "{\"i\":1}" : "{\"i\":3}");
		CHECK_EQ_INT(tracefile_reader_lineno(r), got == 1 ? 2 : 4);
	}
	CHECK_EQ_INT(got, 2);
	CHECK_STR(r ? tracefile_reader_damage(r) : NULL,
		  "skipped 2 records longer than 64 MiB (line 3 first)");
	tracefile_reader_close(r);
out:
	free(big);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	RUN(round_trip);
	RUN(digests_are_those_of_the_bytes_read);
	RUN(same_trace_by_sha256_or_by_the_crc32_beside_it);
	RUN(truncated_at_every_byte_keeps_a_prefix);
	RUN(refuses_to_overwrite_without_force);
	RUN(bad_files_are_refused_with_a_reason);
	RUN(malformed_record_names_its_line);
	RUN(flush_puts_lines_appended_since_the_last_flush_on_disk);
	RUN(one_line_limit_for_every_writer_and_reader);
	signal(SIGXFSZ, SIG_IGN);     /* the caller's thread meets EFBIG too */
	RUN(background_writes_every_line_in_order_and_flush_waits_for_it);
	RUN(background_flush_soon_reaches_the_disk_without_waiting);
	RUN(background_long_line_and_flush_if_due_do_not_wait_for_a_wake_up);
	RUN(background_failure_reaches_the_caller);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		/* a fixed command on mkdtemp's name: nothing from outside reaches the shell */
		if (system(cmd) != 0)  /* NOLINT(cert-env33-c) */
			return 1;
	}
	return harness_done();
}
