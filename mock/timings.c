/*
 * timings.c - a request's true times. --truth writes them as a client
 * should have measured them, for checking the client: the time from the
 * request's arrival to its first token event, and the gaps between its
 * token events, each taken as the event goes out (stream_tick).
 *
 * --timings: a request's true times in the mock (its queue,
 * prefill and decode, from stream.c's schedule) told as the server of
 * that shape tells them, llama.cpp's "timings" or vLLM's "metrics", in a
 * stream's last chunk or a whole body's root, or SGLang's "meta_info" in a
 * chat body's choices; tracebench's meter reads them back
 * (lib/srvtiming.c). The Messages and Responses answers carry none:
 * llama.cpp's server puts its timings in neither.
 */
#include "mock/server.h"
#include "lib/clock.h"
#include "lib/errmsg.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

/* --timings: s's true times, ms. The queue is the time a stall held s
 * back, the prefill from then to when its first token went out, the decode
 * from there to its last. */
struct mock_timing {
	double queue, prefill, decode;
	long n, fresh;          /* tokens out; prompt tokens not in the cache */
};

static void timing_of(const struct mock_stream *s, struct mock_timing *t)
{
	t->queue = (double)(s->admit_ns - s->arrival_ns) / 1e6;
	t->prefill = (double)(s->first_ns - s->admit_ns) / 1e6;
	t->decode = (double)(s->last_ns - s->first_ns) / 1e6;
	t->n = s->n * s->choices;
	t->fresh = s->prompt_tokens - s->cached;
}

/*
 * --timings: s's times as the server of that shape tells them, as a member
 * to put after others (",\"timings\":{...}"), into buf; "" without
 * --timings. llama.cpp reports no queue, nor counts one in its prompt_ms.
 */
void timings_member(const struct mock_stream *s, char *buf, size_t len)
{
	struct mock_timing t;

	timing_of(s, &t);
	buf[0] = '\0';
	if (s->srv->opt.timings == MOCK_TIMINGS_LLAMA)
		snprintf(buf, len, ",\"timings\":{\"cache_n\":%ld,\"prompt_n\":%ld,"
			 "\"prompt_ms\":%.3f,\"prompt_per_token_ms\":%.6g,"
			 "\"predicted_n\":%ld,\"predicted_ms\":%.3f,"
			 "\"predicted_per_token_ms\":%.6g}", s->cached, t.fresh,
			 t.prefill, t.fresh > 0 ? t.prefill / (double)t.fresh : 0.0,
			 t.n, t.decode, t.n > 0 ? t.decode / (double)t.n : 0.0);
	else if (s->srv->opt.timings == MOCK_TIMINGS_VLLM)
		snprintf(buf, len, ",\"metrics\":{\"time_to_first_token_ms\":%.3f,"
			 "\"generation_time_ms\":%.3f,\"queue_time_ms\":%.3f,"
			 "\"mean_itl_ms\":%.6g,\"tokens_per_second\":%.6g}", t.prefill, t.decode,
			 t.queue, t.n > 1 ? t.decode / (double)(t.n - 1) : 0.0,
			 t.prefill + t.decode > 0 ? (double)t.n * 1e3 / (t.prefill + t.decode) : 0.0);
}

/* --timings: the same members in a whole body's root. */
void timings_add(const struct mock_stream *s, cJSON *root)
{
	struct mock_timing t;
	cJSON *o;

	timing_of(s, &t);
	if (s->srv->opt.timings == MOCK_TIMINGS_LLAMA && (o = cJSON_AddObjectToObject(root, "timings"))) {
		cJSON_AddNumberToObject(o, "cache_n", (double)s->cached);
		cJSON_AddNumberToObject(o, "prompt_n", (double)t.fresh);
		cJSON_AddNumberToObject(o, "prompt_ms", t.prefill);
		cJSON_AddNumberToObject(o, "predicted_n", (double)t.n);
		cJSON_AddNumberToObject(o, "predicted_ms", t.decode);
	} else if (s->srv->opt.timings == MOCK_TIMINGS_VLLM &&
		   (o = cJSON_AddObjectToObject(root, "metrics"))) {
		cJSON_AddNumberToObject(o, "time_to_first_token_ms", t.prefill);
		cJSON_AddNumberToObject(o, "generation_time_ms", t.decode);
		cJSON_AddNumberToObject(o, "queue_time_ms", t.queue);
	}
}

