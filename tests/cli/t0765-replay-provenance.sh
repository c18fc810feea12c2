#!/bin/sh
# A results file says how it was made: the command line (no secret of it),
# this build, the host, the user's --tag notes and the server as it
# described itself (the mock answers /v1/models and /version as vLLM
# does); the database keeps it and `analyze runs` shows the served model
# and the tags. Two runs started in one second get labels of their own.
# (The probe's bounds against hostile servers: tests/unit/test_provenance.c.)
. tests/cli/lib.sh

KEY=sk-tracebench-prov-0123456789
start_mock --ttft-ms 5 --itl-ms 1 --tokens 4 --model served-7b
port=${ENDPOINT##*:}
tb record synth -n 4 --model served-7b -o "$WORK/t.jsonl.gz" 2>/dev/null
OPENAI_API_KEY=$KEY tb replay -e "http://user:PWval@127.0.0.1:$port/?api_key=QKval" -c 1 -n 2 \
	--tag gpu=H100 --tag commit=abc123 -H 'X-Team-Secret: HDRval' -H 'User-Agent: tb-test' \
	-o "$WORK/a.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/a.err"
check "the replay ran" test -s "$WORK/a.jsonl.gz"
zcat "$WORK/a.jsonl.gz" | head -n 1 >"$WORK/h"
check "the header records the command line, from tracebench replay" \
	grep -qF '"command":["tracebench","replay","-e","http://127.0.0.1:' "$WORK/h"
check "... its URL without userinfo or the query's key" \
	grep -qF "127.0.0.1:$port/?api_key=REDACTED\"" "$WORK/h"
check "... a secret header's value redacted, a harmless one kept" sh -c \
	"grep -qF '\"X-Team-Secret: REDACTED\"' '$WORK/h' && grep -qF '\"User-Agent: tb-test\"' '$WORK/h'"
check "no credential of any route is in the file" sh -c \
	"! zcat '$WORK/a.jsonl.gz' | grep -aqE 'PWval|QKval|HDRval|$KEY'"
check "the build: version and the checkout it was built from" \
	grep -qE '"build":"tracebench [0-9.]+ \([^)]+\)"' "$WORK/h"
check "the host: cores and kernel" sh -c \
	"grep -qE '\"cores\":[0-9]+' '$WORK/h' && grep -qF '\"kernel\":\"Linux ' '$WORK/h'"
check "the tags" grep -qF '"tags":{"gpu":"H100","commit":"abc123"}' "$WORK/h"
check "the server: the model it serves, as /v1/models listed it" \
	grep -qF '"server":{"models":["served-7b"],"max_model_len":' "$WORK/h"
check "... and what its version endpoint said" \
	grep -qE '"version_endpoint":"/version","version":\{"version":"[0-9.]+"\}' "$WORK/h"
check "the default label has the time and a random part" \
	grep -qE '"label":"run-[0-9]{8}-[0-9]{6}-[0-9a-f]{4}"' "$WORK/h"

# the database keeps it; runs shows the served model and the tags
tb analyze load --db "$WORK/db" "$WORK/a.jsonl.gz" >/dev/null 2>&1
tb analyze runs --db "$WORK/db" --format csv >"$WORK/runs.csv"
check "analyze runs: the served model" test "$(csv_field "$WORK/runs.csv" served 1)" = served-7b
check "analyze runs: the tags" test "$(csv_field "$WORK/runs.csv" tags 1)" = "commit=abc123 gpu=H100" \
	-o "$(csv_field "$WORK/runs.csv" tags 1)" = "gpu=H100 commit=abc123"
tb analyze load --db "$WORK/db" sample_traces/results-sample.jsonl.gz >/dev/null 2>&1
tb analyze runs --db "$WORK/db" --format csv --tag gpu=H100 --tag commit=abc123 >"$WORK/runs-h100.csv"
check "analyze runs --tag: only the runs carrying every tag given" sh -c \
	"test \$(wc -l <'$WORK/runs-h100.csv') -eq 2 && grep -q ',served-7b,' '$WORK/runs-h100.csv'"
tb analyze runs --db "$WORK/db" --format csv --tag gpu=A100 >"$WORK/runs-a100.csv"
check "... none for a tag no run has (the header only)" test "$(wc -l <"$WORK/runs-a100.csv")" -eq 1
tb analyze runs --db "$WORK/db" --tag gpu >/dev/null 2>"$WORK/runs-bad.err"
check "... a tag without a value: exit 2, said" sh -c "test $? -eq 2 && grep -q \"bad --tag 'gpu'\" '$WORK/runs-bad.err'"
check "the database holds the provenance as the file had it" sh -c \
	"sqlite3 '$WORK/db' \"SELECT json_extract(provenance, '\$.host.cores') FROM runs\" | grep -qE '^[0-9]+\$'" 

# analyze diff: two runs of one command differ in nothing; a changed
# --max-tokens and tag are exactly their lines; compare warns in lines too
tb replay -e "$ENDPOINT" -c 1 -n 2 --quiet --label d1 -o "$WORK/d1.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>&1
tb replay -e "$ENDPOINT" -c 1 -n 2 --quiet --label d2 -o "$WORK/d2.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>&1
tb replay -e "$ENDPOINT" -c 1 -n 2 --quiet --label d3 --max-tokens 3 --tag gpu=A100 \
	-o "$WORK/d3.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>&1
tb analyze load --db "$WORK/d.db" "$WORK/d1.jsonl.gz" "$WORK/d2.jsonl.gz" "$WORK/d3.jsonl.gz" >/dev/null 2>&1
tb analyze diff --db "$WORK/d.db" d1 d2 >"$WORK/diff12" 2>&1
check "analyze diff: two runs of one command, nothing to say (exit 0)" sh -c \
	"test $? -eq 0 && ! test -s '$WORK/diff12'"
tb analyze diff --db "$WORK/d.db" d1 d3 >"$WORK/diff13" 2>&1
check "... another --max-tokens and a tag: exactly those two lines" test "$(cat "$WORK/diff13")" = \
	"$(printf 'params.overrides.max_tokens: none vs 3\ntag.gpu: none vs A100')"
tb analyze compare --db "$WORK/d.db" d1 d3 >"$WORK/cmp13" 2>&1
check "compare warns with the same line, no JSON dump" \
	grep -qx "warning: the runs used different parameters: params.overrides.max_tokens: none vs 3" "$WORK/cmp13"
tb analyze diff --db "$WORK/d.db" d1 nosuch >/dev/null 2>"$WORK/diffbad"
check "an unknown run: exit 2, named" sh -c "test $? -eq 2 && grep -q \"no run labelled 'nosuch'\" '$WORK/diffbad'"

# replay --rerun: the recorded command line and salt again, against
# another endpoint (here: a record proxy in front of the same mock, which
# keeps each body as it came): the same bodies, byte for byte
start_proxy "$WORK/p1.jsonl.gz"
tb replay -e "$PROXY" -c 1,2 -n 4 --warmup 0 --label first -o "$WORK/r1.jsonl.gz" \
	"$WORK/t.jsonl.gz" >/dev/null 2>&1
stop_proxy INT
start_proxy "$WORK/p2.jsonl.gz"
tb replay --rerun "$WORK/r1.jsonl.gz" -e "$PROXY" -o "$WORK/r2.jsonl.gz" >/dev/null 2>"$WORK/rerun.err"
check "--rerun exits 0" test $? -eq 0
stop_proxy INT
# the POST bodies each capture kept, in order
bodies() { zcat "$1" | grep '"method":"POST"' | sed -n 's/.*"body":\("[^"\\]*\(\\.[^"\\]*\)*"\).*/\1/p' | sort; }
check "... sends the same $(bodies "$WORK/p1.jsonl.gz" | wc -l) bodies, byte for byte" sh -c \
	"test $(bodies "$WORK/p1.jsonl.gz" | wc -l) -eq 8 && test '$(bodies "$WORK/p1.jsonl.gz" | cksum)' = '$(bodies "$WORK/p2.jsonl.gz" | cksum)'"
zcat "$WORK/r2.jsonl.gz" | head -n 1 >"$WORK/h2"
check "... as a run of its own (a new label), which says what it reran and with what" sh -c \
	"grep -q '^{\"format\":\"tracebench-results\",\"version\":[0-9]*,\"run_id\":\"[0-9a-f]*\",\"label\":\"run-' '$WORK/h2' &&
	 grep -qF '\"rerun_of\":{\"run_id\":' '$WORK/h2' && grep -qF '\"label\":\"first\",\"file\":' '$WORK/h2' &&
	 grep -qF '\"overrides\":[\"--rerun\",' '$WORK/h2'"
check "... with the levels and counts it recorded" grep -qF '"concurrency":[1,2],"requests":4' "$WORK/h2"
# options run together as getopt takes them: "-qc 2" is -q and -c 2, so
# "2" is -c's value, not an operand the trace given anew replaces (before:
# "-qc" then took the next recorded word, "invalid value '-n' for
# --concurrency", exit 2)
tb replay -e "$ENDPOINT" -qc 2 -n 2 --warmup 0 --label clustered -o "$WORK/q1.jsonl.gz" \
	"$WORK/t.jsonl.gz" >/dev/null 2>&1
tb replay --rerun "$WORK/q1.jsonl.gz" -e "$ENDPOINT" -o "$WORK/q2.jsonl.gz" "$WORK/t.jsonl.gz" \
	>/dev/null 2>"$WORK/rerunq.err"
check "--rerun of '-qc 2' with the trace given anew: exit 0, C=2 again" sh -c \
	"test $? -eq 0 && zcat '$WORK/q2.jsonl.gz' | head -n 1 | grep -qF '\"concurrency\":[2],'"
tb record synth -n 4 --model served-7b --input-tokens 9 -o "$WORK/t2.jsonl.gz" 2>/dev/null
tb replay --rerun "$WORK/r1.jsonl.gz" -e "$ENDPOINT" -o "$WORK/r3.jsonl.gz" "$WORK/t2.jsonl.gz" \
	>/dev/null 2>"$WORK/rerun3.err"
check "--rerun with another trace: refused (exit 2), both digests named" sh -c \
	"test $? -eq 2 && grep -q 'is not the trace .* replayed (digest sha256:[0-9a-f]\{64\}, recorded sha256:[0-9a-f]\{64\})' '$WORK/rerun3.err' && test ! -e '$WORK/r3.jsonl.gz'"
check "a results file names its trace by SHA-256, with the CRC-32 beside it" \
	grep -q '"trace":{"path":"[^"]*","digest":"sha256:[0-9a-f]\{64\}","crc32":"crc32:[0-9a-f]\{8\}"' "$WORK/h2"

# A file from before the SHA-256 names its trace by CRC-32 alone: it still
# matches the same trace (rerun, compare, diff), and not another one.
zcat "$WORK/r1.jsonl.gz" | jq -c 'if .format then .trace.digest = .trace.crc32 | del(.trace.crc32) else . end' |
	gzip >"$WORK/old.jsonl.gz"
tb replay --rerun "$WORK/old.jsonl.gz" -e "$ENDPOINT" --label old-rerun -o "$WORK/r6.jsonl.gz" \
	>/dev/null 2>"$WORK/rerun6.err"
check "--rerun of a file that names its trace by CRC-32: the same trace is accepted" test $? -eq 0
tb replay --rerun "$WORK/old.jsonl.gz" -e "$ENDPOINT" -o "$WORK/r7.jsonl.gz" "$WORK/t2.jsonl.gz" \
	>/dev/null 2>"$WORK/rerun7.err"
check "... another trace refused, both named (recorded crc32:...)" sh -c \
	"test $? -eq 2 && grep -q 'replayed (digest sha256:[0-9a-f]*, recorded crc32:[0-9a-f]\{8\})' '$WORK/rerun7.err'"
tb replay -e "$ENDPOINT" -c 1,2 -n 4 --warmup 0 --label other-trace -o "$WORK/r8.jsonl.gz" \
	"$WORK/t2.jsonl.gz" >/dev/null 2>&1
tb analyze load --db "$WORK/old.db" --label old "$WORK/old.jsonl.gz" >/dev/null 2>&1
tb analyze load --db "$WORK/old.db" "$WORK/r6.jsonl.gz" "$WORK/r8.jsonl.gz" >/dev/null 2>&1
tb analyze compare --db "$WORK/old.db" old old-rerun >"$WORK/cmp-old" 2>&1
tb analyze diff --db "$WORK/old.db" old old-rerun >"$WORK/diff-old" 2>&1
check "compare and diff: an old file and a new run of its trace replayed one trace" sh -c \
	"! grep -q 'different traces' '$WORK/cmp-old' && ! grep -q '^trace:' '$WORK/diff-old' &&
	 grep -q '^ *1  TTFT  *P50' '$WORK/cmp-old'"
tb analyze compare --db "$WORK/old.db" old other-trace >"$WORK/cmp-other" 2>&1
check "... and another trace is still called another" \
	grep -q 'the runs replayed different traces (digest crc32:[0-9a-f]\{8\} vs sha256:' "$WORK/cmp-other"

# --rerun of an open-loop run: the same schedule, request by request (the
# arrival process drawn from the recorded seed), and the same bodies
tb replay -e "$ENDPOINT" --rate 40 --arrival poisson -n 12 --warmup 0 --label open1 \
	-o "$WORK/o1.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>&1
tb replay --rerun "$WORK/o1.jsonl.gz" -o "$WORK/o2.jsonl.gz" >/dev/null 2>"$WORK/rerun-o.err"
check "--rerun of an open-loop run: exit 0" test $? -eq 0
# seq, trace id, due time (from the first's: the run's own start moves by
# microseconds) and salt of each request
sched() { requests_of "$1" | sed 's/.*"seq":\([0-9]*\),"trace_id":\([0-9]*\),.*"sched_ns":\([0-9]*\),.*"salt":"\([^"]*\)".*/\1 \2 \3 \4/' |
	sort -n | awk 'NR == 1 { t0 = $3 } { print $1, $2, $3 - t0, $4 }'; }
check "... the same $(sched "$WORK/o1.jsonl.gz" | wc -l) requests due at the same offsets, under the same salts" sh -c \
	"test $(sched "$WORK/o1.jsonl.gz" | wc -l) -eq 12 &&
	 test '$(sched "$WORK/o1.jsonl.gz" | cksum)' = '$(sched "$WORK/o2.jsonl.gz" | cksum)' &&
	 test $(sched "$WORK/o1.jsonl.gz" | awk '{ print $3 }' | sort -u | wc -l) -gt 6"

# --rerun of a run spread over worker processes: the workers again
tb replay -e "$ENDPOINT" -c 2 -n 6 --warmup 0 --workers 2 --label spread \
	-o "$WORK/w1.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>&1
tb replay --rerun "$WORK/w1.jsonl.gz" -o "$WORK/w2.jsonl.gz" >/dev/null 2>"$WORK/rerun-w.err"
check "--rerun of a --workers run: exit 0" test $? -eq 0
check "... its header keeps the workers and levels, and it holds as many requests" sh -c \
	"zcat '$WORK/w2.jsonl.gz' | head -n 1 | grep -qF '\"workers\":2' &&
	 zcat '$WORK/w2.jsonl.gz' | head -n 1 | grep -qF '\"concurrency\":[2],\"requests\":6' &&
	 test $(zcat "$WORK/w1.jsonl.gz" | grep -c '"ttft_ns"') -eq 6 &&
	 test \$(zcat '$WORK/w2.jsonl.gz' | grep -c '\"ttft_ns\"') -eq 6"
tb replay --rerun "$WORK/a.jsonl.gz" -o "$WORK/r4.jsonl.gz" >/dev/null 2>"$WORK/rerun4.err"
check "--rerun of a run with a secret: refused until it is given again" sh -c \
	"test $? -eq 2 && grep -q 'recorded -e .* without its secret value; give it again' '$WORK/rerun4.err'"
# which variable's secret goes out is the user's to say, never a file's:
# a file recording --api-key-env NAME (one could name any variable, sent
# to the endpoint it records) is rerun only with --api-key-env given anew
TB_T0765_KEY=k-0765 tb replay -e "$ENDPOINT" -c 1 -n 1 --warmup 0 --quiet --api-key-env TB_T0765_KEY \
	-o "$WORK/k1.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>&1
tb replay --rerun "$WORK/k1.jsonl.gz" -o "$WORK/k2.jsonl.gz" >/dev/null 2>"$WORK/rerunk.err"
check "--rerun of a run with --api-key-env NAME: refused (exit 2) until it is given again" sh -c \
	"test $? -eq 2 && grep -q 'recorded --api-key-env TB_T0765_KEY: .*give it again' '$WORK/rerunk.err' &&
	 test ! -e '$WORK/k2.jsonl.gz'"
TB_T0765_KEY=k-0765 tb replay --rerun "$WORK/k1.jsonl.gz" --api-key-env TB_T0765_KEY \
	-o "$WORK/k3.jsonl.gz" >/dev/null 2>&1
check "... and given again, it reruns" test $? -eq 0
# a recorded word is shown as text when a refusal names it: a file's
# control bytes do not reach the terminal (before: printed as recorded)
zcat "$WORK/k1.jsonl.gz" | sed '1s/"--api-key-env","TB_T0765_KEY"/"--api-key-env","K\\u001b]0;pwned\\u0007"/' |
	gzip >"$WORK/k4.jsonl.gz"
tb replay --rerun "$WORK/k4.jsonl.gz" -o "$WORK/k5.jsonl.gz" >/dev/null 2>"$WORK/rerunk4.err"
check "... a recorded word with ESC and BEL bytes is named without them" sh -c \
	"test $? -eq 2 && grep -q 'recorded --api-key-env K ]0;pwned ' '$WORK/rerunk4.err' &&
	 ! grep -q \"\$(printf '\\033')\" '$WORK/rerunk4.err'"
tb replay --rerun sample_traces/results-sample.jsonl.gz -o "$WORK/r5.jsonl.gz" >/dev/null 2>"$WORK/rerun5.err"
check "--rerun of a file older than provenance: refused, said why" sh -c \
	"test $? -eq 2 && grep -q 'does not record its command line' '$WORK/rerun5.err'"

# two runs started in the same second: both load, under labels of their own
tb replay -e "$ENDPOINT" -c 1 -n 2 --quiet -o "$WORK/b.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>&1 &
b=$!
tb replay -e "$ENDPOINT" -c 1 -n 2 --quiet -o "$WORK/c.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>&1
wait $b
check "two runs of one second both load" \
	tb analyze load --db "$WORK/db2" "$WORK/b.jsonl.gz" "$WORK/c.jsonl.gz"

stop_mock
finish
