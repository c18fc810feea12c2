/*
 * foreign.c - vLLM's and SGLang's benchmark results as tracebench runs;
 * see foreign.h. The formats are read from the tools' published sources
 * (vllm/benchmarks/serve.py, python/sglang/bench_serving.py): the file is
 * the tool's result dictionary dumped as JSON, one object a run.
 */
#include "analyze/foreign.h"
#include "lib/errmsg.h"
#include "lib/load.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <cjson/cJSON.h>

/* Longest request or gap believed, in seconds (a day). */
#define FOREIGN_MAX_SECONDS 86400.0
/* Largest token count believed. */
#define FOREIGN_MAX_TOKENS 1e9

/* Per-file facts gathered while reading, for the notes. */
struct foreign_reader {
	const char *path;
	const char *format;      /* of the first object */
	size_t line;             /* of the object being read */
	int no_start_times, no_latencies;
	struct result *res;
	size_t n, cap;
	cJSON *levels;           /* params.levels: the tool's own numbers */
	char *err;
	size_t errlen;
};

/* Reads the whole file (gzip or plain) into *buf, NUL-terminated. A file
 * that cannot be opened or decompressed is FOREIGN_NOT_MINE: the message
 * of the tracebench reader, which tried first, says it as well. */
static int foreign_slurp(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
	gzFile gz = gzopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	char *b = NULL;
	int got, zerr;

	if (!gz)
		return FOREIGN_NOT_MINE;
	for (;;) {
		if (n + 1 >= cap || !b) {
			char *nb;

			if (b)
				cap *= 2;
			if (cap > (size_t)FOREIGN_MAX_BYTES + 2)
				cap = (size_t)FOREIGN_MAX_BYTES + 2;
			nb = realloc(b, cap);
			if (!nb) {
				free(b);
				gzclose(gz);
				errmsg_set(err, errlen, "'%s': out of memory", path);
				return FOREIGN_ERR_WORK;
			}
			b = nb;
		}
		got = gzread(gz, b + n, (unsigned)(cap - 1 - n));
		if (got < 0) {
			free(b);
			gzclose(gz);
			return FOREIGN_NOT_MINE;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n > FOREIGN_MAX_BYTES) {
			errmsg_set(err, errlen, "'%s' is larger than %u MiB; not read", path,
				   FOREIGN_MAX_BYTES >> 20);
			free(b);
			gzclose(gz);
			return FOREIGN_ERR_INPUT;
		}
	}
	/* A gzip stream cut short reads as a clean end with a pending error. */
	gzerror(gz, &zerr);
	gzclose(gz);
	if (zerr != Z_OK && zerr != Z_STREAM_END) {
		free(b);
		return FOREIGN_NOT_MINE;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return FOREIGN_OK;
}

/*
 * Python's json.dumps writes float('inf') and NaN as the bare words
 * Infinity, -Infinity and NaN, which JSON has not (SGLang's request_rate
 * of an unlimited run is one). Outside strings they become null: a copy
 * of *buf (len bytes, NUL-terminated) replaces it, one byte longer for
 * each NaN, the others padded with spaces; no line changes. Returns 0, or
 * -1 when memory runs out (*buf untouched).
 */
static int foreign_unpython(char **buf, size_t *len)
{
	static const char *const words[] = { "-Infinity", "Infinity", "NaN" };
	const char *b = *buf;
	size_t i, k, wl, n = *len, grow = 0, found = 0;
	int in_string, pass;
	char *out = NULL;

	/* pass 0 counts the NaNs (each grows by one), pass 1 copies */
	for (pass = 0; pass < 2; pass++) {
		size_t o = 0;

		if (pass == 1) {
			if (!found)
				return 0;
			if (!(out = malloc(n + grow + 1)))
				return -1;
		}
		in_string = 0;
		for (i = 0; i < n; i++) {
			if (in_string || b[i] == '"') {
				if (!in_string)
					in_string = 1;
				else if (b[i] == '\\' && i + 1 < n) {
					if (out)
						out[o++] = b[i];
					i++;
				} else if (b[i] == '"') {
					in_string = 0;
				}
				if (out)
					out[o++] = b[i];
				continue;
			}
			for (k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
				wl = strlen(words[k]);
				if (n - i >= wl && memcmp(b + i, words[k], wl) == 0)
					break;
			}
			if (k == sizeof(words) / sizeof(words[0])) {
				if (out)
					out[o++] = b[i];
				continue;
			}
			if (!out) {
				found++;
				grow += wl < 4 ? 4 - wl : 0;
			} else {
				memcpy(out + o, "null", 4);
				o += 4;
				if (wl > 4) {
					memset(out + o, ' ', wl - 4);
					o += wl - 4;
				}
			}
			i += wl - 1;
		}
		if (out) {
			out[o] = '\0';
			free(*buf);
			*buf = out;
			*len = o;
		}
	}
	return 0;
}

static int foreign_fail(struct foreign_reader *fr, const char *fmt, const char *what)
{
	char msg[256];

	snprintf(msg, sizeof(msg), fmt, what);
	errmsg_set(fr->err, fr->errlen, "'%s' line %zu: %s", fr->path, fr->line, msg);
	return FOREIGN_ERR_INPUT;
}

static int has(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key) != NULL;
}

