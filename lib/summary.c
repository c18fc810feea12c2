/*
 * summary.c - the per-level sweep table; see summary.h.
 */
#include "summary.h"
#include "clock.h"
#include "stats.h"

#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int summary_format_parse(const char *s, enum summary_format *out)
{
	static const struct { const char *name; enum summary_format fmt; } names[] = {
		{ "text", SUMMARY_TEXT }, { "markdown", SUMMARY_MARKDOWN },
		{ "md", SUMMARY_MARKDOWN }, { "csv", SUMMARY_CSV }, { "json", SUMMARY_JSON },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(s, names[i].name) == 0) {
			*out = names[i].fmt;
			return 0;
		}
	}
	return -1;
}

const char *const summary_error_classes[SUMMARY_N_ERROR_CLASSES] = {
	RESULT_ERR_HTTP, RESULT_ERR_CONNECT, RESULT_ERR_TIMEOUT, RESULT_ERR_TRANSFER,
	RESULT_ERR_SERVER, RESULT_ERR_MALFORMED, RESULT_ERR_INCOMPLETE, RESULT_ERR_CANCELLED,
	"other",
};

static size_t summary_error_index(const char *cls)
{
	size_t i;

	for (i = 0; i + 1 < SUMMARY_N_ERROR_CLASSES; i++)
		if (strcmp(cls, summary_error_classes[i]) == 0)
			return i;
	return SUMMARY_N_ERROR_CLASSES - 1;
}

int summary_slo_parse(const char *s, struct summary_slo *out, char *err, size_t errlen)
{
	struct summary_slo slo = { 0, 0, 0, 0 };
	char buf[256], *item, *save = NULL, *eq, *end;
	double v, scale;

	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf) || !*buf ||
	    strstr(buf, ",,") || buf[0] == ',' || buf[strlen(buf) - 1] == ',') {
		snprintf(err, errlen, "bad --slo '%s'", s);
		return -1;
	}
	for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		eq = strchr(item, '=');
		if (!eq) {
			snprintf(err, errlen, "bad --slo item '%s' (want metric=limit, e.g. ttft=500ms)",
				 item);
			return -1;
		}
		*eq = '\0';
		v = strtod(eq + 1, &end);
		scale = 1;
		if (strcmp(end, "s") == 0)
			scale = 1e3;
		else if (strcmp(end, "us") == 0)
			scale = 1e-3;
		else if (*end && strcmp(end, "ms") != 0)
			end = NULL;
		if (end == eq + 1 || !end || !(v > 0) || isinf(v)) {
			snprintf(err, errlen, "bad --slo limit '%s' for %s (want e.g. 500ms, 10s)",
				 eq + 1, item);
			return -1;
		}
		v *= scale;
		if (strcmp(item, "ttft") == 0)
			slo.ttft_ms = v;
		else if (strcmp(item, "ttfa") == 0)
			slo.ttfa_ms = v;
		else if (strcmp(item, "tpot") == 0)
			slo.tpot_ms = v;
		else if (strcmp(item, "e2e") == 0)
			slo.e2e_ms = v;
		else {
			snprintf(err, errlen, "unknown --slo metric '%s' (ttft, ttfa, tpot, e2e)", item);
			return -1;
		}
	}
	*out = slo;
	return 0;
}

static double ms(int64_t ns)
{
	return (double)ns / (double)NS_PER_MS;
}

/* True when the successful request q is within every limit of slo. */
static int summary_within_slo(const struct result *q, const struct summary_slo *slo)
{
	if (slo->ttft_ms > 0 && (q->ttft_ns < 0 || ms(q->ttft_ns) > slo->ttft_ms))
		return 0;
	if (slo->ttfa_ms > 0 && (q->ttfa_ns < 0 || ms(q->ttfa_ns) > slo->ttfa_ms))
		return 0;
	if (slo->tpot_ms > 0 && q->ttft_ns >= 0 && q->output_tokens >= 2 &&
	    ms(q->e2e_ns - q->ttft_ns) / (double)(q->output_tokens - 1) > slo->tpot_ms)
		return 0;
	if (slo->e2e_ms > 0 && ms(q->e2e_ns) > slo->e2e_ms)
		return 0;
	return 1;
}

