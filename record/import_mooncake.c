/*
 * import_mooncake.c - the Mooncake format of `record import`: one JSON
 * object per line with a timestamp in ms, the input and output lengths and
 * the hash ids of the prompt's 512-token blocks, which import_write.c
 * turns into shared text so that a prefix cache sees the reuse the real
 * workload had; and --sessions prefix, which joins rows whose hash ids
 * continue an earlier row's into sessions.
 */
#include "import.h"
#include "import_rows.h"
#include "csv.h"
#include "lib/chain.h"
#include "lib/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MOONCAKE_MAX_LINE (1u << 20)

/* Mooncake: {"timestamp": ms, "input_length": N, "output_length": N, "hash_ids": [...]} */
static int mooncake_row(struct import *im, long line, const char *text, size_t len)
{
	cJSON *o = cJSON_ParseWithLengthOpts(text, len + 1, NULL, 1);     /* text[len] is NUL */
	const cJSON *t, *ids, *h;
	int64_t in, out;
	struct row r = { .conv = -1, .session = -1, .parent = -1 };
	size_t max_blocks, n = 0;
	int rc = 0;

	if (!cJSON_IsObject(o)) {
		import_bad_row(im, line, o ? "not a JSON object" : "not valid JSON");
		goto cleanup;
	}
	t = cJSON_GetObjectItemCaseSensitive(o, "timestamp");
	if (!cJSON_IsNumber(t) || !(t->valuedouble >= 0) || t->valuedouble > 9e12) {
		import_bad_row(im, line, "field 'timestamp' is missing or not a non-negative number of ms");
		goto cleanup;
	}
	if (json_get_int64(o, "input_length", &in) != 1 || in < 0 || in > IMPORT_MAX_LENGTH) {
		import_bad_row(im, line, "field 'input_length' is missing or not an integer in [0, %ld]",
			       IMPORT_MAX_LENGTH);
		goto cleanup;
	}
	if (json_get_int64(o, "output_length", &out) != 1 || out < 0 || out > IMPORT_MAX_LENGTH) {
		import_bad_row(im, line, "field 'output_length' is missing or not an integer in [0, %ld]",
			       IMPORT_MAX_LENGTH);
		goto cleanup;
	}
	ids = cJSON_GetObjectItemCaseSensitive(o, "hash_ids");
	if (ids && !cJSON_IsNull(ids) && !cJSON_IsArray(ids)) {
		import_bad_row(im, line, "field 'hash_ids' is not an array");
		goto cleanup;
	}
	max_blocks = (size_t)(in + IMPORT_BLOCK_WORDS - 1) / IMPORT_BLOCK_WORDS;
	if ((size_t)cJSON_GetArraySize(ids) > max_blocks) {
		import_bad_row(im, line, "%d hash_ids, but input_length %ld fills only %zu block%s of %d",
			cJSON_GetArraySize(ids), (long)in, max_blocks, max_blocks == 1 ? "" : "s",
			IMPORT_BLOCK_WORDS);
		goto cleanup;
	}
	cJSON_ArrayForEach(h, ids) {
		if (!cJSON_IsNumber(h) || h->valuedouble < 0 || h->valuedouble != floor(h->valuedouble) ||
		    h->valuedouble > 9007199254740992.0) {
			import_bad_row(im, line, "hash_ids[%zu] is not a non-negative integer", n);
			im->n_hashes -= n;
			goto cleanup;
		}
		if (import_add_hash(im, (uint64_t)h->valuedouble) < 0) {
			rc = -1;
			goto cleanup;
		}
		n++;
	}
	if (!import_lengths_ok(im, line, (long)in, (long)out)) {
		im->n_hashes -= n;
		goto cleanup;
	}
	r.t_ns = (int64_t)floor(t->valuedouble * 1e6 + 0.5);
	r.line = line;
	r.in = (long)in;
	r.out = (long)out;
	r.hash_off = im->n_hashes - n;
	r.n_hash = n;
	rc = import_add_row(im, &r);
cleanup:
	cJSON_Delete(o);
	return rc;
}

/* Mooncake: one JSON object per line. Returns 0, or -1 with a message in err. */
int import_read_mooncake(struct import *im, FILE *f, char *err, size_t errlen)
{
	char *buf = malloc(MOONCAKE_MAX_LINE);
	long line = 0;
	size_t len;
	int rc = 0, got;

	if (!buf)
		return import_out_of_memory(im, err, errlen);
	while ((got = csv_read_line(f, buf, MOONCAKE_MAX_LINE, &len)) != 0) {
		line++;
		if (got == -2) {
			rc = import_read_error(im, err, errlen);
			break;
		}
		if (got == -1) {
			import_bad_row(im, line, "longer than %u bytes", MOONCAKE_MAX_LINE);
			continue;
		}
		if (strspn(buf, " \t") == len)
			continue;
		if (mooncake_row(im, line, buf, len) < 0) {
			rc = import_out_of_memory(im, err, errlen);
			break;
		}
	}
	free(buf);
	return rc;
}

/*
 * --sessions prefix: the Mooncake rows[0, n) (kept, in time order) into
 * sessions. A row whose hash_ids begin with all of an earlier row's, two
 * blocks or more and fewer than its own, continues that row's session
 * (lib/chain.h: the longest such prefix, each turn continued once); its
 * think time is the gap between the two arrivals, all that the trace
 * tells. One block is not enough: every row of the published traces
 * begins with the same block, a shared system prompt. A session of one
 * turn is left a request of its own. Returns 0, or -1 when out of memory.
 */
int import_group_by_prefix(const struct import *im, struct row *rows, size_t n)
{
	struct chain_table t;
	uint64_t *pre = NULL;
	long *last = malloc((n ? n : 1) * sizeof(*last)), *turns = calloc(n ? n : 1, sizeof(*turns));
	size_t i, j, cap = 0;
	int rc = -1;

	if (!last || !turns || chain_init(&t) < 0) {
		free(last);
		free(turns);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct row *r = &rows[i];
		uint64_t h = CHAIN_HASH_INIT, prefix = 0;
		struct chain_turn ct;
		int got;

		if (!r->n_hash)
			continue;
		if (r->n_hash > cap) {
			uint64_t *p = realloc(pre, r->n_hash * sizeof(*p));

			if (!p)
				goto cleanup;
			pre = p;
			cap = r->n_hash;
		}
		for (j = 0; j < r->n_hash; j++)
			pre[j] = h = chain_hash(h, &im->hashes[r->hash_off + j], sizeof(uint64_t));
		for (j = r->n_hash - 1; j >= 2 && !prefix; j--)
			if (chain_find(&t, pre[j - 1]))
				prefix = pre[j - 1];
		if ((got = chain_join(&t, prefix, pre[r->n_hash - 1], r->t_ns, &ct)) < 0)
			goto cleanup;
		if (got > 0)
			continue;       /* past the sessions' cap: a request of its own */
		chain_end(ct.link, r->t_ns);
		r->session = ct.session;
		r->turn = ct.turn;
		r->think_ns = ct.think_ns;
		r->parent = ct.turn ? last[ct.session] : -1;
		last[ct.session] = (long)i;
		turns[ct.session]++;
	}
	for (i = 0; i < n; i++)
		if (rows[i].session >= 0 && turns[rows[i].session] == 1) {
			rows[i].session = -1;
			rows[i].turn = 0;
		}
	rc = 0;
cleanup:
	chain_release(&t);
	free(pre);
	free(last);
	free(turns);
	return rc;
}
