#!/bin/sh
# bench-verdicts.sh - section 11 of make bench: compare's verdicts against
# a mock that is noisy the way servers are (mock --noise default: a speed
# that drifts over tens of seconds to minutes and is shared by every mock
# on the host, per-request jitter with a heavy tail, stalls).
#
# Each round replays, against the noisy mock (and, for A/B runs, a twin
# of it with another --seed: two "identical" servers on one host):
#
#   one run a side    the same server twice, one run each;
#   --repeat 3        the same, three repeats a side;
#   A/B, one run      replay -e server -e twin, one block;
#   A/B, --repeat 3   the same, three blocks;
#   20% slower        A/B --repeat 3 against a server 25% slower in every
#                     time it keeps (aggregate tok/s -20%);
#   TPOT +10%         A/B --repeat 3 against a server 10% slower per token,
#
# eight waves a level (-n 8x: 32 requests at C=4, 128 at C=16; an A/B run's
# side runs each block's level in two halves of four waves, A B B A),
# and every pair is compared with `analyze compare --fail-on-regression 5`
# from one database: the runs without blocks take their run-to-run noise
# from the other runs of their experiment (the history), as a user who
# keeps a few baseline runs would give it.
#
#   PAIRS  pairs of each kind (default 20; 4 when QUICK=1)
#   KEEP   a folder to copy the replays' results files to, so that another
#          build of analyze can judge the same replays again
#   FROM   such a folder: judge its replays instead of replaying (PAIRS must
#          not exceed the pairs it holds)

. "$(dirname "$0")/bench-lib.sh"

PAIRS=${PAIRS:-20}
[ "$QUICK" = 1 ] && PAIRS=${PAIRS_QUICK:-4}
LEVELS=4,16
N=8x
MOCK="--noise default --ttft-ms 50 --itl-ms 5"

# One replay: NAME ENDPOINT REPEAT -> $W/runs/NAME.jsonl.gz
replay() {
	"$TB" replay --endpoint "$2" -c $LEVELS -n $N --repeat "$3" --quiet --label "$1" \
		-o "$W/runs/$1.jsonl.gz" "$W/trace.jsonl.gz" >/dev/null 2>"$W/replay.err" ||
		{ cat "$W/replay.err" >&2; exit 1; }
}

# An A/B replay: NAME ENDPOINT_A ENDPOINT_B REPEAT SEED -> runs NAME-a, NAME-b.
replay_ab() {
	"$TB" replay --endpoint "$2" --endpoint "$3" -c $LEVELS -n $N --repeat "$4" --quiet \
		--seed "$5" --label-a "$1-a" --label-b "$1-b" -o "$W/runs/$1-a.jsonl.gz" \
		-o "$W/runs/$1-b.jsonl.gz" "$W/trace.jsonl.gz" >/dev/null 2>"$W/replay.err" ||
		{ cat "$W/replay.err" >&2; exit 1; }
}

