# lib.sh - helpers sourced by the command-line tests (tests/cli/t*.sh).
#
#   check "what it shows" COMMAND...   PASS when COMMAND succeeds
#   skip "what it shows" "why"         SKIP: a check that cannot run here
#   have PROGRAM                       true when PROGRAM is on PATH
#   start_mock [MOCK FLAGS]            a mock on a free port; sets $ENDPOINT
#   start_proxy TRACE [FLAGS]          a record proxy in front of it; sets $PROXY
#   tb ARGS...                         the tracebench under test

set -u
T=$(basename "$0" .sh)
TB=${TB:-$(pwd)/build/tracebench}
WORK=$(mktemp -d)
MOCK_PID=""
MOCK_PIDS=""
PROXY_PID=""

# Every script ends with 'finish'. One that exits before it with status 0
# (an exit in the middle, a helper that gave up) fails here, so no check
# it did not reach goes unseen; run.sh fails any other status. skip_all
# "what" "why": the rest of the script cannot run here, said as a skip.
FINISHED=""
finish() {
	FINISHED=1
}
skip_all() {
	skip "$1" "$2"
	FINISHED=1
	exit 0
}

cleanup() {
	rc=$?
	if [ -z "$FINISHED" ] && [ $rc -eq 0 ]; then
		echo "FAIL $T: the script ended before its last check"
	fi
	[ -n "$PROXY_PID" ] && kill -9 "$PROXY_PID" 2>/dev/null
	[ -n "$MOCK_PID" ] && kill "$MOCK_PID" 2>/dev/null && wait "$MOCK_PID" 2>/dev/null
	# every mock a test started, also those it left running (a second
	# start_mock before a stop_mock) or kept under another name
	for p in $MOCK_PIDS; do kill "$p" 2>/dev/null; done
	rm -rf "$WORK"
}
trap cleanup EXIT

# requests_of FILE...: the request records of results files, one a line:
# without the header and the "metrics" records (the host's own at each
# level's start and end; a server's with --metrics-url). A command on PATH,
# so that the strings run by sh -c can use it too.
mkdir -p "$WORK/bin"
cat >"$WORK/bin/requests_of" <<'EOF_REQUESTS'
#!/bin/sh
for f in "$@"; do
	zcat "$f" | tail -n +2 | grep -v '^{"type":"metrics"'
done
EOF_REQUESTS
chmod +x "$WORK/bin/requests_of"
PATH="$WORK/bin:$PATH"
export PATH

VG=""
if [ -n "${TB_VALGRIND:-}" ]; then
	VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite"
fi

# Timing bounds are for the optimized build. Under valgrind or the
# sanitizers (make valgrind, make asan: memory checks) every program runs
# several to tens of times slower: bounds widen by SLACK.
SLACK=1
if [ -n "$VG" ] || [ -n "${TB_SLOW:-}" ]; then
	SLACK=4
fi

# True when $1 lies in [$2, $3].
within() {
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'
}

# Two tiers of timing checks. A test of the code must not fail because the
# host is busy: make test checks lower bounds (nothing gets faster than the
# mock's schedule), orderings, counts, exact schedule arithmetic and
# structural identities, which hold at any load. The tight upper bounds, a
# latency or a lag within a few ms of the schedule, say as much about the
# hour as about the code: they run only in the timing tier,
# TB_TEST_TIMING=1 (make test-timing, one script at a time on a quiet
# machine). Under valgrind the mock and the client run 20 to 50 times
# slower, so even that tier leaves the upper bounds out.
TIMING=""
[ -n "${TB_TEST_TIMING:-}" ] && [ -z "$VG" ] && TIMING=1

