#!/bin/sh
# A node_exporter among the --metrics-url (issue 35): the server's host
# CPU shares per level in the server table of its source (CPU busy and
# steal over the level's window), and in report's CSV and JSON beside the
# engine's figures (each from the first source that has it). The
# stand-in node_exporter's two CPUs spend a quarter of their time busy,
# one of them stolen: 25% busy, 12.5% steal over any window. With two
# engines scraped, the timeline figure draws one of them.
. tests/cli/lib.sh

if ! have python3 || ! have jq || ! have sqlite3; then
	skip_all "a node_exporter's CPU shares in the server table" "python3, jq or sqlite3 not installed"
fi
python3 tests/fixtures/node_exporter.py "$WORK/nport" &
NODE=$!
i=0
while [ ! -s "$WORK/nport" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
NX=http://127.0.0.1:$(cat "$WORK/nport")/metrics

tb record synth -n 16 --input-tokens 16 --output-tokens 16 --seed 2 -o "$WORK/t.jsonl.gz" 2>/dev/null
start_mock --ttft-ms 30 --itl-ms 5
tb replay -q -e "$ENDPOINT" -c 1,4 -n 8 --metrics-url "$ENDPOINT/metrics" --metrics-url "$NX" \
	--metrics-interval 200ms -o "$WORK/r.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/r.err"
rc=$?
stop_mock
kill $NODE 2>/dev/null
wait $NODE 2>/dev/null
check "the replay ran with the engine and the node_exporter scraped" test $rc -eq 0
tb analyze load --db "$WORK/m.db" "$WORK/r.jsonl.gz" >/dev/null 2>&1
tb analyze report --db "$WORK/m.db" --format markdown >"$WORK/r.md"

# the node_exporter's table: | C | ... | CPU busy | Steal |
sed -n "\\#^server metrics of $NX#,/^gauges/p" "$WORK/r.md" >"$WORK/nx.md"
check "the node_exporter's server table has CPU busy and steal columns" \
	grep -q '| CPU busy | Steal |$' "$WORK/nx.md"
cells=$(awk -F'|' '$2 ~ /^ [0-9]+ $/ { gsub(/ /, ""); print $2, $(NF - 2), $(NF - 1) }' "$WORK/nx.md")
check "... 25.0% busy, 12.5% steal at C=1 and C=4: $(echo $cells | tr '\n' ' ')" \
	[ "$(echo $cells)" = "1 25.0% 12.5% 4 25.0% 12.5%" ]
check "... the legend says what they are" grep -q 'CPU busy and steal: shares of the host' "$WORK/nx.md"
check "the engine's table has no CPU columns" sh -c \
	"sed -n '\\#^server metrics of $ENDPOINT/metrics #,/^gauges/p' '$WORK/r.md' | grep -q 'Gen tok' &&
	 ! sed -n '\\#^server metrics of $ENDPOINT/metrics #,/^gauges/p' '$WORK/r.md' | grep -q 'CPU busy'"

tb analyze report --db "$WORK/m.db" --format json >"$WORK/r.json"
got=$(jq -r '.[] | "\(.concurrency) \(.server_cpu_busy) \(.server_cpu_steal) \(.server_source == "'"$ENDPOINT/metrics"'") \(.server_generation_tokens)"' "$WORK/r.json")
client=$(zcat "$WORK/r.jsonl.gz" | grep '"warmup":false' | grep -o '"level":[0-9]*,.*"output_tokens":[0-9]*' |
	sed 's/"level":\([0-9]*\),.*"output_tokens":\([0-9]*\)/\1 \2/' |
	awk '{ t[$1] += $2 } END { for (l in t) print l, t[l] }' | sort -n)
want=$(echo "$client" | awk '{ printf "%s 0.25 0.125 true %s\n", $1, $2 }')
check "JSON: the CPU shares from the node_exporter, the engine named as the source, its tokens: $(echo $got | tr '\n' ' ')" \
	[ "$got" = "$want" ]

# the sources rank in their --metrics-url order, not in the order their
# first scrapes landed: a slow host can write the node_exporter's first
zcat "$WORK/r.jsonl.gz" | awk -v nx="\"source\":\"$NX\"" 'NR == 1 { print; next }
	index($0, nx) { print; next } { rest[++n] = $0 } END { for (i = 1; i <= n; i++) print rest[i] }' |
	gzip >"$WORK/swapped.jsonl.gz"
tb analyze load --db "$WORK/s.db" "$WORK/swapped.jsonl.gz" >/dev/null 2>&1
first=$(sqlite3 "$WORK/s.db" "SELECT source FROM metric_scrapes ORDER BY rowid LIMIT 1")
tb analyze report --db "$WORK/s.db" --format json >"$WORK/s.json"
got=$(jq -r '.[] | "\(.concurrency) \(.server_cpu_busy) \(.server_cpu_steal) \(.server_source == "'"$ENDPOINT/metrics"'") \(.server_generation_tokens)"' "$WORK/s.json")
check "... the same when the node_exporter's scrapes come first in the file ($first first)" \
	[ "$got" = "$want" -a "$first" = "$NX" ]

# two engines scraped: the timeline's lower panel draws one server's
# gauges (the first --metrics-url to report any), not both interleaved
start_mock --ttft-ms 5 --itl-ms 2
OTHER=$ENDPOINT
OTHER_PID=$MOCK_PID
start_mock --ttft-ms 40 --itl-ms 5 --slots 1
tb replay -q -e "$ENDPOINT" -c 4 -n 8 --metrics-url "$ENDPOINT/metrics" --metrics-url "$OTHER/metrics" \
	--metrics-interval 100ms --label two -o "$WORK/two.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>&1
stop_mock
kill "$OTHER_PID" 2>/dev/null
tb analyze load --db "$WORK/two.db" "$WORK/two.jsonl.gz" >/dev/null 2>&1
tb analyze plot --db "$WORK/two.db" --out "$WORK/plots" >/dev/null 2>&1
rows=$(awk '/^# server metrics of run 1/ { on = 1; next } on && /^[0-9]/ { n++ } on && /^$/ { on = 0 }
	END { print n + 0 }' "$WORK/plots/ttft_timeline.dat")
ok=$(sqlite3 "$WORK/two.db" "SELECT count(*) FROM metric_scrapes WHERE ok AND source = '$ENDPOINT/metrics'")
check "the timeline draws the served engine's $ok scrapes, not the idle one's too ($rows rows)" \
	[ "$rows" = "$ok" -a "$ok" -gt 0 ]
waited=$(awk '/^# server metrics of run 1/ { on = 1; next } on && /^[0-9]/ && $3 > 0 { n++ } END { print n + 0 }' \
	"$WORK/plots/ttft_timeline.dat")
check "... whose queue shows (one slot, four clients: $waited points with requests waiting)" \
	[ "$waited" -gt 0 ]
zcat "$WORK/two.jsonl.gz" | awk -v o="\"source\":\"$OTHER/metrics\"" 'NR == 1 { print; next }
	index($0, o) && !moved { moved = 1; sub(/"t_ns":[0-9]+/, "\"t_ns\":1"); print; next }
	{ rest[++n] = $0 } END { for (i = 1; i <= n; i++) print rest[i] }' |
	gzip >"$WORK/two-swapped.jsonl.gz"
tb analyze load --db "$WORK/two-swapped.db" "$WORK/two-swapped.jsonl.gz" >/dev/null 2>&1
tb analyze plot --db "$WORK/two-swapped.db" --out "$WORK/plots2" >/dev/null 2>&1
waited=$(awk '/^# server metrics of run 1/ { on = 1; next } on && /^[0-9]/ && $3 > 0 { n++ } END { print n + 0 }' \
	"$WORK/plots2/ttft_timeline.dat")
check "... the first --metrics-url's when the idle one's first scrape is the run's first ($waited points with requests waiting)" \
	[ "$waited" -gt 0 ]
finish
