/*
 * prom.h - a parser of the Prometheus text exposition format (0.0.4), the
 * body of a server's GET /metrics: what replay scrapes with --metrics-url
 * and what the llama.cpp fixture of the tests holds.
 *
 * The text is a server's and hostile until checked: a line longer than
 * max_line bytes, a sample past max_samples, a line that is not a comment,
 * a TYPE or HELP line or a well-formed sample is skipped and counted in
 * bad_lines (the first one named in first_bad), and parsing goes on with
 * the next line. Values may be NaN, +Inf and -Inf; label values may hold
 * the format's escapes (\\, \", \n), which are decoded. Timestamps are
 * read and kept, not interpreted.
 *
 *   struct prom_scrape s;
 *   prom_scrape_init(&s);
 *   if (prom_parse(&s, body, len, err, sizeof(err)) < 0) ... out of memory
 *   for (i = 0; i < s.n; i++) use s.samples[i] ...
 *   prom_scrape_release(&s);
 */
#ifndef TB_PROM_H
#define TB_PROM_H

#include <stddef.h>
#include <stdint.h>

#define PROM_MAX_LINE    (16 * 1024)     /* bytes of one line, by default */
#define PROM_MAX_SAMPLES 50000           /* samples of one scrape, by default */
#define PROM_MAX_LABELS  64              /* labels of one sample */

/* A family's type as its # TYPE line gives it; UNTYPED without one. */
enum prom_type {
	PROM_UNTYPED, PROM_COUNTER, PROM_GAUGE, PROM_HISTOGRAM, PROM_SUMMARY
};

struct prom_label {
	char *name;
	char *value;            /* unescaped */
};

struct prom_sample {
	char *name;             /* the full name: vllm:prompt_tokens_total, x_bucket */
	struct prom_label *labels;
	size_t nlabels;
	double value;           /* may be NaN or infinite */
	int has_timestamp;
	int64_t timestamp_ms;
	enum prom_type type;    /* of the family it belongs to */
};

/* One parsed exposition. The caps may be lowered after prom_scrape_init()
 * and before prom_parse(). The scrape owns every string of its samples. */
struct prom_scrape {
	struct prom_sample *samples;
	size_t n, cap;
	size_t max_line, max_samples;
	size_t lines;           /* lines read, blank and comment lines included */
	size_t bad_lines;       /* lines skipped: malformed, too long, past the cap */
	size_t first_bad;       /* line number of the first of them, from 1; 0: none */
	char why_bad[96];       /* what was wrong with it */
	/* the family the last # TYPE line named, for the samples after it */
	char family[256];
	enum prom_type family_type;
};

void prom_scrape_init(struct prom_scrape *s);

/* Frees every sample; s can be parsed into again after prom_scrape_init(). */
void prom_scrape_release(struct prom_scrape *s);

/*
 * Parses len bytes of text (need not be NUL-terminated), adding its
 * samples to s. A bad line is counted, not an error. Returns 0, or -1 when
 * out of memory (err says so; the samples parsed before stay in s).
 */
int prom_parse(struct prom_scrape *s, const char *text, size_t len, char *err, size_t errlen);

/* The value of label name of sample x; NULL when x has no such label. */
const char *prom_label(const struct prom_sample *x, const char *name);

/*
 * Writes x's series, its name and labels as the format spells them
 * (name{a="v",b="w"}, escapes restored), into buf (size bytes, always
 * NUL-terminated). Returns the length it needed, as snprintf does.
 */
size_t prom_series(const struct prom_sample *x, char *buf, size_t size);

#endif
