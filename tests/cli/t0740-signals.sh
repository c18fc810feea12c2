#!/bin/sh
# Signal storms: replay and record proxy killed with SIGINT, SIGTERM and
# SIGKILL at random moments, STORM_RUNS (20) times each, against a mock
# fast enough that many requests finish in every run.
#
# SIGINT/SIGTERM: replay exits 128+signal (130, 143), the proxy 0 (a
# signal is how a proxy is meant to stop); the output is a complete gzip
# stream holding every request that finished: replay's count matches its
# "wrote N results" line and its table, the proxy's holds every request
# whose client got [DONE]; the file loads without a truncation warning.
#
# SIGKILL: the readable prefix loads (exit 0; a warning about the cut is
# expected) and misses no request that finished more than BOUND seconds
# (1.5) before the kill, the proxy's, or BOUND and a tick (1 s), replay's:
# the proxy flushes once a second; replay asks its file's thread for a
# flush once a second, waiting for the one it asked the second before,
# then counts its finished requests in its --progress line, which the test
# stamps as it reads it; every request a line counts is on disk when the
# next line comes. The proxy's curl clients log when each got [DONE]. The
# loss seen is printed: for replay, how long before
# the kill the newest record on disk had finished (under steady load; run
# from --start-at, so the offsets in the file are on the test's clock),
# for the proxy, the oldest [DONE] missing from the file.
#
# The delays come from a seed printed first; TB_SEED=N repeats the plan.
# The SIGINT/SIGTERM runs and the SIGKILL runs of each program make four
# storms that go side by side (about 35 s in all on a quiet machine).
. tests/cli/lib.sh

# A fixed plan by default, so a failure repeats; TB_SEED picks another.
SEED=${TB_SEED:-740}
# Under valgrind a run takes seconds of start-up: 5 runs of each kind
# still take every path there (signal handlers, exits, leak checks).
RUNS=${STORM_RUNS:-20}
[ -n "$VG" ] && RUNS=${STORM_RUNS:-5}
echo "# $T: seed $SEED (TB_SEED=$SEED sh tests/cli/$T.sh repeats the plan)"

# The loss bound: the flush tick (1 s) and half a second for scheduling in
# the timing tier; under valgrind the ticks and the requests themselves run
# late, and a busy host may hold a tick back by more than half a second,
# so elsewhere the bound is the tick and two seconds.
BOUND=$(awk -v s="$SLACK" -v t="$TIMING" 'BEGIN { print 1 + (t != "" ? 0.5 * s : 2 * s) }')
# Replay's start (--start-at) is this far ahead of the launch; a start-up
# that takes longer (under valgrind, or load) starts late, which is fine.
LEAD=0.6
# Polls for a program to be up give up after this many 10 ms steps.
WAITS=$((1000 * SLACK))

start_mock --ttft-ms 5 --itl-ms 2
tb record synth -n 64 --input-tokens 8 --output-tokens 10 -o "$WORK/trace.jsonl.gz" 2>/dev/null
tb record synth -n 8 --input-tokens 8 --output-tokens 300 -o "$WORK/long.jsonl.gz" 2>/dev/null
mkfifo "$WORK/rk.fifo"

# The plan: one line per run, "program signal run delay mode", delays
# uniform in [0.05, 0.8] s after the start, for SIGKILL in [0.05, 2] s
# (replay, which starts 0.5 s after it is up) or [0.05, 2.5] s (the proxy)
# so that about half the kills come after the first flush, at 1 s, and a
# quarter or more after BOUND.
awk -v seed="$SEED" -v n="$RUNS" 'BEGIN {
	srand(seed)
	split("replay proxy", prog, " ")
	split("INT TERM KILL", sig, " ")
	for (p = 1; p <= 2; p++)
		for (s = 1; s <= 3; s++)
			for (i = 1; i <= n; i++) {
				hi = sig[s] != "KILL" ? 0.8 : prog[p] == "proxy" ? 2.5 : 2
				printf "%s %s %d %.3f %d\n", prog[p], sig[s], i,
					0.05 + rand() * (hi - 0.05), int(rand() * 2)
			}
}' >"$WORK/plan"

