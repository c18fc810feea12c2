#!/bin/sh
# When requests fail, replay says why as it happens (the first kinds, with
# the server's own message) and counts them by class and HTTP status at
# the end; a failed warm-up says why instead of "nan"; report counts the
# statuses, so a 429 storm does not read as a wrong model. A server that
# closes its connections after each answer is named once.
. tests/cli/lib.sh

start_mock --ttft-ms 5 --itl-ms 1 --tokens 4
tb record synth -n 8 -o "$WORK/t.jsonl.gz" 2>/dev/null

tb replay -e "$ENDPOINT" -c 1,2 -n 4 --model wrong --quiet -o "$WORK/w.jsonl.gz" \
	"$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/w.err"
check "a wrong model: exit 1" test $? -eq 1
check "... the first failure told with the server's message" grep -qF \
	'tracebench replay: a warm-up request failed (http, trace request 0): HTTP 404: The model `wrong` does not exist.' "$WORK/w.err"
check "... told once, not once a request" test "$(grep -c 'request failed (' "$WORK/w.err")" -eq 1
check "... the warm-up says why it has no cold-start TTFT, no nan" sh -c \
	"grep -qF 'warm-up: 1 request, no cold-start TTFT: the first failed (HTTP 404: The model' '$WORK/w.err' && ! grep -q nan '$WORK/w.err'"
check "... and the end counts them by class and status" grep -qF \
	'tracebench replay: every request failed: 9 http 404 (HTTP 404: The model `wrong` does not exist.)' "$WORK/w.err"
stop_mock

start_mock --ttft-ms 5 --itl-ms 1 --tokens 4 --fail-every 1 --fail-status 429
tb replay -e "$ENDPOINT" -c 2 -n 6 --quiet --label storm -o "$WORK/s.jsonl.gz" "$WORK/t.jsonl.gz" \
	>/dev/null 2>"$WORK/s.err"
check "a 429 storm: every request failed: 7 http 429" grep -q \
	'^tracebench replay: every request failed: 7 http 429 (HTTP 429: ' "$WORK/s.err"
tb analyze load --db "$WORK/db" "$WORK/s.jsonl.gz" >/dev/null 2>&1
tb analyze report --db "$WORK/db" >"$WORK/s.report" 2>&1
check "... report counts the status: 'C=2: 6 http (HTTP 429 x6)'" \
	grep -qF 'errors by class: C=2: 6 http (HTTP 429 x6)' "$WORK/s.report"
tb analyze report --db "$WORK/db" --format json >"$WORK/s.json" 2>&1
tb analyze report --db "$WORK/db" --format csv >"$WORK/s.csv" 2>&1
check "... and so do its CSV and JSON: \"error_statuses\": \"HTTP 429 x6\"" sh -c \
	"grep -qF '\"error_statuses\": \"HTTP 429 x6\"' '$WORK/s.json' &&
	 grep -q ',HTTP 429 x6,' '$WORK/s.csv'"
stop_mock
# against a run that worked, compare says how the other's requests failed
start_mock --ttft-ms 5 --itl-ms 1 --tokens 4 --fail-every 2 --fail-status 429
tb replay -e "$ENDPOINT" -c 2 -n 6 --quiet --label some -o "$WORK/m.jsonl.gz" "$WORK/t.jsonl.gz" \
	>/dev/null 2>&1
stop_mock
start_mock --ttft-ms 5 --itl-ms 1 --tokens 4
tb replay -e "$ENDPOINT" -c 2 -n 6 --quiet --label good -o "$WORK/g.jsonl.gz" "$WORK/t.jsonl.gz" \
	>/dev/null 2>&1
stop_mock
tb analyze load --db "$WORK/db" "$WORK/g.jsonl.gz" "$WORK/m.jsonl.gz" >/dev/null 2>&1
tb analyze compare --db "$WORK/db" good storm >"$WORK/gs.cmp" 2>&1
check "compare names the statuses of a side where every request failed" sh -c \
	"grep -qF \"C=2: 6 of 6 requests failed in 'storm': 6 http (HTTP 429 x6)\" '$WORK/gs.cmp' &&
	 grep -qF \"C=2: no successful request in 'storm'\" '$WORK/gs.cmp'"
tb analyze compare --db "$WORK/db" good some >"$WORK/gm.cmp" 2>&1
check "... and of one where some failed, above its verdicts" sh -c \
	"grep -qF \"C=2: 3 of 6 requests failed in 'some': 3 http (HTTP 429 x3)\" '$WORK/gm.cmp' &&
	 grep -q Verdict '$WORK/gm.cmp'"