if [ -n "${FROM:-}" ]; then
	mkdir "$W/runs"
	cp "$FROM"/*.jsonl.gz "$W/runs/"
	replay_s=""
else
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
	start_mock --noise default --ttft-ms 50 --itl-ms 5.5 --seed 4
	ep_tpot=$endpoint

	mkdir "$W/runs"

	t0=$(now)
	i=1
	while [ $i -le "$PAIRS" ]; do
		replay "o$i-a" "$ep_base" 1
		replay "o$i-b" "$ep_base" 1
		replay "r$i-a" "$ep_base" 3
		replay "r$i-b" "$ep_base" 3
		replay_ab "x$i" "$ep_base" "$ep_twin" 1 $i
		replay_ab "y$i" "$ep_base" "$ep_twin" 3 $i
		replay_ab "s$i" "$ep_base" "$ep_slow" 3 $i
		replay_ab "t$i" "$ep_base" "$ep_tpot" 3 $i
		say "   round $i/$PAIRS"
		i=$((i + 1))
	done
	replay_s=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')
	[ -z "${KEEP:-}" ] || { mkdir -p "$KEEP" && cp "$W"/runs/*.jsonl.gz "$KEEP"/; }
fi

"$TB" analyze load --db "$W/v.db" "$W"/runs/*.jsonl.gz >/dev/null 2>"$W/load.err" ||
	{ cat "$W/load.err" >&2; exit 1; }

# Compares BEFORE AFTER and appends, per row, "KIND PAIR C metric stat
# verdict noise" to $W/rows and "KIND rc" to $W/gates.
judge() {  # KIND PAIR BEFORE AFTER
	rc=0
	"$TB" analyze compare --db "$W/v.db" --format csv --fail-on-regression 5 "$3" "$4" \
		>"$W/c.csv" 2>"$W/c.err" || rc=$?
	[ $rc -le 1 ] || { cat "$W/c.err" >&2; exit 1; }
	echo "$1 $rc" >>"$W/gates"
	awk -F, -v k="$1" -v p="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ m = $c["metric"]; sub(/ /, "_", m); s = $c["stat"] == "" ? "-" : $c["stat"]
		  print k, p, $c["concurrency"], m, s, $c["verdict"], $c["noise"] }' "$W/c.csv" >>"$W/rows"
}

: >"$W/rows"
: >"$W/gates"
i=1
while [ $i -le "$PAIRS" ]; do
	judge one $i "o$i-a" "o$i-b"
	judge rep3 $i "r$i-a" "r$i-b"
	judge ab1 $i "x$i-a" "x$i-b"
	judge ab3 $i "y$i-a" "y$i-b"
	judge slow $i "s$i-a" "s$i-b"
	judge tpot $i "t$i-a" "t$i-b"
	i=$((i + 1))
done

# Cell of KIND C METRIC STAT: with VERDICT, how many pairs had it; else
# "wrong / inconclusive": faster or slower, and inconclusive.
count() {  # KIND C METRIC STAT [VERDICT]
	awk -v k="$1" -v c="$2" -v mt="$3" -v s="$4" -v want="${5:-}" '
		$1 == k && $3 == c && $4 == mt && $5 == s { n[$6]++; seen++ }
		END {
			if (!seen) { print "-"; exit }
			if (want != "") { print n[want] + 0; exit }
			if (n["n/a"] == seen) { print "n/a"; exit }
			printf "%d / %d\n", n["faster"] + n["slower"], n["inconclusive"] }' "$W/rows"
}

# The largest count of wrong verdicts of one metric and level, over KINDS.
worst() {  # KINDS
	awk -v k="^($1)\$" '$1 ~ k && ($6 == "faster" || $6 == "slower") { n[$1 " " $3 " " $4 " " $5]++ }
		END { m = 0; for (x in n) if (n[x] > m) m = n[x]; print m }' "$W/rows"
}

gates() {  # KIND
	awk -v k="$1" '$1 == k { n++; f += $2 == 1 } END { printf "%d of %d\n", f, n }' "$W/gates"
}

# Where the noise came from, for KIND: "history 40" ...
sources() {  # KIND
	awk -v k="$1" '$1 == k && $6 != "n/a" { n[$7]++ } END { for (s in n) printf "%s%s %d", sep, s, n[s]; sep = ", " }' "$W/rows"
}

stats="P50 P90 P95 P99"
metrics="TTFT TPOT ITL E2E"

echo "## 11. verdicts on a noisy mock"
echo
echo "Real replays of \`mock $MOCK\` (seed 1; its twin for A/B runs: seed 2), a 64-request synthetic"
echo "trace of 10 to 30 output tokens, C=4 and C=16, -n $N (C=4: 32 requests, C=16: 128), $PAIRS pairs of each kind, every"
echo "pair compared with \`analyze compare --fail-on-regression 5\` from one database (pairs without"
echo "blocks take their run-to-run noise from the other runs of their experiment). Load average at the"
echo "end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores."
echo "Goal: at most 1 wrong verdict (\`faster\`/\`slower\`) per metric in 20 unchanged pairs and the 5%"
echo "gate failing at most 1 of 20, for every kind; A/B \`--repeat 3\` sees a 20% throughput loss and a"
echo "10% TPOT increase in at least 19 of 20 pairs."
echo
echo "### Unchanged server"
echo
echo "Cells: wrong verdicts / \`inconclusive\` in $PAIRS pairs; the rest \`same\` (or \`n/a\`: too few requests)."
echo
printf "| kind | C |"
for mt in $metrics; do for st in $stats; do printf " %s %s |" "$mt" "$st"; done; done
echo " Agg tok/s | gate exit 1 | noise from |"
printf "|:--|--:|"
for mt in $metrics; do for st in $stats; do printf "%s" "--:|"; done; done
echo "--:|--:|:--|"
for kind in one rep3 ab1 ab3; do
	case $kind in
	one) name="one run a side" ;; rep3) name="--repeat 3" ;;
	ab1) name="A/B, one run" ;; *) name="A/B, --repeat 3" ;;
	esac
	for c in 4 16; do
		printf "| %s | %s |" "$name" "$c"
		for mt in $metrics; do for st in $stats; do printf " %s |" "$(count $kind $c "$mt" "$st")"; done; done
		printf " %s |" "$(count $kind $c Agg_tok/s -)"
		echo " $(gates $kind) | $(sources $kind) |"
	done
done
echo
echo "Most wrong verdicts of one metric at one level, over all unchanged kinds: $(worst 'one|rep3|ab1|ab3') of $PAIRS."
echo
echo "### A real change, A/B"
echo
echo "Cells: verdicts \`slower\` in $PAIRS pairs (for Agg tok/s: its drop)."
echo
printf "| change | blocks | C | TTFT P50 | TPOT P50 | ITL P50 | E2E P50 | Agg tok/s | gate exit 1 |\n"
printf "|:--|--:|--:|--:|--:|--:|--:|--:|--:|\n"
for kind in slow tpot; do
	case $kind in
	slow) name="every time x1.25 (tok/s -20%)" blocks=3 ;;
	*) name="per token x1.1 (TPOT +10%)" blocks=3 ;;
	esac
	for c in 4 16; do
		printf "| %s | %s | %s |" "$name" "$blocks" "$c"
		for mt in TTFT TPOT ITL E2E; do printf " %s |" "$(count $kind $c "$mt" P50 slower)"; done
		printf " %s |" "$(count $kind $c Agg_tok/s - slower)"
		echo " $(gates $kind) |"
	done
done
echo
if [ -n "$replay_s" ]; then
	echo "Replays took ${replay_s} s ($((PAIRS * 4)) replays and $((PAIRS * 4)) A/B replays)."
else
	echo "Judged again from replays kept by an earlier run (FROM)."
fi
