#!/bin/sh
# record import: each published format from sample_traces/, bad rows
# reported by line and counted, arrival offsets, prefix sharing, options.
. tests/cli/lib.sh

S=sample_traces

records() {  # trace: its records, one per line
	requests_of "$1"
}
field() {  # trace, field: one value per record
	records "$1" | grep -o "\"$2\":[0-9]*" | cut -d: -f2 | tr '\n' ' '
}
# The prompt words of record $2 (1 = first), one per line.
prompt_words() {
	records "$1" | sed -n "$2p" | sed 's/.*"\(content\|prompt\)\\":\\"\([^\\]*\)\\".*/\2/' | tr ' ' '\n'
}

# --- Mooncake ---------------------------------------------------------------
tb record import --format mooncake "$S/mooncake-sample.jsonl" -o "$WORK/m.jsonl.gz" 2>"$WORK/err"
check "mooncake: imports (exit 0)" test $? -eq 0
check "mooncake: summary line counts imported and skipped rows" grep -qF \
	"imported 12 requests from '$S/mooncake-sample.jsonl'; skipped 5 rows (4 malformed, 1 with 0 output tokens)" "$WORK/err"
check "mooncake: truncated JSON reported with its line" \
	grep -qF "'$S/mooncake-sample.jsonl' line 4: not valid JSON; skipped" "$WORK/err"
check "mooncake: missing input_length reported with its line" \
	grep -qF "line 6: field 'input_length' is missing" "$WORK/err"
check "mooncake: more hash_ids than blocks reported" \
	grep -qF "line 10: 3 hash_ids, but input_length 400 fills only 1 block of 512" "$WORK/err"
check "mooncake: negative timestamp reported" grep -qF "line 11: field 'timestamp'" "$WORK/err"
check "mooncake: 0-output row counted, not reported" sh -c "! grep -q 'line 13' '$WORK/err'"
check "mooncake: arrival offsets in ns from the first row (ms preserved)" \
	test "$(field "$WORK/m.jsonl.gz" arrival_ns | cut -d' ' -f1-4)" = "0 153000000 410000000 988000000"
check "mooncake: input_tokens and max_tokens are the recorded lengths" sh -c \
	"requests_of '$WORK/m.jsonl.gz' | head -1 | grep -q 'max_tokens[^,]*:52,.*\"input_tokens\":1200,\"output_tokens\":52'"
check "mooncake: each prompt has input_length words" \
	test "$(for i in 1 2 3 4 5 6 7 8 9 10 11 12; do prompt_words "$WORK/m.jsonl.gz" $i | wc -l; done | tr '\n' ' ')" \
	= "$(field "$WORK/m.jsonl.gz" input_tokens)"
# rows 1 and 3 share hash_ids [0, 1]: the first 1024 words are the same text
prompt_words "$WORK/m.jsonl.gz" 1 >"$WORK/p1"
prompt_words "$WORK/m.jsonl.gz" 3 >"$WORK/p3"
prompt_words "$WORK/m.jsonl.gz" 2 >"$WORK/p2"
check "mooncake: rows sharing hash_ids[0] share the first 512 words" \
	sh -c "test \"\$(head -512 '$WORK/p1')\" = \"\$(head -512 '$WORK/p3')\""
check "mooncake: ... and the second block too (hash_ids[1] shared)" \
	sh -c "test \"\$(head -1024 '$WORK/p1')\" = \"\$(head -1024 '$WORK/p3')\""
check "mooncake: ... but not the third (hash 2 vs 5)" \
	sh -c "test \"\$(head -1200 '$WORK/p1' | tail -176)\" != \"\$(head -1200 '$WORK/p3' | tail -176)\""
check "mooncake: rows with other hash_ids start differently" \
	sh -c "test \"\$(head -512 '$WORK/p1')\" != \"\$(head -512 '$WORK/p2')\""
tb record import --format mooncake "$S/mooncake-sample.jsonl" -o "$WORK/m2.jsonl.gz" 2>/dev/null
check "mooncake: same input and seed, same bytes" cmp -s "$WORK/m.jsonl.gz" "$WORK/m2.jsonl.gz"

# --- Azure --------------------------------------------------------------------
tb record import --format azure --ignore-eos --endpoint-kind completions --model llama \
	"$S/azure-sample.csv" -o "$WORK/a.jsonl.gz" 2>"$WORK/err"
