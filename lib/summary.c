/*
 * summary.c - the per-level sweep table; see summary.h.
 */
#include "summary.h"
#include "clock.h"
#include "stats.h"

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

static double ms(int64_t ns)
{
	return (double)ns / (double)NS_PER_MS;
}

void summary_compute(const struct result *r, size_t n, int level, struct level_summary *s)
{
	double *ttft = malloc((n ? n : 1) * sizeof(double));
	double warm_sum = 0, e2e_sum = 0, tpot_sum = 0, tps_sum = 0;
	size_t i, nt = 0, warm_ok = 0, ntpot = 0;
	int64_t first = INT64_MAX, last = INT64_MIN;

	memset(s, 0, sizeof(*s));
	s->level = level;
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
		if (q->sched_ns < first)
			first = q->sched_ns;
		if (q->sched_ns + q->e2e_ns > last)
			last = q->sched_ns + q->e2e_ns;
		if (!result_ok(q)) {
			s->errors++;
			continue;
		}
		s->ok++;
		s->tokens += q->output_tokens;
		e2e_sum += ms(q->e2e_ns);
		if (q->ttft_ns >= 0 && ttft)
			ttft[nt++] = ms(q->ttft_ns);
		if (q->ttft_ns >= 0 && q->output_tokens >= 2 && q->e2e_ns > q->ttft_ns) {
			double decode_ms = ms(q->e2e_ns - q->ttft_ns);

			tpot_sum += decode_ms / (double)(q->output_tokens - 1);
			tps_sum += (double)q->output_tokens / (decode_ms / 1e3);
			ntpot++;
		}
	}
	s->warmup_ttft_ms = warm_ok ? warm_sum / (double)warm_ok : NAN;
	s->wall_s = s->requests ? (double)(last - first) / (double)NS_PER_S : 0;
	s->agg_tps = s->wall_s > 0 ? (double)s->tokens / s->wall_s : NAN;
	s->per_req_tps = ntpot ? tps_sum / (double)ntpot : NAN;
	s->tpot_mean_ms = ntpot ? tpot_sum / (double)ntpot : NAN;
	s->e2e_mean_ms = s->ok ? e2e_sum / (double)s->ok : NAN;
	if (ttft) {
		stats_sort(ttft, nt);
		s->ttft_mean_ms = stats_mean(ttft, nt);
		s->ttft_p50_ms = stats_percentile(ttft, nt, 50);
		s->ttft_p95_ms = stats_percentile(ttft, nt, 95);
		s->ttft_p99_ms = stats_percentile(ttft, nt, 99);
		free(ttft);
	} else {
		s->ttft_mean_ms = s->ttft_p50_ms = s->ttft_p95_ms = s->ttft_p99_ms = NAN;
	}
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
		fprintf(out, "%4d %10s %14s %9s %9s %9s %9s %8lld %8s %5zu %4zu\n", s->level,
			num(b[0], 32, s->agg_tps, 1), num(b[1], 32, s->per_req_tps, 1),
			num(b[2], 32, s->ttft_mean_ms, 1), num(b[3], 32, s->ttft_p50_ms, 1),
			num(b[4], 32, s->ttft_p95_ms, 1), num(b[5], 32, s->ttft_p99_ms, 1),
			(long long)s->tokens, num(b[6], 32, s->wall_s, 2), s->ok, s->errors);
		break;
	case SUMMARY_MARKDOWN:
		fprintf(out, "| %d | %s | %s | %s | %s | %s | %s | %lld | %s | %zu | %zu |\n",
			s->level, num(b[0], 32, s->agg_tps, 1), num(b[1], 32, s->per_req_tps, 1),
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
