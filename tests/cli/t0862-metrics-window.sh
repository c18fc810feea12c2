#!/bin/sh
# replay --metrics-url counts a level's server counters over the level's
# own window (issue 35): a scrape before its first measured request and
# one after its last answer, so the mock's generated-token counter rises
# over each level by exactly the tokens the client received there (with
# 1-s interval scrapes alone, a 0.4-s level would be missed or cut); and
# the mock's TTFT histogram (vLLM's bounds, its true times) gives each
# level a median within one bucket of the client's.
. tests/cli/lib.sh

if ! have sqlite3; then
	skip_all "a level's counters and histograms over its window" "sqlite3 not installed"
fi
tb record synth -n 16 --input-tokens 32 --output-tokens 32 --seed 3 -o "$WORK/t.jsonl.gz" 2>/dev/null
start_mock --ttft-ms 50 --itl-ms 10
tb replay -q -e "$ENDPOINT" -c 1,4,8 --metrics-url "$ENDPOINT/metrics" --metrics-interval 1s \
	-o "$WORK/r.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/r.err"
rc=$?
stop_mock
tb analyze load --db "$WORK/m.db" "$WORK/r.jsonl.gz" >/dev/null 2>&1
q() { sqlite3 -separator ' ' "$WORK/m.db" "$1"; }

check "replay exits 0; each level has one level_start and one level_end scrape of each source (the server, the host)" sh -c \
	"[ $rc = 0 ] && [ \"\$(sqlite3 '$WORK/m.db' \"SELECT group_concat(n, ' ') FROM
	  (SELECT level, source, count(*) n FROM metric_scrapes WHERE at IN ('level_start', 'level_end')
	   GROUP BY level, source ORDER BY level, source)\")\" = '2 2 2 2 2 2' ]"
# the start scrape answered before the level's first measured request was
# sent, the end scrape was sent after its last answer
edges=$(q "SELECT count(*) FROM (SELECT r.level, min(r.send_ns) first, max(r.send_ns + r.e2e_ns) last
	FROM requests r WHERE NOT r.warmup GROUP BY r.level) l
	JOIN metric_scrapes s ON s.level = l.level AND s.at = 'level_start'
	JOIN metric_scrapes e ON e.level = l.level AND e.at = 'level_end' AND e.source IS s.source
	WHERE s.t_ns + s.latency_us * 1000 <= l.first AND e.t_ns >= l.last")
check "... the start scrape in before the first request, the end scrape after the last answer ($edges of 3 levels x 2 sources)" \
	[ "$edges" = 6 ]
check "the warm-up's scrapes and those between levels are marked between" sh -c \
	"[ \"\$(sqlite3 '$WORK/m.db' \"SELECT count(*) FROM metric_scrapes WHERE at = 'between'\")\" -ge 1 ]"

client=$(q "SELECT level, sum(output_tokens) FROM requests WHERE NOT warmup GROUP BY level ORDER BY level")
tb analyze report --db "$WORK/m.db" --format markdown >"$WORK/report.md" 2>&1
server=$(sed -n '/^server metrics/,/^gauges/p' "$WORK/report.md" |
	awk -F'|' '$2 ~ /^ [0-9]+ $/ { gsub(/ /, "", $2); gsub(/ /, "", $17); print $2, $17 }')
check "generated tokens over each level = the tokens the client received there: $(echo $server | tr '\n' ' ')" \
	[ "$server" = "$client" ]
check "... which the report says counts over the level's window" \
	grep -q 'counters as their increase over its window (from the scrape at its start' "$WORK/report.md"

# the TTFT rows: | C | TTFT | Obs | "50.0 (40-60 bucket)" | client P50 | ...
sed -n '/^server latency from its histograms/,$p' "$WORK/report.md" |
	awk -F'|' '$3 ~ /TTFT/' >"$WORK/ttft.rows"
