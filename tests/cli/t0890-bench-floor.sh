#!/bin/sh
# make bench's floor (tests/bench/bench_floor.c): each of its modes runs
# over real loopback connections and reports what it measured; the closed
# loop's timing obeys causality (no event before its due time, so no
# negative TTFT error and no P99 gap under the ITL), with the raw reader,
# with libcurl as the reader, and with libcurl against a real mock; and
# the wake-ups of a thread for a timer and for a socket's data.
. tests/cli/lib.sh

FLOOR=$(pwd)/${O:-build}/bench/bench_floor

"$FLOOR" stream 4 20 2000 180 >"$WORK/stream" 2>"$WORK/err"
check "stream exits 0" test $? -eq 0
check "stream counts every event of every connection" grep -q "^events 80 writer_cpu_s [0-9.]* reader_cpu_s [0-9.]*$" "$WORK/stream"

# The raw reader, then libcurl as the reader, against loop's writer.
for mode in loop curl; do
	"$FLOOR" $mode 8 24 20000 5000 10 >"$WORK/$mode" 2>"$WORK/err"
	check "$mode exits 0" test $? -eq 0
	check "$mode counts every request and event" grep -q "^requests 24 events 240 writer_cpu_s [0-9.]* ttft_error_ms [0-9.-]* gap_p99_ms [0-9.]* reader_cpu_s [0-9.]* wall_s [0-9.]*$" "$WORK/$mode"
	check "$mode: no first event comes before its TTFT" awk '{ exit !($8 >= 0) }' "$WORK/$mode"
	check "$mode: the P99 gap is at least the ITL" awk '{ exit !($10 >= 5) }' "$WORK/$mode"
	check "$mode takes its three waves' time at least (20 ms, then 9 x 5 ms)" awk '{ exit !($14 >= 0.195) }' "$WORK/$mode"
done

start_mock --ttft-ms 20 --itl-ms 5
"$FLOOR" curl 4 8 20000 5000 10 "$ENDPOINT" >"$WORK/curlmock" 2>"$WORK/err"
check "curl against the mock exits 0" test $? -eq 0
check "curl against the mock counts every request" grep -q "^requests 8 events 80 ttft_error_ms [0-9.-]* gap_p99_ms [0-9.]* reader_cpu_s [0-9.]* wall_s [0-9.]*$" "$WORK/curlmock"
check "the mock's first tokens come no sooner than its TTFT" awk '{ exit !($6 >= 0) }' "$WORK/curlmock"
check "nor its tokens closer than its ITL, at P99" awk '{ exit !($8 >= 5) }' "$WORK/curlmock"
stop_mock

"$FLOOR" curl 2 2 20000 5000 10 "http://127.0.0.1:$(free_port)" >/dev/null 2>"$WORK/err"
check "curl against no server fails" test $? -eq 1
check "and says why" grep -q "^bench_floor: Couldn't connect to server" "$WORK/err"

# wake: a timer's lateness and a socket's data's wait, from a child's
# writes 2 to 4 ms apart; a timer cannot fire early, nor data be read
# before it was written
"$FLOOR" wake 50 >"$WORK/wake" 2>"$WORK/err"
check "wake exits 0" test $? -eq 0
check "wake prints a timer's and a socket's P50 and P99 ($(cat "$WORK/wake"))" \
	grep -q "^timer_p50_ms [0-9.]* timer_p99_ms [0-9.]* socket_p50_ms [0-9.]* socket_p99_ms [0-9.]*$" "$WORK/wake"
check "wake: no timer early, no data read before its write, each P99 at least its P50" \
	awk '{ exit !($2 >= 0 && $6 >= 0 && $4 >= $2 && $8 >= $6) }' "$WORK/wake"
"$FLOOR" wake 0 >/dev/null 2>&1
check "wake of no writes is a usage error" test $? -eq 2

"$FLOOR" loop 8 0 20000 5000 10 >/dev/null 2>"$WORK/err"
check "zero requests is a usage error" test $? -eq 2
check "which says how to call it" grep -q "^usage: bench_floor stream" "$WORK/err"
"$FLOOR" 4 20 2000 180 >/dev/null 2>&1
check "the old call without a mode is a usage error" test $? -eq 2
finish
