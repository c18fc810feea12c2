#!/bin/sh
# bench-clientbound.sh - section 14 of make bench: does each level's bound
# on the client's own error (issue 34, lib/clientbound.h) cover the true
# error? The mock (50 ms TTFT, 10 ms per token, 8 tokens) writes with
# --truth what it made of each request, taken as each token event went
# out: its TTFT from the request's arrival and the gaps between its
# events. Joined to replay's records by the salt (the prompt's first
# word), a request's TTFT less the mock's is the client's and the
# network's share, and a gap's error its distance from the gap the mock
# made (not from the 10 ms it meant: a mock late on a busy host is the
# server's delay, which the client rightly sees). Each C of 1, 10, 100,
# 1000 is a replay of its own, on a quiet machine and with two busy loops
# (one per core of a 2-core machine) competing for the cores; RUNS rounds
# of each. A level is covered at P50 (P99) when its bound at P50 (P99) is
# at least the true error's P50 (P99); the table gives each, and whether
# replay marked the level client-limited. Each replay runs again with
# --no-client-watch: what the watch costs, the true error with it and
# without it. Beside it, bench_floor wake (tests/bench/bench_floor.c): how
# late a thread blocked in epoll wakes for a timer and for a socket's data,
# quiet and busy, the reason the client's own part of the bound counts only
# the loop's part of its probe timer's lateness.
#
#   LEVELS   "C:N ..." (default "1:100 10:200 100:400 1000:2000"; QUICK:
#            "1:40 10:100 100:200 1000:1000")
#   LOADS    "quiet busy" (default both)

. "$(dirname "$0")/bench-lib.sh"

LEVELS=${LEVELS:-"1:100 10:200 100:400 1000:2000"}
[ "$QUICK" = 1 ] && LEVELS=${LEVELS_QUICK:-"1:40 10:100 100:200 1000:1000"}
LOADS=${LOADS:-quiet busy}
FLOOR=${BENCH_FLOOR:-build/bench/bench_floor}

"$TB" record synth -n 64 --input-tokens 16 --output-tokens 8 -o "$W/trace.jsonl.gz" 2>/dev/null
# The mock ahead of the busy loops where the user may raise a priority
# (root): its own wake-up for a request, late behind a busy loop, is the
# server's delay, which the truth would count and the client cannot see.
prio=""
nice -n -15 true 2>/dev/null && prio="nice -15"
start_mock $prio --ttft-ms 50 --itl-ms 10 --truth "$W/truth"

# Two busy loops, as long as a load of kind busy runs.
busy_on() {
	spawn sh -c 'while :; do :; done'
	b1=$last
	spawn sh -c 'while :; do :; done'
	b2=$last
}
busy_off() { stop "$b1"; stop "$b2"; }

