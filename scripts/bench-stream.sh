#!/bin/sh
# bench-stream.sh - section 6 of make bench: how many SSE events per second
# replay consumes on one core before its TTFT error passes 1 ms, and its CPU
# per event there.
#
# replay is pinned to core 0 and the mock to core 1 (taskset). The mock
# streams 200 tokens, one event each, 10 ms TTFT and 1 ms apart, so C
# streams make C x 1000 events/s. C climbs 1, 2, 4, 8, then by about 1.5x
# (doubling with QUICK=1), until the TTFT error (median TTFT - 10 ms,
# requests on open connections) passes 1 ms; the last level under it gives
# the events/s (token events of the level / its wall time) and replay's
# CPU per event (its own "client cpu" figure, start-up included). The
# sweep runs RUNS times; the sweep with the median events/s is reported.
# Each level also records how busy each side's core was, to tell whether
# replay or the mock ran out first.
#
# Writes $PLOTS/bench-stream.png (TTFT error against events/s, every level
# of every sweep).

. "$(dirname "$0")/bench-lib.sh"

tokens=200
steps="1 2 4 8 12 16 24 32 48 64 96 128 192 256 384 512"
rounds=4                 # requests per level = rounds x C (at least 8)
[ "$QUICK" = 1 ] && tokens=100 rounds=3 steps="1 2 4 8 16 32 64 128 256 512"

pin_replay=""
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	pin_replay="taskset -c 0"
	start_mock taskset -c 1 --ttft-ms 10 --itl-ms 1
else
	start_mock --ttft-ms 10 --itl-ms 1
fi
"$TB" record synth -n 64 --input-tokens 8 --output-tokens $tokens -o "$W/trace.jsonl.gz" 2>/dev/null

# One level; appends "sweep C events/s ttft_err_ms cpu_us_per_event
# replay_core_% mock_core_%" to $W/levels and sets $err.
level() {  # sweep C
	n=$(($2 * rounds)); [ $n -lt 8 ] && n=8
	rm -f "$W/r.jsonl.gz" "$W/r.db"
	m0=$(cpu_s "$mock")
	$pin_replay "$TB" replay --endpoint "$endpoint" -c "$2" -n $n --warmup 0 --quiet \
		-o "$W/r.jsonl.gz" "$W/trace.jsonl.gz" >/dev/null 2>"$W/err" || { cat "$W/err" >&2; exit 1; }
	m1=$(cpu_s "$mock")
	"$TB" analyze load --db "$W/r.db" "$W/r.jsonl.gz" 2>/dev/null
	"$TB" analyze report --db "$W/r.db" --format csv >"$W/r.csv"
	err=$(sqlite3 "$W/r.db" "SELECT ttft_ns / 1e6 - 10 FROM requests WHERE error IS NULL AND seq >= $2" | median)
	[ -n "$err" ] || err=1e9   # no request succeeded
	awk -v s="$1" -v c="$2" -v err="$err" -v m0="$m0" -v m1="$m1" \
		-v tokens="$(csv_col "$W/r.csv" tokens)" -v wall="$(csv_col "$W/r.csv" wall_s)" \
		-v cpu="$(sed -n 's/.*client cpu \([0-9.]*\) s.*/\1/p' "$W/err")" 'BEGIN {
		printf "%s %s %.0f %.3f %.2f %.0f %.0f\n", s, c, tokens / wall, err,
			cpu * 1e6 / tokens, 100 * cpu / wall, 100 * (m1 - m0) / wall }' >>"$W/levels"
}

# Per sweep, $W/knees gets "C events/s cpu_us replay_% mock_%" of the
# highest level under 1 ms, then "replay_% mock_%" of the first past it
# ("-" where there is none).
: >"$W/levels"
: >"$W/knees"
sweep=0
while [ $sweep -lt "$RUNS" ]; do
	pass=- fail="- -"
	for c in $steps; do
		level $sweep "$c"
		say "   sweep $((sweep + 1))/$RUNS: $(tail -1 "$W/levels" | awk '{ printf "C=%s %s events/s, TTFT error %s ms", $2, $3, $4 }')"
		if awk -v e="$err" 'BEGIN { exit !(e > 1) }'; then
			fail=$(tail -1 "$W/levels" | awk '{ print $6, $7 }')
			break
		fi
		pass=$(tail -1 "$W/levels" | awk '{ print $2, $3, $5, $6, $7 }')
	done
	[ "$pass" = - ] && pass="- - - - -"
	echo "$pass $fail" >>"$W/knees"
	sweep=$((sweep + 1))
done

# The median sweep (by events/s; one that never got under 1 ms counts 0),
# reported whole so that its figures belong together.
set -- $(sort -k2,2n "$W/knees" | awk '{ r[NR] = $0 } END { print r[int((NR + 1) / 2)] }')

echo "## 6. Streaming throughput"
echo
if [ -n "$pin_replay" ]; then
	echo "replay on core 0, the mock on core 1 (taskset). The mock streams $tokens tokens, an SSE event"
else
	echo "replay and the mock unpinned (taskset or a second core missing). The mock streams $tokens tokens, an SSE event"
fi
echo "each, 10 ms TTFT, 1 ms apart; C rises ($(echo $steps | cut -d' ' -f1-6 | sed 's/ /, /g'), ...) until the TTFT error (median TTFT"
echo "− 10 ms over the requests on open connections) passes 1 ms. Of $RUNS sweeps, the one with the median"
echo "result: its highest level under 1 ms, the token events per second received there (events of the"
echo "level ÷ its wall time) and replay's CPU per event (its own client-CPU figure, start-up included)."
echo "The reference is the mock, the other end of the same streams: its core's load is shown beside replay's."
echo
echo "| C | events/s | replay CPU per event (µs) | replay's core busy | mock's core busy |"
echo "|--:|--:|--:|--:|--:|"
if [ "$1" = - ]; then
	echo "| none | TTFT error over 1 ms from C = 1 on | | | |"
else
	echo "| $1 | $2 | $3 | $4% | $5% |"
fi
echo
if [ "$6" = - ]; then
	echo "The TTFT error stayed under 1 ms up to the last level tried, C = ${steps##* }."
else
	echo "At the next level, past 1 ms, replay's core was $6% busy and the mock's $7%:"
	awk -v r="$6" -v m="$7" 'BEGIN {
		if (m >= 85 && m >= r) print "**the mock was the limit**, so this is a lower bound of what replay consumes.";
		else if (r >= 85) print "replay was the limit.";
		else print "neither side had its core to itself: another load on the machine was the limit." }'
fi
echo
echo "![TTFT error against events per second](docs/bench-stream.png)"

mkdir -p "$PLOTS"
gnuplot <<EOF
set terminal pngcairo size 720,420 font ",10"
set output "$PLOTS/bench-stream.png"
set title "replay on one core: TTFT error as the event rate rises ($RUNS sweeps)"
set xlabel "token events per second"
set ylabel "TTFT error (ms)"
set logscale xy
set grid
set key top left
plot "$W/levels" using 3:(\$4 > 0.01 ? \$4 : 0.01) with points pt 7 title "level of a sweep", \
	1 with lines dt 2 lc rgb "red" title "1 ms"
EOF
