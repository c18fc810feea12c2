# typed_api.sh - the checks t0205 (Anthropic Messages) and t0206 (OpenAI
# Responses) share, sourced after lib.sh with:
#
#   API        the kind, "messages" or "responses"
#   API_PATH   where it is served, /v1/messages or /v1/responses
#   END_EVENT  the event that ends a complete stream
#   body N STREAM   prints a request body of prompt N, streamed or not
#                   ("true"/"false"), asking for 20 tokens
#
# The mock's schedule: TTFT 50 ms, then a token every 10 ms, the first 3
# reasoning (thinking / reasoning text), so TTFA is token 3's time (80 ms)
# and E2E token 19's (240 ms). Requests go through record proxy, carrying
# a key as x-api-key; the trace replays against the mock, the key again
# as x-api-key (Messages: ANTHROPIC_API_KEY) or a Bearer token
# (Responses: OPENAI_API_KEY). Neither key may reach any file.

secret=sk-ant-tracebench-typed-0123456789abcdef
replay_secret=sk-ant-tracebench-replay-fedcba9876543210

post() {  # URL BODY: one request with the key as x-api-key
	curl -sS -N -H 'Content-Type: application/json' -H "x-api-key: $secret" \
		-H 'anthropic-version: 2023-06-01' -d "$2" "$1$API_PATH"
}

# ---- record proxy in front of the mock: 5 streamed, 1 whole
start_mock --ttft-ms 50 --itl-ms 10 --reasoning-tokens 3
start_proxy "$WORK/trace.jsonl.gz"
for i in 1 2 3 4 5; do
	post "$PROXY" "$(body $i true)" >"$WORK/client$i.sse"
done
post "$PROXY" "$(body 6 false)" >"$WORK/client6.json"
stop_proxy INT
check "$API through the proxy: the client gets the whole stream, to $END_EVENT" \
	grep -q "^event: $END_EVENT\$" "$WORK/client1.sse"
zcat "$WORK/trace.jsonl.gz" >"$WORK/trace.jsonl"
check "the proxy records all 6 as kind $API, path $API_PATH" test \
	"$(grep -c "\"path\":\"$API_PATH\",\"kind\":\"$API\"" "$WORK/trace.jsonl")" -eq 6
check "the x-api-key header is recorded as left out, the anthropic-version kept" sh -c \
	"grep -q 'anthropic-version: 2023-06-01' '$WORK/trace.jsonl' && ! grep -qi 'x-api-key' '$WORK/trace.jsonl'"
check "the proxy's measurements: 20 tokens from usage, no error, 19 gaps a streamed one" sh -c \
	"test \$(grep -c '\"status\":200,\"error\":null.*\"output_tokens\":20,\"tokens_estimated\":false.*\"itl_us\":\[[0-9]*\(,[0-9]*\)\{18\}\]' '$WORK/trace.jsonl') -eq 5"
check "... and the proxy's TTFT is the mock's 50 ms or more" awk '
	/"ttft_ns":/ { s = $0; sub(/.*"ttft_ns":/, "", s); sub(/[,}].*/, "", s); n++; if (s + 0 < 50000000) bad++ }
	END { exit bad || n != 6 }' "$WORK/trace.jsonl"

# ---- the trace replayed against the mock
ANTHROPIC_API_KEY=$replay_secret OPENAI_API_KEY=$replay_secret tb replay --endpoint "$ENDPOINT" \
	-c 1 -n 6 --warmup 1 --no-salt --label $API -o "$WORK/run.jsonl.gz" "$WORK/trace.jsonl.gz" \
	>"$WORK/table" 2>"$WORK/err"
check "replay of the $API trace exits 0" test $? -eq 0
requests_of "$WORK/run.jsonl.gz" >"$WORK/run.jsonl"
check "all 6 replayed after a warm-up, none skipped as not inference" sh -c \
	"test \$(wc -l <'$WORK/run.jsonl') -eq 7 && ! grep -q 'skipping' '$WORK/err'"
check "every request succeeded with 20 tokens from usage" sh -c \
	"test \$(grep -c '\"error\":null' '$WORK/run.jsonl') -eq 7 &&
	 test \$(grep -c '\"output_tokens\":20,\"tokens_estimated\":false' '$WORK/run.jsonl') -eq 7"
check "the input tokens are the server's, as the proxy recorded them" sh -c \
	"test \"\$(sed -n 's/.*\"recorded\":.*\"input_tokens\":\([0-9]*\).*/\1/p' '$WORK/trace.jsonl' | sort | uniq)\" = \
	      \"\$(sed -n 's/.*\"input_tokens\":\([0-9]*\).*/\1/p' '$WORK/run.jsonl' | sort | uniq)\""
