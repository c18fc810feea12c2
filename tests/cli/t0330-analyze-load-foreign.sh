#!/bin/sh
# Other tools' per-request results load as runs and are reported under
# tracebench's definitions: a `vllm bench serve --save-detailed` file (the
# released shape: no per-request latencies) reproduces the means, medians
# and P99s of TTFT and ITL vLLM printed, and its TPOT and E2E fall short of
# vLLM's by what the file lacks (the time from the last token chunk to
# vLLM's latency stamp: E2E is TTFT + the gaps); SGLang's JSON Lines (two
# runs: two levels) load with their gaps noted, and the numbers a file
# without start times cannot support (wall time, Agg tok/s) are missing in
# report and n/a in compare, not judged; two unlabelled runs of one second
# stay two runs;
# truncated files and unknown versions are refused whole with file and line.
. tests/cli/lib.sh

F=tests/fixtures/foreign
tb analyze load --db "$WORK/d.db" "$F/vllm-detailed.json" 2>"$WORK/err"
check "a vllm detailed result loads" grep -q "run 'vllm-20251130-141502-[0-9a-f]\{8\}', 12 requests" "$WORK/err"
V=$(sed -n "s/.*run '\(vllm-[0-9a-f-]*\)'.*/\1/p" "$WORK/err")
tb analyze report --db "$WORK/d.db" --format csv >"$WORK/r.csv"
# vLLM's metric name -> our column
for pair in mean_ttft_ms:avg_ttft_ms median_ttft_ms:p50_ttft_ms p99_ttft_ms:p99_ttft_ms \
	    mean_tpot_ms:avg_tpot_ms median_tpot_ms:p50_tpot_ms p99_tpot_ms:p99_tpot_ms \
	    mean_itl_ms:avg_itl_ms median_itl_ms:p50_itl_ms p99_itl_ms:p99_itl_ms \
	    mean_e2el_ms:avg_e2e_ms median_e2el_ms:p50_e2e_ms p99_e2el_ms:p99_e2e_ms; do
	theirs=$(awk -v k="${pair%%:*}" '$1 == k { print $2 }' "$F/vllm-detailed.expected")
	ours=$(csv_field "$WORK/r.csv" "${pair#*:}" 1)
	case $pair in
	*tpot*|*e2el*)   # short by the file's missing tail: 0.10-0.36 ms a request here
		check "vllm's ${pair%%:*} $theirs ms is our ${pair#*:} ($ours) plus at most 0.36 ms" \
			awk -v a="$theirs" -v b="$ours" 'BEGIN { d = a - b; exit !(d < 0.366 && d > -0.006) }' ;;
	*)
		check "vllm's ${pair%%:*} $theirs ms is our ${pair#*:} ($ours)" \
			awk -v a="$theirs" -v b="$ours" 'BEGIN { d = a - b; exit !(d < 0.006 && d > -0.006) }' ;;
	esac
done
check "vllm's E2E is TTFT + the gaps: mean 228.46 ms printed, 228.233 ours" \
	test "$(csv_field "$WORK/r.csv" avg_e2e_ms 1)" = 228.233
check "the failed request is an error, not a sample" test "$(csv_field "$WORK/r.csv" errors 1)" = 1
check "vllm's max_concurrency is the level" test "$(csv_field "$WORK/r.csv" concurrency 1)" = 4
tb analyze report --db "$WORK/d.db" >"$WORK/r.txt"
check "the report says TTFA is not in the file" grep -q '^note: TTFA: not in the file' "$WORK/r.txt"
check "... and that vllm's file has no latencies" grep -q '^note: no per-request latencies' "$WORK/r.txt"
check "vllm's file has start times: Agg tok/s is a number" \
	test "$(csv_field "$WORK/r.csv" agg_tok_s 1)" = 219.160
tb analyze load --db "$WORK/d.db" "$F/vllm-detailed.json" 2>"$WORK/err"
check "loading it again is a no-op" grep -q "already loaded" "$WORK/err"

tb analyze load --db "$WORK/d.db" --label sgl "$F/sglang-details.jsonl" 2>"$WORK/err"
check "sglang's two runs load as one run" grep -q "run 'sgl', 12 requests" "$WORK/err"
tb analyze report --db "$WORK/d.db" --run sgl --format csv >"$WORK/s.csv"
check "... of two levels, C=1 and C=2" \
	test "$(csv_field "$WORK/s.csv" concurrency 1),$(csv_field "$WORK/s.csv" concurrency 2)" = 1,2