/* Per-metric sample arrays of one level, in ms. */
struct summary_samples {
	double *ttft, *ttfa, *tpot, *itl, *e2e;
	size_t n_ttft, n_ttfa, n_tpot, n_itl, n_e2e;
	double *lag, *ttft_svc, *e2e_svc;   /* open loop only */
	size_t n_lag, n_ttft_svc, n_e2e_svc;
};

static void summary_samples_free(struct summary_samples *x)
{
	free(x->lag);
	free(x->ttft_svc);
	free(x->e2e_svc);
	free(x->ttft);
	free(x->ttfa);
	free(x->tpot);
	free(x->itl);
	free(x->e2e);
}

/* Allocates room for the samples of r; returns 0 or -1. */
static int summary_samples_alloc(struct summary_samples *x, const struct result *r, size_t n)
{
	size_t i, gaps = 0;
	int open_loop;

	memset(x, 0, sizeof(*x));
	for (i = 0; i < n; i++)
		gaps += r[i].n_itl;
	for (i = 0; i < n; i++)
		if (r[i].sched_ns != r[i].send_ns && !r[i].warmup)
			break;
	open_loop = i < n;
	n = n ? n : 1;
	x->ttft = malloc(n * sizeof(double));
	x->ttfa = malloc(n * sizeof(double));
	x->tpot = malloc(n * sizeof(double));
	x->e2e = malloc(n * sizeof(double));
	x->itl = malloc((gaps ? gaps : 1) * sizeof(double));
	if (open_loop) {
		x->lag = malloc(n * sizeof(double));
		x->ttft_svc = malloc(n * sizeof(double));
		x->e2e_svc = malloc(n * sizeof(double));
		if (!x->lag || !x->ttft_svc || !x->e2e_svc)
			goto fail;
	}
	if (x->ttft && x->ttfa && x->tpot && x->e2e && x->itl)
		return 0;
fail:
	summary_samples_free(x);
	memset(x, 0, sizeof(*x));
	return -1;
}

static void summary_nan_dist(struct stats_dist *d)
{
	d->n = 0;
	d->mean = d->p50 = d->p90 = d->p95 = d->p99 = d->max = NAN;
}

/* First start and last end of the requests of one repeat. */
struct summary_span {
	int64_t first, last;
};

void summary_compute(const struct result *r, size_t n, int level, struct level_summary *s)
{
	summary_compute_slo(r, n, level, NULL, s);
}

