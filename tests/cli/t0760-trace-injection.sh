#!/bin/sh
# No trace can steer a request: a record whose method, path or a header
# carries CR/LF (or a dot segment) is refused with its line and counted,
# the rest replays; Host, Content-Length, Transfer-Encoding, Connection and
# the trace's own Authorization are never sent. A real HTTP server in
# front of the mock (nghttpx) logs what arrived.
. tests/cli/lib.sh

KEY=sk-tracebench-env-0123456789abcdef
start_mock --ttft-ms 5 --itl-ms 1 --tokens 4
port=$(free_port)
nghttpx --frontend="127.0.0.1,$port;no-tls" --backend="127.0.0.1,${ENDPOINT##*:}" \
	--workers=1 --conf=/dev/null --accesslog-file="$WORK/access.log" \
	--accesslog-format='$request|host=$http_host|auth=$http_authorization|x=$http_x_injected' \
	--errorlog-file="$WORK/error.log" 2>/dev/null &
front=$!
trap 'kill $front 2>/dev/null; cleanup' EXIT
i=0
while ! grep -q "listening" "$WORK/error.log" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done

b='"body":"{\"model\":\"mock\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":4}"'
{
	printf '%s\n' '{"format":"tracebench-trace","version":1}'
	printf '%s\n' '{"id":0,"arrival_ns":0,"path":"/v1/chat/completions","headers":["Content-Type: application/json"],'"$b"'}'
	printf '%s\n' '{"id":1,"arrival_ns":0,"method":"POST /evil HTTP/1.1\r\nX-Injected: m","path":"/v1/chat/completions",'"$b"'}'
	printf '%s\n' '{"id":2,"arrival_ns":0,"path":"/v1/chat/completions HTTP/1.1\r\nX-Injected: p\r\n\r\nGET /smuggled","headers":[],'"$b"'}'
	printf '%s\n' '{"id":3,"arrival_ns":0,"path":"/v1/chat/completions","headers":["Content-Type: application/json\r\nX-Injected: h"],'"$b"'}'
	printf '%s\n' '{"id":4,"arrival_ns":0,"path":"/v1/../../admin","headers":[],'"$b"'}'
	printf '%s\n' '{"id":5,"arrival_ns":0,"path":"/v1/chat/completions","headers":["Content-Type: application/json","Host: evil.example","Authorization: Bearer trace-key","Content-Length: 1","Transfer-Encoding: chunked","Connection: close"],'"$b"'}'
} | gzip >"$WORK/evil.jsonl.gz"

OPENAI_API_KEY=$KEY tb replay -e "http://127.0.0.1:$port" -c 1 -n 4 --warmup 0 --quiet \
	-o "$WORK/r.jsonl.gz" "$WORK/evil.jsonl.gz" >/dev/null 2>"$WORK/err"
check "replay runs the good records (exit 0)" test $? -eq 0
for l in 3 4 5 6; do
	check "line $l is refused, named with file and line" \
		grep -qF "'$WORK/evil.jsonl.gz' line $l: " "$WORK/err"
done
check "... and counted" grep -qF "4 bad records skipped" "$WORK/err"
check "... and none of them called a request not for inference" sh -c "! grep -q \"not for inference\" \"$WORK/err\""
check "the 4 requests sent are the 2 good records, in turn" \
	test "$(zcat "$WORK/r.jsonl.gz" | grep -o '"trace_id":[0-9]*' | tr '\n' ' ')" = '"trace_id":0 "trace_id":5 "trace_id":0 "trace_id":5 '
# Besides the 4, the server sees only GETs: /v1/models, which opens the
# level's connection before its clock, and the questions replay asks it
# once about itself (replay/server_info.h).
n_log=$(wc -l <"$WORK/access.log")
check "the server saw 4 POSTs to /v1/chat/completions, and else only GETs of /v1/models and the version endpoints" \
	test "$(grep -c '^POST /v1/chat/completions HTTP/1.1|' "$WORK/access.log")" -eq 4 -a \
	"$(grep -vc -e '^POST /v1/chat/completions HTTP/1.1|' \
		-e '^GET /\(v1/models\|version\|props\|get_server_info\|info\) HTTP/1.1|' "$WORK/access.log")" -eq 0
check "... none with an injected header" sh -c "! grep -q 'x=[^-]' '$WORK/access.log'"
check "... each for the endpoint's host, not the trace's" \
	test "$(grep -c "|host=127.0.0.1:$port|" "$WORK/access.log")" -eq "$n_log"
check "... each with the environment's key only, never the trace's" \
	test "$(grep -c "|auth=Bearer $KEY|" "$WORK/access.log")" -eq "$n_log"
check "every response was whole: no framing header came from the trace" \
	test "$(zcat "$WORK/r.jsonl.gz" | grep -c '"status":200,"error":null')" -eq 4

# A trace cannot promote a request to inference: an admin GET marked
# "chat" is still "other", skipped without --all-requests, so it never
# reaches the server with the user's key.
{
	printf '%s\n' '{"format":"tracebench-trace","version":1}'
	printf '%s\n' '{"id":0,"arrival_ns":0,"path":"/v1/chat/completions","headers":["Content-Type: application/json"],'"$b"'}'
	printf '%s\n' '{"id":1,"arrival_ns":0,"method":"GET","kind":"chat","path":"/admin/shutdown","headers":[],"body":""}'
	printf '%s\n' '{"id":2,"arrival_ns":0,"method":"POST","kind":"completions","path":"/admin/drop","headers":[],'"$b"'}'
} | gzip >"$WORK/promote.jsonl.gz"
: >"$WORK/access.log"
OPENAI_API_KEY=$KEY tb replay -e "http://127.0.0.1:$port" -c 1 -n 3 --warmup 0 --quiet \
	-o "$WORK/p.jsonl.gz" "$WORK/promote.jsonl.gz" >/dev/null 2>"$WORK/perr"
check "a trace's kind 'chat' on GET /admin/shutdown or 'completions' on POST /admin/drop is not inference: neither reaches the server" \
	sh -c "! grep -q '/admin' '$WORK/access.log' && grep -q '^POST /v1/chat/completions' '$WORK/access.log'"
finish
