#!/bin/sh
# Sessions replayed as sessions: turn k+1 leaves when turn k has ended plus
# its think time, carrying the server's real answer to turn k in its
# history (seen on the wire through a record proxy); C sessions in flight at
# most; a failed turn ends its session alone; with the mock's prefix cache
# later turns come back with cached tokens and a lower TTFT; a session with
# a missing or out-of-order turn or a bad think time is skipped with one
# line naming the trace's line, the rest replayed.
. tests/cli/lib.sh

# fields FILE KEY...: the values of KEY... of every record of a results or
# trace file, one record a line, in file order.
fields() {
	f=$1
	shift
	requests_of "$f" | awk -v keys="$*" 'BEGIN { n = split(keys, k, " ") }
		{ line = ""; for (i = 1; i <= n; i++) { v = "-"
			if (match($0, "\"" k[i] "\":-?[0-9]+")) v = substr($0, RSTART + length(k[i]) + 3, RLENGTH - length(k[i]) - 3)
			line = line (i > 1 ? " " : "") v }
		  print line }'
}

start_mock --ttft-ms 5 --itl-ms 1
tb record synth -n 6 --turns 3 --input-tokens 5 --output-tokens 4 --think-time 150 \
	-o "$WORK/s.jsonl.gz" 2>/dev/null
check "synth: every record names its session, turn and think time" sh -c \
	"test \"\$(requests_of '$WORK/s.jsonl.gz' | grep -c '\"session\":[01],\"turn\":[012],\"think_ns\":\(0\|150000000\)}')\" -eq 6"

# Through a proxy, to see the bodies as the server got them.
start_proxy "$WORK/wire.jsonl.gz"
tb replay -e "$PROXY" -c 1 -n 1 --warmup 0 --quiet -o "$WORK/r1.jsonl.gz" "$WORK/s.jsonl.gz" \
	>/dev/null 2>"$WORK/r1.err"
check "one 3-turn session replays (exit 0, 3 results)" sh -c \
	"test $? -eq 0 && test \"\$(requests_of '$WORK/r1.jsonl.gz' | grep -c '\"error\":null')\" -eq 3"
check "a replay of sessions writes a results file of version 3, naming its sessions" sh -c \
	"zcat '$WORK/r1.jsonl.gz' | head -1 | grep '\"format\":\"tracebench-results\",\"version\":3,' |
	 grep -q '\"sessions\":2'"
stop_proxy
zcat "$WORK/wire.jsonl.gz" | grep '"content\\":\\"' | sed 's/.*"body":"\(.*\)","input_tokens".*/\1/' >"$WORK/bodies"
ans='{\\"role\\":\\"assistant\\",\\"content\\":\\" the quick brown fox\\"}'
check "turn 2 holds turn 1's streamed answer, not the trace's placeholder" \
	test "$(grep -c "$ans" "$WORK/bodies")" -eq 2
check "turn 3 holds the answers of turns 1 and 2" \
	test "$(grep -c "$ans.*$ans" "$WORK/bodies")" -eq 1
fields "$WORK/r1.jsonl.gz" turn sched_ns send_ns e2e_ns >"$WORK/t1"
check "turn k+1 is due no earlier than turn k's end + 150 ms, and sent then$UPPER_NOTE" \
	awk -v slack=$(upper $((20000000 * SLACK))) '
		NR > 1 { gap = $2 - end; if (gap < 150000000 || gap > 150000000 + slack || $3 < $2) bad++ }
		{ end = $2 + $4 } END { exit bad || NR != 3 }' "$WORK/t1"

# Reasoning is not sent back: only the answer's content goes into the history.
stop_mock
start_mock --ttft-ms 5 --itl-ms 1 --reasoning-tokens 2
start_proxy "$WORK/wire2.jsonl.gz"
tb replay -e "$PROXY" -c 1 -n 1 --warmup 0 --quiet -o "$WORK/r2.jsonl.gz" "$WORK/s.jsonl.gz" \
	>/dev/null 2>&1
