#!/bin/sh
# compare against a mock that is noisy the way servers are (mock --noise):
# an unchanged pair stays quiet, a verdict needs the run-to-run noise
# measured, and a real change is seen through the noise by an A/B run.
. tests/cli/lib.sh

start_mock --noise default --ttft-ms 20 --itl-ms 2 --seed 1
base=$ENDPOINT
MOCK_BASE=$MOCK_PID
trap 'kill "$MOCK_BASE" "${MOCK_TWIN:-}" 2>/dev/null; cleanup' EXIT
start_mock --noise default --ttft-ms 20 --itl-ms 2 --seed 2
twin=$ENDPOINT
MOCK_TWIN=$MOCK_PID
start_mock --noise default --ttft-ms 30 --itl-ms 3 --seed 3
slow=$ENDPOINT
tb record synth -n 48 --input-tokens 16 --output-tokens uniform:10:20 -o "$WORK/trace.jsonl.gz" 2>/dev/null

# One run a side against the same noisy server: no history, no --noise.
for side in a b; do
	tb replay -e "$base" -c 4 -n 24 --quiet --label "one-$side" -o "$WORK/one-$side.jsonl.gz" \
		"$WORK/trace.jsonl.gz" >/dev/null 2>&1
done
# A/B, three blocks: the server against its twin, and against one 50% slower.
tb replay -e "$base" -e "$twin" -c 4 -n 24 --repeat 3 --quiet --label-a aa-a --label-b aa-b \
	-o "$WORK/aa-a.jsonl.gz" -o "$WORK/aa-b.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>&1
tb replay -e "$base" -e "$slow" -c 4 -n 24 --repeat 3 --quiet --label-a ab-a --label-b ab-b \
	-o "$WORK/ab-a.jsonl.gz" -o "$WORK/ab-b.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>&1
tb analyze load --db "$WORK/n.db" "$WORK"/one-*.jsonl.gz "$WORK"/aa-*.jsonl.gz "$WORK"/ab-*.jsonl.gz \
	>/dev/null 2>&1
check "the noisy runs load" test $? -eq 0

# Rows judged faster or slower in a compare's CSV, and rows judged at all.
changed() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["verdict"] == "faster" || $c["verdict"] == "slower" { n++ } END { print n + 0 }' "$1"; }
judged() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["verdict"] != "n/a" { n++ } END { print n + 0 }' "$1"; }

tb analyze compare --db "$WORK/n.db" --fail-on-regression 5 one-a one-b >"$WORK/one.txt" 2>&1
check "one run a side, the same server: the gate passes" test $? -eq 0
tb analyze compare --db "$WORK/n.db" --format csv one-a one-b >"$WORK/one.csv" 2>/dev/null
check "... no verdict faster or slower: the noise was not measured ($(changed "$WORK/one.csv") changed)" \
	test "$(changed "$WORK/one.csv")" -eq 0
check "... and the text says so, and how to measure it" \
	grep -q "Run-to-run noise was not measured: a change is 'inconclusive', not 'faster' or 'slower'. Measure it: an A/B run with --repeat 3" "$WORK/one.txt"

# The twin pair: a calibrated 95% interval per row, and the gate at 5%.
# A budget, not zero: of the rows judged, at most 2 may stray (each does
# with some 2.5% chance either way; 2 of ~11 at once is below 1 in 300).
tb analyze compare --db "$WORK/n.db" --fail-on-regression 5 aa-a aa-b >"$WORK/aa.txt" 2>&1
check "A/B, the server against its twin: the gate passes" test $? -eq 0
tb analyze compare --db "$WORK/n.db" --format csv aa-a aa-b >"$WORK/aa.csv" 2>/dev/null
check "... paired block by block" grep -q "Run-to-run noise: an A/B run's 3 interleaved blocks" "$WORK/aa.txt"
check "... at most 2 of $(judged "$WORK/aa.csv") rows faster or slower ($(changed "$WORK/aa.csv"))" \
	test "$(changed "$WORK/aa.csv")" -le 2 -a "$(judged "$WORK/aa.csv")" -ge 8

# 50% slower in every time: seen through the noise.
tb analyze compare --db "$WORK/n.db" --format csv ab-a ab-b >"$WORK/ab.csv" 2>/dev/null
verdict() { awk -F, -v m="$2" -v s="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["metric"] == m && $c["stat"] == s { print $c["verdict"] }' "$1"; }
check "A/B against a server 50% slower: TTFT P50 slower" test "$(verdict "$WORK/ab.csv" TTFT P50)" = slower
check "... TPOT P50 slower" test "$(verdict "$WORK/ab.csv" TPOT P50)" = slower
check "... Agg tok/s slower" test "$(verdict "$WORK/ab.csv" "Agg tok/s" "")" = slower