check "azure: imports (exit 0)" test $? -eq 0
check "azure: summary" grep -qF "imported 13 requests from '$S/azure-sample.csv'; skipped 3 rows (malformed)" "$WORK/err"
check "azure: a bad number is named with its line" \
	grep -qF "line 9: ContextTokens 'not-a-number' is not an integer" "$WORK/err"
check "azure: November 31st is not a time" grep -qF "line 11: TIMESTAMP '2023-11-31 18:15:54.6025010' is not a time" "$WORK/err"
check "azure: a short row is reported" grep -qF "line 14: 2 fields, the header has 3" "$WORK/err"
check "azure: sub-millisecond offsets from TIMESTAMP" \
	test "$(field "$WORK/a.jsonl.gz" arrival_ns | cut -d' ' -f1-3)" = "0 4314579000 4534224000"
check "azure: --ignore-eos, --model and completions in the body" sh -c \
	"requests_of '$WORK/a.jsonl.gz' | head -1 | grep -q '\"path\":\"/v1/completions\".*model[^,]*llama.*prompt.*max_tokens[^,]*:44,.*ignore_eos[^,]*true'"

tb record import --format azure --time-window 5-9 --limit 4 "$S/azure-sample.csv" -o "$WORK/w.jsonl.gz" 2>"$WORK/err"
check "--time-window 5-9 --limit 4: four requests, offsets from the first kept" \
	test "$(field "$WORK/w.jsonl.gz" arrival_ns)" = "0 310463000 511887000 1390983000 "
check "--time-window: the header records it" sh -c "zcat '$WORK/w.jsonl.gz' | head -1 | grep -q '\"time_window\":\"5-9\"'"
check "--time-window: the summary says how many were left out" grep -q "left out 9 outside --time-window or past --limit" "$WORK/err"
tb record import --format azure --time-window 100-200 "$S/azure-sample.csv" -o "$WORK/none.jsonl.gz" 2>"$WORK/err"
check "an empty --time-window is exit 2, no file" sh -c "test $? -eq 2 && test ! -e '$WORK/none.jsonl.gz'"

# --- BurstGPT -----------------------------------------------------------------
tb record import --format burstgpt "$S/burstgpt-sample.csv" -o "$WORK/b.jsonl.gz" 2>"$WORK/err"
check "burstgpt (6 columns): summary counts 0-token rows apart" grep -qF \
	"imported 8 requests from '$S/burstgpt-sample.csv'; skipped 5 rows (2 malformed, 3 with 0 output tokens)" "$WORK/err"
check "burstgpt: quoted \"1,300\" is one field, and not an integer" grep -qF "line 8: Request tokens '1,300'" "$WORK/err"
check "burstgpt: an empty field is reported" grep -qF "line 11: Response tokens '' is not an integer" "$WORK/err"
check "burstgpt: a quoted last field is read" sh -c "requests_of '$WORK/b.jsonl.gz' | tail -1 | grep -q '\"input_tokens\":77,\"output_tokens\":63'"
check "burstgpt: offsets in seconds from the first row" \
	test "$(field "$WORK/b.jsonl.gz" arrival_ns | cut -d' ' -f1-3)" = "0 40000000000 116000000000"
tb record import --format burstgpt "$S/burstgpt8-sample.csv" -o "$WORK/b8.jsonl.gz" 2>"$WORK/err"
check "burstgpt (8 columns): columns found by name" grep -qF \
	"imported 7 requests from '$S/burstgpt8-sample.csv'; skipped 2 rows (1 malformed, 1 with 0 output tokens)" "$WORK/err"
check "burstgpt (8 columns): an unterminated quote is reported" grep -qF "line 7: malformed quoted field" "$WORK/err"
check "burstgpt (8 columns): fractional seconds kept" \
	test "$(field "$WORK/b8.jsonl.gz" arrival_ns | cut -d' ' -f1-3)" = "0 3500000000 7250000000"

# --- ShareGPT -----------------------------------------------------------------
tb record import --format sharegpt "$S/sharegpt-sample.json" -o "$WORK/s.jsonl.gz" 2>"$WORK/err"
check "sharegpt: summary (5 conversations, one of two turns: 6 requests)" grep -qF "imported 6 requests from '$S/sharegpt-sample.json'; skipped 3 rows (malformed)" "$WORK/err"
check "sharegpt: a trace of version 2 (it holds sessions)" sh -c \
	"zcat '$WORK/s.jsonl.gz' | head -1 | grep -q '\"format\":\"tracebench-trace\",\"version\":2,'"
