/*
 * compare.c - `tracebench analyze compare`; see compare.h.
 *
 * The samples come from db_results, the requests report summarizes
 * (non-warm-up; successful ones for latencies); each is handed to
 * analyze/verdict.c as arrays, paired by trace id when it can be.
 */
#include "analyze/compare.h"
#include "analyze/diff.h"
#include "analyze/foreign.h"
#include "analyze/report_host.h"
#include "analyze/shards.h"
#include "lib/energy.h"
#include "lib/errmsg.h"
#include "lib/metric.h"
#include "lib/tracefile.h"
#include "lib/table.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The latencies every level compares; then, for runs of sessions, TTFT of
 * the first turns apart from the later ones (where a prefix cache shows). */
enum { M_TTFT, M_TTFA, M_TPOT, M_ITL, M_E2E, M_LATENCIES,
       M_TTFT_FIRST = M_LATENCIES, M_TTFT_LATER, M_ALL };

static const char *const compare_metric_names[M_ALL] = {
	"TTFT", "TTFA", "TPOT", "ITL", "E2E", "TTFT first", "TTFT later",
};

void compare_result_release(struct compare_result *r)
{
	size_t i;

	for (i = 0; i < r->n_warnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	free(r->rows);
	free(r->levels);
	free(r->models);
	memset(r, 0, sizeof(*r));
}

/*
 * One run's non-warm-up requests at one level, in sending order. A
 * latency of request i is val[m][i] in ms, NaN when it has none (failed,
 * no token, a single token for TPOT); its gaps are itl[itl_start[i] ..
 * itl_start[i+1]).
 */
struct compare_side {
	size_t n;
	long *trace_id;
	int *repeat;
	double *val[M_ALL];             /* val[M_ITL] unused */
	int sessions;                   /* holds turns of sessions */
	double *itl;
	size_t *itl_start;
	double *tok, *e2e_s;            /* tokens (0 when failed), E2E in s */
	size_t n_repeats;
	double *rep_tok, *rep_wall;     /* per repeat: tokens, first start to last end (s) */
	size_t ok, failed;
	size_t cancelled;               /* replay --cancel chose them: neither */
	struct summary_errors errors;   /* the failed by class and status */
	int estimated;                  /* a successful request's tokens were counted */
};

static void compare_side_release(struct compare_side *s)
{
	size_t m;

	free(s->trace_id);
	free(s->repeat);
	for (m = 0; m < M_ALL; m++)
		free(s->val[m]);
	free(s->itl);
	free(s->itl_start);
	free(s->tok);
	free(s->e2e_s);
	free(s->rep_tok);
	free(s->rep_wall);
	memset(s, 0, sizeof(*s));
}

/* Per repeat: tokens, and the span lib/metric.c's wall time adds up. */
static int compare_side_spans(struct compare_side *s, const struct result *r, size_t n)
{
	struct metric_span *spans = malloc(s->n_repeats * sizeof(*spans));
	size_t k;

	s->rep_tok = calloc(s->n_repeats, sizeof(double));
	s->rep_wall = calloc(s->n_repeats, sizeof(double));
	if (!spans || !s->rep_tok || !s->rep_wall) {
		free(spans);
		return -1;
	}
	metric_spans(r, n, spans, s->n_repeats);
	for (k = 0; k < s->n_repeats; k++) {
		s->rep_tok[k] = (double)spans[k].tokens;
		s->rep_wall[k] = metric_span_s(&spans[k]);
	}
	free(spans);
	return 0;
}

/* timeless: r carry no start times (run_params.timeless), so no wall
 * time: the tok/s row gets no number and no verdict. */
static int compare_side_fill(struct compare_side *s, const struct result *r, size_t n,
			     int timeless)
{
	size_t i, j, k = 0, gaps = 0, m;

	memset(s, 0, sizeof(*s));
	s->n_repeats = metric_n_repeats(r, n);
	for (i = 0; i < n; i++) {
		if (r[i].warmup)
			continue;
		s->n++;
		gaps += r[i].n_itl;
	}
	s->trace_id = malloc((s->n + 1) * sizeof(long));
	s->repeat = malloc((s->n + 1) * sizeof(int));
	s->itl = malloc((gaps + 1) * sizeof(double));
	s->itl_start = malloc((s->n + 1) * sizeof(size_t));
	s->tok = malloc((s->n + 1) * sizeof(double));
	s->e2e_s = malloc((s->n + 1) * sizeof(double));
	if (!s->trace_id || !s->repeat || !s->itl || !s->itl_start || !s->tok || !s->e2e_s)
		return -1;
	for (m = 0; m < M_ALL; m++)
		if (!(s->val[m] = malloc((s->n + 1) * sizeof(double))))
			return -1;
	gaps = 0;
	for (i = 0; i < n; i++) {
		const struct result *q = &r[i];
		int ok = result_ok(q) && !q->cancel[0];   /* --cancel's: no sample */

		if (q->warmup)
			continue;
		s->trace_id[k] = q->trace_id;
		s->repeat[k] = q->repeat >= 0 ? q->repeat : 0;
		s->tok[k] = ok ? (double)q->output_tokens : 0;
		s->e2e_s[k] = metric_e2e_ms(q) / 1e3;
		for (m = 0; m < M_ALL; m++)
			s->val[m][k] = NAN;
		s->sessions |= q->session >= 0 && q->turn >= 0;
		s->itl_start[k] = gaps;
		if (ok) {
			s->ok++;
			s->estimated |= q->tokens_estimated;
			s->val[M_E2E][k] = metric_e2e_ms(q);
			s->val[M_TTFT][k] = metric_ttft_ms(q);
			s->val[M_TTFA][k] = metric_ttfa_ms(q);
			s->val[M_TPOT][k] = metric_tpot_ms(q);
			if (q->session >= 0 && q->turn >= 0)
				s->val[q->turn ? M_TTFT_LATER : M_TTFT_FIRST][k] = metric_ttft_ms(q);
			for (j = 0; j < metric_n_gaps(q); j++)
				s->itl[gaps++] = metric_ms(q->itl_ns[j]);
		} else if (q->cancel[0] && (result_ok(q) || result_cancelled(q))) {
			s->cancelled++;
		} else {
			s->failed++;
			summary_errors_add(&s->errors, q);
		}
		k++;
	}
	s->itl_start[s->n] = gaps;
	if (compare_side_spans(s, r, n))
		return -1;
	for (k = 0; timeless && k < s->n_repeats; k++)
		s->rep_wall[k] = 0;
	return 0;
}

static int compare_has(const struct compare_side *s, int m, size_t i)
{
	if (m == M_ITL)
		return s->itl_start[i + 1] > s->itl_start[i];
	return !isnan(s->val[m][i]);
}

/*
 * The figure a row shows, of the requests of s in block 'block' (-1: all
 * of them), a block being 'per' repeats (an A/B run's halves): the p-th
 * percentile of metric m (its gaps for ITL), or with m < 0 the aggregate
 * tok/s. buf has room for every value of s (s->n plus its gaps). NaN when
 * there is none.
 */
static double compare_figure(const struct compare_side *s, int m, double p, int block,
			     int per, double *buf)
{
	size_t i, j, n = 0;

	if (m < 0) {
		double tok = 0, wall = 0;

		for (i = 0; i < s->n_repeats; i++) {
			if (block >= 0 && (size_t)block != i / (size_t)per)
				continue;
			tok += s->rep_tok[i];
			wall += s->rep_wall[i];
		}
		return wall > 0 ? tok / wall : NAN;
	}
	for (i = 0; i < s->n; i++) {
		if (block >= 0 && block != s->repeat[i] / per)
			continue;
		if (m == M_ITL) {
			for (j = s->itl_start[i]; j < s->itl_start[i + 1]; j++)
				buf[n++] = s->itl[j];
		} else if (!isnan(s->val[m][i])) {
			buf[n++] = s->val[m][i];
		}
	}
	return n ? stats_select_percentile(buf, n, p) : NAN;
}

/* Room for compare_figure's values of s. */
static size_t compare_figure_room(const struct compare_side *s)
{
	return s->n + s->itl_start[s->n] + 1;
}

/* A metric's sample of one side as verdict.c takes it (owned arrays). */
struct compare_sample {
	double *v;
	size_t *start;
	int *repeat;
	struct verdict_side side;
	struct verdict_sorted sorted;   /* for the side's four percentiles */
};

static void compare_sample_release(struct compare_sample *x)
{
	free(x->v);
	free(x->start);
	free(x->repeat);
	verdict_sorted_release(&x->sorted);
}

/* The sample of metric m of requests idx[0 .. n) of s, in that order. */
static int compare_sample_init(struct compare_sample *x, const struct compare_side *s, int m,
			       const size_t *idx, size_t n)
{
	size_t i, j, len, values = 0;

	*x = (struct compare_sample){ 0 };
	for (i = 0; i < n; i++)
		values += m == M_ITL ? s->itl_start[idx[i] + 1] - s->itl_start[idx[i]] : 1;
	x->v = malloc((values + 1) * sizeof(double));
	x->repeat = malloc((n + 1) * sizeof(int));
	if (m == M_ITL)
		x->start = malloc((n + 1) * sizeof(size_t));
	if (!x->v || !x->repeat || (m == M_ITL && !x->start))
		return -1;
	values = 0;
	for (i = 0; i < n; i++) {
		x->repeat[i] = s->repeat[idx[i]];
		if (m != M_ITL) {
			x->v[values++] = s->val[m][idx[i]];
			continue;
		}
		x->start[i] = values;
		len = s->itl_start[idx[i] + 1] - s->itl_start[idx[i]];
		for (j = 0; j < len; j++)
			x->v[values++] = s->itl[s->itl_start[idx[i]] + j];
	}
	if (x->start)
		x->start[n] = values;
	x->side = (struct verdict_side){ x->v, x->start, n, x->repeat, s->n_repeats, NULL };
	if (verdict_sorted_init(&x->sorted, &x->side))
		return -1;
	x->side.sorted = &x->sorted;
	return 0;
}

/* The earlier runs of the experiment 'before' ran: their labels. */
struct compare_history {
	char **labels;
	size_t n;
};

/* The rows of one level being made. */
struct compare_ctx {
	const struct compare_opts *o;
	double min_effect;              /* percent, this level's */
	const struct compare_side *a, *b;
	const size_t *pa, *pb;          /* pairs of requests, NULL: unpaired */
	size_t n_pairs;
	uint64_t seed;
	int ab;                         /* the two sides of one A/B run: the
					 * repeats of a block (its halves), else 0 */
	const struct compare_history *history;  /* NULL: none */
};

/* The percentiles judged of every latency, and their names. */
#define COMPARE_N_PCT 4
static const double compare_pcts[COMPARE_N_PCT] = { 50, 90, 95, 99 };
static const char *const compare_pct_names[COMPARE_N_PCT] = { "P50", "P90", "P95", "P99" };

/*
 * The P50, P90, P95 and P99 rows of latency metric m. Paired when every request
 * with a value on either side has its partner with a value on the other.
 */
static int compare_latency_rows(const struct compare_ctx *c, int m, struct compare_row *w)
{
	struct compare_sample xa, xb;
	size_t *ia = NULL, *ib = NULL, na = 0, nb = 0, np = 0, i, k;
	struct verdict_opts vo = { c->min_effect, VERDICT_LEVEL, c->o->resamples, 0 };

	int paired = 0, rc = -1;

	memset(&xa, 0, sizeof(xa));
	memset(&xb, 0, sizeof(xb));
	ia = malloc((c->a->n + c->n_pairs + 1) * sizeof(*ia));
	ib = malloc((c->b->n + c->n_pairs + 1) * sizeof(*ib));
	if (!ia || !ib)
		goto cleanup;
	for (i = 0; i < c->a->n; i++)
		na += compare_has(c->a, m, i);
	for (i = 0; i < c->b->n; i++)
		nb += compare_has(c->b, m, i);
	for (k = 0; c->pa && k < c->n_pairs; k++) {
		if (compare_has(c->a, m, c->pa[k]) && compare_has(c->b, m, c->pb[k])) {
			ia[np] = c->pa[k];
			ib[np++] = c->pb[k];
		}
	}
	paired = c->pa && np == na && np == nb && np > 0;
	if (!paired) {
		na = nb = 0;
		for (i = 0; i < c->a->n; i++)
			if (compare_has(c->a, m, i))
				ia[na++] = i;
		for (i = 0; i < c->b->n; i++)
			if (compare_has(c->b, m, i))
				ib[nb++] = i;
	} else {
		na = nb = np;
	}
	if (compare_sample_init(&xa, c->a, m, ia, na) || compare_sample_init(&xb, c->b, m, ib, nb))
		goto cleanup;
	for (k = 0; k < COMPARE_N_PCT; k++) {
		w[k].metric = compare_metric_names[m];
		w[k].stat = compare_pct_names[k];
		w[k].unit = "ms";
		w[k].m = m;
		w[k].p = compare_pcts[k];
		w[k].estimated = m == M_TPOT && (c->a->estimated || c->b->estimated);
		/* the seeds of P50 and P99 as before P90 and P95 came */
		vo.seed = c->seed + (uint64_t)m * 10 + (k == 3 ? 1 : k ? 1 + k : 0);
		if (verdict_percentile(&xa.side, &xb.side, paired, compare_pcts[k], &vo, &w[k].v))
			goto cleanup;
	}
	rc = 0;
cleanup:
	compare_sample_release(&xa);
	compare_sample_release(&xb);
	free(ia);
	free(ib);
	return rc;
}

/* The aggregate tok/s row; paired over every request when the level is. */
static int compare_rate_row(const struct compare_ctx *c, struct compare_row *w)
{
	struct verdict_opts vo = { c->min_effect, VERDICT_LEVEL, c->o->resamples,
				   c->seed + 90 };
	const struct compare_side *s[2] = { c->a, c->b };
	const size_t *order[2] = { c->pa, c->pb };
	struct verdict_rate_side rs[2];
	double *tok[2] = { NULL, NULL }, *e2e[2] = { NULL, NULL };
	int *rep[2] = { NULL, NULL };
	size_t k, i, j;
	int rc = -1;

	for (k = 0; k < 2; k++) {
		tok[k] = malloc((s[k]->n + 1) * sizeof(double));
		e2e[k] = malloc((s[k]->n + 1) * sizeof(double));
		rep[k] = malloc((s[k]->n + 1) * sizeof(int));
		if (!tok[k] || !e2e[k] || !rep[k])
			goto cleanup;
		for (i = 0; i < s[k]->n; i++) {
			j = order[k] ? order[k][i] : i;
			tok[k][i] = s[k]->tok[j];
			e2e[k][i] = s[k]->e2e_s[j];
			rep[k][i] = s[k]->repeat[j];
		}
		rs[k] = (struct verdict_rate_side){ tok[k], e2e[k], rep[k], s[k]->n,
						    s[k]->rep_tok, s[k]->rep_wall,
						    s[k]->n_repeats };
	}
	w->metric = "Agg tok/s";
	w->stat = "";
	w->m = -1;
	w->unit = "tok/s";
	w->higher_is_better = 1;
	w->estimated = c->a->estimated || c->b->estimated;
	rc = verdict_rate(&rs[0], &rs[1], c->pa != NULL, &vo, &w->v);
cleanup:
	for (k = 0; k < 2; k++) {
		free(tok[k]);
		free(e2e[k]);
		free(rep[k]);
	}
	return rc;
}

/* Room for the rows of a level: four percentiles of each latency, tok/s. */
#define COMPARE_ROWS_PER_LEVEL (COMPARE_N_PCT * M_ALL + 1)

double compare_min_effect(double given, int noise_measured)
{
	if (given >= 0)
		return given;
	return noise_measured ? VERDICT_MIN_EFFECT_REPEATS : VERDICT_MIN_EFFECT;
}

/* The blocks of an A/B run's level (ab: the repeats a block holds) when
 * both sides have them alike, else 0. */
static size_t compare_blocks(int ab, const struct compare_side *a, const struct compare_side *b)
{
	if (!ab || a->n_repeats != b->n_repeats)
		return 0;
	return (a->n_repeats + (size_t)ab - 1) / (size_t)ab;
}

/*
 * The run-to-run noise of the rows w[0 .. n) of a level, on the log scale:
 * sd[i] the standard deviation of row i's figure over the history's runs
 * at this level (NaN where fewer than COMPARE_HISTORY_MIN_RUNS have it);
 * *df its degrees of freedom (the fewest; SIZE_MAX when no row has one).
 * Returns 0, or an error of db_results.
 */
static int compare_history_sd(struct db *db, const struct compare_history *h, int level,
			      const struct compare_row *w, size_t n, double *sd, size_t *df,
			      char *err, size_t errlen)
{
	double *sum = calloc(n + 1, sizeof(double)), *sq = calloc(n + 1, sizeof(double));
	size_t *cnt = calloc(n + 1, sizeof(size_t)), i, k, nr = 0;
	struct result *r = NULL;
	struct compare_side s;
	double *buf = NULL, f;
	char name[32];
	int rc = DB_ERR_WORK;

	memset(&s, 0, sizeof(s));
	if (!sum || !sq || !cnt)
		goto cleanup;
	for (k = 0; k < h->n; k++) {
		rc = db_results(db, h->labels[k], level, &r, &nr, err, errlen);
		if (rc)
			goto cleanup;
		rc = DB_ERR_WORK;
		if (compare_side_fill(&s, r, nr, 0))
			goto cleanup;
		free(buf);
		if (!(buf = malloc(compare_figure_room(&s) * sizeof(double))))
			goto cleanup;
		for (i = 0; s.ok && i < n; i++) {
			f = compare_figure(&s, w[i].m, w[i].p, -1, 1, buf);
			if (f > 0 && isfinite(f)) {
				sum[i] += log(f);
				sq[i] += log(f) * log(f);
				cnt[i]++;
			}
		}
		compare_side_release(&s);
		db_results_free(r, nr);
		r = NULL;
	}
	*df = SIZE_MAX;
	for (i = 0; i < n; i++) {
		double mean = cnt[i] ? sum[i] / (double)cnt[i] : 0;

		sd[i] = NAN;
		if (cnt[i] < COMPARE_HISTORY_MIN_RUNS)
			continue;
		sd[i] = sqrt(fmax(0.0, (sq[i] - (double)cnt[i] * mean * mean) / (double)(cnt[i] - 1)));
		if (cnt[i] - 1 < *df)
			*df = cnt[i] - 1;
	}
	rc = DB_OK;
cleanup:
	if (rc == DB_ERR_WORK)
		errmsg_set(err, errlen, "measuring the noise at %s: out of memory",
			   load_name(load_of_code(level, NAN), name, sizeof(name)));
	compare_side_release(&s);
	db_results_free(r, nr);
	free(buf);
	free(sum);
	free(sq);
	free(cnt);
	return rc;
}

/*
 * The noise of the rows w[0 .. n) of one level (see verdict_noise): an A/B
 * run's blocks; else --noise; else the history's spread; else none, and a
 * faster or slower is held back.
 */
static int compare_noise(struct db *db, const struct compare_ctx *c, int level,
			 struct compare_row *w, size_t n, struct compare_level *lv, char *err,
			 size_t errlen)
{
	struct verdict_opts vo = { c->min_effect, VERDICT_LEVEL, c->o->resamples, 0 };
	double *buf = NULL, *sa = NULL, *sb = NULL, *sd = NULL;
	char name[32];
	size_t i, r, blocks = compare_blocks(c->ab, c->a, c->b), df = 0;
	int rc = DB_ERR_WORK;

	if (blocks >= 2) {
		buf = malloc((compare_figure_room(c->a) + compare_figure_room(c->b)) *
			     sizeof(double));
		sa = malloc(blocks * sizeof(double));
		sb = malloc(blocks * sizeof(double));
		if (!buf || !sa || !sb)
			goto nomem;
		lv->noise = VERDICT_NOISE_BLOCKS;
		for (i = 0; i < n; i++) {
			if ((w[i].m >= 0 && verdict_blocks_too_few(&w[i].v, blocks)) ||
			    w[i].v.outcome == VERDICT_NA)
				continue;
			for (r = 0; r < blocks; r++) {
				sa[r] = compare_figure(c->a, w[i].m, w[i].p, (int)r, c->ab, buf);
				sb[r] = compare_figure(c->b, w[i].m, w[i].p, (int)r, c->ab, buf);
			}
			if (!verdict_blocks(sa, sb, blocks, &vo, w[i].higher_is_better, &w[i].v))
				verdict_hold(&w[i].v);
		}
	} else if (c->o->noise_pct >= 0) {
		lv->noise = VERDICT_NOISE_GIVEN;
		for (i = 0; i < n; i++)
			verdict_widen(&w[i].v, log1p(c->o->noise_pct / 100.0), 1.959964,
				      VERDICT_NOISE_GIVEN, &vo, w[i].higher_is_better);
	} else if (c->history && c->history->n >= COMPARE_HISTORY_MIN_RUNS) {
		if (!(sd = malloc((n + 1) * sizeof(double))))
			goto nomem;
		rc = compare_history_sd(db, c->history, level, w, n, sd, &df, err, errlen);
		if (rc)
			goto cleanup;
		lv->noise = df == SIZE_MAX ? VERDICT_NOISE_NONE : VERDICT_NOISE_HISTORY;
		lv->history_runs = df == SIZE_MAX ? 0 : df + 1;
		for (i = 0; i < n; i++) {
			if (isnan(sd[i]))
				verdict_hold(&w[i].v);
			else {
				verdict_widen(&w[i].v, sd[i], stats_t975((double)df),
					      VERDICT_NOISE_HISTORY, &vo, w[i].higher_is_better);
				w[i].v.noise_df = df;
			}
		}
	} else {
		lv->noise = VERDICT_NOISE_NONE;
		for (i = 0; i < n; i++)
			verdict_hold(&w[i].v);
	}
	rc = DB_OK;
	goto cleanup;
nomem:
	errmsg_set(err, errlen, "measuring the noise at %s: out of memory",
			   load_name(load_of_code(level, NAN), name, sizeof(name)));
cleanup:
	free(buf);
	free(sa);
	free(sb);
	free(sd);
	return rc;
}

/* Compares one level, stored as code level_a in before and level_b in
 * after, shown as load (shards_load); appends its rows to out->rows (room
 * reserved). Its code keys the seed of its resampling. */
static int compare_level(struct db *db, const struct db_run *before, const struct db_run *after,
			 int level_a, int level_b, struct load load, const struct compare_opts *o,
			 int ab, const struct compare_history *history,
			 struct compare_result *out, struct compare_level *lv, char *err,
			 size_t errlen)
{
	struct result *ra = NULL, *rb = NULL;
	struct compare_side a, b;
	struct compare_row *w = &out->rows[out->n_rows];
	struct compare_ctx c = { o, 0, &a, &b, NULL, NULL, 0,
				 o->seed + (uint64_t)load_code(load) * 1000, 0, NULL };
	size_t na = 0, nb = 0, *pa = NULL, *pb = NULL, m, rows;
	char name[32];
	int rc, p;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	rc = db_results(db, before->label, level_a, &ra, &na, err, errlen);
	if (!rc)
		rc = db_results(db, after->label, level_b, &rb, &nb, err, errlen);
	if (rc)
		goto cleanup;
	if (compare_side_fill(&a, ra, na, before->param.timeless) ||
	    compare_side_fill(&b, rb, nb, after->param.timeless))
		goto nomem;
	lv->repeats_before = a.n_repeats;
	lv->repeats_after = b.n_repeats;
	lv->ok_before = a.ok;
	lv->ok_after = b.ok;
	lv->failed_before = a.failed;
	lv->failed_after = b.failed;
	lv->cancelled_before = a.cancelled;
	lv->cancelled_after = b.cancelled;
	summary_errors_format(&a.errors, lv->errors_before, sizeof(lv->errors_before));
	summary_errors_format(&b.errors, lv->errors_after, sizeof(lv->errors_after));
	lv->estimated_before = a.estimated;
	lv->estimated_after = b.estimated;
	attribution_compute(ra, na, &lv->att_before);
	attribution_compute(rb, nb, &lv->att_after);
	c.ab = ab;
	c.history = history;
	lv->blocks = compare_blocks(ab, &a, &b);
	lv->min_effect = c.min_effect = compare_min_effect(o->min_effect,
		lv->blocks >= 2 || o->noise_pct >= 0 ||
		(history && history->n >= COMPARE_HISTORY_MIN_RUNS));
	if (!a.ok || !b.ok)
		goto cleanup;   /* no verdict: the printer says why */
	p = verdict_pair(a.trace_id, a.repeat, a.n, b.trace_id, b.repeat, b.n, &pa, &pb,
			 &c.n_pairs);
	if (p < 0)
		goto nomem;
	if (p == 1) {
		c.pa = pa;
		c.pb = pb;
		lv->paired = 1;
	}
	memset(w, 0, COMPARE_ROWS_PER_LEVEL * sizeof(*w));
	for (m = 0; m < M_LATENCIES; m++)
		if (compare_latency_rows(&c, (int)m, &w[COMPARE_N_PCT * m]))
			goto nomem;
	if (compare_rate_row(&c, &w[COMPARE_N_PCT * M_LATENCIES]))
		goto nomem;
	rows = COMPARE_N_PCT * M_LATENCIES + 1;
	for (m = M_LATENCIES; a.sessions && b.sessions && m < M_ALL; m++, rows += COMPARE_N_PCT)
		if (compare_latency_rows(&c, (int)m, &w[rows]))
			goto nomem;
	for (m = 0; m < rows; m++)
		w[m].level = load;
	rc = compare_noise(db, &c, level_a, w, rows, lv, err, errlen);
	if (rc)
		goto cleanup;
	out->n_rows += rows;
	lv->compared = 1;
	goto cleanup;
nomem:
	errmsg_set(err, errlen, "comparing '%s' and '%s' at %s: out of memory",
		   before->label, after->label, load_name(load, name, sizeof(name)));
	rc = DB_ERR_WORK;
cleanup:
	free(pa);
	free(pb);
	compare_side_release(&a);
	compare_side_release(&b);
	db_results_free(ra, na);
	db_results_free(rb, nb);
	return rc;
}

static int compare_add_warning(struct compare_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int compare_add_warning(struct compare_result *r, const char *fmt, ...)
{
	char buf[2048], **w;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	w = realloc(r->warnings, (r->n_warnings + 1) * sizeof(*w));
	if (!w)
		return -1;
	r->warnings = w;
	if (!(w[r->n_warnings] = strdup(buf)))
		return -1;
	r->n_warnings++;
	return 0;
}

static int compare_str_differ(const char *a, const char *b)
{
	if (!a || !b)
		return a != b;
	return strcmp(a, b) != 0;
}

/* Are a and b two runs of one experiment: one endpoint, trace and set of
 * parameters, but for what differs by design? */
static int compare_same_experiment(const struct db_run *a, const struct db_run *b)
{
	struct diff d;
	int same;

	if (compare_str_differ(a->endpoint, b->endpoint) ||
	    !tracefile_same_trace(a->trace_digest, a->trace_crc32, b->trace_digest,
				  b->trace_crc32))
		return 0;
	same = diff_runs(a, b, DIFF_PARAMS, &d) == 0 && d.n == 0;
	diff_release(&d);
	return same;
}

/*
 * Warns "the runs used different WHAT: x; y; z (analyze diff lists all N)"
 * when a and b differ in 'parts' (diff.h). Returns 0, or -1 when out of
 * memory.
 */
static int compare_warn_diff(struct compare_result *r, const struct db_run *a,
			     const struct db_run *b, unsigned parts, const char *what)
{
	char buf[1024];
	size_t i, used = 0, shown = 4;
	struct diff d;
	int rc = diff_runs(a, b, parts, &d);

	buf[0] = '\0';
	for (i = 0; !rc && i < d.n && i < shown && used < sizeof(buf); i++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s", i ? "; " : "",
					 d.lines[i]);
	if (!rc && d.n + d.more > shown && used < sizeof(buf))
		snprintf(buf + used, sizeof(buf) - used, " (analyze diff %s %s lists all %zu)",
			 a->label, b->label, d.n + d.more);
	if (!rc && d.n)
		rc = compare_add_warning(r, "the runs used different %s: %s", what, buf);
	diff_release(&d);
	return rc;
}

/* Are a and b the two sides of one A/B run (params.ab.labels)? The
 * repeats a block of it holds (params.ab.halves), else 0. */
static int compare_ab_sides(const struct db_run *a, const struct db_run *b)
{
	if (run_params_ab_side(&a->param, a->label) && run_params_ab_side(&a->param, b->label) &&
	    !compare_str_differ(a->params, b->params))
		return a->param.ab_halves;
	return 0;
}

static void compare_history_release(struct compare_history *h)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		free(h->labels[i]);
	free(h->labels);
	memset(h, 0, sizeof(*h));
}

/* The runs of before's experiment in the database, before itself among
 * them and 'after' not (it is what is being judged). */
static int compare_history_find(struct db *db, const struct db_run *before, const char *after,
				struct compare_history *h, char *err, size_t errlen)
{
	struct db_run *all = NULL;
	size_t n = 0, i;
	int rc;

	memset(h, 0, sizeof(*h));
	rc = db_runs(db, NULL, &all, &n, err, errlen);
	if (rc)
		return rc;
	if (!(h->labels = calloc(n + 1, sizeof(char *))))
		goto nomem;
	for (i = 0; i < n; i++) {
		if (!strcmp(all[i].label, after) || !compare_same_experiment(before, &all[i]))
			continue;
		if (!(h->labels[h->n] = strdup(all[i].label)))
			goto nomem;
		h->n++;
	}
	db_runs_free(all, n);
	return DB_OK;
nomem:
	db_runs_free(all, n);
	compare_history_release(h);
	errmsg_set(err, errlen, "finding the runs of '%s': out of memory", before->label);
	return DB_ERR_WORK;
}

static int compare_warnings(struct compare_result *r, const struct db_run *a,
			    const struct db_run *b)
{
	double sa = a->param.salt_seed, sb = b->param.salt_seed;

	/* The same salts against one server: the later run's prompts were in
	 * the prefix cache the earlier one filled. */
	if (!isnan(sa) && sa == sb && !compare_str_differ(a->endpoint, b->endpoint) &&
	    compare_add_warning(r, "both runs salted their prompts with salt seed %.0f against "
				"%s: the later one found the earlier one's prompts in the "
				"server's prefix cache, and its TTFT is not comparable (give "
				"neither run --salt-seed)", sa, a->endpoint ? a->endpoint : "one endpoint"))
		return -1;

	if (!tracefile_same_trace(a->trace_digest, a->trace_crc32, b->trace_digest,
				  b->trace_crc32) &&
	    compare_add_warning(r, "the runs replayed different traces (digest %s vs %s): "
				"requests are not paired and the comparison may not be fair",
				a->trace_digest ? a->trace_digest : "unknown",
				b->trace_digest ? b->trace_digest : "unknown"))
		return -1;
	if ((a->param.timeless || b->param.timeless) &&
	    compare_add_warning(r, "'%s' has no start times (another tool's file): its wall "
				"time is unknown, so Agg tok/s is n/a, not judged",
				a->param.timeless ? a->label : b->label))
		return -1;
	if (compare_warn_diff(r, a, b, DIFF_PARAMS, "parameters") ||
	    compare_warn_diff(r, a, b, DIFF_HOST, "hosts or builds"))
		return -1;
	return 0;
}

/* Keeps the levels of l that are not rate levels (< 0), in order; returns
 * how many. */
static size_t compare_drop_rate_levels(int *l, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (load_of_code(l[i], NAN).kind != LOAD_RATE)
			l[k++] = l[i];
	return k;
}

/* Warns once about the levels only one run has. */
static int compare_level_warning(struct compare_result *r, const char *label,
				 const struct load *l, size_t n, const struct load *other,
				 size_t n_other)
{
	char list[512], name[32];
	size_t i, j, used = 0;

	list[0] = '\0';
	for (i = 0; i < n; i++) {
		for (j = 0; j < n_other && !load_same(other[j], l[i]); j++)
			;
		if (j == n_other && used < sizeof(list))
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
						 used ? ", " : "",
						 load_name(l[i], name, sizeof(name)));
	}
	if (!used)
		return 0;
	return compare_add_warning(r, "%s only in '%s': not compared", list, label);
}

