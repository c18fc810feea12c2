#!/bin/sh
# bench-analyze.sh - how fast analyze loads and reports, against the sqlite3
# shell's own .import of the same rows (issue 4: load >= 0.5x .import;
# report on 1,000,000 requests < 5 s); and how long compare takes on two
# large runs, beside report's time on the same two.
#
#   N      requests in the generated results file (default 1000000)
#   M      requests in each of the two compared runs (default N / 5)
#   GAPS   inter-token gaps per request (default 50)
#   TB     the tracebench binary (default ./tracebench)
#
# Each results file is generated with awk: 8 levels (C=1..128) of N/8
# requests, one warm-up, every 97th request an HTTP error.

set -eu
N=${N:-1000000}
M=${M:-$((N / 5))}
GAPS=${GAPS:-50}
TB=${TB:-./tracebench}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT INT TERM

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# generate ID N SEED: a results file $W/ID.jsonl.gz, run ID, N requests.
generate() {
	awk -v n="$2" -v gaps="$GAPS" -v id="$1" -v seed="$3" 'BEGIN {
		srand(seed);
		printf "{\"format\":\"tracebench-results\",\"version\":1,\"run_id\":\"%s\",\"label\":\"%s\",\"created\":\"2026-11-30T00:00:00Z\",\"endpoint\":\"http://127.0.0.1:8000\",\"model\":\"mock\",\"trace\":{\"path\":\"t\",\"digest\":\"crc32:00000000\",\"requests\":%d},\"params\":{\"mode\":\"closed\"}}\n", id, id, n;
		per = int(n / 8); t = 0;
		for (i = 0; i < n; i++) {
			lvl = 2 ^ int(i / per); if (lvl > 128) lvl = 128;
			ttft = int(20000000 + rand() * 30000000); e2e = ttft + gaps * 5000000;
			itl = ""; for (j = 0; j < gaps; j++) itl = itl (j ? "," : "") int(4000 + rand() * 2000);
			err = (i % 97 == 96);
			printf "{\"level\":%d,\"seq\":%d,\"trace_id\":%d,\"warmup\":%s,\"status\":%d,\"error\":%s,\"sched_ns\":%d,\"send_ns\":%d,\"ttft_ns\":%s,\"ttfa_ns\":%s,\"e2e_ns\":%d,\"input_tokens\":512,\"output_tokens\":%d,\"tokens_estimated\":false,\"itl_us\":[%s]}\n",
				lvl, i, i % 64, i == 0 ? "true" : "false", err ? 500 : 200, err ? "\"http\"" : "null",
				t, t, err ? "null" : ttft, err ? "null" : ttft, err ? 1000000 : e2e,
				err ? 0 : gaps + 1, err ? "" : itl;
			t += 1000000;
		}
	}' | gzip -1 >"$W/$1.jsonl.gz"
}

echo "== generating $N requests with $GAPS gaps each"
generate bench "$N" 1
ls -l "$W/bench.jsonl.gz" | awk '{ printf "   %s bytes compressed\n", $5 }'

echo "== tracebench analyze load"
t0=$(now)
"$TB" analyze load --db "$W/a.db" "$W/bench.jsonl.gz" 2>/dev/null
t1=$(now)
load=$(secs "$t0" "$t1")
echo "   $load s, $(awk -v n="$N" -v s="$load" 'BEGIN { printf "%.0f", n / s }') rows/s"

echo "== sqlite3 .import of the same rows as CSV (same schema, fresh db)"
sqlite3 -csv "$W/a.db" 'SELECT * FROM requests' >"$W/rows.csv"
sqlite3 "$W/b.db" <schema/tracebench.sql
sqlite3 "$W/b.db" "INSERT INTO runs (run_id, label) VALUES ('bench', 'bench')"
t0=$(now)
sqlite3 "$W/b.db" -cmd '.mode csv' '.import rows.csv requests' 2>/dev/null ||
	(cd "$W" && sqlite3 b.db -cmd '.mode csv' '.import rows.csv requests')
t1=$(now)
imp=$(secs "$t0" "$t1")
echo "   $imp s, $(awk -v n="$N" -v s="$imp" 'BEGIN { printf "%.0f", n / s }') rows/s"
echo "   load rate / .import rate = $(awk -v a="$load" -v b="$imp" 'BEGIN { printf "%.2f", b / a }') (goal >= 0.5)"

echo "== tracebench analyze report ($N requests)"
t0=$(now)
"$TB" analyze report --db "$W/a.db" --format csv >"$W/report.csv"
t1=$(now)
rep=$(secs "$t0" "$t1")
echo "   $rep s (goal < 5 s)"

echo "== tracebench analyze compare (two runs of $M requests, $GAPS gaps each)"
generate before "$M" 2
generate after "$M" 3
"$TB" analyze load --db "$W/c.db" "$W/before.jsonl.gz" "$W/after.jsonl.gz" >/dev/null 2>&1
t0=$(now)
"$TB" analyze compare --db "$W/c.db" --format csv before after >"$W/compare.csv" 2>/dev/null
t1=$(now)
cmp=$(secs "$t0" "$t1")
t0=$(now)
"$TB" analyze report --db "$W/c.db" --format csv >"$W/report-c.csv"
t1=$(now)
crep=$(secs "$t0" "$t1")
echo "   compare $cmp s, report of the same two runs $crep s" \
	"(compare / report = $(awk -v a="$cmp" -v b="$crep" 'BEGIN { printf "%.1f", a / b }'))"