void summary_compute_slo(const struct result *r, size_t n, int level,
			 const struct summary_slo *slo, struct level_summary *s)
{
	struct summary_samples x;
	struct summary_span *spans = NULL;
	double warm_sum = 0, tps_sum = 0;
	size_t i, j, warm_ok = 0, ntps = 0, n_spans = 1;
	int64_t first_send = INT64_MAX, last_send = INT64_MIN;
	int64_t first_sched = INT64_MAX, last_sched = INT64_MIN;
	int have = summary_samples_alloc(&x, r, n) == 0;

	memset(s, 0, sizeof(*s));
	s->level = level;
	s->scaling_eff = NAN;
	for (i = 0; i < n; i++)
		if (r[i].repeat >= 0 && (size_t)r[i].repeat + 1 > n_spans)
			n_spans = (size_t)r[i].repeat + 1;
	spans = calloc(n_spans, sizeof(*spans));   /* calloc: clang-tidy loses track of the loop below */
	if (!spans)
		n_spans = 0;
	for (i = 0; i < n_spans; i++) {
		spans[i].first = INT64_MAX;
		spans[i].last = INT64_MIN;
	}
	for (i = 0; i < n; i++) {
		const struct result *q = &r[i];

		if (q->warmup) {
			s->warmup++;
			if (result_ok(q) && q->ttft_ns >= 0) {
				warm_sum += ms(q->ttft_ns);
				warm_ok++;
			}
			continue;
		}
		s->requests++;
		if (n_spans) {
			struct summary_span *sp = &spans[q->repeat >= 0 ? q->repeat : 0];

			if (q->sched_ns < sp->first)
				sp->first = q->sched_ns;
			if (q->sched_ns + q->e2e_ns > sp->last)
				sp->last = q->sched_ns + q->e2e_ns;
		}
		if (q->send_ns < first_send)
			first_send = q->send_ns;
		if (q->send_ns > last_send)
			last_send = q->send_ns;
		if (q->sched_ns < first_sched)
			first_sched = q->sched_ns;
		if (q->sched_ns > last_sched)
			last_sched = q->sched_ns;
		if (!result_ok(q)) {
			s->errors++;
			s->errors_by_class[summary_error_index(q->error)]++;
			continue;
		}
		s->ok++;
		s->tokens += q->output_tokens;
		if (slo && summary_within_slo(q, slo))
			s->good++;
		if (!have)
			continue;
		x.e2e[x.n_e2e++] = ms(q->e2e_ns);
		if (x.lag) {
			double lag = ms(q->send_ns - q->sched_ns);

			x.lag[x.n_lag++] = lag;
			x.e2e_svc[x.n_e2e_svc++] = ms(q->e2e_ns) - lag;
			if (q->ttft_ns >= 0 && !q->unstreamed)
				x.ttft_svc[x.n_ttft_svc++] = ms(q->ttft_ns) - lag;
		}
		/* A whole JSON body has no first token of its own (its TTFT would
		 * be its E2E) nor gaps: it counts in E2E and tokens only. */
		if (q->unstreamed)
			continue;
		if (q->ttft_ns >= 0)
			x.ttft[x.n_ttft++] = ms(q->ttft_ns);
		if (q->ttfa_ns >= 0)
			x.ttfa[x.n_ttfa++] = ms(q->ttfa_ns);
		for (j = 0; j < q->n_itl; j++)
			x.itl[x.n_itl++] = ms(q->itl_ns[j]);
		if (q->ttft_ns >= 0 && q->output_tokens >= 2 && q->e2e_ns > q->ttft_ns) {
			double decode_ms = ms(q->e2e_ns - q->ttft_ns);

			x.tpot[x.n_tpot++] = decode_ms / (double)(q->output_tokens - 1);
			tps_sum += (double)q->output_tokens / (decode_ms / 1e3);
			ntps++;
		}
	}
	s->warmup_ttft_ms = warm_ok ? warm_sum / (double)warm_ok : NAN;
	for (i = 0; i < n_spans; i++) {
		if (spans[i].last > spans[i].first) {
			s->wall_s += (double)(spans[i].last - spans[i].first) / (double)NS_PER_S;
			s->repeats++;
		}
	}
	if (!s->repeats)
		s->repeats = 1;
	free(spans);
	if (s->requests >= 2 && last_send > first_send)
		s->achieved_rps = (double)(s->requests - 1) * (double)NS_PER_S /
				  (double)(last_send - first_send);
	else
		s->achieved_rps = NAN;
	if (s->requests >= 2 && last_sched > first_sched)
		s->sched_rps = (double)(s->requests - 1) * (double)NS_PER_S /
			       (double)(last_sched - first_sched);
	else
		s->sched_rps = NAN;
	s->agg_tps = s->wall_s > 0 ? (double)s->tokens / s->wall_s : NAN;
	s->per_req_tps = ntps ? tps_sum / (double)ntps : NAN;
	if (have) {
		stats_describe(x.ttft, x.n_ttft, &s->ttft);
		stats_describe(x.ttfa, x.n_ttfa, &s->ttfa);
		stats_describe(x.tpot, x.n_tpot, &s->tpot);
		stats_describe(x.itl, x.n_itl, &s->itl);
		stats_describe(x.e2e, x.n_e2e, &s->e2e);
		s->open_loop = x.lag != NULL;
		stats_describe(x.lag, x.n_lag, &s->lag);
		stats_describe(x.ttft_svc, x.n_ttft_svc, &s->ttft_service);
		stats_describe(x.e2e_svc, x.n_e2e_svc, &s->e2e_service);
		summary_samples_free(&x);
	} else {
		summary_nan_dist(&s->lag);
		summary_nan_dist(&s->ttft_service);
		summary_nan_dist(&s->e2e_service);
		summary_nan_dist(&s->ttft);
		summary_nan_dist(&s->ttfa);
		summary_nan_dist(&s->tpot);
		summary_nan_dist(&s->itl);
		summary_nan_dist(&s->e2e);
	}
	s->ttft_mean_ms = s->ttft.mean;
	s->ttft_p50_ms = s->ttft.p50;
	s->ttft_p95_ms = s->ttft.p95;
	s->ttft_p99_ms = s->ttft.p99;
	s->e2e_mean_ms = s->e2e.mean;
	s->tpot_mean_ms = s->tpot.mean;
	s->has_slo = slo != NULL;
	s->goodput_share = slo && s->requests ? (double)s->good / (double)s->requests : NAN;
	s->good_rps = slo && s->wall_s > 0 ? (double)s->good / s->wall_s : NAN;
}