/*
 * Warns when one run's host was much busier than the other's at a level
 * both have (replay's own host records, lib/hostload.h): at least
 * COMPARE_HOST_GAP of all its CPU time more, and more than half of it
 * busy. A client on a busy host is late to read, and a server on it slow
 * to answer; the verdicts may be the host's. Names the level with the
 * widest gap. Returns 0, or -1 when out of memory; a run without host
 * records (older files, other tools') says nothing.
 */
#define COMPARE_HOST_GAP 0.25
static int compare_warn_host(struct db *db, struct compare_result *r, const char *before,
			     const char *after)
{
	struct db_metric_level *la = NULL, *lb = NULL;
	struct energy_counter c;
	size_t na = 0, nb = 0, i;
	double worst = 0, wa = NAN, wb = NAN;
	int level = 0, rc = 0;
	char err[64], cell[24];

	energy_counter_default(&c);
	if (db_metric_levels(db, before, &c, &la, &na, err, sizeof(err)) ||
	    db_metric_levels(db, after, &c, &lb, &nb, err, sizeof(err)))
		goto done;      /* nothing to say: the figures are not there */
	for (i = 0; i < na; i++) {
		double a = la[i].m.cpu_busy, b;

		if (!report_host_source(la[i].source) || isnan(a))
			continue;
		b = report_host_busy(lb, nb, load_of_code(la[i].level, NAN));
		if (!isnan(b) && fabs(a - b) > worst) {
			worst = fabs(a - b);
			wa = a;
			wb = b;
			level = la[i].level;
		}
	}
	if (worst >= COMPARE_HOST_GAP && fmax(wa, wb) > 0.5)
		rc = compare_add_warning(r, "'%s' ran on a busier host: its CPUs %.0f%% busy against "
					 "%.0f%% at C=%s (the host replay ran on, analyze report); "
					 "a busy host delays the client and, on one host, the "
					 "server: the verdicts may be the host's",
					 wa > wb ? before : after, 100 * fmax(wa, wb),
					 100 * fmin(wa, wb),
					 load_cell(load_of_code(level, NAN), cell, sizeof(cell)));
done:
	free(la);
	free(lb);
	return rc;
}