check "sharegpt: each conversation a session, first turns first (sessions 0-4 turn 0, then session 0 turn 1)" \
	test "$(requests_of "$WORK/s.jsonl.gz" | sed 's/.*"session":\([0-9]*\),"turn":\([0-9]*\),.*/\1:\2/' | tr '\n' ' ')" = "0:0 1:0 2:0 3:0 4:0 0:1 "
check "sharegpt: turn 2 sends the first human turn, its answer (the placeholder) and the second human turn" sh -c \
	"zcat '$WORK/s.jsonl.gz' | tail -n 1 | grep -qF '\"messages\\\":[{\\\"role\\\":\\\"user\\\",\\\"content\\\":\\\"Summarize what a prefix cache does in an LLM inference server.\\\"},{\\\"role\\\":\\\"assistant\\\",\\\"content\\\":\\\"A prefix cache keeps' &&
	 zcat '$WORK/s.jsonl.gz' | tail -n 1 | grep -qF '{\\\"role\\\":\\\"user\\\",\\\"content\\\":\\\"And when does it not help?\\\"}]'"
check "sharegpt: turn 2 counts the whole conversation as its input (11+31+6) and its answer as max_tokens (11)" sh -c \
	"zcat '$WORK/s.jsonl.gz' | tail -n 1 | grep -q '\"input_tokens\":48,\"output_tokens\":11,'"
check "sharegpt: a conversation without an answer is reported at its line" \
	grep -qF "line 19: no human turn followed by an answer" "$WORK/err"
check "sharegpt: a non-object element is reported at its line" grep -qF "line 26: not a JSON object" "$WORK/err"
check "sharegpt: the first human turn is the prompt (system turn ignored)" sh -c \
	"requests_of '$WORK/s.jsonl.gz' | sed -n 2p | grep -qF 'Explain \\\\\\\"time to first token\\\\\\\" in one sentence.'"
check "sharegpt: max_tokens is the first answer's length in words (31)" sh -c \
	"requests_of '$WORK/s.jsonl.gz' | head -1 | grep -q 'max_tokens[^,]*:31,.*\"input_tokens\":11,\"output_tokens\":31'"
# a later turn that cannot be replayed (an empty question) ends the
# session before it; the turns cut off are freed (make asan: no leak)
printf '[{"conversations":[{"from":"human","value":"hello there"},{"from":"gpt","value":"hi you"},{"from":"human","value":" "},{"from":"gpt","value":"an answer to nothing"}]}]\n' >"$WORK/cut.json"
tb record import --format sharegpt "$WORK/cut.json" -o "$WORK/cut.jsonl.gz" 2>"$WORK/err"
check "sharegpt: a session ends before a turn that cannot be replayed (1 request)" sh -c \
	"test $? -eq 0 && grep -qF \"imported 1 request from '$WORK/cut.json'\" '$WORK/err'"
printf '[\n {"conversations":[{"from":"human","value":"hi there"},{"from":"gpt","value":"hello you"}]},\n {"conversations": [ oops\n]\n' >"$WORK/bad.json"
tb record import --format sharegpt "$WORK/bad.json" -o "$WORK/sb.jsonl.gz" 2>"$WORK/err"
check "sharegpt: a syntax error keeps what came before (exit 0)" test $? -eq 0
check "sharegpt: ... and names the line of the error" grep -qF "line 3: not valid JSON; the rest of the file is ignored" "$WORK/err"

# --- refusals -------------------------------------------------------------------
tb record import --format azure "$S/burstgpt-sample.csv" -o "$WORK/x.jsonl.gz" 2>"$WORK/err"
check "the wrong format's CSV is exit 2" test $? -eq 2
check "... naming the missing columns on one line" sh -c \
	"test \$(wc -l <'$WORK/err') -eq 1 && grep -qF \"'$S/burstgpt-sample.csv' line 1: no 'TIMESTAMP', 'ContextTokens' and 'GeneratedTokens' columns\" '$WORK/err'"
