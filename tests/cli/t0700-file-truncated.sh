#!/bin/sh
# A results file cut at every byte: analyze load keeps every complete
# record of the prefix (never fewer as the cut grows), says in one warning
# naming the file what it dropped, and refuses a prefix without a whole
# header line with one line naming the file, exit 2.
. tests/cli/lib.sh

# A small results file: a short header and three short records.
{
	echo '{"format":"tracebench-results","version":1,"run_id":"cut","label":"cut"}'
	for i in 0 1 2; do
		echo "{\"level\":1,\"seq\":$i,\"trace_id\":$i,\"warmup\":false,\"status\":200,\"error\":null,\"sched_ns\":${i}000,\"send_ns\":${i}000,\"ttft_ns\":3000000,\"ttfa_ns\":3000000,\"e2e_ns\":9000000,\"input_tokens\":8,\"output_tokens\":3,\"tokens_estimated\":false,\"itl_us\":[3000,3000]}"
	done
} | gzip -9n >"$WORK/r.jsonl.gz"
size=$(wc -c <"$WORK/r.jsonl.gz")
# Under valgrind every cut costs a second: every 13th byte (and the last).
step=1
[ -n "$VG" ] && step=13

# Complete lines in file $1 (a last line without its newline is not one).
count_lines() {
	c=0
	while IFS= read -r _; do c=$((c + 1)); done <"$1"
	echo $c
}

# Loads the prefixes whose cut % 2 = $1 (two workers share the cuts), one
# line per cut: cut, exit code, requests loaded, complete lines in the
# prefix, lines on stderr, whether stderr names the file, whether it
# warns of a damaged or truncated stream.
worker() {
	cut=$1
	while [ $cut -le "$size" ]; do
		f="$WORK/cut-$cut.jsonl.gz"
		head -c $cut "$WORK/r.jsonl.gz" >"$f"
		gzip -dc <"$f" >"$f.plain" 2>/dev/null
		tb analyze load --db "$WORK/cut-$cut.db" "$f" >/dev/null 2>"$f.err"
		rc=$?
		n=- errlines=0 names=0 warns=0
		while IFS= read -r line; do
			errlines=$((errlines + 1))
			case $line in
			*"'$f'"*) names=1 ;;
			esac
			case $line in
			*"warning: '$f': damaged or truncated gzip stream"*) warns=1 ;;
			"loaded '$f': run 'cut', "*) n=${line#*"'cut', "}; n=${n%% *} ;;
			esac
		done <"$f.err"
		echo "$cut $rc $n $(count_lines "$f.plain") $errlines $names $warns"
		cut=$((cut + 2))
	done >"$WORK/res.$1"
}
worker 0 &
worker 1
wait

# Every 'step'-th cut is checked (all of them but under valgrind).
sort -n "$WORK"/res.0 "$WORK"/res.1 | awk -v size="$size" -v step="$step" '
	$1 % step && $1 != size { next }
	{
		cut = $1; rc = $2; n = $3; lines = $4; errl = $5; names = $6; warns = $7
		if (lines == 0) {
			# no whole header: refused in one line naming the file
			if (rc != 2 || errl != 1 || !names) bad = bad " " cut ":refusal"
			next
		}
		if (rc != 0 || n != lines - 1) bad = bad " " cut ":count(rc=" rc ",n=" n ",want=" lines - 1 ")"
		else if (n < prev) bad = bad " " cut ":decreased"
		else if (cut < size && !warns) bad = bad " " cut ":no-warning"
		else if (cut == size && warns) bad = bad " " cut ":warning-on-whole-file"
		prev = n; checked++
	}
	END {
		print (bad == "" ? "ok" : "bad cuts:" bad) > "/dev/stderr"
		print prev + 0
		exit bad != ""
	}' >"$WORK/last" 2>"$WORK/verdict"
rc=$?
check "every cut of a $size-byte file: complete records kept, count never decreasing, warning or refusal naming the file" \
	test $rc -eq 0
[ $rc -ne 0 ] && cut -c 1-400 "$WORK/verdict"
check "the whole file loads its 3 records" test "$(cat "$WORK/last")" -eq 3

# A cut in the middle of a record says it dropped that record, by line.
head -c $((size * 3 / 4)) "$WORK/r.jsonl.gz" >"$WORK/mid.jsonl.gz"
tb analyze load --db "$WORK/mid.db" "$WORK/mid.jsonl.gz" >/dev/null 2>"$WORK/err"
check "a cut mid-record: the warning names the record dropped and its line" \
	grep -Eq "'$WORK/mid.jsonl.gz': damaged or truncated gzip stream \(unexpected end of file\): dropped 1 incomplete record \([0-9]+ bytes\) after line [0-9]+" "$WORK/err"
finish
