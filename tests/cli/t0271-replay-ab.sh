#!/bin/sh
# An A/B run: replay with two endpoints alternates them level by level and
# repeat by repeat in a balanced, seeded order, writes two results files of
# the same trace requests, and analyze compare pairs them: a mock with a
# 50% longer TTFT is "slower" and fails the gate, with no warning.
. tests/cli/lib.sh

start_mock --ttft-ms 20 --itl-ms 5
A=$ENDPOINT
MOCK_A=$MOCK_PID
trap 'kill "$MOCK_A" 2>/dev/null; cleanup' EXIT
start_mock --ttft-ms 30 --itl-ms 5
B=$ENDPOINT

tb record synth -n 16 --input-tokens 16 --output-tokens 4 -o "$WORK/trace.jsonl.gz" 2>/dev/null
tb replay -e "$A" -e "$B" --label-a fast --label-b slow -c 1,2 --repeat 2 --quiet \
	-o "$WORK/a.jsonl.gz" -o "$WORK/b.jsonl.gz" "$WORK/trace.jsonl.gz" >"$WORK/table" 2>"$WORK/err"
check "an A/B replay exits 0" test $? -eq 0
check "it says which endpoint is which run" \
	grep -q "A/B run: endpoint $A as 'fast', endpoint $B as 'slow'" "$WORK/err"
check "a table row per level, repeat and side, each named by its run" \
	test "$(grep -c '^fast  *[12]  *[01] ' "$WORK/table")" -eq 4 -a \
	     "$(grep -c '^slow  *[12]  *[01] ' "$WORK/table")" -eq 4

zcat "$WORK/a.jsonl.gz" | head -1 >"$WORK/ha"
zcat "$WORK/b.jsonl.gz" | head -1 >"$WORK/hb"
check "each file names its own endpoint and label" \
	sh -c "grep -q '\"label\":\"fast\",.*\"endpoint\":\"$A\"' '$WORK/ha' &&
	       grep -q '\"label\":\"slow\",.*\"endpoint\":\"$B\"' '$WORK/hb'"
check "the two runs have the same params" \
	test "$(sed 's/.*"params"://' "$WORK/ha")" = "$(sed 's/.*"params"://' "$WORK/hb")"
order=$(sed -n 's/.*"order":"\([AB]*\)".*/\1/p' "$WORK/ha")
check "the order is recorded, two letters per level and repeat ($order)" test ${#order} -eq 8
check "balanced: AB BA or BA AB in each two blocks" \
	sh -c "echo '$order' | grep -Eq '^((ABBA)|(BAAB))((ABBA)|(BAAB))$'"
check "the table's rows come in that order" \
	test "$(awk '$1 == "fast" { printf "A" } $1 == "slow" { printf "B" }' "$WORK/table")" = "$order"

# "level repeat trace_id sched_ns e2e_ns" of each measured request of a
# results file ("repeat" is left out of a record when 0).
fields() {  # FILE
	zcat "$1" | awk 'NR > 1 && /"warmup":false/ {
		n = split("level repeat trace_id sched_ns e2e_ns", key, " ")
		out = ""
		for (i = 1; i <= n; i++) {
			v = 0
			if (match($0, "\"" key[i] "\":[0-9]+"))
				v = substr($0, RSTART + length(key[i]) + 3, RLENGTH - length(key[i]) - 3)
			out = out (i > 1 ? " " : "") v
		}
		print out }'
}
fields "$WORK/a.jsonl.gz" >"$WORK/fa"
fields "$WORK/b.jsonl.gz" >"$WORK/fb"
# in order of completion, which two sides need not share: sorted
cut -d' ' -f1-3 "$WORK/fa" | sort >"$WORK/ka"
cut -d' ' -f1-3 "$WORK/fb" | sort >"$WORK/kb"
check "both sides replayed the same trace requests in each level and repeat" \
	sh -c "test -s '$WORK/ka' && cmp -s '$WORK/ka' '$WORK/kb'"
check "16 measured requests a side (4 at C=1, 4 at C=2, twice)" test "$(wc -l <"$WORK/ka")" -eq 16

# Interleaved as the order says: the side going first ends its block
# before the other starts it (offsets from one shared start).
span() {  # FIELDS LEVEL REPEAT -> "first_start last_end"
	awk -v l="$2" -v r="$3" '$1 == l && $2 == r {
		if (!seen++ || $4 < lo) lo = $4; if ($4 + $5 > hi) hi = $4 + $5 }
		END { print lo, hi }' "$1"
}
k=0
inorder=1
for level in 1 2; do
	for rep in 0 1; do
		first=$(echo "$order" | cut -c$((2 * k + 1)))
		sa=$(span "$WORK/fa" $level $rep)
		sb=$(span "$WORK/fb" $level $rep)
		if [ "$first" = A ]; then
			awk -v a="$sa" -v b="$sb" 'BEGIN { split(a, x, " "); split(b, y, " "); exit !(x[2] <= y[1]) }' || inorder=0
		else
			awk -v a="$sa" -v b="$sb" 'BEGIN { split(a, x, " "); split(b, y, " "); exit !(y[2] <= x[1]) }' || inorder=0
		fi
		k=$((k + 1))
	done
done
check "the blocks ran in the recorded order" test $inorder -eq 1

