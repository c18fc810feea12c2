/*
 * report_plan.c - what a closed-loop run planned against what it measured:
 * the requests each level was to measure, recomputed from the run's
 * parameters, so that a stopped or killed replay reads as interrupted (a
 * line in text and Markdown, a row per level that measured nothing in CSV
 * and JSON) and not as a complete run with fewer levels.
 */
#include "analyze/report_parts.h"
#include "lib/metric.h"

/*
 * The plan of a closed-loop run from its params: its levels' loads in
 * order into loads[] (RUN_PARAMS_MAX_LEVELS at most) and the requests
 * each was to measure into planned[] (-n, or replay's default of twice C
 * and at least 4, times --repeat). Returns how many levels, or 0 when the
 * plan cannot be recomputed from the params (open loop, shards, sessions,
 * capacity searches, other tools' files).
 */
static size_t report_plan(const struct run *run, const struct run_params *param,
			  struct load *loads, size_t *planned)
{
	size_t i;

	for (i = 0; run->turns && i < run->n_levels; i++)
		if (run->turns[i].sessions)
			return 0;   /* params.requests counts sessions */
	if (param->planless || run->shards)
		return 0;
	for (i = 0; i < param->n_levels; i++) {
		double level = param->levels[i];
		double want = param->requests > 0 ? param->requests : level * 2 > 4 ? level * 2 : 4;

		want *= param->repeat;
		loads[i] = load_closed(param->levels[i]);
		planned[i] = want < 1e12 ? (size_t)want : 0;
	}
	return param->n_levels;
}

/* Sets each measured level's planned requests where the plan is known. */
void report_plan_mark(struct run *run)
{
	const struct run_params *param = &run->row->param;
	struct load loads[RUN_PARAMS_MAX_LEVELS];
	size_t planned[RUN_PARAMS_MAX_LEVELS], n, i;
	struct level_summary *l;

	n = report_plan(run, param, loads, planned);
	for (i = 0; i < n; i++)
		if ((l = run_level(run, loads[i])))
			l->planned = planned[i];
}

/*
 * "interrupted: C=2 has 3 of 8 requests; nothing measured: C=4, C=8" when a
 * closed-loop run measured fewer requests than its parameters planned (a
 * stopped replay keeps what it measured; a killed one, what it flushed).
 * Returns 1 when it printed a line.
 */
int report_plan_interrupted(FILE *out, const struct run *run)
{
	const struct run_params *param = &run->row->param;
	struct load loads[RUN_PARAMS_MAX_LEVELS];
	size_t planned[RUN_PARAMS_MAX_LEVELS], n, i;
	const struct level_summary *l;
	char name[32];
	int cut = 0, missing = 0;

	n = report_plan(run, param, loads, planned);
	for (i = 0; i < n; i++) {
		l = run_level(run, loads[i]);
		if (l && l->requests < planned[i])
			fprintf(out, "%s %s has %zu of %zu requests", cut++ ? "," : "interrupted:",
				load_name(loads[i], name, sizeof(name)), l->requests,
				planned[i]);
	}
	for (i = 0; i < n; i++)
		if (!run_level(run, loads[i]))
			fprintf(out, "%s %s", missing++ ? "," : cut ? "; nothing measured:" :
				"nothing measured:", load_name(loads[i], name, sizeof(name)));
	if (cut || missing)
		fputs(" (the replay was stopped)\n", out);
	return cut || missing;
}

/* CSV and JSON: a row for each planned level that measured nothing, its
 * requests 0 of those planned, "interrupted" true. */
void report_plan_unreached_rows(struct table *t, const char *label, const struct run *run)
{
	const struct run_params *param = &run->row->param;
	struct load loads[RUN_PARAMS_MAX_LEVELS];
	size_t planned[RUN_PARAMS_MAX_LEVELS], n, i;
	struct level_summary s;

	n = report_plan(run, param, loads, planned);
	for (i = 0; i < n; i++) {
		if (run_level(run, loads[i]))
			continue;
		summary_compute(NULL, 0, loads[i], NULL, &s);
		s.planned = planned[i];
		summary_table_row(t, label, &s);
	}
}
