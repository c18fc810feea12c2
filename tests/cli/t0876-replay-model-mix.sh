#!/bin/sh
# replay --model-mix (issue 36): each request goes to a model drawn from
# the seeded mix, the body's model rewritten, as LoRA adapters of one
# server are driven. The draw is keyed on --seed and the request: every
# level and every rerun sends a request to the same model, another seed
# to others; shares lie near the weights; a session's turns stay on one
# model; what replay records is what the mock counted per model; report,
# compare and export split the figures by model; bad specs are refused
# with one line naming the option.
. tests/cli/lib.sh

# pairs FILE [LEVEL]: "trace_id model" of every request record (of level
# LEVEL only, when given), in file order.
pairs() {
	requests_of "$1" | awk -v lvl="${2:-}" '
		lvl != "" && !index($0, "\"level\":" lvl ",") { next }
		{ t = $0; sub(/.*"trace_id":/, "", t); sub(/[^0-9].*/, "", t)
		  m = "-"; if (match($0, /"model":"[^"]*"/)) m = substr($0, RSTART + 9, RLENGTH - 10)
		  print t, m }'
}

# count FILE MODEL: the request records sent to MODEL.
count() {
	pairs "$1" | awk -v m="$2" '$2 == m { n++ } END { print n + 0 }'
}

tb record synth -n 200 --input-tokens 8 --output-tokens 4 --seed 1 -o "$WORK/t.jsonl.gz" 2>/dev/null
# b is an adapter three times slower than the base and a
start_mock --ttft-ms 4 --itl-ms 2 --models a,b:3
tb replay -e "$ENDPOINT" -c 4,16 -n 200 --warmup 0 --quiet --label mix1 \
	--model-mix a:3,b:1 -o "$WORK/r1.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/r1.err"
check "a replay of a mix succeeds, every request" sh -c \
	"test $? -eq 0 && test \"\$(requests_of '$WORK/r1.jsonl.gz' | grep -c '\"error\":null')\" -eq 400"
na=$(count "$WORK/r1.jsonl.gz" a)
nb=$(count "$WORK/r1.jsonl.gz" b)
echo "# model-mix a:3,b:1 seed 1: a $na, b $nb of 400 (two levels of 200)"
check "every request names a or b, none the base model" test $((na + nb)) -eq 400
check "what replay recorded is what the server got: a $na and b $nb on the mock's /metrics" \
	sh -c "test \"\$(curl -s '$ENDPOINT/metrics' | grep -c '^tracebench_mock_model_requests_total{model=\"a\"} $na\$')\" -eq 1 &&
	       test \"\$(curl -s '$ENDPOINT/metrics' | grep -c '^tracebench_mock_model_requests_total{model=\"b\"} $nb\$')\" -eq 1 &&
	       curl -s '$ENDPOINT/metrics' | grep -q '^tracebench_mock_model_requests_total{model=\"mock\"} 0\$'"
pairs "$WORK/r1.jsonl.gz" 4 | sort -n >"$WORK/c4"
pairs "$WORK/r1.jsonl.gz" 16 | sort -n >"$WORK/c16"
check "C=4 and C=16 send each request to the same model (the draw is not the order's)" \
	sh -c "test -s '$WORK/c4' && cmp -s '$WORK/c4' '$WORK/c16'"
# a share of 3/4 over 200 draws: 150 +- 4 sd (sd 6.1)
a4=$(awk '$2 == "a"' "$WORK/c4" | wc -l)
check "a's share at one level is near 3/4: $a4 of 200 within 150 +- 25 (4 binomial sd)" \
	within "$a4" 125 175
check "the results header records the mix, its weights, shares and seed; model null" sh -c \
	"zcat '$WORK/r1.jsonl.gz' | head -1 | grep -q '\"model\":null,' &&
	 zcat '$WORK/r1.jsonl.gz' | head -1 | grep -q '\"model_mix\":{\"models\":\[{\"name\":\"a\",\"weight\":3,\"share\":0.75},{\"name\":\"b\",\"weight\":1,\"share\":0.25}\],\"seed\":1}'"

# A rerun (other levels, same seed) draws alike; another seed otherwise.
tb replay -e "$ENDPOINT" -c 16 -n 200 --warmup 0 --quiet --label mix2 \
	--model-mix a:3,b:1 -o "$WORK/r2.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>&1
pairs "$WORK/r2.jsonl.gz" | sort -n >"$WORK/again"
check "a rerun sends each request to the model it went to before" cmp -s "$WORK/c4" "$WORK/again"
tb replay --rerun "$WORK/r2.jsonl.gz" --quiet -o "$WORK/r2b.jsonl.gz" >/dev/null 2>&1
pairs "$WORK/r2b.jsonl.gz" | sort -n >"$WORK/rerun"
check "... and so does replay --rerun of its results file" cmp -s "$WORK/again" "$WORK/rerun"
tb replay -e "$ENDPOINT" -c 8 -n 200 --warmup 0 --quiet --label seed2 --seed 2 \
	--model-mix a:3,b:1 -o "$WORK/r3.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>&1
pairs "$WORK/r3.jsonl.gz" | sort -n >"$WORK/s2"
a2=$(awk '$2 == "a"' "$WORK/s2" | wc -l)
echo "# model-mix a:3,b:1 seed 2: a $a2 of 200"
differ=0
cmp -s "$WORK/c4" "$WORK/s2" || differ=1
check "--seed 2 draws another assignment, a's share as near: $a2 within 150 +- 25" \
	sh -c "test $differ -eq 1 && test $a2 -ge 125 && test $a2 -le 175"
# equal weights when left out; one model alone gets all
tb replay -e "$ENDPOINT" -c 8 -n 200 --warmup 0 --quiet --label even \
	--model-mix a,b -o "$WORK/r4.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>&1
ae=$(count "$WORK/r4.jsonl.gz" a)
check "weights left out are equal: a $ae of 200 within 100 +- 29 (4 sd)" within "$ae" 71 129
tb replay -e "$ENDPOINT" -c 8 -n 20 --warmup 0 --quiet --label one \
	--model-mix b:0.5 -o "$WORK/r5.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>&1
check "a mix of one model sends it every request" test "$(count "$WORK/r5.jsonl.gz" b)" -eq 20
stop_mock

# Sessions: all the turns of a conversation go to one model.
start_mock --ttft-ms 2 --itl-ms 1 --models a,b
tb record synth -n 60 --turns 3 --input-tokens 5 --output-tokens 4 -o "$WORK/s.jsonl.gz" 2>/dev/null
tb replay -e "$ENDPOINT" -c 4 -n 20 --warmup 0 --quiet --model-mix a:1,b:1 \
	-o "$WORK/rs.jsonl.gz" "$WORK/s.jsonl.gz" >/dev/null 2>&1
requests_of "$WORK/rs.jsonl.gz" | awk '{ s = $0; sub(/.*"session":/, "", s); sub(/[^0-9].*/, "", s)
	m = $0; sub(/.*"model":"/, "", m); sub(/".*/, "", m); print s, m }' | sort -u >"$WORK/sm"
