#!/bin/sh
# The README's demo, shortened (50 tokens per request instead of 500):
# sweep table for C=1..16, a report, and a rendered PNG.
. tests/cli/lib.sh

DEMO_OUT="$WORK/demo" DEMO_TOKENS=50 sh scripts/demo.sh >"$WORK/out" 2>"$WORK/err"
check "the demo exits 0" test $? -eq 0
# The sweep table: the Markdown table under the header with "Agg tok/s"
# (the report has others, the latency and the time-split tables, after it).
awk '/^\| C \| Agg tok\/s \|/ { on = 1 } on && !/^\|/ { exit } on' "$WORK/out" >"$WORK/sweep"
check "the sweep table has a row for each of C=1,2,4,8,16" \
	test "$(grep -Ec '^\| (1|2|4|8|16) \|' "$WORK/sweep")" -eq 5
check "every request succeeded (no errors column above 0)" \
	awk -F'|' '$2 == " C " { for (i = 1; i <= NF; i++) if ($i == " Err ") e = i }
		e && $2 ~ /^ [0-9]+ $/ { n++; if ($e + 0 != 0) bad = 1 } END { exit bad || n != 5 }' "$WORK/sweep"
check "aggregate tok/s rises from C=1 to C=16" sh -c "grep -E '^\| (1|16) \|' '$WORK/sweep' |
	awk -F'|' 'NR == 1 { a = \$3 } NR == 2 { exit !(\$3 > 2 * a) }'"
check "the mock's own timings: a table of where the time went" \
	grep -q "^where the time went (the server's own per-request timings: vllm):" "$WORK/out"
check "the cold start is reported" grep -q "cold-start TTFT 1[0-9][0-9][0-9]" "$WORK/out"
if have gnuplot; then
	check "the plot is a PNG" sh -c "head -c 8 '$WORK/demo/plots/scaling.png' | od -An -c | grep -q 'P   N   G'"
else
	skip "the plot is a PNG" "gnuplot not installed"
fi
check "the plot has its gnuplot script and data beside it" \
	test -s "$WORK/demo/plots/scaling.gp" -a -s "$WORK/demo/plots/scaling.dat"
check "the HTML report is there, one page with its figures inline" sh -c \
	"head -n 1 '$WORK/demo/report.html' | grep -qx '<!DOCTYPE html>' && grep -q 'id=\"fig-scaling\"' '$WORK/demo/report.html'"
finish