tb analyze report --db "$WORK/d.db" --run sgl >"$WORK/s.txt"
check "the report says sglang's file has no start times" grep -q '^note: no start times in the file' "$WORK/s.txt"
check "... and no latencies" grep -q '^note: no per-request latencies' "$WORK/s.txt"
check "... so its wall time and Agg tok/s are missing, not the longest request's" \
	test "$(csv_field "$WORK/s.csv" agg_tok_s 1),$(csv_field "$WORK/s.csv" wall_s 1),$(csv_field "$WORK/s.csv" agg_tok_s 2)" = ,,
check "... shown as - in the text table" \
	sh -c "awk '\$1 == 1 && \$2 == \"-\" && \$6 == \"-\"' '$WORK/s.txt' | grep -q ."
tb analyze compare --db "$WORK/d.db" "$V" sgl >/dev/null 2>&1
check "compare takes a foreign run (no common level: exit 2)" test $? -eq 2
sed 's/"tag": null/"tag": "sgl-b"/' "$F/sglang-details.jsonl" >"$WORK/sglb.jsonl"
tb analyze load --db "$WORK/d.db" "$WORK/sglb.jsonl" 2>/dev/null
tb analyze compare --db "$WORK/d.db" sgl sgl-b >"$WORK/c.txt" 2>&1
check "compare: Agg tok/s of a file without start times is n/a, not judged" \
	sh -c "[ \$(grep -c '^ *[12]  Agg tok/s  *-  *-  *-  *-  *n/a\$' '$WORK/c.txt') = 2 ] &&
	       grep -q \"^warning: 'sgl' has no start times\" '$WORK/c.txt'"

# Gaps keep their fraction of a microsecond (vLLM's come from perf_counter).
sed 's/"itls": \[\[0.010759,/"itls": [[0.0107591234,/; s/"label": null/"label": "subus"/' \
	"$F/vllm-detailed.json" >"$WORK/subus.json"
tb analyze load --db "$WORK/subus.db" "$WORK/subus.json" 2>/dev/null
tb analyze export --db "$WORK/subus.db" --format jsonl --gaps >"$WORK/subus.jsonl"
check "a gap of 10759.123 us stays 10759.123 us, in a JSON array of numbers" \
	grep -q '"itl_us":\[10759.123,12775,' "$WORK/subus.jsonl"
tb analyze report --db "$WORK/subus.db" --format csv >"$WORK/subus.csv"
check "... and counts as such: max ITL unchanged, mean ITL as vLLM's" \
	test "$(csv_field "$WORK/subus.csv" avg_itl_ms 1)" = "$(csv_field "$WORK/r.csv" avg_itl_ms 1)"

# Two unlabelled vllm runs started in the same second: two runs, not one.
sed 's/"ttfts": \[0.073999/"ttfts": [0.073998/' "$F/vllm-detailed.json" >"$WORK/same-second.json"
tb analyze load --db "$WORK/two.db" "$F/vllm-detailed.json" "$WORK/same-second.json" 2>/dev/null
tb analyze runs --db "$WORK/two.db" --format csv >"$WORK/two.csv"
check "two unlabelled vllm runs of one second load as two runs of 12 requests" \
	test "$(grep -c '^vllm-20251130-141502-[0-9a-f]*,.*,12,1,$' "$WORK/two.csv")" = 2
tb analyze plot --db "$WORK/d.db" --run sgl --out "$WORK/plots" >/dev/null 2>&1
check "plot draws a foreign run" test -s "$WORK/plots/latency_ttft.dat"