check "a replay of sessions: 60 turns of 20 sessions, each session on one model" sh -c \
	"test \"\$(requests_of '$WORK/rs.jsonl.gz' | grep -c '\"error\":null')\" -eq 60 &&
	 test \"\$(wc -l <'$WORK/sm')\" -eq 20 && test \"\$(cut -d' ' -f1 '$WORK/sm' | sort -u | wc -l)\" -eq 20"
check "... and both models had sessions" sh -c \
	"grep -q ' a\$' '$WORK/sm' && grep -q ' b\$' '$WORK/sm'"
stop_mock

# analyze: report's rows per model, export's column, compare per model.
tb analyze load --db "$WORK/d.db" "$WORK/r1.jsonl.gz" "$WORK/r2.jsonl.gz" "$WORK/r5.jsonl.gz" \
	>/dev/null 2>&1
tb analyze report --db "$WORK/d.db" --run mix1 >"$WORK/report" 2>&1
awk '/^per model/ { on = 1; next } on && NF == 0 { exit } on' "$WORK/report" >"$WORK/permodel"
check "report: a table per model under the run of two, a row per level and model" sh -c \
	"test \"\$(grep -c '^[ab] ' '$WORK/permodel')\" -eq 4 &&
	 grep -q '^a  *4  *$a4 ' '$WORK/permodel' && grep -q '^b  *16  *$((200 - a4)) ' '$WORK/permodel'"
# TPOT's lower bound is the mock's gap, less what a late read of the
# first token takes from the three gaps after it: loose, for a busy host
tpot_a=$(awk '$1 == "a" && $2 == 4 { print $8 }' "$WORK/permodel")
tpot_b=$(awk '$1 == "b" && $2 == 4 { print $8 }' "$WORK/permodel")
echo "# P50 TPOT at C=4: a $tpot_a ms, b $tpot_b ms (mock: 2 and 6 ms a token)"
check "the slower adapter's rows show it: P50 TPOT b $tpot_b ms near 6 (>= 4.5), a $tpot_a ms near 2 (>= 1.5) and below b's" \
	awk -v a="$tpot_a" -v b="$tpot_b" 'BEGIN { exit !(b >= 4.5 && a >= 1.5 && a < b) }'
tb analyze report --db "$WORK/d.db" --run one >"$WORK/report1" 2>&1
check "report: no such table for a run of one model" sh -c \
	"grep -q '^ *8 ' '$WORK/report1' && ! grep -q '^per model' '$WORK/report1'"
tb analyze report --db "$WORK/d.db" --run mix1 --format markdown >"$WORK/report.md" 2>&1
check "report: the table in Markdown too" grep -q '^| a | 4 | ' "$WORK/report.md"
tb analyze export --db "$WORK/d.db" --run mix1 >"$WORK/export.csv" 2>&1
# the model column's cell of every row (its place from the header)
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "model") c = i; next } c { print $c }' \
	"$WORK/export.csv" >"$WORK/export.models"
