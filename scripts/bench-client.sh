#!/bin/sh
# bench-client.sh - section 1 of make bench: client overhead, the anchor
# protocol of published LLM benchmark clients. The mock streams 100 tokens,
# 50 ms TTFT, 10 ms per token; replay runs at C = 1, 64, 100, 1000. TTFT error
# = median TTFT - 50 ms: the mock's own schedule is the reference. replay
# opens a level's C connections before its clock starts, so the error over
# ALL requests of a level, first wave included, is the headline; beside it
# the error over the requests that found their connection open, and how
# many had to connect all the same. Each level runs RUNS times,
# interleaved (1, 64, 100, 1000, 1, 64, ...); medians are reported. C=64
# with 128 requests is the fair-sweep check (a fresh level's median TTFT
# within 1 ms of the mock's 50 ms), here rather than in make test: its
# first wave of 64 requests through one client thread and one mock
# thread varies by milliseconds with what else the machine runs.
#
# The floor under the figures, measured in the same run, beside the mock's
# and replay's: build/bench/bench_floor (tests/bench/bench_floor.c) joins
# two processes that only write(2) and read(2). "stream" sends the same
# events (180 bytes, the size of one of the mock's, every 10 ms on each of
# C connections): the machine's share of an event's CPU. "loop" runs each
# level's closed loop itself (the same requests, 50 ms TTFT, 10 ms per
# token, 100 events of the mock's sizes) without HTTP, JSON or libraries:
# the machine's share of the TTFT error and of the P99 inter-token gap.
# "curl" runs that loop with libcurl as the reader, as replay uses it and
# as lean as it goes, first against loop's writer, then against the mock:
# one part swapped for the real one at each step (machine; + libcurl;
# + the mock; + replay's own code), each step's share is its distance
# from the last.
#
# Where the machine, not the code, is the limit: the C = 1000 level again
# with replay pinned to core 0 and a second mock to core 1 (taskset), each
# with a core of its own; the row "1000 pinned" shows each one's core busy
# beside the two together.
#
# Writes $PLOTS/bench-client.png (TTFT error against C).

. "$(dirname "$0")/bench-lib.sh"

FLOOR=${BENCH_FLOOR:-build/bench/bench_floor}

levels="1:6 64:128 100:500 1000:3000"   # C:requests
[ "$QUICK" = 1 ] && levels="1:3 64:128 100:200"
pinned=""   # the pinned C = 1000 level, C:requests
if [ "$QUICK" != 1 ] && command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	pinned="1000:3000"
fi

# Median TTFT error (ms) of the exported measured requests: all of them,
# or (open) those that found their connection open.
ttft_error() {  # csv all|open
	awk -F, -v which="$2" 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
		$k["warmup"] == 0 && (which == "all" || $k["new_connection"] == 0) {
			print $k["ttft_ms"] - 50 }' "$1" | median
}

# Measured requests that had to open their connection.
new_connections() {  # csv
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
		$k["warmup"] == 0 && $k["new_connection"] == 1 { n++ } END { print n + 0 }' "$1"
}

