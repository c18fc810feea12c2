#!/bin/sh
# record proxy --sessions prefix: with no session id on the wire, a chat
# request whose messages begin with an earlier request's messages and an
# answer is that request's next turn, with the think time the proxy saw.
# Three 3-turn sessions replayed two at a time through the proxy come back
# as three sessions of turns 0, 1, 2 (interleaved on the wire); a second
# continuation of one turn (a retry, an edit) starts a session of its own;
# the capture replays as sessions.
. tests/cli/lib.sh

# fields FILE KEY...: the values of KEY... of every record, one a line.
fields() {
	f=$1
	shift
	requests_of "$f" | grep '"path":"/v1/chat' | awk -v keys="$*" 'BEGIN { n = split(keys, k, " ") }
		{ line = ""; for (i = 1; i <= n; i++) { v = "-"
			if (match($0, "\"" k[i] "\":-?[0-9]+")) v = substr($0, RSTART + length(k[i]) + 3, RLENGTH - length(k[i]) - 3)
			line = line (i > 1 ? " " : "") v }
		  print line }'
}

start_mock --ttft-ms 5 --itl-ms 1
tb record synth -n 9 --turns 3 --input-tokens 6 --output-tokens 4 --think-time 80 \
	-o "$WORK/s.jsonl.gz" 2>/dev/null
start_proxy "$WORK/cap.jsonl.gz" -q --sessions prefix
tb replay -e "$PROXY" -c 2 -n 3 --warmup 0 --quiet -o "$WORK/r.jsonl.gz" "$WORK/s.jsonl.gz" >/dev/null 2>&1
check "three sessions of three turns replayed through the proxy" \
	test "$(requests_of "$WORK/r.jsonl.gz" | grep -c '"error":null')" -eq 9
stop_proxy
check "the capture is a trace of version 2 saying how it found its sessions" sh -c \
	"zcat '$WORK/cap.jsonl.gz' | head -1 | grep '\"version\":2' | grep -q '\"sessions\":\"prefix\"'"
fields "$WORK/cap.jsonl.gz" session turn think_ns arrival_ns >"$WORK/cap"
check "nine chat requests, in three sessions of turns 0, 1, 2" \
	test "$(awk '{ print $1, $2 }' "$WORK/cap" | sort | uniq | awk '{ t[$1] = t[$1] $2 } END { for (s in t) print s, t[s] }' | sort | tr '\n' ' ')" = "0 012 1 012 2 012 "
check "the sessions overlapped on the wire (C=2)" \
	awk '$2 == 0 { first[$1] = $4 } $2 == 2 { last[$1] = $4 }
		END { exit !(first[1] < last[0]) }' "$WORK/cap"
check "each later turn's think time is the proxy's view of the 80 ms pause (80-200 ms)" \
	awk '$2 > 0 { n++; if ($3 < 80000000 || $3 > '"$(upper 200000000)"') bad++ }
		$2 == 0 && $3 != 0 { bad++ } END { exit bad || n != 6 }' "$WORK/cap"

# The capture replays as sessions: turns in order, none skipped.
tb replay -e "$ENDPOINT" -c 1 -n 3 --warmup 0 --quiet -o "$WORK/again.jsonl.gz" "$WORK/cap.jsonl.gz" \
	>/dev/null 2>"$WORK/again.err"
check "the capture replays as 3 sessions, 9 turns, no session skipped" sh -c \
	"test \"\$(requests_of '$WORK/again.jsonl.gz' | grep -c '\"turn\":[012],.*\"error\":null')\" -eq 9 &&
	 ! grep -q skipped '$WORK/again.err'"

# A branch: the same turn continued twice; a request that continues nothing.
start_proxy "$WORK/br.jsonl.gz" -q --sessions prefix
post() {
	curl -sS -o /dev/null -H 'Content-Type: application/json' \
		-d "{\"model\":\"mock\",\"max_tokens\":3,\"stream\":true,\"messages\":$1}" "$PROXY/v1/chat/completions"
}
post '[{"role":"user","content":"one two"}]'
post '[{"role":"user","content":"one two"},{"role":"assistant","content":" the quick brown"},{"role":"user","content":"three"}]'
post '[{"role":"user","content":"one two"},{"role":"assistant","content":" the quick brown"},{"role":"user","content":"three, again"}]'
post '[{"role":"user","content":"other"},{"role":"assistant","content":"x"},{"role":"user","content":"y"}]'
post '[{"role":"user","content":"one two"},{"role":"assistant","content":" the quick brown"},{"role":"user","content":"three"},{"role":"assistant","content":"z"},{"role":"tool","tool_call_id":"a","content":"r"}]'
stop_proxy
fields "$WORK/br.jsonl.gz" session turn >"$WORK/br"
check "a second continuation of one turn, or one of nothing, starts a session (0 0, 0 1, 1 0, 2 0, 0 2)" \
	test "$(tr '\n' ',' <"$WORK/br")" = "0 0,0 1,1 0,2 0,0 2,"
finish
