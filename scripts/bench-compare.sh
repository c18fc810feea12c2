#!/bin/sh
# bench-compare.sh - section 8 of make bench: are compare's verdicts
# quiet on an unchanged server, and do they see a real 5% change?
#
# Real replays of the mock, levels C=4 and C=16 at replay's default
# request count (2 x C a run), each pair compared with
# `analyze compare --fail-on-regression 5`:
#
#   false alarms  two replays of one unchanged mock, flat profile and
#                 --profile batching: verdicts that are not "same", and
#                 how often the gate exits 1;
#   power         the mock against one 5% slower: --ttft-ms 50 against
#                 52.5, and --itl-ms 10 against 10.5: how often it says
#                 "slower";
#
# each without repeats and with --repeat 3 a side. The replays of a round
# run in turn, the order reversed every other round (ABBA), so slow drift
# of the machine falls on both sides of the pairs on average - but not on
# each pair: that is what an A/B run (replay with two endpoints,
# interleaved level by level and repeat by repeat) is for, measured last,
# unchanged and TTFT-shifted, with --repeat 3. The same intervals are read
# against --min-effect 1, 2, 3 and 5, the figures the default was chosen
# from.
#
#   PAIRS  pairs of each kind (default 20; 3 when QUICK=1)

. "$(dirname "$0")/bench-lib.sh"

PAIRS=${PAIRS:-20}
[ "$QUICK" = 1 ] && PAIRS=${PAIRS_QUICK:-3}
EFFECTS="1 2 3 5"
LEVELS=4,16

# Answers of 2 to 6 tokens (the mock sends max_tokens): short requests,
# unequal lengths, so that pairing by trace id has something to cancel.
"$TB" record synth -n 64 --input-tokens 32 --output-tokens uniform:2:6 -o "$W/trace.jsonl.gz" 2>/dev/null

start_mock --ttft-ms 50 --itl-ms 10
ep_flat=$endpoint
start_mock --ttft-ms 52.5 --itl-ms 10
ep_ttft=$endpoint
start_mock --ttft-ms 50 --itl-ms 10.5
ep_itl=$endpoint
start_mock --profile batching --ttft-ms 50 --itl-ms 10
ep_batch=$endpoint

# One replay: NAME ENDPOINT REPEAT -> $W/NAME.jsonl.gz
replay() {
	"$TB" replay --endpoint "$2" -c $LEVELS --repeat "$3" --quiet --label "$1" \
		-o "$W/$1.jsonl.gz" "$W/trace.jsonl.gz" >/dev/null 2>"$W/replay.err" ||
		{ cat "$W/replay.err" >&2; exit 1; }
}

# An A/B replay: NAME ENDPOINT_A ENDPOINT_B -> runs NAME-a, NAME-b.
replay_ab() {
	"$TB" replay --endpoint "$2" --endpoint "$3" -c $LEVELS --repeat 3 --quiet --seed "$4" \
		--label-a "$1-a" --label-b "$1-b" -o "$W/$1-a.jsonl.gz" -o "$W/$1-b.jsonl.gz" \
		"$W/trace.jsonl.gz" >/dev/null 2>"$W/replay.err" || { cat "$W/replay.err" >&2; exit 1; }
}

# The replays of round I, in the given order (the sides of its pairs).
round() {  # I ORDER...
	i=$1
	shift
	for side in "$@"; do
		for rep in 1 3; do
			case $side in
			a) replay "a$i-r$rep" "$ep_flat" $rep ;;
			b) replay "b$i-r$rep" "$ep_flat" $rep ;;
			t) replay "t$i-r$rep" "$ep_ttft" $rep ;;
			l) replay "l$i-r$rep" "$ep_itl" $rep ;;
			p) replay "p$i-r$rep" "$ep_batch" $rep ;;
			q) replay "q$i-r$rep" "$ep_batch" $rep ;;
			esac
		done
	done
}

t0=$(now)
i=1
while [ $i -le "$PAIRS" ]; do
	if [ $((i % 2)) = 1 ]; then round $i a t l b p q; else round $i q p b l t a; fi
	replay_ab "n$i" "$ep_flat" "$ep_flat" $i
	replay_ab "s$i" "$ep_flat" "$ep_ttft" $i
	say "   round $i/$PAIRS"
	i=$((i + 1))