tb replay -e "$A" -e "$B" -c 1,2 --repeat 2 --quiet -o "$WORK/a2.jsonl.gz" -o "$WORK/b2.jsonl.gz" \
	"$WORK/trace.jsonl.gz" >/dev/null 2>&1
check "the same seed gives the same order" \
	test "$(zcat "$WORK/a2.jsonl.gz" | head -1 | sed -n 's/.*"order":"\([AB]*\)".*/\1/p')" = "$order"
check "default labels end in -a and -b" \
	sh -c "zcat '$WORK/b2.jsonl.gz' | head -1 | grep -q '\"label\":\"run-[0-9]*-[0-9]*-[0-9a-f]*-b\"'"

# The two runs load and compare as a pair.
tb analyze load --db "$WORK/ab.db" "$WORK/a.jsonl.gz" "$WORK/b.jsonl.gz" >/dev/null 2>&1
tb analyze compare --db "$WORK/ab.db" --fail-on-regression 5 fast slow >"$WORK/cmp" 2>"$WORK/cmp.err"
gate=$?
slower=$(grep -Ec ' slower$' "$WORK/cmp")
check "compare pairs the requests by trace id" grep -q "requests paired by trace id" "$WORK/cmp"
check "and measures the noise block by block" \
	grep -q "Run-to-run noise: an A/B run's 2 interleaved blocks, paired block by block" "$WORK/cmp"
# The CSV says where each interval's width came from: two blocks, one
# degree of freedom, the interval change +- t975(1) sd / sqrt 2 on the log
# scale, sd the blocks' (noise_sd_pct).
tb analyze compare --db "$WORK/ab.db" --format csv fast slow >"$WORK/cmp.csv" 2>/dev/null
check "TTFT P50 at both levels: noise_df 1, the interval t975(1) sd / sqrt 2 wide" \
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["metric"] == "TTFT" && $c["stat"] == "P50" && $c["noise"] == "blocks" {
		n++; if ($c["noise_df"] != 1) bad++
		h = log(1 + $c["ci_hi"] / 100) - log(1 + $c["change_pct"] / 100)
		w = 12.706205 * log(1 + $c["noise_sd_pct"] / 100) / sqrt(2)
		if (h < w * 0.99 - 0.0005 || h > w * 1.01 + 0.0005) bad++ }
	END { exit !(n == 2 && !bad) }' "$WORK/cmp.csv"
# 30 ms against 20: slower at both levels on a quiet host. With two blocks
# a busy host's stalls between them widen the interval past the
# threshold, and "inconclusive" is then the right answer: make test checks
# that no level is called faster or the same and both changes are
# increases; the verdict itself is the timing tier's.
if [ -n "$TIMING" ]; then
	check "TTFT P50 is slower at both levels" \
		test "$(grep -Ec '^ *[12] +TTFT +P50 .* slower$' "$WORK/cmp")" -eq 2
	check "compare's gate fails on the slower side (exit 1)" test $gate -eq 1
else
	check "compare's gate (exit $gate) fails exactly when a change is called slower ($slower)" \
		sh -c "[ $slower -gt 0 ] && [ $gate -eq 1 ] || { [ $slower -eq 0 ] && [ $gate -eq 0 ]; }"
	check "TTFT P50 rose at both levels, never called faster or the same (slower: timing tier)" \
		test "$(grep -Ec '^ *[12] +TTFT +P50 +[0-9.]+ +[0-9.]+ +\+[0-9.]+% .*(slower|inconclusive)$' "$WORK/cmp")" -eq 2
fi
check "no warning (but a busier host's, which tells the hour): same trace, same params" sh -c "! grep -h warning '$WORK/cmp' '$WORK/cmp.err' | grep -qv 'ran on a busier host'"
# (on a busy host the slower figure may be a throughput, which falls:
# "Per-req tok/s at C=2 -31.2% [-40.1, -20.3]")
if [ $gate -eq 1 ]; then
	check "the regression line names metric, statistic and level" \
		grep -Eq "regression: [A-Za-z/ -]+ P?[0-9]* ?at C=[12] [+-][0-9.]+%( \[[+-][0-9.]+, [+-][0-9.]+\])? > 5%" "$WORK/cmp.err"
else
	check "no slower verdict (a busy host's noise): no regression line" \
		sh -c "! grep -q 'regression:' '$WORK/cmp.err'"
fi

# Bad input: one line, exit 2.
tb replay -e "$A" -e "$B" -o "$WORK/x.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>"$WORK/e1"
check "two endpoints and one -o: exit 2" test $? -eq 2
check "... saying two results files are needed" grep -q "needs two results files" "$WORK/e1"
tb replay -e "$A" --label-b x -o "$WORK/x.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>"$WORK/e2"
check "--label-b without two endpoints: exit 2" test $? -eq 2
tb replay -e "$A" -e "$B" -e "$A" -o "$WORK/x.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>"$WORK/e3"
check "three endpoints: exit 2" test $? -eq 2
tb replay -e "$A" -e "$B" --rate 5 -o "$WORK/x.jsonl.gz" -o "$WORK/y.jsonl.gz" "$WORK/trace.jsonl.gz" \
	>/dev/null 2>"$WORK/e4"
check "an open-loop A/B run: exit 2, closed loop only" \
	sh -c "test $? -eq 2 && grep -q 'closed loop' '$WORK/e4'"
check "no results file was written by a refused run" test ! -e "$WORK/x.jsonl.gz"