tb record import --format mooncake "$S/azure-sample.csv" -o "$WORK/x.jsonl.gz" 2>"$WORK/err"
check "no valid row is exit 2" test $? -eq 2
check "... saying so" grep -qF "no valid row in '$S/azure-sample.csv'; skipped 17 rows (malformed)" "$WORK/err"
check "... each of its 17 bad rows shown" test "$(grep -c 'skipped$' "$WORK/err")" -eq 17
check "no file was written" test ! -e "$WORK/x.jsonl.gz"
{ i=1; while [ $i -le 30 ]; do echo "garbage $i"; i=$((i + 1)); done
  echo '{"timestamp": 0, "input_length": 5, "output_length": 5}'; } >"$WORK/bad30.jsonl"
tb record import --format mooncake "$WORK/bad30.jsonl" -o "$WORK/b30.jsonl.gz" 2>"$WORK/err"
check "30 bad rows: the first 20 are shown, then one line says the rest are counted" sh -c \
	"test \$(grep -c 'skipped\$' '$WORK/err') -eq 20 &&
	 grep -q \"bad30.jsonl' line 20: not valid JSON; skipped\" '$WORK/err' &&
	 ! grep -q \"line 21:\" '$WORK/err' &&
	 test \$(grep -c 'further bad rows are counted, not shown' '$WORK/err') -eq 1"
check "... and all 30 counted" grep -qF "imported 1 request from '$WORK/bad30.jsonl'; skipped 30 rows (malformed)" "$WORK/err"
awk 'BEGIN { printf "{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 5, \"x\": \""; for (i = 0; i < 1100000; i++) printf "a"; print "\"}"; print "{\"timestamp\": 1, \"input_length\": 5, \"output_length\": 5}" }' >"$WORK/long.jsonl"
tb record import --format mooncake "$WORK/long.jsonl" -o "$WORK/l.jsonl.gz" 2>"$WORK/err"
check "a line over the cap is skipped, the next one read" sh -c \
	"grep -q 'line 1: longer than 1048576 bytes' '$WORK/err' && grep -q 'imported 1 request from' '$WORK/err'"
tb record import --format nonsense "$S/azure-sample.csv" -o "$WORK/x.jsonl.gz" 2>"$WORK/err"
check "an unknown format is exit 2" sh -c "test $? -eq 2 && grep -q \"invalid value 'nonsense' for --format\" '$WORK/err'"
tb record import --format azure "$WORK/missing.csv" -o "$WORK/x.jsonl.gz" 2>"$WORK/err"
check "a missing input is exit 2 with the system's reason" sh -c \
	"test $? -eq 2 && grep -qF \"cannot open '$WORK/missing.csv': No such file or directory\" '$WORK/err'"
tb record import --format azure --time-window 9-3 "$S/azure-sample.csv" -o "$WORK/x.jsonl.gz" 2>"$WORK/err"
check "a backwards --time-window is exit 2" test $? -eq 2
tb record import --format azure "$S/azure-sample.csv" -o "$WORK/a.jsonl.gz" 2>"$WORK/err"
check "an existing output is kept without --force" sh -c "test $? -eq 2 && grep -q 'already exists' '$WORK/err'"
tb record import --help >"$WORK/out"
check "--help: usage on stdout with examples" sh -c \
	"grep -q '^usage: tracebench record import' '$WORK/out' && grep -q '^examples:' '$WORK/out'"
tb record import --format azure "$S/azure-sample.csv" -o "$WORK/r.jsonl.gz" 2>/dev/null
start_mock --ttft-ms 1 --itl-ms 0
tb replay --endpoint "$ENDPOINT" -c 2 -n 13 --warmup 0 --quiet -o "$WORK/res.jsonl.gz" "$WORK/r.jsonl.gz" \
	>/dev/null 2>"$WORK/err"
rc=$?
check "an imported trace replays: exit 0, a result for each of its 13 requests, all ok" sh -c \
	"test $rc -eq 0 && test \$(requests_of '$WORK/res.jsonl.gz' | wc -l) -eq 13 &&
	 test \$(requests_of '$WORK/res.jsonl.gz' | grep -c '\"status\":200') -eq 13"
tb record import --help >"$WORK/help" 2>&1
check "--help says ShareGPT keeps every turn, as a session (it said the first only)" sh -c \
	"tr '\n' ' ' <'$WORK/help' | grep -q 'ShareGPT keeps every turn of a conversation, as a session'"
finish
