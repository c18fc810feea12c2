#!/bin/sh
# replay --previous-response-id (issue 36): a session of Responses API
# requests chained by the server's stored responses. Every turn goes with
# "store": true; each later one names the id the server gave the turn
# before as previous_response_id and sends only its new input items (the
# server holds the rest). The mock keeps every response it gave and
# refuses an id it did not give with vLLM's 404; it counts the chained
# requests on /metrics.
. tests/cli/lib.sh

start_mock --ttft-ms 2 --itl-ms 1
tb record synth -n 30 --turns 3 --input-tokens 6 --output-tokens 4 --seed 2 \
	--endpoint-kind responses -o "$WORK/s.jsonl.gz" 2>/dev/null
turns=$(zcat "$WORK/s.jsonl.gz" | tail -n +2 | grep -c '"turn":')
later=$(zcat "$WORK/s.jsonl.gz" | tail -n +2 | grep -c '"turn":[1-9]')
sessions=$((turns - later))
echo "# trace: $sessions sessions, $turns turns, $later after a first"

tb replay -e "$ENDPOINT" -c 4 -n "$sessions" --warmup 0 --quiet --label whole \
	-o "$WORK/whole.jsonl.gz" "$WORK/s.jsonl.gz" >/dev/null 2>&1
tb replay -e "$ENDPOINT" -c 4 -n "$sessions" --warmup 0 --quiet --label chained \
	--previous-response-id -o "$WORK/chained.jsonl.gz" "$WORK/s.jsonl.gz" >/dev/null 2>"$WORK/chained.err"
rc=$?
ok=$(requests_of "$WORK/chained.jsonl.gz" | grep -c '"error":null')
check "a chained replay: exit 0, every turn answered ($ok of $turns), no warning" sh -c \
	"test $rc -eq 0 && test $ok -eq $turns && ! grep -q warning '$WORK/chained.err'"
chained=$(curl -s "$ENDPOINT/metrics" | awk '$1 == "tracebench_mock_chained_requests_total" { print $2 }')
check "the mock saw every later turn name a response it gave ($chained of $later), the unchained run none" \
	test "${chained:-0}" -eq "$later"

# What the mock counts as a turn's input: with the history a later turn
# grows; chained, it is the new input alone (the first turns alike).
# inputs FILE TURN: the input_tokens of the turns of index TURN, summed
inputs() {
	requests_of "$1" | grep "\"turn\":$2," | grep -o '"input_tokens":[0-9]*' | cut -d: -f2 |
		awk '{ s += $1 } END { print s + 0 }'
}
w0=$(inputs "$WORK/whole.jsonl.gz" 0)
c0=$(inputs "$WORK/chained.jsonl.gz" 0)
w2=$(inputs "$WORK/whole.jsonl.gz" 2)
c2=$(inputs "$WORK/chained.jsonl.gz" 2)
check "first turns send alike ($w0 and $c0 input tokens); third turns chained send less ($c2 against $w2 with the history)" \
	sh -c "test $w0 -eq $c0 && test $c2 -gt 0 && test $((c2 * 2)) -lt $w2"
check "the results header records it" sh -c \
	"zcat '$WORK/chained.jsonl.gz' | head -1 | grep -q '\"previous_response_id\":true'"
tb replay --rerun "$WORK/chained.jsonl.gz" --quiet -o "$WORK/again.jsonl.gz" >/dev/null 2>&1
before=$chained
chained=$(curl -s "$ENDPOINT/metrics" | awk '$1 == "tracebench_mock_chained_requests_total" { print $2 }')
check "replay --rerun chains again ($((chained - before)) more)" test $((chained - before)) -eq "$later"

# The mock's answer to an id it never gave: vLLM's 404.
code=$(curl -s -o "$WORK/nf.json" -w '%{http_code}' "$ENDPOINT/v1/responses" \
	-H 'Content-Type: application/json' \
	-d '{"model":"mock","input":"hi","previous_response_id":"resp-mock-999999"}')
check "mock: an unknown previous_response_id is a 404 naming it ($code)" sh -c \
	"test '$code' = 404 && grep -q \"Response with id 'resp-mock-999999' not found\" '$WORK/nf.json'"

# A chat trace has nothing to chain: said, and replayed as ever.
tb record synth -n 6 --turns 2 --input-tokens 4 --output-tokens 2 -o "$WORK/chat.jsonl.gz" 2>/dev/null
tb replay -e "$ENDPOINT" -c 2 -n 3 --warmup 0 --quiet --previous-response-id \
	-o "$WORK/chat-r.jsonl.gz" "$WORK/chat.jsonl.gz" >/dev/null 2>"$WORK/chat.err"
check "a trace without Responses sessions: exit 0, a warning that nothing is chained" sh -c \
	"test $? -eq 0 && grep -q 'previous-response-id: .* holds no session of Responses API requests: nothing is chained' '$WORK/chat.err'"
stop_mock
finish
