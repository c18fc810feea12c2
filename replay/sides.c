/*
 * sides.c - the sides of a replay (replay/run.h): each side is a server,
 * the run's label and its results file; an A/B run has two and runs every
 * level and repeat against both, in a balanced order (schedule_ab_order),
 * each side's in two halves when the levels are long enough for them
 * (SCHEDULE_AB_HALVES, replay_ab_halves).
 * This file asks each server what it is, opens and closes each side's
 * results file, points the level run at a side, gives each side, level
 * and repeat its salts, and runs a block of the A/B order.
 */
#include "replay/run.h"
#include "replay/client.h"
#include "replay/header.h"
#include "replay/schedule.h"
#include "replay/server_info.h"
#include "lib/cli.h"
#include "lib/clock.h"
#include "lib/load.h"
#include "lib/redact.h"
#include "lib/tracefile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The tag of a level's salts (level_request_salt puts a key before it): which
 * level and repeat, "c4r1"; "o" for an open-loop run, "o3r1" for look 1
 * of a rate search's probe 3; "w" for the warm-ups (sides_set_salts).
 *
 * Positions: a level sends the trace's requests (in a session trace, its
 * sessions) in order from position lr->first, position q being unit q % n
 * in pass q / n over the trace. A sweep's levels start at 0 (the same
 * requests at each level); the looks of a capacity search go on where the
 * last one ended, so no look resends what an earlier one sent. A unit sent
 * again in a later pass (-n past the trace's length) gets a salt of its own
 * (".1", ".2" after the tag): the server cannot find its first sending
 * cached. Distinct within a run by construction, the same for the same
 * --salt-seed, and different across runs by default.
 */
static void make_salt(char *buf, size_t len, int open_loop, struct load load, int repeat)
{
	if (!open_loop)
		snprintf(buf, len, "c%dr%d", load.concurrency, repeat);
	else if (load.kind == LOAD_RATE)
		snprintf(buf, len, "o%dr%d", load.probe, repeat);
	else
		snprintf(buf, len, "o");
}

/* Points the level run at side sd: its file, numbering, server. Each
 * side, level and repeat sends from the trace's first request (a
 * capacity search's looks: from where the last one ended). */
void sides_use(struct replay *rp, struct run_side *sd)
{
	rp->lr.out = sd->out;
	rp->lr.seq = &sd->seq;
	if (client_set_endpoint(rp->client, sd->endpoint) < 0)
		fprintf(stderr, "tracebench replay: out of memory: the secrets of %s may show "
			"in error details\n", sd->shown ? sd->shown : "an endpoint");
}

/*
 * The salts of a level of load 'load', repeat rep against side sd: "" for both
 * with --no-salt. The sides of an A/B run, maybe one server, salt apart.
 */
void sides_set_salts(struct replay *rp, const struct run_side *sd, struct load load, int rep)
{
	const struct replay_options *o = &rp->o;
	uint64_t seed = o->salt_seed + (uint64_t)(sd - rp->side);

	rp->lr.salt[0] = rp->lr.warmup_salt[0] = '\0';
	rp->lr.salt_seed = seed;
	if (o->no_salt)
		return;
	make_salt(rp->lr.salt, sizeof(rp->lr.salt), o->open_loop, load, rep);
	snprintf(rp->lr.warmup_salt, sizeof(rp->lr.warmup_salt), "w");
}

/*
 * Asks each server what it is, once, before any warm-up (replay/
 * server_info.h); a server that says nothing is recorded as unknown and
 * the run goes on. Returns 0, or the exit status when out of memory.
 */
int sides_ask_servers(struct replay *rp)
{
	size_t t;

	for (t = 0; t < rp->n_sides; t++) {
		struct server_info_options so = { t ? rp->o.endpoint_b : rp->o.endpoint,
						  getenv(rp->o.api_key_env), rp->o.http2,
						  rp->o.insecure, 0 };

		if (!(rp->server[t] = server_info_probe(&so))) {
			fprintf(stderr, "tracebench replay: out of memory\n");
			return CLI_EXIT_FAILED;
		}
	}
	return 0;
}

/* An A/B run's order: which side goes first in each level and repeat. */
int sides_plan_order(struct replay *rp)
{
	const struct replay_options *o = &rp->o;

	rp->n_blocks = o->open_loop ? 1 : (size_t)o->n_levels * (size_t)o->repeat;
	rp->ab_halves = rp->n_sides == 2 ? replay_ab_halves(o, NULL) : 1;
	rp->ab_order = calloc(rp->n_blocks + 1, 1);
	if (!rp->ab_order) {
		fprintf(stderr, "tracebench replay: out of memory\n");
		return CLI_EXIT_FAILED;
	}
	if (rp->n_sides == 2)
		schedule_ab_order(rp->n_blocks, o->sched.seed, rp->ab_order);
	return 0;
}

int sides_open(struct replay *rp)
{
	double origin_unix = rp->o.start_at > 0 ? rp->o.start_at : (double)clock_wall_ns() / 1e9;
	char err[TRACEFILE_ERRLEN];
	size_t t;

	rp->side[0].endpoint = rp->o.endpoint;
	rp->side[0].output = rp->o.output;      /* a worker's: its own file */
	rp->side[0].label = rp->n_sides == 2 ? rp->o.label_a : rp->o.label;
	rp->side[1].endpoint = rp->o.endpoint_b;
	rp->side[1].output = rp->o.output_b;
	rp->side[1].label = rp->o.label_b;
	for (t = 0; t < rp->n_sides; t++) {
		struct run_side *sd = &rp->side[t];
		cJSON *header;

		/* the URL as files and the terminal get it: no userinfo, no secrets */
		if (!(sd->shown = redact_url(sd->endpoint, NULL))) {
			fprintf(stderr, "tracebench replay: out of memory\n");
			return CLI_EXIT_FAILED;
		}
		header = header_create(&rp->o, &rp->sessions, sd->label, sd->shown, rp->server[t],
				       &rp->trace_id, rp->ab_order, rp->n_blocks, rp->reqs[0].body,
				       rp->n_reqs);
		if (header)
			header_add_clock(header, origin_unix, &rp->cs);
		sd->out = tracefile_writer_open(sd->output, TRACEFILE_KIND_RESULTS, header,
						rp->o.force, err, sizeof(err));
		cJSON_Delete(header);
		if (!sd->out) {
			fprintf(stderr, "tracebench replay: %s\n", err);
			return CLI_EXIT_USAGE;
		}
		/* zlib off the loop that measures (without a thread the loop
		 * compresses, as before: no reason to stop the run) */
		(void)tracefile_writer_background(sd->out);
	}
	return 0;
}

int sides_run_block(struct replay *rp, struct load load, int first, int rep, size_t k)
{
	long n = replay_level_requests(&rp->o, load.concurrency), half = n / 2;
	size_t h, steps = rp->n_sides * (size_t)rp->ab_halves;
	int rc = 0;

	/* Step h runs side t, half h / 2 when halved: X Y, or X Y Y X (t the
	 * Gray code of h), Y being the side after X in block k's order. */
	for (h = 0; h < steps && !level_stop && !rc; h++) {
		size_t t = (h ^ (h >> 1)) & 1, part = rp->ab_halves > 1 ? h / 2 : 0;
		size_t side = rp->ab_order[k] ? rp->n_sides - 1 - t : t;
		long batch = rp->ab_halves == 1 ? 0 : part ? n - half : half;

		rp->from = part ? (size_t)half : 0;
		rc = replay_run_one(rp, load, first, rep * rp->ab_halves + (int)part,
				    &rp->side[side], batch, NULL, NULL);
	}
	rp->from = 0;
	return rc;
}

int sides_close(struct replay *rp)
{
	char err[TRACEFILE_ERRLEN];
	size_t t;

	for (t = 0; t < rp->n_sides; t++) {
		int closed = tracefile_writer_close(rp->side[t].out, err, sizeof(err));

		rp->side[t].out = NULL;
		if (closed < 0) {
			if (!rp->lr.write_failed)   /* else said already */
				fprintf(stderr, "tracebench replay: %s\n", err);
			return CLI_EXIT_FAILED;
		}
	}
	return 0;
}

void sides_release(struct replay *rp)
{
	size_t t;

	for (t = 0; t < rp->n_sides; t++)
		if (rp->side[t].out)
			tracefile_writer_close(rp->side[t].out, NULL, 0);
	free(rp->ab_order);
	for (t = 0; t < 2; t++)
		free(rp->side[t].shown);
}
