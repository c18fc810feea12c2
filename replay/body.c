/*
 * body.c - the request body replay sends: a trace's body with the
 * command line's overrides and include_usage; see body.h.
 *
 * The body is edited as text, not parsed and printed again: cJSON checks
 * that it is one JSON object and decodes its member names, then the
 * members are copied byte for byte, less those an override replaces, and
 * the new values are appended. So what the override does not touch goes
 * out as recorded, even what a reprint would change: an integer past 2^53
 * (a 64-bit seed), a number past the range of a double (1e999 printed as
 * null), "\u0000" in a prompt (cut there by cJSON). An overridden member
 * is removed wherever it appears, so a body naming it twice still ends up
 * with one value, the asked one; "stream" is read where servers read it,
 * at its last occurrence.
 */
#include "body.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growing output buffer; on a failed allocation 'failed' is set. */
struct buf {
	char *s;
	size_t len, cap;
	int failed;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *ns = realloc(b->s, cap);

		if (!ns) {
			b->failed = 1;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/*
 * Reading the members of an object in text that cJSON has accepted, with
 * cJSON's own rules: white space is any byte up to ' ', a string ends at
 * the first '"' not escaped by '\'.
 */
struct members {
	const char *s;
	size_t len, pos;        /* pos: just after '{', then after a member */
};

static int is_space(char c)
{
	return (unsigned char)c <= ' ';
}

static size_t skip_space(const struct members *m, size_t i)
{
	while (i < m->len && is_space(m->s[i]))
		i++;
	return i;
}

/* i is at '"'; returns the index after the closing quote. */
static size_t skip_string(const struct members *m, size_t i)
{
	for (i++; i < m->len && m->s[i] != '"'; i++)
		if (m->s[i] == '\\')
			i++;
	return i + 1;
}

/* Returns the index after the value at i. */
static size_t skip_value(const struct members *m, size_t i)
{
	size_t depth = 0;

	if (i >= m->len)
		return i;
	if (m->s[i] == '"')
		return skip_string(m, i);
	if (m->s[i] != '{' && m->s[i] != '[') {   /* number, true, false, null */
		while (i < m->len && !is_space(m->s[i]) && !strchr(",}]", m->s[i]))
			i++;
		return i;
	}
	for (; i < m->len; i++) {
		if (m->s[i] == '"')
			i = skip_string(m, i) - 1;
		else if (m->s[i] == '{' || m->s[i] == '[')
			depth++;
		else if ((m->s[i] == '}' || m->s[i] == ']') && --depth == 0)
			return i + 1;
	}
	return i;
}

/*
 * The next member: sets *key (its opening quote), *val and *end (its
 * value) and returns 1, or returns 0 at the closing '}', -1 when the text
 * is not what cJSON accepted (not expected: the caller checks).
 */
static int members_next(struct members *m, size_t *key, size_t *val, size_t *end)
{
	size_t i = skip_space(m, m->pos);

	if (i < m->len && m->s[i] == ',')
		i = skip_space(m, i + 1);
	if (i >= m->len)
		return -1;
	if (m->s[i] == '}')
		return 0;
	if (m->s[i] != '"')
		return -1;
	*key = i;
	i = skip_space(m, skip_string(m, i));
	if (i >= m->len || m->s[i] != ':')
		return -1;
	*val = skip_space(m, i + 1);
	*end = skip_value(m, *val);
	if (*end > m->len || *end == *val)
		return -1;
	m->pos = *end;
	return 1;
}

/* The last member of obj named key, or NULL. */
static const cJSON *last_member(const cJSON *obj, const char *key)
{
	const cJSON *c, *found = NULL;

	for (c = obj->child; c; c = c->next)
		if (strcmp(c->string, key) == 0)
			found = c;
	return found;
}

/* What copy_members leaves out or changes. */
struct edit {
	const struct body_overrides *ov;  /* leave out the members these replace */
	int streamed;                     /* leave out every stream_options ... */
	const cJSON *opts;                /* ... but this object, given include_usage */
	int usage;                        /* leave out include_usage */
};

static int dropped(const cJSON *c, const struct edit *e)
{
	const struct body_overrides *ov = e->ov;
	const char *k = c->string;

	return (ov && ov->model && strcmp(k, "model") == 0) ||
	       (ov && ov->max_tokens > 0 && (strcmp(k, "max_tokens") == 0 ||
					     strcmp(k, "max_completion_tokens") == 0 ||
					     (ov->api == TYPED_RESPONSES &&
					      strcmp(k, "max_output_tokens") == 0))) ||
	       (ov && ov->ignore_eos && strcmp(k, "ignore_eos") == 0) ||
	       (ov && ov->store && strcmp(k, "store") == 0) ||
	       (e->streamed && strcmp(k, "stream_options") == 0) ||
	       (e->usage && strcmp(k, "include_usage") == 0);
}

/* Appends ',' before every member but the first. */
static void separate(struct buf *b, int *first)
{
	if (!*first)
		buf_add(b, ",", 1);
	*first = 0;
}

/*
 * Appends the members of the object whose '{' is at text[open] and which
 * cJSON parsed as obj, less or changed as e says. *first: no member
 * appended yet. Returns 0, or -1 when the text and obj disagree.
 */
static int copy_members(struct buf *b, const char *text, size_t len, size_t open,
			const cJSON *obj, const struct edit *e, int *first)
{
	struct members m = { text, len, open + 1 };
	const cJSON *c = obj->child;
	size_t key, val, end;
	int rc;

	while ((rc = members_next(&m, &key, &val, &end)) == 1) {
		if (!c)
			return -1;
		if (c == e->opts) {
			struct edit inner = { NULL, 0, NULL, 1 };
			int inner_first = 1;

			separate(b, first);
			buf_add(b, text + key, val - key);
			buf_add(b, "{", 1);
			if (copy_members(b, text, len, val, c, &inner, &inner_first) < 0)
				return -1;
			separate(b, &inner_first);
			buf_adds(b, "\"include_usage\":true}");
		} else if (!dropped(c, e)) {
			separate(b, first);
			buf_add(b, text + key, end - key);
		}
		c = c->next;
	}
	return rc == 0 && !c ? 0 : -1;
}

/* Appends "key":value for each override and include_usage. */
static void add_overrides(struct buf *b, const cJSON *obj, const struct body_overrides *ov,
			  int streamed, const cJSON *opts, int *first)
{
	char num[32];

	if (ov->model) {
		cJSON *str = cJSON_CreateString(ov->model);
		char *quoted = str ? cJSON_PrintUnformatted(str) : NULL;

		separate(b, first);
		buf_adds(b, "\"model\":");
		if (quoted)
			buf_adds(b, quoted);
		else
			b->failed = 1;
		cJSON_free(quoted);
		cJSON_Delete(str);
	}
	if (ov->max_tokens > 0) {
		snprintf(num, sizeof(num), "%ld", ov->max_tokens);
		separate(b, first);
		buf_adds(b, ov->api == TYPED_RESPONSES ? "\"max_output_tokens\":" :
			 "\"max_tokens\":");
		buf_adds(b, num);
		if (last_member(obj, "max_completion_tokens")) {
			buf_adds(b, ",\"max_completion_tokens\":");
			buf_adds(b, num);
		}
	}
	if (ov->ignore_eos) {
		separate(b, first);
		buf_adds(b, "\"ignore_eos\":true");
	}
	if (ov->store) {
		separate(b, first);
		buf_adds(b, "\"store\":true");
	}
	if (streamed && !opts) {
		separate(b, first);
		buf_adds(b, "\"stream_options\":{\"include_usage\":true}");
	}
}

/* A copy of the len bytes at body, NUL-terminated, or NULL. */
static char *copy(const char *body, size_t len)
{
	char *s = malloc(len + 1);

	if (s) {
		memcpy(s, body, len);
		s[len] = '\0';
	}
	return s;
}

int body_rewrite(const char *body, size_t len, const struct body_overrides *ov,
		 char **out, size_t *out_len)
{
	const char *end = NULL;
	cJSON *json = cJSON_ParseWithLengthOpts(body, len + 1, &end, 1);
	struct buf b = { NULL, 0, 0, 0 };
	size_t open = 0;
	int first = 1;

	if (!cJSON_IsObject(json) || end != body + len) {
		/* not one JSON object: sent as recorded */
		cJSON_Delete(json);
		if (!(b.s = copy(body, len)))
			return BODY_ENOMEM;
		*out = b.s;
		*out_len = len;
		return BODY_OK;
	}
	{
		const cJSON *opts = last_member(json, "stream_options");
		/* typed events bring their usage unasked (lib/typed.h) */
		struct edit e = { ov, cJSON_IsTrue(last_member(json, "stream")) &&
				  ov->api == TYPED_NONE, NULL, 0 };

		if (e.streamed && cJSON_IsObject(opts))
			e.opts = opts;
		while (open < len && body[open] != '{')   /* white space, a BOM */
			open++;
		buf_add(&b, "{", 1);
		if (copy_members(&b, body, len, open, json, &e, &first) < 0) {
			/* not expected (fuzz_body checks): send it as recorded */
			free(b.s);
			b.s = copy(body, len);
			b.len = len;
			b.failed = !b.s;
		} else {
			add_overrides(&b, json, ov, e.streamed, e.opts, &first);
			buf_add(&b, "}", 1);
		}
	}
	cJSON_Delete(json);
	if (b.failed) {
		free(b.s);
		return BODY_ENOMEM;
	}
	*out = b.s;
	*out_len = b.len;
	return BODY_OK;
}

/* ---- the salt ---------------------------------------------------------- */

/*
 * The member named key last in the object whose '{' is at text[open]:
 * sets *val to its value's first byte. Returns 0, or -1 when there is none.
 */
static int member_value(const char *text, size_t len, size_t open, const char *key,
			size_t *val)
{
	struct members m = { text, len, open + 1 };
	size_t k, v, e, klen = strlen(key);
	int found = -1;

	while (members_next(&m, &k, &v, &e) == 1) {
		/* a key is compared as written: one with escapes is not ours */
		if (k + klen + 2 <= len && text[k + klen + 1] == '"' &&
		    memcmp(text + k + 1, key, klen) == 0) {
			*val = v;
			found = 0;
		}
	}
	return found;
}

/* The first element of the array whose '[' is at text[open], in *val. */
static int first_element(const char *text, size_t len, size_t open, size_t *val)
{
	struct members m = { text, len, open + 1 };
	size_t i = skip_space(&m, open + 1);

	if (i >= len || text[i] == ']')
		return -1;
	*val = i;
	return 0;
}

/*
 * Where the text of a message's content starts: a string, or the first
 * part of a parts array that has a "text" string.
 */
static int content_text(const char *text, size_t len, size_t val, size_t *at)
{
	struct members m = { text, len, val };
	size_t i, t;

	if (text[val] == '"') {
		*at = val + 1;
		return 0;
	}
	if (text[val] != '[')
		return -1;
	for (i = skip_space(&m, val + 1); i < len && text[i] == '{';) {
		if (member_value(text, len, i, "text", &t) == 0 && text[t] == '"') {
			*at = t + 1;
			return 0;
		}
		i = skip_space(&m, skip_value(&m, i));
		if (i >= len || text[i] != ',')
			break;
		i = skip_space(&m, i + 1);
	}
	return -1;
}

int body_salt_offset(const char *body, size_t len, size_t *offset)
{
	const char *end = NULL;
	cJSON *json = cJSON_ParseWithLengthOpts(body, len + 1, &end, 1);
	size_t open = 0, v, el;
	int rc = -1;

	if (!cJSON_IsObject(json) || end != body + len)
		goto cleanup;
	while (open < len && body[open] != '{')
		open++;
	if (member_value(body, len, open, "system", &v) == 0) {
		/* Messages: the system prompt comes before the messages */
		rc = content_text(body, len, v, offset);
	} else if (member_value(body, len, open, "instructions", &v) == 0 && body[v] == '"') {
		*offset = v + 1;        /* Responses: so do the instructions */
		rc = 0;
	} else if (member_value(body, len, open, "messages", &v) == 0) {
		/* chat: the first message's content */
		if (body[v] == '[' && first_element(body, len, v, &el) == 0 && body[el] == '{' &&
		    member_value(body, len, el, "content", &v) == 0)
			rc = content_text(body, len, v, offset);
	} else if (member_value(body, len, open, "prompt", &v) == 0 ||
		   member_value(body, len, open, "input", &v) == 0) {
		/* completions: the prompt, or the first of a list of prompts;
		 * Responses: the input, or its first item's content */
		if (body[v] == '[' && first_element(body, len, v, &el) == 0)
			v = el;
		if (body[v] == '{') {
			if (member_value(body, len, v, "content", &el) == 0)
				rc = content_text(body, len, el, offset);
		} else if (body[v] == '"') {
			*offset = v + 1;
			rc = 0;
		}
	}
cleanup:
	cJSON_Delete(json);
	return rc;
}

int body_insert(const char *body, size_t len, size_t offset, const char *text,
		char **out, size_t *out_len)
{
	size_t n = strlen(text);
	char *s;

	if (offset > len)
		return BODY_ENOMEM;
	s = malloc(len + n + 1);
	if (!s)
		return BODY_ENOMEM;
	memcpy(s, body, offset);
	memcpy(s + offset, text, n);
	memcpy(s + offset + n, body + offset, len - offset);
	s[len + n] = '\0';
	*out = s;
	*out_len = len + n;
	return BODY_OK;
}

size_t body_prompt_head(const char *body, size_t len, size_t offset, size_t max)
{
	size_t i;

	for (i = offset; i < len && i - offset < max; i++) {
		if (body[i] == '"')
			break;
		if (body[i] == '\\' && i + 1 < len && i + 1 - offset < max)
			i++;    /* the escaped byte is text, even a quote */
	}
	return i - offset;
}
