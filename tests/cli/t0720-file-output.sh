#!/bin/sh
# Output files: a missing or unwritable directory and a full disk (a file
# size limit, ulimit -f) give one line naming the file; a full disk leaves
# a readable prefix; an existing file is never replaced without --force.
. tests/cli/lib.sh

S=sample_traces

# $1: the error output is one line naming file $1 (a blank line before it,
# which ends a progress line, is allowed) and matching $2.
one_line() {
	test "$(grep -c . "$WORK/err")" -eq 1 && grep -qF "'$1" "$WORK/err" && grep -Eq "$2" "$WORK/err"
}

# A directory this user cannot write: mode 555, or for root (whom modes do
# not stop) /sys, which refuses new files to everyone.
RO=$WORK/ro
mkdir "$RO" && chmod 555 "$RO"
if touch "$RO/probe" 2>/dev/null; then
	RO=/sys
	touch "$RO/tb-probe" 2>/dev/null && RO=""
fi

start_mock --ttft-ms 1 --itl-ms 0
tb record synth -n 64 --input-tokens 16 --output-tokens 50 -o "$WORK/trace.jsonl.gz" 2>/dev/null

# --- a missing or unwritable directory -------------------------------------
tb record synth -n 2 -o "$WORK/missing/t.jsonl.gz" 2>"$WORK/err"
rc=$?
check "record synth, missing directory: exit 2" test $rc -eq 2
check "... one line naming the file: No such file or directory" \
	one_line "$WORK/missing/t.jsonl.gz" "cannot create .*: No such file or directory"
tb replay --endpoint "$ENDPOINT" -c 1 -n 1 -o "$WORK/missing/r.jsonl.gz" "$WORK/trace.jsonl.gz" \
	>/dev/null 2>"$WORK/err"
rc=$?
check "replay, missing directory: exit 2, before any request" test $rc -eq 2
check "... one line naming the file" one_line "$WORK/missing/r.jsonl.gz" "No such file or directory"
tb analyze load --db "$WORK/missing/b.db" "$S/results-sample.jsonl.gz" 2>"$WORK/err"
rc=$?
check "analyze load, missing directory: exit 2" test $rc -eq 2
check "... one line naming the database" one_line "$WORK/missing/b.db" "unable to open database file"
if [ -n "$RO" ]; then
	tb record synth -n 2 -o "$RO/t.jsonl.gz" 2>"$WORK/err"
	rc=$?
	check "record synth, unwritable directory: exit 2" test $rc -eq 2
	check "... one line naming the file" one_line "$RO/t.jsonl.gz" "cannot create .*: (Permission denied|Read-only)"
	tb replay --endpoint "$ENDPOINT" -c 1 -n 1 -o "$RO/r.jsonl.gz" "$WORK/trace.jsonl.gz" \
		>/dev/null 2>"$WORK/err"
	rc=$?
	check "replay, unwritable directory: exit 2" test $rc -eq 2
	check "... one line naming the file" one_line "$RO/r.jsonl.gz" "cannot create"
	tb analyze load --db "$RO/b.db" "$S/results-sample.jsonl.gz" 2>"$WORK/err"
	rc=$?
	check "analyze load, unwritable directory: exit 2" test $rc -eq 2
	check "... one line naming the database" one_line "$RO/b.db" "unable to open database file"
else
	skip "record synth, replay, analyze load: an unwritable directory" "no unwritable directory here"
fi
tb analyze load --db "$WORK/b.db" "$S/results-sample.jsonl.gz" 2>/dev/null
: >"$WORK/file"
tb analyze plot --db "$WORK/b.db" --out "$WORK/file/plots" >/dev/null 2>"$WORK/err"
rc=$?
check "analyze plot, a file where a directory should be: exit 2" test $rc -eq 2
check "... one line naming the directory" one_line "$WORK/file/plots" "cannot create directory .*: Not a directory"
tb analyze plot --db "$WORK/b.db" --out "$WORK/missing/plots" >/dev/null 2>"$WORK/err"
rc=$?
check "analyze plot, missing parent directory: exit 2" test $rc -eq 2
check "... one line naming the directory" one_line "$WORK/missing/plots" "cannot create directory .*: No such file or directory"
if [ -n "$RO" ]; then
	tb analyze plot --db "$WORK/b.db" --out "$RO/plots" >/dev/null 2>"$WORK/err"
	rc=$?
	check "analyze plot, unwritable directory: exit 2" test $rc -eq 2
	check "... one line naming the directory" one_line "$RO/plots" "cannot create directory .*: (Permission denied|Read-only|Operation not permitted)"
