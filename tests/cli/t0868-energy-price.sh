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
	skip "tokens per joule and cost per million tokens" "sqlite3 not installed"
	exit 0
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
