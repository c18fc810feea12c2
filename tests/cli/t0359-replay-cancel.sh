#!/bin/sh
# replay --cancel P:AFTER: a share P of the measured requests, drawn from
# --seed per trace record (the same ones at every level and in a rerun),
# cut after N token events (exactly N received) or a time from their start
# (ended then, with what came by then); recorded as cancelled by intent,
# never as failures, in no statistic, counted apart by replay, report,
# compare and export; the connection of a cut request is closed, its slot
# goes to the next request at once, and the server frees its own (the
# mock's running gauge is back to 0 at the level's end).
. tests/cli/lib.sh

start_mock --ttft-ms 20 --itl-ms 10
tb record synth -n 24 --input-tokens 32 --output-tokens 24 --seed 1 -o "$WORK/t.jsonl.gz" 2>/dev/null

reqs() { zcat "$1" | grep '^{"level"'; }
# the trace ids a results file cancelled at level $2, one a line, sorted
cut_ids() {
	reqs "$1" | grep "^{\"level\":$2," | grep '"error":"cancelled"' |
		grep -o '"trace_id":[0-9]*' | cut -d: -f2 | sort -n | tr '\n' ' '
}

# ---- after N tokens
tb replay -e "$ENDPOINT" -c 1,4 -n 24 --seed 3 --cancel 0.25:tokens:16 -o "$WORK/a.jsonl.gz" \
	"$WORK/t.jsonl.gz" >"$WORK/a.out" 2>"$WORK/a.err"
check "tokens:16: exit 0" test $? -eq 0
n1=$(reqs "$WORK/a.jsonl.gz" | grep '^{"level":1,' | grep -c '"error":"cancelled"')
n4=$(reqs "$WORK/a.jsonl.gz" | grep '^{"level":4,' | grep -c '"error":"cancelled"')
check "... a plausible share of 24 cancelled ($n1; P x n = 6)" within "$n1" 1 14
check "... the same trace requests at C=1 and C=4 ($n4)" \
	test "$(cut_ids "$WORK/a.jsonl.gz" 1)" = "$(cut_ids "$WORK/a.jsonl.gz" 4)"
check "... each chosen one marked \"cancel\":\"tokens:16\", the rest not" sh -c \
	"[ \$(zcat '$WORK/a.jsonl.gz' | grep -c '\"cancel\":\"tokens:16\"') -eq $((n1 + n4)) ] &&
	 zcat '$WORK/a.jsonl.gz' | head -1 | grep -q '\"cancel\":{\"share\":0.25,\"after\":\"tokens:16\",\"seed\":3}'"
reqs "$WORK/a.jsonl.gz" | grep '"error":"cancelled"' >"$WORK/a.cut"
check "... each cut received exactly 16 tokens: a TTFT and 15 gaps" sh -c \
	"[ \$(wc -l <'$WORK/a.cut') -eq $((n1 + n4)) ] &&
	 ! grep -v '\"error_detail\":\"cancelled by --cancel after tokens:16 (tokens)\"' '$WORK/a.cut' | grep -q . &&
	 ! grep -v '\"output_tokens\":16,' '$WORK/a.cut' | grep -q . &&
	 ! grep -q '\"ttft_ns\":null' '$WORK/a.cut' &&
	 ! grep -o '\"itl_us\":\[[0-9,]*\]' '$WORK/a.cut' | awk -F, '{ if (NF != 15) bad = 1 } END { exit !bad }'"
okerr=$(table_ok_err "$WORK/a.out" 1)
cancel=$(table_cell "$WORK/a.out" 1 Cancel)
check "... not counted as failures: Ok Err '$okerr', Cancel $cancel at C=1" sh -c \
	"[ '$okerr' = '$((24 - n1)) 0' ] && [ '$cancel' = $n1 ] && ! grep -q 'request.* failed' '$WORK/a.err' &&
	 grep -qF -- '--cancel cut $((n1 + n4)) requests at their point, 0 chosen ended before it' '$WORK/a.err'"
fresh=$(reqs "$WORK/a.jsonl.gz" | grep '^{"level":1,' | grep -c '"new_connection":true')
check "... the slot's next request opened a fresh connection (the cut one's is closed): $fresh" \
	test "$fresh" -ge $((n1 - 1))

