#!/bin/sh
# A server killed mid-session: the mock process is killed (SIGKILL) while
# three sessions each have a turn streaming. Each of those turns is
# recorded with a transport error class and ends its session; the sessions
# started after the kill fail at their first turn (refused, or reset on a
# connection kept open from before) and end there;
# nothing recorded before is lost, no session sends a turn after its
# failed one, and the results file reads back whole.
. tests/cli/lib.sh

start_mock --ttft-ms 5 --itl-ms 40
# three turns of 20 tokens: about 0.8 s a turn
tb record synth -n 15 --turns 3 --input-tokens 5 --output-tokens 20 -o "$WORK/s.jsonl.gz" 2>/dev/null
tb replay -e "$ENDPOINT" -c 3 -n 5 --warmup 0 --quiet --timeout 30 -o "$WORK/r.jsonl.gz" "$WORK/s.jsonl.gz" \
	>/dev/null 2>"$WORK/r.err" &
replay=$!
# the kill comes when the mock has finished the three turns 0 and has the
# three turns 1 streaming (its /metrics says so), however loaded the host
metric() { curl -s "$ENDPOINT/metrics" | grep "^vllm:$1" | sed 's/.* //'; }
i=0
until [ "$(metric 'request_success_total{finished_reason="length"')" = 3 ] &&
	[ "$(metric num_requests_running)" = 3 ] || [ $i -ge 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
kill -9 "$MOCK_PID"
wait "$MOCK_PID" 2>/dev/null
MOCK_PID=""
start=$(date +%s)
wait "$replay"
rc=$?
check "replay ends soon after the server dies (exit $rc, not a crash)" sh -c \
	"test $rc -lt 128 && test $(($(date +%s) - start)) -lt 10"

# fields FILE KEY...: the values of KEY... of every record, one a line.
requests_of "$WORK/r.jsonl.gz" | awk '{ s = "-"; t = "-"; e = "-"
	if (match($0, /"session":[0-9]+/)) s = substr($0, RSTART + 10, RLENGTH - 10)
	if (match($0, /"turn":[0-9]+/)) t = substr($0, RSTART + 7, RLENGTH - 7)
	if (match($0, /"error":"[a-z]+"/)) e = substr($0, RSTART + 9, RLENGTH - 10)
	else if (index($0, "\"error\":null")) e = "ok"
	print s, t, e }' | sort >"$WORK/rec"
check "the three sessions in flight: turn 0 ok, turn 1 failed as transfer or incomplete, no turn 2" \
	test "$(awk '$1 <= 2' "$WORK/rec" | sed 's/incomplete/transfer/' | tr '\n' ',')" = "0 0 ok,0 1 transfer,1 0 ok,1 1 transfer,2 0 ok,2 1 transfer,"
# (on a new connection: refused; on one kept open from before: reset)
check "the sessions started after the kill: their first turn fails (connect or transfer), nothing after it" \
	test "$(awk '$1 > 2' "$WORK/rec" | sed 's/ transfer$/ connect/' | tr '\n' ',')" = "3 0 connect,4 0 connect,"
check "no session sends a turn after a failed one" \
	awk '{ if (($1 in failed) && $2 > failed[$1]) bad++; if ($3 != "ok") failed[$1] = $2 }
		END { exit bad }' "$WORK/rec"
tb analyze load --db "$WORK/k.db" "$WORK/r.jsonl.gz" >/dev/null 2>"$WORK/load.err"
check "the results file reads back whole (analyze load: 8 requests, 5 failed, nothing dropped)" sh -c \
	"test \"\$(sqlite3 '$WORK/k.db' 'select count(*) || \",\" || sum(error is not null) from requests')\" = '8,5' &&
	 ! grep -qi 'drop\|truncat\|damage' '$WORK/load.err'"
finish
