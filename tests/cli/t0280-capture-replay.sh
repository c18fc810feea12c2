#!/bin/sh
# Real traffic in, real traffic out. An SDK-shaped session (a models list,
# a non-streamed call, streamed calls, a HEAD, all asking for gzip) goes
# through record proxy to a server that compresses: the proxy records every
# request as a success with its kind and without Accept-Encoding; the
# capture loads as a run (inference only; the non-streamed call out of TTFT)
# and compares with its replay; the replay skips what is not inference,
# decodes what the server compressed, and with --all-requests sends HEAD
# without waiting for a body. A capture with a record over the reader's
# cap is refused whole.
. tests/cli/lib.sh

start_mock --ttft-ms 20 --itl-ms 2 --gzip
start_proxy "$WORK/cap.jsonl.gz"
ae='Accept-Encoding: gzip, deflate'
sse='{"model":"mock","messages":[{"role":"user","content":"hi from the sdk"}],"max_tokens":8,"stream":true}'
curl -sS --compressed -H "$ae" "$PROXY/v1/models" >"$WORK/models"
curl -sS --compressed -H "$ae" -H 'Content-Type: application/json' \
	-d '{"model":"mock","messages":[{"role":"user","content":"whole"}],"max_tokens":4}' \
	"$PROXY/v1/chat/completions" >"$WORK/whole"
for i in 1 2 3 4; do
	curl -sS -N --compressed -H "$ae" -H 'Content-Type: application/json' -d "$sse" \
		"$PROXY/v1/chat/completions" >"$WORK/s$i"
done
curl -sS -I -o /dev/null "$PROXY/health"
stop_proxy
check "the client got the models list through the proxy" grep -q '"id":"mock"' "$WORK/models"
check "... and decoded streams" grep -q '^data: \[DONE\]' "$WORK/s4"
requests_of "$WORK/cap.jsonl.gz" >"$WORK/cap.jsonl"
check "the proxy records all 7 compressed answers as successes" \
	test "$(grep -c '"recorded":{[^}]*"error":null' "$WORK/cap.jsonl")" -eq 7
check "... the models list and HEAD as kind other" \
	test "$(grep -c '"kind":"other"' "$WORK/cap.jsonl")" -eq 2
check "... the rest as chat" test "$(grep -c '"kind":"chat"' "$WORK/cap.jsonl")" -eq 5
check "Accept-Encoding is not recorded" sh -c "! grep -qi 'accept-encoding' '$WORK/cap.jsonl'"
check "the streamed calls' tokens were measured through gzip" \
	test "$(grep -c '"recorded":{.*"ttft_ns":[0-9]*,.*"output_tokens":8,' "$WORK/cap.jsonl")" -eq 4

tb analyze load --db "$WORK/d.db" --label production "$WORK/cap.jsonl.gz" 2>"$WORK/err"
check "the capture loads as a run of its 5 inference requests" \
	grep -q "run 'production', 5 requests" "$WORK/err"
tb analyze report --db "$WORK/d.db" --run production --format csv >"$WORK/p.csv"
check "... TTFT from the 4 streamed ones only" test "$(csv_field "$WORK/p.csv" n_ttft 1)" = 4
check "... E2E from all 5" test "$(csv_field "$WORK/p.csv" n_e2e 1)" = 5
ttft=$(csv_field "$WORK/p.csv" p50_ttft_ms 1)
check "... so the non-streamed call does not pull TTFT under 20 ms ($ttft)" within "$ttft" 19 1000
tb analyze report --db "$WORK/d.db" --run production >"$WORK/p.txt"
check "the report says what was left out" grep -q '^note: 2 requests not for inference' "$WORK/p.txt"

tb replay -e "$ENDPOINT" --timing trace --warmup 0 --label replay -o "$WORK/r.jsonl.gz" \
	"$WORK/cap.jsonl.gz" >/dev/null 2>"$WORK/rerr"