/* A number for a table cell: "-" for NaN (nothing to measure). */
static const char *num(char *buf, size_t len, double v, int decimals)
{
	if (isnan(v) || isinf(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", decimals, v);
	return buf;
}

/* A number for CSV and JSON: empty / null for NaN. */
static void put_num(FILE *out, double v, int decimals, const char *missing)
{
	if (isnan(v) || isinf(v))
		fputs(missing, out);
	else
		fprintf(out, "%.*f", decimals, v);
}

static void put_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void put_csv_field(FILE *out, const char *s)
{
	if (!s)
		return;
	if (strpbrk(s, ",\"\r\n")) {
		fputc('"', out);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', out);
			fputc(*s, out);
		}
		fputc('"', out);
	} else {
		fputs(s, out);
	}
}

/* The C column of a text or Markdown table: open-loop levels (0) say so. */
static char *level_cell(char *b, size_t size, int level)
{
	if (level == 0)
		snprintf(b, size, "open");
	else
		snprintf(b, size, "%d", level);
	return b;
}

void summary_print_begin(FILE *out, enum summary_format fmt)
{
	switch (fmt) {
	case SUMMARY_TEXT:
		fprintf(out, "%4s %10s %14s %9s %9s %9s %9s %8s %8s %5s %4s\n",
			"C", "Agg tok/s", "Per-req tok/s", "Avg TTFT", "P50 TTFT",
			"P95 TTFT", "P99 TTFT", "Tokens", "Wall(s)", "Ok", "Err");
		break;
	case SUMMARY_MARKDOWN:
		fprintf(out, "| C | Agg tok/s | Per-req tok/s | Avg TTFT (ms) | P50 TTFT (ms) | "
			"P95 TTFT (ms) | P99 TTFT (ms) | Tokens | Wall(s) | Ok | Err |\n"
			"|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
		break;
	case SUMMARY_CSV:
		fprintf(out, "run,concurrency,agg_tok_s,per_req_tok_s,avg_ttft_ms,p50_ttft_ms,"
			"p95_ttft_ms,p99_ttft_ms,tokens,wall_s,ok,errors,warmup,warmup_ttft_ms,"
			"avg_e2e_ms,avg_tpot_ms\n");
		break;
	case SUMMARY_JSON:
		fputs("[", out);
		break;
	}
}

void summary_print_row(FILE *out, enum summary_format fmt, const char *title,
		       const struct level_summary *s, int first)
{
	char b[8][32];

	switch (fmt) {
	case SUMMARY_TEXT:
		fprintf(out, "%4s %10s %14s %9s %9s %9s %9s %8lld %8s %5zu %4zu\n",
			level_cell(b[7], 32, s->level),
			num(b[0], 32, s->agg_tps, 1), num(b[1], 32, s->per_req_tps, 1),
			num(b[2], 32, s->ttft_mean_ms, 1), num(b[3], 32, s->ttft_p50_ms, 1),
			num(b[4], 32, s->ttft_p95_ms, 1), num(b[5], 32, s->ttft_p99_ms, 1),
			(long long)s->tokens, num(b[6], 32, s->wall_s, 2), s->ok, s->errors);
		break;
	case SUMMARY_MARKDOWN:
		fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %lld | %s | %zu | %zu |\n",
			level_cell(b[7], 32, s->level), num(b[0], 32, s->agg_tps, 1), num(b[1], 32, s->per_req_tps, 1),
			num(b[2], 32, s->ttft_mean_ms, 1), num(b[3], 32, s->ttft_p50_ms, 1),
			num(b[4], 32, s->ttft_p95_ms, 1), num(b[5], 32, s->ttft_p99_ms, 1),
			(long long)s->tokens, num(b[6], 32, s->wall_s, 2), s->ok, s->errors);
		break;
	case SUMMARY_CSV:
		put_csv_field(out, title);
		fprintf(out, ",%d,", s->level);
		put_num(out, s->agg_tps, 3, "");
		fputc(',', out);
		put_num(out, s->per_req_tps, 3, "");
		fputc(',', out);
		put_num(out, s->ttft_mean_ms, 3, "");
		fputc(',', out);
		put_num(out, s->ttft_p50_ms, 3, "");
		fputc(',', out);
		put_num(out, s->ttft_p95_ms, 3, "");
		fputc(',', out);
		put_num(out, s->ttft_p99_ms, 3, "");
		fprintf(out, ",%lld,", (long long)s->tokens);
		put_num(out, s->wall_s, 3, "");
		fprintf(out, ",%zu,%zu,%zu,", s->ok, s->errors, s->warmup);
		put_num(out, s->warmup_ttft_ms, 3, "");
		fputc(',', out);
		put_num(out, s->e2e_mean_ms, 3, "");
		fputc(',', out);
		put_num(out, s->tpot_mean_ms, 3, "");
		fputc('\n', out);
		break;
	case SUMMARY_JSON:
		fprintf(out, "%s\n  {\"run\": ", first ? "" : ",");
		put_json_string(out, title);
		fprintf(out, ", \"concurrency\": %d, \"agg_tok_s\": ", s->level);
		put_num(out, s->agg_tps, 3, "null");
		fputs(", \"per_req_tok_s\": ", out);
		put_num(out, s->per_req_tps, 3, "null");
		fputs(", \"avg_ttft_ms\": ", out);
		put_num(out, s->ttft_mean_ms, 3, "null");
		fputs(", \"p50_ttft_ms\": ", out);
		put_num(out, s->ttft_p50_ms, 3, "null");
		fputs(", \"p95_ttft_ms\": ", out);
		put_num(out, s->ttft_p95_ms, 3, "null");
		fputs(", \"p99_ttft_ms\": ", out);
		put_num(out, s->ttft_p99_ms, 3, "null");
		fprintf(out, ", \"tokens\": %lld, \"wall_s\": ", (long long)s->tokens);
		put_num(out, s->wall_s, 3, "null");
		fprintf(out, ", \"ok\": %zu, \"errors\": %zu, \"warmup\": %zu, \"warmup_ttft_ms\": ",
			s->ok, s->errors, s->warmup);
		put_num(out, s->warmup_ttft_ms, 3, "null");
		fputs(", \"avg_e2e_ms\": ", out);
		put_num(out, s->e2e_mean_ms, 3, "null");
		fputs(", \"avg_tpot_ms\": ", out);
		put_num(out, s->tpot_mean_ms, 3, "null");
		fputs("}", out);
		break;
	}
	fflush(out);
}

void summary_print_end(FILE *out, enum summary_format fmt)
{
	if (fmt == SUMMARY_JSON)
		fputs("\n]\n", out);
	fflush(out);
}

/* One number of a flat CSV/JSON report row. */
struct summary_col {
	const char *name;
	double (*get)(const struct level_summary *s, const void *arg);
	const void *arg;
	int decimals;
};

#define SUMMARY_FIELD(fn, expr) \
	static double fn(const struct level_summary *s, const void *arg) \
	{ (void)arg; return (double)(expr); }

SUMMARY_FIELD(col_requests, s->requests)
SUMMARY_FIELD(col_ok, s->ok)
SUMMARY_FIELD(col_errors, s->errors)
SUMMARY_FIELD(col_warmup, s->warmup)
SUMMARY_FIELD(col_warmup_ttft, s->warmup_ttft_ms)
SUMMARY_FIELD(col_tokens, s->tokens)
SUMMARY_FIELD(col_wall, s->wall_s)
SUMMARY_FIELD(col_agg, s->agg_tps)
SUMMARY_FIELD(col_per_req, s->per_req_tps)
SUMMARY_FIELD(col_eff, s->scaling_eff)
SUMMARY_FIELD(col_repeats, s->repeats)
SUMMARY_FIELD(col_sched_rps, s->open_loop ? s->sched_rps : NAN)
SUMMARY_FIELD(col_achieved_rps, s->open_loop ? s->achieved_rps : NAN)
SUMMARY_FIELD(col_good, s->good)
SUMMARY_FIELD(col_goodput, s->goodput_share * 100.0)
SUMMARY_FIELD(col_good_rps, s->good_rps)

static double col_err_class(const struct level_summary *s, const void *arg)
{
	return (double)s->errors_by_class[*(const size_t *)arg];
}

/* arg: offset of a struct stats_dist in level_summary, then of a double in it. */
struct summary_dist_ref {
	size_t dist, field;
};

static double col_dist(const struct level_summary *s, const void *arg)
{
	const struct summary_dist_ref *ref = arg;
	const char *d = (const char *)s + ref->dist;

	if (ref->field == (size_t)-1)
		return (double)((const struct stats_dist *)d)->n;
	/* cppcheck-suppress invalidPointerCast ; d + field is a double member
	 * (offsetof in the column table), not bytes reinterpreted */
	return *(const double *)(d + ref->field);
}

#define SUMMARY_MAX_COLS 96

/* Fills cols with the flat report columns; returns how many. */
static size_t summary_report_cols(struct summary_col *cols, int slo)
{
	static const size_t classes[SUMMARY_N_ERROR_CLASSES] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };
	static const struct { const char *name; size_t off; } metrics[] = {
		{ "ttft", offsetof(struct level_summary, ttft) },
		{ "ttfa", offsetof(struct level_summary, ttfa) },
		{ "tpot", offsetof(struct level_summary, tpot) },
		{ "itl", offsetof(struct level_summary, itl) },
		{ "e2e", offsetof(struct level_summary, e2e) },
	};
	static const struct { const char *stat; size_t off; } stats[] = {
		{ "n", (size_t)-1 },
		{ "avg", offsetof(struct stats_dist, mean) },
		{ "p50", offsetof(struct stats_dist, p50) },
		{ "p90", offsetof(struct stats_dist, p90) },
		{ "p95", offsetof(struct stats_dist, p95) },
		{ "p99", offsetof(struct stats_dist, p99) },
		{ "max", offsetof(struct stats_dist, max) },
	};
	static const struct { const char *name; size_t off; } svc[] = {
		{ "send_lag", offsetof(struct level_summary, lag) },
		{ "ttft_service", offsetof(struct level_summary, ttft_service) },
		{ "e2e_service", offsetof(struct level_summary, e2e_service) },
	};
	static char svc_names[3][2][32];
	static struct summary_dist_ref svc_refs[3][2];
	static char names[5][7][24];
	static char err_names[SUMMARY_N_ERROR_CLASSES][24];
	static struct summary_dist_ref refs[5][7];
	size_t n = 0, i, j;

#define COL(nm, fn, dec) cols[n++] = (struct summary_col){ nm, fn, NULL, dec }
	COL("requests", col_requests, 0);
	COL("ok", col_ok, 0);
	COL("errors", col_errors, 0);
	for (i = 0; i < SUMMARY_N_ERROR_CLASSES; i++) {
		snprintf(err_names[i], sizeof(err_names[i]), "errors_%s", summary_error_classes[i]);
		cols[n++] = (struct summary_col){ err_names[i], col_err_class, &classes[i], 0 };
	}
	COL("warmup", col_warmup, 0);
	COL("warmup_ttft_ms", col_warmup_ttft, 3);
	COL("tokens", col_tokens, 0);
	COL("wall_s", col_wall, 3);
	COL("agg_tok_s", col_agg, 3);
	COL("per_req_tok_s", col_per_req, 3);
	COL("scaling_eff", col_eff, 4);
	COL("repeats", col_repeats, 0);
	COL("sched_req_s", col_sched_rps, 3);
	COL("achieved_req_s", col_achieved_rps, 3);
	if (slo) {
		COL("good", col_good, 0);
		COL("goodput_pct", col_goodput, 2);
		COL("good_req_s", col_good_rps, 3);
	}
#undef COL
	for (i = 0; i < 5; i++) {
		for (j = 0; j < 7; j++) {
			if (j == 0)
				snprintf(names[i][j], sizeof(names[i][j]), "n_%s", metrics[i].name);
			else
				snprintf(names[i][j], sizeof(names[i][j]), "%s_%s_ms", stats[j].stat,
					 metrics[i].name);
			refs[i][j].dist = metrics[i].off;
			refs[i][j].field = stats[j].off;
			cols[n++] = (struct summary_col){ names[i][j], col_dist, &refs[i][j],
							  j == 0 ? 0 : 3 };
		}
	}
	/* Open loop: send lag and latency from the actual send (service). */
	for (i = 0; i < 3; i++) {
		for (j = 0; j < 2; j++) {
			snprintf(svc_names[i][j], sizeof(svc_names[i][j]), "%s_%s_ms",
				 j ? "p99" : "p50", svc[i].name);
			svc_refs[i][j].dist = svc[i].off;
			svc_refs[i][j].field = j ? offsetof(struct stats_dist, p99)
						 : offsetof(struct stats_dist, p50);
			cols[n++] = (struct summary_col){ svc_names[i][j], col_dist,
							  &svc_refs[i][j], 3 };
		}
	}
	return n;
}