done
replay_s=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')

# Compares BEFORE AFTER (labels) at the default --min-effect and appends,
# per row, "KIND REP PAIR C metric stat lo hi change verdict" to $W/rows
# and "KIND REP rc" to $W/gates. The intervals do not depend on
# --min-effect, so the other thresholds are read from the same rows
# (classify below is the rule of analyze/verdict.c, checked against
# compare's own verdicts at the default).
judge() {  # KIND REP PAIR BEFORE AFTER
	rc=0
	"$TB" analyze compare --db "$W/c.db" --format csv --fail-on-regression 5 "$4" "$5" \
		>"$W/c.csv" 2>"$W/c.err" || rc=$?
	[ $rc -le 1 ] || { cat "$W/c.err" >&2; exit 1; }
	echo "$1 $2 $rc" >>"$W/gates"
	awk -F, -v k="$1" -v r="$2" -v p="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ m = $c["metric"]; sub(/ /, "_", m); s = $c["stat"] == "" ? "-" : $c["stat"]
		  lo = $c["ci_lo"] == "" ? "nan" : $c["ci_lo"]; hi = $c["ci_hi"] == "" ? "nan" : $c["ci_hi"]
		  ch = $c["change_pct"] == "" ? "nan" : $c["change_pct"]
		  print k, r, p, $c["concurrency"], m, s, lo, hi, ch, $c["verdict"], $c["noise"],
			$c["client_limited"] }' "$W/c.csv" >>"$W/rows"
}

"$TB" analyze load --db "$W/c.db" "$W"/[abtlpq]*-r*.jsonl.gz "$W"/[ns]*-[ab].jsonl.gz >/dev/null 2>&1
: >"$W/rows"
: >"$W/gates"
i=1
while [ $i -le "$PAIRS" ]; do
	for rep in 1 3; do
		judge flat $rep $i "a$i-r$rep" "b$i-r$rep"
		judge batching $rep $i "p$i-r$rep" "q$i-r$rep"
		judge ttft $rep $i "a$i-r$rep" "t$i-r$rep"
		judge itl $rep $i "a$i-r$rep" "l$i-r$rep"
	done
	judge ab-flat 3 $i "n$i-a" "n$i-b"
	judge ab-ttft 3 $i "s$i-a" "s$i-b"
	i=$((i + 1))
done

# Each row with its verdict at --min-effect M, or at compare's default
# when M is "default" (1% where the run-to-run noise was measured, 3%
# where not; then a faster or slower is held back as inconclusive, as it
# is at every threshold where the change lies within the two runs' client
# bounds, compare's client_limited):
# "KIND REP M C metric stat verdict change PAIR".
classify() {  # M
	awk -v mm="$1" 'function near(x, t) { return x - t < 0.0006 && t - x < 0.0006 }
	{
		v = $10
		m = mm == "default" ? ($11 != "none" ? 1 : 3) : mm + 0
		# at the default, a bound that rounds onto the threshold in the
		# CSV (3 decimals) is decided by compare itself, not re-read here
		edge = $7 != "nan" && (near($7, m) || near($7, -m) || near($8, m) || near($8, -m))
		if ($7 != "nan" && !(mm == "default" && edge)) {
			up = $5 == "Agg_tok/s"
			if ($7 >= -m && $8 <= m) v = "same"
			else if ($7 > m) v = up ? "faster" : "slower"
			else if ($8 < -m) v = up ? "slower" : "faster"
			else v = "inconclusive"
			if (($11 == "none" || $12 == 1) && (v == "faster" || v == "slower"))
				v = "inconclusive"      # noise not measured, or client-limited
		}
		print $1, $2, mm, $4, $5, $6, v, $9, $3 }' "$W/rows"
}
: >"$W/verdicts"
for m in $EFFECTS default; do classify "$m" >>"$W/verdicts"; done
classify default | awk '{ print $7 }' >"$W/reread"
awk '{ print $10 }' "$W/rows" | paste -d' ' - "$W/reread" | paste -d' ' "$W/rows" - |
	awk '$13 != $14' >"$W/differ"
[ ! -s "$W/differ" ] ||
	{ say "bench-compare: the verdicts read from the intervals differ from compare's:"
	  head -5 "$W/differ" >&2; exit 1; }

