#!/bin/sh
# bench.sh - make bench: tracebench measured against known references, on
# this machine, and BENCHMARKS.md written from the figures. Each section is
# a script of its own that prints its Markdown (scripts/bench-lib.sh says
# how they run); this one runs them in order, times them and puts the file
# together, with the time of each section and the total at the end.
#
#   1. client overhead   bench-client.sh   TTFT error against the mock's schedule
#   2. open-loop         bench-open.sh     achieved ÷ target rate, send lag
#   3. request rate      bench-rate.sh     replay against wrk
#   4. analyze           bench-analyze.sh  load against sqlite3 .import, report
#   5. proxy overhead    bench-proxy.sh    record proxy against nginx
#   6. streaming         bench-stream.sh   events/s on one core, against the mock
#   7. results files     bench-files.sh    size and write cost against gzip -9
#   8. compare verdicts  bench-compare.sh  false alarms and power of analyze compare
#   9. capacity search   bench-capacity.sh replay --find-capacity against the formula
#  10. scraping /metrics bench-metrics.sh  what --metrics-url costs the TTFT error
#  11. noisy verdicts    bench-verdicts.sh compare against a mock noisy as servers are
#  12. the noisy mock    bench-noise.sh    its run-to-run and within-run spread
#  13. analyze plan      bench-plan.sh     does following the plan see the change
#  14. client's error    bench-clientbound.sh  each level's bound on the client's own error against the truth
#
#   RUNS       repetitions of each measurement (default 5; 3 when QUICK=1)
#   QUICK      1: smaller runs (make bench-quick), goal under 2 minutes
#   BENCH_OUT  the Markdown file (default BENCHMARKS.md); plots go to the
#              docs/ folder beside it
#   SECTIONS   the sections to run (default "client open rate analyze proxy
#              stream files compare capacity metrics verdicts noise plan clientbound")

set -eu
QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then RUNS=${RUNS:-3}; else RUNS=${RUNS:-5}; fi
OUT=${BENCH_OUT:-BENCHMARKS.md}
PLOTS=$(dirname "$OUT")/docs
TB=${TB:-./tracebench}
SECTIONS=${SECTIONS:-client open rate analyze proxy stream files compare capacity metrics verdicts noise plan clientbound}
export QUICK RUNS PLOTS TB
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM

t_start=$(date +%s.%N)
# The references (wrk, nginx, gzip, taskset): installed as root, else the
# apt-get line is printed and the rows that need a missing one say so.
sh scripts/deps.sh --bench || true

now() { date +%s.%N; }

title() {  # NAME
	case $1 in
	client) echo "1. client overhead" ;; open) echo "2. open-loop accuracy" ;;
	rate) echo "3. raw request rate" ;; analyze) echo "4. analyze" ;;
	proxy) echo "5. proxy overhead" ;; stream) echo "6. streaming throughput" ;;
	files) echo "7. results files" ;; compare) echo "8. compare verdicts" ;;
	capacity) echo "9. capacity search" ;; metrics) echo "10. scraping /metrics" ;;
	verdicts) echo "11. verdicts on a noisy mock" ;;
	noise) echo "12. the noisy mock" ;; plan) echo "13. following analyze plan" ;;
	clientbound) echo "14. the client's own error" ;;
	*) echo "$1" ;;
	esac
}

# Runs section NAME's script into $W/NAME.md; a failed section is noted in
# the file and the others still run.
run_section() {  # NAME
	echo "== $1" >&2
	t0=$(now)
	if [ "$1" = analyze ]; then
		{
			echo "## 4. analyze"
			echo
			echo '```'
			if [ "$QUICK" = 1 ]; then N=50000 sh scripts/bench-analyze.sh 2>&1; else sh scripts/bench-analyze.sh 2>&1; fi
			echo '```'
		} >"$W/$1.md" && rc=0 || rc=$?
	else
		sh "scripts/bench-$1.sh" >"$W/$1.md" && rc=0 || rc=$?
	fi
	[ $rc -eq 0 ] || printf "\n**scripts/bench-%s.sh failed (exit %s); its errors went to stderr.**\n" "$1" $rc >>"$W/$1.md"
	echo "$1 $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')" >>"$W/times"
}

: >"$W/times"
for s in $SECTIONS; do
	run_section "$s"
done
total=$(awk -v a="$t_start" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')

{
	echo "# Benchmarks"
	echo
	if [ "$QUICK" = 1 ]; then
		echo "Written by \`make bench-quick\` ($(date -u +%Y-%m-%d); smaller runs, $RUNS per figure, medians)."
	else
		echo "Written by \`make bench\` ($(date -u +%Y-%m-%d); $RUNS runs per figure, medians)."
	fi
	echo "Machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo),"
	echo "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1); the mock and the references run on the same machine."
	for s in $SECTIONS; do
		echo
		cat "$W/$s.md"
	done
	echo
	echo "## Time taken"
	echo
	echo "Goal: \`make bench\` under 15 minutes, \`make bench-quick\` under 2."
	echo
	echo "| section | seconds |"
	echo "|:--|--:|"
	while read -r name secs; do
		echo "| $(title "$name") | $secs |"
	done <"$W/times"
	echo "| **total** | **$total** |"
	echo
	echo "Commands: \`make bench\` (this file), \`make bench-quick\` (smaller, for a quick look)."
} >"$OUT"
cat "$OUT"
