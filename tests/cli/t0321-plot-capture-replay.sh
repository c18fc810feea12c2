#!/bin/sh
# A capture and its replay overlaid (issue 31): traffic recorded by record
# proxy, replayed with its own timing against the server, and both drawn
# in one figure of latency against the rate, one TTFT timeline and one
# CDF, each run in its own colour.
. tests/cli/lib.sh

start_mock --ttft-ms 10 --itl-ms 2
start_proxy "$WORK/cap.jsonl.gz"
tb record synth -n 24 --input-tokens 8 --output-tokens 8 --seed 1 -o "$WORK/t.jsonl.gz" 2>/dev/null
tb replay --endpoint "$PROXY" --rate 20 -n 24 --warmup 0 --quiet -o "$WORK/load.jsonl.gz" \
	"$WORK/t.jsonl.gz" >/dev/null 2>&1
stop_proxy INT
check "the proxy captured the 24 chat requests sent through it (beside replay's probes)" \
	test "$(requests_of "$WORK/cap.jsonl.gz" | grep -c '"path":"/v1/chat/completions"')" -eq 24
tb replay --endpoint "$ENDPOINT" --timing trace --warmup 0 --quiet --label replayed \
	-o "$WORK/rep.jsonl.gz" "$WORK/cap.jsonl.gz" >/dev/null 2>&1
check "the capture replays with its own timing" test $? -eq 0
tb analyze load --db "$WORK/d.db" --label production "$WORK/cap.jsonl.gz" >/dev/null 2>&1
check "the capture loads as a run of its own" test $? -eq 0
tb analyze load --db "$WORK/d.db" "$WORK/rep.jsonl.gz" >/dev/null 2>&1
tb analyze plot --db "$WORK/d.db" --out "$WORK/plots" --format svg >"$WORK/plot.out" 2>&1
check "analyze plot of a capture and its replay: exit 0" test $? -eq 0
check "latency_by_rate: P50, P90 and P99 curves of each in each of three panels" \
	sh -c "for r in production replayed; do for p in P50 P90 P99; do
		test \$(grep -c \"title '\$r: \$p'\" '$WORK/plots/latency_by_rate.gp') -eq 3 || exit 1
	done; done"
check "... and each one's achieved rate" \
	test "$(grep -c "achieved'" "$WORK/plots/latency_by_rate.gp")" -eq 2
check "the TTFT timeline and the CDF name both runs" sh -c \
	"for f in ttft_timeline latency_cdf; do
		grep -q \"production\" '$WORK/plots/'\$f.gp && grep -q \"replayed\" '$WORK/plots/'\$f.gp || exit 1
	done"
# the line colour of each run's curves in a figure, "lc N" (one a run)
colours() {  # FIGURE RUN
	grep -o "lc [0-9]*[^,]* title '$2[:' ]" "$WORK/plots/$1.gp" | cut -d' ' -f2 | sort -u | tr '\n' ' '
}
check "... one colour each, the same in every figure ($(colours latency_by_rate production)/ $(colours latency_by_rate replayed))" sh -c \
	"p=\"$(colours latency_by_rate production)\" r=\"$(colours latency_by_rate replayed)\"
	 test -n \"\$p\" -a -n \"\$r\" -a \"\$p\" != \"\$r\" &&
	 test \"$(colours ttft_timeline production)\" = \"\$p\" -a \"$(colours latency_cdf production)\" = \"\$p\" &&
	 test \"$(colours ttft_timeline replayed)\" = \"\$r\" -a \"$(colours latency_cdf replayed)\" = \"\$r\""
if have gnuplot; then
	check "... rendered" sh -c "grep -q '<svg' '$WORK/plots/latency_by_rate.svg' &&
		grep -q '<svg' '$WORK/plots/ttft_timeline.svg'"
else
	skip "the overlay rendered" "gnuplot is not installed"
fi
finish
