#!/bin/sh
# Tokens per joule and cost per million tokens per level (issue 35): the
# mock with --watts W exposes DCGM's energy counter rising at W watts, so a
# level's joules are W x its window, the time from its level_start scrape
# to its level_end scrape in the results file; replay scrapes it through
# two --metrics-url (the mock's /metrics twice, the second with a query
# value to redact), each named in the results and the database; and
# --price-per-hour P gives cost per million output tokens
# P x wall hours x 1e6 / (output + input / 4).
. tests/cli/lib.sh

if ! have sqlite3; then
	skip_all "tokens per joule and cost per million tokens" "sqlite3 not installed"
fi
W=250
P=3.6
tb record synth -n 16 --input-tokens 32 --output-tokens 32 --seed 3 -o "$WORK/t.jsonl.gz" 2>/dev/null
start_mock --ttft-ms 50 --itl-ms 10 --watts $W
tb replay -q -e "$ENDPOINT" -c 1,4 --metrics-url "$ENDPOINT/metrics" \
	--metrics-url "$ENDPOINT/metrics?token=s3cr3tvalue" --price-per-hour $P \
	-o "$WORK/r.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/r.err"
rc=$?
stop_mock
tb analyze load --db "$WORK/m.db" "$WORK/r.jsonl.gz" >/dev/null 2>&1
q() { sqlite3 -separator ' ' "$WORK/m.db" "$1"; }
# near V WANT PCT: V within PCT percent of WANT
near() {
	awk -v v="$1" -v w="$2" -v p="$3" 'BEGIN { exit !(v != "" && w > 0 && v >= w * (1 - p / 100) && v <= w * (1 + p / 100)) }'
}

check "replay exits 0 and says how many scrapes each --metrics-url recorded" sh -c \
	"[ $rc = 0 ] && [ \$(grep -c 'recorded, 0 failed of --metrics-url' '$WORK/r.err') = 2 ]"
check "each metrics record names its source, the secret query value redacted" sh -c \
	"zcat '$WORK/r.jsonl.gz' | grep '\"type\":\"metrics\"' | grep -q '\"source\":\"$ENDPOINT/metrics?token=REDACTED\"' &&
	 zcat '$WORK/r.jsonl.gz' | grep '\"type\":\"metrics\"' | grep -q '\"source\":\"$ENDPOINT/metrics\"' &&
	 ! zcat '$WORK/r.jsonl.gz' | grep -q s3cr3tvalue"
check "the header lists both sources and the energy counter" sh -c \
	"zcat '$WORK/r.jsonl.gz' | head -1 | grep -q '\"sources\":\[\"$ENDPOINT/metrics\",\"$ENDPOINT/metrics?token=REDACTED\"\]' &&
	 zcat '$WORK/r.jsonl.gz' | head -1 | grep -q '\"energy\":{\"metric\":\"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION\",\"unit\":\"mJ\"}'"
check "both sources stored, each with a start and an end scrape per level" \
	[ "$(q "SELECT count(DISTINCT source) FROM metric_scrapes WHERE source != 'host'")" = 2 -a \
	  "$(q "SELECT count(*) FROM metric_scrapes WHERE at IN ('level_start', 'level_end') AND source != 'host'")" = 8 ]

# each level's window, from the first source's records in the results file
zcat "$WORK/r.jsonl.gz" | grep '"type":"metrics"' | grep "\"source\":\"$ENDPOINT/metrics\"" |
	grep '"at":"level_' | sed 's/.*"t_ns":\([0-9]*\),"level":\([0-9]*\),.*"at":"\(level_[a-z]*\)".*/\2 \3 \1/' \
	>"$WORK/edges"
tb analyze report --db "$WORK/m.db" --format csv >"$WORK/report.csv"
expected_tpj() {
	tokens=$(q "SELECT sum(output_tokens) FROM requests WHERE NOT warmup AND error IS NULL AND level = $1")
	awk -v l="$1" -v w=$W -v tok="$tokens" '$1 == l && $2 == "level_start" { s = $3 }
		$1 == l && $2 == "level_end" { e = $3 }
		END { printf "%.6f\n", tok / (w * (e - s) / 1e9) }' "$WORK/edges"
}
row=0
for c in 1 4; do
	row=$((row + 1))
	want=$(expected_tpj $c)
	got=$(csv_field "$WORK/report.csv" tokens_per_joule $row)
	check "C=$c: tokens per joule $got within 3% of tokens / (W x window s) = $want" \
		near "$got" "$want" 3