/* "vllm", "sglang", or NULL for an object of neither. */
static const char *foreign_detect(const cJSON *o)
{
	static const char *const sglang_keys[] = {
		"mean_e2e_latency_ms", "total_output_tokens_retokenized", "accept_length",
		"server_info", "sharegpt_output_len",
	};
	static const char *const vllm_keys[] = {
		"endpoint_type", "tokenizer_id", "num_prompts", "mean_e2el_ms", "model_id",
	};
	size_t i;

	for (i = 0; i < sizeof(sglang_keys) / sizeof(sglang_keys[0]); i++)
		if (has(o, sglang_keys[i]))
			return "sglang";
	for (i = 0; i < sizeof(vllm_keys) / sizeof(vllm_keys[0]); i++)
		if (has(o, vllm_keys[i]))
			return "vllm";
	return NULL;
}

/* The array 'key' of o with n elements (n 0: any length, set *n). NULL,
 * with the reader's error set, when it is missing (and 'required') or not
 * an array of that length; NULL with no error when absent and optional. */
static const cJSON *foreign_array(struct foreign_reader *fr, const cJSON *o, const char *key,
				  int required, size_t *n, int *rc)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);

	*rc = 0;
	if (!a || cJSON_IsNull(a)) {
		if (required)
			*rc = foreign_fail(fr, "no '%s' array: not a per-request result this "
					   "tracebench knows (an unknown version?)", key);
		return NULL;
	}
	if (!cJSON_IsArray(a)) {
		*rc = foreign_fail(fr, "'%s' is not an array (an unknown version?)", key);
		return NULL;
	}
	if (*n == 0) {
		*n = (size_t)cJSON_GetArraySize(a);
	} else if ((size_t)cJSON_GetArraySize(a) != *n) {
		*rc = foreign_fail(fr, "'%s' has a different length from 'ttfts'", key);
		return NULL;
	}
	return a;
}

/* A time in seconds, range-checked, into *ns. */
static int foreign_seconds(const cJSON *v, int64_t *ns)
{
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
	    v->valuedouble > FOREIGN_MAX_SECONDS)
		return -1;
	*ns = llround(v->valuedouble * 1e9);
	return 0;
}

static int foreign_count(const cJSON *v, int64_t *out)
{
	if (cJSON_IsNull(v)) {
		*out = -1;
		return 0;
	}
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
	    v->valuedouble > FOREIGN_MAX_TOKENS || v->valuedouble != floor(v->valuedouble))
		return -1;
	*out = (int64_t)v->valuedouble;
	return 0;
}