stop_proxy
check "a reasoning model's answer enters the history without its reasoning" sh -c \
	"zcat '$WORK/wire2.jsonl.gz' | grep -qF '\\\"role\\\":\\\"assistant\\\",\\\"content\\\":\\\" brown fox\\\"}' &&
	 ! zcat '$WORK/wire2.jsonl.gz' | grep -q 'reasoning_content'"

# C = 2: four sessions, never more than two in flight.
stop_mock
start_mock --ttft-ms 5 --itl-ms 1
tb record synth -n 12 --turns 3 --input-tokens 5 --output-tokens 4 --think-time 40 \
	-o "$WORK/s4.jsonl.gz" 2>/dev/null
tb replay -e "$ENDPOINT" -c 2 -n 4 --warmup 0 --quiet --label c2 -o "$WORK/c2.jsonl.gz" "$WORK/s4.jsonl.gz" \
	>/dev/null 2>&1
fields "$WORK/c2.jsonl.gz" session turn sched_ns e2e_ns >"$WORK/c2"
check "C=2: 4 sessions of 3 turns, 12 results" test "$(wc -l <"$WORK/c2")" -eq 12
check "C=2: at most two sessions in flight, and two at once" sh -c "awk '
	{ s = \$3; e = \$3 + \$4; if (!(\$1 in first) || s < first[\$1]) first[\$1] = s; if (e > last[\$1]) last[\$1] = e }
	END { for (a in first) { n = 0; for (b in first) if (first[b] <= first[a] && last[b] > first[a]) n++;
		if (n > max) max = n } exit max != 2 }' '$WORK/c2'"

# A failed turn ends its session; the other sessions go on.
stop_mock
start_mock --ttft-ms 5 --itl-ms 1 --fail-every 2
tb replay -e "$ENDPOINT" -c 1 -n 3 --warmup 0 --quiet -o "$WORK/f.jsonl.gz" "$WORK/s4.jsonl.gz" \
	>/dev/null 2>&1
check "every second request failing: each session ends at its failed turn 2, none sends turn 3" sh -c \
	"test \"\$(requests_of '$WORK/f.jsonl.gz' | grep -c '\"turn\":0,.*\"error\":null')\" -eq 3 &&
	 test \"\$(requests_of '$WORK/f.jsonl.gz' | grep -c '\"turn\":1,.*\"error\":\"http\"')\" -eq 3 &&
	 test \"\$(requests_of '$WORK/f.jsonl.gz' | wc -l)\" -eq 6"

# The prefix cache: later turns resend the history, which the mock has cached.
stop_mock
tb record synth -n 9 --turns 3 --input-tokens 48 --output-tokens 16 -o "$WORK/long.jsonl.gz" 2>/dev/null
for cache in 4096 0; do
	start_mock --ttft-ms 5 --itl-ms 1 --prefill-us-per-token 500 --prefix-cache-blocks $cache
	tb replay -e "$ENDPOINT" -c 1 -n 3 --warmup 0 --quiet --no-salt --label cache$cache \
		-o "$WORK/cache$cache.jsonl.gz" "$WORK/long.jsonl.gz" >/dev/null 2>&1
	[ $cache = 0 ] || tb replay -e "$ENDPOINT" -c 1 -n 2 --warmup 0 --quiet --label salted \
		-o "$WORK/salted.jsonl.gz" "$WORK/long.jsonl.gz" >/dev/null 2>&1
	stop_mock
done
fields "$WORK/cache4096.jsonl.gz" turn cached_tokens ttft_ns >"$WORK/hot"
fields "$WORK/cache0.jsonl.gz" turn cached_tokens ttft_ns >"$WORK/cold"
check "salted (one salt for all its turns, which begin alike): later turns still find their history cached" \
	test "$(fields "$WORK/salted.jsonl.gz" turn cached_tokens | awk '$1 > 0 && $2 >= 48 { n++ } END { print n }')" -eq 4
