#!/bin/sh
# replay against the mock, end to end: mock (TTFT 50 ms, 10 ms per token,
# 40 tokens) -> replay at C=1 and C=8 -> analyze. TTFT P50 must be within
# 50-53 ms, every request exactly 40 tokens, E2E within 5% of 440 ms.
. tests/cli/lib.sh

start_mock --ttft-ms 50 --itl-ms 10
tb record synth -n 16 --input-tokens 32 --output-tokens 40 -o "$WORK/trace.jsonl.gz" 2>/dev/null
tb replay --endpoint "$ENDPOINT" -c 1,8 --warmup 1 --label e2e \
	-o "$WORK/run.jsonl.gz" "$WORK/trace.jsonl.gz" >"$WORK/table" 2>"$WORK/err"
check "replay exits 0" test $? -eq 0
check "replay prints a row per level" test "$(grep -c '^ *[18] ' "$WORK/table")" -eq 2
check "results: 1 warm-up + 4 (C=1) + 16 (C=8) request records" \
	test "$(requests_of "$WORK/run.jsonl.gz" | wc -l)" -eq 21
check "... and the host's own at each level's start and end" \
	test "$(zcat "$WORK/run.jsonl.gz" | grep -c '^{"type":"metrics","source":"host","t_ns":[0-9]*,"level":[18],"repeat":0,"at":"level_\(start\|end\)".*"node_cpu_seconds_total{mode=\\"idle\\"}":[0-9.]*,')" -eq 4


tb analyze load --db "$WORK/bench.db" "$WORK/run.jsonl.gz" 2>/dev/null
tb analyze report --db "$WORK/bench.db" --format csv >"$WORK/report.csv"
tb analyze export --db "$WORK/bench.db" --format csv >"$WORK/requests.csv"
tb analyze report --db "$WORK/bench.db" >"$WORK/report.txt"
check "replay's live table is the report's: same header, columns and numbers" sh -c "
	grep -E '^ *(C|1|8) ' '$WORK/table' >'$WORK/live-rows' &&
	sed '/^the host replay ran on/,\$d' '$WORK/report.txt' | grep -E '^ *(C|1|8) ' >'$WORK/report-rows' &&
	test \$(wc -l <'$WORK/live-rows') -eq 3 && cmp -s '$WORK/live-rows' '$WORK/report-rows'"

check "report: the host's CPU busy, steal and replay's share at C=1 and C=8" sh -c "
	sed -n '/^the host replay ran on (host; its \/proc at each level/,\$p' '$WORK/report.txt' |
	grep -cE '^ *[18] +[0-9.]+% +[0-9.]+% +[0-9.]+%\$' | grep -qx 2"

for row in 1 2; do
	c=$(csv_field "$WORK/report.csv" concurrency $row)
	p50=$(csv_field "$WORK/report.csv" p50_ttft_ms $row)
	check "C=$c: TTFT P50 $p50 ms is within 50-53 ms$UPPER_NOTE" within_time "$p50" 50 $((50 + 3 * SLACK))
	ok=$(csv_field "$WORK/report.csv" ok $row)
	check "C=$c: every request succeeded ($ok)" test "$ok" -eq $((c == 1 ? 4 : 16))
done
check "every request has exactly 40 output tokens, from usage" awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["output_tokens"] != 40 || $col["tokens_estimated"] != 0 { bad++ }
	END { exit bad || NR != 22 }' "$WORK/requests.csv"
check "every E2E is within 5% of 440 ms$UPPER_NOTE" awk -F, -v hi="$(upper $((440 + 22 * SLACK)))" '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	{ e = $col["e2e_ms"]; if (e < 418 || e > hi) { print "e2e " e; bad++ } }
	END { exit bad }' "$WORK/requests.csv"
check "the warm-up is flagged" test "$(csv_field "$WORK/requests.csv" warmup 1)" = 1

# Reasoning tokens: TTFT counts them, TTFA waits for the answer.
stop_mock
start_mock --ttft-ms 20 --itl-ms 10 --reasoning-tokens 5
tb replay --endpoint "$ENDPOINT" -c 1 -n 2 --warmup 0 --label reasoning \
	-o "$WORK/reason.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>&1
tb analyze load --db "$WORK/bench.db" "$WORK/reason.jsonl.gz" 2>/dev/null
tb analyze export --db "$WORK/bench.db" --run reasoning --format csv >"$WORK/reason.csv"
for row in 1 2; do
	ttft=$(csv_field "$WORK/reason.csv" ttft_ms $row)
	ttfa=$(csv_field "$WORK/reason.csv" ttfa_ms $row)
	check "reasoning: TTFT $ttft ms is the first reasoning token (20 ms, +5)$UPPER_NOTE" \
		within_time "$ttft" 20 $((20 + 5 * SLACK))
	check "reasoning: TTFA $ttfa ms comes 5 tokens later (70 ms, +5)$UPPER_NOTE" \
		within_time "$ttfa" 70 $((70 + 5 * SLACK))
	check "reasoning: TTFT comes before TTFA" awk -v t="$ttft" -v a="$ttfa" 'BEGIN { exit !(t < a) }'
done
check "reasoning tokens count as output tokens (40)" \
	test "$(csv_field "$WORK/reason.csv" output_tokens 1)" -eq 40

# The progress line (--progress into a file: a line a second). The level's
# total leaves the warm-up out (it read 1/3 done with one warm-up and
# -n 2), and tok/s counts the tokens of the streams in flight (it counted
# finished requests only and read 0 while long answers streamed): two
# 40-token answers at 50 ms a token stream for 2 s or more, with ticks
# while both are in flight and none is done.
stop_mock
start_mock --ttft-ms 5 --itl-ms 50
tb record synth -n 4 --input-tokens 8 --output-tokens 40 -o "$WORK/long.jsonl.gz" 2>/dev/null
tb replay --endpoint "$ENDPOINT" -c 2 -n 2 --warmup 1 --progress --label progress \
	-o "$WORK/progress.jsonl.gz" "$WORK/long.jsonl.gz" >/dev/null 2>"$WORK/progress.err"
check "progress: the warm-up apart (warm-up 0/1), the level's total its 2 measured requests" sh -c \
	"grep -q '^C=2  warm-up 0/1 ' '$WORK/progress.err' && grep -q '^C=2  [0-2]/2 done ' '$WORK/progress.err' &&
	 ! grep -q '/3 done' '$WORK/progress.err'"
check "progress: tok/s counts the streams in flight: above 0 with 2 in flight and none done" \
	awk '/^C=2  0\/2 done .* 2 in flight/ { for (i = 1; i < NF; i++) if ($(i + 1) == "tok/s" && $i > 0) ok = 1 }
	     END { exit !ok }' "$WORK/progress.err"
finish