grep -v '"warmup":true' "$WORK/run.jsonl" | grep -v '"streamed":false' >"$WORK/streamed.jsonl"
check "5 streamed, 1 whole (its TTFT its E2E)" sh -c \
	"test \$(wc -l <'$WORK/streamed.jsonl') -eq 5 &&
	 grep '\"streamed\":false' '$WORK/run.jsonl' | grep -q '\"ttft_ns\":\([0-9]*\),\"ttfa_ns\":\1,\"e2e_ns\":\1,'"
hi=$(upper $((53 + 3 * SLACK)))
for f in ttft:50:53 ttfa:80:83 e2e:240:252; do
	name=${f%%:*}
	lo=$(echo "$f" | cut -d: -f2)
	up=$(echo "$f" | cut -d: -f3)
	vals=$(sed -n "s/.*\"${name}_ns\":\([0-9]*\).*/\1/p" "$WORK/streamed.jsonl" | tr '\n' ' ')
	check "$API: every $name ($vals ns) lies within $lo-$up ms$UPPER_NOTE" awk -v lo="$lo" \
		-v hi="$(upper $((up + (up - lo) * (SLACK - 1))))" -v vals="$vals" 'BEGIN {
		n = split(vals, v, " "); for (i = 1; i <= n; i++) if (v[i] / 1e6 < lo || v[i] / 1e6 > hi) bad++
		exit bad || n != 5 }'
done
sed -n 's/.*"itl_us":\[\([0-9,]*\)\].*/\1/p' "$WORK/streamed.jsonl" | tr ',' '\n' | sort -n >"$WORK/gaps"
check "$API: 19 gaps a stream (95), their median $(sed -n 48p "$WORK/gaps") us the mock's 10 ms (9.5-10.5)$UPPER_NOTE" \
	awk -v hi="$(upper 10500)" '{ g[NR] = $1 } END { exit NR != 95 || g[48] < 9500 || g[48] > hi }' "$WORK/gaps"
check "$API: TTFT is the first reasoning token, before TTFA" awk '{
	t = $0; sub(/.*"ttft_ns":/, "", t); sub(/,.*/, "", t)
	a = $0; sub(/.*"ttfa_ns":/, "", a); sub(/,.*/, "", a)
	if (t + 0 >= a + 0) bad++ } END { exit bad || NR != 5 }' "$WORK/streamed.jsonl"
tb analyze load --db "$WORK/bench.db" "$WORK/run.jsonl.gz" 2>/dev/null
tb analyze report --db "$WORK/bench.db" --format csv >"$WORK/report.csv"
check "the report reads the run: 6 ok at C=1 (the whole answer counted in E2E only), P50 TTFT $(csv_field "$WORK/report.csv" p50_ttft_ms 1) ms" \
	sh -c "test '$(csv_field "$WORK/report.csv" ok 1)' = 6 &&
	       awk -v v='$(csv_field "$WORK/report.csv" p50_ttft_ms 1)' 'BEGIN { exit !(v >= 50) }'"
stop_mock

# ---- the key: sent by replay, redacted from what the server echoes
start_mock --fail-every 1 --fail-status 401
ANTHROPIC_API_KEY=$replay_secret OPENAI_API_KEY=$replay_secret tb replay --endpoint "$ENDPOINT" \
	-c 1 -n 1 --warmup 0 --quiet -o "$WORK/denied.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>&1
zcat "$WORK/denied.jsonl.gz" >"$WORK/denied.jsonl"
check "replay sent the key (the server's echo of it is redacted in the error detail)" \
	grep -q "\"error_detail\":\".*$KEY_ECHO" "$WORK/denied.jsonl"
tb analyze load --db "$WORK/denied.db" "$WORK/denied.jsonl.gz" 2>/dev/null
check "neither key reaches any file: trace, results, databases, logs, output" sh -c \
	"! grep -rqF -e '$secret' -e '$replay_secret' '$WORK'"
stop_mock

# ---- a long model name: every event whole, streamed and not (the mock
# cut each event at 1 KiB, so a model of 1,100 bytes gave a message_start
# or response.created that was not JSON)
long=$(printf '%01100d' 0 | tr 0 m)
start_mock --model "$long" --ttft-ms 1 --itl-ms 1 --reasoning-tokens 1
for stream in true false; do
	curl -sS -N -H 'Content-Type: application/json' \
		-d "$(body 1 $stream | sed "s/\"model\":\"mock\"/\"model\":\"$long\"/")" \
		"$ENDPOINT$API_PATH" >"$WORK/long-$stream.out"
done
stop_mock
check "$API: a model name of 1,100 bytes: every streamed event is whole JSON, naming it" sh -c \
	"sed -n 's/^data: //p' '$WORK/long-true.out' | jq -e -s 'length > 3' >/dev/null &&
	 grep -q '$long' '$WORK/long-true.out'"
check "... and the whole answer is one JSON object" sh -c "jq -e . '$WORK/long-false.out' >/dev/null"
finish
