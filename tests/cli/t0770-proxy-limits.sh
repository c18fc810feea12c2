#!/bin/sh
# record proxy under requests it must refuse or cannot record: a request
# whose record would not fit a trace line (413, the trace stays readable),
# a path climbing out of the upstream's base path or a duplicate
# Content-Length (400), more bodies in flight than its memory budget (503),
# a full disk (proxying goes on, recording stops, exit 1); and it frames
# replies itself instead of passing the upstream's Content-Length on.
. tests/cli/lib.sh

body='{"model":"mock","messages":[{"role":"user","content":"hi"}],"max_tokens":4}'
post() {  # URL [curl args]: prints the status
	url=$1
	shift
	curl -sS -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' "$@" "$url"
}

start_mock --ttft-ms 5 --itl-ms 1 --tokens 4
start_proxy "$WORK/p.jsonl.gz"
# 12 MiB of control bytes: 72 MiB once escaped, past the 64 MiB line
head -c 12582912 /dev/zero | tr '\0' '\001' >"$WORK/ctl.bin"
code=$(post "$PROXY/v1/chat/completions" --data-binary @"$WORK/ctl.bin")
check "a request whose record would pass the line limit: 413 (got $code)" test "$code" = 413
code=$(post "$PROXY/v1/chat/completions" -d "$body")
check "... the next request passes (got $code)" test "$code" = 200
code=$(post "$PROXY/v1/../../admin" --path-as-is -d "$body")
check "a path with '..' segments: 400 (got $code)" test "$code" = 400
code=$(post "$PROXY/v1/%2e%2e/admin" --path-as-is -d "$body")
check "... percent-encoded too: 400 (got $code)" test "$code" = 400
code=$(post "$PROXY/v1/chat/completions" -H "Content-Length: ${#body}" -H "Content-Length: ${#body}" -d "$body")
check "a duplicate Content-Length: 400 (got $code)" test "$code" = 400
curl -sS -D "$WORK/h" -o /dev/null -H 'Content-Type: application/json' \
	-d '{"model":"mock","messages":[{"role":"user","content":"hi"}],"max_tokens":4,"stream":false}' \
	"$PROXY/v1/chat/completions"
check "the upstream's Content-Length is not passed on: the proxy frames the reply (chunked)" sh -c \
	"! grep -qi '^content-length' '$WORK/h' && grep -qi '^transfer-encoding: chunked' '$WORK/h'"
stop_proxy INT
check "the trace reads whole: record info finds the 2 recorded requests, no warning" sh -c \
	"'$TB' record info '$WORK/p.jsonl.gz' >'$WORK/info' 2>'$WORK/err' && ! test -s '$WORK/err' &&
	 test \$(requests_of '$WORK/p.jsonl.gz' | wc -l) -eq 2"
stop_mock

# ---- the memory budget: 8 body caps (here 8 x 1 MiB) across requests in flight
start_mock --ttft-ms 1500 --itl-ms 1 --tokens 2
start_proxy "$WORK/b.jsonl.gz" --max-request-bytes 1048576
pad=$(head -c 900000 /dev/zero | tr '\0' 'a')
printf '{"model":"mock","messages":[{"role":"user","content":"%s"}],"max_tokens":2}' "$pad" >"$WORK/big.json"
posts=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	post "$PROXY/v1/chat/completions" --data-binary @"$WORK/big.json" >"$WORK/code.$i" &
	posts="$posts $!"
done
wait_codes() { for i in 1 2 3 4 5 6 7 8 9 10 11 12; do cat "$WORK/code.$i"; echo; done; }
# every answer, however long a busy host takes (a fixed 4-s wait read 7 of 12 once)
# shellcheck disable=SC2086
wait $posts
ok=$(wait_codes | grep -c 200)
busy=$(wait_codes | grep -c 503)
check "12 bodies of 0.9 MB at once: those past the budget get 503 ($ok ok, $busy 503)" \
	test "$busy" -ge 1 -a "$ok" -ge 1 -a $((ok + busy)) -eq 12
stop_proxy INT
stop_mock

# ---- a full disk: proxying goes on, recording stops, exit 1
start_mock --ttft-ms 5 --itl-ms 1 --tokens 4
(ulimit -f 4; exec $VG "$TB" record proxy --upstream "$ENDPOINT" --listen 127.0.0.1:0 \
	--port-file "$WORK/fport" -o "$WORK/full.jsonl.gz" 2>"$WORK/full.err") &
FULL_PID=$!
i=0
while [ ! -s "$WORK/fport" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
FULL=http://127.0.0.1:$(cat "$WORK/fport")
long=$(head -c 500 /dev/urandom | od -An -tx1 | tr -d ' \n')
fails=0
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	code=$(post "$FULL/v1/chat/completions" -d "{\"model\":\"mock\",\"messages\":[{\"role\":\"user\",\"content\":\"$long\"}],\"max_tokens\":4}")
	[ "$code" = 200 ] || fails=$((fails + 1))
	sleep 0.25      # a few flush ticks pass: some records reach the disk
done
sleep 1.2   # a flush tick
code=$(post "$FULL/v1/chat/completions" -d "$body")
kill -INT $FULL_PID
wait $FULL_PID
rc=$?
check "disk full: every client still served (failures: $fails, last: $code)" test "$fails" -eq 0 -a "$code" = 200
check "... said loudly, naming the file" sh -c \
	"grep -q 'cannot write .*full.jsonl.gz.*: File too large' '$WORK/full.err' && grep -q 'RECORDING STOPPED' '$WORK/full.err'"
check "... exit 1 at the end (got $rc)" test "$rc" -eq 1
check "... the trace is a readable prefix" sh -c \
	"test \$(gzip -dc '$WORK/full.jsonl.gz' 2>/dev/null | tail -n +2 | wc -l) -gt 0"
finish