/* The per-request gaps of one request into r. */
static int foreign_gaps(struct foreign_reader *fr, const cJSON *gaps, struct result *r,
			int64_t *sum)
{
	const cJSON *g;
	size_t n = (size_t)cJSON_GetArraySize(gaps), k = 0;

	*sum = 0;
	if (!cJSON_IsArray(gaps))
		return foreign_fail(fr, "an element of '%s' is not an array of gaps", "itls");
	if (!n)
		return 0;
	r->itl_ns = malloc(n * sizeof(*r->itl_ns));
	if (!r->itl_ns) {
		errmsg_set(fr->err, fr->errlen, "'%s': out of memory", fr->path);
		return FOREIGN_ERR_WORK;
	}
	cJSON_ArrayForEach(g, gaps) {
		if (foreign_seconds(g, &r->itl_ns[k]) != 0)
			return foreign_fail(fr, "a gap in '%s' is not a time in seconds", "itls");
		/* each gap is at most a day; so must their sum be, the request's
		 * decode time (int64 ns would overflow past 10^5 such gaps) */
		*sum += r->itl_ns[k++];
		if (*sum > (int64_t)(FOREIGN_MAX_SECONDS * 1e9))
			return foreign_fail(fr, "the gaps of a request in '%s' add up to more "
					    "than a day", "itls");
	}
	r->n_itl = k;
	return 0;
}

/* The level code (lib/load.h) of an object: its max_concurrency, or the
 * open loop's. */
static int foreign_level(const cJSON *o)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "max_concurrency");

	if (cJSON_IsNumber(c) && c->valuedouble >= 1 && c->valuedouble <= 1000000)
		return load_code(load_closed((int)c->valuedouble));
	return load_code(load_open(NAN));
}

/* Copies the tool's own run-level numbers into params.levels. */
static void foreign_note_level(struct foreign_reader *fr, const cJSON *o, int level)
{
	static const char *const keys[] = {
		"request_rate", "duration", "completed", "failed", "request_throughput",
		"output_throughput", "mean_ttft_ms", "median_ttft_ms", "p99_ttft_ms",
	};
	cJSON *l = cJSON_CreateObject();
	size_t i;

	if (!l)
		return;
	cJSON_AddNumberToObject(l, "level", level);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, keys[i]);

		if (cJSON_IsNumber(v) || cJSON_IsString(v))
			cJSON_AddItemToObject(l, keys[i], cJSON_Duplicate(v, 0));
	}
	cJSON_AddItemToArray(fr->levels, l);
}

/* One result object of the tool: its requests appended to fr->res. */
/* The per-request arrays of one result object. */
struct foreign_arrays {
	const cJSON *ttfts, *itls, *ins, *outs, *errors;
	const cJSON *lats, *starts;     /* NULL: not in the file */
	double t0;                      /* the earliest start time */
};

/* Room in fr->res for n more results. */
static int foreign_reserve(struct foreign_reader *fr, size_t n)
{
	size_t cap = fr->cap ? fr->cap : 64;
	struct result *nr;

	if (fr->n + n <= fr->cap)
		return FOREIGN_OK;
	while (cap < fr->n + n)
		cap *= 2;
	nr = realloc(fr->res, cap * sizeof(*nr));
	if (!nr) {
		errmsg_set(fr->err, fr->errlen, "'%s': out of memory", fr->path);
		return FOREIGN_ERR_WORK;
	}
	fr->res = nr;
	fr->cap = cap;
	return FOREIGN_OK;
}

/* Request i of the arrays a into r. */
static int foreign_request(struct foreign_reader *fr, const struct foreign_arrays *a, size_t i,
			   struct result *r)
{
	const cJSON *e = cJSON_GetArrayItem(a->errors, (int)i);
	int64_t ttft = 0, sum = 0, e2e = -1;
	int rc;

