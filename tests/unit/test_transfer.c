/*
 * test_transfer.c - where a request goes (lib/transfer.c): the path after
 * the endpoint's own path, the endpoint's query after the path's.
 */
#include "harness.h"
#include "lib/transfer.h"

#include <stdlib.h>

static void check_url(const char *base, const char *path, const char *want)
{
	char *url = transfer_url(base, path);

	CHECK_STR(url, want);
	free(url);
}

TEST(the_path_goes_before_the_endpoints_query)
{
	check_url("http://h:8000", "/v1/chat/completions", "http://h:8000/v1/chat/completions");
	check_url("http://h:8000/", "/v1/models", "http://h:8000/v1/models");
	check_url("http://h:8000/?api_key=K", "/v1/chat/completions",
		  "http://h:8000/v1/chat/completions?api_key=K");
	check_url("http://h:8000?api_key=K", "/v1/completions", "http://h:8000/v1/completions?api_key=K");
	check_url("http://h/base?a=1&b=2#frag", "/v1/x?c=3", "http://h/base/v1/x?c=3&a=1&b=2");
	check_url("http://h/base#frag", "/v1/x", "http://h/base/v1/x");
	check_url("http://h/metrics?x=", "", "http://h/metrics?x=");
	check_url("http://h/p?", "/q", "http://h/p/q");
}

int main(void)
{
	RUN(the_path_goes_before_the_endpoints_query);
	return harness_done();
}
