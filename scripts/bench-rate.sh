#!/bin/sh
# bench-rate.sh - section 3 of make bench: raw request rate. replay's
# requests/s against wrk's (about the most a client does on loopback),
# non-streamed 1-token replies from the same mock, keep-alive, 64
# connections; replay and wrk in turn, RUNS times; medians.

. "$(dirname "$0")/bench-lib.sh"

rn=20000 wrk_s=5
[ "$QUICK" = 1 ] && rn=5000 wrk_s=2

"$TB" record synth -n 64 --input-tokens 8 --output-tokens 1 -o "$W/short.jsonl.gz" 2>/dev/null
zcat "$W/short.jsonl.gz" | sed 's/\\"stream\\":true/\\"stream\\":false/' | gzip >"$W/nostream.jsonl.gz"
start_mock --ttft-ms 0 --itl-ms 0
cat >"$W/post.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"model":"mock","messages":[{"role":"user","content":"hi"}],"max_tokens":1}'
wrk.headers["Content-Type"] = "application/json"
LUA
: >"$W/rate"
i=0
while [ $i -lt "$RUNS" ]; do
	rm -f "$W/q.jsonl.gz" "$W/q.db"
	"$TB" replay --endpoint "$endpoint" -c 64 -n $rn --warmup 0 --quiet \
		-o "$W/q.jsonl.gz" "$W/nostream.jsonl.gz" >/dev/null 2>&1
	"$TB" analyze load --db "$W/q.db" "$W/q.jsonl.gz" 2>/dev/null
	"$TB" analyze report --db "$W/q.db" --format csv >"$W/q.csv"
	ours=$(awk -v ok="$(csv_col "$W/q.csv" ok)" -v s="$(csv_col "$W/q.csv" wall_s)" 'BEGIN { printf "%.0f", ok / s }')
	theirs=0
	if command -v wrk >/dev/null; then
		theirs=$(wrk -t1 -c64 -d${wrk_s}s -s "$W/post.lua" "$endpoint/v1/chat/completions" |
			awk '/^Requests\/sec/ { print $2 }')
	fi
	echo "$ours $theirs" >>"$W/rate"
	say "   round $((i + 1))/$RUNS: replay $ours req/s, wrk $theirs req/s"
	i=$((i + 1))
done

echo "## 3. Raw request rate"
echo
echo "Non-streamed 1-token replies, keep-alive, 64 connections, same mock; wrk (1 thread, $wrk_s s) is the"
echo "reference (goal: replay ≥ 0.5 × wrk)."
echo
echo "| replay (req/s) | wrk (req/s) | ratio |"
echo "|--:|--:|--:|"
if command -v wrk >/dev/null; then
	printf "| %s | %s | %s |\n" "$(awk '{ print $1 }' "$W/rate" | median)" \
		"$(awk '{ print $2 }' "$W/rate" | median | awk '{ printf "%.0f", $1 }')" \
		"$(awk '$2 > 0 { printf "%.3f\n", $1 / $2 }' "$W/rate" | median)"
else
	echo "| $(awk '{ print $1 }' "$W/rate" | median) | wrk not installed (apt-get install wrk) | - |"
fi
