/*
 * live.c - the sweep table replay prints as levels end: each level's row
 * (lib/summary.c), its scaling against the side's C=1 level, and the notes
 * that follow a row on stderr (connections the server held back, a level
 * the client distorted); see run.h.
 */
#include "replay/run.h"
#include "lib/clientbound.h"
#include "lib/clock.h"
#include "lib/metric.h"
#include "lib/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * Prints the live table's header for the row s (NULL: the end of a run
 * without rows) unless one with the same columns is out. The header waits
 * for the first row: only answers tell whether the server reasons, and
 * the P50 TTFA column shows from the first level that did on
 * (summary_groups), as analyze report shows it for the whole run. A later
 * level that is the first to reason starts the table again under a header
 * with the column (text and Markdown: CSV and JSON have TTFA in every
 * row); the rows above had no answer after reasoning, so their TTFA was
 * their TTFT.
 */
void live_begin(struct replay *rp, const struct level_summary *s)
{
	enum table_format fmt = rp->o.format;
	unsigned groups = rp->live.groups | (s ? summary_groups(s, 1) : 0);
	size_t t;

	if (rp->live_begun && (groups == rp->live.groups ||
			       (fmt != TABLE_TEXT && fmt != TABLE_MARKDOWN)))
		return;
	if (rp->live_begun) {
		table_end(&rp->live);
		fputc('\n', stdout);   /* a Markdown table ends at a blank line */
	}
	summary_table_init(&rp->live, stdout, fmt, groups);
	for (t = 0; t < rp->n_sides; t++)
		summary_table_fit_run(&rp->live, rp->side[t].label);
	table_begin(&rp->live);
	rp->live_begun = 1;
}

/* Keeps a finished level's row: the live table's, and the run's for its
 * end. Returns 0, or -1 when out of memory. */
int live_keep_row(struct replay *rp, const struct run_side *sd, const struct level_summary *s)
{
	if (rp->table) {
		live_begin(rp, s);
		summary_table_row(&rp->live, sd->label, s);
	}
	if (rp->n_rows == rp->rows_cap) {   /* a capacity search's levels are not known */
		struct level_summary *grown = realloc(rp->rows, 2 * rp->rows_cap * sizeof(*s));

		if (!grown)
			return -1;
		rp->rows = grown;
		rp->rows_cap *= 2;
	}
	rp->rows[rp->n_rows++] = *s;
	return 0;
}

/*
 * The scaling of row s of side sd: its aggregate tok/s against C times the
 * side's C=1 level, that level's repeats pooled (their tokens over their
 * summed wall time, as analyze report pools them). A C=1 row is its own
 * base, 100% by construction: a repeat set against the first would read
 * the server's noise (101-104%) as scaling. Levels run in order and each
 * level's repeats one after another, so a C > 1 row comes after every
 * repeat of C=1 when C=1 is listed first; before C=1, a row has no base.
 * A capacity search's looks have none either: each is a batch from an
 * idle server at a load the search chose, not a step of a sweep (the
 * load curve of analyze report sets its levels side by side).
 */
void live_set_scaling(struct replay *rp, const struct run_side *sd, struct level_summary *s)
{
	size_t side = (size_t)(sd - rp->side);

	if (rp->o.find_capacity) {
		summary_set_scaling(s, NAN);
		return;
	}
	if (load_same(s->level, load_closed(1)) && s->wall_s > 0) {
		rp->base_tokens[side] += s->tokens;
		rp->base_wall_s[side] += s->wall_s;
		summary_set_scaling(s, s->agg_tps);
		return;
	}
	summary_set_scaling(s, rp->base_wall_s[side] > 0 ?
			    metric_agg_tps((double)rp->base_tokens[side], rp->base_wall_s[side]) : NAN);
}

/*
 * A server that held connections back when the level's were opened (a
 * fixed pool of connection threads, each kept by an idle connection until
 * its keep-alive timeout): one line after the level's row, with how many
 * it served at once and what the measured requests on new connections,
 * held back in turn, waited beyond the others' TTFT at the median; or
 * that the level opened no more than the server served before; or both.
 */
void live_note_held_connections(const struct level_run *lr, const struct level_summary *s)
{
	const struct client_warm_info *w = &lr->warm;
	size_t k, n_new = 0, n_old = 0;
	double *v;
	char name[32], wait[96] = "";

	if (!w->held && !w->capped)
		return;
	v = calloc(lr->issued ? lr->issued : 1, sizeof(*v));
	for (k = 0; v && k < lr->issued; k++) {
		const struct result *r = &lr->results[k];

		if (r->warmup || r->ttft_ns < 0 || !result_ok(r))
			continue;
		if (r->new_connection)
			v[n_new++] = (double)r->ttft_ns / NS_PER_MS;
	}
	for (k = 0; v && k < lr->issued; k++) {
		const struct result *r = &lr->results[k];

		if (r->warmup || r->ttft_ns < 0 || !result_ok(r) || r->new_connection)
			continue;
		v[n_new + n_old++] = (double)r->ttft_ns / NS_PER_MS;
	}
	if (n_new && n_old)
		snprintf(wait, sizeof(wait), ", TTFT P50 %.0f ms against %.0f ms on the connections "
			 "it held", stats_select_percentile(v, n_new, 50),
			 stats_select_percentile(v + n_new, n_old, 50));
	free(v);
	load_name(load_unrated(s->level), name, sizeof(name));
	/* both when the connections it did open were held back again (a
	 * server's keep-alive closing some of them meanwhile): what the
	 * requests waited goes with the last line */
	if (w->capped)
		fprintf(stderr, "tracebench replay: note: at %s %zu connections were not opened "
			"before the level: the server served only %zu at once before", name,
			w->capped, lr->connections - w->capped);
	if (w->capped && !w->held)
		fprintf(stderr, "; %zu measured requests waited for a connection%s\n", n_new, wait);
	else if (w->capped)
		fputc('\n', stderr);
	if (w->held)
		fprintf(stderr, "tracebench replay: note: at %s the server served only %zu "
			"connections at once: %zu more waited %.1f s unanswered before the level "
			"and were given up (a server with a fixed pool of connection threads, "
			"each held by an idle kept-alive connection until its timeout); %zu "
			"measured requests waited for a connection%s\n", name, w->served, w->held,
			w->waited_s, n_new, wait);
}

/*
 * A level the client distorted (lib/clientbound.h): one line after its
 * row, the reason in words, as analyze report judges it (the host's busy
 * and steal shares are the report's to add: they need both edges' records
 * read back). And once a run, that the bound is blind to the thread's
 * wait to run, when its schedstat could not be read.
 */
void live_note_client_limited(const struct level_run *lr, const struct level_summary *s)
{
	static int said_unread;
	struct clientbound_level m = { s->ttft.p50 / 1e3, s->ttft.p99 / 1e3, NAN, NAN };
	char name[32], why[200];

	if (lr->client_known && lr->client_w.run_wait_unread == 1 && !said_unread) {
		fprintf(stderr, "tracebench replay: note: cannot read this thread's wait to run"
			" (/proc/thread-self/schedstat): the client's bound sees the kernel not"
			" running it only as its timers' lateness\n");
		said_unread = 1;
	}
	if (!lr->client_known ||
	    clientbound_judge(&lr->client_b, &lr->client_w, &m, CLIENTBOUND_DEFAULT_SHARE, why,
			      sizeof(why)) != 1)
		return;
	fprintf(stderr, "tracebench replay: note: %s is client-limited: %s\n",
		load_name(load_unrated(s->level), name, sizeof(name)), why);
}
