#!/bin/sh
# The Kubernetes Indexed Job of docs/ has the shape a sharded run needs
# (one pod a shard, the completion index as the shard, one start time, no
# retries), and its container's script, run here three times with the
# completion indexes Kubernetes would give, yields one complete run.
. tests/cli/lib.sh

JOB=docs/kubernetes-indexed-job.yaml
field() {  # the value of the first "  NAME: value" line
	sed -n "s/^ *$1: *\"*\([^\"]*\)\"*$/\1/p" "$JOB" | head -1
}
# The value of env variable $1 of the container.
env_value() {
	awk -v name="$1" '$0 ~ "- name: " name "$" { getline; sub(/^ *value: */, ""); gsub(/"/, ""); print; exit }' "$JOB"
}
shards=$(env_value SHARDS)
check "a batch/v1 Job" sh -c "grep -qx 'apiVersion: batch/v1' $JOB && grep -qx 'kind: Job' $JOB"
check "... in Indexed completion mode" test "$(field completionMode)" = Indexed
check "... completions = parallelism = SHARDS ($shards): every shard runs, all at once" \
	test "$(field completions)" = "$shards" -a "$(field parallelism)" = "$shards" -a -n "$shards"
check "... never retried (a retried shard would send twice)" \
	test "$(field backoffLimit)" = 0 -a "$(field restartPolicy)" = Never
check "... one pod a node" sh -c "grep -q 'podAntiAffinity' $JOB && grep -q 'topologyKey: kubernetes.io/hostname' $JOB"

sed -n '/# BEGIN replay script/,/# END replay script/p' "$JOB" | sed '1,2d;$d' |
	sed 's/^ *//' >"$WORK/script.sh"
check "the script replays shard \$JOB_COMPLETION_INDEX of \$SHARDS from \$START_AT" sh -c \
	"grep -q -- '--shard \"\$JOB_COMPLETION_INDEX/\$SHARDS\"' '$WORK/script.sh' &&
	 grep -q -- '--start-at \"\$START_AT\"' '$WORK/script.sh' &&
	 grep -q -- '-o \"/data/big-\$JOB_COMPLETION_INDEX.jsonl.gz\"' '$WORK/script.sh'"

# The script as the pods run it, on the shared volume /data (here $WORK/data),
# at a rate and length that fit a test.
start_mock --ttft-ms 2 --itl-ms 1
mkdir -p "$WORK/data" "$WORK/bin"
tb record synth -n 30 --input-tokens 8 --output-tokens 3 -o "$WORK/data/trace.jsonl.gz" 2>/dev/null
printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$VG" "$TB" >"$WORK/bin/tracebench"
chmod +x "$WORK/bin/tracebench"
sed -e "s|/data/|$WORK/data/|g" -e 's/--rate 200 -n 12000/--rate 20 -n 30/' "$WORK/script.sh" >"$WORK/pod.sh"
start_at=$(($(date +%s) + 4))
pids=""
k=0
while [ $k -lt "$shards" ]; do
	PATH="$WORK/bin:$PATH" ENDPOINT=$ENDPOINT START_AT=$start_at SHARDS=$shards JOB_COMPLETION_INDEX=$k \
		sh "$WORK/pod.sh" >/dev/null 2>"$WORK/pod$k.err" &
	pids="$pids $!"
	k=$((k + 1))
done
rc=0
for p in $pids; do wait "$p" || rc=1; done
check "$shards pods' scripts exit 0" test $rc -eq 0
tb analyze load --db "$WORK/k8s.db" "$WORK"/data/big-*.jsonl.gz 2>"$WORK/load.err"
check "... and load as one run holding every request once" \
	test "$(sqlite3 "$WORK/k8s.db" "select count(distinct label) || ',' || count(distinct trace_id) || ',' || count(*) from requests join runs using (run_id) where warmup = 0")" = "1,30,30"
check "... complete: no shard missing" sh -c "! grep -q 'missing' '$WORK/load.err'"
finish
