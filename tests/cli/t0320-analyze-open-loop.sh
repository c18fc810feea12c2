#!/bin/sh
# An open-loop run (replay --rate) in the report: target, scheduled and
# achieved rates, send lag, and latency from the schedule beside latency
# from the actual send (never larger).
. tests/cli/lib.sh

start_mock --ttft-ms 20 --itl-ms 5
tb record synth -n 20 --input-tokens 64 --output-tokens 10 --seed 1 -o "$WORK/t.jsonl.gz" 2>/dev/null
tb replay --endpoint "$ENDPOINT" --rate 50 --label open -o "$WORK/o.jsonl.gz" \
	"$WORK/t.jsonl.gz" >"$WORK/live.txt" 2>&1
check "replay's live table names the level 'open', not a concurrency" \
	test "$(table_ok_err "$WORK/live.txt" open) $(table_cell "$WORK/live.txt" open Scaling)" = "20 0 -"
tb analyze load --db "$WORK/d.db" "$WORK/o.jsonl.gz" 2>/dev/null
tb analyze report --db "$WORK/d.db" >"$WORK/report.txt"
check "replay's live row is the report's row: same columns, same numbers" \
	sh -c "grep '^open  *[0-9]' '$WORK/live.txt' >'$WORK/a' && sed '/^the host replay ran on/,\$d' '$WORK/report.txt' | grep '^open  *[0-9]' >'$WORK/b' && cmp -s '$WORK/a' '$WORK/b'"
tb analyze report --db "$WORK/d.db" --format markdown >"$WORK/report.md"
check "report exits 0" test $? -eq 0
check "the report's tables name the level 'open'" \
	test "$(sed '/^the host replay ran on/,$d' "$WORK/report.md" | grep -c '^| open |\|^| TTFT | open |')" -eq 2
check "the open-loop line gives the target rate" grep -q '^open loop: target 50.00 req/s, scheduled 50.00 req/s, achieved ' "$WORK/report.md"
check "... and both views of TTFT and E2E" \
	grep -q 'ms from the schedule, .* ms from the send; E2E .* from the send$' "$WORK/report.md"
tb analyze report --db "$WORK/d.db" --format csv >"$WORK/r.csv"
a=$(csv_field "$WORK/r.csv" achieved_req_s 1)
check "achieved rate $a req/s is within 10% of 50$ROUGH_NOTE" roughly "$a" $((45 / SLACK)) 55
check "TTFT from the send is at most TTFT from the schedule (P99)" \
	awk -v s="$(csv_field "$WORK/r.csv" p99_ttft_service_ms 1)" \
	    -v t="$(csv_field "$WORK/r.csv" p99_ttft_ms 1)" 'BEGIN { exit !(s <= t + 1e-9) }'
check "a closed-loop sample has no open-loop line" \
	sh -c "! grep -q 'open loop' tests/cli/t0300-analyze-report-sample.expected.md"

# analyze plot draws open-loop runs: latency against the offered rate, one
# block per run, and the CDF and timeline (once "nothing to plot").
tb replay --endpoint "$ENDPOINT" --rate 100 --label open100 -o "$WORK/o100.jsonl.gz" \
	"$WORK/t.jsonl.gz" >/dev/null 2>&1
tb analyze load --db "$WORK/d.db" "$WORK/o100.jsonl.gz" 2>/dev/null
tb analyze plot --db "$WORK/d.db" --out "$WORK/plots" --format svg >"$WORK/plot.out" 2>&1
check "analyze plot of two open-loop runs exits 0" test $? -eq 0
check "latency_by_rate.dat: one row per run, offered 50 and 100 req/s, 11 columns" \
	awk '!/^#/ && NF { n++; r[n] = $1; if (NF != 11) bad = 1 }
	     END { exit !(n == 2 && r[1] == "50.0000" && r[2] == "100.0000" && !bad) }' \
	"$WORK/plots/latency_by_rate.dat"
check "... the P50 <= P90 <= P99 of TTFT, TPOT and E2E in every row" \
	awk '!/^#/ && NF { for (c = 3; c <= 9; c += 3) if (!($c <= $(c+1) && $(c+1) <= $(c+2))) bad = 1 }
	     END { exit bad }' "$WORK/plots/latency_by_rate.dat"
check "... a P50, P90 and P99 curve of each run in each of three panels" \
	sh -c "for r in open open100; do for p in P50 P90 P99; do
		test \$(grep -c \"title '\$r: \$p'\" '$WORK/plots/latency_by_rate.gp') -eq 3 || exit 1
	done; done"
check "... and the achieved rate of each run" \
	test "$(grep -c "achieved'" "$WORK/plots/latency_by_rate.gp")" -eq 2
if have gnuplot; then
	check "... rendered, with the CDF and the timeline" \
		sh -c "grep -q '<svg' '$WORK/plots/latency_by_rate.svg' &&
		       test -s '$WORK/plots/latency_cdf.svg' && test -s '$WORK/plots/ttft_timeline.svg'"
else
	skip "open-loop figures not rendered" "gnuplot is not installed"
fi
check "... no figure by concurrency for runs without one" \
	test ! -e "$WORK/plots/scaling.dat"
finish