# the mock caches prompts, not what it generated: turn 2 finds turn 1's
# prompt (48), turn 3 turn 2's (48 + 16 + 48)
check "with the cache, turns 2 and 3 find their earlier prompts cached (48, 112 tokens)" \
	test "$(awk '$1 == 1 && $2 == 48 || $1 == 2 && $2 == 112 { n++ } END { print n }' "$WORK/hot")" -eq 6
check "... and come back sooner than without it (TTFT of later turns)" sh -c "
	h=\$(awk '\$1 > 0 { s += \$3 } END { print s }' '$WORK/hot'); c=\$(awk '\$1 > 0 { s += \$3 } END { print s }' '$WORK/cold')
	awk -v h=\$h -v c=\$c 'BEGIN { exit !(h > 0 && h < c * 0.6) }'"

# Bad sessions: a missing turn, turns out of order, a negative think time.
start_mock --ttft-ms 2 --itl-ms 1
tb record synth -n 15 --turns 3 --input-tokens 5 --output-tokens 2 -o "$WORK/g.jsonl.gz" 2>/dev/null
# the record of session s, turn t is on line 2 + t*5 + s (before the edits)
zcat "$WORK/g.jsonl.gz" | awk 'NR == 8 { next }                       # session 1, turn 1
	NR == 9 { sub(/"think_ns":0/, "\"think_ns\":-5") }              # session 2, turn 1
	NR == 5 { held = $0; next } NR == 15 { print; print held; next } # session 3: turn 0 last
	{ print }' | gzip >"$WORK/bad.jsonl.gz"
tb replay -e "$ENDPOINT" -c 1 -n 2 --warmup 0 --quiet -o "$WORK/bad-run.jsonl.gz" "$WORK/bad.jsonl.gz" \
	>/dev/null 2>"$WORK/bad.err"
check "bad sessions: replay goes on (exit 0)" test $? -eq 0
check "a missing turn: one line naming the file, the line and the session" \
	grep -qxF "tracebench replay: warning: '$WORK/bad.jsonl.gz' line 11: session 1: turn 1 missing (turn 2 follows turn 0); session skipped" "$WORK/bad.err"
check "a negative think time: one line naming its line" \
	grep -qxF "tracebench replay: warning: '$WORK/bad.jsonl.gz' line 7: session 2: turn 1 has a think time of -5 ns, outside 0 to a day; session skipped" "$WORK/bad.err"
check "turns out of order: one line naming its line" \
	grep -qxF "tracebench replay: warning: '$WORK/bad.jsonl.gz' line 8: session 3: turns out of order (turn 1 comes before turn 0); session skipped" "$WORK/bad.err"
check "... and one count of the sessions skipped" grep -q "': 3 sessions skipped$" "$WORK/bad.err"
check "the two good sessions (0 and 4) replay whole" \
	test "$(fields "$WORK/bad-run.jsonl.gz" session | sort | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')" = "0:3 4:3 "

# Open loop: sessions arrive at the rate, their later turns follow their own
# timing, latencies counted from when each turn was due.
tb replay -e "$ENDPOINT" --rate 20 -n 4 --warmup 0 --quiet -o "$WORK/open.jsonl.gz" "$WORK/s4.jsonl.gz" \
	>/dev/null 2>&1
fields "$WORK/open.jsonl.gz" session turn sched_ns e2e_ns >"$WORK/open"
check "open loop: 4 sessions of 3 turns" test "$(wc -l <"$WORK/open")" -eq 12
check "open loop: first turns 50 ms apart, each later turn due 40 ms after its turn before ended" \
	awk '$2 == 0 { if (n++ && $3 - s0 != (n - 1) * 50000000) bad++; if (n == 1) s0 = $3 }
		$2 > 0 { if ($3 - end[$1] < 40000000 || $3 - end[$1] > 40000000 + '"$(upper $((20000000 * SLACK)))"') bad++ }
		{ end[$1] = $3 + $4 } END { exit bad || n != 4 }' "$WORK/open"

