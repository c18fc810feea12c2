#!/bin/sh
# bench.sh - make bench: tracebench measured against known references, on
# this machine, and BENCHMARKS.md written from the figures.
#
# 1. Client overhead (the anchor protocol of published LLM benchmark
#    clients): mock with 50 ms TTFT, 10 ms per token, 100 tokens; replay at
#    C = 1, 100, 1000. TTFT error = measured median TTFT - 50 ms; the mock's
#    own schedule is the reference. Each level runs RUNS times, interleaved
#    (1, 100, 1000, 1, 100, 1000, ...); medians are reported.
# 2. Open-loop accuracy: short requests at 1000 req/s; achieved / scheduled
#    rate and send-lag P99.
# 3. Raw request rate: replay's requests/s against wrk's (Debian package,
#    about the most a client does on loopback), same mock, 64 connections.
# 4. analyze: scripts/bench-analyze.sh (load vs sqlite3 .import, report on
#    1,000,000 requests).
#
#   RUNS   repetitions of each measurement (default 5)
#   QUICK  1: smaller runs (make bench-quick)

set -eu
TB=${TB:-./tracebench}
RUNS=${RUNS:-5}
QUICK=${QUICK:-0}
W=$(mktemp -d)
OUT=${BENCH_OUT:-BENCHMARKS.md}
mock=""
trap '[ -n "$mock" ] && kill $mock 2>/dev/null; rm -rf "$W"' EXIT INT TERM
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
if ! command -v wrk >/dev/null && [ "$(id -u)" -eq 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null 2>&1 || true
fi

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

start_mock() {
	rm -f "$W/port"
	"$TB" mock --quiet --listen 127.0.0.1:0 --port-file "$W/port" "$@" &
	mock=$!
	while [ ! -s "$W/port" ]; do sleep 0.05; done
	endpoint=http://127.0.0.1:$(cat "$W/port")
}

# Median TTFT error (ms) of the exported requests with seq in [lo, hi).
ttft_error() {  # csv lo hi
	awk -F, -v lo="$2" -v hi="$3" 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
		$k["seq"] >= lo && $k["seq"] < hi { print $k["ttft_ms"] - 50 }' "$1" | median
}

# Runs one replay level; appends to $W/client the line
# "C ttft_err_ms itl_p99_ms cpu_s rss_mib first_round_ttft_err_ms":
# the TTFT error is that of requests on open connections (after the first
# C); the first round, which opens the C connections, is reported apart.
client_run() {  # C N
	rm -f "$W/r.jsonl.gz" "$W/r.db"
	"$TB" replay --endpoint "$endpoint" -c "$1" -n "$2" --warmup 0 --quiet \
		-o "$W/r.jsonl.gz" "$W/trace.jsonl.gz" >/dev/null 2>"$W/err"
	"$TB" analyze load --db "$W/r.db" "$W/r.jsonl.gz" 2>/dev/null
	"$TB" analyze report --db "$W/r.db" --format csv >"$W/r.csv"
	"$TB" analyze export --db "$W/r.db" --format csv >"$W/req.csv"
	printf "%s %.3f " "$1" "$(ttft_error "$W/req.csv" "$1" 1000000000)" >>"$W/client"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
		{ printf "%.3f ", $k["p99_itl_ms"] }' "$W/r.csv" >>"$W/client"
	sed -n 's/.*client cpu \([0-9.]*\) s, peak RSS \([0-9.]*\) MiB.*/\1 \2/p' "$W/err" |
		tr '\n' ' ' >>"$W/client"
	printf "%.3f\n" "$(ttft_error "$W/req.csv" 0 "$1")" >>"$W/client"
}

echo "== 1. client overhead: mock 50 ms TTFT, 10 ms/token, 100 tokens"
"$TB" record synth -n 64 --input-tokens 32 --output-tokens 100 -o "$W/trace.jsonl.gz" 2>/dev/null
start_mock --ttft-ms 50 --itl-ms 10
levels="1:6 100:500 1000:3000"
[ "$QUICK" = 1 ] && levels="1:4 100:300" && RUNS=3
: >"$W/client"
i=0
while [ $i -lt "$RUNS" ]; do
	for l in $levels; do
		client_run "${l%%:*}" "${l##*:}"
	done
	i=$((i + 1))
done
kill $mock; wait $mock 2>/dev/null || true; mock=""

echo "== 2. open-loop accuracy: 1 token per request at 1000 req/s"
"$TB" record synth -n 64 --input-tokens 8 --output-tokens 1 -o "$W/short.jsonl.gz" 2>/dev/null
start_mock --ttft-ms 1 --itl-ms 1
n=5000
[ "$QUICK" = 1 ] && n=2000
: >"$W/open"
i=0
while [ $i -lt "$RUNS" ]; do
	rm -f "$W/o.jsonl.gz"
	"$TB" replay --endpoint "$endpoint" --rate 1000 -n $n --warmup 0 --quiet \
		-o "$W/o.jsonl.gz" "$W/short.jsonl.gz" >/dev/null 2>"$W/err"
	sed -n 's/.*scheduled \([0-9.]*\) req\/s, achieved \([0-9.]*\) req\/s; send lag P50 \([0-9.]*\) ms, P99 \([0-9.]*\) ms.*/\1 \2 \3 \4/p' \
		"$W/err" >>"$W/open"
	i=$((i + 1))
done
kill $mock; wait $mock 2>/dev/null || true; mock=""

echo "== 3. raw request rate: non-streamed 1-token replies, keep-alive, 64 connections"
zcat "$W/short.jsonl.gz" | sed 's/\\"stream\\":true/\\"stream\\":false/' | gzip >"$W/nostream.jsonl.gz"
start_mock --ttft-ms 0 --itl-ms 0
cat >"$W/post.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"model":"mock","messages":[{"role":"user","content":"hi"}],"max_tokens":1}'
wrk.headers["Content-Type"] = "application/json"
LUA
: >"$W/rate"
rn=20000
[ "$QUICK" = 1 ] && rn=5000
i=0
while [ $i -lt "$RUNS" ]; do
	rm -f "$W/q.jsonl.gz" "$W/q.db"
	"$TB" replay --endpoint "$endpoint" -c 64 -n $rn --warmup 0 --quiet \
		-o "$W/q.jsonl.gz" "$W/nostream.jsonl.gz" >/dev/null 2>&1
	"$TB" analyze load --db "$W/q.db" "$W/q.jsonl.gz" 2>/dev/null
	ours=$("$TB" analyze report --db "$W/q.db" --format csv |
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next } { print $k["ok"] / $k["wall_s"] }')
	if command -v wrk >/dev/null; then
		theirs=$(wrk -t1 -c64 -d5s -s "$W/post.lua" "$endpoint/v1/chat/completions" |
			awk '/^Requests\/sec/ { print $2 }')
	else
		theirs=0
	fi
	echo "$ours $theirs" >>"$W/rate"
	i=$((i + 1))
done
kill $mock; wait $mock 2>/dev/null || true; mock=""

echo "== 4. analyze"
if [ "$QUICK" = 1 ]; then N=100000 sh scripts/bench-analyze.sh >"$W/analyze" 2>&1;
else sh scripts/bench-analyze.sh >"$W/analyze" 2>&1; fi

{
	echo "# Benchmarks"
	echo
	echo "Written by \`make bench\` ($(date -u +%Y-%m-%d); $RUNS runs per figure, medians)."
	echo "Machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo),"
	echo "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1); the mock runs on the same machine."
	echo
	echo "## 1. Client overhead"
	echo
	echo "Mock: 50 ms TTFT, 10 ms per token, 100 tokens. TTFT error = median TTFT − 50 ms"
	echo "over the requests sent on open connections (all but the first C of a level);"
	echo "the first round, which also opens the C connections, is shown apart."
	echo "Reference figures published for other clients (4 cores): Rust +2.6 / +3.5 / +28 ms,"
	echo "Python +3.8 / +23.4 / +294 ms at C = 1 / 100 / 1000. Goal here (2 cores): ≤ 1 / 2 / 10 ms."
	echo
	echo "| C | TTFT error (ms) | P99 inter-token gap (ms) | client CPU (s) | client CPU per event, start-up included (µs) | peak RSS (MiB) | TTFT error, first round (ms) |"
	echo "|--:|--:|--:|--:|--:|--:|--:|"
	for l in $levels; do
		c=${l%%:*}
		reqs=${l##*:}
		printf "| %s | %s | %s | %s | %s | %s | %s |\n" "$c" \
			"$(awk -v c="$c" '$1 == c { print $2 }' "$W/client" | median)" \
			"$(awk -v c="$c" '$1 == c { print $3 }' "$W/client" | median)" \
			"$(awk -v c="$c" '$1 == c { print $4 }' "$W/client" | median)" \
			"$(awk -v c="$c" -v n="$reqs" '$1 == c { printf "%.1f\n", $4 * 1e6 / (n * 100) }' "$W/client" | median)" \
			"$(awk -v c="$c" '$1 == c { print $5 }' "$W/client" | median)" \
			"$(awk -v c="$c" '$1 == c { print $6 }' "$W/client" | median)"
	done
	echo
	echo "## 2. Open-loop accuracy"
	echo
	echo "$n requests of 1 token at a constant 1000 req/s (goal: within 1% of the rate, send lag P99 ≤ 1 ms)."
	echo
	echo "| achieved ÷ scheduled rate | send lag P50 (ms) | send lag P99 (ms) |"
	echo "|--:|--:|--:|"
	printf "| %s | %s | %s |\n" \
		"$(awk '{ printf "%.4f\n", $2 / $1 }' "$W/open" | median)" \
		"$(awk '{ print $3 }' "$W/open" | median)" \
		"$(awk '{ print $4 }' "$W/open" | median)"
	echo
	echo "## 3. Raw request rate"
	echo
	echo "Non-streamed 1-token replies, keep-alive, 64 connections, same mock; wrk (1 thread, 5 s) is the"
	echo "reference (goal: replay ≥ 0.5 × wrk)."
	echo
	echo "| replay (req/s) | wrk (req/s) | ratio |"
	echo "|--:|--:|--:|"
	if command -v wrk >/dev/null; then
		printf "| %s | %s | %s |\n" "$(awk '{ print $1 }' "$W/rate" | median)" \
			"$(awk '{ print $2 }' "$W/rate" | median)" \
			"$(awk '$2 > 0 { printf "%.3f\n", $1 / $2 }' "$W/rate" | median)"
	else
		echo "| $(awk '{ print $1 }' "$W/rate" | median) | wrk not installed (apt-get install wrk) | - |"
	fi
	echo
	echo "## 4. analyze"
	echo
	echo '```'
	cat "$W/analyze"
	echo '```'
	echo
	echo "Commands: \`make bench\` (this file), \`make bench-quick\` (smaller, for a quick look)."
} >"$OUT"
cat "$OUT"
