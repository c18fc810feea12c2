#!/bin/sh
# Shards on one host, as a scheduler would start them: at different times
# and with different warm-ups (shard 0 alone warms up, against a slow cold
# start), they keep one schedule anchored at --start-at. analyze names a
# missing shard, refuses a shard of another trace or other parameters or
# one loaded twice, reports closed-loop shards as N x C, and warns when a
# host's clock (here skewed on purpose) disagrees with the others'.
. tests/cli/lib.sh

start_mock --ttft-ms 2 --itl-ms 1 --cold-start-ms 400
tb record synth -n 30 --input-tokens 8 --output-tokens 3 -o "$WORK/trace.jsonl.gz" 2>/dev/null

# Started 0, 0.5 and 1 s apart; shard 0 sends 2 warm-ups, the first 400 ms slow,
# all before the start: 5 s ahead, SLACK times that under the sanitizers or
# valgrind (three replays starting on two cores, each asking the server who
# it is, took over 4.5 s before its warm-ups in a busy sanitizer run).
start=$(($(date +%s) + 5 * SLACK))
pids=""
for k in 0 1 2; do
	sleep 0.5
	$VG "$TB" replay -e "$ENDPOINT" --rate 20 --warmup 2 --shard $k/3 --start-at $start --quiet \
		--label one -o "$WORK/one$k.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>"$WORK/one$k.err" &
	pids="$pids $!"
done
rc=0
for p in $pids; do wait "$p" || rc=1; done
check "three shards started apart exit 0" test $rc -eq 0
check "... only shard 0 sent warm-ups, before the start (negative offsets)" sh -c \
	"test \$(zcat '$WORK'/one*.jsonl.gz | grep -c '\"warmup\":true') -eq 2 &&
	 test \$(zcat '$WORK/one0.jsonl.gz' | grep '\"warmup\":true' | grep -c '\"send_ns\":-') -eq 2"
check "... every header's clock counts from --start-at" sh -c \
	"for k in 0 1 2; do zcat '$WORK'/one\$k.jsonl.gz | head -1 | grep -q '\"origin_unix\":$start[,}]' || exit 1; done"
# The merged plan: request k due k * 50 ms after --start-at; each shard's
# send time, counted from that same instant, within 1 ms of it.
zcat "$WORK"/one*.jsonl.gz | grep '"warmup":false' |
	sed 's/.*"sched_ns":\([0-9-]*\),"send_ns":\([0-9-]*\).*/\1 \2/' | sort -n >"$WORK/plan"
check "... one schedule: the 30 requests due k * 50 ms after the start" \
	awk '{ if ($1 != (NR - 1) * 50000000) bad++ } END { exit bad || NR != 30 }' "$WORK/plan"
late=$(awk '{ l = ($2 - $1) / 1e6; if (l < 0) l = -l; if (l > 1) n++ } END { print n + 0 }' "$WORK/plan")
maxlag=$(awk '{ l = ($2 - $1) / 1e6; if (l > m) m = l } END { printf "%.3f", m }' "$WORK/plan")
# On a quiet machine every send is within 0.2 ms; on a loaded one (a load
# average of 10 on 2 cores) a third come a timer tick (~4 ms) late, as
# they do without shards.
check "... sent within 1 ms of the plan, but for at most 10 of 30 ($late later, max $maxlag ms)$UPPER_NOTE" \
	within_time "$late" 0 $((SLACK > 1 ? 30 : 10))
check "... and none later than 10 ms$UPPER_NOTE" within_time "$maxlag" 0 $((10 * SLACK))

tb analyze load --db "$WORK/one.db" "$WORK/one0.jsonl.gz" "$WORK/one1.jsonl.gz" 2>"$WORK/load.err"
check "a missing shard is named at load" grep -q "warning: run 'one' lacks shard 2/3 (2 of 3 loaded)" "$WORK/load.err"
tb analyze report --db "$WORK/one.db" >"$WORK/missing.txt" 2>&1
check "... and in the report" grep -q "warning: shard 2/3 missing: the run holds 2 of 3 shards" "$WORK/missing.txt"
tb analyze load --db "$WORK/one.db" "$WORK/one2.jsonl.gz" 2>"$WORK/load2.err"
tb analyze report --db "$WORK/one.db" >"$WORK/whole.txt" 2>&1
check "whole: every request once, no warning" sh -c \
	"test \$(sqlite3 '$WORK/one.db' 'select count(distinct trace_id) from requests where warmup = 0') -eq 30 &&
	 ! grep -q warning '$WORK/whole.txt' '$WORK/load2.err'"