# Open loop with --max-concurrency 1: later turns wait for the place too
# (first in line), their latency still counted from when they were due.
tb record synth -n 12 --turns 3 --input-tokens 5 --output-tokens 4 --think-time 2 \
	-o "$WORK/s2ms.jsonl.gz" 2>/dev/null
tb replay -e "$ENDPOINT" --rate 1000 -n 4 --max-concurrency 1 --warmup 0 --quiet -o "$WORK/held.jsonl.gz" \
	"$WORK/s2ms.jsonl.gz" >/dev/null 2>&1
fields "$WORK/held.jsonl.gz" session turn sched_ns send_ns e2e_ns | sort -n -k4 >"$WORK/held"
check "open loop, --max-concurrency 1: 12 turns, never two requests in flight" \
	awk '{ if (NR > 1 && $4 < end) bad++; end = $3 + $5 } END { exit bad || NR != 12 }' "$WORK/held"
check "... a held later turn's latency counts from when it was due (some sent late, E2E from due)" \
	awk '$2 > 0 && $4 - $3 > 1000000 { n++ } END { exit !n }' "$WORK/held"

# analyze load keeps each request's session, turn and cached tokens.
tb analyze load --db "$WORK/s.db" "$WORK/c2.jsonl.gz" "$WORK/cache4096.jsonl.gz" 2>/dev/null
check "analyze load stores session and turn (4 sessions, turns 0-2 each)" \
	test "$(sqlite3 "$WORK/s.db" "select count(distinct session) || ',' || sum(turn = 2) from v_requests where run_id in (select run_id from runs where source like '%c2.jsonl.gz')")" = "4,4"
check "... and the cached prompt tokens (48 and 112 of the later turns)" \
	test "$(sqlite3 "$WORK/s.db" "select group_concat(distinct cached_tokens) from (select cached_tokens from requests where turn > 0 and cached_tokens > 0 order by cached_tokens)")" = "48,112"

tb analyze export --db "$WORK/s.db" --run "$(sqlite3 "$WORK/s.db" "select label from runs where source like '%c2.jsonl.gz'")" \
	--format csv >"$WORK/c2.csv"
check "analyze export has session and turn columns (4 sessions, turns 0-2)" sh -c \
	"head -1 '$WORK/c2.csv' | grep -q ',session,turn,server_timings,server_queue_ms,server_prefill_ms,server_decode_ms,rest_ttft_ms,rest_e2e_ms,cancel,model,client_issue_ms,client_read_ms$' &&
	 test \"\$(awk -F, 'NR > 1 { print \$(NF - 11) \" \" \$(NF - 10) }' '$WORK/c2.csv' | sort -u | wc -l)\" -eq 12"
tb analyze export --db "$WORK/s.db" --run "$(sqlite3 "$WORK/s.db" "select label from runs where source like '%c2.jsonl.gz'")" \
	--format jsonl | head -1 >"$WORK/c2.jsonl"
check "... and in JSON Lines, as numbers" grep -q '"session":[0-9]*,"turn":[0-2],' "$WORK/c2.jsonl"

# analyze report: first turns apart from later ones, and the sessions' figures.
tb analyze load --db "$WORK/s.db" "$WORK/cache0.jsonl.gz" 2>/dev/null
label_of() { sqlite3 "$WORK/s.db" "select label from runs where source like '%$1'"; }
tb analyze report --db "$WORK/s.db" --run "$(label_of cache4096.jsonl.gz)" >"$WORK/hot.report" 2>&1
tb analyze report --db "$WORK/s.db" --run "$(label_of cache0.jsonl.gz)" >"$WORK/cold.report" 2>&1
check "report: 3 sessions of 3 turns, none ended by a failure" \
	grep -q "^sessions C=1: 3, 3.0 turns each, .* 48 output tokens and a context of 176 prompt tokens each; 0 ended by a failed turn$" "$WORK/hot.report"
