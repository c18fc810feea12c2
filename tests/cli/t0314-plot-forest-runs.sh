#!/bin/sh
# analyze plot of three runs or more: the forest plot shows each later run
# against the first, every number analyze compare judges for that pair
# with compare's own change, interval and verdict, each run in the colour
# it has in every other figure, its verdict told by the point's shape; a
# run with no level in common with the first is left out, the others kept.
. tests/cli/lib.sh

tb record synth -n 8 -o "$WORK/t.jsonl.gz" 2>/dev/null
start_mock --ttft-ms 5 --itl-ms 1 --tokens 6
fast=$ENDPOINT
start_mock --ttft-ms 50 --itl-ms 1 --tokens 6
for r in base slow twin; do
	e=$fast
	[ "$r" = slow ] && e=$ENDPOINT
	tb replay -e "$e" -c 1,2 -n 8 --quiet --label "$r" -o "$WORK/$r.jsonl.gz" \
		"$WORK/t.jsonl.gz" >/dev/null 2>&1
done
# a run at C=4 only: nothing in common with base
tb replay -e "$fast" -c 4 -n 8 --quiet --label apart -o "$WORK/apart.jsonl.gz" \
	"$WORK/t.jsonl.gz" >/dev/null 2>&1
stop_mock
for r in base slow twin apart; do
	tb analyze load --db "$WORK/db" "$WORK/$r.jsonl.gz" >/dev/null 2>&1
done
tb analyze plot --db "$WORK/db" --out "$WORK/p" --format svg >"$WORK/out" 2>"$WORK/err"
check "plot of four runs: exit 0, nothing on stderr, the forest plot listed" sh -c \
	"test $? -eq 0 && ! test -s '$WORK/err' && grep -qx '$WORK/p/compare_forest.gp' '$WORK/out'"

# compare's judged rows of each pair as 'run|name|verdict change lo hi'
# (run 2 is slow, run 3 twin: the order the runs were loaded in)
run=2
for r in slow twin; do
	tb analyze compare --db "$WORK/db" base "$r" --format csv |
	awk -F, -v run=$run 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["verdict"] != "n/a" {
			name = $col["metric"] ($col["stat"] == "-" || $col["stat"] == "" ? "" : " " $col["stat"]) " C=" $col["concurrency"]
			printf "%s|%s|%s %s %s %s\n", run, name, $col["verdict"], $col["change_pct"], $col["ci_lo"], $col["ci_hi"]
		}'
	run=$((run + 1))
done | sort >"$WORK/want"
awk '/^# run [0-9]*: / { run = $3; sub(":", "", run); v = $4 }
	/^[0-9]/ { n = ""; for (i = 6; i <= NF; i++) n = n (n == "" ? "" : " ") $i
		printf "%s|%s|%s %s %s %s\n", run, n, v, $2, $3, $4 }' \
	"$WORK/p/compare_forest.dat" | sort >"$WORK/got"
