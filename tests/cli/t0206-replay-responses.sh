#!/bin/sh
# OpenAI's Responses API (POST /v1/responses) end to end: record proxy in
# front of the mock records its calls as kind "responses", replay sends
# them back (OPENAI_API_KEY as a Bearer token), and the meter's TTFT,
# TTFA, gaps, E2E and tokens are the mock's schedule, read from
# response.reasoning_text.delta, response.output_text.delta and the usage
# of response.incomplete (the mock's answers stop at max_output_tokens, as
# OpenAI's do). The checks are tests/cli/typed_api.sh's.
. tests/cli/lib.sh

API=responses
API_PATH=/v1/responses
END_EVENT=response.incomplete
KEY_ECHO='Authorization: Bearer REDACTED'
body() {
	printf '{"model":"mock","max_output_tokens":20,"stream":%s,"instructions":"be brief",' "$2"
	printf '"input":[{"role":"user","content":[{"type":"input_text","text":"hello responses %s"}]}]}' "$1"
}
. tests/cli/typed_api.sh

# A stream cut before its last event is incomplete (the mock's --no-done).
start_mock --ttft-ms 5 --itl-ms 1 --no-done
tb replay --endpoint "$ENDPOINT" -c 1 -n 2 --warmup 0 --quiet -o "$WORK/cut.jsonl.gz" \
	"$WORK/trace.jsonl.gz" >/dev/null 2>&1
check "without response.completed a Responses stream is incomplete" \
	zgrep -q '"error":"incomplete","error_detail":"stream ended without response.completed"' "$WORK/cut.jsonl.gz"
stop_mock
finish
