#!/bin/sh
# replay -n Kx: K waves of each level's C, K x C requests a level, so that
# every level of a sweep lasts about as long (a level of two waves sets
# its throughput by its slowest request; its blocks in an A/B run are then
# noisier at high C than at low). The header says it; a number after it
# counts again, and a sweep it cannot mean is refused.
. tests/cli/lib.sh

start_mock --ttft-ms 2 --itl-ms 1 --tokens 4
tb record synth -n 16 --output-tokens 4 -o "$WORK/t.jsonl.gz" 2>/dev/null
tb replay -e "$ENDPOINT" -c 1,3,8 -n 3x --quiet -o "$WORK/w.jsonl.gz" "$WORK/t.jsonl.gz" \
	>/dev/null 2>"$WORK/w.err"
rc=$?
# measured requests per level
per_level() {
	zcat "$1" | jq -r 'select(.type == null and .warmup == false) | .level' | sort -n | uniq -c |
		awk '{ printf "%s:%s ", $2, $1 }'
}
got=$(per_level "$WORK/w.jsonl.gz")
check "-n 3x: exit $rc, 3, 9 and 24 requests at C=1, 3, 8 ($got)" \
	test "$rc.$got" = "0.1:3 3:9 8:24 "
params=$(zcat "$WORK/w.jsonl.gz" | head -1 | jq -c '[.params.requests, .params.waves]')
check "... the header says waves 3, requests null ($params)" test "$params" = '[null,3]'

tb replay -e "$ENDPOINT" -c 2,4 -n 3x -n 5 --quiet -o "$WORK/n.jsonl.gz" "$WORK/t.jsonl.gz" \
	>/dev/null 2>&1
got=$(per_level "$WORK/n.jsonl.gz")
check "-n 3x -n 5: the later counts, 5 a level ($got)" test "$got" = "2:5 4:5 "
tb replay -e "$ENDPOINT" -c 2 -n 5 -n 2X --quiet -o "$WORK/m.jsonl.gz" "$WORK/t.jsonl.gz" \
	>/dev/null 2>&1
got=$(per_level "$WORK/m.jsonl.gz")
check "-n 5 -n 2X: the later counts, 2 x 2 ($got)" test "$got" = "2:4 "

for bad in "--rate 5 -n 3x" "-c 2 -n 0x" "-c 2 -n x" "-c 2 -n 3y" "--find-capacity=concurrency --slo ttft=1s -n 2x"; do
	# shellcheck disable=SC2086
	tb replay -e "$ENDPOINT" $bad --quiet -o "$WORK/bad.jsonl.gz" "$WORK/t.jsonl.gz" \
		>/dev/null 2>"$WORK/bad.err"
	rc=$?
	check "refused: $bad (exit $rc, one line, no file)" \
		sh -c "test $rc -eq 2 && test \$(wc -l <'$WORK/bad.err') -eq 1 && test ! -e '$WORK/bad.jsonl.gz'"
done
stop_mock
finish
