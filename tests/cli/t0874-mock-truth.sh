#!/bin/sh
# mock --truth FILE: as each streamed request ends, the mock appends what
# it made of it, taken as each token event went out: the prompt's first
# word (a replay's salt), its TTFT from the request's arrival and the gaps
# between its token events. make bench's section 14 joins it to replay's
# records to check the client's bound against the truth; here, that the
# join holds and that the truth is causal: no client can see a token
# before the mock sent it, so each request's TTFT, and its time to its
# last event, is at least the mock's, on any host at any load.
. tests/cli/lib.sh

tb record synth -n 16 --input-tokens 12 --output-tokens 6 --seed 3 -o "$WORK/t.jsonl.gz" 2>/dev/null
start_mock --ttft-ms 20 --itl-ms 4 --truth "$WORK/truth.jsonl"
tb replay --endpoint "$ENDPOINT" -c 1,4 -n 12 --quiet -o "$WORK/r.jsonl.gz" "$WORK/t.jsonl.gz" \
	>/dev/null 2>"$WORK/err"
check "the replay ran" test $? -eq 0

# the measured requests, each with its truth line (by its salt) or null
requests_of "$WORK/r.jsonl.gz" | jq -c 'select(.warmup == false)' >"$WORK/client"
jq -n -c --slurpfile t "$WORK/truth.jsonl" --slurpfile c "$WORK/client" '
	($t | map({key: .first_word, value: .}) | from_entries) as $m
	| $c[] | {salt, ttft_ms: (.ttft_ns / 1e6), itl_us, truth: $m[.salt]}' >"$WORK/joined"
n=$(wc -l <"$WORK/joined")
check "24 measured requests ($n)" test "$n" -eq 24
k=$(jq -s '[.[] | select(.truth != null)] | length' "$WORK/joined")
check "each found in the truth by its salt ($k of $n)" test "$k" -eq "$n"
dup=$(jq -r .first_word "$WORK/truth.jsonl" | sort | uniq -d | wc -l)
check "no two truth lines of one salt ($dup)" test "$dup" -eq 0
k=$(jq -s '[.[] | select(.truth != null and (.truth.gaps_us | length) == (.itl_us | length)
	and (.itl_us | length) == 5)] | length' "$WORK/joined")
check "the mock's gaps are the client's, one for one: 5 a request of 6 tokens ($k of $n)" test "$k" -eq "$n"
k=$(jq -s '[.[] | select(.truth != null and .truth.ttft_ms >= 20 and .ttft_ms >= .truth.ttft_ms)] | length' \
	"$WORK/joined")
check "causal: the mock's TTFT at least its 20 ms, the client's at least the mock's ($k of $n)" \
	test "$k" -eq "$n"
k=$(jq -s '[.[] | select(.truth != null and (.ttft_ms * 1000 + (.itl_us | add)) >=
	(.truth.ttft_ms * 1000 + (.truth.gaps_us | add)) - 10)] | length' "$WORK/joined")
check "causal: the client's last event no earlier than the mock's (10 us for rounding) ($k of $n)" \
	test "$k" -eq "$n"

# a whole (unstreamed) answer has no events to time: no line
before=$(wc -l <"$WORK/truth.jsonl")
curl -s -o /dev/null "$ENDPOINT/v1/chat/completions" -H 'Content-Type: application/json' \
	-d '{"model":"mock","messages":[{"role":"user","content":"whole answer"}],"max_tokens":3}'
after=$(wc -l <"$WORK/truth.jsonl")
check "an unstreamed answer writes no line ($before, $after)" test "$before" -eq "$after"
stop_mock

# a file that cannot be opened: one line naming it, no server
tb mock --quiet --listen 127.0.0.1:0 --truth "$WORK/no/such/dir/truth" >/dev/null 2>"$WORK/bad.err"
rc=$?
check "an unopenable --truth file fails with status 1 ($rc)" test "$rc" -eq 1
check "... in one line naming the file" sh -c "test \$(wc -l <'$WORK/bad.err') -eq 1 &&
	grep -q \"cannot open '$WORK/no/such/dir/truth'\" '$WORK/bad.err'"
finish
