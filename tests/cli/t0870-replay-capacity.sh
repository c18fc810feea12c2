#!/bin/sh
# replay --find-capacity on the batching mock, whose capacity follows from
# its formula: TTFT = ttft x (1 + slope x (C - 1)) with C requests in
# flight, here 20 ms x (1 + 0.2 (C - 1)) = 16 + 4C ms, so an SLO of
# TTFT <= 82 ms holds up to C = 16 (80 ms) and not from C = 17 (84 ms).
# The search must bracket that, leave every probe as a level of the results
# file, and say so again in analyze report; an SLO no load meets and one
# every load meets end the search at either end; an interrupted search
# keeps the levels it finished.
. tests/cli/lib.sh

tb record synth -n 40 --input-tokens 16 --output-tokens 3 --seed 1 -o "$WORK/t.jsonl.gz" 2>/dev/null
start_mock --profile batching --slope 0.2 --ttft-ms 20 --itl-ms 2
search() {  # name, then replay flags
	name=$1
	shift
	tb replay -e "$ENDPOINT" --find-capacity=concurrency --slo-share 0.9 --confidence 0.9 -q \
		--label "$name" -o "$WORK/$name.jsonl.gz" "$@" "$WORK/t.jsonl.gz" \
		>/dev/null 2>"$WORK/$name.err"
	echo $? >"$WORK/$name.rc"
}
search known --slo ttft=82ms --capacity-range 1:64 --capacity-tolerance 0
line=$(grep 'capacity: C=[0-9]* meets the SLO, C=' "$WORK/known.err")
pass=$(echo "$line" | sed 's/.*capacity: C=\([0-9]*\) meets.*/\1/')
fail=$(echo "$line" | sed 's/.* C=\([0-9]*\) \(does not\|is undecided\).*/\1/')
check "the search ends, exit 0, with a bracket ($line)" sh -c "[ \$(cat '$WORK/known.rc') = 0 ] && [ -n '$pass' ]"
# Load on the machine only adds latency, so the search may stop lower but
# never higher than the formula; within 2 of it in the timing tier (a
# quiet host), anywhere below it elsewhere.
lowest=1
[ -n "$TIMING" ] && lowest=14
check "... at the formula's capacity: C=16 meets, C=17 does not (found C=$pass, C=$fail)" \
	sh -c "[ '$pass' -le 16 ] && [ '$pass' -ge $lowest ] && [ '$fail' = \$(($pass + 1)) ]"
levels=$(zcat "$WORK/known.jsonl.gz" | grep -o '"level":[0-9]*' | sort -u | wc -l)
probes=$(grep -c 'capacity: C=[0-9]*: ' "$WORK/known.err")
check "every probe is a level of the results file ($probes probes, $levels levels)" \
	sh -c "[ $probes -ge 6 ] && [ $probes = $levels ]"
check "... each judged on its requests' share within the SLO, with its bounds" \
	grep -q "capacity: C=$pass: [0-9]* of [0-9]* requests within the SLO (.*90% bounds .*): meets" "$WORK/known.err"

# Each look goes on through the trace where the last one ended (each had
# resent the trace's first requests), under salts of its own.
zcat "$WORK/known.jsonl.gz" | sed -n '2,$p' | grep '"warmup":false' >"$WORK/known.recs"
check "the looks send every request of the trace, none twice under one salt" sh -c "
	[ \$(grep -o '\"trace_id\":[0-9]*' '$WORK/known.recs' | sort -u | wc -l) = 40 ] &&
	[ \$(sed 's/.*\"trace_id\":\([0-9]*\).*\"salt\":\"\([^\"]*\)\".*/\1 \2/' '$WORK/known.recs' | sort -u | wc -l) = \$(wc -l <'$WORK/known.recs') ]"

tb analyze load --db "$WORK/c.db" "$WORK/known.jsonl.gz" >/dev/null 2>&1
tb analyze report --db "$WORK/c.db" --run known >"$WORK/report.txt" 2>&1
curve() {
	grep -q '^load curve (replay --find-capacity, SLO ttft=82ms for 90.0% of requests' "$WORK/report.txt" &&
	[ "$(sed -n '/^load curve/,/^capacity/p' "$WORK/report.txt" | grep -c '^ *[0-9].* \(meets\|fails\|undecided\) ')" = "$probes" ]
}
check "analyze report: the load curve, each level's verdict" curve
check "... and the capacity with its interval, as replay found it" \
	grep -q "^capacity: C=$pass meets the SLO (.*\(), C=$fail does not (.*); the capacity lies in \[$pass, $fail)\|; C=$fail is undecided\)" \
	"$WORK/report.txt"

