/*
 * upstream.c - the proxy's upstream checked; see upstream.h.
 */
#include "upstream.h"
#include "lib/cli.h"
#include "lib/redact.h"

#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <curl/curl.h>

int upstream_parse(const char *given, char **url, char **shown, char **host, long *port)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *portstr = NULL, *query = NULL;
	int rc = 2;
	size_t len;

	*host = NULL;
	if (!(*shown = redact_url(given, NULL))) {
		fprintf(stderr, "tracebench record proxy: out of memory\n");
		goto cleanup;
	}
	if (!u || curl_url_set(u, CURLUPART_URL, given, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    (strcmp(scheme, "http") && strcmp(scheme, "https")) ||
	    curl_url_get(u, CURLUPART_HOST, host, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_PORT, &portstr, CURLU_DEFAULT_PORT) != CURLUE_OK ||
	    cli_parse_long(portstr, 1, 65535, port) < 0) {
		fprintf(stderr, "tracebench record proxy: --upstream wants http://HOST:PORT, "
			"not '%s'\n", *shown);
		goto cleanup;
	}
	if (curl_url_get(u, CURLUPART_QUERY, &query, 0) == CURLUE_OK) {
		fprintf(stderr, "tracebench record proxy: --upstream takes no query "
			"('%s')\n", *shown);
		goto cleanup;
	}
	if (!(*url = strdup(given))) {
		fprintf(stderr, "tracebench record proxy: out of memory\n");
		goto cleanup;
	}
	len = strlen(*url);
	while (len > 0 && (*url)[len - 1] == '/')
		(*url)[--len] = '\0';
	len = strlen(*shown);
	while (len > 0 && (*shown)[len - 1] == '/')
		(*shown)[--len] = '\0';
	rc = 0;
cleanup:
	if (rc) {
		curl_free(*host);
		*host = NULL;
	}
	curl_free(scheme);
	curl_free(portstr);
	curl_free(query);
	curl_url_cleanup(u);
	return rc;
}

static int addr_is_any_or_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET) {
		uint32_t a = ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr);

		return a == INADDR_ANY || (a >> 24) == 127;
	}
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		return IN6_IS_ADDR_UNSPECIFIED(a) || IN6_IS_ADDR_LOOPBACK(a);
	}
	return 0;
}

static int addr_equal(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return 0;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->sa_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			      &((const struct sockaddr_in6 *)b)->sin6_addr, 16) == 0;
	return 0;
}

int upstream_is_self(const struct sockaddr *self, const char *host, long port)
{
	struct addrinfo hints, *ai, *a;
	int self_port, found = 0, self_any;

	if (self->sa_family == AF_INET)
		self_port = ntohs(((const struct sockaddr_in *)self)->sin_port);
	else if (self->sa_family == AF_INET6)
		self_port = ntohs(((const struct sockaddr_in6 *)self)->sin6_port);
	else
		return 0;
	if (self_port != port)
		return 0;
	self_any = addr_is_any_or_loopback(self);
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, NULL, &hints, &ai) != 0)
		return 0;       /* curl will say it cannot resolve it */
	for (a = ai; a && !found; a = a->ai_next)
		found = addr_equal(a->ai_addr, self) ||
			(self_any && addr_is_any_or_loopback(a->ai_addr));
	freeaddrinfo(ai);
	return found;
}
