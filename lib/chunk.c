/*
 * chunk.c - the lean read of a streamed chunk; see chunk.h.
 *
 * A recursive descent over the bytes that validates every value and reads
 * the members of a few objects, each in its role (the chunk, its usage, a
 * choice, ...), by tables of the keys the meter needs. The NUL at
 * data[len] ends every loop: no rule of the grammar takes a NUL, so one
 * inside the data fails the scan as the end of the data does.
 *
 * Where cJSON (1.7, as lib/meter.c calls it) reads a chunk its own way,
 * the scan answers CHUNK_EUNSURE: bytes after the value, a byte order
 * mark, whitespace other than the four of JSON (cJSON skips every byte up
 * to 32), raw control bytes in strings (cJSON keeps them, a NUL cutting
 * the string short), \u0000 (cuts it too), surrogate escapes (cJSON
 * refuses a lone one), escaped keys (cJSON compares them unescaped),
 * duplicate keys (cJSON takes the first), leading zeros, a number longer
 * than cJSON's 63-byte copy of it, "choices" as an object (cJSON walks its
 * members as choices), and every non-strict form. UTF-8 is not checked:
 * cJSON copies the bytes as they are, and neither reads past their first.
 */
#include "chunk.h"

#include <string.h>

/* Longest number scanned; cJSON reads at most 63 bytes of one. */
#define MAX_NUMBER 32

/* Where an object or array sits, which says what of it is read. */
enum role {
	R_OTHER,      /* nothing */
	R_TOP,        /* the chunk */
	R_USAGE,
	R_DETAILS,    /* usage.prompt_tokens_details */
	R_CHOICES,    /* the choices array: its elements are R_CHOICE */
	R_CHOICE,
	R_DELTA,      /* a choice's delta */
};

/* What a member's value tells. */
enum what {
	W_NONE,
	W_NULL,       /* must be null (else cJSON's path reads it) */
	W_TOOLS,      /* must be null or [] (else a tool call: cJSON's path) */
	W_ANSWER,     /* a non-empty string is answer text */
	W_REASONING,  /* a non-empty string is reasoning text */
	W_COMPLETION, W_PROMPT, W_CACHED,   /* a number is that count */
};

struct key {
	const char *name;
	size_t len;
	enum role value;       /* the role of its value */
	enum what what;
};

#define K(name, value, what) { name, sizeof(name) - 1, value, what }
static const struct key top_keys[] = {
	K("error", R_OTHER, W_NULL),
	K("usage", R_USAGE, W_NONE),
	K("choices", R_CHOICES, W_NONE),
	/* a server's own timings (lib/srvtiming.h): once a request */
	K("timings", R_OTHER, W_NULL),
	K("metrics", R_OTHER, W_NULL),
}, usage_keys[] = {
	K("completion_tokens", R_OTHER, W_COMPLETION),
	K("prompt_tokens", R_OTHER, W_PROMPT),
	K("prompt_tokens_details", R_DETAILS, W_NONE),
}, details_keys[] = {
	K("cached_tokens", R_OTHER, W_CACHED),
}, choice_keys[] = {
	K("text", R_OTHER, W_ANSWER),
	K("delta", R_DELTA, W_NONE),
}, delta_keys[] = {
	K("content", R_OTHER, W_ANSWER),
	K("reasoning_content", R_OTHER, W_REASONING),
	K("reasoning", R_OTHER, W_REASONING),
	K("tool_calls", R_OTHER, W_TOOLS),
	K("function_call", R_OTHER, W_NULL),
};
#undef K

/* The keys read in an object of each role. */
#define KEYS(a) { (a), sizeof(a) / sizeof((a)[0]) }
static const struct {
	const struct key *k;
	size_t n;
} role_keys[] = {
	[R_TOP] = KEYS(top_keys),
	[R_USAGE] = KEYS(usage_keys),
	[R_DETAILS] = KEYS(details_keys),
	[R_CHOICE] = KEYS(choice_keys),
	[R_DELTA] = KEYS(delta_keys),
};
#undef KEYS

