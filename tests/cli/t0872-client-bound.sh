#!/bin/sh
# The client's own error (issue 34): each level states a bound on what
# replay itself (and the way to the server) added to its TTFT and gaps,
# from its watch of itself (lib/clientbound.h), kept in the level's host
# record and shown by analyze report; a level whose client's own part is
# over 5% of its TTFT is marked client-limited, with the reason. The mock
# tells its true queue and prefill (--timings vllm), so TTFT - queue -
# prefill is the truth the bound must cover.
#
# The starved run takes the measuring core away: replay pinned to one CPU
# with a busy loop pinned there, and replay at the lowest priority (a busy
# loop of equal priority alone hardly delays it: the scheduler favours a
# thread that mostly sleeps). A busy host only starves it more, so that
# check holds at any load; the free run's "not marked" can only be asked
# of a quiet host, and is skipped, with the host's load, on a busy one.
. tests/cli/lib.sh

tb record synth -n 32 --input-tokens 16 --output-tokens 4 --seed 1 -o "$WORK/t.jsonl.gz" 2>/dev/null
# the mock on another CPU than the starved replay's, where there is one
pin_mock=""
if have taskset && [ "$(nproc)" -ge 2 ]; then
	pin_mock="taskset -c 1"
fi
rm -f "$WORK/port"
$pin_mock $VG "$TB" mock --quiet --listen 127.0.0.1:0 --port-file "$WORK/port" \
	--ttft-ms 100 --itl-ms 5 --timings vllm &
MOCK_PID=$!
MOCK_PIDS="$MOCK_PID"
i=0
while [ ! -s "$WORK/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
ENDPOINT=http://127.0.0.1:$(cat "$WORK/port")

# run NAME [PREFIX...]: a replay at C=4 (64 requests), loaded and reported
run() {
	name=$1
	shift
	"$@" $VG "$TB" replay --endpoint "$ENDPOINT" -c 4 -n 64 --quiet --label "$name" \
		-o "$WORK/$name.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/$name.err"
	check "$name: the replay ran" test $? -eq 0
	tb analyze load --db "$WORK/$name.db" "$WORK/$name.jsonl.gz" 2>/dev/null
	tb analyze report --db "$WORK/$name.db" --format csv >"$WORK/$name.csv"
	tb analyze report --db "$WORK/$name.db" >"$WORK/$name.txt"
	tb analyze report --db "$WORK/$name.db" --format markdown >"$WORK/$name.md"
}

# ge A B: A >= B, both numbers
ge() {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && b != "" && a + 0 >= b + 0) }'
}

run free
n=$(zcat "$WORK/free.jsonl.gz" | grep '"at":"level_end"' | grep -c 'tracebench_client_bound_ttft_p99_seconds')
check "free: the level's host record at its end carries the bound ($n)" test "$n" -eq 1
n=$(requests_of "$WORK/free.jsonl.gz" | grep '"warmup":false' | grep -c '"client_issue_ns":[0-9]*,"client_read_ns":[0-9]*')
check "free: every measured request records its issue and read delays ($n)" test "$n" -eq 64
# ... and analyze export gives them per request, in ms
tb analyze export --db "$WORK/free.db" --run free >"$WORK/free.export"
file_sum=$(requests_of "$WORK/free.jsonl.gz" | sed -n 's/.*"client_issue_ns":\([0-9]*\),"client_read_ns":\([0-9]*\).*/\1 \2/p' |
	awk '{ i += $1; r += $2 } END { printf "%.3f %.3f", i / 1e6, r / 1e6 }')
export_sum=$(awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) { if ($k == "client_issue_ms") a = k; if ($k == "client_read_ms") b = k }; next }
	$a != "" { n++; i += $a; r += $b } END { printf "%d %.3f %.3f", n, i, r }' "$WORK/free.export")
check "export: client_issue_ms and client_read_ms of every request that has them, the file's in ms ($export_sum; file $file_sum)" \
	awk -v e="$export_sum" -v f="$file_sum" 'BEGIN { split(e, x, " "); split(f, y, " ")
		d1 = x[2] - y[1]; d2 = x[3] - y[2]; if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2
		exit !(x[1] >= 64 && d1 < 0.05 && d2 < 0.05) }'
b50=$(csv_field "$WORK/free.csv" client_bound_ttft_p50_ms 1)
b99=$(csv_field "$WORK/free.csv" client_bound_ttft_p99_ms 1)
g99=$(csv_field "$WORK/free.csv" client_bound_gap_p99_ms 1)
t50=$(csv_field "$WORK/free.csv" p50_rest_ttft_ms 1)
t99=$(csv_field "$WORK/free.csv" p99_rest_ttft_ms 1)
check "free: the bound is stated (TTFT P50 $b50, P99 $b99, gap P99 $g99 ms)" \
	awk -v a="$b50" -v b="$b99" -v g="$g99" 'BEGIN { exit !(a > 0 && b >= a && g > 0) }'
