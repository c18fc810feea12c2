#!/bin/sh
# The small classes of the second hardening pass: URLs checked where they
# enter, a conversation held to the token cap, another application's
# database refused and no empty database left behind, stdout that cannot
# be written is a failure, and synth/import end their file whole on a
# signal.
. tests/cli/lib.sh

tb record synth -n 2 --input-tokens 8 --output-tokens 4 -o "$WORK/t.jsonl.gz" 2>/dev/null
for url in 'http://' 'http://[::1' 'ftp://host/' 'http://:80/'; do
	tb replay -e "$url" -o "$WORK/x.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/err"
	check "replay -e '$url': refused, exit 2, nothing written" sh -c \
		"test $? -eq 2 && grep -Eq 'invalid --endpoint|must be an http' '$WORK/err' && test ! -e '$WORK/x.jsonl.gz'"
done

tb record synth -n 80 --turns 40 --input-tokens 300000 --output-tokens 10 -o "$WORK/turns.jsonl.gz" 2>"$WORK/err"
check "synth --turns 40 --input-tokens 300000: refused before writing (exit 2, no file)" sh -c \
	"test $? -eq 2 && grep -q 'over the cap of 10000000' '$WORK/err' && test ! -e '$WORK/turns.jsonl.gz'"

sqlite3 "$WORK/other.db" 'CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ("x")'
tb analyze load --db "$WORK/other.db" sample_traces/results-sample.jsonl.gz 2>"$WORK/err"
check "analyze load into another application's database: refused (exit 2)" sh -c \
	"test $? -eq 2 && grep -q \"another application's SQLite database\" '$WORK/err'"
check "... which is left as it was (no tracebench table)" \
	test "$(sqlite3 "$WORK/other.db" 'select group_concat(name) from sqlite_master')" = contacts
tb analyze load --db "$WORK/new.db" "$WORK/t.jsonl.gz" 2>/dev/null
check "analyze load of a trace: refused, and no empty database left behind" sh -c \
	"test $? -eq 2 && test ! -e '$WORK/new.db'"

tb analyze load --db "$WORK/s.db" sample_traces/results-sample.jsonl.gz 2>/dev/null
tb analyze report --db "$WORK/s.db" >&- 2>"$WORK/err"
check "analyze report with stdout closed: exit 1, said" sh -c \
	"test $? -eq 1 && grep -q 'cannot write to standard output' '$WORK/err'"
start_mock --ttft-ms 1 --itl-ms 1 --tokens 2
# replay ignores SIGPIPE: the closed pipe shows as EPIPE
{ sleep 0.5; tb replay -e "$ENDPOINT" -n 2 --warmup 0 --quiet -o "$WORK/p.jsonl.gz" "$WORK/t.jsonl.gz" \
	2>"$WORK/err"; echo $? >"$WORK/rc"; } | true
check "replay into a closed pipe: exit 1, said" sh -c \
	"test \$(cat '$WORK/rc') -eq 1 && grep -q 'cannot write to standard output' '$WORK/err'"
stop_mock

# SIGINT/SIGTERM during a long synth / import: the gzip is finished
for sig in INT TERM; do
	# not through tb(): $! must be tracebench itself, not a subshell
	$VG "$TB" record synth -n 100000 --input-tokens 2000 -o "$WORK/s-$sig.jsonl.gz" 2>"$WORK/err" &
	pid=$!
	sleep 1
	kill -$sig $pid
	wait $pid
	rc=$?
	want=130
	[ $sig = TERM ] && want=143
	n=$(requests_of "$WORK/s-$sig.jsonl.gz" 2>/dev/null | wc -l)
	check "record synth, SIG$sig: exit $want (got $rc), a whole gzip holding what it says ($n)" sh -c \
		"test $rc -eq $want && gzip -t '$WORK/s-$sig.jsonl.gz' && grep -q 'wrote $n of 100000 requests' '$WORK/err'"
