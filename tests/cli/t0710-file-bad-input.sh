#!/bin/sh
# Bad input files, given to analyze load (results) and to replay (a trace):
# a flipped byte mid-file, bytes that are not gzip, an empty file, a header
# of a future format version, and each kind given where the other is
# expected. Each is refused with one line naming the file, exit 2, and
# leaves nothing behind.
. tests/cli/lib.sh

S=sample_traces

# $1 file given; the error output is one line naming it and matching $2
one_line() {
	test "$(wc -l <"$WORK/err")" -eq 1 && grep -qF "'$1'" "$WORK/err" && grep -Eq "$2" "$WORK/err"
}

load_refused() {  # what, file, message
	tb analyze load --db "$WORK/load.db" "$2" >/dev/null 2>"$WORK/err"
	rc=$?
	check "analyze load, $1: exit 2" test $rc -eq 2
	check "analyze load, $1: one line naming the file: $3" one_line "$2" "$3"
}

replay_refused() {  # what, file, message
	tb replay --endpoint http://127.0.0.1:9 -o "$WORK/never.jsonl.gz" "$2" >/dev/null 2>"$WORK/err"
	rc=$?
	check "replay, $1: exit 2" test $rc -eq 2
	check "replay, $1: one line naming the file: $3" one_line "$2" "$3"
}

# One byte of the compressed data flipped in the middle of the file.
flip() {  # in, out
	cp "$1" "$2"
	size=$(wc -c <"$2")
	printf '\125' | dd of="$2" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
}
flip "$S/results-sample.jsonl.gz" "$WORK/flipped-results.jsonl.gz"
flip "$S/synth-8.jsonl.gz" "$WORK/flipped-trace.jsonl.gz"
head -c 4096 /dev/urandom >"$WORK/random.bin"
printf '\037\213\010\000junk after a gzip magic' >"$WORK/fake.gz"
: >"$WORK/empty.jsonl.gz"
zcat "$S/results-sample.jsonl.gz" | sed '1s/"version":1/"version":5/' | gzip >"$WORK/future-results.jsonl.gz"

load_refused "flipped byte" "$WORK/flipped-results.jsonl.gz" "cannot read '.*': (incorrect data check|invalid|too many length)"
load_refused "random bytes" "$WORK/random.bin" "is not a tracebench file"
load_refused "gzip magic, then junk" "$WORK/fake.gz" "cannot read '.*': "
load_refused "empty file" "$WORK/empty.jsonl.gz" "is empty, not a tracebench file"
load_refused "future format version" "$WORK/future-results.jsonl.gz" "has format version 5; this tracebench reads version 4: upgrade tracebench"
# found by fuzzing: a gap of 3.3e119 us overflowed the conversion to ns
{
	echo '{"format":"tracebench-results","version":1,"run_id":"big-gap","label":"big-gap"}'
	echo '{"level":1,"seq":0,"trace_id":0,"warmup":false,"status":200,"error":null,"sched_ns":0,"send_ns":0,"ttft_ns":3000000,"ttfa_ns":3000000,"e2e_ns":9000000,"input_tokens":8,"output_tokens":3,"tokens_estimated":false,"itl_us":[3000,3.3e119]}'
} | gzip >"$WORK/big-gap.jsonl.gz"
load_refused "an inter-token gap out of range" "$WORK/big-gap.jsonl.gz" "line 2: field 'itl_us' holds a non-number or one out of range"
load_refused "a trace" "$S/synth-8.jsonl.gz" "is a trace, not a results file"
load_refused "a missing file" "$WORK/missing.jsonl.gz" "cannot open '.*': No such file or directory"
check "analyze load: nothing was loaded from refused files" \
	test "$(sqlite3 "$WORK/load.db" 'select count(*) from requests' 2>/dev/null || echo 0)" -eq 0

replay_refused "flipped byte" "$WORK/flipped-trace.jsonl.gz" "cannot read '.*': (incorrect data check|invalid|too many length)"
replay_refused "random bytes" "$WORK/random.bin" "is not a tracebench file"
replay_refused "empty file" "$WORK/empty.jsonl.gz" "is empty, not a tracebench file"
replay_refused "future format version" "$S/broken/future-version.jsonl.gz" "has format version 3"
replay_refused "a results file" "$S/results-sample.jsonl.gz" "is a results file, not a trace"
check "replay: no results file was created by refused runs" test ! -e "$WORK/never.jsonl.gz"

tb record info "$S/broken/future-version.jsonl.gz" >/dev/null 2>"$WORK/err"
rc=$?
check "record info, future format version: exit 2" test $rc -eq 2
check "record info, future format version: one line naming the file" \
	one_line "$S/broken/future-version.jsonl.gz" "has format version 3"
finish
