#!/bin/sh
# run.sh - runs every unit test binary and every command-line test, then
# prints one line "N passed, N failed, N skipped" (exit 1 if anything
# failed; a skip is not a failure). The line starts "N passed, N failed"
# whatever follows, for the parsers that read it.
#
# Each unit binary and each script prints "PASS name" / "FAIL name" lines,
# and "SKIP name: reason" for a check that cannot run here (a program not
# installed, ...); a binary or script that dies without saying FAIL counts
# as one failure.
# TB_VALGRIND=1 runs the unit binaries and every tracebench call of the
# scripts under valgrind (make valgrind).

O=${O:-build}
TB=$(pwd)/$O/tracebench
export TB
log=$(mktemp)
trap 'rm -f "$log"' EXIT INT TERM

vg=""
if [ -n "${TB_VALGRIND:-}" ]; then
	vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite"
fi

run_one() {  # name, command...
	name=$1
	shift
	"$@" >"$log.out" 2>"$log.err"
	rc=$?
	cat "$log.out"
	cat "$log.out" >>"$log"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$log.out"; then
		echo "FAIL $name (exit $rc)"
		echo "FAIL $name" >>"$log"
	fi
	if [ $rc -ne 0 ]; then
		sed 's/^/    stderr: /' "$log.err" | tail -n 20
	fi
	rm -f "$log.out" "$log.err"
}

for t in "$O"/tests/test_*; do
	[ -x "$t" ] || continue
	# shellcheck disable=SC2086
	run_one "$(basename "$t")" $vg "$t"
done
for t in tests/cli/t[0-9]*.sh; do
	run_one "$(basename "$t" .sh)" sh "$t"
done

passed=$(grep -c '^PASS' "$log")
failed=$(grep -c '^FAIL' "$log")
skipped=$(grep -c '^SKIP' "$log")
if [ "$skipped" -gt 0 ]; then
	echo "skipped:"
	grep '^SKIP' "$log" | sed 's/^SKIP /    /'
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
