#!/bin/sh
# Open loop against the mock: a constant rate keeps its schedule, trace
# timing follows the trace's arrival offsets scaled by --speed, and three
# shards started together load as one run holding every request.
. tests/cli/lib.sh

start_mock --ttft-ms 2 --itl-ms 1
tb record synth -n 9 --input-tokens 8 --output-tokens 3 -o "$WORK/trace.jsonl.gz" 2>/dev/null

# Constant rate: 50 req/s for 100 requests, sends within a few ms of schedule.
tb replay --endpoint "$ENDPOINT" --rate 50 -n 100 --warmup 0 --quiet --label rate \
	-o "$WORK/rate.jsonl.gz" "$WORK/trace.jsonl.gz" >"$WORK/rate.table" 2>"$WORK/rate.err"
check "open loop exits 0" test $? -eq 0
check "100 requests recorded" test "$(zcat "$WORK/rate.jsonl.gz" | grep -c '"error":null')" -eq 100
check "it reports target and achieved rate" \
	grep -Eq "open loop \(constant\): target 50.00 req/s, scheduled 50.00 req/s, achieved [0-9]+\.[0-9]+ req/s" \
	"$WORK/rate.err"
achieved=$(sed -n 's/.*achieved \([0-9.]*\) req\/s.*/\1/p' "$WORK/rate.err" | head -1)
check "... achieved $achieved req/s, 49-51$ROUGH_NOTE" roughly "${achieved:-x}" 49 51
check "request k is scheduled k * 20 ms after the first and sent within 10 ms of it$UPPER_NOTE" sh -c "requests_of '$WORK/rate.jsonl.gz' |
	 sed 's/.*\"seq\":\([0-9]*\).*\"sched_ns\":\([0-9]*\),\"send_ns\":\([0-9]*\).*/\1 \2 \3/' |
	sort -n | awk -v lag=$(upper $((10000000 * SLACK))) 'NR == 1 { s0 = \$2 }
		{ if (\$2 - s0 != \$1 * 20000000 || \$3 - \$2 > lag || \$3 < \$2) bad++ }
		END { exit bad || NR != 100 }'"
check "the header says open loop at 50 req/s" sh -c \
	"zcat '$WORK/rate.jsonl.gz' | head -1 | grep -q '\"mode\":\"open\",\"arrival\":\"constant\".*\"rate\":50'"
# -n past the trace's length: the 9 requests go 11.1 times over, each pass
# under a salt of its own (one salt for all let a later pass find the
# earlier one's prompts cached), and replay says so.
check "-n 100 over a trace of 9: no request sent twice under one salt" test "$(zcat "$WORK/rate.jsonl.gz" |
	sed -n '2,$s/.*"trace_id":\([0-9]*\).*"salt":"\([^"]*\)".*/\1 \2/p' | sort -u | wc -l)" -eq 100
check "... and replay says the trace is sent 11.1 times over" \
	grep -q "a level sends 100 requests, the trace holds 9: it is sent 11.1 times over, each pass under a salt of its own" "$WORK/rate.err"

# Without --max-concurrency the connections stay open for later requests:
# at 250 req/s for 400 requests of 150 tokens (about 38 in flight) only
# the ramp opens new ones; a cache of 16, sized to no bound, closed a
# connection as its request ended, and nearly all 400 opened one, a
# handshake inside every TTFT.
tb record synth -n 9 --input-tokens 8 --output-tokens 150 -o "$WORK/long.jsonl.gz" 2>/dev/null
tb replay --endpoint "$ENDPOINT" --rate 250 -n 400 --warmup 0 --quiet \
	-o "$WORK/kept.jsonl.gz" "$WORK/long.jsonl.gz" >/dev/null 2>&1
kept_new=$(zcat "$WORK/kept.jsonl.gz" | grep -c '"new_connection":true')
# The most requests in flight at once, from the file (a send opens, its
# end closes): a kept connection serves again, so little more than that
# need opening, however slow the host made each request (a quiet host
# keeps it near 38); half again and 10 for a request sent in the instant
# before an ending one's connection is back in the pool. (In seconds: an
# awk may print a sum of nanoseconds past 2^31 as 2.14748e+09, which sort
# -n reads as 2.1, and a slow host's run lasts longer than 2.1 s.)
peak=$(requests_of "$WORK/kept.jsonl.gz" | awk '
	function num(k) { if (!match($0, "\"" k "\":-?[0-9]+")) return -1
			  return substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3) + 0 }
	{ s = num("send_ns"); e = num("sched_ns") + num("e2e_ns")
	  printf "%.6f 1\n%.6f -1\n", s / 1e9, e / 1e9 }' |
	sort -n -k1,1 -k2,2n | awk '{ n += $2; if (n > m) m = n } END { print m + 0 }')
check "open loop keeps its connections: $kept_new of 400 requests opened one, $peak in flight at most at once" \
	test "$kept_new" -le $((peak + peak / 2 + 10)) -a "$(zcat "$WORK/kept.jsonl.gz" | grep -c '"error":null')" -eq 400
