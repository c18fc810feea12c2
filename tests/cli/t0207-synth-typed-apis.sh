#!/bin/sh
# record synth and record import write Messages (Anthropic, /v1/messages)
# and Responses (OpenAI, /v1/responses) traces too (--endpoint-kind), as
# sessions or single requests; replay sends them to the mock, which
# answers each in its API's events, and measures them as it does chat:
# TTFT the mock's 20 ms, 8 tokens from usage, each later turn of a session
# carrying the earlier turns' real answers.
. tests/cli/lib.sh

start_mock --ttft-ms 20 --itl-ms 2
for api in messages responses; do
	tb record synth -n 8 --turns 2 --input-tokens 12 --output-tokens 8 --seed 2 \
		--endpoint-kind $api -o "$WORK/$api.jsonl.gz" 2>"$WORK/$api.synth.err"
	check "$api: synth writes the trace" test $? -eq 0
	zcat "$WORK/$api.jsonl.gz" >"$WORK/$api.trace"
	n=$(grep -c "\"path\":\"/v1/$api\"," "$WORK/$api.trace")
	check "$api: 8 requests (4 sessions of 2 turns) sent to /v1/$api ($n)" \
		test "$n" -eq 8
	check "$api: the header says so" sh -c \
		"head -1 '$WORK/$api.trace' | grep -q '\"endpoint_kind\":\"$api\"'"
	# the body its API takes: Messages "messages" and max_tokens,
	# Responses "input" items and max_output_tokens; a later turn the
	# earlier user turn and answer before its own
	sed -n 's/.*"body":"\(.*\)","input_tokens".*/\1/p' "$WORK/$api.trace" | sed 's/\\"/"/g' >"$WORK/$api.bodies"
	if [ $api = messages ]; then
		want='^{"model":"mock","messages":\[{"role":"user","content":"[^"]*"}\],"max_tokens":8,"stream":true}$'
		want2='^{"model":"mock","messages":\[{"role":"user",[^]]*{"role":"assistant",[^]]*{"role":"user",[^]]*\],"max_tokens":8,"stream":true}$'
	else
		want='^{"model":"mock","input":\[{"role":"user","content":"[^"]*"}\],"max_output_tokens":8,"stream":true}$'
		want2='^{"model":"mock","input":\[{"role":"user",[^]]*{"role":"assistant",[^]]*{"role":"user",[^]]*\],"max_output_tokens":8,"stream":true}$'
	fi
	check "$api: first turns in the API's shape ($(grep -c "$want" "$WORK/$api.bodies") of 4)" \
		test "$(grep -c "$want" "$WORK/$api.bodies")" -eq 4
	check "$api: later turns resend the conversation ($(grep -c "$want2" "$WORK/$api.bodies") of 4)" \
		test "$(grep -c "$want2" "$WORK/$api.bodies")" -eq 4

	tb replay -e "$ENDPOINT" -c 2 --quiet --label $api -o "$WORK/$api.r.jsonl.gz" \
		"$WORK/$api.jsonl.gz" >/dev/null 2>"$WORK/$api.err"
	check "$api: replay ran, nothing skipped" sh -c "test $? -eq 0 && ! grep -q skipping '$WORK/$api.err'"
	requests_of "$WORK/$api.r.jsonl.gz" | grep '"warmup":false' >"$WORK/$api.run"
	check "$api: every turn answered, 8 tokens from usage ($(grep -c '"error":null' "$WORK/$api.run") of 8)" sh -c \
		"test \$(wc -l <'$WORK/$api.run') -eq 8 &&
		 test \$(grep '\"error\":null' '$WORK/$api.run' | grep -c '\"output_tokens\":8,\"tokens_estimated\":false') -eq 8"
	check "$api: every TTFT the mock's 20 ms or more, 7 gaps each" awk '
		{ t = $0; sub(/.*"ttft_ns":/, "", t); sub(/,.*/, "", t); if (t + 0 < 20000000) bad++
		  g = $0; sub(/.*"itl_us":\[/, "", g); sub(/\].*/, "", g); if (split(g, x, ",") != 7) bad++ }
		END { exit bad || NR != 8 }' "$WORK/$api.run"
	check "$api: the later turns are the sessions' second ($(grep -c '"turn":1,' "$WORK/$api.run"))" \
		test "$(grep -c '"turn":1,' "$WORK/$api.run")" -eq 4
done
stop_mock

# import: a ShareGPT conversation as a Responses session
cat >"$WORK/sg.json" <<'EOF'
[{"id": "a", "conversations": [
  {"from": "human", "value": "what is a token"},
  {"from": "gpt", "value": "a piece of a word"},
  {"from": "human", "value": "and a prompt"},
  {"from": "gpt", "value": "what the model reads first"}]}]
EOF
tb record import --format sharegpt --endpoint-kind responses "$WORK/sg.json" \
	-o "$WORK/sg.jsonl.gz" 2>/dev/null
check "import --endpoint-kind responses: each turn a Responses request, its history as input items" sh -c \
	"test \$(zcat '$WORK/sg.jsonl.gz' | grep -c '\"path\":\"/v1/responses\",') -eq 2 &&
	 zcat '$WORK/sg.jsonl.gz' | grep -q 'input.*user.*what is a token.*assistant.*a piece of a word.*user.*and a prompt.*max_output_tokens'"
tb record synth -n 1 --endpoint-kind anthropic -o "$WORK/bad.jsonl.gz" 2>"$WORK/bad.err"
check "an unknown --endpoint-kind: exit 2, one line naming it" sh -c \
	"test $? -eq 2 && test \$(wc -l <'$WORK/bad.err') -eq 1 && grep -q \"'anthropic' for --endpoint-kind\" '$WORK/bad.err'"
finish