# One replay at C with N requests; appends to $W/rows:
# LOAD C truth50 truth99 bound50 bound99 gtruth50 gtruth99 gbound50 gbound99 limited
#   loop50 loop99 gloop50 gloop99
# (the loop* the bounds had they counted the loop's part of the probe
# timer's lateness alone, as the client's own part does)
# and with WATCH "off" (--no-client-watch) to $W/rows_off:
# LOAD C truth50 truth99 gtruth50 gtruth99
run() {  # LOAD C N [WATCH]
	rm -f "$W/r.jsonl.gz" "$W/r.db"
	: >"$W/truth"           # the mock appends: this replay's lines alone
	off=""
	[ "${4:-on}" = off ] && off=--no-client-watch
	"$TB" replay --endpoint "$endpoint" -c "$2" -n "$3" --quiet $off \
		-o "$W/r.jsonl.gz" "$W/trace.jsonl.gz" >/dev/null 2>"$W/err" ||
		{ cat "$W/err" >&2; exit 1; }
	# the requests measured, joined to the mock's truth by their salts
	zcat "$W/r.jsonl.gz" | jq -c 'select(.type == null and .warmup == false and .error == null
		and .salt != null) | {salt, ttft_ns, itl_us}' >"$W/client"
	jq -n -r --slurpfile t "$W/truth" --slurpfile c "$W/client" '
		($t | map({key: .first_word, value: .}) | from_entries) as $m
		| $c[] | $m[.salt] as $u | select($u != null)
		| "t \(.ttft_ns / 1e6 - $u.ttft_ms)",
		  ([.itl_us, $u.gaps_us] | transpose[] | select(.[0] != null and .[1] != null)
		   | "g \((.[0] - .[1]) / 1e3 | if . < 0 then -. else . end)")' >"$W/joined"
	[ "$(grep -c '^t ' "$W/joined")" -ge $(($3 * 9 / 10)) ] ||
		{ echo "bench-clientbound: only $(grep -c '^t ' "$W/joined") of $3 requests found in the mock's truth" >&2; exit 1; }
	awk '$1 == "t" { print $2 }' "$W/joined" >"$W/rest"
	awk '$1 == "g" { print $2 }' "$W/joined" >"$W/gap"
	if [ -n "$off" ]; then
		echo "$1 $2 $(percentile 50 <"$W/rest") $(percentile 99 <"$W/rest")" \
			"$(percentile 50 <"$W/gap") $(percentile 99 <"$W/gap")" >>"$W/rows_off"
		return
	fi
	b=$(zcat "$W/r.jsonl.gz" | jq -r 'select(.type == "metrics" and .source == "host" and .at == "level_end")
		| .samples | (if .tracebench_client_run_wait_unread == 0 and .tracebench_client_loop_lag_p99_seconds != null
			then [.tracebench_client_loop_lag_p50_seconds, .tracebench_client_loop_lag_p99_seconds]
			else [.tracebench_client_timer_lag_p50_seconds, .tracebench_client_timer_lag_p99_seconds] end) as $used
		| [$used[0] - .tracebench_client_timer_lag_p50_seconds, $used[1] - .tracebench_client_timer_lag_p99_seconds] as $more
		| [.tracebench_client_bound_ttft_p50_seconds, .tracebench_client_bound_ttft_p99_seconds,
		  .tracebench_client_bound_gap_p50_seconds, .tracebench_client_bound_gap_p99_seconds,
		  .tracebench_client_bound_ttft_p50_seconds + $more[0], .tracebench_client_bound_ttft_p99_seconds + $more[1],
		  .tracebench_client_bound_gap_p50_seconds + $more[0], .tracebench_client_bound_gap_p99_seconds + $more[1]]
		| map(. * 1e3 | tostring) | join(" ")')
	"$TB" analyze load --db "$W/r.db" "$W/r.jsonl.gz" 2>/dev/null
	lim=$("$TB" analyze report --db "$W/r.db" --format csv | csv_col /dev/stdin client_limited)
	set -- "$1" "$2" $b
	echo "$1 $2 $(percentile 50 <"$W/rest") $(percentile 99 <"$W/rest") $3 $4" \
		"$(percentile 50 <"$W/gap") $(percentile 99 <"$W/gap") $5 $6 ${lim:-0} $7 $8 $9 ${10}" >>"$W/rows"
}

: >"$W/rows"
: >"$W/rows_off"
for load in $LOADS; do
	[ "$load" = busy ] && busy_on
	for k in 1 2 3; do
		line=$("$FLOOR" wake 2000) || exit 1
		echo "$load $line" >>"$W/wake"
	done
	i=0
	while [ $i -lt "$RUNS" ]; do
		for cn in $LEVELS; do
			run "$load" "${cn%%:*}" "${cn#*:}"
			run "$load" "${cn%%:*}" "${cn#*:}" off
		done
		say "   $load: round $((i + 1))/$RUNS"
		i=$((i + 1))
	done
	[ "$load" = busy ] && busy_off
done

echo "## 14. The client's own error"
echo
echo "Each level's bound on the client's share (replay's watch of itself: each request's issue"
echo "delay, each token read's delay with the thread's wait to run, a 2-ms probe timer's lag, the"
echo "warm-ups' round trip; lib/clientbound.h) against"
echo "the true error: the mock (\`--truth\`, 50 ms TTFT, 10 ms per token, 8 tokens) writes each"
echo "request's TTFT and gaps as it made them, taken as each token event went out; joined by the"
echo "salt, TTFT − the mock's is the client's and the network's share, and a gap's error its"
echo "distance from the mock's gap. One replay per C, $RUNS rounds, quiet and with two busy loops;"
if [ -n "$prio" ]; then
	echo "the mock at \`nice -n -15\` (its own wake-up for a request behind a busy loop is the server's"
	echo "delay, which the client cannot see)."
