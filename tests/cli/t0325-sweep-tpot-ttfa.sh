#!/bin/sh
# The sweep table's P50 TPOT and P50 TTFA (issue 31), in replay's live
# rows and in the report: TPOT is the median of (E2E - TTFT) / (tokens - 1)
# of a level's requests and TTFA the median of their first answer token,
# both worked out here from the results file alone. TTFA shows only where
# a request reasoned before answering; when a later level is the first to
# reason, the live table starts again under a header that has it.
. tests/cli/lib.sh

# med FILE LEVEL tpot|ttfa: the median of the metric over the measured
# successful requests of LEVEL in the results file FILE, in ms to one
# decimal (TPOT of answers of two tokens or more). The levels here have
# an odd number of requests: the median is one request's value, as exact
# as the table's.
med() {
	requests_of "$1" | grep "\"level\":$2," | grep '"warmup":false' | grep '"error":null' |
	awk -v m="$3" 'function num(k) {
			if (!match($0, "\"" k "\":-?[0-9]+")) return -1
			return substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3) + 0 }
		{ t = num("ttft_ns"); a = num("ttfa_ns"); e = num("e2e_ns"); n = num("output_tokens")
		  if (m == "tpot" && t >= 0 && n >= 2 && e > t) printf "%.17g\n", (e - t) / 1e6 / (n - 1)
		  if (m == "ttfa" && a >= 0) printf "%.17g\n", a / 1e6 }' |
	sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) printf "%.1f", v[(NR + 1) / 2] }'
}

# The text header lines of the sweep table in file $1.
headers() {
	grep -c '^ *C  Agg tok/s ' "$1"
}

tb record synth -n 8 --input-tokens 16 --output-tokens 12 --seed 1 -o "$WORK/chat.jsonl.gz" 2>/dev/null

# Without reasoning: 12 tokens 5 ms apart, TPOT about 5 ms, no TTFA column.
start_mock --ttft-ms 20 --itl-ms 5
tb replay --endpoint "$ENDPOINT" -c 1,2 -n 5 --label plain -o "$WORK/plain.jsonl.gz" \
	"$WORK/chat.jsonl.gz" >"$WORK/plain.txt" 2>/dev/null
check "the live table has P50 TPOT after Ok, then the TTFT percentiles" \
	grep -q ' Ok  P50 TPOT (ms)  P50 TTFT (ms)  P95 TTFT (ms)  P99 TTFT (ms)  Err ' "$WORK/plain.txt"
check "no request reasoned: no TTFA column" sh -c "! grep -q 'TTFA' '$WORK/plain.txt'"
for c in 1 2; do
	want=$(med "$WORK/plain.jsonl.gz" $c tpot)
	got=$(table_cell "$WORK/plain.txt" $c "P50 TPOT (ms)")
	check "C=$c: live P50 TPOT '$got' ms is the median of its requests' TPOT ('$want' ms)" \
		test -n "$want" -a "$got" = "$want"
	check "C=$c: ... and near the mock's 5 ms gap$UPPER_NOTE" within_time "$got" 4.5 6 1000
done
tb analyze load --db "$WORK/d.db" "$WORK/plain.jsonl.gz" 2>/dev/null
tb analyze report --db "$WORK/d.db" --run plain >"$WORK/plain-report.txt"
check "the report's rows are the live rows, P50 TPOT included" \
	sh -c "grep '^ *[12]  *[0-9]' '$WORK/plain.txt' >'$WORK/a' && sed '/^the host replay ran on/,\$d' '$WORK/plain-report.txt' | grep '^ *[12]  *[0-9]' >'$WORK/b' && cmp -s '$WORK/a' '$WORK/b'"
check "the report has no TTFA column either" sh -c "! grep -q 'P50 TTFA' '$WORK/plain-report.txt'"
stop_mock

# Reasoning: the first 4 of the 12 tokens are reasoning, so the answer
# starts 4 gaps after the first token, at 20 + 4 x 5 = 40 ms or later.
start_mock --ttft-ms 20 --itl-ms 5 --reasoning-tokens 4
tb replay --endpoint "$ENDPOINT" -c 1,2 -n 5 --label reasoning -o "$WORK/reason.jsonl.gz" \
	"$WORK/chat.jsonl.gz" >"$WORK/reason.txt" 2>/dev/null
check "reasoning: the live table has P50 TTFA between P50 TPOT and P50 TTFT, under one header" \
	sh -c "grep -q ' Ok  P50 TPOT (ms)  P50 TTFA (ms)  P50 TTFT (ms)  P95 TTFT (ms) ' '$WORK/reason.txt' &&
		test $(headers "$WORK/reason.txt") -eq 1"
for c in 1 2; do
	want=$(med "$WORK/reason.jsonl.gz" $c ttfa)
	got=$(table_cell "$WORK/reason.txt" $c "P50 TTFA (ms)")
	ttft=$(table_cell "$WORK/reason.txt" $c "P50 TTFT (ms)")
	check "C=$c: live P50 TTFA '$got' ms is the median of its requests' TTFA ('$want' ms)" \
		test -n "$want" -a "$got" = "$want"
	check "C=$c: ... at least 40 ms, after the P50 TTFT ($ttft ms)" \
		awk -v a="$got" -v t="$ttft" 'BEGIN { exit !(a >= 40 && a > t) }'