# Runs one replay level against $endpoint (its mock: $mock), replay
# started through $pin_replay (empty, or taskset); appends to $W/client
# the line "LABEL ttft_err_all_ms itl_p99_ms cpu_s rss_mib ttft_err_open_ms
# mock_cpu_s wall_s new_connections". The mock's CPU over the same replay
# says how much of the machine the two processes needed together.
client_run() {  # LABEL C N
	rm -f "$W/r.jsonl.gz" "$W/r.db"
	m0=$(cpu_s "$mock")
	t0=$(now)
	$pin_replay "$TB" replay --endpoint "$endpoint" -c "$2" -n "$3" --warmup 0 --quiet \
		-o "$W/r.jsonl.gz" "$W/trace.jsonl.gz" >/dev/null 2>"$W/err"
	t1=$(now)
	m1=$(cpu_s "$mock")
	"$TB" analyze load --db "$W/r.db" "$W/r.jsonl.gz" 2>/dev/null
	"$TB" analyze report --db "$W/r.db" --format csv >"$W/r.csv"
	"$TB" analyze export --db "$W/r.db" --format csv >"$W/req.csv"
	printf "%s %.3f %.3f " "$1" "$(ttft_error "$W/req.csv" all)" "$(csv_col "$W/r.csv" p99_itl_ms)" >>"$W/client"
	sed -n 's/.*client cpu \([0-9.]*\) s, peak RSS \([0-9.]*\) MiB.*/\1 \2/p' "$W/err" |
		tr '\n' ' ' >>"$W/client"
	printf "%.3f %s %s %s\n" "$(ttft_error "$W/req.csv" open)" \
		"$(awk -v a="$m0" -v b="$m1" 'BEGIN { print b - a }')" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
		"$(new_connections "$W/req.csv")" >>"$W/client"
}

"$TB" record synth -n 64 --input-tokens 32 --output-tokens 100 -o "$W/trace.jsonl.gz" 2>/dev/null
pin_replay=""
if [ -n "$pinned" ]; then
	start_mock taskset -c 1 --ttft-ms 50 --itl-ms 10
	mock_pinned=$mock endpoint_pinned=$endpoint
