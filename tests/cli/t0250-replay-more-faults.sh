#!/bin/sh
# More server faults, one mock flag each: replay records every request with
# the class the fault deserves (or parses it whole when the server is odd
# but right), the level goes on, and nothing hangs past the timeout.
. tests/cli/lib.sh

tb record synth -n 4 --input-tokens 8 --output-tokens 6 -o "$WORK/trace.jsonl.gz" 2>/dev/null
# The same 4 requests, the 2nd and 4th asking for 2 tokens instead of 6.
zcat "$WORK/trace.jsonl.gz" | sed '/^{"id":[13],/{s/\\"max_tokens\\":6/\\"max_tokens\\":2/;s/"output_tokens":6/"output_tokens":2/;}' |
	gzip >"$WORK/mixed.jsonl.gz"

# run NAME [REPLAY FLAGS]: replays the trace ($TRACE, default the 6-token
# one) against $ENDPOINT at C=2; results in $WORK/NAME.jsonl.gz (also
# unzipped, as NAME.jsonl), the table in NAME.table, the exit code in $RC.
TRACE=$WORK/trace.jsonl.gz
run() {
	name=$1
	shift
	tb replay --endpoint "$ENDPOINT" -c 2 -n 4 --warmup 0 --quiet "$@" \
		-o "$WORK/$name.jsonl.gz" "$TRACE" >"$WORK/$name.table" 2>"$WORK/$name.err"
	RC=$?
	zcat "$WORK/$name.jsonl.gz" >"$WORK/$name.jsonl" 2>/dev/null
}
# count NAME PATTERN: results of run NAME matching the grep pattern.
count() {
	grep -c "$2" "$WORK/$1.jsonl"
}
# The mock must end cleanly (under valgrind: with no leak or bad access).
end_mock() {
	check "$1: the mock exits cleanly" stop_mock
}

# ---- HTTP 500 on every 2nd request
start_mock --ttft-ms 5 --itl-ms 2 --fail-every 2
run http500
check "500 every 2nd request: 2 of 4 recorded as 'http' with status 500 (exit $RC)" sh -c \
	"test $RC -eq 0 && test \$(grep -c '\"status\":500,\"error\":\"http\"' '$WORK/http500.jsonl') -eq 2"
check "the server's error body is kept" \
	grep -q '"error_detail":"HTTP 500: {.*injected by --fail-every.*server_error.*500' "$WORK/http500.jsonl"
check "the other 2 succeed with their 6 tokens, and the table counts 2 ok, 2 errors" sh -c \
	"test \$(grep -c '\"error\":null.*\"output_tokens\":6' '$WORK/http500.jsonl') -eq 2 &&
	 test '$(table_ok_err "$WORK/http500.table" 2)' = '2 2'"
end_mock "500"

# ---- TTFT beyond the timeout: headers and the role chunk, then no token
start_mock --ttft-ms 5 --itl-ms 2 --stall-after 0
t0=$(date +%s%N)
run ttft-stall -n 2 --timeout 1
wall=$(( ($(date +%s%N) - t0) / 1000000 ))
check "first token never came: both recorded as 'timeout', no TTFT, 0 tokens (exit $RC: 1)" sh -c \
	"test $RC -eq 1 &&
	 test \$(grep -c '\"status\":200,\"error\":\"timeout\".*\"ttft_ns\":null.*\"output_tokens\":0' \
	 '$WORK/ttft-stall.jsonl') -eq 2"
e2e=$(sed -n 's/.*"e2e_ns":\([0-9]*\).*/\1/p' "$WORK/ttft-stall.jsonl" | sort -n | tail -1)
check "each ended at the 1 s timeout (longest E2E $((e2e / 1000000)) ms)" \
	within_time "$e2e" 1000000000 $((1000000000 + 500000000 * SLACK)) 10000000000
check "no hang past the timeout: the run took $wall ms (2 at a time, 1 s each)" \
	within_time "$wall" 1000 $((1000 + 1000 * SLACK)) 20000
end_mock "stall before the first token"

# ---- a 1 MiB event: one byte over the default cap, then exactly the cap
TRACE=$WORK/mixed.jsonl.gz
start_mock --ttft-ms 2 --itl-ms 2 --big-event-after 3 --big-event-bytes 1048577
run big-default
check "an event of 1 MiB + 1 byte is refused: 2 of 4 'malformed', naming the cap (exit $RC)" sh -c \
	"test $RC -eq 0 && test \$(grep -c '\"error\":\"malformed\",\"error_detail\":\"SSE stream: event larger than the size cap (1048576 bytes)\"' \
	 '$WORK/big-default.jsonl') -eq 2"
check "with the 3 tokens that came before it" \
	test "$(count big-default '"error":"malformed".*"output_tokens":3,')" -eq 2
check "the level goes on: the 2 short requests succeed; the table counts 2 ok, 2 errors" sh -c \
	"test \$(grep -c '\"error\":null.*\"output_tokens\":2,' '$WORK/big-default.jsonl') -eq 2 &&
	 test '$(table_ok_err "$WORK/big-default.table" 2)' = '2 2'"
