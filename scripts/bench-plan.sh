#!/bin/sh
# bench-plan.sh - section 13 of make bench: does following `analyze plan`
# see the change it was asked about, on a mock noisy the way servers are?
#
# 1. An A/A calibration: replay -e server -e twin --repeat 5 at C=4 (the
#    noisy mock and its twin, as in section 11), and `analyze plan
#    --effect 20 --metric tok_s` on it: the blocks K an A/B run needs to
#    see a 20% throughput loss in 90% of pairs.
# 2. PAIRS A/B runs of K blocks against a server 25% slower in every time
#    it keeps (aggregate tok/s -20%): how many see it (`slower`).
# 3. PAIRS A/B runs of K blocks against the twin: how many call the
#    unchanged server faster or slower.
#
#   PAIRS  pairs of each kind (default 20; 4 when QUICK=1)

. "$(dirname "$0")/bench-lib.sh"

PAIRS=${PAIRS:-20}
[ "$QUICK" = 1 ] && PAIRS=${PAIRS_QUICK:-4}
N=32
EFFECT=20
MOCK="--noise default --ttft-ms 50 --itl-ms 5"

"$TB" record synth -n 64 --input-tokens 32 --output-tokens uniform:10:30 -o "$W/trace.jsonl.gz" \
	2>/dev/null
# shellcheck disable=SC2086
start_mock $MOCK --seed 1
ep_base=$endpoint
# shellcheck disable=SC2086
start_mock $MOCK --seed 2
ep_twin=$endpoint
start_mock --noise default --ttft-ms 62.5 --itl-ms 6.25 --seed 3
ep_slow=$endpoint

# An A/B replay at C=4: NAME ENDPOINT_B BLOCKS SEED -> runs NAME-a, NAME-b, loaded.
replay_ab() {
	"$TB" replay --endpoint "$ep_base" --endpoint "$2" -c 4 -n $N --repeat "$3" --quiet \
		--seed "$4" --label-a "$1-a" --label-b "$1-b" -o "$W/$1-a.jsonl.gz" \
		-o "$W/$1-b.jsonl.gz" "$W/trace.jsonl.gz" >/dev/null 2>"$W/replay.err" ||
		{ cat "$W/replay.err" >&2; exit 1; }
	"$TB" analyze load --db "$W/p.db" "$W/$1-a.jsonl.gz" "$W/$1-b.jsonl.gz" >/dev/null 2>&1
}

# The verdict on aggregate tok/s of pair NAME.
verdict() {  # NAME
	"$TB" analyze compare --db "$W/p.db" --format csv "$1-a" "$1-b" 2>/dev/null |
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["metric"] == "Agg tok/s" { print $c["verdict"] }'
}

t0=$(now)
replay_ab cal "$ep_twin" 5 1
"$TB" analyze plan --db "$W/p.db" --effect $EFFECT --metric tok_s --format csv cal-a cal-b \
	>"$W/plan.csv"
sd=$(csv_col "$W/plan.csv" noise_sd_pct)
k=$(csv_col "$W/plan.csv" blocks_needed)
[ -n "$k" ] || { say "plan gave no block count:"; cat "$W/plan.csv" >&2; exit 1; }
say "   plan: $k blocks (block SD $sd%)"

seen=0 false=0 i=1
while [ $i -le "$PAIRS" ]; do
	replay_ab "s$i" "$ep_slow" "$k" $((i + 100))
	[ "$(verdict "s$i")" = slower ] && seen=$((seen + 1))
	replay_ab "a$i" "$ep_twin" "$k" $((i + 200))
	case $(verdict "a$i") in faster|slower) false=$((false + 1)) ;; esac
	say "   pair $i/$PAIRS"
	i=$((i + 1))
done
span_s=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')

echo "## 13. Following analyze plan"
echo
echo "Against \`mock $MOCK\` (seed 1; its twin: seed 2) at C=4, $N requests a block side: an A/A"
echo "calibration run of 5 blocks, then \`analyze plan --effect $EFFECT --metric tok_s\` on it, then"
echo "$PAIRS A/B runs of the blocks it asked for against a server 25% slower in every time it keeps"
echo "(aggregate tok/s -20%) and $PAIRS against the unchanged twin, each compared on aggregate tok/s."
echo "Goal: the change seen in at least 90% of pairs (the plan's power), at most 1 wrong verdict"
echo "in $PAIRS unchanged pairs."
echo
echo "| plan (block SD of tok/s) | blocks | 20% loss seen | unchanged called changed |"
echo "|:--|--:|--:|--:|"
echo "| $sd% | $k | $seen of $PAIRS | $false of $PAIRS |"
echo
echo "Replays took ${span_s} s. Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
