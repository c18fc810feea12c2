#!/bin/sh
# demo.sh - the whole tracebench pipeline on the built-in mock endpoint:
# a synthetic trace of 500-token requests, a sweep at C=1,2,4,8,16, the
# results in SQLite, the sweep table, the plots and the HTML report.
#
# The mock plays a batching server whose per-token gap grows with the number
# of active streams, with timing scaled 10x faster than the seed benchmark's
# server (3.7 ms instead of 37 ms per token) so the demo takes under a minute,
# and tells its own per-request timings as vLLM does, so the report shows
# where the time went.
#
#   DEMO_OUT     output folder (default demo-out)
#   DEMO_TOKENS  output tokens per request (default 500; the tests use fewer)

set -eu
OUT=${DEMO_OUT:-demo-out}
TOKENS=${DEMO_TOKENS:-500}
TB=${TB:-./tracebench}
mkdir -p "$OUT"
rm -f "$OUT/port" "$OUT/bench.db"

echo "== tracebench demo: mock endpoint with timing scaled 10x faster than the seed server"
"$TB" mock --quiet --listen 127.0.0.1:0 --port-file "$OUT/port" \
	--profile batching --ttft-ms 20 --itl-ms 3.7 --cold-start-ms 1200 --timings vllm &
mock=$!
trap 'kill $mock 2>/dev/null' EXIT INT TERM
i=0
while [ ! -s "$OUT/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
endpoint=http://127.0.0.1:$(cat "$OUT/port")
echo "   mock: $endpoint (profile batching: ttft 20 ms, 3.7 ms/token, +1.2 s cold start;"
echo "         its own per-request timings as vLLM sends them)"

echo "== record synth: 32 requests, 512 input tokens, $TOKENS output tokens"
"$TB" record synth -n 32 --input-tokens 512 --output-tokens "$TOKENS" --seed 1 \
	--force -o "$OUT/trace.jsonl.gz"

echo "== replay: C=1,2,4,8,16, max(4, 2C) requests per level, 1 warm-up request"
"$TB" replay --endpoint "$endpoint" -c 1,2,4,8,16 --warmup 1 --label demo \
	--force -o "$OUT/results.jsonl.gz" "$OUT/trace.jsonl.gz"

echo "== analyze: load, report, plot"
"$TB" analyze load --db "$OUT/bench.db" "$OUT/results.jsonl.gz"
"$TB" analyze report --db "$OUT/bench.db" --format markdown | tee "$OUT/report.md"
"$TB" analyze plot --db "$OUT/bench.db" --out "$OUT/plots" --force
"$TB" analyze report --db "$OUT/bench.db" --format html -o "$OUT/report.html"
echo "== done: $OUT/report.md, $OUT/plots/, $OUT/report.html (one page, opens offline)"