done
# --workers: the parent prints one table of the merged results, its
# columns decided by all levels.
tb replay --endpoint "$ENDPOINT" -c 2,4 -n 5 --workers 2 --label workers -o "$WORK/workers.jsonl.gz" \
	"$WORK/chat.jsonl.gz" >"$WORK/workers.txt" 2>/dev/null
check "--workers 2: the merged table has P50 TTFA, the median of the requests' TTFA at C=4" \
	test -n "$(med "$WORK/workers.jsonl.gz" 4 ttfa)" -a \
	     "$(table_cell "$WORK/workers.txt" 4 "P50 TTFA (ms)")" = "$(med "$WORK/workers.jsonl.gz" 4 ttfa)"
tb analyze load --db "$WORK/d.db" "$WORK/reason.jsonl.gz" 2>/dev/null
tb analyze report --db "$WORK/d.db" --run reasoning >"$WORK/reason-report.txt"
check "the report's rows are the live rows, P50 TTFA included" \
	sh -c "grep '^ *[12]  *[0-9]' '$WORK/reason.txt' >'$WORK/a' && sed '/^the host replay ran on/,\$d' '$WORK/reason-report.txt' | grep '^ *[12]  *[0-9]' >'$WORK/b' && cmp -s '$WORK/a' '$WORK/b' && grep -q 'P50 TTFA (ms)' '$WORK/reason-report.txt'"
tb analyze report --db "$WORK/d.db" --format markdown >"$WORK/both.md"
check "Markdown: the plain run's table has no TTFA column, the reasoning run's has" \
	test "$(grep '^| C | Agg tok/s ' "$WORK/both.md" | grep -c 'P50 TTFA')" = 1 -a \
	     "$(grep -c '^| C | Agg tok/s ' "$WORK/both.md")" = 2
tb analyze report --db "$WORK/d.db" --format csv >"$WORK/both.csv"
check "CSV keeps its columns: p50_tpot_ms and p50_ttfa_ms once each" \
	test "$(head -n 1 "$WORK/both.csv" | tr ',' '\n' | grep -cx 'p50_tpot_ms\|p50_ttfa_ms')" = 2

# A later level the first to reason: the mock reasons in chat answers
# only, and the trace's first 4 requests are plain completions. C=1 sends
# those 4, C=4 sends 8: 4 completions and 4 chats.
tb record synth -n 4 --input-tokens 16 --output-tokens 12 --endpoint-kind completions \
	-o "$WORK/comp.jsonl.gz" 2>/dev/null
{ zcat "$WORK/comp.jsonl.gz"; zcat "$WORK/chat.jsonl.gz" | sed -n '2,5s/^{"id":/{"id":1/p'; } |
	gzip >"$WORK/mixed.jsonl.gz"
tb replay --endpoint "$ENDPOINT" -c 1,4 --warmup 0 --label mixed -o "$WORK/mixed-run.jsonl.gz" \
	"$WORK/mixed.jsonl.gz" >"$WORK/mixed.txt" 2>"$WORK/mixed.err"
check "mixed: C=1 did not reason: its row has no TTFA cell" \
	test -z "$(table_cell "$WORK/mixed.txt" 1 "P50 TTFA (ms)")" -a -n "$(table_cell "$WORK/mixed.txt" 1 "P50 TPOT (ms)")"
check "mixed: C=4 reasoned: the table starts again, after a blank line, under a header with TTFA" \
	awk '/^ *C  Agg tok\/s / { h++; if (h == 2 && prev == "" && /P50 TTFA/) again = NR; if (h == 1 && !/TTFA/) plain = 1 }
		again && NR == again + 1 && $1 == 4 { ok = 1 } { prev = $0 }
		END { exit !(h == 2 && plain && ok) }' "$WORK/mixed.txt"
check "mixed: C=4's P50 TTFA is past its P50 TTFT" \
	awk -v a="$(table_cell "$WORK/mixed.txt" 4 "P50 TTFA (ms)")" -v t="$(table_cell "$WORK/mixed.txt" 4 "P50 TTFT (ms)")" \
		'BEGIN { exit !(a > t) }'
tb analyze load --db "$WORK/d.db" "$WORK/mixed-run.jsonl.gz" 2>/dev/null
tb analyze report --db "$WORK/d.db" --run mixed >"$WORK/mixed-report.txt"
c1_ttft=$(table_cell "$WORK/mixed-report.txt" 1 "P50 TTFT (ms)")
check "mixed: the report decides from the whole run: C=1 has a TTFA cell too, its TTFT ($c1_ttft ms)" \
	test "$(headers "$WORK/mixed-report.txt")" -eq 1 -a -n "$c1_ttft" -a \
	     "$(table_cell "$WORK/mixed-report.txt" 1 "P50 TTFA (ms)")" = "$c1_ttft"
finish
