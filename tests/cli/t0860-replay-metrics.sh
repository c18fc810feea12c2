#!/bin/sh
# replay --metrics-url: the server's /metrics scraped on replay's loop into
# "metrics" records of the results file (a version 2 file), each under the
# level it ran in; a slow, failing, malformed or absent endpoint marks its
# records and leaves the replay as it was.
. tests/cli/lib.sh

tb record synth -n 12 --input-tokens 32 --output-tokens 20 --seed 1 -o "$WORK/t.jsonl.gz" 2>/dev/null
recs() { zcat "$1" | grep '^{"type":"metrics"' | grep -v '^{"type":"metrics","source":"host"'; }
field() {  # file key: the values of key in the metrics records, one a line
	recs "$1" | grep -o "\"$2\":[^,}]*" | cut -d: -f2-
}
run() {  # name, then mock flags
	name=$1
	shift
	start_mock --itl-ms 20 "$@"
	t0=$(date +%s%N)
	tb replay -e "$ENDPOINT" -c 2,4 --metrics-url "$ENDPOINT/metrics" --metrics-interval 100ms \
		-q -o "$WORK/$name.jsonl.gz" "$WORK/t.jsonl.gz" >"$WORK/$name.out" 2>"$WORK/$name.err"
	echo $? >"$WORK/$name.rc"
	echo $((($(date +%s%N) - t0) / 1000000)) >"$WORK/$name.ms"
	stop_mock
}

run good
check "exit 0, the header says version 2 and names the scrape" sh -c \
	"[ \$(cat '$WORK/good.rc') = 0 ] && zcat '$WORK/good.jsonl.gz' | head -1 |
	 grep -q '\"version\":2,.*\"metrics\":{\"url\":\"http://127.0.0.1:[0-9]*/metrics\",\"interval_s\":0.1,\"timeout_ms\":75,\"sources\":\[\"http://127.0.0.1:[0-9]*/metrics\"\]'"
n=$(recs "$WORK/good.jsonl.gz" | wc -l)
ms=$(cat "$WORK/good.ms")
check "about one scrape per 100 ms, and one at each level's start and end ($n in $ms ms)" \
	awk -v n="$n" -v ms="$ms" 'BEGIN { exit !(n >= ms / 100 * 0.5 && n <= ms / 100 + 6) }'
# A busy host starves the mock past the 75-ms timeout now and then (3 of
# 29 once): those scrapes are recorded as timed out, the rest ok.
all_ok() {  # file: every scrape ok (or timed out: at most a quarter), under level 2 or 4, with the mock's running count
	n_all=$(recs "$1" | wc -l)
	n_ok=$(recs "$1" | grep -c '"ok":true')
	n_late=$(recs "$1" | grep -c '"ok":false,"error":"timeout: ')
	[ $((n_ok + n_late)) -eq "$n_all" ] && [ $((4 * n_late)) -le "$n_all" ] &&
	! field "$1" level | grep -qv '^[24]$' &&
	recs "$1" | grep -q '"vllm:num_requests_running{model_name=\\"mock\\"}":[1-4]'
}
check "every scrape ok (a busy host's timeouts aside), under level 2 or 4, the mock's vLLM names in it" all_ok "$WORK/good.jsonl.gz"
check "the replay's 13 results are all there, every request ok" sh -c \
	"[ \$(zcat '$WORK/good.jsonl.gz' | grep -c '\"trace_id\"') = 13 ] &&
	 [ \$(zcat '$WORK/good.jsonl.gz' | grep -c '\"error\":null') = 13 ]"

run slow --metrics-fault slow:1000
check "slow /metrics: the replay takes its usual time ($(cat "$WORK/slow.ms") ms vs $ms ms) and exits 0" sh -c \
	"[ \$(cat '$WORK/slow.rc') = 0 ] && [ \$(cat '$WORK/slow.ms') -lt \$(($ms + 600)) ]"