done
awk 'BEGIN { print "timestamp,ContextTokens,GeneratedTokens"; for (i = 0; i < 200000; i++) printf "2023-11-16 18:15:46.%07d,2000,10\n", i }' \
	>"$WORK/azure.csv"
$VG "$TB" record import --format azure "$WORK/azure.csv" -o "$WORK/i.jsonl.gz" 2>"$WORK/err" &
pid=$!
sleep 2
kill -INT $pid
wait $pid
rc=$?
n=$(requests_of "$WORK/i.jsonl.gz" 2>/dev/null | wc -l)
check "record import, SIGINT: exit 130 (got $rc), a whole gzip holding what it says ($n)" sh -c \
	"test $rc -eq 130 && gzip -t '$WORK/i.jsonl.gz' && grep -q 'wrote $n of 200000 requests' '$WORK/err'"

# temporary files are created exclusively: a planted link is never followed
echo victim >"$WORK/victim"
mkdir "$WORK/plot"
for f in scaling.dat scaling.gp; do ln -s "$WORK/victim" "$WORK/plot/$f.tmp"; done
tb analyze plot --db "$WORK/s.db" --out "$WORK/plot" >/dev/null 2>&1
check "analyze plot beside planted NAME.tmp links: the link's target is untouched" sh -c \
	"test \"\$(cat '$WORK/victim')\" = victim && test -s '$WORK/plot/scaling.dat'"
# ... nor one planted at the image's own name: gnuplot renders to a fresh
# name that replaces the link (with --force, the only way past the check
# that refuses existing files)
mkdir "$WORK/plot2"
ln -s "$WORK/victim" "$WORK/plot2/scaling.png"
tb analyze plot --db "$WORK/s.db" --out "$WORK/plot2" --force >/dev/null 2>&1
check "analyze plot --force over a link planted at scaling.png: its target untouched, the image a file" sh -c \
	"test \"\$(cat '$WORK/victim')\" = victim && test ! -L '$WORK/plot2/scaling.png' && test -s '$WORK/plot2/scaling.png' && ! ls '$WORK/plot2' | grep -q 'XXXX\\|\\.png\\.'"
start_mock --ttft-ms 1
ln -s "$WORK/victim" "$WORK/pfile.tmp"
$VG "$TB" record proxy --upstream "$ENDPOINT" --listen 127.0.0.1:0 --port-file "$WORK/pfile" \
	-o "$WORK/pp.jsonl.gz" 2>/dev/null &
pid=$!
i=0
while [ ! -s "$WORK/pfile" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -INT $pid
wait $pid
check "--port-file beside a planted FILE.tmp link: written, the link's target untouched" sh -c \
	"test \"\$(cat '$WORK/victim')\" = victim && test -s '$WORK/pfile'"
stop_mock

# running out of file descriptors is said up front, not blamed on the server
(ulimit -n 64; exec "$TB" replay -e http://127.0.0.1:9 -c 200 -o "$WORK/fd.jsonl.gz" "$WORK/t.jsonl.gz") \
	>/dev/null 2>"$WORK/err"
check "replay -c 200 under ulimit -n 64: refused up front (exit 2), saying why" sh -c \
	"test $? -eq 2 && grep -q 'the limit is 64' '$WORK/err' && test ! -e '$WORK/fd.jsonl.gz'"

# analyze under a limit on address space (ASan and valgrind reserve more
# address space than the limit for themselves: skipped there)
if [ -n "$VG" ] || ldd "$TB" 2>/dev/null | grep -q libasan; then
	skip "analyze load and report under ulimit -v 200000" "the sanitizer or valgrind needs more address space"
else
	(ulimit -v 200000; exec "$TB" analyze load --db "$WORK/v.db" sample_traces/results-sample.jsonl.gz) 2>/dev/null
	check "analyze load under ulimit -v 200000: works" test $? -eq 0
	(ulimit -v 200000; exec "$TB" analyze report --db "$WORK/v.db") >/dev/null 2>&1
	check "analyze report under ulimit -v 200000: works" test $? -eq 0
fi
finish
