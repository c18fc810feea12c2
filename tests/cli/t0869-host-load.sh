#!/bin/sh
# How busy the host replay ran on was, per level (issue 32): replay writes
# the host's /proc/stat at each level's start and end (source "host");
# analyze report gives the share of the host's CPU time that was busy,
# stolen and replay's own; compare warns when one run's host was much
# busier than the other's.
#
# What holds at any load: with a busy loop on every CPU the host is busy
# (at least 90%), whatever else runs. compare's warning is checked on files
# whose host records say a quiet and a busy host (a real run's records,
# their idle counters rewritten), so no check depends on this host's load.
. tests/cli/lib.sh

tb record synth -n 8 --input-tokens 16 --output-tokens 20 --seed 5 -o "$WORK/t.jsonl.gz" 2>/dev/null
start_mock --ttft-ms 50 --itl-ms 10

# every CPU busy: one loop each, for the replay's time
cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
loops=""
i=0
while [ $i -lt "$cpus" ]; do
	sh -c 'while :; do :; done' &
	loops="$loops $!"
	i=$((i + 1))
done
tb replay -q -e "$ENDPOINT" -c 1,2 -n 4 --warmup 0 --label busy -o "$WORK/busy.jsonl.gz" \
	"$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/busy.err"
rc=$?
for p in $loops; do kill "$p" 2>/dev/null; done
stop_mock
check "replay exits 0 with a busy loop on each of the $cpus CPUs" test $rc -eq 0
check "a host record at each level's start and end, and only there" sh -c \
	"test \$(zcat '$WORK/busy.jsonl.gz' | grep -c '^{\"type\":\"metrics\",\"source\":\"host\",.*\"at\":\"level_start\"') -eq 2 &&
	 test \$(zcat '$WORK/busy.jsonl.gz' | grep -c '^{\"type\":\"metrics\",\"source\":\"host\",.*\"at\":\"level_end\"') -eq 2 &&
	 test \$(zcat '$WORK/busy.jsonl.gz' | grep -c '^{\"type\":\"metrics\"') -eq 4"
check "... the header a version 2 file's" sh -c \
	"zcat '$WORK/busy.jsonl.gz' | head -1 | grep -q '^{\"format\":\"tracebench-results\",\"version\":2,'"
tb analyze load --db "$WORK/h.db" "$WORK/busy.jsonl.gz" >/dev/null 2>&1
tb analyze report --db "$WORK/h.db" >"$WORK/report.txt" 2>&1
sed -n '/^the host replay ran on (host;/,$p' "$WORK/report.txt" >"$WORK/host.txt"
check "report: the host table, a row per level" test "$(grep -cE '^ *[12] ' "$WORK/host.txt")" -eq 2
check "... the host at least 90% busy at both levels, whatever else ran" awk '
	$1 ~ /^[12]$/ { v = $2; sub(/%/, "", v); n++; if (v + 0 < 90) bad++ }
	END { exit bad || n != 2 }' "$WORK/host.txt"
check "... replay's own share of it small (under 50%)" awk '
	$1 ~ /^[12]$/ { v = $4; sub(/%/, "", v); n++; if (v == "-" || v + 0 >= 50) bad++ }
	END { exit bad || n != 2 }' "$WORK/host.txt"

# A quiet host and a busy one: the same run's records, each level's end
# record's idle seconds set so that the level was 10% or 95% busy.
# rewrite FILE BUSY OUT: each level's end record with no I/O wait over the
# level and its idle seconds such that the busy modes (as recorded) are
# BUSY of the increase of all modes.
rewrite() {
	zcat "$1" | awk -v busy="$2" '
	function num(s, key,   t) { t = s; if (!sub(".*\"" key "\":", "", t)) return ""; sub(/[,}].*/, "", t); return t }
	function set(s, mode, v) {
		sub("\"node_cpu_seconds_total\\{mode=\\\\\"" mode "\\\\\"\\}\":[0-9.e+]*",
		    "\"node_cpu_seconds_total{mode=\\\"" mode "\\\"}\":" sprintf("%.4f", v), s)
		return s }
	/^\{"type":"metrics","source":"host"/ {
		idle = "node_cpu_seconds_total{mode=\\\\\"idle\\\\\"}"
		iow = "node_cpu_seconds_total{mode=\\\\\"iowait\\\\\"}"
		lvl = num($0, "level")
		if ($0 ~ /"at":"level_start"/) {
			start_idle[lvl] = num($0, idle); start_iow[lvl] = num($0, iow)
			start_all[lvl] = all($0); print; next }
		# the end: the busy modes as recorded, no I/O wait, idle set so
		# that the busy modes are the share asked for of the increase
		inc_rest = all($0) - num($0, idle) - num($0, iow)
		inc_rest -= start_all[lvl] - start_idle[lvl] - start_iow[lvl]
		if (inc_rest <= 0) inc_rest = 1
		line = set($0, "idle", start_idle[lvl] + inc_rest * (1 - busy) / busy)
		print set(line, "iowait", start_iow[lvl]); next }
	NR == 1 { sub(/"run_id":"[0-9a-f]*"/, "\"run_id\":\"" (busy > 0.5 ? "b" : "a") "0000000000000000\"") }
	{ print }
	function all(s,   t, v, n) {
		n = 0; t = s
		while (match(t, /"node_cpu_seconds_total\{mode=\\"[a-z]*\\"\}":[0-9.e+]*/)) {
			v = substr(t, RSTART, RLENGTH); sub(/.*:/, "", v); n += v
			t = substr(t, RSTART + RLENGTH) }
		return n }' | gzip >"$3"
}
rewrite "$WORK/busy.jsonl.gz" 0.10 "$WORK/quiet-host.jsonl.gz"
rewrite "$WORK/busy.jsonl.gz" 0.95 "$WORK/busy-host.jsonl.gz"
tb analyze load --db "$WORK/c.db" --label quiet "$WORK/quiet-host.jsonl.gz" >/dev/null 2>&1
tb analyze load --db "$WORK/c.db" --label loaded "$WORK/busy-host.jsonl.gz" >/dev/null 2>&1
tb analyze report --db "$WORK/c.db" --run quiet >"$WORK/quiet.txt" 2>&1
check "a rewritten quiet host reads 10% busy at both levels" test \
	"$(sed -n '/^the host replay ran on/,$p' "$WORK/quiet.txt" | grep -cE '^ *[12] +10\.0% ')" -eq 2
tb analyze compare --db "$WORK/c.db" quiet loaded >"$WORK/cmp.txt" 2>&1
check "compare: 'loaded' ran on a busier host, 95% against 10%, named with its level" \
	grep -q "^warning: 'loaded' ran on a busier host: its CPUs 95% busy against 10% at C=[12] " "$WORK/cmp.txt"
tb analyze compare --db "$WORK/c.db" quiet quiet >"$WORK/same.txt" 2>&1
check "... and nothing of the host when both hosts were alike" sh -c "! grep -q 'busier host' '$WORK/same.txt'"
finish