check "replay skips what is not inference" grep -q 'skipping 2 requests .* not for inference' "$WORK/rerr"
check "replay against the compressing server: no errors" \
	test "$(zcat "$WORK/r.jsonl.gz" | grep -c '"error":null')" -eq 5
check "... the non-streamed call recorded as such" \
	test "$(zcat "$WORK/r.jsonl.gz" | grep -c '"streamed":false')" -eq 1
tb analyze load --db "$WORK/d.db" "$WORK/r.jsonl.gz" 2>/dev/null
tb analyze report --db "$WORK/d.db" --run replay --format csv >"$WORK/r.csv"
check "the replay's TTFT has the 4 streamed requests only" test "$(csv_field "$WORK/r.csv" n_ttft 1)" = 4
tb analyze compare --db "$WORK/d.db" production replay >"$WORK/cmp" 2>"$WORK/cmp.err"
check "compare production replay works" test $? -eq 0
check "... level by level (open loop)" grep -qi 'ttft' "$WORK/cmp"
check "... and knows it replayed that capture (no trace warning)" sh -c "! grep -q 'different trace' '$WORK/cmp.err'"

start=$(date +%s)
tb replay -e "$ENDPOINT" -c 1 -n 7 --warmup 0 --all-requests --timeout 30 -o "$WORK/all.jsonl.gz" \
	"$WORK/cap.jsonl.gz" >/dev/null 2>&1
took=$(($(date +%s) - start))
check "with --all-requests HEAD does not wait for a body (${took} s, timeout 30)" test "$took" -lt 10
check "... and is a success with status 200" sh -c \
	"zcat '$WORK/all.jsonl.gz' | grep '\"trace_id\":6,' | grep -q '\"status\":200,\"error\":null'"
check "... as is the models list" \
	test "$(zcat "$WORK/all.jsonl.gz" | grep -c '"error":null')" -eq 7

# A record past the one 64 MiB line limit (lib/tracefile.h): that record is
# skipped, said with its line, and the rest of the file reads.
big_line=$(($(zcat "$WORK/cap.jsonl.gz" | wc -l) + 1))
{
	zcat "$WORK/cap.jsonl.gz"
	printf '{"id":99,"arrival_ns":1,"method":"POST","path":"/v1/chat/completions","kind":"chat","body":"'
	head -c 67200000 /dev/zero | tr '\0' a
	printf '"}\n'
} | gzip -1 >"$WORK/big.jsonl.gz"
tb analyze load --db "$WORK/big.db" "$WORK/big.jsonl.gz" 2>"$WORK/err"
rc=$?
check "a capture with an oversized record: analyze load exits 0" test $rc -eq 0
check "... saying it skipped that record, naming file and line" sh -c \
	"grep -q 'big.jsonl.gz.*skipped 1 record longer than 64 MiB (line $big_line)' '$WORK/err'"
check "... and loads the rest" sh -c "'$TB' analyze runs --db '$WORK/big.db' 2>/dev/null | grep -q ."
tb replay -e "$ENDPOINT" -n 1 --warmup 0 -o "$WORK/big.r.jsonl.gz" "$WORK/big.jsonl.gz" >/dev/null 2>"$WORK/err"
rc=$?
check "... replay replays the rest (exit 0), saying what it skipped" sh -c \
	"test $rc -eq 0 && grep -q 'skipped 1 record longer than 64 MiB (line $big_line)' '$WORK/err' && test -s '$WORK/big.r.jsonl.gz'"

# --model rewrites the requests; the results header names the model sent.
tb replay -e "$ENDPOINT" -c 1 -n 1 --warmup 0 --model renamed -o "$WORK/m.jsonl.gz" \
	"$WORK/cap.jsonl.gz" >/dev/null 2>&1
check "the results header records the model actually sent" sh -c \
	"zcat '$WORK/m.jsonl.gz' | head -n 1 | grep -q '\"model\":\"renamed\"'"
check "... which the mock, serving 'mock', refuses with 404" sh -c \
	"requests_of '$WORK/m.jsonl.gz' | sed -n 1p | grep -q '\"status\":404'"
finish
