#!/bin/sh
# analyze plot from the command line: gnuplot scripts with their data,
# rendered by the real gnuplot to PNG (signature, 1008x756: a 3.5-in column
# at 288 pixels to the inch; the CDF pair a page wide) or SVG, and
# the files listed on stdout; an earlier plot is not replaced without
# --force; runs, rm and compare on the sample database.
. tests/cli/lib.sh

tb analyze load --db "$WORK/s.db" sample_traces/results-sample.jsonl.gz 2>/dev/null
tb analyze plot --db "$WORK/s.db" --out "$WORK/plots" >"$WORK/out" 2>"$WORK/err"
check "plot exits 0" test $? -eq 0
for p in scaling pareto latency_ttft latency_tpot latency_itl latency_e2e latency_cdf \
	 ttft_timeline; do
	check "$p: script and data written and listed" \
		sh -c "test -s '$WORK/plots/$p.gp' -a -s '$WORK/plots/$p.dat' &&
		       grep -qx '$WORK/plots/$p.gp' '$WORK/out'"
	if have gnuplot; then
		check "$p: a PNG" sh -c "head -c 8 '$WORK/plots/$p.png' | od -An -c | grep -q 'P   N   G'"
		size=" 0 0 3 240 0 0 2 244"   # 1008 x 756
		[ "$p" = latency_cdf ] && size=" 0 0 7 224 0 0 2 244"   # 2016 x 756
		check "$p: $size" test "$(od -An -tu1 -j16 -N8 "$WORK/plots/$p.png" | tr -s ' ')" \
			= "$size"
	else
		skip "$p: a PNG of its printed size" "gnuplot not installed"
	fi
done
if have gnuplot; then
	tb analyze plot --db "$WORK/s.db" --out "$WORK/svg" --format svg >/dev/null 2>&1
	check "--format svg renders SVG" grep -q '<svg' "$WORK/svg/latency_cdf.svg"
else
	skip "--format svg renders SVG" "gnuplot not installed"