now() { date +%s.%N; }
# Sleeps until the wall-clock instant $1 (seconds since 1970).
sleep_until() {
	d=$(awk -v t="$1" -v n="$(now)" 'BEGIN { d = t - n; printf "%.3f", (d > 0 ? d : 0) }')
	sleep "$d"
}
# fail GROUP MESSAGE: counts a failed run of GROUP and says why.
fail() {
	echo "$2" >>"$WORK/fail.$1"
	echo "#   $1 $2"
}
signum() { case $1 in INT) echo 2 ;; TERM) echo 15 ;; KILL) echo 9 ;; esac; }
# Wall-clock finish offsets (s) of a results file's records, one a line.
finishes() {
	zcat "$1" 2>/dev/null | awk -F'[:,]' 'NR > 1 && /"e2e_ns"/ {
		for (i = 1; i < NF; i++) {
			if ($i == "\"send_ns\"") s = $(i + 1)
			if ($i == "\"e2e_ns\"") e = $(i + 1)
		}
		printf "%.6f\n", (s + e) / 1e9 }'
}

# ---- replay ---------------------------------------------------------

# SIGINT/SIGTERM: closed loop over levels 1,2,4,8 (about 2 s in all), or
# open loop at 200 requests/s for 5 s, killed after 'delay' seconds.
replay_soft() {  # sig run delay mode
	g=replay.$1
	out=$WORK/r-$1-$2.jsonl.gz
	if [ "$4" -eq 0 ]; then
		mode="-c 1,2,4,8 -n 40"
	else
		mode="--rate 200 -n 1000"
	fi
	rm -f "$WORK/r.err"    # (polled below before the new run may have made it)
	# shellcheck disable=SC2086
	$VG "$TB" replay -e "$ENDPOINT" $mode --warmup 1 --quiet --label "r$1$2" \
		-o "$out" "$WORK/trace.jsonl.gz" >"$WORK/r.out" 2>"$WORK/r.err" &
	pid=$!
	# The delay counts from the line replay prints once its signal
	# handlers are in place: before that, SIGINT to a background job of
	# a script is ignored (POSIX), so a run would go on to its end.
	i=0
	while ! grep -q "requests in" "$WORK/r.err" 2>/dev/null && [ $i -lt $WAITS ]; do
		sleep 0.01
		i=$((i + 1))
	done
	sleep "$3"
	kill -"$1" $pid
	wait $pid
	rc=$?
	where="run $2 (after $3 s, ${mode%% -n*})"
	if [ $rc -ne $((128 + $(signum "$1"))) ]; then
		fail "$g" "$where: exit $rc"
		return
	fi
	if [ ! -e "$out" ]; then
		fail "$g" "$where: no results file"
		return
	fi
	if ! zcat "$out" >"$WORK/r.jsonl" 2>/dev/null; then
		fail "$g" "$where: not a complete gzip stream"
		return
	fi
	# records in the file, the count on stderr, the table's ok + errors
	# (and the warm-ups, which it leaves out)
	awk 'function cell(l, e,  s) { s = substr(l, 1, e); sub(/.* /, "", s); return s }
		FILENAME ~ /jsonl$/ { if (FNR > 1 && !/^\{"type":"metrics"/) rec++; next }
		FILENAME ~ /err$/ {
			if (match($0, /wrote [0-9]+ results/)) wrote = substr($0, RSTART + 6, RLENGTH - 14)
			if (match($0, /^warm-up: [0-9]+ request/)) warm = substr($0, RSTART + 9, RLENGTH - 17)
			next }
		$1 == "C" { ok = index($0 " ", " Ok ") + 2; er = index($0 " ", " Err ") + 3; next }
		$1 ~ /^([0-9]+|open)$/ { table += cell($0, ok) + cell($0, er) }
		END { print rec + 0, (wrote == "" ? "-" : wrote), table + warm }' \
		"$WORK/r.jsonl" "$WORK/r.err" "$WORK/r.out" >"$WORK/r.sum"
	read -r records wrote table <"$WORK/r.sum"
	if [ "$records" != "$wrote" ] || [ "$records" != "$table" ]; then
		fail "$g" "$where: $records records, stderr says $wrote, the table $table"
		return
	fi
	"$TB" analyze load --db "$WORK/replay.db" "$out" >/dev/null 2>"$WORK/load.err"
	lrc=$?
	warned=
	while IFS= read -r l; do case $l in *warning*) warned=$l ;; esac; done <"$WORK/load.err"
	if [ $lrc -ne 0 ] || [ -n "$warned" ]; then
		fail "$g" "$where: analyze load: exit $lrc $warned"
		return
	fi
	echo "$records" >>"$WORK/records.$g"
}

