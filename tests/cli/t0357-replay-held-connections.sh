#!/bin/sh
# A server that holds a fixed number of connections (llama.cpp's server: a
# thread of a fixed pool per connection, kept by an idle one until its
# keep-alive timeout) made a level above it wait that timeout before it
# started, and said nothing. The mock plays it (--http-threads N
# --keepalive-timeout-ms MS); replay gives up connections the server
# holds back after a second, says so in one line with what the measured
# requests waited, and opens no more than the server held at later levels.
. tests/cli/lib.sh

# The mock itself, over real sockets: with 2 threads a third connection is
# not answered while two idle ones hold them, and is once they time out.
start_mock --ttft-ms 5 --itl-ms 1 --tokens 4 --http-threads 2 --keepalive-timeout-ms 1500
port=${ENDPOINT##*:}
python3 - "$port" >"$WORK/socks.out" 2>&1 <<'EOF'
import socket, sys, time
port = int(sys.argv[1])
req = b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
def answer(s, wait):
    s.settimeout(wait)
    try:
        return b"200" in s.recv(4096)
    except socket.timeout:
        return False
socks, held = [], []     # kept open: idle, each holds a thread
for i in range(2):
    socks.append(socket.create_connection(("127.0.0.1", port)))
    socks[i].sendall(req)
    held.append(answer(socks[i], 5))
third = socket.create_connection(("127.0.0.1", port))  # the kernel accepts it
third.sendall(req)
t0 = time.monotonic()
early = answer(third, 0.5)
late = answer(third, 10)
print("held", held, "early", early, "late", late, "after %.1f" % (time.monotonic() - t0))
EOF
check "mock --http-threads 2: two connections answered, a third not while they idle" \
	grep -q "^held \[True, True\] early False late True" "$WORK/socks.out"
check "... and answered once the idle ones time out (1.5 s)" awk \
	'/^held/ { exit !($NF >= 0.9) }' "$WORK/socks.out"
stop_mock

# replay gives up held connections once no answer has come for a second
# and for 20 times its first answer took: a slow client's first answer
# (a sanitizer build on a busy host) can stretch that to the server's
# keep-alive timeout, so the timeout widens by SLACK there
keep=$((4000 * SLACK))
start_mock --ttft-ms 20 --itl-ms 5 --http-threads 4 --keepalive-timeout-ms $keep
tb record synth -n 32 --output-tokens 20 -o "$WORK/t.jsonl.gz" 2>/dev/null
tb replay -e "$ENDPOINT" -c 2,8,16 -n 16 --quiet -o "$WORK/r.jsonl.gz" "$WORK/t.jsonl.gz" \
	>/dev/null 2>"$WORK/r.err"
rc=$?
sed 's/^/    /' "$WORK/r.err"
check "replay at C above the server's 4 connections: exit 0" test $rc -eq 0
check "... every measured request succeeded" test "$(zcat "$WORK/r.jsonl.gz" |
	jq -s '[.[] | select(.level != null and .warmup == false and .status == 200)] | length')" -eq 48
# 4 threads: it answered on at most 4 connections; what it held back is
# counted in requests (one that ended first lends its connection to one
# not yet sent), at least one
served=$(sed -n 's/^tracebench replay: note: at C=8 the server served only \([0-9]*\) connections at once: \([0-9]*\) more waited [0-9.]* s unanswered before the level and were given up .*/\1 \2/p' "$WORK/r.err")
check "... said in one line at C=8: served only N <= 4 at once, the rest given up ($served)" \
	sh -c "test -n '$served' && echo $served | awk '{ exit !(\$1 >= 1 && \$1 <= 4 && \$2 >= 1 && \$2 <= 8 - \$1) }'"
check "... with what the measured requests waited for a connection" grep -q \
	'at C=8 .*; 4 measured requests waited for a connection, TTFT P50 [0-9]* ms against [0-9]* ms on the connections it held$' "$WORK/r.err"
n=${served%% *}
check "... C=16 opened no more than those $n before its clock, and says so" grep -q \
	"^tracebench replay: note: at C=16 $((16 - ${n:-0})) connections were not opened before the level: the server served only $n at once before" "$WORK/r.err"
check "... not read as a server that closes its connections" sh -c \
	"! grep -q 'closes kept connections' '$WORK/r.err'"
# The level's start: from the last end of C=2 to the first send of C=8.
# Waiting for the server's keep-alive timeout (4 s) made it 4 s or more.
gap=$(zcat "$WORK/r.jsonl.gz" | jq -s '
	([.[] | select(.level == 2 and .warmup == false) | .sched_ns + .e2e_ns] | max) as $last |
	([.[] | select(.level == 8 and .warmup == false) | .sched_ns] | min) as $first |
	($first - $last) / 1e9')
check "C=8 started ${gap} s after C=2 ended, before the server's $((keep / 1000))-s timeout" \
	within_time "$gap" 0 2 "$((keep / 1000 - 1)).9"
stop_mock

# A client stalled while the first answers of the warm-up arrive (each list
# of models read 400 ms late by a preloaded library: a busy host's stall)
# measured the server's pace as 400 ms, and the wait for 20 times that
# outgrew the server's keep-alive timeout: the level waited for it and
# said nothing (four answers read 1.6 s, then 8 s of quiet, past the 7 s).
# The wait is at most 2 s now (not under the sanitizers).
if preload late_models "a stalled client still gives held connections up before the server's timeout"; then
	start_mock --ttft-ms 20 --itl-ms 5 --http-threads 4 --keepalive-timeout-ms 7000
	LD_PRELOAD=$SHIM tb replay -e "$ENDPOINT" -c 8 -n 4 --quiet -o "$WORK/late.jsonl.gz" \
		"$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/late.err"
	rc=$?
	sed 's/^/    /' "$WORK/late.err"
	waited=$(sed -n 's/^tracebench replay: note: at C=8 the server served only [0-9]* connections at once: [0-9]* more waited \([0-9.]*\) s unanswered before the level and were given up .*/\1/p' "$WORK/late.err")
	check "a stalled client: exit 0, and the held connections given up after ${waited:-?} s, before the server's 7-s timeout" \
		sh -c "test $rc -eq 0 && test -n '$waited' && awk 'BEGIN { exit !($waited < 6.9) }'"
	stop_mock
fi

# An A/B run against that server and one that holds every connection: the
# limit found on A caps A's warm-ups, never B's (one client, one pool)
start_mock --ttft-ms 20 --itl-ms 5 --http-threads 4 --keepalive-timeout-ms $((3000 * SLACK))
held=$ENDPOINT
start_mock --ttft-ms 20 --itl-ms 5
tb replay -e "$held" -e "$ENDPOINT" -c 8 -n 8 --repeat 2 --quiet -o "$WORK/a.jsonl.gz" \
	-o "$WORK/b.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/ab.err"
check "A/B: the held server said so" grep -q 'the server served only [0-9]* connections at once' "$WORK/ab.err"
# A's two blocks: the first finds the limit, the second is capped; B's are not
check "... one capped warm-up, A's second block: B's blocks open all 8" \
	test "$(grep -c 'connections were not opened before the level' "$WORK/ab.err")" -eq 1
check "... the other side's connections all opened before its clock (no request opened one)" \
	test "$(zcat "$WORK/b.jsonl.gz" | jq -s '[.[] | select(.level == 8 and .warmup == false and .new_connection == true)] | length')" -eq 0
finish