	if (foreign_seconds(cJSON_GetArrayItem(a->ttfts, (int)i), &ttft) != 0)
		return foreign_fail(fr, "an element of '%s' is not a time in seconds", "ttfts");
	if (foreign_count(cJSON_GetArrayItem(a->ins, (int)i), &r->input_tokens) != 0)
		return foreign_fail(fr, "an element of '%s' is not a token count", "input_lens");
	if (foreign_count(cJSON_GetArrayItem(a->outs, (int)i), &r->output_tokens) != 0)
		return foreign_fail(fr, "an element of '%s' is not a token count", "output_lens");
	if (r->output_tokens < 0)
		r->output_tokens = 0;
	if ((rc = foreign_gaps(fr, cJSON_GetArrayItem(a->itls, (int)i), r, &sum)) != 0)
		return rc;
	if (a->lats && foreign_seconds(cJSON_GetArrayItem(a->lats, (int)i), &e2e) != 0)
		return foreign_fail(fr, "an element of '%s' is not a time in seconds", "latencies");
	if (a->starts) {
		double s = cJSON_GetArrayItem(a->starts, (int)i)->valuedouble - a->t0;

		if (s > FOREIGN_MAX_SECONDS * 30)
			return foreign_fail(fr, "'%s' spans more than a month", "start_times");
		r->sched_ns = r->send_ns = llround(s * 1e9);
	}
	if (!cJSON_IsNull(e) && !cJSON_IsString(e))
		return foreign_fail(fr, "an element of '%s' is not a string", "errors");
	if (cJSON_IsString(e) && e->valuestring[0]) {
		/* The tools keep an exception's text or the HTTP reason only. */
		result_set_error(r, "other", e->valuestring);
		r->e2e_ns = e2e >= 0 ? e2e : 0;
		return FOREIGN_OK;
	}
	r->status = 200;
	r->ttft_ns = ttft;
	r->e2e_ns = e2e >= 0 ? e2e : ttft + sum;
	return FOREIGN_OK;
}

static int foreign_object(struct foreign_reader *fr, const cJSON *o, int level, int repeat)
{
	struct foreign_arrays a = { .t0 = INFINITY };
	size_t n = 0, i;
	int rc;

	if (!(a.ttfts = foreign_array(fr, o, "ttfts", 1, &n, &rc)) ||
	    !(a.itls = foreign_array(fr, o, "itls", 1, &n, &rc)) ||
	    !(a.ins = foreign_array(fr, o, "input_lens", 1, &n, &rc)) ||
	    !(a.outs = foreign_array(fr, o, "output_lens", 1, &n, &rc)) ||
	    !(a.errors = foreign_array(fr, o, "errors", 1, &n, &rc)))
		return rc;
	a.lats = foreign_array(fr, o, "latencies", 0, &n, &rc);
	if (rc)
		return rc;
	a.starts = foreign_array(fr, o, "start_times", 0, &n, &rc);
	if (rc)
		return rc;
	fr->no_latencies |= !a.lats;
	fr->no_start_times |= !a.starts;
	for (i = 0; a.starts && i < n; i++) {
		const cJSON *s = cJSON_GetArrayItem(a.starts, (int)i);

		if (!cJSON_IsNumber(s) || !isfinite(s->valuedouble))
			return foreign_fail(fr, "an element of '%s' is not a number", "start_times");
		if (s->valuedouble < a.t0)
			a.t0 = s->valuedouble;
	}
	if ((rc = foreign_reserve(fr, n)) != FOREIGN_OK)
		return rc;
	for (i = 0; i < n; i++) {
		struct result *r = &fr->res[fr->n];

		result_init(r);
		fr->n++;
		r->level = level;
		r->repeat = repeat;
		r->seq = (long)(fr->n - 1);
		r->trace_id = (long)i;
		if ((rc = foreign_request(fr, &a, i, r)) != FOREIGN_OK)
			return rc;
	}
	foreign_note_level(fr, o, level);
	return FOREIGN_OK;
}

/* "20250101-120000" (vLLM's date) as "2025-01-01T12:00:00" (local time). */
static char *foreign_created(const cJSON *o)
{
	const char *d = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "date"));
	char buf[32];

	if (!d || strlen(d) != 15 || d[8] != '-' || strspn(d, "0123456789") != 8 ||
	    strspn(d + 9, "0123456789") != 6)
		return NULL;
	snprintf(buf, sizeof(buf), "%.4s-%.2s-%.2sT%.2s:%.2s:%.2s", d, d + 4, d + 6, d + 9,
		 d + 11, d + 13);
	return strdup(buf);
}

static char *dup_string(const cJSON *o, const char *key)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));

	return s && *s ? strdup(s) : NULL;
}

