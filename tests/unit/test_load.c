/*
 * test_load.c - the load a level runs at (lib/load.c): each kind survives
 * its integer encoding, the code of a record and of a database row (C, 0,
 * -k); loads order as the database lists levels and match by kind and C or
 * k, not by rate; and the text every table and message names them by.
 */
#include "harness.h"
#include "lib/load.h"

/* load_of_code(load_code(l), rate) is l again. */
static int round_trips(struct load l, double rate)
{
	struct load back = load_of_code(load_code(l), rate);

	return load_same(back, l) && back.kind == l.kind &&
	       back.concurrency == l.concurrency && back.probe == l.probe;
}

TEST(each_kind_survives_its_code)
{
	struct load l;

	CHECK_EQ_INT(load_code(load_closed(4)), 4);
	CHECK_EQ_INT(load_code(load_open(12.5)), 0);
	CHECK_EQ_INT(load_code(load_probe(3, 187.5)), -3);
	CHECK(round_trips(load_closed(1), 0));
	CHECK(round_trips(load_closed(64), 0));
	CHECK(round_trips(load_open(NAN), 0));
	CHECK(round_trips(load_probe(1, 20), 20));
	CHECK(round_trips(load_probe(7, NAN), 0));

	l = load_of_code(16, 5);     /* a concurrency has no rate */
	CHECK_EQ_INT(l.kind, LOAD_CLOSED);
	CHECK_EQ_INT(l.concurrency, 16);
	CHECK(isnan(l.rate));
	l = load_of_code(0, 0);      /* an open loop's records carry none */
	CHECK_EQ_INT(l.kind, LOAD_OPEN);
	CHECK(isnan(l.rate));
	l = load_of_code(-3, 187.5); /* a probe's records carry its rate */
	CHECK_EQ_INT(l.kind, LOAD_RATE);
	CHECK_EQ_INT(l.probe, 3);
	CHECK_NEAR(l.rate, 187.5, 0);
	CHECK(isnan(load_of_code(-3, 0).rate));
	CHECK(isnan(load_unrated(l).rate) && load_same(load_unrated(l), l));
}

/* A zeroed struct load is the open loop, as code 0 is. */
TEST(a_zeroed_load_is_the_open_loop)
{
	struct load l;

	memset(&l, 0, sizeof(l));
	CHECK_EQ_INT(l.kind, LOAD_OPEN);
	CHECK_EQ_INT(load_code(l), 0);
	CHECK(load_same(l, load_open(NAN)));
}

TEST(loads_order_as_the_database_lists_levels)
{
	/* the probes by rate, those without one after (by code), the open
	 * loop, the concurrencies ascending */
	const struct load want[] = {
		load_probe(2, 10), load_probe(1, 20), load_probe(3, 40), load_probe(5, NAN),
		load_probe(4, NAN), load_open(NAN), load_closed(1), load_closed(4),
		load_closed(16),
	};
	size_t n = sizeof(want) / sizeof(want[0]), i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			int c = load_cmp(want[i], want[j]);

			CHECK(i < j ? c < 0 : i > j ? c > 0 : c == 0);
		}
	/* the same level whatever rate it carries, another at another code */
	CHECK(load_same(load_probe(3, 40), load_probe(3, NAN)));
	CHECK(!load_same(load_probe(3, 40), load_probe(4, 40)));
	CHECK(!load_same(load_closed(1), load_open(NAN)));
	CHECK(load_same(load_closed(8), load_of_code(8, 0)));
}

TEST(cells_and_names_are_the_tables_text)
{
	char buf[32];

	CHECK_STR(load_cell(load_closed(16), buf, sizeof(buf)), "16");
	CHECK_STR(load_cell(load_open(12.5), buf, sizeof(buf)), "open");
	CHECK_STR(load_cell(load_probe(3, 187.5), buf, sizeof(buf)), "187.5/s");
	CHECK_STR(load_cell(load_probe(3, NAN), buf, sizeof(buf)), "r3");
	CHECK_STR(load_name(load_closed(2), buf, sizeof(buf)), "C=2");
	CHECK_STR(load_name(load_open(12.5), buf, sizeof(buf)), "open loop");
	CHECK_STR(load_name(load_probe(3, 187.5), buf, sizeof(buf)), "187.5 req/s");
	CHECK_STR(load_name(load_unrated(load_probe(3, 187.5)), buf, sizeof(buf)),
		  "rate level 3");
	/* four significant digits, as every table has them */
	CHECK_STR(load_cell(load_probe(1, 1234.5678), buf, sizeof(buf)), "1235/s");
}

int main(void)
{
	RUN(each_kind_survives_its_code);
	RUN(a_zeroed_load_is_the_open_loop);
	RUN(loads_order_as_the_database_lists_levels);
	RUN(cells_and_names_are_the_tables_text);
	return harness_done();
}
