#!/bin/sh
# record synth and record import with --tokenizer-url: each prompt is
# built to its input length within one token as the server's /tokenize
# counts it, the record says its length was measured, the header says
# where lengths came from; an unreachable or hostile tokenizer is a
# one-line error and exit 1, never a silent fallback to words.
. tests/cli/lib.sh

start_mock
TOK=$ENDPOINT/tokenize

# re-tokenizes every record of trace $1 at $2 and prints, one per line,
# "RECORDED MEASURED" (the record's input_tokens and a fresh count)
retokenize() {
	requests_of "$1" | while read -r rec; do
		n=$(printf '%s' "$rec" | jq -r .input_tokens)
		req=$(printf '%s' "$rec" | jq -c '.body | fromjson | {model, prompt, messages} |
			with_entries(select(.value != null))')
		c=$(curl -sS -d "$req" -H 'Content-Type: application/json' "$2" | jq -r .count)
		echo "$n $c"
	done
}
# lengths of trace $1 as asked (a word trace made with the same options)
asked() { requests_of "$1" | jq -r .input_tokens; }
# within1 ASKED PAIRS: every record measured within 1 of its asked length,
# and recorded as measured
within1() {
	paste -d ' ' "$1" "$2" | awk 'NF != 3 || $1 - $3 > 1 || $3 - $1 > 1 || $2 != $3 { bad++ }
		END { exit NR != 100 || bad > 0 }'
}

# ---- the mock's /tokenize (one word, one token; chat template not counted)
tb record synth -n 100 --input-tokens uniform:1:4000 --seed 7 -o "$WORK/w.jsonl.gz" 2>/dev/null
tb record synth -n 100 --input-tokens uniform:1:4000 --seed 7 --tokenizer-url "$TOK" \
	-o "$WORK/t.jsonl.gz" 2>"$WORK/t.err"
check "synth against the mock's tokenizer: exit 0" test $? -eq 0
asked "$WORK/w.jsonl.gz" >"$WORK/asked"
retokenize "$WORK/t.jsonl.gz" "$TOK" >"$WORK/pairs"
check "100 prompts of 1-4000 tokens within 1 token, as re-tokenized" within1 "$WORK/asked" "$WORK/pairs"
check "the header says lengths are tokenizer-exact" sh -c \
	"zcat '$WORK/t.jsonl.gz' | head -1 | jq -e '.source.input_lengths.from == \"tokenizer\"' >/dev/null"
check "each record says its length was measured" sh -c \
	"test \$(zcat '$WORK/t.jsonl.gz' | grep -c '\"input_tokens_source\":\"tokenizer\"') -eq 100"
check "stderr says how many prompts took how many requests" grep -q '100 prompts measured' "$WORK/t.err"
check "a word trace says its lengths are word estimates" sh -c \
	"zcat '$WORK/w.jsonl.gz' | head -1 | jq -e '.source.input_lengths.from == \"words\"' >/dev/null"

# ---- analyze report says so, from the trace the run names
tb record synth -n 4 --input-tokens 20 --output-tokens 4 --tokenizer-url "$TOK" \
	-o "$WORK/r.jsonl.gz" 2>/dev/null
tb replay --endpoint "$ENDPOINT" -c 1 --warmup 0 --label exact -o "$WORK/run.jsonl.gz" \
	"$WORK/r.jsonl.gz" >/dev/null 2>&1
tb analyze load --db "$WORK/bench.db" "$WORK/run.jsonl.gz" 2>/dev/null
tb analyze report --db "$WORK/bench.db" >"$WORK/report.txt" 2>&1
check "report: input lengths are tokenizer-exact, with the URL" \
	grep -q "note: input lengths are tokenizer-exact ($TOK, chat template counted)" "$WORK/report.txt"

# ---- a tokenizer where a word is not a token (vLLM's shape, a chat template)
if have python3 && have jq; then
	python3 tests/fixtures/tokenizer.py "$WORK/sport" subword &
	SUB=$!
	i=0
	while [ ! -s "$WORK/sport" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	STOK=http://127.0.0.1:$(cat "$WORK/sport")/tokenize
	for kind in completions chat; do
		tb record synth -n 100 --input-tokens uniform:10:4000 --seed 3 --endpoint-kind $kind \
			-o "$WORK/sw.jsonl.gz" -f 2>/dev/null
		tb record synth -n 100 --input-tokens uniform:10:4000 --seed 3 --endpoint-kind $kind \
			--tokenizer-url "$STOK" -o "$WORK/st.jsonl.gz" -f 2>"$WORK/st.err"
		asked "$WORK/sw.jsonl.gz" >"$WORK/sasked"
		retokenize "$WORK/st.jsonl.gz" "$STOK" >"$WORK/spairs"
		check "$kind: 100 prompts within 1 token where words are 1-3 tokens ($(sed 's/.* in //' "$WORK/st.err" | head -1))" \
			within1 "$WORK/sasked" "$WORK/spairs"
	done
	check "chat: the header says the chat template is counted" sh -c \
		"zcat '$WORK/st.jsonl.gz' | head -1 | jq -e '.source.input_lengths.chat_template == \"counted\"' >/dev/null"
	tb record import --format burstgpt --tokenizer-url "$STOK" sample_traces/burstgpt-sample.csv \
		-o "$WORK/imp.jsonl.gz" 2>"$WORK/imp.err"
	check "import: exit 0" test $? -eq 0
	tb record import --format burstgpt sample_traces/burstgpt-sample.csv -o "$WORK/impw.jsonl.gz" 2>/dev/null
	asked "$WORK/impw.jsonl.gz" >"$WORK/iasked"
	retokenize "$WORK/imp.jsonl.gz" "$STOK" >"$WORK/ipairs"
	check "import: every row within 1 token of its recorded length" sh -c \
		"paste -d ' ' '$WORK/iasked' '$WORK/ipairs' | awk 'NF != 3 || \$1 - \$3 > 1 || \$3 - \$1 > 1 || \$2 != \$3 { bad++ } END { exit NR == 0 || bad > 0 }'"
	kill $SUB

	# llama.cpp's shape: "content" in, a token list out
	python3 tests/fixtures/tokenizer.py "$WORK/lport" llama &
	LL=$!
	i=0
	while [ ! -s "$WORK/lport" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	tb record synth -n 20 --input-tokens uniform:10:500 --tokenizer-url \
		"http://127.0.0.1:$(cat "$WORK/lport")/tokenize" -o "$WORK/ll.jsonl.gz" 2>"$WORK/ll.err"
	check "llama.cpp's shape: exit 0, the template said not counted" sh -c \
		"test $? -eq 0 && zcat '$WORK/ll.jsonl.gz' | head -1 | grep -q '\"chat_template\":\"not counted\"'"
	kill $LL

	# hostile answers: refused, one line, exit 1, no trace left
	for mode in huge negative text disagree big; do
		python3 tests/fixtures/tokenizer.py "$WORK/hport.$mode" $mode &
		H=$!
		i=0
		while [ ! -s "$WORK/hport.$mode" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		tb record synth -n 5 --tokenizer-url "http://127.0.0.1:$(cat "$WORK/hport.$mode")/tokenize" \
			-o "$WORK/h.jsonl.gz" 2>"$WORK/h.err"
		rc=$?
		check "a $mode answer is refused: exit 1, one line ($(cat "$WORK/h.err"))" sh -c \
			"test $rc -eq 1 && test \$(wc -l <'$WORK/h.err') -eq 1 && grep -q 'tokenizer' '$WORK/h.err' && test ! -e '$WORK/h.jsonl.gz'"
		kill $H
	done

	# a tokenizer that fails in the middle: the requests written before
	# are kept, a whole file, and the one line says which request failed
	# and how many were written (before: only the tokenizer's words, the
	# partial file not mentioned)
	python3 tests/fixtures/tokenizer.py "$WORK/gport" gone &
	G=$!
	i=0
	while [ ! -s "$WORK/gport" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	tb record synth -n 100 --input-tokens 20 --tokenizer-url "http://127.0.0.1:$(cat "$WORK/gport")/tokenize" \
		-o "$WORK/g.jsonl.gz" 2>"$WORK/g.err"
	rc=$?
	kill $G
	n=$(zcat "$WORK/g.jsonl.gz" | tail -n +2 | wc -l)
	check "a tokenizer failing at request $n: exit 1, one line naming it, its $n before kept ($(cat "$WORK/g.err"))" sh -c \
		"test $rc -eq 1 && test \$(wc -l <'$WORK/g.err') -eq 1 && test $n -gt 0 && test $n -lt 100 &&
		 grep -q \"request $n: tokenizer .* answered HTTP 500; wrote $n of 100 requests to '$WORK/g.jsonl.gz' (a whole file)\" '$WORK/g.err' &&
		 gzip -t '$WORK/g.jsonl.gz'"
else
	skip "prompts fitted where a word is not a token, llama.cpp's shape, hostile answers" \
		"python3 or jq not installed"
fi

# ---- nothing listening: a one-line error naming the URL, exit 1
port=$(free_port)
tb record synth -n 5 --tokenizer-url "http://u:secret@127.0.0.1:$port/tokenize" -o "$WORK/u.jsonl.gz" 2>"$WORK/u.err"
rc=$?
check "unreachable: exit 1, one line naming the URL without its password" sh -c \
	"test $rc -eq 1 && test \$(wc -l <'$WORK/u.err') -eq 1 && grep -q '127.0.0.1:$port/tokenize' '$WORK/u.err' && ! grep -q secret '$WORK/u.err'"
check "... and no trace written" test ! -e "$WORK/u.jsonl.gz"
tb record import --format burstgpt --tokenizer-url "http://127.0.0.1:$port/tokenize" \
	sample_traces/burstgpt-sample.csv -o "$WORK/ui.jsonl.gz" 2>"$WORK/ui.err"
check "import, unreachable: exit 1" test $? -eq 1
tb record synth -n 5 --tokenizer-url "http://127.0.0.1:$port/tokenize" --tokenizer-fallback words \
	-o "$WORK/f.jsonl.gz" 2>"$WORK/f.err"
check "--tokenizer-fallback words: exit 0, said on stderr" sh -c \
	"test $? -eq 0 && grep -q 'word estimates' '$WORK/f.err'"
check "... and in the header, with why" sh -c \
	"zcat '$WORK/f.jsonl.gz' | head -1 | grep '\"from\":\"words\"' | grep -q 'tokenizer_fallback'"
check "... and each record says words" sh -c \
	"test \$(zcat '$WORK/f.jsonl.gz' | grep -c '\"input_tokens_source\":\"words\"') -eq 5"
check "without --tokenizer-url records carry no input_tokens_source, as before" sh -c \
	"! zcat '$WORK/w.jsonl.gz' | grep -q input_tokens_source"
tb record synth -n 5 --tokenizer-fallback words -o "$WORK/g.jsonl.gz" 2>/dev/null
check "--tokenizer-fallback without --tokenizer-url: usage error" test $? -eq 2
finish
