#!/bin/sh
# The mock's GET /metrics: Prometheus text under vLLM's names whose values
# are the mock's own state (requests running and waiting, the prefix cache,
# token and request counters), and the faults of --metrics-fault.
. tests/cli/lib.sh

prompt='one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty'
body='{"model":"mock","prompt":"'$prompt'","max_tokens":3,"stream":true}'
metric() {  # file name: the value of the first sample of that name
	awk -v n="$2" 'index($1, n "{") == 1 || $1 == n { print $2; exit }' "$1"
}

# wait_metric NAME VALUE FILE: polls /metrics (into FILE) until NAME has
# VALUE, for up to 10 s; a slow host moves the instants, not the states.
wait_metric() {
	i=0
	while [ $i -lt 200 ]; do
		curl -sS -i "$ENDPOINT/metrics" >"$3" 2>/dev/null
		[ "$(metric "$3" "$1")" = "$2" ] && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

# The first request runs 1.5 s to its first token; the second, sent once
# the first is running, arrives inside the stall (2 s from 50 ms after
# the first) and waits in it.
start_mock --ttft-ms 1500 --itl-ms 10 --stall-at-ms 50 --stall-ms 2000
curl -sS -N -d "$body" "$ENDPOINT/v1/completions" >/dev/null &
c1=$!
wait_metric vllm:num_requests_running 1 "$WORK/during"
sleep 0.1
curl -sS -N -d "$body" "$ENDPOINT/v1/completions" >/dev/null &
c2=$!
wait_metric vllm:num_requests_waiting 1 "$WORK/during"
wait $c1 $c2
curl -sS "$ENDPOINT/metrics" >"$WORK/after"
check "text/plain in the exposition format's version" \
	grep -qi '^Content-Type: text/plain; version=0.0.4' "$WORK/during"
check "one request running, one held by the stall waiting" sh -c \
	"[ '$(metric "$WORK/during" vllm:num_requests_running)' = 1 ] &&
	 [ '$(metric "$WORK/during" vllm:num_requests_waiting)' = 1 ]"
check "... none once both ended" sh -c \
	"[ '$(metric "$WORK/after" vllm:num_requests_running)' = 0 ] &&
	 [ '$(metric "$WORK/after" vllm:num_requests_waiting)' = 0 ]"
check "counters: 2 x 20 prompt tokens, 2 x 3 generated, 2 ended at their length" sh -c \
	"[ '$(metric "$WORK/after" vllm:prompt_tokens_total)' = 40 ] &&
	 [ '$(metric "$WORK/after" vllm:generation_tokens_total)' = 6 ] &&
	 grep -q '^vllm:request_success_total{finished_reason=\"length\",model_name=\"mock\"} 2$' '$WORK/after'"
check "the prefix cache: 40 tokens queried, the second prompt's first block (16) a hit" sh -c \
	"[ '$(metric "$WORK/after" vllm:prefix_cache_queries_total)' = 40 ] &&
	 [ '$(metric "$WORK/after" vllm:prefix_cache_hits_total)' = 16 ]"
check "KV-cache use is the cache's fill: 1 block of 4096" \
	awk '$1 ~ /^vllm:kv_cache_usage_perc/ { exit !($2 > 0.000243 && $2 < 0.000245) }' "$WORK/after"
check "every sample has its TYPE line (a histogram's buckets, sum and count one)" sh -c \
	"[ $(grep -c '^# TYPE vllm:' "$WORK/after") = $(grep '^vllm:' "$WORK/after" |
	   grep -Ecv '_(bucket|sum|count)[{]' | awk '{ print $1 - 1 + 3 }') ]"
# the histograms hold the two requests' true times: 1.5 s to the first
# token, the second held by the stall on top (from 0.5 s to 2 s: sent
# 0.1 s after the first began, the first still running), so no first
# token by 1 s and both by 5 s, one request queued (the second) past
# 0.3 s and both within 2.5 s
check "histograms with vLLM's bounds: TTFT, E2E and queue time of both requests" sh -c \
	"grep -q '^vllm:time_to_first_token_seconds_bucket{le=\"1\",model_name=\"mock\"} 0$' '$WORK/after' &&
	 grep -q '^vllm:time_to_first_token_seconds_bucket{le=\"2.5\",model_name=\"mock\"} [12]$' '$WORK/after' &&
	 grep -q '^vllm:time_to_first_token_seconds_bucket{le=\"5\",model_name=\"mock\"} 2$' '$WORK/after' &&
	 grep -q '^vllm:time_to_first_token_seconds_count{model_name=\"mock\"} 2$' '$WORK/after' &&
	 grep -q '^vllm:e2e_request_latency_seconds_bucket{le=\"+Inf\",model_name=\"mock\"} 2$' '$WORK/after' &&
	 grep -q '^vllm:request_queue_time_seconds_bucket{le=\"0.3\",model_name=\"mock\"} 1$' '$WORK/after' &&
	 grep -q '^vllm:request_queue_time_seconds_bucket{le=\"2.5\",model_name=\"mock\"} 2$' '$WORK/after'"
stop_mock

start_mock --prefix-cache-blocks 0
curl -sS "$ENDPOINT/metrics" >"$WORK/nocache"
check "without a prefix cache no cache figures are made up" sh -c \
	"! grep -q 'cache' '$WORK/nocache' && grep -q '^vllm:num_requests_running' '$WORK/nocache'"
stop_mock

start_mock --metrics-fault status:503
check "--metrics-fault status:503 answers 503" \
	sh -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' '$ENDPOINT/metrics')\" = 503 ]"
stop_mock
start_mock --metrics-fault malformed
curl -sS "$ENDPOINT/metrics" >"$WORK/bad"
check "--metrics-fault malformed adds garbage lines to good samples" sh -c \
	"grep -q '^this is not a sample' '$WORK/bad' && grep -q '^vllm:num_requests_running{model_name=\"mock\"} 0$' '$WORK/bad'"
stop_mock
start_mock --metrics-fault slow:800
t0=$(date +%s%N)
curl -sS -m 0.2 "$ENDPOINT/metrics" >/dev/null 2>&1
rc=$?
curl -sS "$ENDPOINT/metrics" >"$WORK/slow"
ms=$((($(date +%s%N) - t0) / 1000000))
check "--metrics-fault slow:800: a 0.2 s client times out (curl exit $rc), the next gets its answer late ($ms ms)" \
	sh -c "[ $rc = 28 ] && grep -q '^vllm:num_requests_running' '$WORK/slow' && [ $ms -ge 950 ]"
check "the mock still serves after a client gave up on a held reply" \
	sh -c "curl -sS '$ENDPOINT/health' | grep -q ok"
stop_mock
finish
