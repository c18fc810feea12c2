#!/bin/sh
# The sample files: the valid ones read, the broken ones give the error
# sample_traces/README.md promises (exit 2), or recover what they can.
. tests/cli/lib.sh

S=sample_traces

one_line_naming() {  # file, message: the error output is that one line
	test "$(wc -l <"$WORK/err")" -eq 1 && grep -qF "'$S/$1'" "$WORK/err" &&
		grep -qF "$2" "$WORK/err"
}

expect_trace_error() {  # file, message
	tb replay --endpoint http://127.0.0.1:9 -o "$WORK/never.jsonl.gz" "$S/$1" 2>"$WORK/err"
	rc=$?
	check "$1: exit 2" test $rc -eq 2
	check "$1: one line naming the file: $2" one_line_naming "$1" "$2"
}

tb replay --endpoint http://127.0.0.1:9 -o "$WORK/skip.jsonl.gz" "$S/broken/bad-record.jsonl.gz" 2>"$WORK/err" >/dev/null
check "broken/bad-record.jsonl.gz: the bad record is skipped, naming its line" \
	grep -qF "'$S/broken/bad-record.jsonl.gz' line 3: field 'body' is missing or not a string; record skipped" "$WORK/err"
check "... the rest of the trace replays" sh -c "requests_of '$WORK/skip.jsonl.gz' | grep -q '\"trace_id\":0'"
expect_trace_error broken/future-version.jsonl.gz "has format version 3"
expect_trace_error broken/garbage.jsonl.gz "invalid block type"
expect_trace_error broken/not-tracebench.txt "is not a tracebench file"
expect_trace_error results-sample.jsonl.gz "is a results file, not a trace"
check "no results file was created by refused replays" test ! -e "$WORK/never.jsonl.gz"

tb analyze load --db "$WORK/t.db" "$S/broken/truncated-results.jsonl.gz" 2>"$WORK/err"
check "truncated results: loads (exit 0)" test $? -eq 0
check "truncated results: says what it dropped" \
	grep -q "dropped 1 incomplete record (422 bytes) after line 15" "$WORK/err"
check "truncated results: keeps the 14 complete records" \
	test "$(sqlite3 "$WORK/t.db" 'select count(*) from requests')" -eq 14

tb analyze load --db "$WORK/s.db" "$S/results-sample.jsonl.gz" 2>/dev/null
check "sample results: 25 requests (1 warm-up + 3 levels of 8)" \
	test "$(sqlite3 "$WORK/s.db" 'select count(*) from requests')" -eq 25
check "sample results: the v_summary view works in the plain sqlite3 shell" \
	test "$(sqlite3 "$WORK/s.db" 'select group_concat(concurrency) from v_summary')" = "1,2,4"
check "sample trace: 8 requests replayable" \
	test "$(requests_of "$S/synth-8.jsonl.gz" | wc -l)" -eq 8
finish
