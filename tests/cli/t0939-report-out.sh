#!/bin/sh
# analyze report and export --out FILE: the output whole in FILE, as it
# would be on stdout, or nothing: a report that fails leaves an earlier
# FILE as it was and no temporary file beside it, and says why in one line.
. tests/cli/lib.sh

tb record synth -n 8 --input-tokens 8 --output-tokens 4 --seed 1 -o "$WORK/t.jsonl.gz" 2>/dev/null
start_mock --ttft-ms 5 --itl-ms 1
tb replay --endpoint "$ENDPOINT" -c 1,2 -n 8 --quiet --label out -o "$WORK/r.jsonl.gz" \
	"$WORK/t.jsonl.gz" >/dev/null 2>&1
stop_mock
tb analyze load --db "$WORK/d.db" "$WORK/r.jsonl.gz" >/dev/null 2>&1

mkdir "$WORK/o"
for fmt in text markdown csv json latex html; do
	tb analyze report --db "$WORK/d.db" --format "$fmt" -o "$WORK/o/r.$fmt" >"$WORK/o.out" 2>&1
	rc=$?
	tb analyze report --db "$WORK/d.db" --format "$fmt" >"$WORK/r.$fmt.stdout" 2>/dev/null
	check "report --format $fmt -o FILE: exit 0, nothing on stdout, FILE as stdout would be" sh -c \
		"test $rc -eq 0 && ! test -s '$WORK/o.out' && test -s '$WORK/o/r.$fmt' &&
		 cmp -s '$WORK/o/r.$fmt' '$WORK/r.$fmt.stdout'"
done
tb analyze export --db "$WORK/d.db" --out "$WORK/o/e.csv" >/dev/null 2>&1
rc=$?
check "export --out FILE: exit 0, FILE as stdout would be" sh -c \
	"test $rc -eq 0 && '$TB' analyze export --db '$WORK/d.db' | cmp -s - '$WORK/o/e.csv'"
check "no temporary file left beside them" test "$(ls "$WORK/o" | wc -l)" -eq 7

# A report that fails: the earlier FILE stays, no temporary file.
echo "an earlier report" >"$WORK/o/keep.md"
tb analyze report --db "$WORK/d.db" --run nosuch -o "$WORK/o/keep.md" >/dev/null 2>"$WORK/e1"
rc=$?
check "an unknown run with -o: exit 2, one line" sh -c "test $rc -eq 2 && test \$(wc -l <'$WORK/e1') -eq 1"
check "... the earlier file as it was, nothing beside it" sh -c \
	"test \"\$(cat '$WORK/o/keep.md')\" = 'an earlier report' && test \$(ls '$WORK/o' | wc -l) -eq 8"
tb analyze report --db "$WORK/d.db" -o "$WORK/none/r.md" >/dev/null 2>"$WORK/e2"
rc=$?
check "a folder that does not exist: exit 1, one line naming the file" sh -c \
	"test $rc -eq 1 && test \$(wc -l <'$WORK/e2') -eq 1 && grep -q \"cannot write '$WORK/none/r.md'\" '$WORK/e2'"
tb analyze report --db "$WORK/d.db" --out "" >/dev/null 2>"$WORK/e3"
check "--out with no name: exit 2" test $? -eq 2
finish
