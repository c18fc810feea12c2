#!/bin/sh
# record info: what a trace holds, before it is replayed.
. tests/cli/lib.sh

S=sample_traces

tb record import --format mooncake "$S/mooncake-sample.jsonl" -o "$WORK/m.jsonl.gz" 2>/dev/null
tb record info --block-words 512 "$WORK/m.jsonl.gz" >"$WORK/out" 2>"$WORK/err"
check "info: exit 0, nothing on stderr" sh -c "test $? -eq 0 && test ! -s '$WORK/err'"
line() {  # label, expected rest of the line
	grep -q "^$1  *$2\$" "$WORK/out"
}
check "info: source and format" line source "import (mooncake)"
check "info: count" line requests 12
check "info: time span from first to last arrival" line "time span" "4.500 s (first to last arrival)"
check "info: mean rate (n - 1) / span" line "mean rate" "2.444 req/s"
check "info: input length percentiles (numpy linear)" line "input tokens" "P50 750  P90 1570  P99 2045  max 2100  mean 929.3"
check "info: output length percentiles" line "output tokens" "P50 58  P90 238  P99 294  max 300  mean 90.2"
check "info: endpoints" line endpoints "/v1/chat/completions 12"
check "info: models" line models "mock 12"
# first blocks: hash 0 four times, hash 3 three times, hash 9 twice -> 6 repeats
check "info: requests whose first 512-word block repeats an earlier one" \
	line "prefix sharing" "6 of 12 requests (50.0%) start with a 512-word block seen earlier"
check "info: full blocks repeating an earlier prefix" grep -q "8 of 18 full 512-word blocks (44.4%) repeat an earlier prefix" "$WORK/out"

tb record synth -n 6 --turns 3 --input-tokens 8 --output-tokens 8 --endpoint-kind completions \
	--model m1 -o "$WORK/t.jsonl.gz" 2>/dev/null
tb record info --block-words 8 "$WORK/t.jsonl.gz" >"$WORK/out"
check "info: a closed-loop trace has no time span" grep -q "^time span *0 s: every request arrives at once" "$WORK/out"
check "info: multi-turn sessions share their earlier turns (4 of 6 requests)" \
	line "prefix sharing" "4 of 6 requests (66.7%) start with a 8-word block seen earlier"
check "info: completions endpoint and model" sh -c \
	"grep -q '^endpoints *\/v1\/completions 6\$' '$WORK/out' && grep -q '^models *m1 6\$' '$WORK/out'"

tb record synth -n 9 --turns 3 --think-time 100 -o "$WORK/st.jsonl.gz" 2>/dev/null
tb record info "$WORK/st.jsonl.gz" >"$WORK/sout"
check "info: sessions, the requests in them and turns per session" grep -q \
	"^sessions *3, holding 9 of 9 requests; turns per session P50 3  max 3  mean 3.0$" "$WORK/sout"
check "info: the think times before later turns" grep -q "^think time *P50 100  P90 100  max 100 ms" "$WORK/sout"

# Sessions of turns shorter than 512 words: each turn repeats its history,
# which the default block (16 words, a server's) sees.
tb record synth -n 9 --turns 3 --input-tokens 100 --output-tokens 100 -o "$WORK/sh.jsonl.gz" 2>/dev/null
tb record info "$WORK/sh.jsonl.gz" >"$WORK/out"
check "info: short turns of sessions share their history (6 of 9 requests)" \
	line "prefix sharing" "6 of 9 requests (66.7%) start with a 16-word block seen earlier"

tb record synth -n 4 -o "$WORK/u.jsonl.gz" 2>/dev/null
tb record info "$WORK/u.jsonl.gz" >"$WORK/out"
check "info: a trace without sessions has no sessions line" sh -c "! grep -q '^sessions' '$WORK/out'"
check "info: independent prompts share nothing" \
	line "prefix sharing" "0 of 4 requests (0.0%) start with a 16-word block seen earlier"

tb record info "$S/results-sample.jsonl.gz" 2>"$WORK/err"
check "info: a results file is refused (exit 2, one line)" sh -c \
	"test $? -eq 2 && test \$(wc -l <'$WORK/err') -eq 1 && grep -q 'is a results file, not a trace' '$WORK/err'"
tb record info "$S/broken/bad-record.jsonl.gz" 2>"$WORK/err"
check "info: a bad record is exit 2 naming file and line" sh -c \
	"test $? -eq 2 && grep -qF \"'$S/broken/bad-record.jsonl.gz' line 3: field 'body'\" '$WORK/err'"
tb record info 2>/dev/null
check "info: no trace is a usage error" test $? -eq 2
tb record info --help >"$WORK/out"
check "info: --help on stdout" grep -q "^usage: tracebench record info" "$WORK/out"

# What a trace says is shown as text: a model name and a source kind
# holding an OSC title, a colour and BEL reach the terminal without their
# control bytes (before: printed as the file held them)
printf '%s\n%s\n' \
	'{"format":"tracebench-trace","version":1,"tool":"t","source":{"kind":"synth\u001b[2J","format":"f\u0007"}}' \
	'{"id":0,"arrival_ns":0,"method":"POST","path":"/v1/chat/completions","headers":["Content-Type: application/json"],"body":"{\"model\":\"m\\u001b]0;pwned\\u0007\\u001b[31m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}","input_tokens":1,"output_tokens":2}' |
	gzip >"$WORK/esc.jsonl.gz"
tb record info "$WORK/esc.jsonl.gz" >"$WORK/out" 2>&1
check "info: a trace's model and source are shown without ESC or BEL bytes" sh -c \
	"grep -q 'pwned' '$WORK/out' && grep -q '^source *synth' '$WORK/out' &&
	 ! grep -q \"\$(printf '\\033')\" '$WORK/out' && ! grep -q \"\$(printf '\\007')\" '$WORK/out'"
finish