# Coverage is a rate, not a certainty (BENCHMARKS.md section 14: TTFT 96%
# of level percentiles; the P50 missed by 0.012 ms once with the host 21%
# busy): one run checks it in the timing tier, on a quiet host.
if [ -n "$TIMING" ]; then
	check "free: the TTFT P50 bound $b50 ms covers the true client and network share $t50 ms" \
		ge "$b50" "$t50"
else
	skip "free: the TTFT P50 bound $b50 ms covers the truth $t50 ms" \
		"coverage is a rate (the bench's section 14); one run checks it in the timing tier"
fi
grep -q "the client's own error" "$WORK/free.txt" && grep -q "the client's own error" "$WORK/free.md"
check "free: report shows the bound in text and Markdown" test $? -eq 0
# Whether a level is client-limited depends on what else the host did in
# its few seconds: a burst of other work (a busy CI host) can mark a free
# run. Up to three free runs: one unmarked shows the client does not mark
# itself; a client that marks every level fails all three.
try=free
k=1
while [ "$SLACK" -le 1 ] && [ "$(csv_field "$WORK/$try.csv" client_limited 1)" != 0 ] && [ $k -lt 3 ]; do
	k=$((k + 1))
	try=free$k
	run "$try"
done
busy=$(awk '/^the host replay ran on/ { h = 1; next } h && $1 == "4" { sub(/%/, "", $2); print $2; exit }' "$WORK/$try.txt")
lim=$(csv_field "$WORK/$try.csv" client_limited 1)
# Under the sanitizers or valgrind (SLACK > 1) the client itself runs
# several times slower: its own share may truly reach 5% of a TTFT there.
if [ "$SLACK" -gt 1 ]; then
	skip "free: the P99 bound covers the truth, and the level is not client-limited" \
		"a sanitizer or valgrind build's client is several times slower: its own share is the build's"
elif awk -v b="$busy" 'BEGIN { exit !(b != "" && b < 50) }'; then
	if [ -n "$TIMING" ]; then
		check "free: the TTFT P99 bound $b99 ms covers the truth $t99 ms (host ${busy}% busy)" \
			ge "$b99" "$t99"
	fi
	check "free: the level is not client-limited on a quiet host (host ${busy}% busy, run $k of up to 3)" \
		test "$lim" = 0
	check "free: ... and replay said nothing of it" \
		sh -c "! grep -q 'is client-limited' '$WORK/$try.err'"
else
	skip "free: the P99 bound covers the truth, and the level is not client-limited" \
		"the host was ${busy:-?}% busy: other work may delay the client or the mock"
fi

# A host whose /proc withholds the thread's schedstat: the read delays
# cannot hold the thread's wait to run, and replay and report say so (a
# library preloaded into replay fails its open; not under the sanitizers).
if preload no_schedstat "schedstat withheld: replay and report say the bound cannot see the wait to run"; then
	run blind env LD_PRELOAD="$SHIM"
	n=$(zcat "$WORK/blind.jsonl.gz" | grep '"at":"level_end"' | grep -c '"tracebench_client_run_wait_unread":1')
	check "schedstat withheld: the level's host record says so ($n)" test "$n" -eq 1
	check "... replay says so once, as a note" \
		test "$(grep -c 'cannot read this thread.s wait to run' "$WORK/blind.err")" -eq 1
	check "... CSV's client_run_wait_unread true ($(csv_field "$WORK/blind.csv" client_run_wait_unread 1)), the free run's false ($(csv_field "$WORK/free.csv" client_run_wait_unread 1))" \
		sh -c "test '$(csv_field "$WORK/blind.csv" client_run_wait_unread 1)' = 1 &&
		       test '$(csv_field "$WORK/free.csv" client_run_wait_unread 1)' = 0"
	check "... and report, in text and Markdown, naming the level" \
		sh -c "grep -q 'could not read its measuring thread.s wait to run (/proc/thread-self/schedstat) at C=4:' '$WORK/blind.txt' &&
		       grep -q 'could not read its measuring thread.s wait to run' '$WORK/blind.md'"
	n=$(zcat "$WORK/free.jsonl.gz" | grep '"at":"level_end"' | grep -c '"tracebench_client_run_wait_unread":0')
	check "schedstat readable (the free run): its record says it was read ($n), and neither replay nor report says otherwise" \
		sh -c "test '$n' -eq 1 && ! grep -q 'wait to run' '$WORK/free.err' '$WORK/free.txt'"
fi

# --workers 2: each worker watches itself; the later one's bound goes on
# a record of its own at the level's end ("client (worker 1)", no host
# counters: the first worker's are the host's), and the level's bound is
# the larger of the two, a bound on every worker's share.
"$TB" replay --endpoint "$ENDPOINT" -c 4 -n 32 --workers 2 --quiet --label workers \
	-o "$WORK/w.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/w.err"
