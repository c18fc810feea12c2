#!/bin/sh
# analyze plot from the command line: four gnuplot scripts with their data,
# rendered by the real gnuplot to PNG (signature, 1000x600) or SVG, and
# the files listed on stdout; an earlier plot is not replaced without
# --force; runs, rm and compare on the sample database.
. tests/cli/lib.sh

tb analyze load --db "$WORK/s.db" sample_traces/results-sample.jsonl.gz 2>/dev/null
tb analyze plot --db "$WORK/s.db" --out "$WORK/plots" >"$WORK/out" 2>"$WORK/err"
check "plot exits 0" test $? -eq 0
for p in scaling ttft_percentiles latency_cdf ttft_timeline; do
	check "$p: script and data written and listed" \
		sh -c "test -s '$WORK/plots/$p.gp' -a -s '$WORK/plots/$p.dat' &&
		       grep -qx '$WORK/plots/$p.gp' '$WORK/out'"
	if have gnuplot; then
		check "$p: a PNG" sh -c "head -c 8 '$WORK/plots/$p.png' | od -An -c | grep -q 'P   N   G'"
		check "$p: 1000x600" test "$(od -An -tu1 -j16 -N8 "$WORK/plots/$p.png" | tr -s ' ')" \
			= " 0 0 3 232 0 0 2 88"
	else
		skip "$p: a 1000x600 PNG" "gnuplot not installed"
	fi
done
if have gnuplot; then
	tb analyze plot --db "$WORK/s.db" --out "$WORK/svg" --format svg >/dev/null 2>&1
	check "--format svg renders SVG" grep -q '<svg' "$WORK/svg/latency_cdf.svg"
else
	skip "--format svg renders SVG" "gnuplot not installed"
fi
# Plotting again into the same directory: refused, nothing replaced,
# unless --force.
for f in "$WORK"/plots/*; do cksum "$f"; done >"$WORK/before"
sleep 1   # (so a rewrite would show in the modification times too)
tb analyze plot --db "$WORK/s.db" --out "$WORK/plots" >"$WORK/out" 2>"$WORK/err"
check "plotting into a directory holding an earlier plot: exit 2" test $? -eq 2
check "... one line naming the first file there and --force" sh -c \
	"test \$(wc -l <'$WORK/err') -eq 1 &&
	 grep -qx \"tracebench analyze plot: '$WORK/plots/scaling.dat' already exists (use --force to replace it)\" '$WORK/err'"
check "... nothing written, nothing listed" sh -c "test ! -s '$WORK/out' &&
	test -z \"\$(find '$WORK/plots' -newer '$WORK/before')\" &&
	for f in '$WORK'/plots/*; do cksum \"\$f\"; done | cmp -s - '$WORK/before'"
rm "$WORK/plots/scaling.dat" "$WORK/plots/scaling.gp"
tb analyze plot --db "$WORK/s.db" --out "$WORK/plots" >/dev/null 2>"$WORK/err"
if have gnuplot; then
	check "... an image of it counts too" grep -q "'$WORK/plots/scaling.png' already exists" "$WORK/err"
	rm "$WORK/plots/scaling.png"
	tb analyze plot --db "$WORK/s.db" --out "$WORK/plots" >/dev/null 2>"$WORK/err"
else
	skip "... an image of it counts too" "gnuplot not installed"
fi
check "... and the other plots' files" \
	grep -q "'$WORK/plots/ttft_percentiles.dat' already exists" "$WORK/err"
tb analyze plot --db "$WORK/s.db" --out "$WORK/plots" --force >"$WORK/out" 2>"$WORK/err"
rc=$?
check "--force replaces them: exit 0, every file written again and listed" sh -c \
	"test $rc -eq 0 && test -s '$WORK/plots/scaling.dat' && ! grep -qv 'note: gnuplot not found on PATH' '$WORK/err' &&
	 test -z \"\$(find '$WORK/plots' ! -newer '$WORK/before' -type f)\" &&
	 grep -qx '$WORK/plots/scaling.gp' '$WORK/out'"

tb analyze plot --db "$WORK/s.db" --out "$WORK/x" --format gif 2>"$WORK/err"
check "--format gif is a usage error (exit 2)" test $? -eq 2
check "... naming the format" grep -q "'gif'" "$WORK/err"

tb analyze runs --db "$WORK/s.db" --format csv >"$WORK/runs.csv"
check "runs lists the sample: closed loop, levels 1,2,4, 24 measured requests, 0 errors" \
	grep -q '^sample,2026-11-30T14:04:45Z,http://127.0.0.1:35199,mock,,crc32:84312110,closed,"1,2,4",24,0,$' \
	"$WORK/runs.csv"
tb analyze runs --db "$WORK/s.db" >"$WORK/runs.txt"
check "runs as text: aligned columns, counts to the right" \
	grep -q '^sample  2026-11-30T14:04:45Z  http://127.0.0.1:35199  mock   -       crc32:84312110  closed  1,2,4         24       0  -$' \
	"$WORK/runs.txt"
tb analyze compare --db "$WORK/s.db" sample sample >"$WORK/cmp" 2>"$WORK/err"
rc=$?
check "a run compared with itself: exit 0, every judged number the same" \
	sh -c "test $rc -eq 0 && ! grep -Eq '(faster|slower|inconclusive)\$' '$WORK/cmp' && grep -Eq ' same\$' '$WORK/cmp'"
tb analyze rm --db "$WORK/s.db" sample 2>/dev/null
check "rm removes the run and its requests" \
	test "$(sqlite3 "$WORK/s.db" 'select count(*) from runs') $(sqlite3 "$WORK/s.db" 'select count(*) from requests')" = "0 0"