# Bad input: one line naming file and line, exit 2, nothing half-loaded.
refused() {  # description, file, message
	tb analyze load --db "$WORK/bad.db" "$2" >/dev/null 2>"$WORK/err"
	rc=$?
	check "$1: exit 2" test $rc -eq 2
	check "$1: one line naming the file, its line and what is wrong" \
		one_line "'$2' line" "$3"
	check "$1: nothing loaded" no_runs
}
one_line() {  # the error file holds one line with both strings
	test "$(wc -l <"$WORK/err")" -eq 1 && grep -qF "$1" "$WORK/err" && grep -qF "$2" "$WORK/err"
}
no_runs() {
	! tb analyze runs --db "$WORK/bad.db" 2>/dev/null | grep -q .
}
head -c 3000 "$F/vllm-detailed.json" >"$WORK/cut.json"
refused "truncated vllm result" "$WORK/cut.json" "truncated JSON"
head -n 1 "$F/sglang-details.jsonl" >"$WORK/cut.jsonl"
tail -n 1 "$F/sglang-details.jsonl" | head -c 500 >>"$WORK/cut.jsonl"
refused "sglang file cut in its second run" "$WORK/cut.jsonl" "line 2: truncated JSON"
sed 's/"itls": \[\[/"itls": {"0": [[/; s/\]\], "start_times"/]]}, "start_times"/' "$F/vllm-detailed.json" >"$WORK/v2.json"
refused "an unknown vllm version (itls not an array)" "$WORK/v2.json" "'itls' is not an array (an unknown version?)"
sed 's/"ttfts": /"ttft_s": /' "$F/vllm-detailed.json" >"$WORK/nodetail.json"
refused "a vllm result saved without --save-detailed" "$WORK/nodetail.json" "needs --save-detailed"
echo '{"hello": "world"}' >"$WORK/other.json"
refused "another tool's json" "$WORK/other.json" "not a result of a tool tracebench reads"
# Python's bare NaN, 3 bytes where null needs 4: read as null, no
# overflow (it wrote past the buffer and crashed)
printf '{"hello": NaN, "x": [NaN, -Infinity, "NaN"]}\n' >"$WORK/nan.json"
refused "another tool's json with bare NaNs" "$WORK/nan.json" "not a result of a tool tracebench reads"
sed 's/"request_rate": "inf"/"request_rate": NaN/' "$F/vllm-detailed.json" >"$WORK/vnan.json"
tb analyze load --db "$WORK/vnan.db" "$WORK/vnan.json" >/dev/null 2>"$WORK/vnan.err"
check "a vllm result with a bare NaN loads" test $? -eq 0
# Gaps that add up past a day (past int64's ns, at 10^5 of them, before)
sed 's/"itls": \[\[[^]]*\]/"itls": [[86400, 86400, 86400]/' "$F/vllm-detailed.json" >"$WORK/long.json"
refused "a vllm request whose gaps add up past a day" "$WORK/long.json" "the gaps of a request in 'itls' add up to more than a day"
# Non-finite and out-of-range numbers are refused where they enter, naming
# the array, before any conversion to an integer: Python's Infinity and
# NaN (read as null), and numbers no time or count can be
sed 's/"ttfts": \[0.073999/"ttfts": [Infinity/' "$F/vllm-detailed.json" >"$WORK/inf.json"
refused "a vllm TTFT of Infinity" "$WORK/inf.json" "an element of 'ttfts' is not a time in seconds"
sed 's/"ttfts": \[0.073999/"ttfts": [1e300/' "$F/vllm-detailed.json" >"$WORK/big.json"
refused "a vllm TTFT of 1e300 s" "$WORK/big.json" "an element of 'ttfts' is not a time in seconds"
sed 's/"itls": \[\[0.010759/"itls": [[NaN/' "$F/vllm-detailed.json" >"$WORK/gnan.json"
refused "a vllm gap of NaN" "$WORK/gnan.json" "a gap in 'itls' is not a time in seconds"
sed 's/"input_lens": \[386/"input_lens": [1e300/' "$F/vllm-detailed.json" >"$WORK/tok.json"
refused "a vllm prompt of 1e300 tokens" "$WORK/tok.json" "an element of 'input_lens' is not a token count"
sed 's/"start_times": \[183245.118666/"start_times": [-Infinity/' "$F/vllm-detailed.json" >"$WORK/st.json"
refused "a vllm start time of -Infinity" "$WORK/st.json" "an element of 'start_times' is not a number"
sed 's/"start_times": \[183245.118666/"start_times": [-1e300/' "$F/vllm-detailed.json" >"$WORK/st2.json"
refused "vllm start times 1e300 s apart" "$WORK/st2.json" "'start_times' spans more than a month"
finish