/* A monotonic instant of the mock's as SGLang writes its instants: seconds
 * since 1970 (the wall clock now, less how long ago it was). */
static double wall_s(int64_t mono_ns, int64_t now_mono, int64_t now_wall)
{
	return (double)(now_wall - (now_mono - mono_ns)) / 1e9;
}

/*
 * --timings sglang: the meta_info SGLang puts in each choice of a chat body
 * asked with "return_meta_info": true when its server runs with
 * --enable-metrics (its serving_chat.py and request time stats): the
 * scheduler's queue_time, the instants its prefill began and ended, the
 * API server's receipt and end, inference_time (forward entry to the end),
 * e2e_latency and the token counts. The mock's true times: the queue is
 * the wait for admission, the prefill from admission to the first token.
 */
void timings_add_choice(const struct mock_stream *s, cJSON *choice)
{
	int64_t now_mono = clock_now_ns(), now_wall = clock_wall_ns();
	cJSON *o, *fin;

	if (s->srv->opt.timings != MOCK_TIMINGS_SGLANG || !s->meta_info ||
	    !(o = cJSON_AddObjectToObject(choice, "meta_info")))
		return;
	cJSON_AddStringToObject(o, "id", "mock");
	if ((fin = cJSON_AddObjectToObject(o, "finish_reason")))
		cJSON_AddStringToObject(fin, "type", s->stop ? "stop" : "length");
	cJSON_AddNumberToObject(o, "prompt_tokens", (double)s->prompt_tokens);
	cJSON_AddNumberToObject(o, "forward_entry_time", wall_s(s->admit_ns, now_mono, now_wall));
	cJSON_AddNumberToObject(o, "prefill_finished_time",
				wall_s(s->first_ns, now_mono, now_wall));
	cJSON_AddNumberToObject(o, "queue_time", (double)(s->admit_ns - s->arrival_ns) / 1e9);
	cJSON_AddNumberToObject(o, "completion_tokens", (double)s->n);
	cJSON_AddNumberToObject(o, "cached_tokens", (double)s->cached);
	cJSON_AddNumberToObject(o, "e2e_latency", (double)(s->last_ns - s->arrival_ns) / 1e9);
	cJSON_AddNumberToObject(o, "request_received_ts", wall_s(s->arrival_ns, now_mono, now_wall));
	cJSON_AddNumberToObject(o, "request_finished_ts", wall_s(s->last_ns, now_mono, now_wall));
	cJSON_AddNumberToObject(o, "inference_time", (double)(s->last_ns - s->admit_ns) / 1e9);
}

int truth_open(struct mock_server *srv, char *err, size_t errlen)
{
	srv->truth = fopen(srv->opt.truth, "a");
	if (!srv->truth) {
		errmsg_set(err, errlen, "cannot open '%s': %s", srv->opt.truth, strerror(errno));
		return -1;
	}
	setvbuf(srv->truth, NULL, _IOLBF, 0);   /* a line a request, readable at once */
	return 0;
}

void truth_tick(struct mock_stream *s, int64_t now_ns)
{
	if (s->n_ticks < MOCK_TRUTH_TICKS && s->n_ticks <= s->n)
		s->ticks[s->n_ticks++] = now_ns;
}

/*
 * {"first_word":"9c41e07a-c4r1","ttft_ms":50.012,"gaps_us":[10003,...]}:
 * what replay measures as TTFT and itl_us (schema/FORMAT.md), made by
 * the mock, on one host's clock. A write that fails is not retried: the
 * file is a check's, not the answer's.
 */
void truth_write(const struct mock_stream *s)
{
	FILE *f = s->srv->truth;
	long i;

	if (!s->n_ticks)
		return;
	fprintf(f, "{\"first_word\":\"%s\",\"ttft_ms\":%.3f,\"gaps_us\":[", s->first_word,
		(double)(s->ticks[0] - s->arrival_ns) / 1e6);
	for (i = 1; i < s->n_ticks; i++)
		fprintf(f, "%s%.0f", i > 1 ? "," : "", (double)(s->ticks[i] - s->ticks[i - 1]) / 1e3);
	fputs("]}\n", f);
}
