#!/bin/sh
# make bench's floor (tests/bench/bench_floor.c): both of its modes run
# their two processes over real loopback connections and report what they
# measured; the closed loop's timing obeys causality (no event before its
# due time, so no negative TTFT error and no P99 gap under the ITL).
. tests/cli/lib.sh

FLOOR=$(pwd)/${O:-build}/bench/bench_floor

"$FLOOR" stream 4 20 2000 180 >"$WORK/stream" 2>"$WORK/err"
check "stream exits 0" test $? -eq 0
check "stream counts every event of every connection" grep -q "^events 80 writer_cpu_s [0-9.]* reader_cpu_s [0-9.]*$" "$WORK/stream"

"$FLOOR" loop 8 24 20000 5000 10 >"$WORK/loop" 2>"$WORK/err"
check "loop exits 0" test $? -eq 0
check "loop counts every request and event" grep -q "^requests 24 events 240 writer_cpu_s [0-9.]* ttft_error_ms [0-9.-]* gap_p99_ms [0-9.]* reader_cpu_s [0-9.]*$" "$WORK/loop"
check "no first event comes before its TTFT" awk '{ exit !($8 >= 0) }' "$WORK/loop"
check "the P99 gap is at least the ITL" awk '{ exit !($10 >= 5) }' "$WORK/loop"

"$FLOOR" loop 8 0 20000 5000 10 >/dev/null 2>"$WORK/err"
check "zero requests is a usage error" test $? -eq 2
check "which says how to call it" grep -q "^usage: bench_floor stream" "$WORK/err"
"$FLOOR" 4 20 2000 180 >/dev/null 2>&1
check "the old call without a mode is a usage error" test $? -eq 2
