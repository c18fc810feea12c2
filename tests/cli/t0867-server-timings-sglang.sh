#!/bin/sh
# Where the time went (issue 35), against SGLang's shape: its OpenAI-
# compatible chat answer carries per-request timings only in a
# non-streamed body asked with "return_meta_info": true (refused when
# streamed), each choice's "meta_info" (with --enable-metrics: the
# scheduler's queue_time and the instants its prefill began and ended).
# The mock tells its true times so (--timings sglang); a body has no first
# token of its own, so the report splits its E2E (queue, prefill, decode,
# rest) and gives no TTFT parts. The Messages and Responses answers of
# a mock told to give timings carry none, as llama.cpp's server's.
. tests/cli/lib.sh

# med FILE LEVEL FIELD...: the median over the measured successful requests
# of LEVEL in results FILE of the sum of the fields (ns; "-x" subtracts x), ms
med() {
	f=$1 lvl=$2
	shift 2
	requests_of "$f" | grep "\"level\":$lvl," | grep '"warmup":false' | grep '"error":null' |
	awk -v fields="$*" 'function num(k) {
			if (!match($0, "\"" k "\":-?[0-9]+")) return "x"
			return substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3) + 0 }
		{ n = split(fields, f, " "); s = 0
		  for (i = 1; i <= n; i++) { k = f[i]; sg = 1
			if (substr(k, 1, 1) == "-") { sg = -1; k = substr(k, 2) }
			v = num(k); if (v == "x") next; s += sg * v }
		  printf "%.17g\n", s / 1e6 }' |
	sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

near() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(a != "" && b != "" && d <= 0.002 && d >= -0.002) }'
}

# a chat trace whose bodies ask for SGLang's meta_info, not streamed
tb record synth -n 64 --input-tokens 16 --output-tokens 8 --seed 1 -o "$WORK/s.jsonl.gz" 2>/dev/null
zcat "$WORK/s.jsonl.gz" | sed 's/\\"stream\\":true}/\\"stream\\":false,\\"return_meta_info\\":true}/' |
	gzip >"$WORK/t.jsonl.gz"
check "the trace's bodies ask for meta_info, not streamed" \
	test "$(zcat "$WORK/t.jsonl.gz" | grep -c 'stream..:false,..return_meta_info..:true}')" -eq 64

start_mock --ttft-ms 20 --itl-ms 2 --slots 8 --timings sglang
tb replay --endpoint "$ENDPOINT" -c 1,64 -n 64 --label sglang -o "$WORK/sglang.jsonl.gz" \
	"$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/sglang.err"
check "the replay ran" test $? -eq 0
# streamed, SGLang refuses return_meta_info: so does the mock
code=$(curl -sS -o "$WORK/refused.json" -w '%{http_code}' -H 'Content-Type: application/json' \
	-d '{"model":"mock","messages":[{"role":"user","content":"hi"}],"stream":true,"return_meta_info":true}' \
	"$ENDPOINT/v1/chat/completions")
check "a streamed request asking for meta_info is refused with 400 ($code)" test "$code" = 400
check "... saying why" grep -q 'return_meta_info is not supported with streaming' "$WORK/refused.json"
stop_mock

n=$(zcat "$WORK/sglang.jsonl.gz" | grep -c '"streamed":false.*"server_timings":"sglang","server_queue_ns":[0-9]*,"server_prefill_ns":[0-9]*,"server_decode_ns":[0-9]*')
check "each of the 129 bodies records SGLang's queue, prefill and decode ($n)" test "$n" -eq 129

tb analyze load --db "$WORK/d.db" "$WORK/sglang.jsonl.gz" 2>/dev/null
tb analyze report --db "$WORK/d.db" --format csv >"$WORK/r.csv"
tb analyze report --db "$WORK/d.db" >"$WORK/r.txt"
for row in 1 2; do
	lvl=$(csv_field "$WORK/r.csv" concurrency $row)
	prefill=$(csv_field "$WORK/r.csv" p50_server_prefill_ms $row)
	check "C=$lvl: P50 prefill $prefill ms is the mock's 20 ms$UPPER_NOTE" \
		within_time "$prefill" 19.998 20.5 1000
	want=$(med "$WORK/sglang.jsonl.gz" "$lvl" server_prefill_ns)
	check "C=$lvl: ... the median of the file's ($want)" near "$prefill" "$want"
	decode=$(csv_field "$WORK/r.csv" p50_server_decode_ms $row)
	check "C=$lvl: P50 decode $decode ms is the mock's 7 gaps of 2 ms$ROUGH_NOTE" \
		roughly "$decode" 13.5 14.5
	want=$(med "$WORK/sglang.jsonl.gz" "$lvl" e2e_ns -server_queue_ns -server_prefill_ns -server_decode_ns)
	rest=$(csv_field "$WORK/r.csv" p50_rest_e2e_ms $row)
	check "C=$lvl: the rest of E2E ($rest ms) is the median of E2E - queue - prefill - decode ($want)" \
		near "$rest" "$want"
	check "C=$lvl: ... the client's and the network's: under 0.5 ms at the median$UPPER_NOTE" \
		within_time "$rest" -0.002 0.5 1000
	check "C=$lvl: a body has no TTFT parts" \
		test -z "$(csv_field "$WORK/r.csv" p50_rest_ttft_ms $row)"
