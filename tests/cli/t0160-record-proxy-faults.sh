#!/bin/sh
# record proxy against a failing upstream: an upstream that resets the
# connection mid-stream cuts the client's stream too (never a clean end),
# the trace records a 'transfer' error with the tokens that came, and the
# proxy goes on serving the next request.
. tests/cli/lib.sh

post() {  # URL MAX_TOKENS
	curl -sS -N --max-time $((10 * SLACK)) -H 'Content-Type: application/json' \
		-d "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":$2,\"stream\":true}" \
		"$1/v1/chat/completions"
}

# ---- upstream reset after 3 tokens
start_mock --ttft-ms 5 --itl-ms 5 --reset-after 3
start_proxy "$WORK/reset.jsonl.gz"
post "$PROXY" 10 >"$WORK/reset.sse" 2>"$WORK/reset.curl"
rc=$?
check "the client's stream is cut, not ended cleanly (curl exit $rc: 18 or 56)" sh -c \
	"test $rc -eq 18 -o $rc -eq 56"
check "the client got the 3 tokens that came, and no [DONE]" sh -c \
	"test \$(grep -c '\"content\":\" [a-z]*\"' '$WORK/reset.sse') -eq 3 &&
	 ! grep -q '\[DONE\]' '$WORK/reset.sse'"
# 2 tokens end before the reset point: the proxy's next request works.
post "$PROXY" 2 >"$WORK/next.sse" 2>/dev/null
rc=$?
check "the proxy goes on: the next request is served whole (curl exit $rc, [DONE])" sh -c \
	"test $rc -eq 0 && grep -q '^data: \[DONE\]' '$WORK/next.sse'"
kill -INT "$PROXY_PID"
wait "$PROXY_PID"
rc=$?
PROXY_PID=""
check "SIGINT: the proxy exits 0 (got $rc)" test "$rc" -eq 0
zcat "$WORK/reset.jsonl.gz" >"$WORK/reset.jsonl"
check "the trace records the reset as 'transfer', status 200, with its 3 tokens and their TTFT" \
	grep -q '"max_tokens\\":10.*"recorded":{.*"status":200,"error":"transfer",.*"ttft_ns":[0-9].*"output_tokens":3,' \
	"$WORK/reset.jsonl"
check "and the next request as a success with its 2 tokens" \
	grep -q '"max_tokens\\":2.*"recorded":{.*"status":200,"error":null,.*"output_tokens":2,' "$WORK/reset.jsonl"
check "the mock exits cleanly" stop_mock

check "no proxy run reported a memory error (sanitizers, valgrind)" sh -c \
	"! grep -E -q 'AddressSanitizer|LeakSanitizer|runtime error|^==[0-9]+==' '$WORK/proxy.err'"
finish