/* The Text/Markdown report columns; see summary_report_begin. */
static const char *const summary_report_heads[] = {
	"C", "Agg tok/s", "Per-req tok/s", "Avg TTFT (ms)", "Tokens", "Wall(s)", "Ok",
	"P50 TTFT (ms)", "P95 TTFT (ms)", "P99 TTFT (ms)", "Err", "Scaling",
	"Goodput", "Good req/s",
};
static const int summary_report_widths[] = { 4, 10, 14, 14, 8, 8, 5, 14, 14, 14, 4, 8, 8, 11 };
#define SUMMARY_REPORT_COLS 12   /* without the goodput columns */

void summary_report_begin(FILE *out, enum summary_format fmt, int slo)
{
	struct summary_col cols[SUMMARY_MAX_COLS];
	size_t n, i, ncols = SUMMARY_REPORT_COLS + (slo ? 2 : 0);

	switch (fmt) {
	case SUMMARY_TEXT:
		for (i = 0; i < ncols; i++)
			fprintf(out, "%s%*s", i ? " " : "", summary_report_widths[i],
				summary_report_heads[i]);
		fputc('\n', out);
		break;
	case SUMMARY_MARKDOWN:
		for (i = 0; i < ncols; i++)
			fprintf(out, "| %s ", summary_report_heads[i]);
		fputs("|\n", out);
		for (i = 0; i < ncols; i++)
			fputs("|--:", out);
		fputs("|\n", out);
		break;
	case SUMMARY_CSV:
		n = summary_report_cols(cols, slo);
		fputs("run,concurrency", out);
		for (i = 0; i < n; i++)
			fprintf(out, ",%s", cols[i].name);
		fputc('\n', out);
		break;
	case SUMMARY_JSON:
		fputs("[", out);
		break;
	}
}