check "report: first turns (3) apart from later turns (6)" sh -c \
	"grep -q '^  first turns C=1: 3 ok, TTFT P50' '$WORK/hot.report' && grep -q '^  later turns C=1: 6 ok, TTFT P50' '$WORK/hot.report'"
check "report: the cached share of the prompt by turn (0, 48/112, 112/176)" \
	grep -q "^  cached share of the prompt by turn C=1: 1 0%, 2 43%, 3 64%$" "$WORK/hot.report"
later_p50() { sed -n 's/^  later turns C=1: [0-9]* ok, TTFT P50 \([0-9.]*\) ms.*/\1/p' "$1"; }
check "report: later turns' TTFT P50 lower with the cache ($(later_p50 "$WORK/hot.report") ms) than without ($(later_p50 "$WORK/cold.report") ms)" \
	awk -v h="$(later_p50 "$WORK/hot.report")" -v c="$(later_p50 "$WORK/cold.report")" 'BEGIN { exit !(h > 0 && h < c) }'

# analyze compare: first turns and later turns get verdicts of their own.
# One run a side measures no run-to-run noise: held back unless given.
tb analyze compare --db "$WORK/s.db" cache0 cache4096 >"$WORK/held" 2>&1
check "compare, one run a side: later turns' TTFT P50 held back, the noise not measured" \
	grep -Eq "^ +1  TTFT later  P50 .* inconclusive \(noise not measured\)$" "$WORK/held"
tb analyze compare --db "$WORK/s.db" --noise 2 cache0 cache4096 >"$WORK/cmp" 2>&1
check "compare --noise 2: later turns' TTFT P50 faster with the prefix cache" \
	grep -Eq "^ +1  TTFT later  P50 .* faster$" "$WORK/cmp"
check "compare: first turns' TTFT compared apart (not faster: nothing cached)" sh -c \
	"grep -Eq '^ +1  TTFT first  P50 ' '$WORK/cmp' && ! grep -Eq '^ +1  TTFT first  P50 .* faster$' '$WORK/cmp'"

# analyze plot: TTFT by turn index, for runs of sessions only.
tb analyze plot --db "$WORK/s.db" --run cache4096 --run cache0 -o "$WORK/plots" >"$WORK/plot.out" 2>&1
check "plot: ttft_by_turn.dat has turns 1-3, later turns lower with the cache than without" \
	awk 'NR > 3 { n++; if ($1 != n) bad++; if (n > 1 && !($2 < $4)) bad++ } END { exit bad || n != 3 }' \
	"$WORK/plots/ttft_by_turn.dat"
if have gnuplot; then
	check "plot: ttft_by_turn rendered" test -s "$WORK/plots/ttft_by_turn.png"
else
	skip "plot: ttft_by_turn rendered" "gnuplot not installed"
fi
tb record synth -n 4 --input-tokens 5 --output-tokens 2 -o "$WORK/plain.jsonl.gz" 2>/dev/null
tb replay -e "$ENDPOINT" -c 1 -n 2 --warmup 0 --quiet --label plain -o "$WORK/plain-run.jsonl.gz" \
	"$WORK/plain.jsonl.gz" >/dev/null 2>&1
tb analyze load --db "$WORK/s.db" "$WORK/plain-run.jsonl.gz" 2>/dev/null
tb analyze plot --db "$WORK/s.db" --run plain -o "$WORK/plain-plots" >/dev/null 2>&1
check "plot and report of a run without sessions: no TTFT by turn, no sessions lines" sh -c \
	"test -e '$WORK/plain-plots/latency_ttft.dat' && test ! -e '$WORK/plain-plots/ttft_by_turn.dat' &&
	 ! $TB analyze report --db '$WORK/s.db' --run plain | grep -q '^sessions'"

