/*
 * chain.c - sessions by the conversation-prefix relation; see chain.h.
 */
#include "chain.h"
#include "trace.h"

#include <stdlib.h>

#define CHAIN_BUCKETS 65536

int chain_init(struct chain_table *t)
{
	t->n_sessions = 0;
	t->n_buckets = CHAIN_BUCKETS;
	t->bucket = calloc(t->n_buckets, sizeof(*t->bucket));
	return t->bucket ? 0 : -1;
}

void chain_release(struct chain_table *t)
{
	size_t i;

	for (i = 0; t->bucket && i < t->n_buckets; i++)
		while (t->bucket[i].head) {
			struct chain_link *l = t->bucket[i].head;

			t->bucket[i].head = l->next;
			free(l);
		}
	free(t->bucket);
	t->bucket = NULL;
}

uint64_t chain_hash(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

struct chain_link *chain_find(const struct chain_table *t, uint64_t key)
{
	struct chain_link *l;

	for (l = t->bucket[key % t->n_buckets].head; l; l = l->next)
		if (l->key == key)
			return l;
	return NULL;
}

/* Takes l out of its bucket. */
static void unlink_link(struct chain_table *t, struct chain_link *l)
{
	struct chain_link **pp = &t->bucket[l->key % t->n_buckets].head;

	while (*pp != l)
		pp = &(*pp)->next;
	*pp = l->next;
}

static void link_in(struct chain_table *t, struct chain_link *l)
{
	l->next = t->bucket[l->key % t->n_buckets].head;
	t->bucket[l->key % t->n_buckets].head = l;
}

int chain_join(struct chain_table *t, uint64_t prefix, uint64_t key, int64_t arrival_ns,
	       struct chain_turn *out)
{
	struct chain_link *l = prefix ? chain_find(t, prefix) : NULL;

	if (l && !l->in_flight && arrival_ns - l->end_ns > TRACE_MAX_THINK_NS)
		l = NULL;       /* idle past any think time: a new session */
	if (l) {
		out->think_ns = !l->in_flight && arrival_ns > l->end_ns ? arrival_ns - l->end_ns : 0;
		unlink_link(t, l);
		l->turn++;
	} else {
		if (t->n_sessions >= CHAIN_MAX_SESSIONS)
			return 1;
		if (!(l = calloc(1, sizeof(*l))))
			return -1;
		l->session = t->n_sessions++;
		out->think_ns = 0;
	}
	l->key = key;
	l->in_flight++;
	link_in(t, l);
	out->session = l->session;
	out->turn = l->turn;
	out->link = l;
	return 0;
}

void chain_end(struct chain_link *link, int64_t end_ns)
{
	link->end_ns = end_ns;
	if (link->in_flight > 0)
		link->in_flight--;
}