# Cell of KIND REP M C METRIC STAT: "changed / inconclusive" counts, or the
# count of VERDICT when given.
count() {  # KIND REP M C METRIC STAT [VERDICT]
	awk -v k="$1" -v r="$2" -v m="$3" -v c="$4" -v mt="$5" -v s="$6" -v want="${7:-}" '
		$1 == k && $2 == r && $3 == m && $4 == c && $5 == mt && $6 == s {
			n[$7]++; seen++ }
		END {
			if (!seen) { print "-"; exit }
			if (want != "") { print n[want] + 0; exit }
			if (n["n/a"] == seen) { print "n/a"; exit }
			printf "%d / %d\n", n["faster"] + n["slower"], n["inconclusive"] }' "$W/verdicts"
}

# Pairs of KIND REP whose gate failed (compare's exit status).
gates() {  # KIND REP
	awk -v k="$1" -v r="$2" '$1 == k && $2 == r { n++; f += $3 == 1 }
		END { printf "%d of %d\n", f, n }' "$W/gates"
}

# Verdicts of KINDS (a regex) REP M that are faster or slower, over every metric.
changed() {  # KINDS REP M
	awk -v k="^($1)\$" -v r="$2" -v m="$3" '$1 ~ k && $2 == r && $3 == m && $7 != "n/a" {
		n++; c += $7 == "faster" || $7 == "slower" }
		END { printf "%d of %d\n", c, n }' "$W/verdicts"
}

# Pairs of KINDS REP whose gate would fail at M: a slower row more than 5% worse.
gate_at() {  # KINDS REP M
	awk -v k="^($1)\$" -v r="$2" -v m="$3" '$1 ~ k && $2 == r && $3 == m {
			pair[$1 " " $9] = 1
			if ($7 == "slower" && ($5 == "Agg_tok/s" ? -$8 : $8) > 5) bad[$1 " " $9] = 1 }
		END { for (p in pair) n++; for (p in bad) f++; printf "%d of %d\n", f, n }' "$W/verdicts"
}

# slower verdicts of METRIC P50 for KIND REP M, both levels.
seen() {  # KIND REP M METRIC
	awk -v k="$1" -v r="$2" -v m="$3" -v mt="$4" '$1 == k && $2 == r && $3 == m && $5 == mt && $6 == "P50" {
		n++; s += $7 == "slower" } END { printf "%d of %d\n", s, n }' "$W/verdicts"
}

metrics="TTFT TTFA TPOT ITL E2E"
M=default

echo "## 8. compare verdicts"
echo
echo "Real replays of the mock (64-request synthetic trace, answers of 2 to 6 tokens), C=4 and C=16 at replay's"
echo "default request count (8 and 32 requests a run), $PAIRS pairs of each kind, each pair compared with"
echo "\`analyze compare --fail-on-regression 5\`; the replays of a round in turn, reversed every other round"
echo "(ABBA). Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores$(awk -v n="$(nproc)" \
	'{ if ($1 > n / 2) printf ": **measured on a loaded machine** (other work running), so the run-to-run noise is larger than on a quiet one" }' /proc/loadavg)."
echo "Every run is in one database, so a pair without an A/B run's blocks takes its run-to-run noise from"
echo "the history: the other runs of its before run's experiment (same endpoint and parameters; about"
echo "$((2 * PAIRS - 1)) of them), as a user's database of earlier baseline runs would give it."
echo "Goal: at most 1 verdict in 20 per metric \`faster\`/\`slower\` and no gate failure on an unchanged"
echo "mock; a 5% shift \`slower\` in at least 19 of 20 pairs with \`--repeat 3\`."
echo
echo "### False alarms (unchanged mock), the default --min-effect (1%: the run-to-run noise measured)"
echo
echo "Cells: verdicts \`faster\` or \`slower\` / \`inconclusive\` in $PAIRS pairs; the rest are \`same\`."
echo "P99 needs 200 requests a side and is \`n/a\` at these counts."
echo
printf "| profile | repeats | C |"
for mt in $metrics; do printf " %s P50 |" "$mt"; done
echo " Agg tok/s | gate exit 1 |"
printf "|:--|--:|--:|"
for mt in $metrics; do printf "%s" "--:|"; done
echo "--:|--:|"
for kind in flat batching; do
	for rep in 1 3; do
		for c in 4 16; do
			printf "| %s | %s | %s |" "$kind" "$rep" "$c"
			for mt in $metrics; do printf " %s |" "$(count $kind $rep $M $c "$mt" P50)"; done
			printf " %s |" "$(count $kind $rep $M $c Agg_tok/s -)"
			echo " $(gates $kind $rep) |"
		done
	done