/* What a value was. */
enum kind {
	K_NULL, K_BOOL, K_NUMBER,
	K_EMPTY_STRING, K_STRING,
	K_EMPTY_ARRAY, K_ARRAY, K_OBJECT,
};

struct scan {
	const unsigned char *p;
	struct chunk *c;
	int depth;
	bool escaped;         /* the last string held an escape */
	bool exact;           /* the last number is a plain integer of at most
			       * 15 digits, in 'number': strtod's value exactly */
	double number;
};

static int scan_value(struct scan *s, enum role r);

static void skip_ws(struct scan *s)
{
	while (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')
		s->p++;
}

static int hex(unsigned char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Steps *p over the escape it points at; -1 for a bad one, \u0000 or a
 * surrogate. */
static int scan_escape(const unsigned char **p)
{
	const unsigned char *e = *p + 1;
	unsigned code = 0;
	int i;

	if (*e && strchr("\"\\/bfnrt", *e)) {
		*p = e + 1;
		return 0;
	}
	if (*e != 'u')
		return -1;
	for (i = 1; i <= 4; i++) {
		int h = hex(e[i]);

		if (h < 0)
			return -1;
		code = code << 4 | (unsigned)h;
	}
	if (code == 0 || (code >= 0xD800 && code <= 0xDFFF))
		return -1;
	*p = e + 5;
	return 0;
}

/* A string, from its opening quote. Every escape scan_escape takes stands
 * for at least one byte in cJSON's copy, so a string with one is not
 * empty there either. */
static int scan_string(struct scan *s)
{
	const unsigned char *p = s->p + 1;
	int kind = *p == '"' ? K_EMPTY_STRING : K_STRING;

	s->escaped = false;
	while (*p != '"') {
		if (*p < 0x20)          /* a raw control byte, or the end */
			return -1;
		if (*p == '\\') {
			if (scan_escape(&p) < 0)
				return -1;
			s->escaped = true;
		} else {
			p++;
		}
	}
	s->p = p + 1;
	return kind;
}

static int scan_number(struct scan *s)
{
	const unsigned char *p = s->p;
	unsigned long long v = 0;
	bool plain = *p != '-';

	if (*p == '-')
		p++;
	if (*p == '0') {
		p++;
	} else if (*p >= '1' && *p <= '9') {
		while (*p >= '0' && *p <= '9')
			v = v * 10 + (unsigned)(*p++ - '0');
	} else {
		return -1;
	}
	if (*p == '.') {
		plain = false;
		if (*++p < '0' || *p > '9')
			return -1;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		plain = false;
		if (*++p == '+' || *p == '-')
			p++;
		if (*p < '0' || *p > '9')
			return -1;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (p - s->p > MAX_NUMBER)
		return -1;
	s->exact = plain && p - s->p <= 15;
	s->number = (double)v;
	s->p = p;
	return K_NUMBER;
}

/* A literal ("true", "false", "null"), compared a byte at a time so that
 * the NUL at the end stops it. */
static int scan_literal(struct scan *s, const char *word, int kind)
{
	const unsigned char *p = s->p;

	for (; *word; word++, p++)
		if (*p != (unsigned char)*word)
			return -1;
	s->p = p;
	return kind;
}

/* The index in role_keys[r] of a key of an object in role r, or -1. */
static int find_key(enum role r, const unsigned char *name, size_t len)
{
	size_t i;

	for (i = 0; i < role_keys[r].n; i++)
		if (role_keys[r].k[i].len == len && memcmp(role_keys[r].k[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

/* Folds a member's value of kind 'kind' into the chunk; -1 when cJSON's
 * path must read it. */
static int take(struct scan *s, const struct key *k, int kind)
{
	struct chunk *c = s->c;

	switch (k->what) {
	case W_NONE:
		return 0;
	case W_NULL:
		return kind == K_NULL ? 0 : -1;
	case W_TOOLS:
		return kind == K_NULL || kind == K_EMPTY_ARRAY ? 0 : -1;
	case W_ANSWER:
	case W_REASONING:
		if (kind == K_STRING)
			*(k->what == W_ANSWER ? &c->answer : &c->reasoning) = true;
		return 0;
	case W_COMPLETION:
	case W_PROMPT:
	case W_CACHED:
		if (kind != K_NUMBER)
			return 0;
		if (!s->exact)
			return -1;
		if (k->what == W_COMPLETION) {
			c->has_completion = true;
			c->completion = s->number;
		} else if (k->what == W_PROMPT) {
			c->has_prompt = true;
			c->prompt = s->number;
		} else {
			c->has_cached = true;
			c->cached = s->number;
		}
		return 0;
	}
	return -1;
}

/* After an object's member or an array's element: 1 at the closing byte
 * 'close', 0 past a ',' (and the whitespace after it), -1 otherwise. */
static int scan_separator(struct scan *s, unsigned char close)
{
	skip_ws(s);
	if (*s->p == close)
		return 1;
	if (*s->p != ',')
		return -1;
	s->p++;
	skip_ws(s);
	return 0;
}

/* An object from its '{', read in role r. */
static int scan_object(struct scan *s, enum role r)
{
	unsigned seen = 0;          /* bits of role_keys[r] */
	int end;

	if (++s->depth > CHUNK_MAX_DEPTH)
		return -1;
	s->p++;
	skip_ws(s);
	if (*s->p == '}') {
		s->p++;
		s->depth--;
		return K_OBJECT;
	}
	for (;;) {
		const unsigned char *name = s->p + 1;
		const struct key *k = NULL;
		int kind, i;

		if (*s->p != '"' || scan_string(s) < 0)
			return -1;
		if (r != R_OTHER) {
			if (s->escaped)
				return -1;
			i = find_key(r, name, (size_t)(s->p - 1 - name));
			if (i >= 0 && (seen & 1u << i))
				return -1;
			if (i >= 0) {
				seen |= 1u << i;
				k = &role_keys[r].k[i];
			}
		}
		skip_ws(s);
		if (*s->p != ':')
			return -1;
		s->p++;
		skip_ws(s);
		kind = scan_value(s, k ? k->value : R_OTHER);
		if (kind < 0 || (k && take(s, k, kind) < 0))
			return -1;
		if ((end = scan_separator(s, '}')) != 0)
			break;
	}
	if (end < 0)
		return -1;
	s->p++;
	s->depth--;
	return K_OBJECT;
}

/* An array from its '[', its elements read in role r. */
static int scan_array(struct scan *s, enum role r)
{
	int kind = K_EMPTY_ARRAY, end;

	if (++s->depth > CHUNK_MAX_DEPTH)
		return -1;
	s->p++;
	skip_ws(s);
	if (*s->p != ']') {
		do {
			if (scan_value(s, r) < 0)
				return -1;
			kind = K_ARRAY;
		} while ((end = scan_separator(s, ']')) == 0);
		if (end < 0)
			return -1;
	}
	s->p++;
	s->depth--;
	return kind;
}

/* A value in role r (which matters for objects, and for the choices
 * array's elements). */
static int scan_value(struct scan *s, enum role r)
{
	switch (*s->p) {
	case '{':
		return r == R_CHOICES ? -1 : scan_object(s, r);
	case '[':
		return scan_array(s, r == R_CHOICES ? R_CHOICE : R_OTHER);
	case '"':
		return scan_string(s);
	case 't':
		return scan_literal(s, "true", K_BOOL);
	case 'f':
		return scan_literal(s, "false", K_BOOL);
	case 'n':
		return scan_literal(s, "null", K_NULL);
	default:
		return scan_number(s);
	}
}

int chunk_scan(const char *data, size_t len, struct chunk *c)
{
	struct scan s = { .p = (const unsigned char *)data, .c = c };

	memset(c, 0, sizeof(*c));
	if (data[len] != '\0')
		return CHUNK_EUNSURE;
	skip_ws(&s);
	if (*s.p != '{' || scan_object(&s, R_TOP) < 0)
		return CHUNK_EUNSURE;
	skip_ws(&s);
	return s.p == (const unsigned char *)data + len ? CHUNK_OK : CHUNK_EUNSURE;
}
