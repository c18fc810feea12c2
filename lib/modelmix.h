/*
 * modelmix.h - a mix of models, "NAME:WEIGHT,...", and the seeded draw of
 * one of them: replay --model-mix sends each request (each session) to a
 * model of the mix, as a server of several LoRA adapters is driven; mock
 * --model-speed reads the same list with factors for weights.
 *
 * The draw is a pure function of the seed and a key (the request's trace
 * id, or its session), not of the order requests are sent in: a rerun
 * sends each request to the model it went to before, and every level of a
 * sweep sees the same mix whatever its concurrency.
 */
#ifndef TB_MODELMIX_H
#define TB_MODELMIX_H

#include <stddef.h>
#include <stdint.h>

#define MODELMIX_MAX      32     /* models in one mix */
#define MODELMIX_NAME_MAX 128    /* a name's bytes, its NUL included */
#define MODELMIX_WEIGHT_MAX 1e9

struct modelmix_entry {
	char name[MODELMIX_NAME_MAX];
	double weight;           /* > 0, as given */
};

struct modelmix {
	struct modelmix_entry e[MODELMIX_MAX];
	size_t n;
	double total;            /* the weights' sum: each is weight / total */
};

/*
 * Parses "NAME[:WEIGHT],..." into *m: a name is everything before the
 * entry's last ':' (a name may hold colons, "org/adapter:v2:3" is
 * "org/adapter:v2" weighted 3), non-empty, without commas, spaces or
 * control bytes, shorter than MODELMIX_NAME_MAX, not given twice; a
 * weight is a finite number in (0, MODELMIX_WEIGHT_MAX], 1 when left out.
 * Returns 0, or -1 with why in err (errlen bytes), naming the entry.
 */
int modelmix_parse(struct modelmix *m, const char *spec, char *err, size_t errlen);

/* The index in m of the model drawn for 'key' under 'seed'. */
size_t modelmix_pick(const struct modelmix *m, uint64_t seed, uint64_t key);

/* The key of a request: its session's when it has one (session >= 0), so
 * that all the turns of a conversation go to one model, else its trace
 * id's; the two never collide. */
uint64_t modelmix_key(long trace_id, long session);

/* The index of the model 'name' in m, or -1. */
int modelmix_find(const struct modelmix *m, const char *name);

#endif
