#!/bin/sh
# A sweep measures the server, not the request mix, the prefix cache or the
# TCP handshake: every level and repeat sends the trace's first requests,
# each with salts of its own before the prompt (recorded, reproducible,
# keyed per request on the prompt's head so that no salt is a prefix shared
# by prompts the trace does not share; --no-salt sends the bodies
# unchanged), on connections opened before its
# clock starts; a base URL ending in /v1 is understood.
. tests/cli/lib.sh

# Field $2 of every record of results file $1 (header skipped), in order.
field() {
	zcat "$1" | sed -n '2,$p' | sed -n "s/.*\"$2\":\\(\"[^\"]*\"\\|[^,}]*\\).*/\\1/p" | tr -d '"'
}
# Field $2 of the records of level $3 (warm-ups left out).
level_field() {
	zcat "$1" | sed -n '2,$p' | grep "\"level\":$3," | grep '"warmup":false' |
		sed -n "s/.*\"$2\":\\(\"[^\"]*\"\\|[^,}]*\\).*/\\1/p" | tr -d '"'
}

start_mock --ttft-ms 5 --itl-ms 1 --tokens 4
tb record synth -n 40 --input-tokens 16 --output-tokens 4 -o "$WORK/trace.jsonl.gz" 2>/dev/null

# Same requests at every level: -n 6 at C=1, 2, 3; then -n 12 at C=4
# extends the set.
tb replay -e "$ENDPOINT" -c 1,2,3 -n 6 --repeat 2 --warmup 1 -q \
	-o "$WORK/same.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>"$WORK/err"
check "replay of three levels, two repeats exits 0" test $? -eq 0
for c in 1 2 3; do
	ids=$(zcat "$WORK/same.jsonl.gz" | grep "\"level\":$c," | grep '"warmup":false' |
		sed 's/.*"trace_id":\([0-9]*\).*/\1/' | sort -n | tr '\n' ' ')
	check "C=$c: both repeats send trace ids 0-5 ($ids)" test "$ids" = "0 0 1 1 2 2 3 3 4 4 5 5 "
done
check "the warm-up sends the trace's first request" \
	test "$(zcat "$WORK/same.jsonl.gz" | grep '"warmup":true' | sed 's/.*"trace_id":\([0-9]*\).*/\1/')" = 0
tb replay -e "$ENDPOINT" -c 4 -n 12 --warmup 0 -q \
	-o "$WORK/more.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>&1
check "a larger level extends the set: ids 0-11" \
	test "$(field "$WORK/more.jsonl.gz" trace_id | sort -n | tr '\n' ' ')" = "0 1 2 3 4 5 6 7 8 9 10 11 "

# Salts: a tag per level and repeat, another for the warm-ups, recorded;
# before it a key per request: the 6 requests of a level, whose prompts
# share nothing, have 6 salts (one shared by a whole level was a prefix
# of 11 tokens or so that a server found cached in every request).
tags=$(field "$WORK/same.jsonl.gz" salt | cut -d- -f2 | sort -u | wc -l)
check "7 distinct salt tags: warm-ups and 3 levels x 2 repeats ($tags)" test "$tags" -eq 7
for c in 1 2 3; do
	for r in 0 1; do
		zcat "$WORK/same.jsonl.gz" | grep "\"level\":$c," | grep '"warmup":false' |
			{ if [ $r = 0 ]; then grep -v '"repeat"'; else grep "\"repeat\":$r,"; fi; } |
			sed 's/.*"salt":"\([^"]*\)".*/\1/' | sort -u >"$WORK/salts"
		check "C=$c repeat $r: a salt per request, each a key and the level's tag ($(tr '\n' ' ' <"$WORK/salts"))" \
			sh -c "[ \$(wc -l <'$WORK/salts') = 6 ] && [ \$(grep -Ec '^[0-9a-f]{8}-c${c}r${r}\$' '$WORK/salts') = 6 ]"
	done
done
check "the header records the salt seed" sh -c "zcat '$WORK/same.jsonl.gz' | head -1 | grep -q '\"salt_seed\":[0-9]'"

tb replay -e "$ENDPOINT" -c 1,2 -n 3 --salt-seed 7 -q -o "$WORK/s7a.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>&1
tb replay -e "$ENDPOINT" -c 1,2 -n 3 --salt-seed 7 -q --label s7b -o "$WORK/s7b.jsonl.gz" \
	"$WORK/trace.jsonl.gz" >/dev/null 2>"$WORK/s7b.err"
# (sorted: at C=2 results are written as requests end, in either order)
check "the same --salt-seed gives the same salts" \
	test "$(field "$WORK/s7a.jsonl.gz" salt | sort | tr '\n' ' ')" = "$(field "$WORK/s7b.jsonl.gz" salt | sort | tr '\n' ' ')"