# SIGKILL: closed loop from --start-at, killed 'delay' after it: at C=4
# with requests of ~25 ms (steady: one finishes every ~6 ms), or at C=8
# with requests of ~0.6 s that start and end together (bursts of 8).
# Once a second replay asks for a flush of the file (and waits for the
# one it asked a second before), then prints its --progress line with the
# count of finished requests; the test stamps each line as it reads it.
# Every request counted by the last line but one read before the kill must
# be in the file, and when the kill comes more than BOUND after replay is
# up, a line must have come within BOUND before it: together, no request
# that finished more than BOUND and a tick before the kill is lost. (A
# stamp can only be late, which makes the first check less strict, never
# wrong.)
replay_kill() {  # run delay mode
	g=replay.KILL
	out=$WORK/r-KILL-$1.jsonl.gz
	if [ "$3" -eq 0 ]; then
		mode="-c 4 $WORK/trace.jsonl.gz"
	else
		mode="-c 8 $WORK/long.jsonl.gz"
	fi
	at=$(awk -v n="$(now)" -v l="$LEAD" 'BEGIN { printf "%.3f", n + l }')
	rm -f "$WORK/rk.err"
	while IFS= read -r line; do echo "$(now) $line"; done <"$WORK/rk.fifo" >"$WORK/rk.err" &
	rd=$!
	# shellcheck disable=SC2086
	$VG "$TB" replay -e "$ENDPOINT" -n 20000 --warmup 0 --progress --label "rk$1" \
		--start-at "$at" -o "$out" $mode >/dev/null 2>"$WORK/rk.fifo" &
	pid=$!
	# Up (its flush timer starts next) once it says what it replays; the
	# run starts at --start-at, or then if that has passed. (Not its
	# "starting in" line: a start less than 0.1 s ahead is not announced,
	# and a wait for that line would outlast the whole run.)
	i=0
	while ! grep -q "requests in" "$WORK/rk.err" 2>/dev/null && [ $i -lt $WAITS ]; do
		sleep 0.01
		i=$((i + 1))
	done
	ready=$(now)
	sleep_until "$(awk -v a="$at" -v r="$ready" -v d="$2" 'BEGIN { printf "%.3f", (a > r ? a : r) + d }')"
	kill -KILL $pid
	killed=$(now)
	wait $pid 2>/dev/null
	rc=$?
	wait $rd
	where="run $1 (after $2 s)"
	if [ $rc -ne 137 ]; then
		# what replay said last, for the reason of an early end
		fail "$g" "$where: exit $rc; its stderr ended: $(tail -n 3 "$WORK/rk.err" | tr '\n' '|')"
		return
	fi
	if ! "$TB" analyze load --db "$WORK/replay-kill.db" "$out" >/dev/null 2>"$WORK/kload.err"; then
		fail "$g" "$where: analyze load: $(cat "$WORK/kload.err")"
		return
	fi
	n=$(requests_of "$out" 2>/dev/null | wc -l)
	# "count age": the count of the last line but one read before the
	# kill (on disk once the last one came), the last one's age at the kill
	awk -v k="$killed" '/ done / && $1 <= k { split($3, d, "/"); m = n; n = d[1]; age = k - $1 }
		END { printf "%d %.3f\n", m, (NR ? age : -1) }' "$WORK/rk.err" >"$WORK/rk.last"
	read -r seen age <"$WORK/rk.last"
	if [ "$n" -lt "$seen" ]; then
		fail "$g" "$where: the progress line before the last one read before the kill counted $seen finished requests, the file holds $n"
	elif awk -v a="$age" -v b="$BOUND" -v k="$killed" -v t="$ready" \
		'BEGIN { exit !(k - t > b && (a < 0 || a > b)) }'; then
		fail "$g" "$where: no progress line (flush) in the $BOUND s before the kill (the last $age s before)"
	fi
	awk -v k="$killed" -v t="$ready" -v b="$BOUND" 'BEGIN { exit !(k - t > b) }' &&
		echo "$1" >>"$WORK/tested.replay"
	# The figure, under steady load: how long before the kill the newest
	# record on disk finished (offsets count from --start-at, unless the
	# start was late).
	[ "$3" -eq 0 ] && grep -q "starting in" "$WORK/rk.err" || return
	k=$(awk -v k="$killed" -v a="$at" 'BEGIN { printf "%.3f", k - a }')
	last=$(finishes "$out" | sort -n | tail -n 1)
	window=$(awk -v k="$k" -v f="${last:-0}" 'BEGIN { printf "%.3f", k - f }')
	rate=$(awk -v n="$n" -v f="${last:-0}" 'BEGIN { printf "%.0f", (f > 0 ? n / f : 0) }')
	echo "$k $window $n $rate" >>"$WORK/loss.replay"
}

