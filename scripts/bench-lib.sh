# bench-lib.sh - what the scripts/bench-*.sh sections share; sourced, not run.
#
# Each section script prints its part of BENCHMARKS.md (Markdown) on stdout
# and its progress on stderr, and can run alone:
#     QUICK=1 RUNS=3 sh scripts/bench-proxy.sh
#
#   TB     the tracebench binary (default ./tracebench)
#   RUNS   repetitions of each measurement (default 5; 3 when QUICK=1)
#   QUICK  1: smaller runs (make bench-quick)
#   PLOTS  folder the PNG plots are written to (default docs); the Markdown
#          links them as docs/NAME.png, so PLOTS is the docs/ folder beside
#          the Markdown file

set -eu
TB=${TB:-./tracebench}
QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then RUNS=${RUNS:-3}; else RUNS=${RUNS:-5}; fi
PLOTS=${PLOTS:-docs}
W=$(mktemp -d)
pids=""   # background processes to end on exit
trap 'for p in $pids; do kill "$p" 2>/dev/null || true; done; rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

say() { echo "$*" >&2; }
now() { date +%s.%N; }

# Median of the numbers on stdin, one per line; nothing when there are none.
median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else if (NR) print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# P-th percentile of the numbers on stdin, interpolated linearly between
# closest ranks (numpy's default, as lib/stats.c computes it).
percentile() {  # P
	sort -n | awk -v p="$1" '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		h = (NR - 1) * p / 100; i = int(h);
		print (i + 1 < NR) ? v[i + 1] + (h - i) * (v[i + 2] - v[i + 1]) : v[NR] }'
}

# Starts "$@" in the background, remembers it for the exit trap; sets $last.
spawn() {
	"$@" &
	last=$!
	pids="$pids $last"
}

# Ends a process started by spawn.
stop() {  # PID
	kill "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
	pids=$(echo "$pids" | tr ' ' '\n' | grep -vx "$1" | tr '\n' ' ')
}

# Starts the mock on a free port (extra arguments are its options, an
# optional "taskset -c N" first); sets $mock (its pid) and $endpoint.
start_mock() {
	rm -f "$W/mock.port"
	pin=""
	if [ "${1:-}" = taskset ]; then pin="taskset -c $3"; shift 3; fi
	if [ "${1:-}" = nice ]; then pin="$pin nice -n $2"; shift 2; fi
	spawn $pin "$TB" mock --quiet --listen 127.0.0.1:0 --port-file "$W/mock.port" "$@"
	mock=$last
	while [ ! -s "$W/mock.port" ]; do sleep 0.05; done
	endpoint=http://127.0.0.1:$(cat "$W/mock.port")
}

# CPU seconds a process has run so far: the scheduler's nanosecond count
# (/proc/PID/schedstat), else user + system time in clock ticks.
cpu_s() {  # PID
	if [ -r "/proc/$1/schedstat" ]; then
		awk '{ printf "%.6f\n", $1 / 1e9 }' "/proc/$1/schedstat"
	else
		awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); print ($12 + $13) / hz }' "/proc/$1/stat"
	fi
}

# Field NAME of every data row of a CSV file with a header row.
csv_col() {  # FILE NAME
	awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"
}
