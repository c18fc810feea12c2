#!/bin/sh
# bench-files.sh - section 7 of make bench: what results files cost, with
# gzip -9 of the same JSON Lines as the reference.
#
# Size: replay writes a real results file of 100-token requests (mock:
# 50 ms TTFT, 10 ms per token, C = 200); bytes per request = file size ÷
# records, beside the uncompressed JSONL and gzip -9 of it.
# Write cost: build/bench/bench_write (tests/bench/bench_write.c) reads
# those records and writes N of them, going round, as replay writes each
# finished request (to JSON, append, flush once a second), and reports its
# CPU time; the reference is gzip -9 compressing the JSONL it wrote, CPU
# of the child from the shell's `times`. In turn, RUNS times; medians.

. "$(dirname "$0")/bench-lib.sh"

BW=${BENCH_WRITE:-build/bench/bench_write}
c=200 n=400 writes=20000
[ "$QUICK" = 1 ] && c=100 n=200 writes=5000

"$TB" record synth -n 64 --input-tokens 32 --output-tokens 100 -o "$W/trace.jsonl.gz" 2>/dev/null
start_mock --ttft-ms 50 --itl-ms 10
"$TB" replay --endpoint "$endpoint" -c $c -n $n --warmup 0 --quiet \
	-o "$W/r.jsonl.gz" "$W/trace.jsonl.gz" >/dev/null 2>"$W/err" || { cat "$W/err" >&2; exit 1; }
stop "$mock"

records=$(($(zcat "$W/r.jsonl.gz" | wc -l) - 1))
ours=$(wc -c <"$W/r.jsonl.gz")
plain=$(zcat "$W/r.jsonl.gz" | wc -c)
gz9=$(zcat "$W/r.jsonl.gz" | gzip -9 | wc -c)

# CPU seconds of the children of a shell that runs "$@" (POSIX `times`).
child_cpu() {
	sh -c '"$@" >/dev/null; times' sh "$@" | tail -1 |
		awk '{ n = 0; for (i = 1; i <= 2; i++) { split($i, t, "m"); n += t[1] * 60 + t[2] } print n }'
}

: >"$W/cost"
i=0
while [ $i -lt "$RUNS" ]; do
	out=$("$BW" "$W/r.jsonl.gz" "$W/w.jsonl.gz" $writes)
	zcat "$W/w.jsonl.gz" >"$W/w.jsonl"
	theirs=$(child_cpu gzip -9 -c "$W/w.jsonl")
	echo "$out" | awk -v g="$theirs" -v n=$writes '{ printf "%.2f %.2f\n", $4 * 1e6 / n, g * 1e6 / n }' >>"$W/cost"
	say "   round $((i + 1))/$RUNS: $(tail -1 "$W/cost")"
	i=$((i + 1))
done
w_us=$(awk '{ print $1 }' "$W/cost" | median)
g_us=$(awk '{ print $2 }' "$W/cost" | median)

echo "## 7. Results files"
echo
echo "A results file of $records requests of 100 tokens (replay at C = $c against the mock, 10 ms per"
echo "token), gzip-compressed JSON Lines as replay writes them (zlib level 6, flushed once a second),"
echo "against gzip -9 of the same JSON Lines. Write cost: CPU per record of $writes records written"
echo "as replay writes them (\`$BW\`, to JSON, compressed, flushed) against gzip -9's CPU"
echo "compressing the same JSON Lines; medians of $RUNS runs in turn."
echo
echo "| | tracebench | gzip -9 | ratio |"
echo "|:--|--:|--:|--:|"
awk -v o="$ours" -v g="$gz9" -v p="$plain" -v n="$records" 'BEGIN {
	printf "| bytes per request (JSONL %.0f) | %.0f | %.0f | %.2f |\n", p / n, o / n, g / n, o / g }'
awk -v w="$w_us" -v g="$g_us" 'BEGIN {
	printf "| CPU per request (µs) | %.1f | %.1f | %.2f |\n", w, g, (g > 0 ? w / g : 0) }'
echo
echo "tracebench's CPU includes turning each record into JSON; gzip -9 only compresses."