/* Header fields and params of the run, from its first object. */
static int foreign_describe(struct foreign_reader *fr, const cJSON *first, uLong crc,
			    struct db_import *out)
{
	int vllm = strcmp(fr->format, "vllm") == 0;
	cJSON *params = cJSON_CreateObject(), *notes;
	char id[64];

	snprintf(id, sizeof(id), "%s-%08lx", fr->format, (unsigned long)crc);
	out->run_id = strdup(id);
	out->tool = strdup(vllm ? "vllm bench serve" : "sglang bench_serving");
	out->created = foreign_created(first);
	out->label = dup_string(first, vllm ? "label" : "tag");
	if (!out->label) {
		char *date = dup_string(first, "date");

		/* the date has seconds: two runs of one second, one label, would
		 * merge into one run as a run's shards do; the file's crc tells them apart */
		if (date)
			snprintf(id, sizeof(id), "%s-%s-%08lx", fr->format, date, (unsigned long)crc);
		free(date);
		out->label = strdup(id);
	}
	out->model = dup_string(first, "model_id");
	out->endpoint = dup_string(first, "backend");
	out->mode = strdup(load_of_code(foreign_level(first), NAN).kind == LOAD_CLOSED ? "closed" :
			   "open");
	if (!params || !out->run_id || !out->tool || !out->label || !out->mode)
		goto oom;
	cJSON_AddStringToObject(params, "mode", out->mode);
	cJSON_AddStringToObject(params, "source_format", fr->format);
	if (fr->no_start_times)
		cJSON_AddFalseToObject(params, "start_times");
	cJSON_AddItemToObject(params, "levels", fr->levels);
	fr->levels = NULL;
	notes = cJSON_AddArrayToObject(params, "notes");
	cJSON_AddItemToArray(notes, cJSON_CreateString(
		"TTFA: not in the file; TTFT, ITL and E2E as the tool measured them "
		"(README, Metrics: results of other tools)"));
	if (fr->no_latencies)
		cJSON_AddItemToArray(notes, cJSON_CreateString(
			"no per-request latencies in the file: E2E is TTFT plus the "
			"inter-token gaps (it ends at the last token)"));
	if (fr->no_start_times)
		cJSON_AddItemToArray(notes, cJSON_CreateString(
			"no start times in the file: Wall(s), Agg tok/s and good req/s are "
			"unknown (-), and compare does not judge Agg tok/s"));
	out->params_json = cJSON_PrintUnformatted(params);
	cJSON_Delete(params);
	if (!out->params_json)
		goto oom;
	return FOREIGN_OK;
oom:
	cJSON_Delete(params);
	errmsg_set(fr->err, fr->errlen, "'%s': out of memory", fr->path);
	return FOREIGN_ERR_WORK;
}

/* True when the object starting at p is still open at end: the file was
 * cut inside it (rather than holding a JSON error). */
static int foreign_cut_short(const char *p, const char *end)
{
	int depth = 0, in_string = 0;

	for (; p < end; p++) {
		if (in_string) {
			if (*p == '\\' && p + 1 < end)
				p++;
			else if (*p == '"')
				in_string = 0;
		} else if (*p == '"') {
			in_string = 1;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			if (--depth == 0)
				return 0;
		}
	}
	return 1;
}

static size_t count_lines(const char *from, const char *to)
{
	size_t n = 0;

	for (; from < to; from++)
		n += *from == '\n';
	return n;
}

/* p past the white space before end, counting its lines into *line. */
static const char *skip_space(const char *p, const char *end, size_t *line)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		*line += *p++ == '\n';
	return p;
}

/* Whether obj is a result object of the tool the file's earlier ones came
 * from, with its per-request results: FOREIGN_OK, FOREIGN_NOT_MINE (a
 * tracebench header as the file's first object) or the error. */