within_one_bucket() {
	[ "$(wc -l <"$WORK/ttft.rows")" = 3 ] &&
	awk -F'|' 'BEGIN { n = split("1 5 10 20 40 60 80 100 250 500 750 1000 2500 5000", le, " ") }
	function bucket(v,   i) { for (i = 1; i <= n; i++) if (v <= le[i] + 0) return i; return n + 1 }
	{
		# " 50.0 (40-60 bucket) ": "", the estimate, the bounds of its bucket
		if (split($5, est, /[ (-]+/) < 4) exit 1
		client = $6 + 0; lo = est[3] + 0; hi = est[4] + 0
		# the TTFT of the client holds that of the server: never below
		# its bucket; within one bucket of it on a quiet host (a busy
		# one adds delay on the side of the client: timing tier)
		if (client < lo) exit 1
		if (tight && (bucket(client) - bucket(hi) > 1 || bucket(hi) - bucket(client) > 1)) exit 1
		if (est[2] + 0 <= lo || est[2] + 0 > hi) exit 1
	}' tight="$TIMING" "$WORK/ttft.rows"
}
check "the server's P50 TTFT bucket estimate lies at or below the client's P50, within one bucket$UPPER_NOTE, each level" \
	within_one_bucket
obs=$(awk -F'|' '{ gsub(/ /, "", $2); gsub(/ /, "", $4); print $2, $4 }' "$WORK/ttft.rows")
measured=$(q "SELECT level, count(*) FROM requests WHERE NOT warmup GROUP BY level ORDER BY level")
check "... from as many first tokens as the level's measured requests: $(echo $obs | tr '\n' ' ')" \
	[ "$obs" = "$measured" ]
check "... marked as bucket estimates with their bounds" \
	grep -q '^| 8 | TTFT | 16 | [0-9.]* ([0-9.]*-[0-9.]* bucket) |' "$WORK/report.md"

# CSV and JSON carry the server tables too, a flat row per level: the
# counters over the window, the bucket estimates with their bounds (as the
# Markdown table has them), the source, and the host replay ran on
if have jq; then
	tb analyze report --db "$WORK/m.db" --format json >"$WORK/report.json"
	json=$(jq -r '.[] | "\(.concurrency) \(.server_generation_tokens)"' "$WORK/report.json")
	check "JSON: server_generation_tokens per level = the client's tokens: $(echo $json | tr '\n' ' ')" \
		[ "$json" = "$client" ]
	json=$(jq -r '.[] | "\(.concurrency) \(.server_ttft_p50_ms) \(.server_ttft_p50_bucket_lo_ms) \(.server_ttft_p50_bucket_hi_ms)"' \
		"$WORK/report.json" | awk '{ printf "%s %.1f (%.4g-%.4g bucket)\n", $1, $2, $3, $4 }')
	md=$(awk -F'|' '{ gsub(/^ +| +$/, "", $2); gsub(/^ +| +$/, "", $5); print $2, $5 }' "$WORK/ttft.rows")
	check "JSON: the P50 TTFT bucket estimate and its bucket as the Markdown table's: $(echo $json | tr '\n' ' ')" \
		[ "$json" = "$md" ]
	ok=$(jq "all(.[]; .server_source == \"$ENDPOINT/metrics\" and .host_cpu_busy >= 0 and
		.host_cpu_busy <= 1 and .host_replay_cpu >= 0 and .host_cpu_steal >= 0)" "$WORK/report.json")
	check "JSON: the source named, the host's CPU shares in [0, 1]" [ "$ok" = true ]
	tb analyze report --db "$WORK/m.db" --format csv >"$WORK/report.csv"
	check "CSV: the same columns" sh -c \
		"head -1 '$WORK/report.csv' | grep -q ',server_source,server_running_avg,.*,server_ttft_p50_ms,server_ttft_p50_bucket_lo_ms,server_ttft_p50_bucket_hi_ms,.*,host_cpu_busy,host_cpu_steal,host_replay_cpu,client_bound_ttft_p50_ms,.*,client_limited_reason$'"
	tb analyze report --db "$WORK/m.db" >"$WORK/report.txt"
	check "... and not in the text sweep table" sh -c "! grep -q 'server_\|host_cpu' '$WORK/report.txt'"
else
	skip "server metrics in report's JSON" "jq not installed"
fi
finish