tb replay -e "$ENDPOINT" -c 2 -n 24 --seed 3 --cancel 0.25:tokens:16 -q -o "$WORK/b.jsonl.gz" \
	"$WORK/t.jsonl.gz" >/dev/null 2>&1
check "a rerun with the seed at another C cancels the same requests" \
	test "$(cut_ids "$WORK/a.jsonl.gz" 1)" = "$(cut_ids "$WORK/b.jsonl.gz" 2)"
tb replay -e "$ENDPOINT" -c 2 -n 24 --seed 4 --cancel 0.25:tokens:16 -q -o "$WORK/c.jsonl.gz" \
	"$WORK/t.jsonl.gz" >/dev/null 2>&1
check "... another seed, others" test "$(cut_ids "$WORK/a.jsonl.gz" 1)" != "$(cut_ids "$WORK/c.jsonl.gz" 2)"

# ---- after a time, with the server's metrics
tb replay -e "$ENDPOINT" -c 2 -n 12 --cancel 0.5:150ms --metrics-url "$ENDPOINT/metrics" \
	--metrics-interval 100ms -q -o "$WORK/m.jsonl.gz" "$WORK/t.jsonl.gz" >"$WORK/m.out" 2>"$WORK/m.err"
check "150ms: exit 0" test $? -eq 0
e2e=$(reqs "$WORK/m.jsonl.gz" | grep '"error":"cancelled"' | grep -o '"e2e_ns":[0-9]*' | cut -d: -f2 |
	awk '{ ms = $1 / 1e6; if (!n++ || ms < lo) lo = ms; if (ms > hi) hi = ms } END { print n + 0, lo + 0, hi + 0 }')
read -r cut lo hi <<EOF
$e2e
EOF
ok=0
[ "$cut" -ge 1 ] && within "$lo" 149.9 1e15 && within_time "$hi" 149.9 $((180 * SLACK)) $((2000 * SLACK)) &&
	ok=1
check "... $cut of 12 cut, each E2E from 150 ms: $lo to $hi ms$UPPER_NOTE" test $ok = 1
reqs "$WORK/m.jsonl.gz" | grep '"error":"cancelled"' >"$WORK/m.cut"
check "... each with the TTFT and the tokens that came by then" sh -c \
	"! grep -q '\"ttft_ns\":null' '$WORK/m.cut' && ! grep -q '\"output_tokens\":0,' '$WORK/m.cut' &&
	 ! grep -v '\"error_detail\":\"cancelled by --cancel after 150ms (time)\"' '$WORK/m.cut' | grep -q ."
# the mock's running requests, at the level's end scrape
running_end=$(zcat "$WORK/m.jsonl.gz" | grep '^{"type":"metrics","source":"http' | grep '"at":"level_end"' |
	grep -o 'num_requests_running{model_name=\\"mock\\"}":[0-9]*' | cut -d: -f2)
check "... the server freed every slot: running $running_end at the level's end" test "$running_end" = 0
tb analyze load --db "$WORK/db" "$WORK/m.jsonl.gz" "$WORK/a.jsonl.gz" >/dev/null 2>&1
mlabel=$(zcat "$WORK/m.jsonl.gz" | head -1 | grep -o '"label":"[^"]*"' | cut -d'"' -f4)
tb analyze report --db "$WORK/db" --run "$mlabel" >"$WORK/m.report" 2>&1
sed -n '/^server metrics/,/^gauges/p' "$WORK/m.report" >"$WORK/m.server"
check "... report shows it: Running (end) 0 at C=2" \
	test "$(table_cell "$WORK/m.server" 2 '(end)')" = 0

# the slot goes at once: 8 requests each cut at 100 ms take some 0.8 s, not
# the 8 x 1.02 s they would take whole (a busy host only adds to both: the
# bound is the whole answers' least)
tb replay -e "$ENDPOINT" -c 1 -n 8 --max-tokens 100 --cancel 1:100ms -q --format csv -o "$WORK/s.jsonl.gz" \
	"$WORK/t.jsonl.gz" >"$WORK/s.csv" 2>"$WORK/s.err"
check "P = 1: exit 0, not 'every request failed'" sh -c \
	"[ $? -eq 0 ] && ! grep -q 'request.* failed' '$WORK/s.err'"
wall=$(csv_field "$WORK/s.csv" wall_s 1)
check "... the next request goes when one is cut: 8 in $wall s (0.8 to under 8.16, 8 whole answers)" \
	within "$wall" 0.8 8.15
