#!/bin/sh
# replay when things go wrong: errors are recorded as data with a class,
# bad input is refused with exit 2, and SIGINT leaves a complete file.
. tests/cli/lib.sh

tb record synth -n 4 --input-tokens 8 --output-tokens 5 -o "$WORK/trace.jsonl.gz" 2>/dev/null

# Nothing listens on the port: every request fails to connect, exit 1.
start_mock
port=$(cat "$WORK/port")
stop_mock
tb replay --endpoint "http://127.0.0.1:$port" -c 2 -n 4 --warmup 0 \
	-o "$WORK/refused.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>"$WORK/err"
check "every request failing is exit 1" test $? -eq 1
check "... and says so" grep -q "every request failed" "$WORK/err"
check "... each recorded with class 'connect'" \
	test "$(zcat "$WORK/refused.jsonl.gz" | grep -c '"error":"connect"')" -eq 4

# An HTTP error status is recorded with its body; the level goes on
# (--all-requests: a path not for inference is otherwise skipped).
start_mock --ttft-ms 1 --itl-ms 1
zcat "$WORK/trace.jsonl.gz" | sed '3s#"/v1/chat/completions"#"/v1/nope"#' | gzip >"$WORK/mixed.jsonl.gz"
tb replay --endpoint "$ENDPOINT" -c 1 -n 4 --warmup 0 --all-requests \
	-o "$WORK/mixed-run.jsonl.gz" "$WORK/mixed.jsonl.gz" >"$WORK/table" 2>/dev/null
check "some requests failing is still exit 0" test $? -eq 0
check "the 404 is recorded as class 'http' with status and body" sh -c \
	"zcat '$WORK/mixed-run.jsonl.gz' | grep '\"status\":404' | grep -q '\"error\":\"http\".*HTTP 404'"
check "the table counts 3 ok and 1 error" test "$(table_ok_err "$WORK/table" 1)" = "3 1"

# Bad input: exit 2 with a message naming the file.
tb replay --endpoint "$ENDPOINT" -o "$WORK/x.jsonl.gz" "$WORK/refused.jsonl.gz" 2>"$WORK/err"
check "a results file given as trace is exit 2" test $? -eq 2
check "... naming it" grep -q "refused.jsonl.gz' is a results file, not a trace" "$WORK/err"
tb replay --endpoint "$ENDPOINT" -o "$WORK/x.jsonl.gz" "$WORK/missing.jsonl.gz" 2>"$WORK/err"
check "a missing trace is exit 2" test $? -eq 2
check "... with the system's reason" grep -q "cannot open '.*missing.jsonl.gz': No such file or directory" "$WORK/err"
tb replay --endpoint "$ENDPOINT" -c 1,x -o "$WORK/x.jsonl.gz" "$WORK/trace.jsonl.gz" 2>"$WORK/err"
check "a bad concurrency list is exit 2" test $? -eq 2
tb replay --endpoint ftp://x -o "$WORK/x.jsonl.gz" "$WORK/trace.jsonl.gz" 2>/dev/null
check "a non-http endpoint is exit 2" test $? -eq 2
check "no results file was left by refused runs" test ! -e "$WORK/x.jsonl.gz"

# SIGINT: stop issuing, let the 2 requests in flight finish, close the file.
stop_mock
start_mock --ttft-ms 10 --itl-ms 100
tb record synth -n 4 --input-tokens 8 --output-tokens 10 -o "$WORK/slow.jsonl.gz" 2>/dev/null
$VG "$TB" replay --endpoint "$ENDPOINT" -c 2 -n 8 --warmup 0 --quiet \
	-o "$WORK/int.jsonl.gz" "$WORK/slow.jsonl.gz" >"$WORK/table" 2>/dev/null &
pid=$!
i=0
while [ ! -s "$WORK/int.jsonl.gz" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
kill -INT $pid
wait $pid
check "SIGINT exits 130" test $? -eq 130
check "... leaving a complete gzip stream" gzip -t "$WORK/int.jsonl.gz"
check "... holding the 2 requests that were in flight, finished" \
	test "$(zcat "$WORK/int.jsonl.gz" | grep -c '"error":null')" -eq 2
check "... and prints the partial table row" test "$(table_ok_err "$WORK/table" 2)" = "2 0"
finish
