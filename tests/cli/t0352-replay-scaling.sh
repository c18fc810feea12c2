#!/bin/sh
# The Scaling column of replay's table: aggregate tok/s at C over C times
# that at C=1, the C=1 level's repeats pooled as analyze report pools them.
# A C=1 row is its own base (100%): a repeat set against the first one
# read the server's noise as scaling (101-104%). A capacity search's looks
# are no steps of a sweep: no scaling.
. tests/cli/lib.sh

# jitter: the repeats of C=1 differ by a few percent, as a real server's do
start_mock --ttft-ms 5 --itl-ms 2 --tokens 20 --noise jitter=20%
tb record synth -n 16 --output-tokens 20 -o "$WORK/t.jsonl.gz" 2>/dev/null
tb replay -e "$ENDPOINT" -c 1,2 --repeat 3 --quiet --format csv -o "$WORK/r.jsonl.gz" \
	"$WORK/t.jsonl.gz" >"$WORK/r.csv" 2>"$WORK/r.err"
check "a sweep with repeats: exit 0, six rows" sh -c \
	"test \$(grep -c '^run-' '$WORK/r.csv') -eq 6"
# the columns by name: concurrency, agg_tok_s, tokens, wall_s, scaling_eff
cols() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ print $c["concurrency"], $c["agg_tok_s"], $c["tokens"], $c["wall_s"],
		  ($c["scaling_eff"] == "" ? "none" : $c["scaling_eff"]) }' "$1"
}
cols "$WORK/r.csv" >"$WORK/r.cols"
check "... the C=1 repeats differ (the test's premise)" sh -c \
	"test \$(awk '\$1 == 1 { print \$2 }' '$WORK/r.cols' | sort -u | wc -l) -eq 3"
check "... every C=1 row reads 100% (1.0000), each repeat its own base" sh -c \
	"test \$(awk '\$1 == 1 && \$5 == \"1.0000\"' '$WORK/r.cols' | wc -l) -eq 3"
# C=2 against the C=1 repeats pooled: their tokens over their summed wall
# time (both as printed: rounding leaves 1%)
check "... a C=2 row against C=1 pooled: agg / (2 x tokens / wall of C=1)" awk '
	$1 == 1 { tok += $3; wall += $4 }
	$1 == 2 { n++; want = $2 / (2 * tok / wall); if ($5 == "none" || $5 < want * 0.99 || $5 > want * 1.01) bad++ }
	END { exit !(n == 3 && !bad) }' "$WORK/r.cols"
stop_mock

# A concurrency search: its looks show no scaling
start_mock --ttft-ms 5 --itl-ms 1 --tokens 8
tb replay -e "$ENDPOINT" --find-capacity=concurrency --slo ttft=10s --slo-share 0.5 \
	--capacity-range 1:2 --quiet --format csv -o "$WORK/c.jsonl.gz" "$WORK/t.jsonl.gz" \
	>"$WORK/c.csv" 2>"$WORK/c.err"
cols "$WORK/c.csv" >"$WORK/c.cols"
check "a capacity search: looks at C=1 and C=2, their Scaling empty" sh -c \
	"test \$(awk '\$1 == 1' '$WORK/c.cols' | wc -l) -ge 1 &&
	 test \$(awk '\$1 == 2' '$WORK/c.cols' | wc -l) -ge 1 &&
	 test \$(awk '\$5 != \"none\"' '$WORK/c.cols' | wc -l) -eq 0"
stop_mock
finish