int compare_runs(struct db *db, const char *before, const char *after,
		 const struct compare_opts *o, struct compare_result *out, char *err,
		 size_t errlen)
{
	struct compare_result r = { 0 };
	struct compare_history history = { 0 };
	struct db_run *ra = NULL, *rb = NULL;
	int *la = NULL, *lb = NULL, ab;
	struct load *sa = NULL, *sb = NULL;
	size_t nra = 0, nrb = 0, nla = 0, nlb = 0, i, j;
	int rc, fa = 1, fb = 1;

	r.min_effect = o->min_effect;
	rc = db_runs(db, before, &ra, &nra, err, errlen);
	if (!rc)
		rc = db_runs(db, after, &rb, &nrb, err, errlen);
	if (!rc)
		rc = db_levels(db, before, &la, &nla, err, errlen);
	if (!rc)
		rc = db_levels(db, after, &lb, &nlb, err, errlen);
	if (!rc)
		rc = compare_history_find(db, &ra[0], after, &history, err, errlen);
	if (rc)
		goto cleanup;
	ab = compare_ab_sides(&ra[0], &rb[0]);
	r.ab = ab;
	r.history_runs = history.n;
	/* A search over rates probes rates of its own: its levels pair with no
	 * other run's. */
	nla = compare_drop_rate_levels(la, nla);
	nlb = compare_drop_rate_levels(lb, nlb);
	/* a sharded closed loop's levels as report shows them: S x C */
	rc = shards_level_factor(db, before, &fa, err, errlen);
	if (!rc)
		rc = shards_level_factor(db, after, &fb, err, errlen);
	if (rc)
		goto cleanup;
	sa = malloc((nla + 1) * sizeof(*sa));
	sb = malloc((nlb + 1) * sizeof(*sb));
	if (!sa || !sb)
		goto nomem;
	for (i = 0; i < nla; i++)
		sa[i] = shards_load(load_of_code(la[i], NAN), fa);
	for (j = 0; j < nlb; j++)
		sb[j] = shards_load(load_of_code(lb[j], NAN), fb);
	if (compare_warnings(&r, &ra[0], &rb[0]) ||
	    compare_warn_host(db, &r, before, after) ||
	    compare_level_warning(&r, before, sa, nla, sb, nlb) ||
	    compare_level_warning(&r, after, sb, nlb, sa, nla))
		goto nomem;
	r.rows = calloc(COMPARE_ROWS_PER_LEVEL * (nla < nlb ? nla : nlb) + 1, sizeof(*r.rows));
	r.levels = calloc((nla < nlb ? nla : nlb) + 1, sizeof(*r.levels));
	if (!r.rows || !r.levels)
		goto nomem;
	for (i = 0, j = 0; i < nla && j < nlb;) {
		int order = load_cmp(sa[i], sb[j]);

		if (order < 0) {
			i++;
		} else if (order > 0) {
			j++;
		} else {
			struct compare_level *lv = &r.levels[r.n_levels++];

			lv->level = sa[i];
			lv->level_before = la[i];
			lv->level_after = lb[j];
			rc = compare_level(db, &ra[0], &rb[0], la[i], lb[j], sa[i], o, ab, &history,
					   &r, lv, err,
					   errlen);
			if (rc)
				goto cleanup;
			i++;
			j++;
		}
	}
	if (r.n_levels)
		rc = compare_efficiency_fill(db, &ra[0], &rb[0], &r, err, errlen);
	if (!rc && r.n_levels)
		rc = compare_client_fill(db, before, after, &r, err, errlen);
	if (!rc && r.n_levels)
		rc = compare_models_fill(db, before, after, &r, err, errlen);
	if (rc)
		goto cleanup;
	if (!r.n_levels) {
		errmsg_set(err, errlen, "runs '%s' and '%s' have no concurrency level in "
			   "common (the rate levels of replay --find-capacity pair with none; "
			   "analyze report shows their load curves)", before, after);
		rc = DB_ERR_INPUT;
		goto cleanup;
	}
	*out = r;
	memset(&r, 0, sizeof(r));
	goto cleanup;
nomem:
	errmsg_set(err, errlen, "comparing '%s' and '%s': out of memory", before, after);
	rc = DB_ERR_WORK;
cleanup:
	compare_result_release(&r);
	compare_history_release(&history);
	db_runs_free(ra, nra);
	db_runs_free(rb, nrb);
	free(la);
	free(lb);
	free(sa);
	free(sb);
	return rc;
}

