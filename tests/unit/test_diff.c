/*
 * test_diff.c - what differs between two runs (analyze/diff.c): one line
 * per real difference, field by field, nothing for what differs by design
 * or for an absent field against a null or empty one.
 */
#include "harness.h"
#include "analyze/diff.h"

static struct db_run run(const char *params, const char *prov)
{
	struct db_run r;

	memset(&r, 0, sizeof(r));
	r.label = (char *)"x";
	r.endpoint = (char *)"http://h:8000";
	r.model = (char *)"m";
	r.trace_digest = (char *)"crc32:00000001";
	r.params = (char *)params;
	r.provenance = (char *)prov;
	return r;
}

static int has(const struct diff *d, const char *line)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->lines[i], line))
			return 1;
	printf("  no line '%s' among %zu:\n", line, d->n);
	for (i = 0; i < d->n; i++)
		printf("    %s\n", d->lines[i]);
	return 0;
}

#define PROV(server, tags, cores, build) \
	"{\"command\":[\"tracebench\",\"replay\",\"-o\",\"" build ".gz\"],\"build\":\"" build "\"," \
	"\"host\":{\"cpu\":\"c\",\"cores\":" cores ",\"kernel\":\"Linux 6\"},\"tags\":" tags "," \
	"\"server\":" server "}"

TEST(two_runs_of_one_command_differ_in_nothing)
{
	struct db_run a = run("{\"mode\":\"closed\",\"concurrency\":[1,2],\"salt_seed\":11,"
			      "\"requests\":null,\"ab\":{\"order\":\"AB\"}}",
			      PROV("{\"models\":[\"m\"]}", "{}", "2", "t1"));
	struct db_run b = run("{\"mode\":\"closed\",\"concurrency\":[1,2],\"salt_seed\":99,"
			      "\"ab\":{\"order\":\"BA\"}}",
			      PROV("{\"models\":[\"m\"],\"unknown\":\"why\"}", "null", "2", "t1"));
	struct diff d;

	CHECK_EQ_INT(diff_runs(&a, &b, DIFF_ALL, &d), 0);
	CHECK_EQ_INT(d.n, 0);          /* salt seed, order, null, {} and "unknown": none */
	diff_release(&d);
}

TEST(each_real_difference_is_one_short_line)
{
	struct db_run a = run("{\"mode\":\"closed\",\"overrides\":{\"max_tokens\":64},\"repeat\":1}",
			      PROV("{\"models\":[\"llama-8b\"],\"version\":{\"build_info\":\"b1\","
				   "\"total_slots\":8}}", "{\"gpu\":\"H100\"}", "2", "t1"));
	struct db_run b = run("{\"mode\":\"closed\",\"overrides\":{\"max_tokens\":128},\"repeat\":3}",
			      PROV("{\"models\":[\"llama-8b\"],\"version\":{\"build_info\":\"b2\","
				   "\"total_slots\":8}}", "{\"gpu\":\"A100\",\"tp\":\"2\"}", "8", "t2"));
	struct diff d;

	b.endpoint = (char *)"http://other:8000";
	CHECK_EQ_INT(diff_runs(&a, &b, DIFF_ALL, &d), 0);
	CHECK(has(&d, "endpoint: http://h:8000 vs http://other:8000"));
	CHECK(has(&d, "server.version.build_info: b1 vs b2"));
	CHECK(has(&d, "params.overrides.max_tokens: 64 vs 128"));
	CHECK(has(&d, "params.repeat: 1 vs 3"));
	CHECK(has(&d, "tag.gpu: H100 vs A100"));
	CHECK(has(&d, "tag.tp: none vs 2"));
	CHECK(has(&d, "host.cores: 2 vs 8"));
	CHECK(has(&d, "build: t1 vs t2"));
	CHECK_EQ_INT(d.n, 8);          /* and nothing of the command's -o */
	diff_release(&d);
	/* the parts asked for only */
	CHECK_EQ_INT(diff_runs(&a, &b, DIFF_PARAMS, &d), 0);
	CHECK_EQ_INT(d.n, 2);
	diff_release(&d);
}

TEST(a_long_value_is_cut_and_an_old_file_is_one_line)
{
	struct db_run a, b;
	struct diff d;

	a = run("{\"levels\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23]}",
		PROV("{}", "{}", "2", "t1"));
	b = run("{}", NULL);
	CHECK_EQ_INT(diff_runs(&a, &b, DIFF_ALL, &d), 0);
	/* DIFF_MAX_VALUE (48) bytes of the value, then "..." */
	CHECK(has(&d, "provenance: recorded vs none (a results file older than it)"));
	CHECK(has(&d, "params.levels: [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19... vs none"));
	CHECK_EQ_INT(d.n, 2);          /* no host, build or tag lines for the old file */
	diff_release(&d);
	/* asked about the parameters alone (compare's history and warning), an
	 * old file and a new one of equal parameters do not differ */
	b.params = a.params;
	CHECK_EQ_INT(diff_runs(&a, &b, DIFF_PARAMS, &d), 0);
	CHECK_EQ_INT(d.n, 0);
	diff_release(&d);
	/* and a host difference cannot be told from a file that records none */
	CHECK_EQ_INT(diff_runs(&a, &b, DIFF_HOST, &d), 0);
	CHECK_EQ_INT(d.n, 0);
	diff_release(&d);
}

/*
 * A value from a file (or a server's own description of itself) holding
 * terminal control sequences, a newline, a C1 control or bytes that are
 * not UTF-8 is shown without them: one line, nothing a terminal acts on.
 * Before: `analyze diff` printed the ESC and BEL bytes as they were (an
 * OSC title, a colour) and the newline began a line of the file's making.
 */
TEST(a_line_holds_no_control_bytes)
{
	struct db_run a = run("{}", PROV("{\"version\":{\"build\":\"b1\\u001b]0;pwned\\u0007"
				       "\\u001b[31m\\u009b2J\"}}", "{}", "2", "t1"));
	struct db_run b = run("{}", PROV("{\"version\":{\"build\":\"b2\\nparams.fake: x vs y\"}}",
				       "{}", "2", "t1"));
	struct diff d;
	size_t i;

	b.model = (char *)"m\r\xff\xc2";
	CHECK_EQ_INT(diff_runs(&a, &b, DIFF_ALL, &d), 0);
	CHECK_EQ_INT(d.n, 2);
	for (i = 0; i < d.n; i++) {
		const unsigned char *p = (const unsigned char *)d.lines[i];

		for (; *p; p++)
			CHECK(*p >= 0x20 && *p != 0x7f && *p != 0xff &&
			      !(p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) &&
			      !(p[0] == 0xc2 && !p[1]));
	}
	CHECK(has(&d, "model asked for: m vs m ??"));
	CHECK(has(&d, "server.version.build: b1 ]0;pwned  [31m?2J vs b2 params.fake: x vs y"));
	diff_release(&d);
}

int main(void)
{
	RUN(two_runs_of_one_command_differ_in_nothing);
	RUN(each_real_difference_is_one_short_line);
	RUN(a_long_value_is_cut_and_an_old_file_is_one_line);
	RUN(a_line_holds_no_control_bytes);
	return harness_done();
}