replay_storm() {  # INT TERM | KILL
	b=$(now)
	while read -r prog sig run delay mode; do
		[ "$prog" = replay ] || continue
		if [ "$sig" = KILL ] && [ "$1" = KILL ]; then
			replay_kill "$run" "$delay" "$mode"
		elif [ "$sig" != KILL ] && [ "$1" != KILL ]; then
			replay_soft "$sig" "$run" "$delay" "$mode"
		fi
	done <"$WORK/plan"
	echo "# replay $1 storm: $(awk -v b="$b" -v n="$(now)" 'BEGIN { printf "%.0f", n - b }') s"
}

# ---- record proxy ---------------------------------------------------

# A client: sequential streamed requests of ~165 ms, each with a marker of its own,
# until the proxy stops answering; a request whose reply ended with
# [DONE] is logged as "marker time-it-ended".
client() {  # proxy-url name
	j=0
	while [ $j -lt 1000 ]; do
		j=$((j + 1))
		m="$2-$j"
		curl -sfN --max-time 20 -H 'Content-Type: application/json' \
			-d "{\"model\":\"mock\",\"stream\":true,\"max_tokens\":80,\"messages\":[{\"role\":\"user\",\"content\":\"<$m>\"}]}" \
			"$1/v1/chat/completions" >"$W/$2.sse" 2>/dev/null || break
		last=
		while IFS= read -r l; do [ -n "$l" ] && last=$l; done <"$W/$2.sse"
		[ "$last" = "data: [DONE]" ] || break
		echo "$m $(now)" >>"$W/done.$2"
	done
}

proxy_run() {  # sig run delay
	g=proxy.$1
	out=$WORK/p-$1-$2.jsonl.gz
	rm -f "$W/pport"
	: >"$W/done.pa"
	: >"$W/done.pb"
	$VG "$TB" record proxy --upstream "$ENDPOINT" --listen 127.0.0.1:0 --port-file "$W/pport" \
		-q -o "$out" 2>"$W/p.err" &
	pid=$!
	i=0
	while [ ! -s "$W/pport" ] && [ $i -lt $WAITS ]; do sleep 0.01; i=$((i + 1)); done
	up=$(now)
	url=http://127.0.0.1:$(cat "$W/pport")
	client "$url" pa &
	c1=$!
	client "$url" pb &
	c2=$!
	sleep "$3"
	kill -"$1" $pid
	killed=$(now)
	wait $pid 2>/dev/null
	rc=$?
	wait $c1 $c2
	where="run $2 (after $3 s)"
	zcat "$out" >"$W/p.jsonl" 2>/dev/null
	whole=$?
	# "records said finished missing oldest": the file's records, the
	# count on stderr, the requests whose client got [DONE], how many of
	# those have no record, and how long before the kill the oldest of
	# these ended
	awk -v k="$killed" 'FILENAME ~ /jsonl$/ {
			if (FNR > 1) rec++
			for (s = $0; match(s, /<p[ab]-[0-9]+>/); s = substr(s, RSTART + RLENGTH))
				have[substr(s, RSTART + 1, RLENGTH - 2)] = 1
			next }
		FILENAME ~ /err$/ {
			if (match($0, /recorded [0-9]+ request/)) said = substr($0, RSTART + 9, RLENGTH - 17)
			next }
		{ done++; if (!($1 in have)) { miss++; if (k - $2 > old) old = k - $2 } }
		END { printf "%d %s %d %d %.3f\n", rec, (said == "" ? "-" : said), done, miss, old }' \
		"$W/p.jsonl" "$W/p.err" "$W/done.pa" "$W/done.pb" >"$W/p.sum"
	read -r records said finished missing oldest <"$W/p.sum"
	"$TB" record info "$out" >/dev/null 2>"$W/info.err"
	irc=$?
	warned=
	while IFS= read -r l; do warned="$warned$l"; done <"$W/info.err"
	if [ "$1" = KILL ]; then
		if [ $rc -ne 137 ]; then
			fail "$g" "$where: exit $rc"
		elif [ $irc -ne 0 ]; then
			fail "$g" "$where: record info: exit $irc $warned"
		elif awk -v o="$oldest" -v b="$BOUND" 'BEGIN { exit !(o > b) }'; then
			# clients that saw [DONE] BOUND seconds before the kill
			# must be in the file
			fail "$g" "$where: a client saw [DONE] $oldest s before the kill; not in the file ($missing missing)"
		fi
		echo "$missing $oldest $finished" >>"$WORK/loss.proxy"
		awk -v k="$killed" -v t="$up" -v b="$BOUND" 'BEGIN { exit !(k - t > b) }' &&
			echo "$2" >>"$WORK/tested.proxy"
		return
	fi
	if [ $rc -ne 0 ]; then
		fail "$g" "$where: exit $rc"
	elif [ $whole -ne 0 ]; then
		fail "$g" "$where: not a complete gzip stream"
	elif [ "$missing" -ne 0 ]; then
		fail "$g" "$where: $missing requests got [DONE] but have no record"
	elif [ "$records" != "$said" ]; then
		fail "$g" "$where: $records records, stderr says $said"
	elif [ $irc -ne 0 ] || [ -n "$warned" ]; then
		fail "$g" "$where: record info: exit $irc $warned"
	else
		echo "$finished" >>"$WORK/records.$g"
	fi
}

