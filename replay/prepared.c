/*
 * prepared.c - the trace read and made ready to send; see prepared.h.
 */
#include "prepared.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "body.h"
#include "lib/redact.h"
#include "lib/tracefile.h"

/* The model a --model-mix sends the request to: drawn once here, from
 * --seed and the request (its session's turns all alike), so every level
 * and every rerun sends it to the same one (lib/modelmix.h). */
static const char *mix_model(const struct prepared *p, const struct replay_options *o)
{
	uint64_t key = modelmix_key(p->req.id, p->req.session);

	return o->model_mix ? o->mix.e[modelmix_pick(&o->mix, o->sched.seed, key)].name : NULL;
}

/* The body to send (replay/body.c): the command line's overrides applied. */
static int prepare_body(struct prepared *p, const struct replay_options *o)
{
	struct body_overrides ov = { o->model, o->max_tokens, o->ignore_eos,
				     typed_api_of_kind(p->req.kind), 0 };

	/* a chained session's turns are kept by the server for the next one */
	ov.store = o->previous_response_id && ov.api == TYPED_RESPONSES && p->req.session >= 0;

	if ((p->model = mix_model(p, o)) != NULL)
		ov.model = p->model;
	return body_rewrite(p->req.body, p->req.body_len, &ov, &p->body, &p->body_len);
}

/* True for "Name: REDACTED", a header whose value record proxy left out. */
static int header_is_redacted(const char *h)
{
	const char *v = h + replay_header_name_len(h);

	if (*v == ':')
		v++;
	v += strspn(v, " \t");
	return strcmp(v, REDACT_MARK) == 0;
}

/* The trace's headers, less those a -H header replaces, plus the -H ones
 * (less those the recorder redacted). */
static int prepare_headers(struct prepared *p, const struct replay_options *o)
{
	size_t i, j, n = 0;

	p->headers = calloc(p->req.n_headers + o->n_headers + 1, sizeof(char *));
	if (!p->headers)
		return -1;
	for (i = 0; i < p->req.n_headers; i++) {
		const char *h = p->req.headers[i];
		size_t len = replay_header_name_len(h);
		int replaced = 0;

		/* What a recorded client could decode is not what replay can:
		 * libcurl sends its own list and decodes the answer. */
		if (len == 15 && strncasecmp(h, "Accept-Encoding", 15) == 0)
			continue;

		for (j = 0; j < o->n_headers; j++)
			if (replay_header_name_len(o->headers[j]) == len &&
			    strncasecmp(o->headers[j], h, len) == 0)
				replaced = 1;
		/* a value the recorder redacted is not the client's: not sent */
		if (!replaced && !header_is_redacted(h))
			p->headers[n++] = p->req.headers[i];
	}
	for (j = 0; j < o->n_headers; j++)
		p->headers[n++] = o->headers[j];
	p->n_headers = n;
	return 0;
}

static void prepared_release(struct prepared *p)
{
	trace_request_release(&p->req);
	free(p->body);
	free(p->headers);   /* the strings belong to req and options */
}

void prepared_free(struct prepared *reqs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		prepared_release(&reqs[i]);
	free(reqs);
}

/* A trace record refused (trace_request_from_json): said for the first
 * PREPARED_SKIPS_SHOWN, counted; the rest of the trace replays. */
static void skip_record(const char *path, size_t lineno, const char *why, size_t *skipped)
{
	if (++*skipped <= PREPARED_SKIPS_SHOWN)
		fprintf(stderr, "tracebench replay: warning: '%s' line %zu: %s; record skipped\n",
			path, lineno, why);
}

static int grow_trace(struct prepared **reqs, size_t *cap)
{
	size_t want = *cap ? *cap * 2 : 256;
	struct prepared *nr = realloc(*reqs, want * sizeof(*nr));

	if (!nr)
		return -1;
	*reqs = nr;
	*cap = want;
	return 0;
}

/* Fills p from one record: 1 when it is to be replayed, 0 when it is
 * refused or skipped (counted), -1 when out of memory. */
static int read_record(struct prepared *p, const cJSON *rec, const struct replay_options *o,
		       const char *path, size_t lineno, size_t *refused, size_t *other)
{
	char ferr[256];

	memset(p, 0, sizeof(*p));
	trace_request_init(&p->req);
	if (trace_request_from_json(&p->req, rec, ferr, sizeof(ferr)) < 0) {
		skip_record(path, lineno, ferr, refused);
		trace_request_release(&p->req);
		return 0;
	}
	p->lineno = lineno;
	if (!o->all_requests && !trace_kind_is_inference(p->req.kind)) {
		trace_request_release(&p->req);
		++*other;
		return 0;
	}
	if (prepare_body(p, o) < 0 || prepare_headers(p, o) < 0) {
		prepared_release(p);
		return -1;
	}
	p->salt_ok = body_salt_offset(p->body, p->body_len, &p->salt_off) == 0;
	return 1;
}

/* The warnings a trace's read ends with: records refused, damage,
 * requests skipped for not being inference. */
static void say_skipped(struct tracefile_reader *r, const char *path, size_t refused,
			size_t other)
{
	if (refused)
		fprintf(stderr, "tracebench replay: warning: '%s': %zu bad record%s skipped\n",
			path, refused, refused == 1 ? "" : "s");
	if (tracefile_reader_damage(r))
		fprintf(stderr, "tracebench replay: warning: '%s': %s\n", path,
			tracefile_reader_damage(r));
	if (other)
		fprintf(stderr, "tracebench replay: skipping %zu request%s of '%s' not for "
			"inference (models lists, HEAD, ...); --all-requests replays them\n",
			other, other == 1 ? "" : "s", path);
}

struct prepared *prepared_load(const char *path, const struct replay_options *o, size_t *n,
			       struct tracefile_id *id)
{
	char err[TRACEFILE_ERRLEN];
	struct tracefile_reader *r = tracefile_reader_open(path, TRACEFILE_KIND_TRACE, err, sizeof(err));
	struct prepared *reqs = NULL;
	size_t count = 0, cap = 0, refused = 0, other = 0;
	cJSON *rec;
	int rc;

	if (!r) {
		fprintf(stderr, "tracebench replay: %s\n", err);
		return NULL;
	}
	while ((rc = tracefile_reader_next(r, &rec)) != 0) {
		if (rc < 0) {   /* not JSON: the record is refused, the rest read */
			skip_record(path, tracefile_reader_lineno(r), "not a JSON object", &refused);
			continue;
		}
		if (count == cap && grow_trace(&reqs, &cap) < 0)
			rc = -1;
		if (rc > 0)
			rc = read_record(&reqs[count], rec, o, path, tracefile_reader_lineno(r),
					 &refused, &other);
		cJSON_Delete(rec);
		if (rc < 0) {
			fprintf(stderr, "tracebench replay: '%s': out of memory\n", path);
			goto fail;
		}
		count += (size_t)rc;
	}
	say_skipped(r, path, refused, other);
	if (count == 0) {
		fprintf(stderr, "tracebench replay: '%s' holds no %srequests\n", path,
			other ? "inference " : "");
		goto fail;
	}
	tracefile_reader_id(r, id);
	tracefile_reader_close(r);
	*n = count;
	return reqs;

fail:
	tracefile_reader_close(r);
	prepared_free(reqs, count);
	return NULL;
}