check "... and replay warns that a server that ran it has the prompts cached" \
	grep -q "warning: --salt-seed 7 sends the prompts of every run given that seed: a server that served one has them in its prefix cache" "$WORK/s7b.err"
tb replay -e "$ENDPOINT" -c 1,2 -n 3 -q --label s0 -o "$WORK/s0.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>"$WORK/s0.err"
check "another run draws other salts" \
	test "$(field "$WORK/s7a.jsonl.gz" salt | head -1)" != "$(field "$WORK/s0.jsonl.gz" salt | head -1)"
check "... without a warning" sh -c "! grep -q 'warning' '$WORK/s0.err'"
tb replay -e "$ENDPOINT" -c 1,2 -n 3 -q --label s1 -o "$WORK/s1.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>&1
tb analyze load --db "$WORK/salt.db" "$WORK/s7a.jsonl.gz" "$WORK/s7b.jsonl.gz" "$WORK/s0.jsonl.gz" \
	"$WORK/s1.jsonl.gz" >/dev/null 2>&1
tb analyze compare --db "$WORK/salt.db" s0 s1 >"$WORK/c01" 2>&1
check "compare: two runs of one command do not differ by their salt seeds" sh -c \
	"test -s '$WORK/c01' && ! grep 'warning' '$WORK/c01' | grep -qv 'ran on a busier host'"
s7a=$(zcat "$WORK/s7a.jsonl.gz" | head -1 | sed 's/.*"label":"\([^"]*\)".*/\1/')
tb analyze compare --db "$WORK/salt.db" "$s7a" s7b >"$WORK/c77" 2>&1
check "compare: one pinned salt seed on both runs against one endpoint is caught" \
	grep -q "warning: both runs salted their prompts with salt seed 7 against .*: the later one found the earlier one's prompts in the server's prefix cache" "$WORK/c77"

# What the server receives, through a record proxy: the salt at the start
# of the first message's content; without it, the bodies of --no-salt.
bodies() {  # proxy trace -> the chat bodies, one a line, sorted
	zcat "$1" | sed -n '2,$p' | grep 'chat/completions' | sed 's/.*"body":"\(.*\)","input_tokens":.*/\1/' | sort
}
start_proxy "$WORK/salted.jsonl.gz"
tb replay -e "$PROXY" -c 1,2 -n 3 --warmup 0 -q -o "$WORK/p1.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>&1
stop_proxy
start_proxy "$WORK/plain.jsonl.gz"
tb replay -e "$PROXY" -c 1,2 -n 3 --warmup 0 --no-salt -q -o "$WORK/p2.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>&1
stop_proxy
bodies "$WORK/salted.jsonl.gz" >"$WORK/salted"
bodies "$WORK/plain.jsonl.gz" >"$WORK/plain"
check "six requests through the proxy each time" test "$(wc -l <"$WORK/salted")" -eq 6 -a "$(wc -l <"$WORK/plain")" -eq 6
check "salted: every body differs (levels do not share prompts)" test "$(sort -u "$WORK/salted" | wc -l)" -eq 6
check "salted: the salt opens the first message's content" \
	test "$(grep -Ec '"content\\":\\"[0-9a-f]{8}-c[12]r0 ' "$WORK/salted")" -eq 6
check "--no-salt: C=1 and C=2 send byte-identical bodies" \
	test "$(sort -u "$WORK/plain" | wc -l)" -eq 3 -a "$(uniq -c "$WORK/plain" | awk '$1 != 2' | wc -l)" -eq 0
sed -E 's/(content\\":\\")[0-9a-f]{8}-c[12]r0 /\1/' "$WORK/salted" | sort >"$WORK/unsalted"
check "salted bodies less their salt are the --no-salt bodies" cmp -s "$WORK/unsalted" "$WORK/plain"
check "--no-salt: no salt recorded" test -z "$(field "$WORK/p2.jsonl.gz" salt)"
check "--no-salt: the header says salt false" sh -c "zcat '$WORK/p2.jsonl.gz' | head -1 | grep -q '\"salt\":false'"

# A base URL ending in /v1, as OpenAI's clients take it.
tb replay -e "$ENDPOINT/v1" -c 1 -n 2 -q -o "$WORK/v1.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>"$WORK/v1.err"
rc=$?
check "--endpoint .../v1 works" test $rc -eq 0
check "--endpoint .../v1: every request succeeded" test "$(field "$WORK/v1.jsonl.gz" status | sort -u)" = 200
[ $rc -eq 0 ] || sed 's/^/    replay said: /' "$WORK/v1.err"
zcat "$WORK/trace.jsonl.gz" | sed 's#"/v1/chat/completions"#"/chat/completions"#' | gzip >"$WORK/nov1.jsonl.gz"
tb replay -e "$ENDPOINT/v1" -c 1 -n 2 -q -o "$WORK/nov1r.jsonl.gz" "$WORK/nov1.jsonl.gz" >/dev/null 2>"$WORK/nov1.err"
check "--endpoint .../v1 before paths without /v1: exit 2" test $? -eq 2
check "... saying what to give instead" grep -q "give the server's base URL without /v1 (--endpoint $ENDPOINT)" "$WORK/nov1.err"
check "... and writing nothing" test ! -e "$WORK/nov1r.jsonl.gz"