done
echo
echo "### Power (a 5% slower mock), the default --min-effect (1%: the run-to-run noise measured)"
echo
echo "Cells: verdicts \`slower\` in $PAIRS pairs (for Agg tok/s: its drop)."
echo
printf "| shift | repeats | C |"
for mt in $metrics; do printf " %s P50 |" "$mt"; done
echo " Agg tok/s | gate exit 1 |"
printf "|:--|--:|--:|"
for mt in $metrics; do printf "%s" "--:|"; done
echo "--:|--:|"
for kind in ttft itl; do
	for rep in 1 3; do
		for c in 4 16; do
			case $kind in ttft) name="TTFT 50 → 52.5 ms" ;; *) name="ITL 10 → 10.5 ms" ;; esac
			printf "| %s | %s | %s |" "$name" "$rep" "$c"
			for mt in $metrics; do printf " %s |" "$(count $kind $rep $M $c "$mt" P50 slower)"; done
			printf " %s |" "$(count $kind $rep $M $c Agg_tok/s - slower)"
			echo " $(gates $kind $rep) |"
		done
	done
done
echo
echo "### Interleaved A/B runs, --repeat 3, the default --min-effect (1%)"
echo
echo "\`replay -e A -e B --repeat 3\`: both sides in one replay, alternated level by level and repeat"
echo "by repeat in a seeded ABBA order (seed = the round). Unchanged: the same mock as A and B; shifted: B"
echo "the TTFT 52.5 ms mock. Cells as above (unchanged: changed / inconclusive; shifted: slower)."
echo
printf "| A/B | C |"
for mt in $metrics; do printf " %s P50 |" "$mt"; done
echo " Agg tok/s | gate exit 1 |"
printf "|:--|--:|"
for mt in $metrics; do printf "%s" "--:|"; done
echo "--:|--:|"
for c in 4 16; do
	printf "| unchanged | %s |" "$c"
	for mt in $metrics; do printf " %s |" "$(count ab-flat 3 $M $c "$mt" P50)"; done
	printf " %s |" "$(count ab-flat 3 $M $c Agg_tok/s -)"
	echo " $(gates ab-flat 3) |"
done
for c in 4 16; do
	printf "| TTFT 50 → 52.5 ms | %s |" "$c"
	for mt in $metrics; do printf " %s |" "$(count ab-ttft 3 $M $c "$mt" P50 slower)"; done
	printf " %s |" "$(count ab-ttft 3 $M $c Agg_tok/s - slower)"
	echo " $(gates ab-ttft 3) |"
done
echo
echo "### The threshold"
echo
echo "The same intervals against other \`--min-effect\` values: \`faster\`/\`slower\` verdicts of all judged"
echo "ones (every metric and level) on the unchanged mock, pairs whose \`--fail-on-regression 5\` would"
echo "fail, and \`slower\` verdicts of the shifted metric's P50 (TTFT, ITL; both levels)."
echo
echo "| --min-effect | runs | false, flat | false, batching | gate fails, unchanged | TTFT shift seen | ITL shift seen |"
echo "|--:|:--|--:|--:|--:|--:|--:|"
for m in $EFFECTS; do
	for rep in 1 3; do
		echo "| $m | $([ $rep = 1 ] && echo "one a side" || echo "--repeat 3") |" \
			"$(changed flat $rep "$m") | $(changed batching $rep "$m") |" \
			"$(gate_at 'flat|batching' $rep "$m") | $(seen ttft $rep "$m" TTFT) | $(seen itl $rep "$m" ITL) |"
	done
	echo "| $m | A/B, --repeat 3 | $(changed ab-flat 3 "$m") | - | $(gate_at ab-flat 3 "$m") |" \
		"$(seen ab-ttft 3 "$m" TTFT) | - |"
done
echo
echo "Replays took ${replay_s} s ($((PAIRS * 12)) replays and $((PAIRS * 2)) A/B replays)."
