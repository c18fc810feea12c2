#!/bin/sh
# replay --start-at with --metrics-url (issue 35): an open loop anchored
# at a wall-clock time keeps its schedule, so it cannot wait for its
# level-start scrape: the scrapers start as the warm-ups end and ask for
# it during the wait, ahead of the anchor, and the level's counters run
# from it to the level-end scrape after its last answer, as in any other
# level (before, such a level had neither, and its counters ran from its
# first interval scrape, after the start).
. tests/cli/lib.sh

if ! have sqlite3; then
	skip_all "a --start-at level's metrics window" "sqlite3 not installed"
fi
tb record synth -n 16 --input-tokens 16 --output-tokens 16 --seed 4 -o "$WORK/t.jsonl.gz" 2>/dev/null
start_mock --ttft-ms 20 --itl-ms 5
start=$(($(date +%s) + 2 * SLACK))
tb replay -q -e "$ENDPOINT" --rate 20 -n 16 --warmup 1 --start-at $start --metrics-url "$ENDPOINT/metrics" \
	-o "$WORK/r.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/r.err"
rc=$?
stop_mock
check "the replay anchored at --start-at ran" test $rc -eq 0
tb analyze load --db "$WORK/m.db" "$WORK/r.jsonl.gz" >/dev/null 2>&1
q() { sqlite3 -separator ' ' "$WORK/m.db" "$1"; }
edges=$(q "SELECT group_concat(at, ' ') FROM (SELECT at FROM metric_scrapes
	WHERE source IS NOT 'host' AND at IN ('level_start', 'level_end') ORDER BY scrape)")
check "the level has its level_start and level_end scrapes ($edges)" [ "$edges" = "level_start level_end" ]
first=$(q "SELECT min(sched_ns) FROM requests WHERE NOT warmup")
sent=$(q "SELECT t_ns FROM metric_scrapes WHERE at = 'level_start' AND source IS NOT 'host'")
check "... the start one sent before the anchor, where the first request is due ($sent < $first ns)" \
	[ "$sent" -lt "$first" ]
# the schedule is not late for it: the first request left on time
lag=$(q "SELECT (send_ns - sched_ns) / 1e6 FROM requests WHERE NOT warmup ORDER BY sched_ns LIMIT 1")
check "... and the first request left at its time ($lag ms late)$UPPER_NOTE" within_time "$lag" -1 5 1e9
# answered before the first request reached the server (on a loaded
# host it may not be, and then the counter may miss a token or two)
inbefore=$(q "SELECT t_ns + latency_us * 1000 <= $first FROM metric_scrapes
	WHERE at = 'level_start' AND source IS NOT 'host'")
client=$(q "SELECT sum(output_tokens) FROM requests WHERE NOT warmup")
tb analyze report --db "$WORK/m.db" --format csv >"$WORK/r.csv"
server=$(csv_field "$WORK/r.csv" server_generation_tokens 1)
if [ "$inbefore" = 1 ]; then
	check "the server's generated tokens over the window = the client's ($server = $client)" \
		[ "$server" = "$client" ]
else
	check "the server's generated tokens over the window (the start scrape answered late): at most the client's ($server <= $client)" \
		[ "$server" -le "$client" ]
fi
finish