# Goodput against another SLO than the search's (--slo ttft=40ms): the
# text table, its goodput line, CSV and JSON count the same requests
# against it and name it; the load curve keeps judging the search's own.
# Without --slo, every format counts against the search's SLO.
good_cells() {  # the text table's "Good req/s" column, a line per level
	awk 'function cell(l, e,  s) { s = substr(l, 1, e); sub(/.* /, "", s); return s }
		$1 == "C" && !g { g = index($0, "Good req/s") + 9; next }
		g && /^ *[0-9]+ / { print cell($0, g); next }
		g { exit }' "$1"
}
csv_col() {  # file, column: its cells, a line per row
	awk -F, -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		{ print $c }' "$1"
}
slo_formats() {  # --slo flag or nothing, expected slo
	# shellcheck disable=SC2086
	tb analyze report --db "$WORK/c.db" --run known $1 >"$WORK/g.txt" 2>/dev/null &&
	tb analyze report --db "$WORK/c.db" --run known $1 --format csv >"$WORK/g.csv" 2>/dev/null &&
	tb analyze report --db "$WORK/c.db" --run known $1 --format json >"$WORK/g.json" 2>/dev/null &&
	grep -q "^goodput: share of requests that succeeded within TTFT <= $2 ms" "$WORK/g.txt" &&
	grep -q "^load curve (replay --find-capacity, SLO ttft=82ms" "$WORK/g.txt" &&
	csv_col "$WORK/g.csv" good_req_s >"$WORK/g.col" &&
	good_cells "$WORK/g.txt" | paste - "$WORK/g.col" |
		awk '{ d = $1 - $2 } d > 0.0051 || d < -0.0051 { bad = 1 } END { exit bad || NR == 0 }' &&
	[ "$(csv_col "$WORK/g.csv" slo | sort -u)" = "ttft=${2}ms" ] &&
	[ "$(grep -o '"good_req_s": [0-9.]*' "$WORK/g.json" | cut -d' ' -f2)" = "$(cat "$WORK/g.col")" ] &&
	[ "$(good_cells "$WORK/g.txt" | wc -l)" = "$probes" ]
}
check "analyze report --slo ttft=40ms: text, CSV and JSON show the same goodput, named" \
	slo_formats "--slo ttft=40ms" 40
check "... and without --slo, all three against the search's SLO" slo_formats "" 82

search none --slo ttft=1ms --capacity-range 1:64
check "an SLO no load meets: C=1 fails, the search ends there" sh -c \
	"[ \$(cat '$WORK/none.rc') = 0 ] && grep -q 'capacity: no C meets the SLO, not even C=1 (1 probes' '$WORK/none.err'"
search every --slo ttft=10s --capacity-range 1:8
check "an SLO every load meets: 1, 2, 4, 8 all meet it" sh -c \
	"[ \$(cat '$WORK/every.rc') = 0 ] &&
	 grep -q 'capacity: every C searched meets the SLO, up to C=8 (4 probes' '$WORK/every.err'"

# interrupted after its first probes: those levels stay, readable (not
# through tb(): $! must be replay itself, which takes the signal)
$VG "$TB" replay -e "$ENDPOINT" --find-capacity=concurrency --slo ttft=82ms --slo-share 0.9 --confidence 0.9 -q \
	--label cut -o "$WORK/cut.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/cut.err" &
pid=$!
i=0
while ! grep -q 'capacity: C=4:' "$WORK/cut.err" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -INT $pid
wait $pid
rc=$?
tb analyze load --db "$WORK/cut.db" "$WORK/cut.jsonl.gz" >/dev/null 2>&1
tb analyze report --db "$WORK/cut.db" >"$WORK/cut.txt" 2>&1
check "an interrupted search (exit $rc) keeps its finished levels, the file loads" sh -c \
	"[ $rc = 130 ] && grep -q 'search interrupted; the [0-9]* levels finished are in the results file' '$WORK/cut.err' &&
	 grep -q '^capacity: \(every level searched meets the SLO, up to C=[48]\|C=[48] meets the SLO .*; C=[0-9]* is undecided\)' '$WORK/cut.txt'"
for bad in "--find-capacity" "--find-capacity --slo ttft=1ms -c 4" "--slo ttft=1ms" \
	   "--find-capacity --slo ttft=1ms --rate 3" "--find-capacity --slo ttft=1ms --capacity-range 8:4" \
	   "--find-capacity --slo ttft=1ms --slo-share 1.5"; do
	# shellcheck disable=SC2086
	tb replay -e "$ENDPOINT" $bad -o "$WORK/bad.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>&1
	rc=$?
	check "refused with exit 2: $bad" sh -c "[ $rc = 2 ] && [ ! -e '$WORK/bad.jsonl.gz' ]"