run big-raised --max-event-bytes 2097152
check "--max-event-bytes 2097152 lets it through: 4 of 4 ok, 6 + 2 tokens each (exit $RC)" sh -c \
	"test $RC -eq 0 && test \$(grep -c '\"error\":null.*\"output_tokens\":[62],\"tokens_estimated\":false' \
	 '$WORK/big-raised.jsonl') -eq 4"
check "and the results header records the cap" grep -q '"max_event_bytes":2097152' "$WORK/big-raised.jsonl"
end_mock "1 MiB + 1 event"
start_mock --ttft-ms 2 --itl-ms 2 --big-event-after 3 --big-event-bytes 1048576
run big-exact
check "an event of exactly 1 MiB is under the default cap: 4 of 4 ok (exit $RC)" sh -c \
	"test $RC -eq 0 && test \$(grep -c '\"error\":null' '$WORK/big-exact.jsonl') -eq 4"
run big-lowered --max-event-bytes 1048575
check "--max-event-bytes 1048575 refuses it: 2 'malformed' naming that cap" \
	test "$(count big-lowered '"error":"malformed","error_detail":"SSE stream: event larger than the size cap (1048575 bytes)"')" -eq 2
end_mock "1 MiB event"
TRACE=$WORK/trace.jsonl.gz
check "--max-event-bytes below 1024 is a usage error (exit 2)" sh -c \
	"'$TB' replay -e http://127.0.0.1:1 --max-event-bytes 10 -o '$WORK/x.jsonl.gz' '$TRACE' 2>/dev/null;
	 test \$? -eq 2 && test ! -e '$WORK/x.jsonl.gz'"

# ---- the stream's last line without its newline
start_mock --ttft-ms 2 --itl-ms 2 --no-final-newline
run no-newline
check "'data: [DONE]' without a newline is not dispatched: 4 of 4 'incomplete' (exit $RC: 1)" sh -c \
	"test $RC -eq 1 && test \$(grep -c '\"error\":\"incomplete\",\"error_detail\":\"stream ended inside an event, without \[DONE\]\"' \
	 '$WORK/no-newline.jsonl') -eq 4"
check "each keeps its TTFT and the server's count of 6 tokens" \
	test "$(count no-newline '"ttft_ns":[0-9].*"output_tokens":6,"tokens_estimated":false')" -eq 4
end_mock "no final newline"
start_mock --ttft-ms 2 --itl-ms 2 --no-final-newline --no-done
run no-newline-usage
check "an unfinished usage chunk is not read either: 6 tokens counted, flagged estimated" \
	test "$(count no-newline-usage '"error":"incomplete".*"output_tokens":6,"tokens_estimated":true')" -eq 4
end_mock "no final newline, no [DONE]"

# ---- a byte at a time, 200 us apart
start_mock --ttft-ms 2 --itl-ms 2 --trickle-us 200
bytes=$(curl -sS -N -d '{"messages":[{"role":"user","content":"x"}],"max_tokens":6,"stream":true,
	"stream_options":{"include_usage":true}}' "$ENDPOINT/v1/chat/completions" | wc -c)
run trickle -n 2
check "trickled a byte at a time: 2 of 2 ok with 6 tokens from usage, no malformed (exit $RC)" sh -c \
	"test $RC -eq 0 && test \$(grep -c '\"error\":null.*\"output_tokens\":6,\"tokens_estimated\":false.*\"itl_us\":\[[0-9]*\(,[0-9]*\)\{4\}\]' \
	 '$WORK/trickle.jsonl') -eq 2"
e2e=$(sed -n 's/.*"e2e_ns":\([0-9]*\).*/\1/p' "$WORK/trickle.jsonl" | sort -n | head -1)
check "the trickle was real: shortest E2E $((e2e / 1000000)) ms >= $bytes bytes x 200 us" \
	test "$e2e" -ge $((bytes * 200000))
end_mock "trickle"

# ---- keep-alive closed after every response
start_mock --ttft-ms 2 --itl-ms 2 --close-after-response
conns=$(curl -sS -v "$ENDPOINT/health" "$ENDPOINT/health" 2>&1 | grep -c '^\* Connected to')
check "the mock closes the connection after each response ($conns connections for 2 requests)" \
	test "$conns" -eq 2
run close -n 8
check "replay reconnects: 8 of 8 ok with 6 tokens each (exit $RC)" sh -c \
	"test $RC -eq 0 && test \$(grep -c '\"status\":200,\"error\":null.*\"output_tokens\":6,' '$WORK/close.jsonl') -eq 8"
end_mock "close after response"

check "no replay run reported a memory error (sanitizers, valgrind)" sh -c \
	"! cat '$WORK'/*.err | grep -E -q 'AddressSanitizer|LeakSanitizer|runtime error|^==[0-9]+=='"
finish
