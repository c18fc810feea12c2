#!/bin/sh
# bench-capacity.sh - section 9 of make bench: replay --find-capacity against
# the batching mock, whose capacity follows from its formula, searching the
# request rate (open loop, the default) and the concurrency (closed loop).
# Each search runs CAP_RUNS times (default 3); the table says how often the
# bracket held the formula's answer, and the requests and time a search
# spent (medians).
#
# The mock: --profile batching --slope 0.2 --ttft-ms 20 --itl-ms 2. A
# request arriving with m others in flight gets TTFT = 20 (1 + 0.2 m) ms.
# SLO: TTFT <= 83.5 ms, so m <= 15 (80 ms; m = 16 gives 84 ms).
#   closed loop, C in flight: C - 1 <= 15, capacity C = 16.
#   open loop, constant arrivals at r req/s, one output token (a request
#   ends at its first token): the requests in flight settle at the
#   smallest m with ceil(r (20 + 4m + delta) ms) - 1 <= m, delta what a
#   request spends past its TTFT before the mock counts it out; 15 or less
#   while ceil(r (80 + delta) ms) <= 16: capacity 16000 / (80 + delta)
#   req/s, 200 at delta = 0.
#   Poisson arrivals (the default) have no such closed form: bursts put
#   more in flight than the mean, so their capacity lies below 200.

. "$(dirname "$0")/bench-lib.sh"

# Three searches of each kind (one with QUICK=1): about 75 s a round.
CAP_RUNS=${CAP_RUNS:-3}
[ "$QUICK" = 1 ] && CAP_RUNS=1

load0=$(cut -d' ' -f1-3 /proc/loadavg)
"$TB" record synth -n 64 --input-tokens 16 --output-tokens 1 --seed 1 -o "$W/t1.jsonl.gz" 2>/dev/null
"$TB" record synth -n 64 --input-tokens 16 --output-tokens 3 --seed 1 -o "$W/t3.jsonl.gz" 2>/dev/null
start_mock --profile batching --slope 0.2 --ttft-ms 20 --itl-ms 2

# One search; appends "KIND pass fail probes requests seconds" to $W/runs
# and, for the first run of KIND, its probes in order to $W/KIND.probes.
search() {  # KIND TRACE BY [replay options]; BY "" (rate) or "=concurrency"
	kind=$1
	trace=$2
	by=$3
	shift 3
	rm -f "$W/r.jsonl.gz"
	"$TB" replay --endpoint "$endpoint" --find-capacity$by "$@" --slo ttft=83.5ms -q \
		-o "$W/r.jsonl.gz" "$trace" >/dev/null 2>"$W/err" || { cat "$W/err" >&2; exit 1; }
	line=$(grep 'capacity: .* meets the SLO, .* (\([0-9]*\) probes' "$W/err") ||
		{ cat "$W/err" >&2; exit 1; }
	echo "$line" | sed 's/.*capacity: C=\([0-9.]*\) meets the SLO, C=\([0-9.]*\) .*(\([0-9]*\) probes, \([0-9]*\) requests, \([0-9.]*\) s).*/\1 \2 \3 \4 \5/;
			    s/.*capacity: \([0-9.]*\) req\/s meets the SLO, \([0-9.]*\) req\/s .*(\([0-9]*\) probes, \([0-9]*\) requests, \([0-9.]*\) s).*/\1 \2 \3 \4 \5/' |
		sed "s/^/$kind /" >>"$W/runs"
	[ -s "$W/$kind.probes" ] ||
		sed -n 's/.*capacity: \(C=\)\{0,1\}\([0-9.]*\)\( req\/s\)\{0,1\}: .*: \(meets\|below\|undecided\).*/\2 \4/p' "$W/err" |
		awk '{ printf "%s%s%s", (NR > 1 ? " " : ""), $1, ($2 == "meets" ? "" : "✗") } END { print "" }' >"$W/$kind.probes"
	say "   $kind: $(tail -1 "$W/runs")"
}

: >"$W/runs"
i=0
while [ $i -lt "$CAP_RUNS" ]; do
	search rate "$W/t1.jsonl.gz" "" --arrival constant --capacity-range 25:1000
	search rate0 "$W/t1.jsonl.gz" "" --arrival constant --capacity-range 25:1000 --capacity-tolerance 0
	search poisson "$W/t1.jsonl.gz" "" --capacity-range 25:1000
	search conc "$W/t3.jsonl.gz" =concurrency
	say "   round $((i + 1))/$CAP_RUNS"
	i=$((i + 1))
done