done
stop_mock

# analyze plot: load_curve, latency against achieved load, SLO and capacity marked
tb analyze plot --db "$WORK/c.db" --out "$WORK/plots" >/dev/null 2>&1
# The limit is drawn thick and named as the one exceeded where the search
# failed (at the SLO's share: the failing level's P90). On a busy host the
# failing level's share can sit at 90% (left undecided, or failed with its
# P90 at the limit), where it exceeded none: the timing tier asks for the
# thick line, elsewhere the line itself.
exceeded="82.000 with lines .* lw 3 title 'SLO TTFT 82 ms (exceeded where the search failed)'"
case $line in *"is undecided"*) exceeded="" ;; esac
[ -n "$TIMING" ] || exceeded=""
[ -n "$exceeded" ] || exceeded="82.000 with lines .* title 'SLO TTFT 82 ms"
lc() {
	gp=$WORK/plots/load_curve.gp
	[ "$(grep -c '^[0-9.]* [0-9.?]* [0-9.?]* [0-9.?]* [0-9]* [01] [0-9.?]* [0-9.?]*$' "$WORK/plots/load_curve.dat")" = "$probes" ] &&
	grep -q "^set label 1 'capacity C=$pass' at " "$gp" &&
	grep -q "^set label 2 'fails C=$fail' at " "$gp" &&
	grep -q "$exceeded" "$gp"
}
check "analyze plot: load_curve, one point per level, the SLO and C=$pass / C=$fail marked" lc
if ! lc; then   # what it drew, for the reason of a failure
	sed 's/^/#   dat: /' "$WORK/plots/load_curve.dat"
	grep "^set label\|82.000 with" "$WORK/plots/load_curve.gp" | sed 's/^/#   gp: /'
fi
# A search that fails on TPOT (the batching mock's gaps grow with the
# streams in flight: 4 ms x (1 + 0.2 (C - 1)), over 8 ms from C=6): load_curve
# draws the TPOT limit with a P99 TPOT curve of its own and marks it, not
# the TTFT limit, as the one that failed. (With 2-ms gaps and a 3-ms limit a
# sanitizer build on a busy host read 3.85 ms at C=1, and no C met it: the
# gaps are 4 ms and the limit twice that.)
start_mock --profile batching --slope 0.2 --ttft-ms 20 --itl-ms 4
search bytpot --slo ttft=2s,tpot=8ms --capacity-range 1:32 --capacity-tolerance 0
tb analyze load --db "$WORK/t.db" "$WORK/bytpot.jsonl.gz" 2>/dev/null
tb analyze plot --db "$WORK/t.db" --out "$WORK/tplots" >/dev/null 2>&1
# On a busy host (a sanitizer build, four busy loops) the client's own
# delays blur the edge: the search can end on a level the confidence leaves
# undecided, whose P90 TPOT lies within the limit (92% of 400 once), and
# no limit was exceeded there; or no C meets it at all. Said as a skip.
if grep -q "not even C=1\|is undecided (counted as not)" "$WORK/bytpot.err"; then
	skip "load_curve of a search that failed on TPOT" \
		"the search did not end on a level that failed the SLO: $(grep -o 'capacity: [^(]*' "$WORK/bytpot.err" | tail -1)"
else
	check "load_curve of a search that failed on TPOT: its P99 TPOT curve, its limit marked, TTFT's not" \
		sh -c "grep -q \"using 1:8 with linespoints .* title 'bytpot: P99 TPOT'\" '$WORK/tplots/load_curve.gp' &&
		       grep -q \"8.000 with lines .* lw 3 title 'SLO TPOT 8 ms (exceeded where the search failed)'\" '$WORK/tplots/load_curve.gp' &&
		       grep -q \"2000.000 with lines .* lw 1 title 'SLO TTFT 2000 ms'\" '$WORK/tplots/load_curve.gp'"
	check "... the P99 TPOT of each level in load_curve.dat above the limit where it failed" \
		awk '/^[0-9]/ && $6 == 0 && $7 > 8 { f = 1 } END { exit !f }' "$WORK/tplots/load_curve.dat"
fi
if have gnuplot; then
	check "... rendered by gnuplot" sh -c "[ -s '$WORK/plots/load_curve.png' ]"
else
	skip "... rendered by gnuplot" "gnuplot not installed"
fi
finish