else
	skip "analyze plot, unwritable directory" "no unwritable directory here"
fi

# --- a full disk: a file size limit of 8 blocks (4 KiB in sh's units) ------
# SIGXFSZ is ignored by tracebench itself, so the write fails with EFBIG.
(ulimit -f 8; exec $VG "$TB" record synth -n 200 --input-tokens 512 -o "$WORK/full-trace.jsonl.gz") \
	2>"$WORK/err"
rc=$?
check "record synth, disk full: exit 2" test $rc -eq 2
check "... one line naming the file: File too large" one_line "$WORK/full-trace.jsonl.gz" "cannot write .*: File too large"
n=$(gzip -dc "$WORK/full-trace.jsonl.gz" 2>/dev/null | tail -n +2 | wc -l)
check "... leaving a readable prefix ($n requests)" test "$n" -gt 0
(ulimit -f 8; exec $VG "$TB" replay --endpoint "$ENDPOINT" -c 4 -n 400 --warmup 0 \
	-o "$WORK/full-results.jsonl.gz" "$WORK/trace.jsonl.gz") >/dev/null 2>"$WORK/err"
rc=$?
check "replay, disk full: exit 1 (the work failed)" test $rc -eq 1
# (replay's stderr also has its start line)
check "... said once, naming the file: File too large" test "$(grep -c "cannot write '$WORK/full-results.jsonl.gz': File too large" "$WORK/err")" -eq 1
n=$(requests_of "$WORK/full-results.jsonl.gz" 2>/dev/null | wc -l)
check "... leaving a readable prefix ($n results)" test "$n" -gt 0
tb analyze load --db "$WORK/full.db" "$WORK/full-results.jsonl.gz" >/dev/null 2>&1
check "... which analyze loads" test $? -eq 0

# --- never silently overwritten --------------------------------------------
echo keep >"$WORK/exists.jsonl.gz"
tb record synth -n 2 -o "$WORK/exists.jsonl.gz" 2>"$WORK/err"
rc=$?
check "record synth onto an existing file: exit 2" test $rc -eq 2
check "... one line naming it and --force" one_line "$WORK/exists.jsonl.gz" "already exists \(use --force to replace it\)"
tb replay --endpoint "$ENDPOINT" -c 1 -n 1 -o "$WORK/exists.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>"$WORK/err"
rc=$?
check "replay onto an existing file: exit 2" test $rc -eq 2
check "... one line naming it and --force" one_line "$WORK/exists.jsonl.gz" "already exists \(use --force to replace it\)"
tb record import --format azure -o "$WORK/exists.jsonl.gz" "$S/azure-sample.csv" 2>"$WORK/err"
rc=$?
check "record import onto an existing file: exit 2" test $rc -eq 2
check "... naming it and --force" grep -q "'$WORK/exists.jsonl.gz' already exists (use --force to replace it)" "$WORK/err"
check "... the file is untouched" test "$(cat "$WORK/exists.jsonl.gz")" = keep
tb record synth -n 2 --force -o "$WORK/exists.jsonl.gz" 2>/dev/null
check "record synth --force replaces it" sh -c "gzip -dc '$WORK/exists.jsonl.gz' | grep -q tracebench-trace"
tb replay --endpoint "$ENDPOINT" -c 1 -n 1 --warmup 0 --force -o "$WORK/exists.jsonl.gz" \
	"$WORK/trace.jsonl.gz" >/dev/null 2>&1
check "replay --force replaces it" sh -c "gzip -dc '$WORK/exists.jsonl.gz' | grep -q tracebench-results"
finish
