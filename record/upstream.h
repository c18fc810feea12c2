/*
 * upstream.h - the proxy's upstream: its URL checked before anything
 * listens, and the loop it would make by pointing at the proxy itself.
 */
#ifndef TB_UPSTREAM_H
#define TB_UPSTREAM_H

struct sockaddr;

/*
 * Checks --upstream 'given' (http or https, a host, a port, no query).
 * Fills *url (as given, without a trailing '/'), *shown (the same without
 * userinfo, for files and stderr), *host and *port; the strings are
 * malloc'd (host with curl_malloc: curl_free it), *url and *shown set even
 * on failure for the caller to free. Returns 0, or 2 after printing why.
 */
int upstream_parse(const char *given, char **url, char **shown, char **host, long *port);

/*
 * True when host:port reaches the proxy itself (bound at 'self'): the same
 * address and port, or a local one when the proxy listens on every address.
 * A loop would forward each request to itself until the sockets ran out.
 */
int upstream_is_self(const struct sockaddr *self, const char *host, long port);

#endif