fi
start_mock --ttft-ms 50 --itl-ms 10
mock_shared=$mock endpoint_shared=$endpoint
: >"$W/client"
: >"$W/floor"
: >"$W/loop"
: >"$W/curl"
: >"$W/curlmock"
i=0
while [ $i -lt "$RUNS" ]; do
	for l in $levels; do
		client_run "${l%%:*}" "${l%%:*}" "${l##*:}"
	done
	if [ -n "$pinned" ]; then
		mock=$mock_pinned endpoint=$endpoint_pinned pin_replay="taskset -c 0"
		client_run "${pinned%%:*}p" "${pinned%%:*}" "${pinned##*:}"
		mock=$mock_shared endpoint=$endpoint_shared pin_replay=""
	fi
	for l in $levels; do
		c=${l%%:*}
		echo "$c $("$FLOOR" stream "$c" 100 10000 180)" >>"$W/floor" ||
			{ say "bench-client: $FLOOR failed"; exit 1; }
		echo "$c $("$FLOOR" loop "$c" "${l##*:}" 50000 10000 100)" >>"$W/loop" ||
			{ say "bench-client: $FLOOR failed"; exit 1; }
		echo "$c $("$FLOOR" curl "$c" "${l##*:}" 50000 10000 100)" >>"$W/curl" ||
			{ say "bench-client: $FLOOR curl failed"; exit 1; }
		m0=$(cpu_s "$mock_shared")
		line=$("$FLOOR" curl "$c" "${l##*:}" 50000 10000 100 "$endpoint_shared") ||
			{ say "bench-client: $FLOOR curl against the mock failed"; exit 1; }
		echo "$c $line writer_cpu_s $(awk -v a="$m0" -v b="$(cpu_s "$mock_shared")" 'BEGIN { print b - a }')" \
			>>"$W/curlmock"
	done
	say "   round $((i + 1))/$RUNS"
	i=$((i + 1))
done

# Median of column COL at level C.
med() {  # C col
	awk -v c="$1" -v k="$2" '$1 == c { print $k }' "$W/client" | median
}
# Median CPU per token event (µs) at level KEY of REQS requests: COL 4 the
# client's, 7 the mock's.
per_event() {  # KEY REQS COL
	awk -v c="$1" -v n="$2" -v k="$3" '$1 == c { printf "%.1f\n", $k * 1e6 / (n * 100) }' \
		"$W/client" | median
}
# Median cores the client and the mock kept busy at level KEY.
cores_busy() {  # KEY
	awk -v c="$1" '$1 == c { printf "%.2f\n", ($4 + $7) / $8 }' "$W/client" | median
}

echo "## 1. Client overhead"
echo
echo "Mock: 50 ms TTFT, 10 ms per token, 100 tokens. TTFT error = median TTFT − 50 ms"
echo "over all requests of a level, first wave included: replay opens the level's C"
echo "connections before its clock starts. Beside it, the error over the requests that"
echo "found their connection open, and how many measured requests had to connect anyway."
echo "Reference figures published for other clients (4 cores): Rust +2.6 / +3.5 / +28 ms,"
echo "Python +3.8 / +23.4 / +294 ms at C = 1 / 100 / 1000. Goal here (2 cores): ≤ 0.2 / 1 / 10 ms,"
echo "and ≤ 1 ms at C = 64 (128 requests: a fresh level, half of it the first wave)."
echo
echo "The last two columns: the mock's CPU per token event over the same replays, and"
echo "both processes' CPU time ÷ the replay's wall time, the cores the two needed together"
echo "(this machine has $(nproc); near it, both queue for a core and the error grows)."
echo
echo "| C | TTFT error, all requests (ms) | TTFT error, open connections (ms) | requests that connected | P99 inter-token gap (ms) | client CPU (s) | client CPU per event, start-up included (µs) | peak RSS (MiB) | mock CPU per event (µs) | cores busy, client + mock |"
echo "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
: >"$W/plot.dat"
# One row of the table: the runs labelled KEY, of REQS requests each.
row() {  # NAME KEY REQS
	printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n" "$1" "$(med "$2" 2)" "$(med "$2" 6)" \
		"$(med "$2" 9)" "$(med "$2" 3)" "$(med "$2" 4)" \
		"$(per_event "$2" "$3" 4)" \
		"$(med "$2" 5)" \
		"$(per_event "$2" "$3" 7)" "$(cores_busy "$2")"
}
for l in $levels; do
	c=${l%%:*}
	row "$c" "$c" "${l##*:}"
	echo "$c $(med "$c" 2) $(med "$c" 6)" >>"$W/plot.dat"
done
if [ -n "$pinned" ]; then
	row "${pinned%%:*}, pinned" "${pinned%%:*}p" "${pinned##*:}"
	echo
	echo "Pinned (replay on core 0, the mock on core 1, one core each): replay's core was" \
		"$(awk -v c="${pinned%%:*}p" '$1 == c { printf "%.0f\n", 100 * $4 / $8 }' "$W/client" | median)% busy," \
		"the mock's $(awk -v c="${pinned%%:*}p" '$1 == c { printf "%.0f\n", 100 * $7 / $8 }' "$W/client" | median)%" \
		"(CPU time ÷ the replay's wall time, medians)."
fi
echo
echo "The floor: CPU per event of two processes that only write(2) and read(2) the same events"
echo "over C loopback connections (\`bench_floor\`: one write per event, epoll and read on the other"
echo "side), the machine's share of an event; beside it the mock's and replay's (start-up included)."
echo
echo "| C | mock CPU per event (µs) | floor, writer (µs) | client CPU per event (µs) | floor, reader (µs) |"
echo "|--:|--:|--:|--:|--:|"
for l in $levels; do
	c=${l%%:*}
	reqs=${l##*:}
	printf "| %s | %s | %s | %s | %s |\n" "$c" \
		"$(per_event "$c" "$reqs" 7)" \
		"$(awk -v c="$c" '$1 == c { printf "%.1f\n", $5 * 1e6 / $3 }' "$W/floor" | median)" \
		"$(per_event "$c" "$reqs" 4)" \
		"$(awk -v c="$c" '$1 == c { printf "%.1f\n", $7 * 1e6 / $3 }' "$W/floor" | median)"
done
echo
# Median over bench_floor's lines at level C in FILE of EXPR, an awk
# expression over the line's named figures v["..."].
floor_expr() {  # FILE C EXPR
	awk -v c="$2" '$1 == c { for (i = 2; i < NF; i++) v[$i] = $(i + 1); print '"$3"' }' "$1" | median
}
# The three ways bench_floor ran level C (machine, + libcurl, + the mock):
# the median of EXPR in each, as three cells "A | B | C".
floor_ways() {  # C EXPR
	printf "%s | %s | %s" "$(floor_expr "$W/loop" "$1" "$2")" "$(floor_expr "$W/curl" "$1" "$2")" \
		"$(floor_expr "$W/curlmock" "$1" "$2")"
}
# The reader's CPU per event (µs); both processes' CPU ÷ the loop's wall time.
cpu_per_event='sprintf("%.1f", v["reader_cpu_s"] * 1e6 / v["events"])'
cores='sprintf("%.2f", (v["writer_cpu_s"] + v["reader_cpu_s"]) / v["wall_s"])'
echo "Where the TTFT error and the gap come from: each level's closed loop (the same"
echo "requests, 50 ms TTFT, 10 ms per token, 100 events of the mock's sizes) run four ways,"
echo "one part swapped for the real one at each step. Machine: two processes that only"
echo "write(2) and read(2) (\`bench_floor loop\`); + libcurl: libcurl as the reader, on"
echo "libevent as replay runs it and as lean as it goes, one easy handle per connection"
echo "and a write callback that only finds the events (\`bench_floor curl\`); + the mock:"
echo "that reader against the mock; + replay: section 1's figures. Each step's share is"
echo "its distance from the one before."
echo
echo "| C | TTFT error: machine (ms) | + libcurl (ms) | + the mock (ms) | + replay (ms) | P99 gap: machine (ms) | + libcurl (ms) | + the mock (ms) | + replay (ms) |"
echo "|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
for l in $levels; do
	c=${l%%:*}
	printf "| %s | %s | %s | %s | %s |\n" "$c" "$(floor_ways "$c" 'v["ttft_error_ms"]')" "$(med "$c" 2)" \
		"$(floor_ways "$c" 'v["gap_p99_ms"]')" "$(med "$c" 3)"
done
echo
echo "The same four: the reader's CPU per event (replay's: start-up included), and the cores"
echo "the two processes kept busy, their CPU time ÷ the loop's wall time (this machine has $(nproc))."
echo
echo "| C | reader CPU per event: machine (µs) | + libcurl (µs) | + the mock (µs) | + replay (µs) | cores busy: machine | + libcurl | + the mock | + replay |"
echo "|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
for l in $levels; do
	c=${l%%:*}
	printf "| %s | %s | %s | %s | %s |\n" "$c" "$(floor_ways "$c" "$cpu_per_event")" \
		"$(per_event "$c" "${l##*:}" 4)" "$(floor_ways "$c" "$cores")" "$(cores_busy "$c")"
done
echo
echo "![TTFT error against concurrency](docs/bench-client.png)"

mkdir -p "$PLOTS"
gnuplot <<EOF
set terminal pngcairo size 720,420 font ",10"
set output "$PLOTS/bench-client.png"
set title "Client overhead: TTFT error against concurrency (median of $RUNS runs)"
set xlabel "concurrency C"
set ylabel "TTFT error (ms)"
set logscale xy
set grid
set key top left
set xrange [0.7:1400]
plot "$W/plot.dat" using 1:(\$2 > 0.01 ? \$2 : 0.01) with linespoints pt 7 lw 2 title "replay, all requests", \
	"" using 1:(\$3 > 0.01 ? \$3 : 0.01) with linespoints pt 5 dt 2 title "replay, requests on open connections", \
	"-" using 1:2 with linespoints pt 9 lc rgb "gray40" title "goal", \
	"-" using 1:2 with linespoints pt 8 lc rgb "gray60" dt 3 title "Rust client (published, 4 cores)", \
	"-" using 1:2 with linespoints pt 6 lc rgb "gray60" dt 4 title "Python client (published, 4 cores)"
1 1
64 1
100 2
1000 10
e
1 2.6
100 3.5
1000 28
e
1 3.8
100 23.4
1000 294
e
EOF
