#!/bin/sh
# A level's records are on disk when its row of the table is printed:
# replay killed with SIGKILL just after the first level's row, before the
# next level's first once-a-second flush, leaves every request of the
# first level in the file. Its last request ends with the level, too late
# for any flush of that level's own: only the flush at the level's end
# puts it on disk. Then the same for the first side of an A/B run, whose
# next level writes to the other side's file.
. tests/cli/lib.sh

start_mock --ttft-ms 5 --itl-ms 2
# 300 tokens at 2 ms: some 0.6 s a request, so C=1's 2 requests end at
# about 0.6 s (after no tick) and 1.2 s (after the first), and the next
# level's 2 at C=2 need 0.6 s more, which the kill comes well inside.
tb record synth -n 8 --input-tokens 8 --output-tokens 300 -o "$WORK/long.jsonl.gz" 2>/dev/null
mkfifo "$WORK/rows"

# run NAME ROW ARGS...: replay, killed with SIGKILL as soon as a line of
# its table matches the extended regex ROW (kept in NAME.row).
run() {
	name=$1
	row=$2
	shift 2
	# shellcheck disable=SC2086
	$VG "$TB" replay -c 1,2 -n 2 --warmup 0 "$@" "$WORK/long.jsonl.gz" \
		>"$WORK/rows" 2>"$WORK/$name.err" &
	pid=$!
	while IFS= read -r line; do
		if printf '%s\n' "$line" | grep -Eq "$row"; then
			kill -KILL $pid 2>/dev/null
			printf '%s\n' "$line" >"$WORK/$name.row"
			break
		fi
	done <"$WORK/rows"
	wait $pid 2>/dev/null
	echo $? >"$WORK/$name.rc"
}

records() {  # FILE LEVEL: the records of that level on disk
	requests_of "$1" 2>/dev/null | grep -c "\"level\":$2,"
}

run one '^ *1 ' -e "$ENDPOINT" -o "$WORK/one.jsonl.gz"
check "killed after C=1's row (exit 137): both of C=1's requests are in the file ($(records "$WORK/one.jsonl.gz" 1) found)" \
	test "$(cat "$WORK/one.rc")" = 137 -a "$(records "$WORK/one.jsonl.gz" 1)" -eq 2

# The sides take turns in a seeded order: the first row names its side.
run ab '^[ab]  *1 ' -e "$ENDPOINT" -e "$ENDPOINT" --label-a a --label-b b \
	-o "$WORK/a.jsonl.gz" -o "$WORK/b.jsonl.gz"
side=$(cut -c1 "$WORK/ab.row" 2>/dev/null)
check "A/B, killed after the first row, side '${side:-?}' at C=1 (exit 137): both of its requests are in its file ($(records "$WORK/${side:-a}.jsonl.gz" 1) found)" \
	test "$(cat "$WORK/ab.rc")" = 137 -a -n "$side" -a "$(records "$WORK/${side:-a}.jsonl.gz" 1)" -eq 2
finish