# upper N: N, the upper bound of a time, in the timing tier; elsewhere one
# that any run meets, so that only the lower bound of the check is tested.
upper() {
	if [ -n "$TIMING" ]; then echo "$1"; else echo 1e15; fi
}
# True when the time $1 lies in [$2, $3] ($3 checked in the timing tier
# only; elsewhere the loose bound $4 when given: one that only a hang or a
# broken schedule passes, never a busy host).
within_time() {
	if [ -z "$TIMING" ] && [ $# -ge 4 ] && [ -z "$VG" ]; then
		within "$1" "$2" "$4"
	else
		within "$1" "$2" "$(upper "$3")"
	fi
}
# True when the rate or mean $1 lies in [$2, $3] in the timing tier, and
# within a factor of two of that band elsewhere: a figure a late timer
# moves both ways (an achieved rate), where no bound holds at any load.
roughly() {
	if [ -n "$TIMING" ]; then
		within "$1" "$2" "$3"
	else
		within "$1" "$(awk -v v="$2" 'BEGIN { print v / 2 }')" "$(awk -v v="$3" 'BEGIN { print v * 2 }')"
	fi
}
# Appended to the description of a check whose upper bound is off.
UPPER_NOTE=""
[ -z "$TIMING" ] && UPPER_NOTE=" (upper bound: timing tier)"
# Appended to the description of a check that roughly() loosens.
ROUGH_NOTE=""
[ -z "$TIMING" ] && ROUGH_NOTE=" (within 2x; the band: timing tier)"

tb() {
	$VG "$TB" "$@"
}

check() {
	desc=$1
	shift
	if "$@"; then
		echo "PASS $T: $desc"
	else
		echo "FAIL $T: $desc"
	fi
}

# skip "what it shows" "why": the check (or block of checks) named cannot
# run here; tests/run.sh counts it as skipped, neither passed nor failed.
skip() {
	echo "SKIP $T: $1 ($2)"
}

have() {
	command -v "$1" >/dev/null 2>&1
}

# preload NAME WHAT: sets SHIM to tests/shim/NAME.c's library, built
# beside $TB (make test builds them), to be preloaded into a program. Where
# it cannot be (a sanitizer's runtime must be the first library loaded; not
# built), skips the check WHAT with the reason and returns 1.
preload() {
	SHIM=$(dirname "$TB")/tests/$1.so
	if ldd "$TB" 2>/dev/null | grep -q libasan; then
		skip "$2" "a sanitizer's runtime cannot follow a preloaded library"
		return 1
	fi
	if [ ! -f "$SHIM" ]; then
		skip "$2" "$SHIM is not built (make test builds it)"
		return 1
	fi
}

# Starts the mock on a free loopback port and waits until it listens.
start_mock() {
	rm -f "$WORK/port"
	# Not through tb(): $! must be the mock itself, not a subshell.
	$VG "$TB" mock --quiet --listen 127.0.0.1:0 --port-file "$WORK/port" "$@" &
	MOCK_PID=$!
	MOCK_PIDS="$MOCK_PIDS $MOCK_PID"
	i=0
	while [ ! -s "$WORK/port" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	ENDPOINT=http://127.0.0.1:$(cat "$WORK/port")
}

# A free loopback port, found by binding port 0 (for servers that cannot).
free_port() {
	rm -f "$WORK/free"
	"$TB" mock --quiet --listen 127.0.0.1:0 --port-file "$WORK/free" &
	fp=$!
	while [ ! -s "$WORK/free" ]; do sleep 0.05; done
	kill $fp
	wait $fp 2>/dev/null
	cat "$WORK/free"
}

stop_mock() {
	kill "$MOCK_PID" && wait "$MOCK_PID"
	MOCK_PID=""
}

# Value of column $2 (by header name) of csv file $1, row $3 (1 = first data row).
csv_field() {
	# RFC 4180 fields: a quoted one may hold commas and doubled quotes
	# (a reason in words, a label); no field spans lines here
	awk -v col="$2" -v row="$3" 'function split_csv(line, f,  n, q, c, i, v) {
			n = 1; q = 0; v = ""
			for (i = 1; i <= length(line); i++) {
				c = substr(line, i, 1)
				if (q && c == "\"" && substr(line, i + 1, 1) == "\"") { v = v c; i++ }
				else if (c == "\"") q = !q
				else if (c == "," && !q) { f[n++] = v; v = "" }
				else v = v c
			}
			f[n] = v
			return n }
		NR == 1 { n = split_csv($0, h); for (i = 1; i <= n; i++) if (h[i] == col) c = i; next }
		NR - 1 == row { split_csv($0, f); print f[c] }' "$1"
}

# The "Ok Err" cells of the row of level $2 (a concurrency, or open) of the
# text table in file $1 (replay's live table, analyze report), found under
# their right-aligned headings, whatever columns come between.
table_ok_err() {
	awk -v lvl="$2" 'function cell(l, e,  s) { s = substr(l, 1, e); sub(/.* /, "", s); return s }
		$1 == "C" && !ok { ok = index($0 " ", " Ok ") + 2; er = index($0 " ", " Err ") + 3; next }
		ok && $1 == lvl { print cell($0, ok), cell($0, er); exit }' "$1"
}

# The cell under heading $3 (as printed, e.g. "Err" or "P50 TPOT (ms)") of
# the row of level $2 of the text table in file $1, found under the last
# header above the row (replay's live table may print another when a
# column appears); empty when the table has no such column.
table_cell() {
	awk -v lvl="$2" -v h="$3" 'function cell(l, e,  s) { s = substr(l, 1, e); sub(/.* /, "", s); return s }
		$1 == "C" { at = index($0 " ", " " h " "); at = at ? at + length(h) : 0; next }
		$1 == lvl { if (at) print cell($0, at); exit }' "$1"
}

# start_proxy TRACE [FLAGS]: a record proxy in front of $UPSTREAM (default
# $ENDPOINT) writing TRACE, its stderr appended to $WORK/proxy.err; sets
# $PROXY_PID and $PROXY.
start_proxy() {
	out=$1
	shift
	rm -f "$WORK/pport"
	$VG "$TB" record proxy --upstream "${UPSTREAM:-$ENDPOINT}" --listen 127.0.0.1:0 \
		--port-file "$WORK/pport" -o "$out" "$@" 2>>"$WORK/proxy.err" &
	PROXY_PID=$!
	i=0
	while [ ! -s "$WORK/pport" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	PROXY=http://127.0.0.1:$(cat "$WORK/pport")
}

# stop_proxy [SIGNAL]: ends the proxy, leaves its exit status in $PROXY_RC.
stop_proxy() {
	kill -"${1:-INT}" "$PROXY_PID"
	wait "$PROXY_PID"
	PROXY_RC=$?
	PROXY_PID=""
}
