#!/bin/sh
# Every percentile the report prints has its 95% interval by order
# statistics (issue 30): in CSV and JSON always, in text and markdown with
# --intervals. The median of 100 values lies between the 40th and the 61st
# of them (1-based): checked here against the TTFTs of the results file.
. tests/cli/lib.sh

tb record synth -n 16 --input-tokens 8 --output-tokens 2 --seed 1 -o "$WORK/t.jsonl.gz" 2>/dev/null
start_mock --ttft-ms 20 --itl-ms 1 --noise jitter=20% --seed 3
tb replay --endpoint "$ENDPOINT" -c 4 -n 100 --label iv -o "$WORK/r.jsonl.gz" "$WORK/t.jsonl.gz" \
	>/dev/null 2>&1
stop_mock
tb analyze load --db "$WORK/d.db" "$WORK/r.jsonl.gz" 2>/dev/null

# the k-th (1-based) smallest measured TTFT of the file, ms to three
# decimals (or to $2 decimals: from the nanoseconds, as the report rounds
# it, never from a value rounded already)
kth() {
	requests_of "$WORK/r.jsonl.gz" | grep '"warmup":false' | grep '"error":null' |
	grep -o '"ttft_ns":[0-9]*' | cut -d: -f2 | sort -n | sed -n "${1}p" |
	awk -v d="${2:-3}" '{ printf "%.*f", d, $1 / 1e6 }'
}
tb analyze report --db "$WORK/d.db" --format csv >"$WORK/r.csv"
check "csv: the P50 TTFT's interval is the 40th and 61st of 100 TTFTs" \
	test "$(csv_field "$WORK/r.csv" p50_ttft_lo95_ms 1)" = "$(kth 40)" -a \
	     "$(csv_field "$WORK/r.csv" p50_ttft_hi95_ms 1)" = "$(kth 61)"
check "csv: P90 of 100 has one, P99 none (it needs 368)" \
	test -n "$(csv_field "$WORK/r.csv" p90_ttft_lo95_ms 1)" -a \
	     -z "$(csv_field "$WORK/r.csv" p99_ttft_lo95_ms 1)"
tb analyze report --db "$WORK/d.db" --intervals >"$WORK/r.txt"
want="[$(kth 40 1)-$(kth 61 1)]"
check "text --intervals: the TTFT row shows it ($want)" \
	sh -c "grep '^TTFT  *4 ' '$WORK/r.txt' | grep -qF -- '$want'"
check "... and says what it is" grep -q "the 95% interval of the percentile by order statistics" "$WORK/r.txt"
tb analyze report --db "$WORK/d.db" --format html --intervals >"$WORK/r.html" 2>/dev/null
check "html --intervals: the page's TTFT cell shows it too ($want)" \
	sh -c "grep -F -- '$want' '$WORK/r.html' | grep -q '<td'"
tb analyze report --db "$WORK/d.db" >"$WORK/plain.txt"
check "without --intervals the latency table is as before" \
	sh -c "! grep -q 'CI\\]' '$WORK/plain.txt' && grep -q '^Metric  *C  *N  Mean (ms)  *P50  *P90' '$WORK/plain.txt'"
tb analyze export --db "$WORK/d.db" --intervals >/dev/null 2>"$WORK/err"
rc=$?
check "export refuses --intervals (exit $rc), naming it" \
	sh -c "test $rc -eq 2 && grep -q -- '--intervals is an option of report' '$WORK/err'"
finish