timed_out() {
	[ "$(recs "$1" | wc -l)" -ge 3 ] && ! field "$1" ok | grep -qv false &&
	recs "$1" | grep -q '"error":"timeout: '
}
check "... its scrapes recorded as timed out at 75 ms, not ok" timed_out "$WORK/slow.jsonl.gz"
check "... every request ok" sh -c "[ \$(zcat '$WORK/slow.jsonl.gz' | grep -c '\"error\":null') = 13 ]"

run failing --metrics-fault status:503
failing() {
	[ "$(cat "$WORK/failing.rc")" = 0 ] && ! field "$1" status | grep -qv 503 &&
	recs "$1" | grep -q '"ok":false,"error":"HTTP 503"'
}
check "failing /metrics: status 503 and 'HTTP 503' in each record, exit 0" failing "$WORK/failing.jsonl.gz"

run malformed --metrics-fault malformed
malformed() {
	[ "$(cat "$WORK/malformed.rc")" = 0 ] && ! field "$1" bad_lines | grep -qv '^3$' &&
	recs "$1" | grep -q '"first_bad":"line 29: unterminated label value"' &&
	recs "$1" | grep -q 'vllm:generation_tokens_total'
}
check "malformed /metrics: ok, the good samples kept, 3 bad lines counted, the first named" \
	malformed "$WORK/malformed.jsonl.gz"

start_mock --itl-ms 20
port=$(free_port)
tb replay -e "$ENDPOINT" -c 2 --metrics-url "http://127.0.0.1:$port/metrics" -q \
	-o "$WORK/absent.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>&1
rc=$?
absent() { [ "$rc" = 0 ] && recs "$1" | grep -q '"ok":false,"error":"connect: '; }
check "no server at --metrics-url: exit $rc, connect errors recorded" absent "$WORK/absent.jsonl.gz"
for bad in "--metrics-url ftp://x/metrics" "--metrics-url http://[::1" \
	   "--metrics-url $ENDPOINT/metrics --metrics-interval 10ms" \
	   "--metrics-url $ENDPOINT/metrics --metrics-interval 1x"; do
	# shellcheck disable=SC2086
	tb replay -e "$ENDPOINT" $bad -o "$WORK/bad.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/bad.err"
	rc=$?
	check "refused with exit 2: $bad" sh -c "[ $rc = 2 ] && [ ! -e '$WORK/bad.jsonl.gz' ] &&
		grep -q 'metrics' '$WORK/bad.err'"
done
stop_mock

# analyze load: the scrapes into their own tables, the requests as always
tb analyze load --db "$WORK/m.db" "$WORK/good.jsonl.gz" "$WORK/malformed.jsonl.gz" \
	"$WORK/slow.jsonl.gz" >/dev/null 2>&1
