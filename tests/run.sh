#!/bin/sh
# run.sh - runs every unit test binary and every command-line test, then
# prints one line "N passed, N failed, N skipped" (exit 1 if anything
# failed; a skip is not a failure). The line starts "N passed, N failed"
# whatever follows, for the parsers that read it.
#
# Each unit binary and each script prints "PASS name" / "FAIL name" lines,
# and "SKIP name: reason" for a check that cannot run here (a program not
# installed, ...); a binary or script that dies without saying FAIL counts
# as one failure, and so does a script that exits 0 before its last line's
# 'finish' (tests/cli/lib.sh).
#
# The tests run TB_TEST_JOBS at a time (3 by default): each script makes
# its own folder and finds its own free ports, and most of their time is
# spent waiting on a mock's schedule, so three share two cores. A test's
# output is printed whole when it ends. TB_TEST_TIMING=1 (make
# test-timing) adds the tight timing bounds and runs one test at a time,
# since those bounds measure the machine as much as the code.
# TB_VALGRIND=1 runs the unit binaries and every tracebench call of the
# scripts under valgrind (make valgrind), one at a time.
#
#   sh tests/run.sh                 everything
#   sh tests/run.sh t0200 test_sse  only the tests whose names contain these

O=${O:-build}
TB=$(pwd)/$O/tracebench
export TB O
JOBS=${TB_TEST_JOBS:-3}
[ -n "${TB_TEST_TIMING:-}" ] && JOBS=1
[ -n "${TB_VALGRIND:-}" ] && JOBS=1

# One test: "--one OUT NAME COMMAND..." runs COMMAND, keeps what it printed
# in OUT (with the tail of its stderr when it failed) and then prints OUT.
if [ "${1:-}" = "--one" ]; then
	out=$2 name=$3
	shift 3
	"$@" >"$out.run" 2>"$out.err"
	rc=$?
	if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$out.run"; then
		echo "FAIL $name (exit $rc)" >>"$out.run"
	fi
	if [ $rc -ne 0 ]; then
		sed 's/^/    stderr: /' "$out.err" | tail -n 20 >>"$out.run"
	fi
	mv "$out.run" "$out"
	rm -f "$out.err"
	cat "$out"
	exit 0
fi

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT INT TERM

vg=""
if [ -n "${TB_VALGRIND:-}" ]; then
	vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite"
fi

wanted() {  # name: true when no filter was given or the name matches one
	[ $# -eq 1 ] && return 0
	n=$1
	shift
	for f in "$@"; do
		case "$n" in *"$f"*) return 0 ;; esac
	done
	return 1
}

# The list, one test a line: OUT NAME COMMAND...
: >"$dir/list"
for t in tests/cli/t[0-9]*.sh; do
	name=$(basename "$t" .sh)
	wanted "$name" "$@" || continue
	echo "$dir/$name.out $name sh $t" >>"$dir/list"
done
for t in "$O"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	wanted "$name" "$@" || continue
	echo "$dir/$name.out $name $vg $t" >>"$dir/list"
done
[ -s "$dir/list" ] || { echo "tests/run.sh: no test matches: $*" >&2; exit 2; }

start=$(date +%s)
# Each line's words become --one's arguments (no test path has a space).
xargs -P "$JOBS" -L 1 sh "$0" --one <"$dir/list"

cat "$dir"/*.out >"$dir/all" 2>/dev/null
lost=$(awk '{ print $1 }' "$dir/list" | while read -r f; do [ -e "$f" ] || echo "$f"; done)
for f in $lost; do
	echo "FAIL $(basename "$f" .out) (no result: the runner lost it)" | tee -a "$dir/all"
done
passed=$(grep -c '^PASS' "$dir/all")
failed=$(grep -c '^FAIL' "$dir/all")
skipped=$(grep -c '^SKIP' "$dir/all")
if [ "$skipped" -gt 0 ]; then
	echo "skipped:"
	grep '^SKIP' "$dir/all" | sed 's/^SKIP /    /'
fi
if [ "$failed" -gt 0 ]; then
	echo "failed:"
	grep '^FAIL' "$dir/all" | sed 's/^FAIL /    /'
fi
echo "tests took $(($(date +%s) - start)) s, $JOBS at a time"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