done
tb analyze report --db "$WORK/m.db" >"$WORK/report.txt" 2>&1
check "the report names the counter and its source under the table" \
	grep -q "Tok/J = output tokens / joules of DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION from $ENDPOINT/metrics over" "$WORK/report.txt"
check "... and a server table per source, with the level's energy" \
	[ "$(grep -c '^server metrics of ' "$WORK/report.txt")" = 2 -a \
	  "$(grep -c 'Energy (J)$' "$WORK/report.txt")" = 2 ]

# cost: the level's wall time (first start to last end of its measured
# requests), its output and input tokens, all as the results file has them
row=0
for c in 1 4; do
	row=$((row + 1))
	want=$(q "SELECT $P * (max(sched_ns + e2e_ns) - min(sched_ns)) / 3.6e12 * 1e6 /
		(sum(output_tokens) + sum(input_tokens) / 4.0) FROM requests
		WHERE NOT warmup AND error IS NULL AND level = $c")
	got=$(csv_field "$WORK/report.csv" cost_per_m_output $row)
	check "C=$c: cost per million output tokens $got = P x wall h x 1e6 / (out + in/4) = $want" \
		near "$got" "$want" 0.1
	got_in=$(csv_field "$WORK/report.csv" cost_per_m_input $row)
	check "... per million input tokens a quarter of it ($got_in)" \
		near "$got_in" "$(awk -v x="$want" 'BEGIN { print x / 4 }')" 0.1
done

# the Pareto figure's data carries tokens per joule and the cost
tb analyze plot --db "$WORK/m.db" --out "$WORK/plots" >/dev/null 2>&1
check "pareto.dat has tokens per joule and cost per million output tokens" \
	awk '/^ *[0-9]/ { if (NF != 5 || $4 == "?" || $5 == "?") bad = 1; n++ }
	     END { exit !(n == 2 && !bad) }' "$WORK/plots/pareto.dat"

# compare: the run against itself has the figures on both sides, no change
label=$(q "SELECT label FROM runs")
tb analyze compare --db "$WORK/m.db" "$label" "$label" >"$WORK/cmp.txt" 2>&1
check "compare shows tokens per joule and cost per level, before and after" \
	sh -c "grep -q '^what the tokens cost' '$WORK/cmp.txt' &&
	       [ \$(sed -n '/^what the tokens cost/,/^More tokens/p' '$WORK/cmp.txt' | grep -c ' +0.0%.* +0.0%') = 2 ]"

# --price-per-hour and --energy-metric at analyze time: a price or counter
# the replay was not given (or another one), for report, compare and plot
tb analyze report --db "$WORK/m.db" --format csv --price-per-hour 7.2 >"$WORK/p2.csv"
row=0
for c in 1 4; do
	row=$((row + 1))
	a=$(csv_field "$WORK/report.csv" cost_per_m_output $row)
	b=$(csv_field "$WORK/p2.csv" cost_per_m_output $row)
	check "C=$c: analyze report --price-per-hour 7.2 over the run's 3.6: twice the cost ($b against $a)" \
		near "$b" "$(awk -v x="$a" 'BEGIN { print 2 * x }')" 0.1
done
# the mock's own generated-token counter named as a counter in joules: a
# level's "joules" are then the tokens the server generated over exactly
# its window, which are the tokens the client received: 1 token per joule
tb analyze report --db "$WORK/m.db" --format csv --energy-metric vllm:generation_tokens_total:J \
	>"$WORK/e2.csv"
check "--energy-metric names another counter: tokens per joule from it (1.0000 at C=1 and 4)" \
	test "$(csv_field "$WORK/e2.csv" tokens_per_joule 1) $(csv_field "$WORK/e2.csv" tokens_per_joule 2)" = "1.0000 1.0000"
tb analyze report --db "$WORK/m.db" --energy-metric vllm:generation_tokens_total:J >"$WORK/e2.txt"
check "... and the report names it" grep -q "joules of vllm:generation_tokens_total from" "$WORK/e2.txt"

# a run replayed with neither: no cost columns, until analyze is given a price
start_mock --ttft-ms 20 --itl-ms 5
tb replay -q -e "$ENDPOINT" -c 1,2 -n 4 --label plain -o "$WORK/plain.jsonl.gz" "$WORK/t.jsonl.gz" \
	>/dev/null 2>&1
stop_mock
tb analyze load --db "$WORK/p.db" "$WORK/plain.jsonl.gz" >/dev/null 2>&1
tb analyze report --db "$WORK/p.db" --format csv >"$WORK/plain.csv"
check "a run replayed without a price has no cost column" \
	sh -c "! head -1 '$WORK/plain.csv' | grep -q cost_per_m_output"
tb analyze report --db "$WORK/p.db" --format csv --price-per-hour $P:2 >"$WORK/plain-p.csv"
for row in 1 2; do
	c=$(csv_field "$WORK/plain-p.csv" concurrency $row)
	want=$(sqlite3 "$WORK/p.db" "SELECT $P * (max(sched_ns + e2e_ns) - min(sched_ns)) / 3.6e12 * 1e6 /
		(sum(output_tokens) + sum(input_tokens) / 2.0) FROM requests
		WHERE NOT warmup AND error IS NULL AND level = $c")
	got=$(csv_field "$WORK/plain-p.csv" cost_per_m_output $row)
	check "C=$c: analyze report --price-per-hour $P:2 gives it: $got = P x wall h x 1e6 / (out + in/2) = $want" \
		near "$got" "$want" 0.1
	check "... per million input tokens half of it" \
		near "$(csv_field "$WORK/plain-p.csv" cost_per_m_input $row)" "$(awk -v x="$want" 'BEGIN { print x / 2 }')" 0.1
done
tb analyze report --db "$WORK/p.db" --price-per-hour $P >"$WORK/plain-p.txt"
check "... the text report says the price it used" grep -q "Cost/M = cost per million tokens at $P per hour" "$WORK/plain-p.txt"
tb analyze compare --db "$WORK/p.db" --price-per-hour $P plain plain >"$WORK/plain-cmp.txt" 2>&1
check "compare --price-per-hour: the cost per level, before and after" \
	grep -q '^what the tokens cost' "$WORK/plain-cmp.txt"
tb analyze plot --db "$WORK/p.db" --price-per-hour $P --out "$WORK/plain-plots" >/dev/null 2>&1
check "plot --price-per-hour: pareto.dat's cost column is filled" \
	awk '/^ *[0-9]/ { if ($5 == "?" || $5 == "") bad = 1; n++ } END { exit !(n == 2 && !bad) }' \
	"$WORK/plain-plots/pareto.dat"
tb analyze export --db "$WORK/p.db" --price-per-hour $P >/dev/null 2>"$WORK/x.err"
check "export refuses them (exit 2, one line)" \
	sh -c "[ $? = 2 ] && [ \$(wc -l <'$WORK/x.err') = 1 ] && grep -q 'are options of report, compare and plot' '$WORK/x.err'"
tb analyze report --db "$WORK/p.db" --price-per-hour -1 >/dev/null 2>"$WORK/x.err"
rc=$?
check "a bad price: exit 2, one line naming it ($(cat "$WORK/x.err"))" \
	sh -c "[ $rc = 2 ] && [ \$(wc -l <'$WORK/x.err') = 1 ] && grep -q 'price-per-hour' '$WORK/x.err'"
tb analyze report --db "$WORK/p.db" --energy-metric 'bad name' >/dev/null 2>"$WORK/x.err"
rc=$?
check "a bad counter name: exit 2, one line naming it" \
	sh -c "[ $rc = 2 ] && [ \$(wc -l <'$WORK/x.err') = 1 ] && grep -q \"energy-metric 'bad name'\" '$WORK/x.err'"
finish
