#!/bin/sh
# The tool-call round trip of an agent session: the mock answers a request
# that offers tools with two streamed calls (llama.cpp's fragments), and
# replay puts the calls it assembled (the server's ids, names and
# arguments) into the next turn's assistant message, the tool messages
# after it answering the server's ids instead of the recorded ones (seen
# on the wire through a record proxy). The mock refuses a tool message
# that answers no call, so a wrong id ends the session there.
. tests/cli/lib.sh

# json_string TEXT: TEXT as the inside of a JSON string.
json_string() {
	printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'
}
# rec ID SESSION TURN THINK_NS BODY: one trace record.
rec() {
	printf '{"id":%s,"arrival_ns":0,"method":"POST","path":"/v1/chat/completions","headers":["Content-Type: application/json"],"body":"%s","input_tokens":null,"output_tokens":6,"session":%s,"turn":%s,"think_ns":%s}\n' \
		"$1" "$(json_string "$5")" "$2" "$3" "$4"
}
# bodies TRACE: the chat bodies a proxy saw, one a line, unescaped once.
bodies() {
	zcat "$1" | grep '"path":"/v1/chat/completions"' |
		sed 's/.*"body":"\(.*\)","input_tokens".*/\1/; s/\\\\/\x01/g; s/\\"/"/g; s/\x01/\\/g'
}

tools='"tools":[{"type":"function","function":{"name":"run_command","parameters":{"type":"object"}}},{"type":"function","function":{"name":"read_file"}}]'
user='{"role":"user","content":"what is in this directory"}'
# what the recorded server called, and the results the agent sent back
# (in the other order: they are matched by id, not by place)
calls0='{"role":"assistant","content":null,"tool_calls":[{"id":"rec-a","type":"function","function":{"name":"run_command","arguments":"{\"command\":\"ls\"}"}},{"id":"rec-b","type":"function","function":{"name":"read_file","arguments":"{\"path\":\".\"}"}}]},{"role":"tool","tool_call_id":"rec-b","content":"no such file"},{"role":"tool","tool_call_id":"rec-a","content":"a.txt b.txt"}'
calls1='{"role":"assistant","content":"","tool_calls":[{"id":"rec-a","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.txt\"}"}},{"id":"rec-c","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"b.txt\"}"}}]},{"role":"tool","tool_call_id":"rec-a","content":"alpha"},{"role":"tool","tool_call_id":"rec-c","content":"beta"}'
{
	echo '{"format":"tracebench-trace","version":2,"tool":"tracebench 0.1.0","source":{"kind":"test"}}'
	rec 0 0 0 0 "{\"model\":\"mock\",\"messages\":[$user],$tools,\"max_tokens\":6,\"stream\":true}"
	rec 1 0 1 50000000 "{\"model\":\"mock\",\"messages\":[$user,$calls0],$tools,\"max_tokens\":6,\"stream\":true}"
	rec 2 0 2 50000000 "{\"model\":\"mock\",\"messages\":[$user,$calls0,$calls1],$tools,\"max_tokens\":6,\"stream\":true}"
} | gzip >"$WORK/agent.jsonl.gz"

start_mock --ttft-ms 5 --itl-ms 1 --tool-calls 2 --tool-rounds 2
start_proxy "$WORK/wire.jsonl.gz"
tb replay -e "$PROXY" -c 1 -n 1 --warmup 0 --quiet --no-salt -o "$WORK/r.jsonl.gz" "$WORK/agent.jsonl.gz" \
	>/dev/null 2>"$WORK/r.err"
check "an agent session of 3 turns replays (exit 0, 3 results, none failed)" sh -c \
	"test $? -eq 0 && test \"\$(requests_of '$WORK/r.jsonl.gz' | grep -c '\"error\":null')\" -eq 3"
stop_proxy
bodies "$WORK/wire.jsonl.gz" >"$WORK/bodies"
check "the proxy saw three chat bodies" test "$(wc -l <"$WORK/bodies")" -eq 3
# the mock's first request gets ids call-mock-1-0 and -1, its second -2-*
live0='"tool_calls":[{"id":"call-mock-1-0","type":"function","function":{"name":"run_command","arguments":"{\"q\":\" quick brown\"}"}},{"id":"call-mock-1-1","type":"function","function":{"name":"read_file","arguments":"{\"q\":\" jumps over\"}"}}]}'
check "turn 2's assistant message holds the server's streamed calls: ids, names, arguments" \
	grep -qF "$live0" "$WORK/bodies"