/* How much worse row w got, in percent (positive: worse). */
static double compare_worse_pct(const struct compare_row *w)
{
	return w->higher_is_better ? -w->v.change_pct : w->v.change_pct;
}

/* Does row w fail a gate: slower, or with client held back from slower? */
static int compare_gated(const struct compare_row *w, double limit, int client)
{
	int slower = w->v.outcome == VERDICT_SLOWER ||
		     (client && w->v.client_held && w->v.client_outcome == VERDICT_SLOWER);

	return slower && compare_worse_pct(w) > limit;
}

size_t compare_regressions(const struct compare_result *r, double limit, int client,
			   size_t *idx, size_t max)
{
	size_t i, k, n = 0, best;

	for (i = 0; i < r->n_rows; i++)
		n += compare_gated(&r->rows[i], limit, client);
	/* the worst first: pick the worst row not picked yet, max times */
	for (k = 0; k < max && k < n; k++) {
		best = SIZE_MAX;
		for (i = 0; i < r->n_rows; i++) {
			const struct compare_row *w = &r->rows[i];
			size_t j;

			if (!compare_gated(w, limit, client))
				continue;
			for (j = 0; j < k && idx[j] != i; j++)
				;
			if (j < k)
				continue;
			if (best == SIZE_MAX || compare_worse_pct(w) > compare_worse_pct(&r->rows[best]))
				best = i;
		}
		idx[k] = best;
	}
	return n;
}
