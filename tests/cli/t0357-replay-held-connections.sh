#!/bin/sh
# A server that holds a fixed number of connections (llama.cpp's server: a
# thread of a fixed pool per connection, kept by an idle one until its
# keep-alive timeout). The mock plays it (--http-threads N
# --keepalive-timeout-ms MS).
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

