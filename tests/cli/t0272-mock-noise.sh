#!/bin/sh
# mock --noise: without it the mock is the exact one (no noise header, the
# start-up line as before); with it each request's factors show in an
# X-Mock-Noise header, differ from request to request, and repeat for one
# --seed; a stall holds back every token due inside it (a lower bound on a
# stream's largest gap). The noise's statistics are test_noise's.
. tests/cli/lib.sh

chat='{"model":"mock","messages":[{"role":"user","content":"hello"}],"max_tokens":3,"stream":true}'
# The X-Mock-Noise header of one request ("" when none).
noise_header() {
	curl -sS -D - -o /dev/null -H 'Content-Type: application/json' -d "$chat" \
		"$ENDPOINT/v1/chat/completions" | tr -d '\r' | sed -n 's/^X-Mock-Noise: //Ip'
}
# The headers of three requests, one a line.
three_headers() { noise_header; noise_header; noise_header; }
# Its jitter factor.
jitter_of() { echo "$1" | sed -n 's/.*jitter=\([0-9.]*\).*/\1/p'; }

# Without --noise: no header, no noise in the start-up line.
"$TB" mock --listen 127.0.0.1:0 --port-file "$WORK/port0" --ttft-ms 1 --itl-ms 1 2>"$WORK/banner0" &
pid=$!
while [ ! -s "$WORK/port0" ]; do sleep 0.05; done
ENDPOINT=http://127.0.0.1:$(cat "$WORK/port0")
check "without --noise, no X-Mock-Noise header" test -z "$(noise_header)"
kill $pid
wait $pid 2>/dev/null
check "... nor noise in the start-up line" sh -c "grep -q '(ttft 1 ms, itl 1 ms, profile none)\$' '$WORK/banner0'"

# With it: the start-up line names the spec and the seed.
"$TB" mock --listen 127.0.0.1:0 --port-file "$WORK/port1" --noise jitter=20% --seed 4 \
	2>"$WORK/banner1" &
pid=$!
while [ ! -s "$WORK/port1" ]; do sleep 0.05; done
kill $pid
wait $pid 2>/dev/null
check "the start-up line shows the noise and the seed" \
	grep -q 'profile none, noise jitter=20%, seed 4)$' "$WORK/banner1"

# Per-request factors: drawn per request, the same for the same --seed.
start_mock --ttft-ms 1 --itl-ms 1 --noise jitter=20% --seed 4
three_headers >"$WORK/seed4a"
stop_mock
start_mock --ttft-ms 1 --itl-ms 1 --noise jitter=20% --seed 4
three_headers >"$WORK/seed4b"
stop_mock
start_mock --ttft-ms 1 --itl-ms 1 --noise jitter=20% --seed 5
three_headers >"$WORK/seed5"
stop_mock
j1=$(jitter_of "$(sed -n 1p "$WORK/seed4a")")
j2=$(jitter_of "$(sed -n 2p "$WORK/seed4a")")
check "--noise jitter=20%: each request has its factor ($j1, $j2)" \
	sh -c "[ -n '$j1' ] && [ -n '$j2' ] && [ '$j1' != '$j2' ]"
check "... within what 20% draws (5 sigma)" \
	awk -v a="$j1" -v b="$j2" 'BEGIN { exit !(a > 0.36 && a < 2.8 && b > 0.36 && b < 2.8) }'
check "... the same three for the same --seed" \
	sh -c "[ \$(grep -c jitter= '$WORK/seed4a') -eq 3 ] &&
	       [ \"\$(sed 's/ drift=.*//' '$WORK/seed4a')\" = \"\$(sed 's/ drift=.*//' '$WORK/seed4b')\" ]"
check "... others for another" \
	sh -c "[ \"\$(sed 's/ drift=.*//' '$WORK/seed4a')\" != \"\$(sed 's/ drift=.*//' '$WORK/seed5')\" ]"
check "jitter only: tail and instance 1, drift 1" \
	sh -c "sed -n 1p '$WORK/seed4a' | grep -q 'tail=1.000000 instance=1.000000 drift=1.000000'"

# A stall: with --seed 41 and stall=30/min:1s, stalls start 1.27, 3.13,
# 4.89 and 6.80 s after the mock started (test_noise's schedule, the same
# on every machine); a stream from its start on, 400 tokens 20 ms apart,
# has at least two gaps that hold one: each at least the stall, less the
# 20 ms the token before it may have gone ahead.
"$TB" record synth -n 1 --input-tokens 4 --output-tokens 400 -o "$WORK/long.jsonl.gz" 2>/dev/null
start_mock --ttft-ms 20 --itl-ms 20 --noise stall=30/min:1s --seed 41
tb replay --endpoint "$ENDPOINT" -c 1 -n 1 --warmup 0 --quiet -o "$WORK/stall.jsonl.gz" \
	"$WORK/long.jsonl.gz" >/dev/null 2>&1
stop_mock
gzip -dc "$WORK/stall.jsonl.gz" | sed -n 's/.*"itl_us":\[\([0-9,]*\)\].*/\1/p' | tr ',' '\n' \
	>"$WORK/gaps"
long=$(awk '$1 >= 950000' "$WORK/gaps" | wc -l)
check "a stall holds back the tokens due inside it ($long gaps of 0.95 s or more)" \
	test "$long" -ge 2
check "... the stream is whole (399 gaps)" test "$(wc -l <"$WORK/gaps")" -eq 399
finish