# record proxy --session-header: turns numbered as they end, think time observed.
start_proxy "$WORK/cap.jsonl.gz" -q --session-header X-Session-ID
post() {   # post SESSION-HEADER-OR-EMPTY MESSAGES-JSON
	curl -sS -o /dev/null ${1:+-H "X-Session-ID: $1"} -H 'Content-Type: application/json' \
		-d "{\"model\":\"mock\",\"max_tokens\":3,\"stream\":true,\"messages\":$2}" \
		"$PROXY/v1/chat/completions"
}
post alpha '[{"role":"user","content":"one two"}]'
post beta '[{"role":"user","content":"three four"}]'
sleep 0.3
post alpha '[{"role":"user","content":"one two"},{"role":"assistant","content":"x"},{"role":"user","content":"five"}]'
post "" '[{"role":"user","content":"alone"}]'
curl -sS -o /dev/null -H "X-Session-ID: alpha" "$PROXY/v1/models"
stop_proxy
fields "$WORK/cap.jsonl.gz" session turn think_ns >"$WORK/cap"
check "proxy: two sessions by header, alpha's second turn numbered 1; the headerless request and the models list in none" \
	test "$(cut -d' ' -f1,2 "$WORK/cap" | tr '\n' ',')" = "0 0,1 0,0 1,- -,- -,"
check "proxy: alpha's turn 2 records the think time it saw (>= 300 ms)$UPPER_NOTE" \
	awk -v hi="$(upper 1500000000)" '$1 == 0 && $2 == 1 { ok = $3 >= 300000000 && $3 <= hi } END { exit !ok }' "$WORK/cap"
tb replay -e "$ENDPOINT" -c 2 -n 3 --warmup 0 --quiet --label cap -o "$WORK/cap-run.jsonl.gz" \
	"$WORK/cap.jsonl.gz" >/dev/null 2>&1
check "proxy's capture replays as sessions (alpha's two turns, beta's, the lone request)" \
	test "$(fields "$WORK/cap-run.jsonl.gz" session turn | sort | tr '\n' ',')" = "- -,0 0,0 1,1 0,"
check "proxy: the header is of trace version 2 and names the session header" sh -c \
	"zcat '$WORK/cap.jsonl.gz' | head -1 | grep '\"version\":2,' | grep -q '\"session_header\":\"X-Session-ID\"'"

# A turn sent while the one before it still streams, and ending first, is
# written first as turn 0: turns are numbered in the order the proxy writes
# them, the order replay reads them in (it skipped the session before).
start_proxy "$WORK/cap2.jsonl.gz" -q --session-header X-Session-ID
curl -sS -o /dev/null -H "X-Session-ID: agent" -H 'Content-Type: application/json' \
	-d '{"model":"mock","max_tokens":300,"stream":true,"messages":[{"role":"user","content":"long"}]}' \
	"$PROXY/v1/chat/completions" &
slow=$!
sleep 0.1
post agent '[{"role":"user","content":"short"}]'
wait $slow
stop_proxy
fields "$WORK/cap2.jsonl.gz" session turn | tr '\n' ',' >"$WORK/cap2"
check "proxy: the turn that ended first is written first, as turn 0; the other as turn 1" sh -c \
	"test \"\$(cat '$WORK/cap2')\" = '0 0,0 1,' && requests_of '$WORK/cap2.jsonl.gz' | sed -n 1p | grep -q short"
tb replay -e "$ENDPOINT" -c 1 -n 1 --warmup 0 --quiet -o "$WORK/cap2-run.jsonl.gz" \
	"$WORK/cap2.jsonl.gz" >/dev/null 2>"$WORK/cap2-run.err"
check "replay takes that session whole: its two turns, no session skipped" sh -c \
	"! grep -q skipped '$WORK/cap2-run.err' &&
	 test \"\$(zcat '$WORK/cap2-run.jsonl.gz' | grep -c '\"session\":0,\"turn\":[01],')\" -eq 2"
finish