done
queue=$(csv_field "$WORK/r.csv" p50_server_queue_ms 2)
# 8 waves of 34 ms: sent at once, the median request waits 3 or 4 services
# (119 ms). A slow client (a busy host, the sanitizers) spreads its sends
# and the queue shortens: outside the timing tier 2 services will do.
qmin=$([ -n "$TIMING" ] && echo 100 || echo 68)
check "C=64: 8 slots, 64 requests at once: the median waits ${qmin} ms or more ($queue ms)" \
	within "$queue" "$qmin" 1e9
check "C=1: no queue ($(csv_field "$WORK/r.csv" p50_server_queue_ms 1) ms)$UPPER_NOTE" \
	within_time "$(csv_field "$WORK/r.csv" p50_server_queue_ms 1)" 0 0.5 1000
check "the report names SGLang's shape" \
	grep -q 'where the time went (the server.s own per-request timings: sglang)' "$WORK/r.txt"
check "... and says a body has no TTFT parts" grep -q "a non-streamed one (SGLang's only shape) has no TTFT parts" "$WORK/r.txt"
tb analyze export --db "$WORK/d.db" --run sglang >"$WORK/e.csv"
check "export: the server's timings by request" test "$(csv_field "$WORK/e.csv" server_timings 2)" = sglang

# record proxy keeps them with the capture's outcome
start_mock --ttft-ms 5 --itl-ms 1 --timings sglang
start_proxy "$WORK/cap.jsonl.gz"
tb replay --endpoint "$PROXY" -c 1 -n 3 --warmup 0 -o "$WORK/via.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>&1
stop_proxy
stop_mock
n=$(zcat "$WORK/cap.jsonl.gz" | grep -c '"recorded":{.*"server_timings":"sglang","server_queue_ns":[0-9]*,"server_prefill_ns":[0-9]*,"server_decode_ns":[0-9]*')
check "record proxy: the capture keeps SGLang's timings with each outcome ($n of 3)" test "$n" -eq 3

# Messages and Responses: llama.cpp's server puts no timings in either, nor
# does the mock, whatever --timings says; chat answers keep theirs
for shape in llama vllm; do
	start_mock --ttft-ms 5 --itl-ms 1 --timings $shape
	for api in messages responses; do
		for stream in true false; do
			if [ $api = messages ]; then
				body="{\"model\":\"mock\",\"max_tokens\":4,\"stream\":$stream,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"
			else
				body="{\"model\":\"mock\",\"max_output_tokens\":4,\"stream\":$stream,\"input\":\"hi\"}"
			fi
			curl -sS -N -H 'Content-Type: application/json' -H 'x-api-key: k' -d "$body" \
				"$ENDPOINT/v1/$api" >"$WORK/$shape-$api-$stream.out"
		done
	done
	curl -sS -H 'Content-Type: application/json' \
		-d '{"model":"mock","max_tokens":4,"messages":[{"role":"user","content":"hi"}]}' \
		"$ENDPOINT/v1/chat/completions" >"$WORK/$shape-chat.out"
	stop_mock
	check "--timings $shape: the Messages and Responses answers came whole" sh -c \
		"grep -q message_stop '$WORK/$shape-messages-true.out' && grep -q response.incomplete '$WORK/$shape-responses-true.out' &&
		 grep -q '\"output_tokens\"' '$WORK/$shape-messages-false.out' && grep -q '\"output_tokens\"' '$WORK/$shape-responses-false.out'"
	check "--timings $shape: ... and carry no timings" sh -c \
		"! grep -q '\"timings\"\\|\"metrics\"\\|meta_info' '$WORK/$shape'-messages-* '$WORK/$shape'-responses-*"
	check "--timings $shape: a chat body has them" grep -q '"timings"\|"metrics"' "$WORK/$shape-chat.out"
done
finish