check "... and on a quiet host at most 100$UPPER_NOTE" within_time "$kept_new" 0 100 400

# Trace timing: arrivals every 200 ms in the trace, replayed twice as fast.
zcat "$WORK/trace.jsonl.gz" | awk '/"id":/ { match($0, /"id":[0-9]+/);
	id = substr($0, RSTART + 5, RLENGTH - 5); sub(/"arrival_ns":0/, "\"arrival_ns\":" id * 200000000) } 1' |
	gzip >"$WORK/timed.jsonl.gz"
tb replay --endpoint "$ENDPOINT" --timing trace --speed 2 --warmup 0 --quiet \
	-o "$WORK/timed-run.jsonl.gz" "$WORK/timed.jsonl.gz" >/dev/null 2>&1
check "trace timing at speed 2: request k is due k * 100 ms after the first" sh -c "requests_of '$WORK/timed-run.jsonl.gz' |
	 sed 's/.*\"trace_id\":\([0-9]*\).*\"sched_ns\":\([0-9]*\).*/\1 \2/' |
	sort -n | awk 'NR == 1 { s0 = \$2 } { if (\$2 - s0 != \$1 * 100000000) bad++ } END { exit bad || NR != 9 }'"

# Records out of arrival order (a proxy writes them as responses end): the
# schedule still follows the arrival offsets.
{ zcat "$WORK/timed.jsonl.gz" | head -1; requests_of "$WORK/timed.jsonl.gz" | sort -r; } |
	gzip >"$WORK/shuffled.jsonl.gz"
tb replay --endpoint "$ENDPOINT" --timing trace --speed 2 --warmup 0 --quiet \
	-o "$WORK/shuffled-run.jsonl.gz" "$WORK/shuffled.jsonl.gz" >/dev/null 2>&1
check "records out of order: request k still due k * 100 ms after the first" sh -c "requests_of '$WORK/shuffled-run.jsonl.gz' |
	 sed 's/.*\"seq\":\([0-9]*\),\"trace_id\":\([0-9]*\).*\"sched_ns\":\([0-9]*\).*/\1 \2 \3/' |
	sort -n | awk 'NR == 1 { s0 = \$3 } { if (\$3 - s0 != \$2 * 100000000 || \$2 != NR - 1) bad++ } END { exit bad || NR != 9 }'"

# Three shards, one label, one start time: analyze sees one run.
start=$(($(date +%s) + 2))
pids=""
for k in 0 1 2; do
	$VG "$TB" replay --endpoint "$ENDPOINT" -c 1 -n 3 --warmup 0 --quiet --label sharded \
		--shard $k/3 --start-at $start -o "$WORK/shard$k.jsonl.gz" "$WORK/trace.jsonl.gz" \
		>/dev/null 2>&1 &
	pids="$pids $!"
done
wait $pids
tb analyze load --db "$WORK/shards.db" "$WORK"/shard*.jsonl.gz 2>/dev/null
check "three shards load as one run" \
	test "$(sqlite3 "$WORK/shards.db" "select count(distinct label) from runs")" = 1
check "... holding each of the 9 trace requests exactly once" \
	test "$(sqlite3 "$WORK/shards.db" "select count(distinct trace_id) || ',' || count(*) from requests")" = "9,9"
check "... from three results files" \
	test "$(sqlite3 "$WORK/shards.db" "select count(*) from runs")" = 3

# A signal while --start-at waits ends the wait at once: no request but
# the warm-up (sent before the start) goes out, the results file is whole,
# exit 130.
: >"$WORK/early.err"
start=$(($(date +%s) + 30))
$VG "$TB" replay --endpoint "$ENDPOINT" --start-at $start -c 1 -n 2 --quiet \
	-o "$WORK/early.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>"$WORK/early.err" &
pid=$!
i=0
while ! grep -q "starting in" "$WORK/early.err" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
t0=$(date +%s.%N)
kill -INT $pid
wait $pid
rc=$?
took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
check "SIGINT during --start-at's wait: exit 130" test $rc -eq 130
check "... after ${took} s, not at the start time 30 s away" within "$took" 0 $((2 * SLACK))
check "... a whole results file with only the warm-up, sent before the start" sh -c \
	"gzip -t '$WORK/early.jsonl.gz' && test \$(requests_of '$WORK/early.jsonl.gz' | wc -l) -eq 1 &&
	 requests_of '$WORK/early.jsonl.gz' | tail -n 1 | grep -q '\"warmup\":true'"

# A --start-at far in the past would write times the reader refuses (past
# 2^53 ns, 104 days): refused at the command line, no file written.
tb replay -e "$ENDPOINT" --rate 50 -n 2 --start-at $(($(date +%s) - 200 * 86400)) --quiet \
	-o "$WORK/old.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>"$WORK/old.err"
check "--start-at 200 days ago: exit 2, said, nothing written" sh -c \
	"test $? -eq 2 && grep -q 'start-at is more than a day in the past' '$WORK/old.err' && test ! -e '$WORK/old.jsonl.gz'"
finish
