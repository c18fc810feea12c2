#!/bin/sh
# Each fault the mock can inject is recorded by replay with its error
# class, the level goes on, and nothing hangs past the timeout.
. tests/cli/lib.sh

tb record synth -n 4 --input-tokens 8 --output-tokens 6 -o "$WORK/trace.jsonl.gz" 2>/dev/null

runs=0
fault() {  # expected class, count of 4, mock flags...
	class=$1
	count=$2
	shift 2
	runs=$((runs + 1))
	out="$WORK/$class-$runs"
	start_mock --ttft-ms 5 --itl-ms 5 "$@"
	tb replay --endpoint "$ENDPOINT" -c 2 -n 4 --warmup 0 --timeout 1 --quiet \
		-o "$out.jsonl.gz" "$WORK/trace.jsonl.gz" >"$out.table" 2>/dev/null
	got=$(zcat "$out.jsonl.gz" | grep -c "\"error\":\"$class\"")
	check "mock $*: $count of 4 requests recorded as '$class' (got $got)" test "$got" -eq "$count"
	check "mock $*: the table counts them as errors" \
		test "$(table_ok_err "$out.table" 2)" = "$((4 - count)) $count"
	stop_mock
}

fault http 2 --fail-every 2 --fail-status 429
check "the 429 status and the server's error body are kept" sh -c \
	"zcat '$WORK/http-1.jsonl.gz' | grep -q '\"status\":429.*HTTP 429: {.*injected by --fail-every'"
fault http 4 --fail-every 1 --fail-status 503
fault transfer 4 --reset-after 3
fault timeout 4 --stall-after 3
fault malformed 4 --malformed-after 2
fault incomplete 4 --no-done
check "a reset stream keeps the tokens that arrived before it" sh -c \
	"requests_of '$WORK/transfer-3.jsonl.gz' | sed -n 1p | grep -q '\"ttft_ns\":[0-9]'"

# A stalled server under open-loop load: requests scheduled during the 1 s
# stall wait for it, and their latency says so (no coordinated omission).
start_mock --ttft-ms 5 --itl-ms 1 --stall-at-ms 300 --stall-ms 1000
tb replay --endpoint "$ENDPOINT" --rate 20 -n 40 --warmup 0 --quiet --label stall \
	-o "$WORK/stall.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>&1
tb analyze load --db "$WORK/stall.db" "$WORK/stall.jsonl.gz" 2>/dev/null
tb analyze export --db "$WORK/stall.db" --format csv >"$WORK/stall.csv"
held=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["ttft_ms"] > 100 { n++ } END { print n + 0 }' "$WORK/stall.csv")
check "the ~20 requests scheduled during the stall show it in TTFT (got $held)$UPPER_NOTE" \
	within_time "$held" 16 22
worst=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["ttft_ms"] > m { m = $c["ttft_ms"] } END { print m }' "$WORK/stall.csv")
check "the first of them waited about the whole stall: TTFT $worst ms >= 900 ms" \
	within_time "$worst" 900 $((1100 * SLACK))
stop_mock
finish