nrec=$(( $(recs "$WORK/good.jsonl.gz" | wc -l) + $(recs "$WORK/malformed.jsonl.gz" | wc -l) + $(recs "$WORK/slow.jsonl.gz" | wc -l) ))
if have sqlite3; then
	check "analyze load: every scrape a row of metric_scrapes ($nrec), the requests 3 x 13" sh -c \
		"[ \"\$(sqlite3 '$WORK/m.db' \"SELECT count(*) FROM metric_scrapes WHERE source != 'host'\")\" = $nrec ] &&
		 [ \"\$(sqlite3 '$WORK/m.db' 'SELECT count(*) FROM requests')\" = 39 ]"
	check "... the samples by name and series, failed scrapes without any" sh -c \
		"[ \"\$(sqlite3 '$WORK/m.db' \"SELECT count(*) FROM metric_samples s JOIN metric_scrapes c USING (run_id, scrape) WHERE NOT c.ok\")\" = 0 ] &&
		 [ \"\$(sqlite3 '$WORK/m.db' \"SELECT count(DISTINCT series) FROM metric_samples WHERE name = 'vllm:request_success_total'\")\" = 2 ]"
	label=$(sqlite3 "$WORK/m.db" "SELECT label FROM runs r JOIN metric_scrapes c USING (run_id) WHERE c.bad_lines = 3 LIMIT 1")
	tb analyze rm --db "$WORK/m.db" "$label" >/dev/null 2>&1
	check "analyze rm takes a run's scrapes and samples with it" sh -c \
		"[ \"\$(sqlite3 '$WORK/m.db' 'SELECT count(*) FROM metric_scrapes WHERE bad_lines > 0')\" = 0 ] &&
		 [ \"\$(sqlite3 '$WORK/m.db' 'SELECT count(*) FROM metric_samples WHERE run_id NOT IN (SELECT run_id FROM metric_scrapes)')\" = 0 ]"
else
	skip "analyze load's metrics tables" "sqlite3 not installed"
fi

# analyze report: each level's server metrics under vLLM's names
tb analyze report --db "$WORK/m.db" --format markdown >"$WORK/report.md" 2>&1
good_label=$(zcat "$WORK/good.jsonl.gz" | head -1 | sed 's/.*"label":"\([^"]*\)".*/\1/')
tb analyze load --db "$WORK/g.db" "$WORK/good.jsonl.gz" >/dev/null 2>&1
tb analyze report --db "$WORK/g.db" --format csv >/dev/null 2>&1
tb analyze report --db "$WORK/g.db" >"$WORK/g.txt" 2>&1
srv_row() {  # level: the markdown row of that level in the server metrics table of g
	tb analyze report --db "$WORK/g.db" --format markdown 2>/dev/null |
		sed -n '/^server metrics/,$p' | awk -F'|' -v c="$1" '$2 == " " c " " { print }'
}
row2=$(srv_row 2)
row4=$(srv_row 4)
report_rows() {
	grep -q '^server metrics (vllm names' "$WORK/g.txt" &&
	# C 2 ran with at most 2 in flight, C 4 with at most 4, none waiting, none failed
	echo "$row2" | awk -F'|' '{ exit !($4 + 0 == 0 && $7 + 0 >= 1 && $7 + 0 <= 2 && $9 + 0 == 0) }' &&
	echo "$row4" | awk -F'|' '{ exit !($4 + 0 == 0 && $7 + 0 >= 3 && $7 + 0 <= 4 && $9 + 0 == 0) }'
}
check "analyze report: a server metrics row per level, running at most C ($good_label)" report_rows
check "... the slow run's failed scrapes counted, its figures absent" \
	grep -q '^| [24] | [0-9]* | [1-9][0-9]* | 0 | - |' "$WORK/report.md"

# analyze plot: the server's queue and KV-cache use under the TTFT timeline
tb analyze plot --db "$WORK/g.db" --out "$WORK/plots" >/dev/null 2>&1
panel() {
	grep -q '^set multiplot layout 2,1' "$WORK/plots/ttft_timeline.gp" &&
	grep -q "index 2 using 1:2 with steps .*: running'" "$WORK/plots/ttft_timeline.gp" &&
	grep -q "using 1:4 axes x1y2 with steps .*: KV use'" "$WORK/plots/ttft_timeline.gp" &&
	[ "$(grep -c '^[0-9.]* [0-9.?]* [0-9.?]* [0-9.?]*$' "$WORK/plots/ttft_timeline.dat")" = \
	  "$(recs "$WORK/good.jsonl.gz" | grep -c '"ok":true')" ]
}
check "analyze plot: ttft_timeline gets a lower panel, one row per scrape that answered" panel
if have gnuplot; then
	check "... rendered by gnuplot" sh -c "[ -s '$WORK/plots/ttft_timeline.png' ] &&
		head -c 8 '$WORK/plots/ttft_timeline.png' | od -c | grep -q 'P   N   G'"
else
	skip "... rendered by gnuplot" "gnuplot not installed"
fi
finish
