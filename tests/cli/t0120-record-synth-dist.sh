#!/bin/sh
# record synth: length distributions, arrival processes, multi-turn sessions.
. tests/cli/lib.sh

field() {  # trace, field: one value per record
	requests_of "$1" | grep -o "\"$2\":[0-9]*" | cut -d: -f2
}

tb record synth -n 200 --input-tokens uniform:10:20 --output-tokens uniform:5:5 --seed 7 \
	-o "$WORK/u.jsonl.gz" 2>/dev/null
check "uniform:10:20: every input length within [10, 20]" \
	sh -c "field() { requests_of '$WORK/u.jsonl.gz' | grep -o '\"input_tokens\":[0-9]*' | cut -d: -f2; };
		field | awk '\$1 < 10 || \$1 > 20 { bad = 1 } END { exit bad || NR != 200 }'"
check "uniform:10:20: both ends are drawn" \
	sh -c "zcat '$WORK/u.jsonl.gz' | grep -q '\"input_tokens\":10,' && zcat '$WORK/u.jsonl.gz' | grep -q '\"input_tokens\":20,'"
# every record: words of its prompt == its input_tokens
prompt_words_match() {
	requests_of "$1" | sed 's/.*"content\\":\\"\([a-z ]*\)\\".*"input_tokens":\([0-9]*\).*/\1 \2/' |
		awk 'NF - 1 != $NF { bad = 1 } END { exit bad || NR == 0 }'
}
check "uniform:10:20: each prompt has input_tokens words" prompt_words_match "$WORK/u.jsonl.gz"
check "the header keeps the spec" sh -c "zcat '$WORK/u.jsonl.gz' | head -1 | grep -q '\"input_tokens\":\"uniform:10:20\"'"

tb record synth -n 50 --input-tokens lognormal:100:40 --output-tokens normal:50:10 --rate 3 \
	--arrival gamma --burstiness 0.5 --seed 9 -o "$WORK/a.jsonl.gz" 2>/dev/null
tb record synth -n 50 --input-tokens lognormal:100:40 --output-tokens normal:50:10 --rate 3 \
	--arrival gamma --burstiness 0.5 --seed 9 -o "$WORK/b.jsonl.gz" 2>/dev/null
check "distributions and arrivals: same seed, same bytes" cmp -s "$WORK/a.jsonl.gz" "$WORK/b.jsonl.gz"
check "normal:50:10: lengths vary around 50" sh -c \
	"requests_of '$WORK/a.jsonl.gz' | grep -o '\"output_tokens\":[0-9]*' | cut -d: -f2 |
		awk '{ s += \$1; if (\$1 != 50) v = 1 } END { exit !(v && s / NR > 45 && s / NR < 55) }'"

tb record synth -n 2000 --input-tokens 4 --output-tokens 4 --rate 20 --arrival poisson \
	-o "$WORK/p.jsonl.gz" 2>/dev/null
field "$WORK/p.jsonl.gz" arrival_ns >"$WORK/arr"
check "poisson: first arrival at 0" test "$(head -1 "$WORK/arr")" -eq 0
check "poisson: arrivals never go back" awk 'NR > 1 && $1 < prev { bad = 1 } { prev = $1 } END { exit bad }' "$WORK/arr"
check "poisson at 20/s: mean inter-arrival within 10% of 50 ms over 2000 requests" \
	awk 'END { m = $1 / (NR - 1) / 1e6; exit !(m > 45 && m < 55) }' "$WORK/arr"
check "poisson: inter-arrivals vary (coefficient of variation near 1)" \
	awk 'NR > 1 { d = $1 - p; s += d; q += d * d; n++ } { p = $1 }
		END { m = s / n; cv = sqrt(q / n - m * m) / m; exit !(cv > 0.85 && cv < 1.15) }' "$WORK/arr"

tb record synth -n 1001 --input-tokens 1 --output-tokens 1 --rate 3 -o "$WORK/c.jsonl.gz" 2>/dev/null
check "constant at 3/s: the 1000th gap ends at exactly 333.333333333 s (no drift)" \
	test "$(field "$WORK/c.jsonl.gz" arrival_ns | tail -1)" -eq 333333333333
tb record synth -n 5 --input-tokens 1 --output-tokens 1 -o "$WORK/z.jsonl.gz" 2>/dev/null
check "without --rate every arrival is 0" test "$(field "$WORK/z.jsonl.gz" arrival_ns | sort -u)" = 0

tb record synth -n 6 --turns 3 --input-tokens 5 --output-tokens 4 -o "$WORK/t.jsonl.gz" 2>/dev/null
requests_of "$WORK/t.jsonl.gz" | sed 's/.*"messages\\":\[//; s/\],\\"max_tokens.*//' >"$WORK/msgs"
check "turns: 2 sessions of 3 turns, first turns first (1, 1, 3, 3, 5, 5 messages)" \
	test "$(awk -F'role' '{ printf "%d ", NF - 1 }' "$WORK/msgs")" = "1 1 3 3 5 5 "
check "turns: turn 2 repeats turn 1 as its prefix" sh -c \
	"p=\$(sed -n 1p '$WORK/msgs'); sed -n 3p '$WORK/msgs' | grep -qF \"\$p,\""
check "turns: turn 3 repeats turn 2 as its prefix" sh -c \
	"p=\$(sed -n 3p '$WORK/msgs'); sed -n 5p '$WORK/msgs' | grep -qF \"\$p,\""
check "turns: sessions differ" sh -c "test \"\$(sed -n 1p '$WORK/msgs')\" != \"\$(sed -n 2p '$WORK/msgs')\""
check "turns: input_tokens counts the whole conversation (5, 5+4+5, 5+4+5+4+5)" \
	test "$(field "$WORK/t.jsonl.gz" input_tokens | tr '\n' ' ')" = "5 5 14 14 23 23 "

for bad in uniform:20:10 normal:0:5 lognormal:x:1 'uniform:1' 0 gauss:1:2; do
	tb record synth -n 1 --input-tokens "$bad" -o "$WORK/x.jsonl.gz" 2>"$WORK/err"
	check "--input-tokens $bad is refused (exit 2, naming the option)" \
		sh -c "test $? -eq 2 && grep -q \"invalid value '$bad' for --input-tokens\" '$WORK/err'"
done
tb record synth -n 1 --arrival poisson -o "$WORK/x.jsonl.gz" 2>"$WORK/err"
check "--arrival without --rate is refused" sh -c "test $? -eq 2 && grep -q 'needs --rate' '$WORK/err'"
tb record synth -n 1 --rate 2 --burstiness 2 -o "$WORK/x.jsonl.gz" 2>"$WORK/err"
check "--burstiness without gamma is refused" sh -c "test $? -eq 2 && grep -q 'needs --arrival gamma' '$WORK/err'"
check "no file was written by refused commands" test ! -e "$WORK/x.jsonl.gz"
tb record synth --help >"$WORK/out"
check "--help documents the distributions" grep -q "uniform:A:B, normal:MU:SD or lognormal:MU:SD" "$WORK/out"
finish