# The proxy storm's SIGINT/SIGTERM runs or its SIGKILL runs, in a
# directory $W of their own.
proxy_storm() {  # INT TERM | KILL
	b=$(now)
	W=$WORK/proxy-$1
	mkdir "$W"
	while read -r prog sig run delay mode; do
		[ "$prog" = proxy ] || continue
		if { [ "$sig" = KILL ] && [ "$1" = KILL ]; } || { [ "$sig" != KILL ] && [ "$1" != KILL ]; }; then
			proxy_run "$sig" "$run" "$delay"
		fi
	done <"$WORK/plan"
	echo "# proxy $1 storm: $(awk -v b="$b" -v n="$(now)" 'BEGIN { printf "%.0f", n - b }') s"
}

# Four storms side by side, each with files of its own.
began=$(now)
replay_storm INT >"$WORK/replay.log" 2>&1 &
s1=$!
replay_storm KILL >"$WORK/replay-kill.log" 2>&1 &
s2=$!
proxy_storm INT >"$WORK/proxy.log" 2>&1 &
s3=$!
proxy_storm KILL >"$WORK/proxy-kill.log" 2>&1 &
s4=$!
wait $s1 $s2 $s3 $s4
cat "$WORK/replay.log" "$WORK/replay-kill.log" "$WORK/proxy.log" "$WORK/proxy-kill.log"
echo "# $T: storms took $(awk -v b="$began" -v n="$(now)" 'BEGIN { printf "%.0f", n - b }') s"

failures() { [ -e "$WORK/fail.$1" ] && wc -l <"$WORK/fail.$1" || echo 0; }
spread() {  # "min-max" of the numbers in file $1
	[ -e "$1" ] && sort -n "$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo "-" hi }'
}
for sig in INT TERM; do
	code=$((128 + $(signum $sig)))
	check "replay SIG$sig x$RUNS: exit $code, whole gzip, every issued request in the file and the table, loads cleanly ($(spread "$WORK/records.replay.$sig") records)" \
		test "$(failures replay.$sig)" -eq 0
	check "proxy SIG$sig x$RUNS: exit 0, whole gzip, a record for every client that got [DONE] ($(spread "$WORK/records.proxy.$sig") of them), loads cleanly" \
		test "$(failures proxy.$sig)" -eq 0
done

# The measured SIGKILL loss: replay's window (kill to newest record on
# disk) in the runs killed after the first flush, and the proxy's oldest
# finished-but-missing request.
: >>"$WORK/loss.replay"
: >>"$WORK/loss.proxy"
rloss=$(awk '$1 > 1.1 { n++; t += $2; if ($2 > w) { w = $2; r = $4 } }
	END { printf "in %d runs killed after 1.1 s the newest record on disk finished %.2f s before the kill on average, %.2f s at worst (~%d requests at %d/s)", n, n ? t / n : 0, w, w * r, r }' "$WORK/loss.replay" 2>/dev/null)
ploss=$(awk '{ m += $1; d += $3; if ($2 > o) o = $2 } END { printf "%d of %d finished requests missing in all, the oldest %.2f s before the kill", m, d, o }' "$WORK/loss.proxy" 2>/dev/null)
tested() { [ -e "$WORK/tested.$1" ] && wc -l <"$WORK/tested.$1" || echo 0; }
check "replay SIGKILL x$RUNS: exit 137, the prefix loads, no finished request older than $BOUND s and a tick lost ($(tested replay) runs killed later than that; $rloss)" \
	test "$(failures replay.KILL)" -eq 0
check "proxy SIGKILL x$RUNS: the prefix reads, no client's [DONE] older than $BOUND s lost ($(tested proxy) runs killed later than that; $ploss)" \
	test "$(failures proxy.KILL)" -eq 0
finish
