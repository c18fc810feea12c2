#!/bin/sh
# A response header over libcurl's 100 KB limit (a real HTTP server in
# front of the mock, nghttpx, adds one) is recorded as malformed with that
# reason, not as "transfer: Out of memory".
. tests/cli/lib.sh

start_mock --ttft-ms 1 --itl-ms 1 --tokens 2
port=$(free_port)
big=$(head -c 110000 /dev/zero | tr '\0' 'a')
nghttpx --frontend="127.0.0.1,$port;no-tls" --backend="127.0.0.1,${ENDPOINT##*:}" \
	--workers=1 --conf=/dev/null --add-response-header="X-Big: $big" \
	--errorlog-file="$WORK/error.log" 2>/dev/null &
front=$!
trap 'kill $front 2>/dev/null; cleanup' EXIT
i=0
while ! grep -q "listening" "$WORK/error.log" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done

tb record synth -n 1 --input-tokens 8 --output-tokens 2 -o "$WORK/t.jsonl.gz" 2>/dev/null
tb replay -e "http://127.0.0.1:$port" -n 1 --warmup 0 --quiet -o "$WORK/r.jsonl.gz" "$WORK/t.jsonl.gz" \
	>/dev/null 2>&1
zcat "$WORK/r.jsonl.gz" >"$WORK/r.jsonl"
check "a 110 KB response header: recorded as malformed, naming libcurl's 100 KB limit" sh -c \
	"grep -q '\"error\":\"malformed\",\"error_detail\":\"a response header longer than libcurl' '$WORK/r.jsonl'"
finish