fi
# Plotting again into the same directory: refused, nothing replaced,
# unless --force.
for f in "$WORK"/plots/*; do cksum "$f"; done >"$WORK/before"
sleep 1   # (so a rewrite would show in the modification times too)
tb analyze plot --db "$WORK/s.db" --out "$WORK/plots" >"$WORK/out" 2>"$WORK/err"
check "plotting into a directory holding an earlier plot: exit 2" test $? -eq 2
check "... one line naming the first file there and --force" sh -c \
	"test \$(wc -l <'$WORK/err') -eq 1 &&
	 grep -qx \"tracebench analyze plot: '$WORK/plots/scaling.dat' already exists (use --force to replace it)\" '$WORK/err'"
check "... nothing written, nothing listed" sh -c "test ! -s '$WORK/out' &&
	test -z \"\$(find '$WORK/plots' -newer '$WORK/before')\" &&
	for f in '$WORK'/plots/*; do cksum \"\$f\"; done | cmp -s - '$WORK/before'"
rm "$WORK/plots/scaling.dat" "$WORK/plots/scaling.gp"
tb analyze plot --db "$WORK/s.db" --out "$WORK/plots" >/dev/null 2>"$WORK/err"
if have gnuplot; then
	check "... an image of it counts too" grep -q "'$WORK/plots/scaling.png' already exists" "$WORK/err"
	rm "$WORK/plots/scaling.png"
	tb analyze plot --db "$WORK/s.db" --out "$WORK/plots" >/dev/null 2>"$WORK/err"
else
	skip "... an image of it counts too" "gnuplot not installed"
fi
check "... and the other plots' files" \
	grep -q "'$WORK/plots/pareto.dat' already exists" "$WORK/err"
tb analyze plot --db "$WORK/s.db" --out "$WORK/plots" --force >"$WORK/out" 2>"$WORK/err"
rc=$?
check "--force replaces them: exit 0, every file written again and listed" sh -c \
	"test $rc -eq 0 && test -s '$WORK/plots/scaling.dat' && ! grep -qv 'note: gnuplot not found on PATH' '$WORK/err' &&
	 test -z \"\$(find '$WORK/plots' ! -newer '$WORK/before' -type f)\" &&
	 grep -qx '$WORK/plots/scaling.gp' '$WORK/out'"

tb analyze plot --db "$WORK/s.db" --out "$WORK/x" --format gif 2>"$WORK/err"
check "--format gif is a usage error (exit 2)" test $? -eq 2
check "... naming the format" grep -q "'gif'" "$WORK/err"

tb analyze runs --db "$WORK/s.db" --format csv >"$WORK/runs.csv"
check "runs lists the sample: closed loop, levels 1,2,4, 24 measured requests, 0 errors" \
	grep -q '^sample,2026-11-30T14:04:45Z,http://127.0.0.1:35199,mock,,crc32:84312110,closed,"1,2,4",24,0,$' \
	"$WORK/runs.csv"
tb analyze runs --db "$WORK/s.db" >"$WORK/runs.txt"
check "runs as text: aligned columns, counts to the right" \
	grep -q '^sample  2026-11-30T14:04:45Z  http://127.0.0.1:35199  mock   -       crc32:84312110  closed  1,2,4         24       0  -$' \
	"$WORK/runs.txt"
tb analyze compare --db "$WORK/s.db" sample sample >"$WORK/cmp" 2>"$WORK/err"
rc=$?
check "a run compared with itself: exit 0, every judged number the same" \
	sh -c "test $rc -eq 0 && ! grep -Eq '(faster|slower|inconclusive)\$' '$WORK/cmp' && grep -Eq ' same\$' '$WORK/cmp'"
tb analyze rm --db "$WORK/s.db" sample 2>/dev/null
check "rm removes the run and its requests" \
	test "$(sqlite3 "$WORK/s.db" 'select count(*) from runs') $(sqlite3 "$WORK/s.db" 'select count(*) from requests')" = "0 0"

# The latency figures by concurrency from a real sweep with repeats against
# a noisy mock: per level the P50, P90 and P99 of the report, and the
# lowest and highest P50 of the repeats, each repeat taken alone, checked
# against the per-request export; the CDF has one curve per level.
start_mock --ttft-ms 15 --itl-ms 2 --noise default --seed 3
tb record synth -n 8 --input-tokens 32 --output-tokens 12 --seed 2 -o "$WORK/t.jsonl.gz" 2>/dev/null
tb replay -e "$ENDPOINT" -c 1,2 --repeat 3 --label rep -o "$WORK/rep.jsonl.gz" \
	"$WORK/t.jsonl.gz" >/dev/null 2>&1
tb analyze load --db "$WORK/r.db" "$WORK/rep.jsonl.gz" 2>/dev/null
tb analyze plot --db "$WORK/r.db" --out "$WORK/rp" --format svg --gpus 4 >/dev/null 2>&1
check "plot of a repeated sweep exits 0" test $? -eq 0
tb analyze export --db "$WORK/r.db" >"$WORK/rep.csv"
# P50 (the tool's rule: linear between the two nearest ranks) of the TPOT of
# the successful measured requests of level C, repeat R (-1: every repeat).
p50() {
	awk -F, -v c="$1" -v r="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["concurrency"] == c && $col["warmup"] == 0 && $col["error"] == "" &&
		$col["tpot_ms"] != "" && (r < 0 || $col["repeat"] == r) { v[n++] = $col["tpot_ms"] }
		END {
			for (i = 1; i < n; i++) for (j = i; j > 0 && v[j-1] > v[j]; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
			k = 0.5 * (n - 1); lo = int(k); printf "%.3f\n", v[lo] + (lo + 1 < n ? (v[lo+1] - v[lo]) * (k - lo) : 0)
		}' "$WORK/rep.csv"
}
for c in 1 2; do
	a=$(p50 $c 0); b=$(p50 $c 1); d=$(p50 $c 2)
	lo=$(printf '%s\n' "$a" "$b" "$d" | sort -n | head -1)
	hi=$(printf '%s\n' "$a" "$b" "$d" | sort -n | tail -1)
	row=$(awk -v c=$c '$1 == c' "$WORK/rp/latency_tpot.dat")
	# (within 0.002 ms: the export rounds each TPOT to a microsecond)
	check "latency_tpot C=$c: P50 $(p50 $c -1), repeats' P50s $lo..$hi as the export gives them" \
		sh -c "echo '$row' | awk -v p=$(p50 $c -1) -v lo=$lo -v hi=$hi '
			function near(x, y) { return x - y < 0.002 && y - x < 0.002 }
			{ exit !(near(\$2, p) && near(\$5, lo) && near(\$6, hi) && lo < hi) }'"
	check "... P50 <= P90 <= P99" sh -c "echo '$row' | awk '{ exit !(\$2 <= \$3 && \$3 <= \$4) }'"
done
check "... bars across the repeats drawn" grep -q 'using 1:2:5:6 with yerrorbars lc 1' "$WORK/rp/latency_tpot.gp"
check "latency_cdf: one curve per level of the run (TTFT and E2E)" \
	test "$(grep -c "with steps lc [12] dt [12] lw 1.5 title 'C=[12]'" "$WORK/rp/latency_cdf.gp")" -eq 4
check "ttft_timeline: where each level begins, marked" \
	test "$(grep -c "^set label 'C=[12]' at " "$WORK/rp/ttft_timeline.gp")" -eq 2
check "pareto: aggregate tok/s per GPU of 4, each level named" sh -c \
	"grep -q \"ylabel 'aggregate tok/s per GPU'\" '$WORK/rp/pareto.gp' &&
	 grep -q \"title 'rep (4 GPUs)'\" '$WORK/rp/pareto.gp' &&
	 grep -q 'with labels' '$WORK/rp/pareto.gp'"
agg=$(tb analyze report --db "$WORK/r.db" --format csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next } $col["concurrency"] == 2 { print $col["agg_tok_s"] }')
check "... its C=2 point is the report's aggregate tok/s ($agg) / 4" \
	awk -v a="$agg" '$3 == 2 { exit !(($2 - a / 4) < 0.01 && (a / 4 - $2) < 0.01) }' "$WORK/rp/pareto.dat"
if have gnuplot; then
	check "... every figure rendered" sh -c "for p in latency_tpot latency_cdf ttft_timeline pareto; do
		grep -q '<svg' '$WORK/rp/'\$p.svg || exit 1; done"
else
	skip "... every figure rendered" "gnuplot not installed"
fi

# Two runs, the second slower (an A/B run against a twin whose every token
# takes 25% longer): the forest plot holds each number compare judged, with
# compare's own change, interval and verdict, and nothing compare did not
# judge.
start_mock --ttft-ms 15 --itl-ms 4 --noise default --seed 4
base=$ENDPOINT
start_mock --ttft-ms 15 --itl-ms 5 --noise default --seed 5
tb replay -e "$base" -e "$ENDPOINT" -c 1,4 --repeat 3 --label-a base --label-b slow \
	-o "$WORK/a.jsonl.gz" -o "$WORK/b.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>&1
tb analyze load --db "$WORK/ab.db" "$WORK/a.jsonl.gz" "$WORK/b.jsonl.gz" 2>/dev/null
tb analyze plot --db "$WORK/ab.db" --out "$WORK/ab" --format svg >/dev/null 2>&1
check "plot of two runs exits 0" test $? -eq 0
tb analyze compare --db "$WORK/ab.db" base slow --format csv >"$WORK/cmp.csv"
# compare's judged rows as 'verdict change lo hi name', in its order
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["verdict"] != "n/a" {
		name = $col["metric"] ($col["stat"] == "-" || $col["stat"] == "" ? "" : " " $col["stat"]) " C=" $col["concurrency"]
		printf "%s|%s %s %s %s\n", name, $col["verdict"], $col["change_pct"], $col["ci_lo"], $col["ci_hi"]
	}' "$WORK/cmp.csv" | sort >"$WORK/want"
awk '/^# [a-z]/ { v = $2 } /^[0-9]/ { n = ""; for (i = 6; i <= NF; i++) n = n (n == "" ? "" : " ") $i
	printf "%s|%s %s %s %s\n", n, v, $2, $3, $4 }' "$WORK/ab/compare_forest.dat" | sort >"$WORK/got"
# (the same names and verdicts; the numbers within 0.001: the CSV rounds)
check "compare_forest: every judged number of compare, with its change, interval and verdict" \
	sh -c "test -s '$WORK/want' && test \$(wc -l <'$WORK/want') -eq \$(wc -l <'$WORK/got') &&
	       paste -d'|' '$WORK/want' '$WORK/got' | awk -F'|' '{
		split(\$2, a, \" \"); split(\$4, b, \" \")
		if (\$1 != \$3 || a[1] != b[1]) bad = 1
		for (i = 2; i <= 4; i++) if (a[i] - b[i] > 0.001 || b[i] - a[i] > 0.001) bad = 1
	       } END { exit bad }'"
check "... the slower TPOT among them (+25% per token)" \
	awk -F'|' '$1 == "TPOT P50 C=4" { split($2, a, " "); f = a[2] > 10 } END { exit !f }' "$WORK/got"
check "... one y tic per row, each row inside its interval" sh -c "
	test \$(grep -o \"C=[0-9]*' [0-9]*\" '$WORK/ab/compare_forest.gp' | wc -l) -eq \$(wc -l <'$WORK/got') &&
	awk '/^[0-9]/ { if (!(\$3 <= \$2 && \$2 <= \$4)) bad = 1 } END { exit bad }' '$WORK/ab/compare_forest.dat'"
if have gnuplot; then
	check "... rendered" grep -q '<svg' "$WORK/ab/compare_forest.svg"
else
	skip "... rendered" "gnuplot not installed"
fi
tb analyze plot --db "$WORK/r.db" --out "$WORK/one" >/dev/null 2>&1
check "one run: no forest plot" test ! -e "$WORK/one/compare_forest.dat"
finish
