#!/bin/sh
# The Markdown report of sample_traces/results-sample.jsonl.gz is exactly
# the checked-in t0300-analyze-report-sample.expected.md: seed columns
# first, TTFT percentiles, scaling, warm-up, the latency table and legend.
# Regenerate after an intended change with:
#   tracebench analyze load --db x.db sample_traces/results-sample.jsonl.gz
#   tracebench analyze report --db x.db --format markdown \
#       > tests/cli/t0300-analyze-report-sample.expected.md
. tests/cli/lib.sh

EXPECTED=tests/cli/t0300-analyze-report-sample.expected.md

tb analyze load --db "$WORK/s.db" sample_traces/results-sample.jsonl.gz 2>/dev/null
tb analyze report --db "$WORK/s.db" --format markdown >"$WORK/report.md"
check "report exits 0" test $? -eq 0
check "the Markdown report matches $EXPECTED" cmp -s "$WORK/report.md" "$EXPECTED"
cmp -s "$WORK/report.md" "$EXPECTED" || diff "$EXPECTED" "$WORK/report.md" | head -20 >&2
check "the seed benchmark's columns come first" \
	grep -q '^| C | Agg tok/s | Per-req tok/s | Avg TTFT (ms) | Tokens | Wall(s) | Ok |' "$WORK/report.md"
check "the legend says ITL pools all gaps, as vLLM does" \
	grep -q 'ITL pools every inter-token gap .* as vLLM' "$WORK/report.md"

# Goodput: the sample's C=1 has one request with TTFT above 35 ms (36.2).
tb analyze report --db "$WORK/s.db" --format csv --slo ttft=35ms,e2e=10s >"$WORK/slo.csv"
check "goodput at C=1 with TTFT <= 35 ms is 7 of 8" \
	test "$(csv_field "$WORK/slo.csv" goodput_pct 1)" = "87.50"
check "goodput at C=4 is all" test "$(csv_field "$WORK/slo.csv" goodput_pct 3)" = "100.00"
tb analyze report --db "$WORK/s.db" --slo ttft=fast 2>"$WORK/err"
check "a bad --slo is a usage error (exit 2)" test $? -eq 2
check "a bad --slo is one line naming the limit" \
	sh -c "test \$(wc -l <'$WORK/err') -eq 1 && grep -q \"'fast'\" '$WORK/err'"

# The plain-SQL view agrees with the report on wall time and throughput.
tb analyze report --db "$WORK/s.db" --format csv >"$WORK/r.csv"
for row in 1 2 3; do
	c=$(csv_field "$WORK/r.csv" concurrency $row)
	want=$(csv_field "$WORK/r.csv" agg_tok_s $row)
	got=$(sqlite3 "$WORK/s.db" "select printf('%.3f', agg_tok_s) from v_summary where concurrency = $c")
	check "v_summary's agg tok/s at C=$c ($got) is the report's ($want)" test "$got" = "$want"
done
finish
