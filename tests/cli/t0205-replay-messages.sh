#!/bin/sh
# Anthropic's Messages API (POST /v1/messages) end to end: record proxy in
# front of the mock records its calls as kind "messages" (the x-api-key
# left out, anthropic-version kept), replay sends them back with
# ANTHROPIC_API_KEY as x-api-key, and the meter's TTFT, TTFA, gaps, E2E
# and tokens are the mock's schedule, read from message_start,
# content_block_delta (thinking_delta, text_delta), message_delta and
# message_stop. The checks are tests/cli/typed_api.sh's.
. tests/cli/lib.sh

API=messages
API_PATH=/v1/messages
END_EVENT=message_stop
KEY_ECHO='x-api-key: REDACTED'
body() {
	printf '{"model":"mock","max_tokens":20,"stream":%s,"system":"be brief",' "$2"
	printf '"messages":[{"role":"user","content":[{"type":"text","text":"hello messages %s"}]}]}' "$1"
}
. tests/cli/typed_api.sh

# A stream cut before message_stop is incomplete (the mock's --no-done).
start_mock --ttft-ms 5 --itl-ms 1 --no-done
tb replay --endpoint "$ENDPOINT" -c 1 -n 2 --warmup 0 --quiet -o "$WORK/cut.jsonl.gz" \
	"$WORK/trace.jsonl.gz" >/dev/null 2>&1
check "without message_stop a Messages stream is incomplete" \
	zgrep -q '"error":"incomplete","error_detail":"stream ended without message_stop"' "$WORK/cut.jsonl.gz"
stop_mock
finish
