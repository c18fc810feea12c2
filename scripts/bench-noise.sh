#!/bin/sh
# bench-noise.sh - section 12 of make bench: how noisy `mock --noise` is,
# measured as analyze compare sees a server: the spread of a run's
# aggregate tok/s from run to run (runs spread over minutes), against the
# spread of the repeats inside one run (adjacent, a second or two apart),
# and the spread of P99 TTFT.
#
# A real llama.cpp server on a shared 2-core host gave a run-to-run SD of
# 9-12% (16 sequential runs) and repeats inside a run 3.4 times tighter;
# `--noise default` is tuned to look like that (docs/DESIGN.md, "The noisy
# mock"). Prints Markdown on stdout, progress on stderr:
#
#   sh scripts/bench-noise.sh
#   NOISE=drift=5%,jitter=5% NOISE_RUNS=8 sh scripts/bench-noise.sh
#
#   NOISE       the --noise spec (default: default)
#   NOISE_RUNS  runs (default 16; 6 when QUICK=1)
#   NOISE_GAP   seconds between runs (default 4: 16 runs in about 2 min)
#
# Each run: replay -c 4 -n 32 --repeat 3 of a synthetic trace (10-30
# tokens out) against a mock --ttft-ms 50 --itl-ms 5; a repeat takes about
# a second.

. "$(dirname "$0")/bench-lib.sh"

NOISE=${NOISE:-default}
NOISE_RUNS=${NOISE_RUNS:-16}
[ "$QUICK" = 1 ] && NOISE_RUNS=${NOISE_RUNS_QUICK:-6}
NOISE_GAP=${NOISE_GAP:-4}

"$TB" record synth -n 64 --input-tokens 32 --output-tokens uniform:10:30 -o "$W/trace.jsonl.gz" \
	2>/dev/null
start_mock --noise "$NOISE" --ttft-ms 50 --itl-ms 5 --seed 1

t0=$(now)
i=1
while [ "$i" -le "$NOISE_RUNS" ]; do
	[ "$i" -gt 1 ] && sleep "$NOISE_GAP"
	"$TB" replay --endpoint "$endpoint" -c 4 -n 32 --repeat 3 --quiet --label "run$i" \
		-o "$W/run$i.jsonl.gz" "$W/trace.jsonl.gz" >/dev/null 2>"$W/replay.err" ||
		{ cat "$W/replay.err" >&2; exit 1; }
	say "   run $i/$NOISE_RUNS"
	i=$((i + 1))
done
span_s=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')
"$TB" analyze load --db "$W/n.db" "$W"/run*.jsonl.gz >/dev/null 2>&1
"$TB" analyze report --db "$W/n.db" --format csv >"$W/report.csv"

# Relative SD (%) of the numbers on stdin.
rel_sd() {
	awk '{ v[NR] = $1; s += $1 } END {
		if (NR < 2) { print "n/a"; exit }
		m = s / NR; for (i = 1; i <= NR; i++) q += (v[i] - m) ^ 2
		printf "%.1f\n", 100 * sqrt(q / (NR - 1)) / m }'
}

between=$(csv_col "$W/report.csv" agg_tok_s | rel_sd)
p99=$(csv_col "$W/report.csv" p99_ttft_ms | rel_sd)
p99_lo=$(csv_col "$W/report.csv" p99_ttft_ms | sort -n | head -n 1)
p99_hi=$(csv_col "$W/report.csv" p99_ttft_ms | sort -n | tail -n 1)
mean=$(csv_col "$W/report.csv" agg_tok_s | awk '{ s += $1 } END { printf "%.0f", s / NR }')
# Each repeat's aggregate tok/s (tokens / first start to last end, as
# lib/metric.c counts it); the within-run SD pools each run's relative
# variance over its repeats.
sqlite3 -separator ' ' "$W/n.db" "SELECT run, repeat,
	SUM(CASE WHEN error IS NULL OR error = '' THEN output_tokens ELSE 0 END) * 1000.0 /
	(MAX(sched_ms + e2e_ms) - MIN(sched_ms)) FROM v_requests WHERE warmup = 0
	GROUP BY run, repeat" >"$W/repeats"
within=$(awk '{ n[$1]++; s[$1] += $3; v[$1 " " n[$1]] = $3 }
	END { for (r in n) { m = s[r] / n[r]; q = 0
		for (i = 1; i <= n[r]; i++) q += ((v[r " " i] - m) / m) ^ 2
		tot += q; df += n[r] - 1 }
	      printf "%.1f\n", df ? 100 * sqrt(tot / df) : 0 }' "$W/repeats")
ratio=$(awk -v a="$between" -v b="$within" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "n/a" }')

echo "## 12. The noisy mock"
echo
echo "Against \`mock --noise $NOISE --ttft-ms 50 --itl-ms 5\`: $NOISE_RUNS runs of"
echo "\`replay -c 4 -n 32 --repeat 3\` over ${span_s} s (a run's repeats a second or"
echo "two apart, runs ${NOISE_GAP} s apart), mean $mean tok/s; a real llama.cpp server on a"
echo "shared 2-core host: 9-12% between runs, 3.4x tighter within."
echo
echo "| spread | SD |"
echo "|---|---:|"
echo "| aggregate tok/s, run to run | $between% |"
echo "| aggregate tok/s, repeats within a run (pooled) | $within% |"
echo "| ratio | ${ratio}x |"
echo "| P99 TTFT, run to run | $p99% ($p99_lo - $p99_hi ms) |"