med() {  # KIND COL
	awk -v k="$1" -v c="$2" '$1 == k { print $c }' "$W/runs" | median
}
# The brackets KIND found, each once with its count; with "delta", each
# with the overhead it implies (capacity 16000 / (80 + delta) req/s).
found() {  # KIND UNIT [delta]
	awk -v k="$1" '$1 == k { n[$2 " " $3]++ } END { for (b in n) print b, n[b] }' "$W/runs" |
		sort -n | awk -v u="$2" -v d="${3:-}" '{
			printf "%s[%s, %s)%s%s", (NR > 1 ? ", " : ""), $1, $2, u, ($3 > 1 ? " ×" $3 : "")
			if (d != "") {
				hi = 16000 / $1 - 80; lo = 16000 / $2 - 80
				printf " (δ %.2f..%.2f ms)", (lo < 0 ? 0 : lo), hi
			}
		} END { print "" }'
}
# KIND ANSWER [le]: searches whose bracket holds the answer, pass <= ANSWER
# < fail; with "le", an upper bound: pass <= ANSWER (a rate's capacity at
# delta = 0)
held() {
	awk -v k="$1" -v x="$2" -v le="${3:-}" '$1 == k { n++; if ($2 <= x && (le != "" || x < $3)) h++ }
		END { printf "%d of %d\n", h, n }' "$W/runs"
}
row() {  # KIND LABEL ANSWER HELD UNIT [delta]
	printf "| %s | %s | %s | %s | %s | %.0f | %.0f | %.1f |\n" "$2" "$(cat "$W/$1.probes")" \
		"$(found "$1" "$5" "${6:-}")" "$3" "$4" "$(med "$1" 4)" "$(med "$1" 5)" "$(med "$1" 6)"
}

echo "## 9. Capacity search"
echo
echo "\`replay --find-capacity\` against \`mock --profile batching --slope 0.2 --ttft-ms 20"
echo "--itl-ms 2\`, SLO \`ttft=83.5ms\`, the defaults otherwise (95% of requests within it, 95%"
echo "confidence, at most 400 requests a probe), $CAP_RUNS searches of each kind. A request that"
echo "arrives with m others in flight gets a TTFT of 20 (1 + 0.2 m) ms, so the SLO holds while"
echo "m ≤ 15 (80 ms; m = 16 gives 84 ms)."
echo
echo "- **Closed loop** (\`--find-capacity=concurrency\`, 3 output tokens): C in flight, capacity C = 16."
echo "- **Open loop, constant arrivals** (\`--find-capacity --arrival constant\`, 1 output token, so"
echo "  a request ends at its first token): the requests in flight settle at the smallest m with"
echo "  ⌈r (20 + 4m + δ) ms⌉ − 1 ≤ m, where δ is what a request spends past its TTFT before the mock"
echo "  counts it out (its last event, the loopback, the timers). That m is 15 or less while"
echo "  ⌈r (80 + δ) ms⌉ ≤ 16: capacity 16000 / (80 + δ) req/s, **200 req/s at δ = 0**, the supremum"
echo "  (at 200 itself the sixteenth request back ends just as the next arrives). Each bracket"
echo "  [p, f) found says δ lies in (16000/f − 80, 16000/p − 80]."
echo "- **Open loop, Poisson arrivals** (the default): no closed form; bursts put more in flight than"
echo "  the mean, so the answer lies lower."
echo
echo "Rate searches start at 25 req/s (\`--capacity-range 25:1000\`); a look is 2 s of arrivals (at"
echo "least 20 requests). Probes in the order searched, from the first search of each kind (✗: did"
echo "not meet the SLO); probes, requests and seconds are medians over the searches. Load average"
echo "at the start: $load0; at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| search | probes (first search) | brackets found | answer | bracket holds it | probes | requests | time (s) |"
echo "|:--|:--|:--|--:|--:|--:|--:|--:|"
row rate "rate, constant arrivals, tolerance 0.1 (default)" "≤ 200 req/s" "$(held rate 200 le)" " req/s" delta
row rate0 "rate, constant arrivals, tolerance 0 (1%)" "≤ 200 req/s" "$(held rate0 200 le)" " req/s" delta
row poisson "rate, Poisson arrivals (default), tolerance 0.1" "below the above" - " req/s"
row conc "concurrency, tolerance 0.1 (default: ±1 here)" "C = 16" "$(held conc 16)" ""
echo
echo "Commands: \`tracebench replay -e URL --find-capacity --slo ttft=83.5ms --arrival constant"
echo "--capacity-range 25:1000 -o cap.jsonl.gz trace.jsonl.gz\` (64 requests of 16 prompt tokens"
echo "and 1 output token), and \`--find-capacity=concurrency\` on a trace of 3 output tokens."
echo "Load on the machine only adds latency (a larger δ), so a bracket may land lower than the"
echo "formula, never higher."