void summary_report_row(FILE *out, enum summary_format fmt, const char *title,
			const struct level_summary *s, int first, int slo)
{
	struct summary_col cols[SUMMARY_MAX_COLS];
	char cell[SUMMARY_REPORT_COLS + 2][32];
	size_t n, i, ncols = SUMMARY_REPORT_COLS + (slo ? 2 : 0);

	if (fmt == SUMMARY_TEXT || fmt == SUMMARY_MARKDOWN) {
		level_cell(cell[0], 32, s->level);
		num(cell[1], 32, s->agg_tps, 1);
		num(cell[2], 32, s->per_req_tps, 1);
		num(cell[3], 32, s->ttft.mean, 1);
		snprintf(cell[4], 32, "%lld", (long long)s->tokens);
		num(cell[5], 32, s->wall_s, 2);
		snprintf(cell[6], 32, "%zu", s->ok);
		num(cell[7], 32, s->ttft.p50, 1);
		num(cell[8], 32, s->ttft.p95, 1);
		num(cell[9], 32, s->ttft.p99, 1);
		snprintf(cell[10], 32, "%zu", s->errors);
		if (isnan(s->scaling_eff))
			snprintf(cell[11], 32, "-");
		else
			snprintf(cell[11], 32, "%.0f%%", s->scaling_eff * 100.0);
		if (slo) {
			if (isnan(s->goodput_share))
				snprintf(cell[12], 32, "-");
			else
				snprintf(cell[12], 32, "%.1f%%", s->goodput_share * 100.0);
			num(cell[13], 32, s->good_rps, 2);
		}
		for (i = 0; i < ncols; i++) {
			if (fmt == SUMMARY_TEXT)
				fprintf(out, "%s%*s", i ? " " : "", summary_report_widths[i], cell[i]);
			else
				fprintf(out, "| %s ", cell[i]);
		}
		fputs(fmt == SUMMARY_TEXT ? "\n" : "|\n", out);
		return;
	}
	n = summary_report_cols(cols, slo);
	if (fmt == SUMMARY_CSV) {
		put_csv_field(out, title);
		fprintf(out, ",%d", s->level);
		for (i = 0; i < n; i++) {
			fputc(',', out);
			put_num(out, cols[i].get(s, cols[i].arg), cols[i].decimals, "");
		}
		fputc('\n', out);
		return;
	}
	fprintf(out, "%s\n  {\"run\": ", first ? "" : ",");
	put_json_string(out, title);
	fprintf(out, ", \"concurrency\": %d", s->level);
	for (i = 0; i < n; i++) {
		fprintf(out, ", \"%s\": ", cols[i].name);
		put_num(out, cols[i].get(s, cols[i].arg), cols[i].decimals, "null");
	}
	fputc('}', out);
}