got="$(csv_field "$WORK/s.csv" cancelled 1) $(csv_field "$WORK/s.csv" errors 1) $(csv_field "$WORK/s.csv" ok 1)"
check "... CSV: cancelled, errors, ok: $got" test "$got" = "8 0 0"

# a point after every answer cuts nothing: said, not silently measured
tb replay -e "$ENDPOINT" -c 1 -n 4 --max-tokens 4 --cancel 1:60s -q -o "$WORK/late.jsonl.gz" \
	"$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/late.err"
check "a point (60s) after every answer: exit 0, a note that nothing was cut (and none where some were)" sh -c \
	"[ $? -eq 0 ] && grep -q 'note: --cancel.s point (60000ms) came after every chosen request had ended' '$WORK/late.err' &&
	 ! grep -q 'came after every' '$WORK/a.err'"

# ---- analyze: report, export, compare count them apart
label=$(zcat "$WORK/a.jsonl.gz" | head -1 | grep -o '"label":"[^"]*"' | cut -d'"' -f4)
tb analyze report --db "$WORK/db" --run "$label" >"$WORK/a.report" 2>&1
okerr=$(table_ok_err "$WORK/a.report" 1)
cancel=$(table_cell "$WORK/a.report" 1 Cancel)
check "report: Cancel $cancel beside Ok Err '$okerr' at C=1" \
	test "$cancel $okerr" = "$n1 $((24 - n1)) 0"
check "... and a line of what --cancel cut per level" grep -qF \
	"cancelled by replay --cancel 0.25:tokens:16 (seed 3): C=1: $n1 cut; C=4: $n4 cut; neither failures" \
	"$WORK/a.report"
tb analyze report --db "$WORK/db" --run "$label" --format csv >"$WORK/a.csv" 2>&1
got="$(csv_field "$WORK/a.csv" cancelled 1) $(csv_field "$WORK/a.csv" errors 1) $(csv_field "$WORK/a.csv" ok 1)"
check "... the tokens run's CSV at C=1: cancelled, errors, ok: $got" test "$got" = "$n1 0 $((24 - n1))"
tb analyze export --db "$WORK/db" --run "$label" >"$WORK/a.export" 2>&1
check "export: a cancel column, tokens:16 on each chosen request" sh -c \
	"head -1 '$WORK/a.export' | grep -q ',cancel,model,client_issue_ms,client_read_ms\$' &&
	 [ \$(grep -c ',cancelled,.*,tokens:16,[^,]*,[^,]*,[^,]*\$' '$WORK/a.export') -eq $((n1 + n4)) ]"
tb analyze load --db "$WORK/db" "$WORK/b.jsonl.gz" "$WORK/c.jsonl.gz" >/dev/null 2>&1
lb=$(zcat "$WORK/b.jsonl.gz" | head -1 | grep -o '"label":"[^"]*"' | cut -d'"' -f4)
lc=$(zcat "$WORK/c.jsonl.gz" | head -1 | grep -o '"label":"[^"]*"' | cut -d'"' -f4)
nb=$(reqs "$WORK/b.jsonl.gz" | grep -c '"error":"cancelled"')
tb analyze compare --db "$WORK/db" "$lb" "$lc" >"$WORK/cmp" 2>&1
check "compare names them per level, not as failures" sh -c \
	"grep -qF \"C=2: $nb of 24 requests chosen by replay --cancel in '$lb': not failures\" '$WORK/cmp' &&
	 ! grep -q 'requests failed' '$WORK/cmp' && grep -q Verdict '$WORK/cmp'"
stop_mock

# ---- bad specs: one line naming the option, exit 2
for spec in 0:200ms 1.5:200ms 0.1:200 0.1:5min 0.1:tokens:0 0.1:tokens:2.5 0.1 x:1s 0.1:0ms; do
	tb replay -e http://127.0.0.1:9 -n 1 --cancel "$spec" -o "$WORK/bad.jsonl.gz" "$WORK/t.jsonl.gz" \
		>/dev/null 2>"$WORK/bad.err"
	rc=$?
	check "--cancel $spec: exit 2, one line naming --cancel" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l <'$WORK/bad.err') -eq 1 ] &&
		 grep -qF \"invalid value '$spec' for --cancel: \" '$WORK/bad.err' && [ ! -e '$WORK/bad.jsonl.gz' ]"
done
finish