# bound SOURCE: the TTFT P99 bound (s) of SOURCE's level_end record
bound() {
	zcat "$WORK/w.jsonl.gz" | grep '"at":"level_end"' | grep "\"source\":\"$1\"" |
		sed -n 's/.*"tracebench_client_bound_ttft_p99_seconds":\([0-9.e+-]*\).*/\1/p'
}
w0=$(bound host)
w1=$(bound 'client (worker 1)')
check "--workers 2: each worker's bound at the level's end, the later one's on a record of its own ($w0, $w1 s)" \
	sh -c "test -n '$w0' && test -n '$w1' && ! zcat '$WORK/w.jsonl.gz' | grep '\"source\":\"client (worker 1)\"' | grep -q node_cpu"
tb analyze load --db "$WORK/w.db" "$WORK/w.jsonl.gz" 2>/dev/null
tb analyze report --db "$WORK/w.db" --format csv >"$WORK/w.csv"
tb analyze report --db "$WORK/w.db" >"$WORK/w.txt"
wb=$(csv_field "$WORK/w.csv" client_bound_ttft_p99_ms 1)
check "... the level's TTFT P99 bound the larger ($wb ms), and no table of the later worker's record as a server's" \
	sh -c "awk -v b='$wb' -v x='$w0' -v y='$w1' 'BEGIN { m = (x > y ? x : y) * 1000; d = b - m; exit !(d < 0.002 && d > -0.002) }' &&
	       ! grep -q 'client (worker' '$WORK/w.txt'"

if have taskset && have nice; then
	taskset -c 0 sh -c 'while :; do :; done' &
	busy_pid=$!
	run starved nice -n 19 taskset -c 0
	kill "$busy_pid"
	wait "$busy_pid" 2>/dev/null
	lim=$(csv_field "$WORK/starved.csv" client_limited 1)
	check "starved: the level is marked client-limited ($lim)" test "$lim" = 1
	why=$(grep "^C=4: client-limited: " "$WORK/starved.txt")
	check "starved: report says why: '$why'" \
		sh -c "echo \"\$1\" | grep -q \"client's own .* ms = .*% of TTFT P.. .* ms: .*(P..)\"" - "$why"
	grep -q "^C=4: client-limited: client's own" "$WORK/starved.md"
	check "starved: ... in Markdown too" test $? -eq 0
	tb analyze report --db "$WORK/starved.db" --format json >"$WORK/s.json"
	tr -d ' \n' <"$WORK/s.json" | grep -q '"client_limited":true,"client_limited_reason":"client'"'"'sown'
	check "starved: ... and in JSON" test $? -eq 0
	note=$(grep "^tracebench replay: note: C=4 is client-limited: client's own " "$WORK/starved.err")
	check "starved: replay said so after the level's row: '$note'" test -n "$note"
	# the limit is the user's: twice the level's share passes it, half of it not
	share=$(echo "$why" | sed -n 's/.* = \([0-9.]*\)% of TTFT.*/\1/p')
	hi=$(awk -v s="$share" 'BEGIN { h = int(s * 2) + 1; print (h > 999 ? 999 : h) }')
	lo=$(awk -v s="$share" 'BEGIN { print s / 2 }')
	tb analyze report --db "$WORK/starved.db" --format csv --client-limit "$hi" >"$WORK/hi.csv"
	tb analyze report --db "$WORK/starved.db" --format csv --client-limit "$lo" >"$WORK/lo.csv"
	tb analyze report --db "$WORK/starved.db" --client-limit "$hi" >"$WORK/hi.txt"
	lim_hi=$(csv_field "$WORK/hi.csv" client_limited 1)
	lim_lo=$(csv_field "$WORK/lo.csv" client_limited 1)
	check "--client-limit: at twice the level's share ($hi%) not client-limited ($lim_hi), at half ($lo%) it is ($lim_lo)" \
		sh -c "test '$lim_hi' = 0 && test '$lim_lo' = 1 &&
		       grep -q 'own part is over $hi% of what it bounds' '$WORK/hi.txt'"
else
	skip "starved: the level is marked client-limited" "taskset or nice is missing"
fi
tb analyze report --db "$WORK/w.db" --client-limit 0 >/dev/null 2>"$WORK/bad.err"
rc=$?
check "--client-limit 0 is refused in one line (exit $rc)" \
	sh -c "test $rc -eq 2 && test \$(wc -l <'$WORK/bad.err') -eq 1 && grep -q 'bad --client-limit' '$WORK/bad.err'"
tb analyze export --db "$WORK/w.db" --client-limit 5 >/dev/null 2>"$WORK/bad.err"
rc=$?
check "... and export refuses it (exit $rc)" \
	sh -c "test $rc -eq 2 && grep -q 'client-limit is an option of report' '$WORK/bad.err'"
finish
