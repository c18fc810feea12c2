#!/bin/sh
# bench-open.sh - section 2 of make bench: open-loop accuracy. replay
# sends 1-token requests at a constant rate to the mock (1 ms TTFT); the
# reference is the schedule itself: achieved ÷ target rate, and the send
# lag (actual send - scheduled time) P50/P99, from replay's own summary.
#
# The highest rate the mock sustains is found first by doubling from 1000
# req/s until achieved/target < 0.99, send lag P99 > 1 ms or an error;
# then 100, 1000 and that rate run in turn, RUNS rounds, about 2 s each
# (1 s with QUICK=1); medians.

. "$(dirname "$0")/bench-lib.sh"

secs=2
[ "$QUICK" = 1 ] && secs=1

"$TB" record synth -n 64 --input-tokens 8 --output-tokens 1 -o "$W/short.jsonl.gz" 2>/dev/null
start_mock --ttft-ms 1 --itl-ms 1

# One open-loop run at RATE; prints "rate achieved/target lag_p50 lag_p99 errors".
run_rate() {  # RATE
	rm -f "$W/o.jsonl.gz"
	"$TB" replay --endpoint "$endpoint" --rate "$1" -n $(($1 * secs)) --warmup 0 --quiet \
		--format csv -o "$W/o.jsonl.gz" "$W/short.jsonl.gz" >"$W/o.csv" 2>"$W/err" || true
	sed -n 's/.*target \([0-9.]*\) req\/s, scheduled [0-9.]* req\/s, achieved \([0-9.]*\) req\/s; send lag P50 \([0-9.]*\) ms, P99 \([0-9.]*\) ms.*/\1 \2 \3 \4/p' "$W/err" |
		awk -v r="$1" -v e="$(csv_col "$W/o.csv" errors)" '{ printf "%s %.4f %s %s %s\n", r, $2 / $1, $3, $4, e == "" ? "?" : e }
			END { if (NR == 0) print r, 0, "-", "-", "?" }'
}

sustained() {  # "rate ratio p50 p99 errors"
	echo "$1" | awk '{ exit !($2 >= 0.99 && $4 != "-" && $4 <= 1 && $5 == "0") }'
}

say "   searching the highest rate"
top=1000
trail=""
rate=2000
while :; do
	r=$(run_rate $rate)
	say "   $r"
	if sustained "$r"; then
		trail="$trail $rate ✓,"
		top=$rate
		rate=$((rate * 2))
		[ $rate -gt 1024000 ] && break
	else
		trail="$trail $rate ✗ ($(echo "$r" | awk '{ printf "achieved/target %s, lag P99 %s ms, %s errors", $2, $4, $5 }'))"
		break
	fi
done

rates="100 1000"
[ $top -gt 1000 ] && rates="$rates $top"
: >"$W/open"
i=0
while [ $i -lt "$RUNS" ]; do
	for rate in $rates; do
		run_rate "$rate" >>"$W/open"
	done
	say "   round $((i + 1))/$RUNS"
	i=$((i + 1))
done

echo "## 2. Open-loop accuracy"
echo
echo "1-token requests at a constant rate for about $secs s, the mock answering in 1 ms. Goal: achieved"
echo "within 1% of the target rate and send lag (actual − scheduled send) P99 ≤ 1 ms. The highest rate"
echo "sustained was found by doubling from 1000 req/s:$trail."
echo "Medians of $RUNS rounds, the rates in turn."
echo
echo "| target (req/s) | achieved ÷ target | send lag P50 (ms) | send lag P99 (ms) | errors, all rounds |"
echo "|--:|--:|--:|--:|--:|"
for rate in $rates; do
	label=$rate; [ "$rate" = "$top" ] && [ $top -gt 1000 ] && label="$rate (highest sustained)"
	printf "| %s | %s | %s | %s | %s |\n" "$label" \
		"$(awk -v r="$rate" '$1 == r { print $2 }' "$W/open" | median)" \
		"$(awk -v r="$rate" '$1 == r && $3 != "-" { print $3 }' "$W/open" | median)" \
		"$(awk -v r="$rate" '$1 == r && $4 != "-" { print $4 }' "$W/open" | median)" \
		"$(awk -v r="$rate" '$1 == r { s += $5 } END { print s }' "$W/open")"
done
