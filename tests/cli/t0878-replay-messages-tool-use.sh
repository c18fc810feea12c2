#!/bin/sh
# A session of Anthropic Messages requests that used a tool: turn 1's
# history holds the assistant's tool_use block and a user message whose
# tool_result names it. Replayed, turn 0's answer takes the placeholder's
# text, and its tool_use block stays (as recorded), so that the history
# is one the API takes: the mock checks it as Anthropic's API does (every
# tool_result names a tool_use of the message before it) and refuses
# a history that lost the block with a 400.
. tests/cli/lib.sh

start_mock --ttft-ms 2 --itl-ms 1
hist='[{\"role\":\"user\",\"content\":\"weather in Paris?\"},{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Let me check.\"},{\"type\":\"tool_use\",\"id\":\"toolu_01\",\"name\":\"get_weather\",\"input\":{\"city\":\"Paris\"}}]},{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_01\",\"content\":\"15 C\"}]}]'
{
	echo '{"format":"tracebench-trace","version":2,"tool":"tracebench test","source":{"kind":"test"}}'
	echo '{"id":0,"arrival_ns":0,"method":"POST","path":"/v1/messages","headers":["Content-Type: application/json"],"body":"{\"model\":\"mock\",\"max_tokens\":4,\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"weather in Paris?\"}]}","session":0,"turn":0,"think_ns":0}'
	echo "{\"id\":1,\"arrival_ns\":0,\"method\":\"POST\",\"path\":\"/v1/messages\",\"headers\":[\"Content-Type: application/json\"],\"body\":\"{\\\"model\\\":\\\"mock\\\",\\\"max_tokens\\\":4,\\\"stream\\\":true,\\\"messages\\\":$hist}\",\"session\":0,\"turn\":1,\"think_ns\":0}"
} | gzip >"$WORK/t.jsonl.gz"

tb replay -e "$ENDPOINT" -c 1 -n 1 --warmup 0 --quiet -o "$WORK/r.jsonl.gz" "$WORK/t.jsonl.gz" \
	>/dev/null 2>"$WORK/r.err"
rc=$?
ok=$(requests_of "$WORK/r.jsonl.gz" | grep -c '"error":null')
check "both turns answered: the tool_use block the tool_result names went with the history (exit $rc, $ok of 2)" \
	sh -c "test $rc -eq 0 && test $ok -eq 2"

# The mock's check itself: a tool_result naming no tool_use of the message
# before it is Anthropic's 400.
code=$(curl -s -o "$WORK/bad.json" -w '%{http_code}' "$ENDPOINT/v1/messages" \
	-H 'Content-Type: application/json' -d '{"model":"mock","max_tokens":2,"messages":[{"role":"user","content":"w"},{"role":"assistant","content":"Let me check."},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"15 C"}]}]}')
check "mock: a tool_result without its tool_use is a 400 naming it ($code)" sh -c \
	"test '$code' = 400 && grep -q 'unexpected .tool_use_id. found in .tool_result. blocks: toolu_01' '$WORK/bad.json'"
stop_mock
finish