static int foreign_check_object(struct foreign_reader *fr, const cJSON *obj, int is_first)
{
	const char *format;

	/* A tracebench file's header that its reader refused: its message
	 * (a newer version, ...) says more than ours would. */
	if (is_first && has(obj, "format"))
		return FOREIGN_NOT_MINE;
	format = foreign_detect(obj);
	if (!format)
		return foreign_fail(fr, "%s", "not a result of a tool tracebench reads "
				    "(vllm bench serve --save-detailed, sglang bench_serving "
				    "--output-details)");
	if (fr->format && strcmp(format, fr->format) != 0)
		return foreign_fail(fr, "a %s result after results of another tool", format);
	fr->format = format;
	if (!has(obj, "ttfts"))
		return foreign_fail(fr, "%s", strcmp(format, "vllm") == 0 ?
				    "saved without per-request results (vllm bench serve "
				    "needs --save-detailed)" :
				    "saved without per-request results (sglang bench_serving "
				    "needs --output-details)");
	return FOREIGN_OK;
}

/* The repeat of a new object of 'level': one past its earlier objects'. */
static int foreign_next_repeat(const struct foreign_reader *fr, int level)
{
	int repeat = 0;
	size_t j;

	for (j = 0; j < fr->n; j++)
		if (fr->res[j].level == level && fr->res[j].repeat >= repeat)
			repeat = fr->res[j].repeat + 1;
	return repeat;
}

int foreign_read(const char *path, struct db_import *out, char *err, size_t errlen)
{
	struct foreign_reader fr = { 0 };
	char *buf = NULL;
	const char *p, *end, *parse_end = NULL;
	cJSON *obj = NULL, *first = NULL;
	size_t len = 0, line = 1, i;
	int rc;

	memset(out, 0, sizeof(*out));
	fr.path = path;
	fr.err = err;
	fr.errlen = errlen;
	rc = foreign_slurp(path, &buf, &len, err, errlen);
	if (rc)
		return rc;
	if (foreign_unpython(&buf, &len)) {
		free(buf);
		errmsg_set(err, errlen, "'%s': out of memory", path);
		return FOREIGN_ERR_WORK;
	}
	end = buf + len;
	p = skip_space(buf, end, &line);
	if (p == end || *p != '{') {
		free(buf);
		return FOREIGN_NOT_MINE;
	}
	fr.levels = cJSON_CreateArray();
	if (!fr.levels) {
		rc = FOREIGN_ERR_WORK;
		errmsg_set(err, errlen, "'%s': out of memory", path);
		goto cleanup;
	}
	while (p < end) {
		int level;

		fr.line = line;
		obj = cJSON_ParseWithLengthOpts(p, (size_t)(end - p), &parse_end, 0);
		if (!cJSON_IsObject(obj)) {
			int cut = foreign_cut_short(p, end);

			fr.line = line + count_lines(p, cut ? end : parse_end && parse_end > p ?
						     parse_end : p);
			rc = foreign_fail(&fr, "%s", cut ? "truncated JSON (the file ends inside "
					  "an object)" : "malformed JSON, or not an object");
			goto cleanup;
		}
		if ((rc = foreign_check_object(&fr, obj, !first && !fr.n)) != FOREIGN_OK)
			goto cleanup;
		level = foreign_level(obj);
		rc = foreign_object(&fr, obj, level, foreign_next_repeat(&fr, level));
		if (rc)
			goto cleanup;
		line += count_lines(p, parse_end);
		p = skip_space(parse_end, end, &line);
		if (first)
			cJSON_Delete(obj);
		else
			first = obj;
		obj = NULL;
	}
	if (fr.n == 0) {
		fr.line = 1;
		rc = foreign_fail(&fr, "%s", "holds no requests");
		goto cleanup;
	}
	rc = foreign_describe(&fr, first, crc32(0L, (const Bytef *)buf, (uInt)len), out);
	if (rc)
		goto cleanup;
	out->results = fr.res;
	out->n = fr.n;
	fr.res = NULL;
	fr.n = 0;
cleanup:
	for (i = 0; i < fr.n; i++)
		result_release(&fr.res[i]);
	free(fr.res);
	cJSON_Delete(fr.levels);
	cJSON_Delete(obj);
	cJSON_Delete(first);
	free(buf);
	if (rc)
		db_import_release(out);
	return rc;   /* FOREIGN_NOT_MINE leaves err untouched */
}