check "... the shard section: 3 of 3, the start spread, each shard's send lag and clock" sh -c \
	"grep -q 'shards: 3 of 3 on 1 host' '$WORK/whole.txt' && grep -q 'start spread' '$WORK/whole.txt' &&
	 test \$(grep -c 'shard ./3 on .*send lag P50 .*clock .* from the server' '$WORK/whole.txt') -eq 3"
check "... the rate asked" grep -q "target 20.00 req/s, scheduled 20.00 req/s" "$WORK/whole.txt"

# Merging refuses what is not one run.
tb record synth -n 31 --input-tokens 8 --output-tokens 3 -o "$WORK/other.jsonl.gz" 2>/dev/null
tb replay -e "$ENDPOINT" --rate 20 --warmup 0 --shard 1/3 --quiet --label two \
	-o "$WORK/other1.jsonl.gz" "$WORK/other.jsonl.gz" >/dev/null 2>&1
tb replay -e "$ENDPOINT" --rate 40 --warmup 0 --shard 1/3 --quiet --label two \
	-o "$WORK/fast1.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>&1
tb analyze load --db "$WORK/one.db" --label one "$WORK/other1.jsonl.gz" 2>"$WORK/refuse1.err"
rc=$?
check "a shard of another trace is refused (exit 2), naming both" sh -c \
	"test $rc -eq 2 && grep -q \"cannot join run 'one': it replayed trace sha256:[0-9a-f]\\{64\\}, '.*one0.jsonl.gz' trace sha256:\" '$WORK/refuse1.err'"
tb analyze load --db "$WORK/one.db" --label one "$WORK/fast1.jsonl.gz" 2>"$WORK/refuse2.err"
rc=$?
check "... one of other parameters, naming which" sh -c \
	"test $rc -eq 2 && grep -q 'its rate (40) differs from that of .*one0.jsonl.gz.* (20)' '$WORK/refuse2.err'"
cp "$WORK/one1.jsonl.gz" "$WORK/again.jsonl.gz"
zcat "$WORK/one1.jsonl.gz" | sed '1s/"run_id":"[0-9a-f]*"/"run_id":"0123456789abcdef"/' | gzip >"$WORK/again.jsonl.gz"
tb analyze load --db "$WORK/one.db" "$WORK/again.jsonl.gz" 2>"$WORK/refuse3.err"
check "... a shard loaded twice (another run_id)" grep -q "shard 1/3 of run 'one' is loaded already" "$WORK/refuse3.err"
check "... and the run is as it was" \
	test "$(sqlite3 "$WORK/one.db" "select count(*) from runs where label = 'one'")" = 3

# Closed loop: 3 shards at C=2 are 6 requests in flight.
pids=""
for k in 0 1 2; do
	$VG "$TB" replay -e "$ENDPOINT" -c 2 -n 6 --shard $k/3 --quiet --label closed \
		-o "$WORK/closed$k.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>&1 &
	pids="$pids $!"
done
wait $pids
tb analyze load --db "$WORK/closed.db" "$WORK"/closed*.jsonl.gz 2>/dev/null
tb analyze report --db "$WORK/closed.db" --format csv >"$WORK/closed.csv"
check "closed-loop shards report C = 3 x 2 = 6" test "$(csv_field "$WORK/closed.csv" concurrency 1)" = 6
tb analyze report --db "$WORK/closed.db" >"$WORK/closed.txt"
check "... and each shard's C" grep -q "closed loop: C is the concurrency of all 3 shards together, 3 x each shard's C (2)" "$WORK/closed.txt"
# the host's table (each shard's) names the level as the sweep does
check "... and so do the hosts' tables ($(grep -c '^C CPU busy' "$WORK/closed.txt") of them)" \
	awk '/^C CPU busy/ { t++; getline; if ($1 != 6) bad++ } END { exit !(t >= 1 && !bad) }' \
	"$WORK/closed.txt"
# plot names the level as report does: its CDF block is C=6's
tb analyze plot --db "$WORK/closed.db" --out "$WORK/closed-plots" --run closed >/dev/null 2>&1
check "... and so does plot (its CDF's level: $(sed -n 's/^# run 1, //p' "$WORK/closed-plots/latency_cdf.dat" 2>/dev/null))" \
	test "$(sed -n 's/^# run 1, //p' "$WORK/closed-plots/latency_cdf.dat" 2>/dev/null)" = "C=6"
