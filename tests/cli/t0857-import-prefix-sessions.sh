#!/bin/sh
# record import --format mooncake --sessions prefix: Mooncake's
# conversation and tool-agent traces name no session, but a later turn's
# hash_ids begin with all of the turn before's. Rows so related become
# sessions (the longest such prefix, each turn continued once, one block
# not enough: every published row begins with the shared block 0), think
# time the gap between arrivals; each turn's body begins with the one
# before's messages and a placeholder answer; the trace replays as
# sessions, later turns finding their history in the mock's prefix cache.
. tests/cli/lib.sh

in=sample_traces/mooncake-conversation-sample.jsonl
tb record import --format mooncake --sessions prefix "$in" -o "$WORK/mc.jsonl.gz" 2>"$WORK/imp.err"
check "import: 9 requests, exit 0" sh -c "test $? -eq 0 && grep -q 'imported 9 requests' '$WORK/imp.err'"
check "a trace of version 2 saying how its sessions were found" sh -c \
	"zcat '$WORK/mc.jsonl.gz' | head -1 | grep '\"version\":2' | grep -q '\"sessions\":\"prefix\"'"
requests_of "$WORK/mc.jsonl.gz" | awk '{ s = "-"; t = "-"; k = "-"
	if (match($0, /"session":[0-9]+/)) s = substr($0, RSTART + 10, RLENGTH - 10)
	if (match($0, /"turn":[0-9]+/)) t = substr($0, RSTART + 7, RLENGTH - 7)
	if (match($0, /"think_ns":[0-9]+/)) k = substr($0, RSTART + 11, RLENGTH - 11)
	print s, t, k }' >"$WORK/groups"
# rows 1, 4, 7 and 2, 5, 9 are conversations; row 3 is one block (the
# shared one) and row 6 begins with it only; row 8 continues row 2, which
# row 5 continued first: a branch, left a request of its own
check "rows 1-4-7 and 2-5-9 are sessions of turns 0, 1, 2; rows 3, 6, 8 are requests of their own" \
	test "$(tr '\n' ',' <"$WORK/groups")" = "0 0 0,1 0 0,- - -,0 1 30000000,1 1 40000000,- - -,0 2 40000000,- - -,1 2 50000000,"

bodies() {
	requests_of "$1" | sed 's/.*"body":"\(.*\)","input_tokens".*/\1/; s/\\\\/\x01/g; s/\\"/"/g; s/\x01/\\/g'
}
bodies "$WORK/mc.jsonl.gz" >"$WORK/bodies"
# body N: the body of trace record N (from 0)
body() { sed -n "$(($1 + 1))p" "$WORK/bodies"; }
# continues A B: B's messages begin with all of A's, then an assistant message
continues() {
	a=$(body "$1")
	m=${a%%],\"max_tokens\"*}
	case "$(body "$2")" in "$m",'{"role":"assistant","content":"'*) return 0 ;; esac
	return 1
}
check "turn 1 of session 0 sends turn 0's messages and a placeholder answer, then its own" continues 0 3
check "... and turn 2 all of turn 1's" continues 3 6
session1() { continues 1 4 && continues 4 8; }
check "... and so for session 1" session1
check "a request of its own shares the words of its blocks, not the session's history" sh -c \
	"! { sed -n 8p '$WORK/bodies' | grep -q '\"role\":\"assistant\"'; }"
words() { body "$1" | sed 's/.*"content":"\([^"]*\)"}],"max_tokens".*/\1/' | wc -w; }
check "a later turn's own words are its input less the turn before's prompt and answer (2400-1500-200)" \
	test "$(words 3)" -eq 700
check "the placeholder answer has the turn before's output length (200 words)" \
	test "$(body 3 | sed 's/.*"role":"assistant","content":"\([^"]*\)".*/\1/' | wc -w)" -eq 200

# Replayed: five sessions (two of 3 turns), later turns cached.
start_mock --ttft-ms 2 --itl-ms 1 --max-model-len 100000
tb replay -e "$ENDPOINT" -c 2 -n 5 --warmup 0 --quiet --no-salt --max-tokens 4 -o "$WORK/r.jsonl.gz" \
	"$WORK/mc.jsonl.gz" >/dev/null 2>"$WORK/r.err"
check "the trace replays as 5 sessions, 9 turns, none failed, none skipped" sh -c \
	"test \"\$(requests_of '$WORK/r.jsonl.gz' | grep -c '\"error\":null')\" -eq 9 &&
	 ! grep -q skipped '$WORK/r.err'"
check "later turns find their history in the mock's prefix cache" \
	test "$(requests_of "$WORK/r.jsonl.gz" | grep '"turn":[12],' | grep -vc '"cached_tokens":0,')" -eq 4

# Only Mooncake carries a prefix to group by.
tb record import --format azure --sessions prefix sample_traces/azure-sample.csv -o "$WORK/az.jsonl.gz" \
	>/dev/null 2>"$WORK/az.err"
check "--sessions prefix on an Azure trace (no ids, no content): usage error (exit 2) saying why" sh -c \
	"test $? -eq 2 && grep -q 'needs --format mooncake' '$WORK/az.err'"
tb record import --format mooncake sample_traces/mooncake-conversation-sample.jsonl -o "$WORK/plain.jsonl.gz" 2>/dev/null
check "without --sessions, Mooncake rows stay requests of their own (version 1)" sh -c \
	"zcat '$WORK/plain.jsonl.gz' | head -1 | grep -q '\"version\":1' && ! zcat '$WORK/plain.jsonl.gz' | grep -q '\"session\"'"
finish
