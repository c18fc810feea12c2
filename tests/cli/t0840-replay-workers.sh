#!/bin/sh
# replay --workers N: the shards as N processes on this host, one results
# file holding every request once; closed loop splits C (and -n) among the
# workers, open loop keeps one schedule, only worker 0 warms up.
. tests/cli/lib.sh

start_mock --ttft-ms 20 --itl-ms 2
tb record synth -n 24 --input-tokens 8 --output-tokens 3 -o "$WORK/trace.jsonl.gz" 2>/dev/null

tb replay -e "$ENDPOINT" -c 4 -n 24 --workers 2 --label w -o "$WORK/w.jsonl.gz" \
	"$WORK/trace.jsonl.gz" >"$WORK/w.table" 2>"$WORK/w.err"
check "--workers 2 exits 0" test $? -eq 0
check "... one results file, the workers' own ones removed" sh -c \
	"test -s '$WORK/w.jsonl.gz' && ! ls '$WORK'/w.jsonl.gz.w* 2>/dev/null"
tb analyze load --db "$WORK/w.db" "$WORK/w.jsonl.gz" 2>/dev/null
check "... holding every request once, and one warm-up" test \
	"$(sqlite3 "$WORK/w.db" "select count(distinct trace_id) || ',' || sum(warmup = 0) || ',' || sum(warmup) from requests")" = "24,24,1"
check "... at C=4 in all: the level recorded is 4" \
	test "$(sqlite3 "$WORK/w.db" "select group_concat(distinct level) from requests")" = 4
# Two workers at C=2 each: never more than 4 requests at once on the server.
check "... never more than 4 in flight, and at some point 4" sh -c \
	"sqlite3 '$WORK/w.db' 'select send_ns, 1 from requests where warmup = 0 union all
		select send_ns + e2e_ns, -1 from requests where warmup = 0 order by 1, 2' |
	awk -F'|' '{ n += \$2; if (n > m) m = n } END { exit m != 4 }'"
check "... the table is the merged run's: one row, C=4, 24 ok" sh -c \
	"test '$(table_ok_err "$WORK/w.table" 4)' = '24 0' && test \$(wc -l <'$WORK/w.table') -eq 2"
check "... the header says workers 2" sh -c "zcat '$WORK/w.jsonl.gz' | head -1 | grep -q '\"workers\":2'"
check "... seq 0-24 each once, and the host's records of the first worker alone (start, end), as they came" sh -c \
	"test \"\$(requests_of '$WORK/w.jsonl.gz' | sed 's/.*\"seq\":\([0-9]*\).*/\1/' | sort -n | uniq | tr '\n' ' ')\" = \"\$(seq 0 24 | tr '\n' ' ')\" &&
	 test \$(zcat '$WORK/w.jsonl.gz' | grep -c '^{\"type\":\"metrics\",\"source\":\"host\",.*\"at\":\"level_\(start\|end\)\"') -eq 2 &&
	 ! zcat '$WORK/w.jsonl.gz' | grep '^{\"type\":\"metrics\"' | grep -q '\"seq\"'"

tb replay -e "$ENDPOINT" --rate 40 --workers 3 --warmup 0 --quiet --label o -o "$WORK/o.jsonl.gz" \
	"$WORK/trace.jsonl.gz" >/dev/null 2>"$WORK/o.err"
check "open loop with --workers 3 exits 0" test $? -eq 0
tb analyze load --db "$WORK/o.db" "$WORK/o.jsonl.gz" 2>/dev/null
check "... every request once" test \
	"$(sqlite3 "$WORK/o.db" "select count(distinct trace_id) || ',' || count(*) from requests")" = "24,24"
check "... on one schedule: request k due k * 25 ms after the start" test \
	"$(sqlite3 "$WORK/o.db" "select count(*) from (select sched_ns, row_number() over (order by sched_ns) - 1 as k from requests) where sched_ns = k * 25000000")" = 24
tb replay -e "$ENDPOINT" -c 2 --workers 2 --quiet -o "$WORK/w.jsonl.gz" "$WORK/trace.jsonl.gz" \
	>/dev/null 2>"$WORK/exists.err"
check "an existing results file is kept without --force (exit 2)" sh -c \
	"test $? -eq 2 && grep -q 'exists; give --force' '$WORK/exists.err'"
finish
