/*
 * noise.h - `mock --noise`: a mock that is noisy the way real servers are,
 * so that analyze compare's statistics can be checked against a server
 * whose noise is known (scripts/bench-noise.sh, scripts/bench-verdicts.sh).
 *
 * Every part is a slowdown factor on the mock's times (ttft, prefill and
 * each inter-token gap; > 1 is slower) or a pause:
 *
 *   drift     the host's speed, wandering over tens of seconds to minutes:
 *             exp(sigma * z(t)), z a sum of sinusoids of the wall clock
 *             (CLOCK_REALTIME) whose periods and phases come from a
 *             constant of this file, so every mock on one host at one time
 *             sees the same drift (an A/B pair of "identical" servers shares
 *             it as a shared host's load would). z has unit variance.
 *   instance  this server's own constant offset, exp(sigma * N(0,1)) drawn
 *             from --seed: two servers are never exactly alike. Constant
 *             for the mock's life (the drift is what wanders).
 *   jitter    per request, exp(sigma * N(0,1)) on its ttft and its gaps.
 *   tail      per request, with probability p, a further Pareto factor
 *             (minimum MIN, shape SHAPE) on its ttft alone: a few requests
 *             wait much longer for their first token (queued behind a long
 *             prefill), so a P99 TTFT moves from run to run as on a real
 *             server, while the decode and the throughput keep their pace.
 *   stall     pauses at a Poisson rate (seeded by --seed, on the time since
 *             the mock started), each lasting the given time: no token of
 *             any stream is due inside one (a due time there moves to its
 *             end), as a server's garbage collection or a long prefill
 *             blocks its batch.
 *
 * Every function is a pure function of (spec, seed, time or request
 * number): the mock keeps no state for them, and the tests call them at
 * fixed times. Nothing here prints or exits.
 */
#ifndef TB_MOCK_NOISE_H
#define TB_MOCK_NOISE_H

#include <stddef.h>
#include <stdint.h>

#define NOISE_WAVES 6           /* sinusoids of the drift */

struct noise_spec {
	double drift_sigma;     /* SD of the drift's log factor; 0: none */
	double drift_min_s;     /* its periods, log-uniform between these */
	double drift_max_s;
	double instance_sigma;  /* SD of the instance's log factor */
	double jitter_sigma;    /* SD of a request's log factor */
	double tail_p;          /* share of requests slowed further ... */
	double tail_min;        /* ... by a Pareto factor of this minimum */
	double tail_shape;      /* ... and shape */
	double stall_rate;      /* stalls per second; 0: none */
	double stall_s;         /* each this long */
};

/* The spec of `--noise default`, as text (it parses into the defaults). */
#define NOISE_DEFAULT "drift=10%:30s-180s,instance=0.3%,jitter=5%,tail=1%:2:3,stall=1/min:200ms"

/*
 * Parses SPEC into *spec (all parts off first): a comma list of parts, a
 * later one overriding an earlier one ("default,stall=0/min": the default
 * without stalls):
 *
 *   default                  every part as NOISE_DEFAULT sets it
 *
 *   drift=SIGMA[:MIN-MAX]    SIGMA a fraction (0.1) or a percentage (10%),
 *                            up to 100%; MIN and MAX durations (default
 *                            30s-180s)
 *   instance=SIGMA
 *   jitter=SIGMA
 *   tail=P:MIN[:SHAPE]       P a share (1% or 0.01), MIN >= 1, SHAPE > 0
 *                            (default 2)
 *   stall=RATE:DURATION      RATE N/s, N/min or N/h; DURATION as 150ms, 2s,
 *                            1min; RATE x DURATION at most 0.5
 *
 * Returns 0, or -1 with a one-line reason naming the part in err (len
 * bytes); *spec is then undefined.
 */
int noise_spec_parse(struct noise_spec *spec, const char *text, char *err, size_t len);

/* True when some part is on (else the mock's timing is exactly as without
 * --noise). */
int noise_spec_active(const struct noise_spec *spec);

/* The spec as the grammar above writes it (the parts that are on, or
 * "none"), into buf (len bytes): the mock's start-up line shows it. */
void noise_spec_format(const struct noise_spec *spec, char *buf, size_t len);

/* The host's drift factor at wall-clock time t (seconds since the epoch);
 * 1 without drift. The same for every seed. */
double noise_drift(const struct noise_spec *spec, double t);

/* The instance factor of a mock started with --seed seed. */
double noise_instance(const struct noise_spec *spec, uint64_t seed);

/* Request number id's factors: its jitter, and its tail (1 for the
 * requests the tail spares). */
double noise_jitter(const struct noise_spec *spec, uint64_t seed, uint64_t id);
double noise_tail(const struct noise_spec *spec, uint64_t seed, uint64_t id);

/* The end of the stall (or run of touching stalls) covering time t
 * (seconds since the mock started), or t itself when none does. */
double noise_stall_end(const struct noise_spec *spec, uint64_t seed, double t);

#endif