# Connections opened before the clock: at C=64 no measured request of a
# fresh sweep's level connects, and none has a connect time. How close its
# median TTFT comes to the mock's 50 ms is make bench's (bench-client.sh,
# the C=64 row): the first wave's 64 requests go through one client thread
# and one mock thread at once, and on two cores that alone puts 1-6 ms on
# the median even on a quiet machine, with no connection opened; a second
# repeat on the same open connections varies as much, so no bound drawn
# from this run would tell set-up cost from that.
stop_mock
start_mock --ttft-ms 50 --itl-ms 5 --tokens 8
tb replay -e "$ENDPOINT" -c 64 -n 128 -q -o "$WORK/c64.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>&1
check "C=64: every measured request succeeded" \
	test "$(level_field "$WORK/c64.jsonl.gz" status 64 | sort | uniq -c | awk '{ print $1, $2 }')" = "128 200"
check "C=64: no measured request had to connect" \
	test "$(level_field "$WORK/c64.jsonl.gz" new_connection 64 | sort -u)" = false
check "C=64: ... nor has a connect time" \
	test "$(level_field "$WORK/c64.jsonl.gz" connect_ns 64 | sort -u)" = null

# Above 64 connections the client spreads its requests over several multi
# handles, each with a cache of its own (replay/client.c): at C=150, three
# waves, every request must still find an idle connection in the one it
# is given, through every wave.
tb replay -e "$ENDPOINT" -c 150 -n 450 --warmup 0 -q -o "$WORK/c150.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>&1
check "C=150: every request succeeded" \
	test "$(level_field "$WORK/c150.jsonl.gz" status 150 | sort | uniq -c | awk '{ print $1, $2 }')" = "450 200"
check "C=150: no request had to connect, in any wave" \
	test "$(level_field "$WORK/c150.jsonl.gz" new_connection 150 | sort -u)" = false

# A server that closes every connection: each request connects, and says
# how long it took.
stop_mock
start_mock --ttft-ms 5 --itl-ms 1 --tokens 4 --close-after-response
tb replay -e "$ENDPOINT" -c 2 -n 4 --warmup 0 -q -o "$WORK/close.jsonl.gz" "$WORK/trace.jsonl.gz" >/dev/null 2>&1
check "connection closed after each response: every request marked as connecting" \
	test "$(field "$WORK/close.jsonl.gz" new_connection | sort -u)" = true
check "... with its connect time recorded (0 < connect < 1 s)" \
	sh -c "test \"\$(zcat '$WORK/close.jsonl.gz' | sed -n '2,\$p' | sed 's/.*\"connect_ns\":\\([0-9]*\\).*/\\1/' |
		awk '\$1 > 0 && \$1 < 1e9' | wc -l)\" -eq 4"
check "... and no TLS time over plain http" test "$(field "$WORK/close.jsonl.gz" tls_ns | sort -u)" = null

# The prefix cache (the mock's, 16-token blocks): the same requests at C=1
# then C=2. Salted, C=2 finds nothing of C=1's prompts cached; with
# --no-salt it finds them all, which is what a sweep must not measure.
stop_mock
start_mock --ttft-ms 5 --itl-ms 1 --tokens 4
tb record synth -n 8 --input-tokens 64 --output-tokens 4 --seed 3 -o "$WORK/long.jsonl.gz" 2>/dev/null
cache_share() {  # results level -> cached / prompt tokens of the level, in %
	zcat "$1" | sed -n '2,$p' | grep "\"level\":$2," | grep '"warmup":false' |
		sed 's/.*"input_tokens":\([0-9]*\).*"cached_tokens":\([0-9]*\).*/\1 \2/' |
		awk '{ p += $1; c += $2 } END { printf "%.0f\n", p ? 100 * c / p : -1 }'
}
tb replay -e "$ENDPOINT" -c 1,2 -n 4 --warmup 0 -q -o "$WORK/cache-s.jsonl.gz" "$WORK/long.jsonl.gz" >"$WORK/cache-s.table" 2>/dev/null
tb replay -e "$ENDPOINT" -c 1,2 -n 4 --warmup 0 --no-salt -q -o "$WORK/cache-n.jsonl.gz" "$WORK/long.jsonl.gz" >/dev/null 2>&1
salted=$(cache_share "$WORK/cache-s.jsonl.gz" 2) plain=$(cache_share "$WORK/cache-n.jsonl.gz" 2)
check "salted: C=2 finds none of C=1's prompts cached ($salted%)" test "$salted" -lt 10
check "--no-salt: C=2 finds C=1's prompts cached ($plain%)" test "$plain" -gt 50
check "cached prompt tokens are recorded per request" \
	test "$(zcat "$WORK/cache-n.jsonl.gz" | grep -c '"cached_tokens":[0-9]')" -eq 8