else
	echo "the mock at the busy loops' priority (not root): its own wake-up for a request behind a busy"
	echo "loop, the server's delay, is counted in the truth."
fi
echo "Cells: true error / bound, ms, medians over the rounds; covered = rounds whose bound ≥ truth."
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| load | C | TTFT P50 true / bound | covered | TTFT P99 true / bound | covered | gap P50 true / bound | covered | gap P99 true / bound | covered | client-limited |"
echo "|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
for load in $LOADS; do
	for cn in $LEVELS; do
		c=${cn%%:*}
		awk -v l="$load" -v c="$c" '$1 == l && $2 == c' "$W/rows" >"$W/sel"
		m() { awk -v k="$1" '{ print $k }' "$W/sel" | median | awk '{ printf "%.2f", $1 }'; }
		cov() { awk -v t="$1" -v b="$2" '{ n++; if ($b >= $t) k++ } END { printf "%d/%d", k, n }' "$W/sel"; }
		lim=$(awk '{ n++; if ($11 == 1) k++ } END { printf "%d/%d", k, n }' "$W/sel")
		echo "| $load | $c | $(m 3) / $(m 5) | $(cov 3 5) | $(m 4) / $(m 6) | $(cov 4 6) | $(m 7) / $(m 9) | $(cov 7 9) | $(m 8) / $(m 10) | $(cov 8 10) | $lim |"
	done
done
awk '{ n += 2; t += ($5 >= $3) + ($6 >= $4); g += ($9 >= $7) + ($10 >= $8) }
	END { printf "\nCovered: TTFT %d of %d level-percentiles (%.0f%%), gaps %d of %d (%.0f%%).\n",
		t, n, n ? 100 * t / n : 0, g, n, n ? 100 * g / n : 0 }' "$W/rows"
awk '{ n += 2; t += ($12 >= $3) + ($13 >= $4); g += ($14 >= $7) + ($15 >= $8)
	  w += ($5 - $12) + ($6 - $13) }
	END { printf "Had the bounds counted only the loop'"'"'s part of the probe timer'"'"'s lateness, as the client'"'"'s\n"
	      printf "own part does: TTFT %d of %d, gaps %d of %d, the TTFT bound %.2f ms smaller on average.\n",
		t, n, g, n, n ? w / n : 0 }' "$W/rows"

echo
echo "Why the client's own part counts the loop's part alone: a thread blocked in epoll woken by a"
echo "timerfd re-armed 2 ms ahead (the probe's) and by data written into a socket (\`bench_floor wake"
echo "2000\`, three runs of each load; ms, the runs' medians):"
echo
echo "| load | timer late P50 | timer late P99 | socket wake P50 | socket wake P99 |"
echo "|:--|--:|--:|--:|--:|"
for load in $LOADS; do
	awk -v l="$load" '$1 == l' "$W/wake" >"$W/sel"
	mw() { awk -v k="$1" '{ print $k }' "$W/sel" | median | awk '{ printf "%.3f", $1 }'; }
	echo "| $load | $(mw 3) | $(mw 5) | $(mw 7) | $(mw 9) |"
done

echo
echo "What the watch costs: the true error (ms, medians over the rounds) of the same replays with"
echo "the watch on and with \`--no-client-watch\` (no probe timer, no count of token reads, no"
echo "schedstat read a pass), run one after the other."
echo
echo "| load | C | TTFT P50 on / off | TTFT P99 on / off | gap P50 on / off | gap P99 on / off |"
echo "|:--|--:|--:|--:|--:|--:|"
for load in $LOADS; do
	for cn in $LEVELS; do
		c=${cn%%:*}
		awk -v l="$load" -v c="$c" '$1 == l && $2 == c' "$W/rows" >"$W/sel"
		awk -v l="$load" -v c="$c" '$1 == l && $2 == c' "$W/rows_off" >"$W/sel_off"
		mo() { awk -v k="$2" '{ print $k }' "$1" | median | awk '{ printf "%.2f", $1 }'; }
		echo "| $load | $c | $(mo "$W/sel" 3) / $(mo "$W/sel_off" 3) | $(mo "$W/sel" 4) / $(mo "$W/sel_off" 4) |" \
			"$(mo "$W/sel" 7) / $(mo "$W/sel_off" 5) | $(mo "$W/sel" 8) / $(mo "$W/sel_off" 6) |"
	done
done
