#!/bin/sh
# replay --tokenize (issue 36): before the run, each request's prompt is
# fitted to the input length its trace records, as the endpoint's own
# POST /tokenize counts it (the chat template included), less what the
# salt adds: what the server then counts for each request is its
# recorded length. The trace here records lengths its word prompts do not
# have (twice the words and three), as a trace made for another
# tokenizer would.
. tests/cli/lib.sh

start_mock --ttft-ms 2 --itl-ms 1
tb record synth -n 30 --input-tokens uniform:5:400 --output-tokens 2 --seed 4 \
	-o "$WORK/words.jsonl.gz" 2>/dev/null
{
	zcat "$WORK/words.jsonl.gz" | head -1
	zcat "$WORK/words.jsonl.gz" | tail -n +2 | awk '{
		match($0, /"input_tokens":[0-9]+/); n = substr($0, RSTART + 15, RLENGTH - 15)
		sub(/"input_tokens":[0-9]+/, "\"input_tokens\":" (2 * n + 3)); print }'
} | gzip >"$WORK/t.jsonl.gz"

# off FILE: "requests-off-by-more-than-1 requests" against the trace's lengths
off() {
	zcat "$WORK/t.jsonl.gz" | tail -n +2 | sed 's/^{"id":\([0-9]*\),.*"input_tokens":\([0-9]*\).*/\1 \2/' |
		sort -n >"$WORK/want"
	requests_of "$1" | sed 's/.*"trace_id":\([0-9]*\),.*"input_tokens":\([0-9]*\).*/\1 \2/' |
		sort -n >"$WORK/got"
	join "$WORK/want" "$WORK/got" | awk '{ d = $3 - $2; if (d < 0) d = -d; n++; if (d > 1) bad++ }
		END { print bad + 0, n + 0 }'
}
tb replay -e "$ENDPOINT" -c 4 -n 30 --warmup 0 --quiet -o "$WORK/plain.jsonl.gz" "$WORK/t.jsonl.gz" \
	>/dev/null 2>&1
set -- $(off "$WORK/plain.jsonl.gz")
echo "# without --tokenize: $1 of $2 requests off their recorded length by more than 1 token"
tb replay -e "$ENDPOINT" -c 4 -n 30 --warmup 0 --quiet --tokenize -o "$WORK/fit.jsonl.gz" \
	"$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/fit.err"
rc=$?
set -- $(off "$WORK/fit.jsonl.gz")
check "fitted: exit 0, the server counts every request's recorded length within 1 token ($1 of $2 off; unfitted most are)" \
	sh -c "test $rc -eq 0 && test $1 -eq 0 && test $2 -eq 30"
check "... said on stderr, recorded in the header (fitted 30, the salt's tokens, the template)" sh -c \
	"grep -q '30 prompts measured by the tokenizer' '$WORK/fit.err' &&
	 zcat '$WORK/fit.jsonl.gz' | head -1 | grep -q '\"tokenize\":{\"url\":\"http://127.0.0.1:[0-9]*/tokenize\",\"fitted\":30,\"skipped\":0,\"missed\":0,\"salt_tokens\":[1-9][0-9]*,\"chat_template\":true}'"

# Sessions are not fitted (a later turn carries the first's prompt as recorded).
tb record synth -n 6 --turns 2 --input-tokens 5 --output-tokens 2 -o "$WORK/s.jsonl.gz" 2>/dev/null
tb replay -e "$ENDPOINT" -c 2 -n 3 --warmup 0 --quiet --tokenize -o "$WORK/s-r.jsonl.gz" \
	"$WORK/s.jsonl.gz" >/dev/null 2>"$WORK/s.err"
check "a trace of sessions: exit 0, a warning that nothing is fitted" sh -c \
	"test $? -eq 0 && grep -q 'tokenize: .* holds sessions.*nothing fitted' '$WORK/s.err'"
stop_mock

# No tokenizer there: one line naming it, exit 2, nothing written.
port=$(free_port)
tb replay -e "http://127.0.0.1:$port" -c 1 -n 2 --tokenize -o "$WORK/none.jsonl.gz" "$WORK/t.jsonl.gz" \
	>/dev/null 2>"$WORK/none.err"
rc=$?
check "an endpoint without a tokenizer: exit 2, one line naming --tokenize, no results file" sh -c \
	"test $rc -eq 2 && test \$(wc -l <'$WORK/none.err') -eq 1 && grep -q -- '--tokenize: .*127.0.0.1:$port/tokenize' '$WORK/none.err' &&
	 test ! -e '$WORK/none.jsonl.gz'"
finish