check "... and its tool messages answer the server's ids, each the call it answered" \
	grep -qF '{"role":"tool","tool_call_id":"call-mock-1-1","content":"no such file"},{"role":"tool","tool_call_id":"call-mock-1-0","content":"a.txt b.txt"}' "$WORK/bodies"
check "no recorded id nor argument is sent after turn 1" sh -c \
	"tail -n +2 '$WORK/bodies' | grep -c 'rec-\|a\\.txt\\\\\"\|\\\\\"ls' | grep -qx 0"
check "turn 3 holds both rounds of the server's calls, ids mapped per round" sh -c \
	"grep -F '$live0' '$WORK/bodies' | grep -F '\"id\":\"call-mock-2-0\",\"type\":\"function\",\"function\":{\"name\":\"run_command\"' |
	 grep -qF '{\"role\":\"tool\",\"tool_call_id\":\"call-mock-2-0\",\"content\":\"alpha\"},{\"role\":\"tool\",\"tool_call_id\":\"call-mock-2-1\",\"content\":\"beta\"}'"
check "the last turn, answering its tool results, gets text (the mock's --tool-rounds 2)" sh -c \
	"requests_of '$WORK/r.jsonl.gz' | grep '\"turn\":2' | grep -q '\"output_tokens\":6'"
requests_of "$WORK/r.jsonl.gz" | awk '{ match($0, /"sched_ns":[0-9]+/); s = substr($0, RSTART + 11, RLENGTH - 11)
	match($0, /"e2e_ns":[0-9]+/); e = substr($0, RSTART + 9, RLENGTH - 9); print s, e }' >"$WORK/t"
check "each turn after a tool call is due 50 ms (the tool's run) after the call's end" \
	awk 'NR > 1 { if ($1 - end < 50000000) bad++ } { end = $1 + $2 } END { exit bad || NR != 3 }' "$WORK/t"

# Not streamed: the calls come whole in message.tool_calls.
zcat "$WORK/agent.jsonl.gz" | sed 's/\\"stream\\":true/\\"stream\\":false/' | gzip >"$WORK/whole.jsonl.gz"
start_proxy "$WORK/wire2.jsonl.gz"
tb replay -e "$PROXY" -c 1 -n 1 --warmup 0 --quiet --no-salt -o "$WORK/w.jsonl.gz" "$WORK/whole.jsonl.gz" \
	>/dev/null 2>&1
stop_proxy
bodies "$WORK/wire2.jsonl.gz" >"$WORK/bodies2"
whole='"id":"call-mock-4-1","type":"function","function":{"name":"read_file","arguments":"{\"q\":\" jumps over\"}"}'
ok_whole() {
	test "$(requests_of "$WORK/w.jsonl.gz" | grep -c '"error":null')" -eq 3 &&
		grep -qF "$whole" "$WORK/bodies2"
}
check "not streamed: 3 turns, none failed, turn 2 with the calls of the body" ok_whole

# A tool message answering an id the placeholder did not record keeps it,
# and the server refuses it: the session ends at that turn.
zcat "$WORK/agent.jsonl.gz" | sed '3s/tool_call_id\\":\\"rec-b/tool_call_id\\":\\"rec-zz/' | gzip >"$WORK/stray.jsonl.gz"
tb replay -e "$ENDPOINT" -c 1 -n 1 --warmup 0 --quiet --no-salt -o "$WORK/s.jsonl.gz" "$WORK/stray.jsonl.gz" \
	>/dev/null 2>&1
check "a tool message answering no call: turn 2 refused (http), no turn 3" sh -c \
	"test \"\$(requests_of '$WORK/s.jsonl.gz' | wc -l)\" -eq 2 &&
	 requests_of '$WORK/s.jsonl.gz' | grep '\"turn\":1' | grep -q '\"error\":\"http\".*rec-zz'"
finish