# compare takes C from where report does: the same requests are C=6 in
# both, and pair with a run of one replay at C=6.
tb replay -e "$ENDPOINT" -c 6 -n 18 --quiet --label plain -o "$WORK/plain.jsonl.gz" \
	"$WORK/trace.jsonl.gz" >/dev/null 2>&1
tb analyze load --db "$WORK/closed.db" "$WORK/plain.jsonl.gz" 2>/dev/null
tb analyze compare --db "$WORK/closed.db" closed plain >"$WORK/cmp.txt" 2>&1
check "compare labels the shards' level C=6 as report does, and pairs it with C=6" sh -c \
	"grep -q '^ *6  TTFT  *P50 ' '$WORK/cmp.txt' && ! grep -q '^ *2  TTFT\|only in' '$WORK/cmp.txt'"

# A host whose clock is 40 ms ahead (libfaketime, preloaded into the third
# shard, moves its CLOCK_REALTIME and leaves CLOCK_MONOTONIC): replay
# measures it against the server's Date header, and analyze warns.
faketime=$(ls /usr/lib/*/faketime/libfaketimeMT.so.1 2>/dev/null | head -1)
if [ -z "$faketime" ]; then
	skip "a host's wrong clock measured and warned about" \
		"libfaketime is not installed: sh scripts/deps.sh --tests"
else
	start=$(($(date +%s) + 6 * SLACK))
	pids=""
	for k in 0 1 2; do
		# (a sanitized binary wants its runtime first: not so here)
		skewed=""
		[ $k -eq 2 ] && skewed="LD_PRELOAD=$faketime FAKETIME=+0.040 FAKETIME_DONT_FAKE_MONOTONIC=1
			ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
		# shellcheck disable=SC2086 # the words of $skewed
		env $skewed $VG "$TB" replay -e "$ENDPOINT" --rate 20 --shard $k/3 \
			--start-at $start --quiet --label skew -o "$WORK/skew$k.jsonl.gz" \
			"$WORK/trace.jsonl.gz" >/dev/null 2>"$WORK/skew$k.err" &
		pids="$pids $!"
	done
	wait $pids
	off() { sed -n 's/.*clock \([-+][0-9.]*\) ms from the server.s (+- \([0-9.]*\) ms.*/\1 \2/p' "$1"; }
	measured=$(echo "$(off "$WORK/skew2.err") $(off "$WORK/skew0.err")" | awk '{ printf "%.3f %.3f", $1 - $3, $2 + $4 }')
	# The error is the probes' round trip: under 5 ms in the timing tier; on a
	# busy host (three replays and the mock on two cores, under the sanitizers)
	# it grows, and only an error past the skew itself would say nothing.
	err_max=$([ -n "$TIMING" ] && echo 5 || echo 40)
	check "the skewed host's offset is measured: 40 ms within its error, under $err_max ms ($measured ms)" \
		awk -v m="$measured" -v e="$err_max" 'BEGIN { split(m, a, " "); d = a[1] - 40; if (d < 0) d = -d; exit !(a[2] != "" && d <= a[2] + 0.5 && a[2] < e) }'
	check "... and the unskewed host's is 0 within its error ($(off "$WORK/skew0.err") ms)" \
		awk -v m="$(off "$WORK/skew0.err")" 'BEGIN { split(m, a, " "); d = a[1] < 0 ? -a[1] : a[1]; exit !(a[2] != "" && d <= a[2] + 0.002) }'
	tb analyze load --db "$WORK/skew.db" "$WORK"/skew*.jsonl.gz 2>/dev/null
	tb analyze report --db "$WORK/skew.db" >"$WORK/skew.txt"
	check "... and analyze warns that the clocks disagree, naming the shard" \
		grep -Eq "warning: the hosts' clocks disagree by (3[5-9]|4[0-5])\.[0-9]+ ± [0-9.]+ ms \(shard 2/3 on" "$WORK/skew.txt"
	# (a shard that starts late widens it: 50 ms is the timing tier's bound,
	# 40 + 10 x SLACK elsewhere)
	spread_max=$([ -n "$TIMING" ] && echo 50 || echo $((40 + 10 * SLACK)))
	check "... the start spread shows the 40 ms (over 35, under $spread_max)" sh -c \
		"sed -n 's/.*start spread \([0-9.]*\) ms.*/\1/p' '$WORK/skew.txt' | awk '{ exit !(\$1 > 35 && \$1 < $spread_max) }'"
fi
finish
