#!/bin/sh
# record proxy in front of an https upstream (nghttpx terminating TLS with a
# self-signed certificate in front of the mock): with -k the stream passes
# and is recorded; without it the certificate is refused, the client gets a
# 502 and the trace records a 'connect' error naming the certificate.
. tests/cli/lib.sh

start_mock --ttft-ms 10 --itl-ms 2
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
	-subj /CN=localhost -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
tls=$(free_port)
nghttpx --frontend="127.0.0.1,$tls" --backend="127.0.0.1,${ENDPOINT##*:}" \
	--workers=1 --no-ocsp --conf=/dev/null --accesslog-file="$WORK/access.log" \
	--errorlog-file="$WORK/error.log" "$WORK/key.pem" "$WORK/cert.pem" 2>/dev/null &
tls_pid=$!
trap 'kill $tls_pid 2>/dev/null; cleanup' EXIT
i=0
while ! grep -q "listening" "$WORK/error.log" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done

# run_proxy TRACE [FLAGS]: one streamed request through a proxy in front of
# the https upstream; the client's body goes to TRACE.sse, its status to
# TRACE.status; returns the proxy's exit status.
UPSTREAM=https://127.0.0.1:$tls
run_proxy() {
	out=$1
	start_proxy "$@" --quiet
	curl -sS -N -o "$out.sse" -w '%{http_code}' -H 'Content-Type: application/json' \
		-d '{"model":"mock","messages":[{"role":"user","content":"hi"}],"max_tokens":8,"stream":true}' \
		"$PROXY/v1/chat/completions" >"$out.status"
	stop_proxy INT
	return $PROXY_RC
}

# whole_stream FILE: 8 content tokens and the closing [DONE].
whole_stream() {
	[ "$(grep -c '"delta":{"content":" ' "$1")" -eq 8 ] && grep -q '^data: \[DONE\]' "$1"
}
recorded() {  # TRACE PATTERN: the trace's one record matches PATTERN
	zcat "$1" | grep '"recorded"' | grep -q "$2"
}

run_proxy "$WORK/k.jsonl.gz" -k
check "https upstream with -k: the proxy exits 0" test $? -eq 0
check "... the client gets 200" test "$(cat "$WORK/k.jsonl.gz.status")" = 200
check "... and the whole stream" whole_stream "$WORK/k.jsonl.gz.sse"
check "... the trace records it with 8 tokens and no error" \
	recorded "$WORK/k.jsonl.gz" '"error":null.*"output_tokens":8'
check "... and it went over TLS (the TLS server logged it)" \
	grep -q 'POST /v1/chat/completions' "$WORK/access.log"

run_proxy "$WORK/v.jsonl.gz"
check "without -k: the proxy still exits 0" test $? -eq 0
check "... the client gets 502" test "$(cat "$WORK/v.jsonl.gz.status")" = 502
check "... with the proxy's JSON error naming the certificate" \
	grep -q '"message":"upstream failed: SSL certificate problem.*"type":"proxy_error"' "$WORK/v.jsonl.gz.sse"
check "... and the trace records a 'connect' error naming the certificate" \
	recorded "$WORK/v.jsonl.gz" '"error":"connect","error_detail":"SSL certificate problem'
finish