tb analyze load --db "$WORK/c.db" --label plain "$WORK/cache-n.jsonl.gz" 2>/dev/null
tb analyze report --db "$WORK/c.db" --format csv >"$WORK/cache.csv"
check "the report's cache-hit share of C=2 is the requests' ($plain%)" \
	awk -F, -v want="$plain" 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
		$k["concurrency"] == 2 { v = $k["cache_hit_pct"] } END { exit !(v - want < 1 && want - v < 1) }' "$WORK/cache.csv"

# Several tokens an event (speculative decoding): the table says 4 per event.
stop_mock
start_mock --ttft-ms 5 --itl-ms 2 --tokens-per-event 4
tb replay -e "$ENDPOINT" -c 1 -n 2 --warmup 0 --max-tokens 16 -q -o "$WORK/spec.jsonl.gz" \
	"$WORK/trace.jsonl.gz" >"$WORK/spec.table" 2>/dev/null
check "4 tokens per event: 16 tokens over 4 events recorded" \
	test "$(zcat "$WORK/spec.jsonl.gz" | grep -c '"output_tokens":16,.*"token_events":4,')" -eq 2
check "... and the live table's Tok/ev says 4.00" grep -q ' 4\.00 ' "$WORK/spec.table"
check "... with a line on reading ITL" grep -q '^tokens per event above 1' "$WORK/spec.table"

# Separate runs under one label: refused, the database as it was.
tb analyze load --db "$WORK/c.db" --label plain "$WORK/cache-s.jsonl.gz" 2>"$WORK/load.err"
check "a second run under one label: exit 2" test $? -eq 2
check "... saying to give it a label of its own" \
	grep -q "not shards of one run; load it under a label of its own (--label NAME)" "$WORK/load.err"
check "... in one line" test "$(wc -l <"$WORK/load.err")" -eq 1

# Export: CSV and JSON Lines with the request's repeat, times, token
# source, cached tokens, salt and connection; --gaps adds the gaps. Each
# line is one valid JSON object (the sqlite3 shell's json_valid judges).
tb analyze export --db "$WORK/c.db" --run plain >"$WORK/x.csv"
check "export csv: the new columns in its header" \
	grep -q ',repeat,sched_ms,send_ms,tokens_source,token_events,cached_tokens,salt,new_connection,connect_ms,tls_ms,session,turn,server_timings,server_queue_ms,server_prefill_ms,server_decode_ms,rest_ttft_ms,rest_e2e_ms,cancel,model,client_issue_ms,client_read_ms$' "$WORK/x.csv"
tb analyze export --db "$WORK/c.db" --run plain --format jsonl --gaps >"$WORK/x.jsonl"
check "export jsonl: a line per request (8)" test "$(wc -l <"$WORK/x.jsonl")" -eq 8
valid_lines() {  # file -> how many of its lines are JSON objects
	sed "s/'/''/g; s/.*/SELECT CASE WHEN json_valid('&') THEN json_type('&') = 'object' ELSE 0 END;/" "$1" |
		sqlite3 | grep -c '^1$'
}
check "... each a JSON object" test "$(valid_lines "$WORK/x.jsonl")" -eq 8
check "... with its cached tokens, token source and connection" \
	test "$(grep -c '"tokens_source":"usage","token_events":4,"cached_tokens":[0-9]*,"salt":null,"new_connection":0,' "$WORK/x.jsonl")" -eq 8
check "... and with --gaps its inter-token gaps" test "$(grep -c '"itl_us":\[[0-9]*,[0-9]*,[0-9]*\]}$' "$WORK/x.jsonl")" -eq 8
tb analyze export --db "$WORK/c.db" --run plain --format jsonl >"$WORK/y.jsonl"
check "... and without, none" sh -c "! grep -q itl_us '$WORK/y.jsonl'"
# A database edited by hand: what is no array of numbers goes out a string.
sqlite3 "$WORK/c.db" "UPDATE requests SET itl_us = '[1,,2]' WHERE seq = 0"
tb analyze export --db "$WORK/c.db" --run plain --format jsonl --gaps >"$WORK/z.jsonl"
check "a hand-edited itl_us that is no JSON array goes out as a string" \
	test "$(valid_lines "$WORK/z.jsonl")" -eq 8 -a "$(grep -c '"itl_us":"\[1,,2\]"' "$WORK/z.jsonl")" -eq 1
finish
