#!/bin/sh
# analyze load killed with SIGKILL in the middle of a big file: the
# database is left as it was (one SQLite transaction per file), intact,
# and the same file loads completely afterwards.
. tests/cli/lib.sh

N=300000
# Under the sanitizers a smaller file takes as long. (Not under valgrind:
# the load below runs without it, as SIGKILL leaves no leak report to read,
# and a small file would be loaded whole before the kill.)
[ -n "${TB_SLOW:-}" ] && N=20000
{
	echo '{"format":"tracebench-results","version":1,"run_id":"big","label":"big"}'
	awk -v n=$N 'BEGIN { for (i = 0; i < n; i++)
		printf "{\"level\":1,\"seq\":%d,\"trace_id\":%d,\"warmup\":false,\"status\":200,\"error\":null,\"sched_ns\":%d,\"send_ns\":%d,\"ttft_ns\":3000000,\"ttfa_ns\":3000000,\"e2e_ns\":9000000,\"input_tokens\":8,\"output_tokens\":3,\"tokens_estimated\":false,\"itl_us\":[3000,3000]}\n", i, i, i * 1000, i * 1000 }'
} | gzip -1 >"$WORK/big.jsonl.gz"

DB=$WORK/bench.db
tb analyze load --db "$DB" sample_traces/results-sample.jsonl.gz 2>/dev/null
state() {
	sqlite3 "$DB" 'select count(*) from runs; select count(*) from requests; select group_concat(label) from runs'
}
before=$(state)

# Start the load; once its transaction has begun (the rollback journal
# exists) and some rows are in, SIGKILL it.
"$TB" analyze load --db "$DB" "$WORK/big.jsonl.gz" >/dev/null 2>&1 &
pid=$!
i=0
while [ ! -e "$DB-journal" ] && [ ! -e "$DB-wal" ] && [ $i -lt 200 ]; do
	sleep 0.01
	i=$((i + 1))
done
sleep 0.2
kill -9 $pid 2>/dev/null
killed=$?
wait $pid 2>/dev/null
check "the load was killed mid-file (not finished before the signal)" test $killed -eq 0
check "the database passes sqlite's integrity check" \
	test "$(sqlite3 "$DB" 'pragma integrity_check')" = ok
check "the database holds what it held before: runs, requests, labels" \
	test "$(state)" = "$before"

tb analyze load --db "$DB" "$WORK/big.jsonl.gz" >/dev/null 2>&1
check "loading the file again works (nothing half-loaded stands in its way)" test $? -eq 0
check "... and adds all $N requests" \
	test "$(sqlite3 "$DB" "select count(*) from requests r join runs u using (run_id) where u.label = 'big'")" -eq $N
finish
