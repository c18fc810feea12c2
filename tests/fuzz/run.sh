#!/bin/sh
# run.sh - runs each libFuzzer target given (make fuzz) for FUZZ_SECONDS
# from its seed corpus tests/fuzz/corpus/<target>/ and the inputs of
# tests/fuzz/regress/<target>/ (past findings), growing a working corpus
# in $FUZZ_O/corpus/<target>/ so the seeds stay small. Prints one line of
# libFuzzer's final statistics per target and a last line
# "N targets, N crashes"; exit 1 when a target crashed, leaked or hung
# (the input is saved as $FUZZ_O/crash-<target>-*).

FUZZ_O=${FUZZ_O:-build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
here=$(dirname "$0")
# the targets' scratch files, left behind only by a crash
mkdir -p "$FUZZ_O/tmp"
TMPDIR=$(cd "$FUZZ_O/tmp" && pwd)
export TMPDIR
crashes=0
n=0

for bin in "$@"; do
	t=$(basename "$bin")
	n=$((n + 1))
	work="$FUZZ_O/corpus/$t"
	log="$FUZZ_O/$t.log"
	mkdir -p "$work"
	dirs="$work $here/corpus/$t"
	[ -d "$here/regress/$t" ] && dirs="$dirs $here/regress/$t"
	# shellcheck disable=SC2086
	"$bin" -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 -timeout=20 \
		-rss_limit_mb=2048 -max_len=65536 -artifact_prefix="$FUZZ_O/crash-$t-" \
		$dirs >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
	ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
	units=$(grep -o 'corp: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
	status=ok
	if [ $rc -ne 0 ]; then
		status="CRASH (exit $rc; see $log)"
		crashes=$((crashes + 1))
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -n 3 | sed 's/^/    /'
	fi
	printf '%-18s %10s execs %7s/s  cov %5s  ft %6s  corpus %5s  %s\n' \
		"$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${units:-?}" "$status"
done
echo "$n targets, $crashes crashes"
[ "$crashes" -eq 0 ]
