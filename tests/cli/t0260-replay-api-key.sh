#!/bin/sh
# replay's API key: taken from OPENAI_API_KEY (or the variable --api-key-env
# names), sent as a bearer token, and found nowhere else: not in the results
# file, the database it loads into, replay's output, or its command line.
# A real HTTP server in front of the mock (nghttpx) logs the Authorization
# header it received.
. tests/cli/lib.sh

start_mock --ttft-ms 5 --itl-ms 1
port=$(free_port)
nghttpx --frontend="127.0.0.1,$port;no-tls" --backend="127.0.0.1,${ENDPOINT##*:}" \
	--workers=1 --conf=/dev/null --accesslog-file="$WORK/access.log" \
	--accesslog-format='$method auth=$http_authorization' --errorlog-file="$WORK/error.log" 2>/dev/null &
front=$!
trap 'kill $front 2>/dev/null; cleanup' EXIT
i=0
while ! grep -q "listening" "$WORK/error.log" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done

# nghttpx writes a request's access-log line after it has answered, so a
# replay can exit before its last line is there: wait (5 s at most) until
# the log has $1 lines.
log_lines() {
	i=0
	while [ "$(wc -l <"$WORK/access.log")" -lt "$1" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
}

secret=sk-tracebench-test-0123456789abcdef
other=sk-tracebench-other-fedcba9876543210
tb record synth -n 3 --input-tokens 8 --output-tokens 4 -o "$WORK/t.jsonl.gz" 2>/dev/null

# --start-at half a second ahead keeps replay running while its command
# line is read.
OPENAI_API_KEY=$secret $VG "$TB" replay --endpoint "http://127.0.0.1:$port" -c 1 -n 3 \
	--start-at "$(awk -v t="$(date +%s.%N)" 'BEGIN { printf "%.3f", t + 0.5 }')" --progress \
	-o "$WORK/r.jsonl.gz" "$WORK/t.jsonl.gz" >"$WORK/out" 2>"$WORK/err" &
pid=$!
# Until the shell has run exec, /proc shows the shell's command line.
i=0
while { tr '\0' ' ' <"/proc/$pid/cmdline" >"$WORK/cmdline"; } 2>/dev/null &&
	! grep -q ' replay ' "$WORK/cmdline" && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
wait $pid
check "replay with OPENAI_API_KEY exits 0" test $? -eq 0
log_lines 5
check "the server received it as a bearer token on all 4 requests (1 warm-up)" \
	test "$(grep -c "^POST auth=Bearer $secret\$" "$WORK/access.log")" -eq 4
check "... and on the GET /v1/models that open the connections (before the warm-up and the level)" \
	test "$(grep -c "^GET auth=Bearer $secret\$" "$WORK/access.log")" -ge 1
check "the command line (read while it ran) does not hold it" sh -c \
	"grep -q ' replay ' '$WORK/cmdline' && ! grep -q '$secret' '$WORK/cmdline'"
check "neither stdout nor stderr holds it" sh -c "! grep -q '$secret' '$WORK/out' '$WORK/err'"
check "the results file does not hold it" sh -c \
	"zcat '$WORK/r.jsonl.gz' >'$WORK/r.jsonl' && test -s '$WORK/r.jsonl' && ! grep -q '$secret' '$WORK/r.jsonl'"
tb analyze load --db "$WORK/r.db" "$WORK/r.jsonl.gz" 2>/dev/null
check "the database does not hold it" sh -c "test -s '$WORK/r.db' && ! grep -q '$secret' '$WORK/r.db'"

cp "$WORK/access.log" "$WORK/access.log.before"
OPENAI_API_KEY=$secret MY_KEY=$other tb replay --endpoint "http://127.0.0.1:$port" \
	--api-key-env MY_KEY -c 1 -n 1 --warmup 0 --quiet -o "$WORK/r2.jsonl.gz" "$WORK/t.jsonl.gz" \
	>/dev/null 2>&1
log_lines 7
check "--api-key-env MY_KEY sends that variable's key instead" sh -c \
	"diff '$WORK/access.log.before' '$WORK/access.log' | grep -qx '> POST auth=Bearer $other'"

tb replay --endpoint "http://127.0.0.1:$port" -c 1 -n 1 --warmup 0 --quiet \
	-o "$WORK/r3.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>&1
log_lines 9
check "without a key no Authorization header is sent" \
	test "$(tail -n 2 "$WORK/access.log" | sort | tr '\n' ' ')" = "GET auth=- POST auth=- "
finish