void summary_report_end(FILE *out, enum summary_format fmt)
{
	summary_print_end(out, fmt);
}

void summary_print_latency(FILE *out, enum summary_format fmt,
			   const struct level_summary *levels, size_t n)
{
	static const char *const heads[] = {
		"Metric", "C", "N", "Mean (ms)", "P50", "P90", "P95", "P99", "Max",
	};
	static const int widths[] = { 6, 4, 7, 10, 10, 10, 10, 10, 10 };
	static const struct { const char *name; size_t off; } metrics[] = {
		{ "TTFT", offsetof(struct level_summary, ttft) },
		{ "TTFA", offsetof(struct level_summary, ttfa) },
		{ "TPOT", offsetof(struct level_summary, tpot) },
		{ "ITL", offsetof(struct level_summary, itl) },
		{ "E2E", offsetof(struct level_summary, e2e) },
	};
	char cell[9][32];
	size_t m, i, c;

	if (fmt != SUMMARY_TEXT && fmt != SUMMARY_MARKDOWN)
		return;
	for (c = 0; c < 9; c++) {
		if (fmt == SUMMARY_TEXT)
			fprintf(out, "%s%*s", c ? " " : "", widths[c], heads[c]);
		else
			fprintf(out, "| %s ", heads[c]);
	}
	if (fmt == SUMMARY_MARKDOWN)
		fputs("|\n|:--|--:|--:|--:|--:|--:|--:|--:|--:|", out);
	fputc('\n', out);
	for (m = 0; m < 5; m++) {
		for (i = 0; i < n; i++) {
			const struct stats_dist *d = (const struct stats_dist *)
				((const char *)&levels[i] + metrics[m].off);

			snprintf(cell[0], 32, "%s", metrics[m].name);
			level_cell(cell[1], 32, levels[i].level);
			snprintf(cell[2], 32, "%zu", d->n);
			num(cell[3], 32, d->mean, 1);
			num(cell[4], 32, d->p50, 1);
			num(cell[5], 32, d->p90, 1);
			num(cell[6], 32, d->p95, 1);
			num(cell[7], 32, d->p99, 1);
			num(cell[8], 32, d->max, 1);
			for (c = 0; c < 9; c++) {
				if (fmt == SUMMARY_TEXT)
					fprintf(out, "%s%*s", c ? " " : "", widths[c], cell[c]);
				else
					fprintf(out, "| %s ", cell[c]);
			}
			fputs(fmt == SUMMARY_TEXT ? "\n" : "|\n", out);
		}
	}
	fputs(fmt == SUMMARY_MARKDOWN ? "\n" : "", out);
	fputs("Latency over successful non-warm-up requests; percentiles interpolate "
	      "linearly between closest ranks (numpy's default). TPOT = (E2E - TTFT) / "
	      "(tokens - 1). ITL pools every inter-token gap of a level's requests, as "
	      "vLLM's benchmark does, so its N counts gaps. Scaling = agg tok/s at C / "
	      "(C x agg tok/s at C=1).\n", out);
}
