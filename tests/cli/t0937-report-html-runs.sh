#!/bin/sh
# analyze report --format html of four runs: the first compared with each
# other under one heading per pair (compare's own), a run with no level in
# common said "not compared" under its heading, and the forest plot of
# every run against the first among the figures, drawn by a real browser
# with the network off, each run in its own colour.
. tests/cli/lib.sh

tb record synth -n 8 -o "$WORK/t.jsonl.gz" 2>/dev/null
start_mock --ttft-ms 5 --itl-ms 1 --tokens 6
fast=$ENDPOINT
start_mock --ttft-ms 15 --itl-ms 1 --tokens 6
for r in base slow twin; do
	e=$fast
	[ "$r" = slow ] && e=$ENDPOINT
	tb replay -e "$e" -c 1 -n 8 --quiet --label "$r" -o "$WORK/$r.jsonl.gz" \
		"$WORK/t.jsonl.gz" >/dev/null 2>&1
done
tb replay -e "$fast" -c 2 -n 8 --quiet --label apart -o "$WORK/apart.jsonl.gz" \
	"$WORK/t.jsonl.gz" >/dev/null 2>&1
stop_mock
for r in base slow twin apart; do
	tb analyze load --db "$WORK/db" "$WORK/$r.jsonl.gz" >/dev/null 2>&1
done
tb analyze report --db "$WORK/db" --format html >"$WORK/r.html" 2>"$WORK/err"
check "exit 0, nothing on stderr" sh -c "test $? -eq 0 && ! test -s '$WORK/err'"
sed -n '/<h2 id="compare">/,/<h2 id="figures">/p' "$WORK/r.html" >"$WORK/cmp"
for r in slow twin apart; do
	check "base against $r: one heading" \
		test "$(grep -c "^<h3>compare 'base' (before) with '$r' (after)</h3>$" "$WORK/cmp")" -eq 1
done
check "three headings in all, none straight after another" sh -c \
	"test \$(grep -c '^<h3>' '$WORK/cmp') -eq 3 &&
	 ! awk '/^<h3>/ && prev ~ /^<h3>/ { bad = 1 } { prev = \$0 } END { exit !bad }' '$WORK/cmp'"
check "the run with no common level: said under its heading, no table" sh -c \
	"grep -A1 \"^<h3>compare 'base' (before) with 'apart' (after)</h3>\" '$WORK/cmp' |
	 grep -q '^<p class=\"note\">not compared: '"
check "... the others' verdict tables (two)" \
	test "$(grep -c '<th>Verdict</th>' "$WORK/cmp")" -eq 2
if ! have gnuplot; then
	skip_all "the forest plot of every run against the first" "gnuplot not installed"
fi
sed -n '/^<figure id="fig-compare_forest">/,/^<\/figure>/p' "$WORK/r.html" >"$WORK/forest"
check "the forest plot of every run against the first, inline" sh -c \
	"grep -q '^<svg' '$WORK/forest' && grep -q '>Each run against base (95% intervals)<' '$WORK/forest' &&
	 grep -q '>TTFT P50 C=1<' '$WORK/forest' && grep -q '>slow<' '$WORK/forest' && grep -q '>twin<' '$WORK/forest' &&
	 ! grep -q '>apart<' '$WORK/forest'"
check "... at its printed size (504 units wide: a 3.5-in column, 8-point text)" \
	grep -q '^ width="504" height="[0-9]*"$' "$WORK/forest"
browser=""
for b in chromium-headless-shell chromium; do have $b && browser=$b && break; done
if [ -n "$browser" ]; then
	net_off="--host-resolver-rules=MAP * ~NOTFOUND --proxy-server=127.0.0.1:9"
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu "$net_off" \
		--dump-dom "file://$WORK/r.html" >"$WORK/dom" 2>/dev/null
	sed -n '/<figure id="fig-compare_forest">/,/<\/figure>/p' "$WORK/dom" >"$WORK/fdom"
	check "... drawn in a real browser ($browser): slow's and twin's colours among its paths" sh -c \
		"grep -q '<path' '$WORK/fdom' && grep -q 'rgb(213,  94,   0)' '$WORK/fdom' &&
		 grep -q 'rgb(  0, 158, 115)' '$WORK/fdom'"
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu "$net_off" --window-size=1200,3000 \
		--screenshot="$WORK/report.png" "file://$WORK/r.html" >/dev/null 2>&1
	check "... and a screenshot (kept as $O/t0937-report.png)" sh -c \
		"test -s '$WORK/report.png' && cp '$WORK/report.png' '$O/t0937-report.png'"
else
	skip "the forest plot in a real browser" "no chromium-headless-shell (scripts/deps.sh --tests)"
fi
finish