tb analyze compare --db "$WORK/db" good storm --format json >"$WORK/gs.json" 2>&1
check "... its JSON too: \"errors_after\": \"6 http (HTTP 429 x6)\"" \
	grep -qF '"errors_after": "6 http (HTTP 429 x6)"' "$WORK/gs.json"

port=$(free_port)
tb replay -e "http://127.0.0.1:$port" -c 1 -n 2 --quiet -o "$WORK/d.jsonl.gz" "$WORK/t.jsonl.gz" \
	>/dev/null 2>"$WORK/d.err"
check "a dead port: exit 1, 'connect' and libcurl's reason" sh -c \
	"test $? -eq 1 && grep -q '^tracebench replay: every request failed: 3 connect (.*onnect' '$WORK/d.err'"

start_mock --ttft-ms 5 --itl-ms 1 --tokens 4 --fail-every 2 --fail-status 503
tb replay -e "$ENDPOINT" -c 1 -n 4 --quiet -o "$WORK/h.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/h.err"
check "some failed: exit 0, and how many, of which kind" sh -c \
	"test $? -eq 0 && grep -q '^tracebench replay: 2 requests failed: 2 http 503 (HTTP 503: ' '$WORK/h.err'"
stop_mock

# a server that closes its connection after each answer: said once
start_mock --ttft-ms 5 --itl-ms 1 --tokens 4 --close-after-response
tb replay -e "$ENDPOINT" -c 1,4 -n 8 --quiet -o "$WORK/c.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/c.err"
check "a server that closes kept connections: said once, with how many opened a new one" sh -c \
	"test \$(grep -c 'closes kept connections' '$WORK/c.err') -eq 1 &&
	 grep -q 'note: the server closes kept connections: at C=1 8 of 8 requests opened a new one' '$WORK/c.err'"
stop_mock
start_mock --ttft-ms 5 --itl-ms 1 --tokens 4
tb replay -e "$ENDPOINT" -c 1,4 -n 8 --quiet -o "$WORK/k.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/k.err"
check "... and not of one that keeps them" sh -c "! grep -q 'closes kept connections' '$WORK/k.err'"
stop_mock

# a run stopped mid-level: replay says the file is partial, report marks
# the level cut short and those never reached
start_mock --ttft-ms 100 --itl-ms 1 --tokens 4
tb record synth -n 8 --output-tokens 4 -o "$WORK/t4.jsonl.gz" 2>/dev/null
# not through tb(): $! must be replay itself, not a subshell
$VG "$TB" replay -e "$ENDPOINT" -c 1,2 -n 40 --quiet -o "$WORK/i.jsonl.gz" "$WORK/t4.jsonl.gz" \
	>/dev/null 2>"$WORK/i.err" &
pid=$!
i=0
# (its first line on stderr comes once the results file is open)
while ! grep -q 'requests in' "$WORK/i.err" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
# TERM: a background job of a script ignores INT
kill -TERM $pid
wait $pid
check "stopped: exit 143, and said to be partial" sh -c \
	"test $? -eq 143 && grep -q \"stopped by signal 15 during C=1: '$WORK/i.jsonl.gz' holds a partial run\" '$WORK/i.err'"
tb analyze load --db "$WORK/i.db" "$WORK/i.jsonl.gz" >/dev/null 2>&1
tb analyze report --db "$WORK/i.db" >"$WORK/i.report" 2>&1
check "report marks C=1 cut short and C=2 never reached" sh -c \
	"grep -qE '^(interrupted: C=1 has [0-9]+ of 40 requests; nothing measured: C=2|nothing measured: C=1, C=2) \\(the replay was stopped\\)\$' '$WORK/i.report'"
tb analyze report --db "$WORK/i.db" --format markdown >"$WORK/i.md" 2>&1
check "... so does its Markdown" grep -q 'nothing measured: .*C=2 (the replay was stopped)' "$WORK/i.md"
tb analyze report --db "$WORK/i.db" --format csv >"$WORK/i.csv" 2>&1
check "... and its CSV: C=2 a row of 0 of 40 requests, interrupted" sh -c \
	"awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[\$i] = i; next }
		  \$col[\"concurrency\"] == 2 && \$col[\"requests\"] == 0 &&
		  \$col[\"planned_requests\"] == 40 && \$col[\"interrupted\"] == 1 { ok = 1 }
		  END { exit !ok }' '$WORK/i.csv'"
tb analyze report --db "$WORK/i.db" --format json >"$WORK/i.json" 2>&1
check "... and its JSON: \"planned_requests\": 40, \"interrupted\": true" sh -c \
	"test \$(grep -c '\"planned_requests\": 40, \"interrupted\": true' '$WORK/i.json') -ge 1"
stop_mock
finish