check "every number compare judges for base-slow and base-twin, with its verdict, change and interval" \
	sh -c "test \$(grep -c '^2|' '$WORK/want') -ge 6 && test \$(grep -c '^3|' '$WORK/want') -ge 6 &&
	       test \$(wc -l <'$WORK/want') -eq \$(wc -l <'$WORK/got') &&
	       paste -d'#' '$WORK/want' '$WORK/got' | awk -F'#' '{
		split(\$1, a, \"|\"); split(\$2, b, \"|\")
		if (a[1] != b[1] || a[2] != b[2]) bad = 1
		split(a[3], x, \" \"); split(b[3], y, \" \")
		if (x[1] != y[1]) bad = 1
		for (i = 2; i <= 4; i++) if (x[i] - y[i] > 0.001 || y[i] - x[i] > 0.001) bad = 1
	       } END { exit bad }'"
# (the runs in their own rows: slow's TTFT, 50 ms against 5, up by more
# than twin's, whatever a busy host adds to both)
check "... slow's TTFT P50 up by over 100% at both levels, and by more than twin's" \
	awk -F'|' '$2 ~ /^TTFT P50 C=[12]$/ { split($3, a, " "); ch[$1, $2] = a[2] }
		END { for (c = 1; c <= 2; c++) { k = "TTFT P50 C=" c
			if (!(ch[2, k] > 100 && ch[2, k] > ch[3, k])) exit 1 } }' "$WORK/got"
check "... nothing of the run with no level in common (no C=4, no run 4)" sh -c \
	"! grep -q 'C=4' '$WORK/p/compare_forest.dat' && ! grep -q '^# run 4' '$WORK/p/compare_forest.dat'"
# a row of the figure per judged name; each run's point in its own row
n_names=$(cut -d'|' -f2 "$WORK/got" | sort -u | wc -l)
check "one y tic per judged number and level ($n_names), each run's point within its row" sh -c "
	test \$(grep -o \"C=[0-9]*' [0-9]*\" '$WORK/p/compare_forest.gp' | wc -l) -eq $n_names &&
	awk '/^# run 2/ { r = 2 } /^# run 3/ { r = 3 }
	     /^[0-9]/ { f = \$1 - int(\$1); if (r == 2 && !(f > 0 && f < 0.5)) bad = 1
	                if (r == 3 && !(f > 0.5)) bad = 1 }
	     END { exit bad }' '$WORK/p/compare_forest.dat'"
check "... the runs' colours as in every figure (slow linetype 2, twin 3), keyed by label" sh -c "
	grep -q 'index [0-9]* using 2:1:3:4 with xerrorbars pt [0-9]* ps 1 lc 2 notitle' '$WORK/p/compare_forest.gp' &&
	grep -q 'index [0-9]* using 2:1:3:4 with xerrorbars pt [0-9]* ps 1 lc 3 notitle' '$WORK/p/compare_forest.gp' &&
	grep -q \"keyentry with linespoints pt 7 ps 1.5 lc 2 title 'slow'\" '$WORK/p/compare_forest.gp' &&
	grep -q \"keyentry with linespoints pt 7 ps 1.5 lc 3 title 'twin'\" '$WORK/p/compare_forest.gp' &&
	for v in \$(sed -n 's/^# run [0-9]*: //p' '$WORK/p/compare_forest.dat' | sort -u); do
		grep -q \"keyentry with points pt [0-9]* ps 1.5 lc rgb '#000000' title '\$v'\" '$WORK/p/compare_forest.gp' || exit 1
	done &&
	grep -q \"slow: P50\" '$WORK/p/latency_ttft.gp' && grep -q 'lc 2 lw 2 pt 7 title .slow: P50' '$WORK/p/latency_ttft.gp'"
# the x axis's labels a round step apart, at most six intervals over every
# interval drawn (gnuplot's own choice sets up to ten, which touch at 8
# points a column wide): slow's +900% and twin's few percent in one axis
check "... x tics a round step, at most six intervals over every drawn interval" sh -c "
	step=\$(sed -n 's/^set xtics \([0-9.e+]*\)\$/\1/p' '$WORK/p/compare_forest.gp') &&
	test -n \"\$step\" &&
	awk -v s=\"\$step\" '/^[0-9]/ { if (!n++ || \$3 < lo) lo = \$3; if (n == 1 || \$4 > hi) hi = \$4 }
		function fl(x) { return x == int(x) ? x : (x < 0 ? int(x) - 1 : int(x)) }
		END { if (lo > 0) lo = 0; if (hi < 0) hi = 0
		      m = s / 10 ^ int(log(s) / log(10) + 1e-9)
		      exit !(n && hi - lo > 100 && (m == 1 || m == 2 || m == 2.5 || m == 5) &&
		             -fl(-hi / s) - fl(lo / s) <= 6) }' '$WORK/p/compare_forest.dat'"
if have gnuplot; then
	check "... rendered: both runs' colours drawn (#D55E00, #009E73)" sh -c \
		"grep -q \"stroke='rgb(213,  94,   0)'\" '$WORK/p/compare_forest.svg' &&
		 grep -q \"stroke='rgb(  0, 158, 115)'\" '$WORK/p/compare_forest.svg'"
else
	skip "... rendered" "gnuplot not installed"
fi
finish
