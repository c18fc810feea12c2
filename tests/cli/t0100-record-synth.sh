#!/bin/sh
# record synth: deterministic traces, valid records, refusals with exit 2.
. tests/cli/lib.sh

tb record synth -n 5 --input-tokens 20 --output-tokens 7 --seed 3 -o "$WORK/a.jsonl.gz" 2>/dev/null
tb record synth -n 5 --input-tokens 20 --output-tokens 7 --seed 3 -o "$WORK/b.jsonl.gz" 2>/dev/null
tb record synth -n 5 --input-tokens 20 --output-tokens 7 --seed 4 -o "$WORK/c.jsonl.gz" 2>/dev/null
check "same seed gives the same bytes" cmp -s "$WORK/a.jsonl.gz" "$WORK/b.jsonl.gz"
check "another seed gives other prompts" sh -c "! cmp -s '$WORK/a.jsonl.gz' '$WORK/c.jsonl.gz'"
check "header, then one record per request" \
	test "$(zcat "$WORK/a.jsonl.gz" | wc -l)" -eq 6
check "header names the format" sh -c "zcat '$WORK/a.jsonl.gz' | head -1 | grep -q '\"format\":\"tracebench-trace\",\"version\":1'"
check "body asks for max_tokens and streaming" sh -c \
	"requests_of '$WORK/a.jsonl.gz' | sed -n 1p | grep -q 'max_tokens.*:7,.*stream.*:true'"
check "prompt has the requested number of words" sh -c \
	"requests_of '$WORK/a.jsonl.gz' | sed -n 1p | grep -o 'content.:.[a-z ]*' | awk '{ exit !(NF == 20) }'"

tb record synth -n 2 --endpoint-kind completions -o "$WORK/d.jsonl.gz" 2>/dev/null
check "completions kind uses /v1/completions and a prompt" sh -c \
	"requests_of '$WORK/d.jsonl.gz' | sed -n 1p | grep -q '\"path\":\"/v1/completions\".*prompt'"

tb record synth -n 5 -o "$WORK/a.jsonl.gz" 2>"$WORK/err"
check "an existing file is not overwritten (exit 2)" test $? -eq 2
check "... and the error says so" grep -q "already exists (use --force" "$WORK/err"
check "... and the file is untouched" cmp -s "$WORK/a.jsonl.gz" "$WORK/b.jsonl.gz"
tb record synth -n 5 --force -o "$WORK/a.jsonl.gz" 2>/dev/null
check "--force replaces it" test $? -eq 0

tb record synth -n 10x -o "$WORK/e.jsonl.gz" 2>"$WORK/err"
check "a bad number is a usage error (exit 2)" test $? -eq 2
check "... naming the option" grep -q "invalid value '10x' for --requests" "$WORK/err"
tb record synth -n 1 2>"$WORK/err"
check "no output file is a usage error" test $? -eq 2
tb record synth --help >"$WORK/out"
check "--help exits 0 and prints usage to stdout" grep -q "^usage: tracebench record synth" "$WORK/out"
tb record nonsense 2>/dev/null
check "unknown source is exit 2" test $? -eq 2
tb --version >"$WORK/out"
check "--version prints the version" grep -q "^tracebench [0-9]" "$WORK/out"
finish