ea=$(grep -c '^a$' "$WORK/export.models")
eb=$(grep -c '^b$' "$WORK/export.models")
check "export: a model column, its counts those of the file (a $ea, b $eb)" sh -c \
	"head -1 '$WORK/export.csv' | grep -q ',model,' && test $ea -eq $na && test $eb -eq $nb"
tb analyze export --db "$WORK/d.db" --run mix1 --format jsonl 2>/dev/null | head -1 >"$WORK/export.jsonl"
check "export: JSON Lines names the model as a string" grep -q '"model":"[ab]",' "$WORK/export.jsonl"
tb analyze compare --db "$WORK/d.db" mix1 mix2 >"$WORK/compare" 2>&1
awk '/^per model/ { on = 1; next } on && NF == 0 { exit } on' "$WORK/compare" >"$WORK/cmpmodel"
check "compare: the whole runs' verdicts, then a row per model of both at their common level" \
	sh -c "grep -q '^ *16  *TTFT  *P50 ' '$WORK/compare' &&
	       test \"\$(grep -c '^ *16  *[ab] ' '$WORK/cmpmodel')\" -eq 2 &&
	       grep -q '^ *16  *b  *$((200 - a4))  *$((200 - a4)) ' '$WORK/cmpmodel'"

# plot: each model's P50 TTFT and TPOT by concurrency, the report's numbers
tb analyze plot --db "$WORK/d.db" --run mix1 --out "$WORK/plots" --format svg >/dev/null 2>"$WORK/plot.err"
rc=$?
dat=$WORK/plots/latency_by_model.dat
# the C=4 row: a's TTFT and TPOT P50, then b's (the report's rows)
row=$(awk '$1 == 4 { print $2, $3, $4, $5 }' "$dat" 2>/dev/null)
want=$(awk '$2 == 4 && ($1 == "a" || $1 == "b") { printf "%s%s %s", (n++ ? " " : ""), $6, $8 }' "$WORK/permodel")
check "plot: latency_by_model.dat names both models, its C=4 row the report's P50 TTFT and TPOT of a and b ($row; report: $want)" \
	sh -c "test $rc -eq 0 && grep -q \"^# run 'mix1', model 'a'\" '$dat' && grep -q \"^# run 'mix1', model 'b'\" '$dat' &&
	       awk -v r='$row' -v w='$want' 'BEGIN { n = split(r, a, \" \"); split(w, b, \" \")
	           if (n != 4) exit 1
	           for (i = 1; i <= 4; i++) { d = a[i] - b[i]; if (d < 0) d = -d; if (d > 0.01) exit 1 } }'"
if have gnuplot; then
	check "plot: latency_by_model.svg drawn, a curve each for a's and b's TTFT and TPOT, no warning" \
		sh -c "grep -q 'mix1: a TTFT' '$WORK/plots/latency_by_model.svg' &&
		       grep -q 'mix1: b TPOT' '$WORK/plots/latency_by_model.svg' && ! grep -q . '$WORK/plot.err'"
else
	skip "plot: latency_by_model.svg drawn" "gnuplot not installed"
fi
tb analyze plot --db "$WORK/d.db" --run one --out "$WORK/plots1" --format svg >/dev/null 2>&1
check "plot: no latency_by_model for a run of one model" sh -c \
	"test -e '$WORK/plots1/latency_ttft.dat' && test ! -e '$WORK/plots1/latency_by_model.dat'"

# Bad specs: one line naming the option, exit 2, nothing sent.
for spec in 'a:0' 'a,,b' 'a:x' 'a,a' '' ' a' 'a:-1' 'a:' ':2' 'a:1e10'; do
	tb replay -e http://127.0.0.1:9 -o "$WORK/bad.jsonl.gz" --model-mix "$spec" \
		"$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/bad.err"
	rc=$?
	check "--model-mix '$spec' is refused: exit 2, one line naming --model-mix" sh -c \
		"test $rc -eq 2 && test \"\$(wc -l <'$WORK/bad.err')\" -eq 1 &&
		 grep -q 'invalid --model-mix' '$WORK/bad.err' && test ! -e '$WORK/bad.jsonl.gz'"
done
tb replay -e http://127.0.0.1:9 -o "$WORK/bad.jsonl.gz" --model x --model-mix a,b \
	"$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/bad.err"
check "--model with --model-mix is refused in one line" sh -c \
	"test $? -eq 2 && test \"\$(wc -l <'$WORK/bad.err')\" -eq 1 && grep -q -- '--model-mix' '$WORK/bad.err'"
tb mock --models 'a,,b' >/dev/null 2>"$WORK/bad.err"
check "mock --models refuses a bad list in one line" sh -c \
	"test $? -eq 2 && test \"\$(wc -l <'$WORK/bad.err')\" -eq 1 && grep -q 'invalid --models' '$WORK/bad.err'"
finish
