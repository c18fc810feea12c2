#!/bin/sh
# replay over HTTP/2 and TLS, through a real HTTP/2 server (nghttpx, a
# reverse proxy) in front of the mock: --http2 speaks HTTP/2, -k accepts a
# self-signed certificate, and without -k the certificate is refused.
. tests/cli/lib.sh

start_mock --ttft-ms 10 --itl-ms 2
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
	-subj /CN=localhost -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
tls=$(free_port)
clear=$(free_port)
nghttpx --frontend="127.0.0.1,$tls" --frontend="127.0.0.1,$clear;no-tls" \
	--backend="127.0.0.1,${ENDPOINT##*:}" --workers=1 --no-ocsp --conf=/dev/null \
	--accesslog-file="$WORK/access.log" --errorlog-file="$WORK/error.log" \
	"$WORK/key.pem" "$WORK/cert.pem" 2>/dev/null &
proxy=$!
trap 'kill $proxy 2>/dev/null; cleanup' EXIT
i=0
while ! grep -q "listening" "$WORK/error.log" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done

tb record synth -n 4 --input-tokens 8 --output-tokens 10 -o "$WORK/trace.jsonl.gz" 2>/dev/null

tb replay --endpoint "https://127.0.0.1:$tls" -k --http2 -c 2 -n 4 --quiet \
	-o "$WORK/h2.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>&1
check "HTTP/2 over TLS with -k: exit 0" test $? -eq 0
check "... all 5 requests (1 warm-up) succeed with 10 tokens" \
	test "$(zcat "$WORK/h2.jsonl.gz" | grep -c '"error":null.*"output_tokens":10')" -eq 5
# (and the GET /v1/models that opened the connection first: not counted)
# nghttpx writes its access log behind the replies: wait for its lines
logged() {  # pattern count
	i=0
	while [ "$(grep -c "$1" "$WORK/access.log")" -lt "$2" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -c "$1" "$WORK/access.log"
}
check "... and the server saw HTTP/2" test "$(logged 'POST .*HTTP/2" 200' 5)" -eq 5

tb replay --endpoint "https://127.0.0.1:$tls" -k -c 2 -n 4 --quiet \
	-o "$WORK/h1.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>&1
check "without --http2 the server sees HTTP/1.1" \
	test "$(logged 'POST .*HTTP/1.1" 200' 5)" -eq 5

tb replay --endpoint "https://127.0.0.1:$tls" -c 1 -n 2 --warmup 0 --quiet \
	-o "$WORK/cert.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>&1
check "without -k a self-signed certificate is refused (exit 1)" test $? -eq 1
check "... recorded as class 'connect' naming the certificate" sh -c \
	"zcat '$WORK/cert.jsonl.gz' | grep -c '\"error\":\"connect\",\"error_detail\":\"SSL certificate problem' | grep -qx 2"

# Cleartext HTTP/2 (prior knowledge) needs a libcurl without curl issue 10634.
tb replay --endpoint "http://127.0.0.1:$clear" --http2 -c 2 -n 4 --quiet \
	-o "$WORK/h2c.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>"$WORK/err"
rc=$?
if grep -q "needs libcurl 7.89" "$WORK/err"; then
	check "cleartext --http2 on an old libcurl is refused up front (exit 2)" test $rc -eq 2
else
	check "cleartext --http2 works on this libcurl" test $rc -eq 0
fi

# --cancel over HTTP/2: a chosen request is cut by resetting its stream,
# not its connection: the others on the connection go on, every measured
# request reuses the connection the level opened, and the server (behind
# the proxy) frees what was cut.
tb record synth -n 16 --input-tokens 8 --output-tokens 60 -o "$WORK/long.jsonl.gz" 2>/dev/null
tb replay --endpoint "https://127.0.0.1:$tls" -k --http2 -c 4 -n 16 --warmup 0 --seed 3 \
	--cancel 0.5:tokens:5 --quiet -o "$WORK/h2cut.jsonl.gz" "$WORK/long.jsonl.gz" >/dev/null 2>&1
rc=$?
cut=$(requests_of "$WORK/h2cut.jsonl.gz" | grep -c '"error":"cancelled"')
whole=$(requests_of "$WORK/h2cut.jsonl.gz" | grep -c '"error":null.*"output_tokens":60')
fresh=$(requests_of "$WORK/h2cut.jsonl.gz" | grep -c '"new_connection":true')
check "HTTP/2 --cancel: exit 0, $cut cut and $whole whole of 16, none failed, no new connection ($fresh)" \
	sh -c "test $rc -eq 0 && test $cut -ge 1 && test $((cut + whole)) -eq 16 && test $fresh -eq 0"
running() { curl -s "$ENDPOINT/metrics" | awk '/^vllm:num_requests_running/ { print $2 }'; }
i=0
while [ "$(running)" != 0 ] && [ $i -lt $((50 * SLACK)) ]; do sleep 0.1; i=$((i + 1)); done
check "... and the server behind the proxy runs nothing afterwards ($(running))" test "$(running)" = 0
finish
