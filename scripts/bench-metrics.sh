#!/bin/sh
# bench-metrics.sh - section 10 of make bench: what scraping the server's
# /metrics costs the replay's timing. Section 1's protocol (the mock: 50 ms
# TTFT, 10 ms per token, 100 tokens; replay at C=100, 500 requests), run
# without and with --metrics-url at 1 Hz, in turn (ABBA), RUNS pairs; the
# median TTFT - 50 ms of each run's requests after the first C (those on
# open connections), and its median over the runs of each kind.

. "$(dirname "$0")/bench-lib.sh"

C=100
N=500
[ "$QUICK" = 1 ] && N=200

"$TB" record synth -n 64 --input-tokens 32 --output-tokens 100 -o "$W/trace.jsonl.gz" 2>/dev/null
start_mock --ttft-ms 50 --itl-ms 10

# One replay; appends "KIND ttft_err_ms itl_p99_ms scrapes" to $W/runs.
run() {  # KIND [replay options]
	kind=$1
	shift
	rm -f "$W/r.jsonl.gz" "$W/r.db"
	"$TB" replay --endpoint "$endpoint" -c $C -n $N --warmup 0 --quiet "$@" \
		-o "$W/r.jsonl.gz" "$W/trace.jsonl.gz" >/dev/null 2>"$W/err" ||
		{ cat "$W/err" >&2; exit 1; }
	"$TB" analyze load --db "$W/r.db" "$W/r.jsonl.gz" 2>/dev/null
	"$TB" analyze export --db "$W/r.db" --format csv >"$W/req.csv"
	"$TB" analyze report --db "$W/r.db" --format csv >"$W/r.csv"
	err=$(awk -F, -v lo=$C 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
		$k["seq"] >= lo { print $k["ttft_ms"] - 50 }' "$W/req.csv" | median)
	scrapes=$(zcat "$W/r.jsonl.gz" | grep -c '"type":"metrics"' || true)
	echo "$kind $err $(csv_col "$W/r.csv" p99_itl_ms) $scrapes" >>"$W/runs"
}

: >"$W/runs"
i=0
while [ $i -lt "$RUNS" ]; do
	if [ $((i % 2)) -eq 0 ]; then
		run off
		run on --metrics-url "$endpoint/metrics" --metrics-interval 1s
	else
		run on --metrics-url "$endpoint/metrics" --metrics-interval 1s
		run off
	fi
	say "   round $((i + 1))/$RUNS"
	i=$((i + 1))
done

med() {  # KIND COL
	awk -v k="$1" -v c="$2" '$1 == k { print $c }' "$W/runs" | median |
		awk '{ printf "%.3f\n", $1 }'
}

echo "## 10. Scraping /metrics"
echo
echo "Section 1's protocol at C=$C ($N requests a run, the mock: 50 ms TTFT, 10 ms per token,"
echo "100 tokens), without and with \`--metrics-url URL/metrics --metrics-interval 1s\`, $RUNS runs"
echo "of each in turn (ABBA). TTFT error = median TTFT − 50 ms over the requests after the first"
echo "$C; medians over the runs. Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
echo "Goal: scraping moves the TTFT error by less than 0.1 ms."
echo
echo "| scraping | TTFT error (ms) | P99 inter-token gap (ms) | scrapes a run |"
echo "|:--|--:|--:|--:|"
echo "| off | $(med off 2) | $(med off 3) | $(med off 4 | cut -d. -f1) |"
echo "| 1 Hz | $(med on 2) | $(med on 3) | $(med on 4 | cut -d. -f1) |"
echo
echo "Difference (1 Hz − off): $(awk -v a="$(med on 2)" -v b="$(med off 2)" 'BEGIN { printf "%+.3f", a - b }') ms."
