#!/bin/sh
# bench-proxy.sh - section 5 of make bench: the latency `tracebench record
# proxy` adds in front of an endpoint, beside what nginx adds as a
# streaming reverse proxy in front of the same mock, in the same run.
#
# The mock streams 20 tokens (50 ms TTFT, 10 ms per token). At C = 1 and
# C = 256, replay runs straight to the mock, through nginx and through the
# proxy, RUNS rounds, the order turning each round (direct nginx proxy,
# nginx proxy direct, ...).
# Each replay's TTFT and inter-token gap (ITL) P50/P99 are computed from
# its results (loaded with analyze, read with sqlite3) over the requests
# sent on open connections (all but the first C); "added" is a replay
# through a proxy minus the direct replay of the same round. Medians of
# the rounds are printed. nginx: Debian's package, one worker, generated
# config below (proxy_buffering off, HTTP/1.1 keep-alive upstream, access
# log on as the proxy writes its trace), run in the foreground with its
# own pid, logs and temp folders, not the system service.
#
# Writes $PLOTS/bench-proxy.png (added latency, nginx beside the proxy).

. "$(dirname "$0")/bench-lib.sh"

tokens=20
levels="1:20 256:1280"   # C:requests
[ "$QUICK" = 1 ] && levels="1:4 256:512"
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}

"$TB" record synth -n 64 --input-tokens 32 --output-tokens $tokens -o "$W/trace.jsonl.gz" 2>/dev/null
start_mock --ttft-ms 50 --itl-ms 10

# nginx on a free port of 20000..31999 (it cannot report the port it got,
# so a few are tried); sets $nginx_url and $nginx_worker.
start_nginx() {
	mkdir -p "$W/nginx/tmp"
	tries=0
	while [ $tries -lt 10 ]; do
		port=$(awk -v s="$$$tries" 'BEGIN { srand(s); print 20000 + int(rand() * 12000) }')
		cat >"$W/nginx/nginx.conf" <<-EOF
		daemon off;
		worker_processes 1;
		worker_rlimit_nofile 16384;
		pid $W/nginx/nginx.pid;
		error_log $W/nginx/error.log warn;
		events { worker_connections 4096; }
		http {
		    access_log $W/nginx/access.log;
		    client_body_temp_path $W/nginx/tmp/body;
		    proxy_temp_path $W/nginx/tmp/proxy;
		    fastcgi_temp_path $W/nginx/tmp/fastcgi;
		    uwsgi_temp_path $W/nginx/tmp/uwsgi;
		    scgi_temp_path $W/nginx/tmp/scgi;
		    upstream mock {
		        server 127.0.0.1:${endpoint##*:};
		        keepalive 1024;
		        keepalive_requests 1000000;
		    }
		    server {
		        listen 127.0.0.1:$port;
		        keepalive_requests 1000000;
		        location / {
		            proxy_pass http://mock;
		            proxy_http_version 1.1;
		            proxy_set_header Connection "";
		            proxy_buffering off;
		        }
		    }
		}
		EOF
		spawn "$NGINX" -p "$W/nginx" -e "$W/nginx/error.log" -c "$W/nginx/nginx.conf"
		nginx=$last
		while kill -0 $nginx 2>/dev/null && [ ! -s "$W/nginx/nginx.pid" ]; do sleep 0.05; done
		# the worker exists once the master has written its pid file
		while kill -0 $nginx 2>/dev/null &&
			! nginx_worker=$(head -1 "/proc/$nginx/task/$nginx/children" 2>/dev/null | awk 'NF { print $1; ok = 1 } END { exit !ok }'); do
			sleep 0.05
		done
		if kill -0 $nginx 2>/dev/null; then
			nginx_url=http://127.0.0.1:$port
			return 0
		fi
		stop $nginx
		tries=$((tries + 1))
	done
	say "bench-proxy: nginx did not start:"; cat "$W/nginx/error.log" >&2
	return 1
}

have_nginx=0
if [ -x "$NGINX" ] && start_nginx; then have_nginx=1; fi

rm -f "$W/proxy.port"
spawn "$TB" record proxy --quiet --listen 127.0.0.1:0 --port-file "$W/proxy.port" \
	--upstream "$endpoint" -o "$W/recorded.jsonl.gz" 2>"$W/proxy.log"
proxy=$last
while [ ! -s "$W/proxy.port" ]; do sleep 0.05; done
proxy_url=http://127.0.0.1:$(cat "$W/proxy.port")

# One replay at C through URL; appends to $W/proxy the line
# "round C target ttft_p50 ttft_p99 itl_p50 itl_p99 cpu_s events"
# (cpu_s: the CPU the proxy in between used during the replay).
measure() {  # round C N target URL PID
	rm -f "$W/r.jsonl.gz" "$W/r.db"
	c0=0; [ -n "$6" ] && c0=$(cpu_s "$6")
	"$TB" replay --endpoint "$5" -c "$2" -n "$3" --warmup 0 --quiet \
		-o "$W/r.jsonl.gz" "$W/trace.jsonl.gz" >/dev/null 2>"$W/err" || { cat "$W/err" >&2; exit 1; }
	c1=0; [ -n "$6" ] && c1=$(cpu_s "$6")
	"$TB" analyze load --db "$W/r.db" "$W/r.jsonl.gz" 2>/dev/null
	ok="WHERE warmup = 0 AND error IS NULL AND seq >= $2"
	sqlite3 "$W/r.db" "SELECT ttft_ns / 1e6 FROM requests $ok" >"$W/ttft"
	sqlite3 "$W/r.db" "SELECT g.value / 1e3 FROM requests, json_each(requests.itl_us) AS g $ok" >"$W/itl"
	events=$(sqlite3 "$W/r.db" "SELECT sum(output_tokens) FROM requests")
	echo "$1 $2 $4 $(percentile 50 <"$W/ttft") $(percentile 99 <"$W/ttft")" \
		"$(percentile 50 <"$W/itl") $(percentile 99 <"$W/itl")" \
		"$(awk -v a="$c0" -v b="$c1" 'BEGIN { print b - a }') $events" >>"$W/proxy"
}

: >"$W/proxy"
round=0
while [ $round -lt "$RUNS" ]; do
	for l in $levels; do
		c=${l%%:*}; n=${l##*:}
		say "   round $((round + 1))/$RUNS, C=$c"
		# the order turns each round, so that none always follows another
		case $((round % 3)) in
		0) order="direct nginx proxy" ;; 1) order="nginx proxy direct" ;; 2) order="proxy direct nginx" ;;
		esac
		for t in $order; do
			case $t in
			direct) measure $round "$c" "$n" direct "$endpoint" "" ;;
			nginx) [ $have_nginx = 0 ] || measure $round "$c" "$n" nginx "$nginx_url" "$nginx_worker" ;;
			proxy) measure $round "$c" "$n" proxy "$proxy_url" "$proxy" ;;
			esac
		done
	done
	round=$((round + 1))
done

# "C target added_ttft_p50 added_ttft_p99 added_itl_p50 added_itl_p99 cpu_us_per_event"
awk 'NR == FNR { if ($3 == "direct") d[$1 " " $2] = $0; next }
	$3 != "direct" { split(d[$1 " " $2], b, " ");
	  printf "%s %s %.3f %.3f %.3f %.3f %.2f\n", $2, $3, $4 - b[4], $5 - b[5], $6 - b[6], $7 - b[7], $8 * 1e6 / $9 }' \
	"$W/proxy" "$W/proxy" >"$W/added"

# Median over the rounds of column COL for C and target.
med() {  # C target col
	awk -v c="$1" -v t="$2" -v k="$3" '$1 == c && $2 == t { print $k }' "$W/added" | median
}
direct() {  # C col
	awk -v c="$1" -v k="$2" '$2 == c && $3 == "direct" { print $k }' "$W/proxy" | median
}
ratio() {  # proxy nginx
	awk -v p="$1" -v n="$2" 'BEGIN { if (n == "" || n < 0.01 || p < 0) print "—"; else printf "%.2f", p / n }'
}

echo "## 5. Proxy overhead: record proxy beside nginx"
echo
echo "Mock: 50 ms TTFT, 10 ms per token, $tokens tokens. Replay to the mock directly, through"
if [ $have_nginx = 1 ]; then
	echo "nginx $("$NGINX" -v 2>&1 | sed 's/.*nginx\///') (one worker, \`proxy_buffering off\`, HTTP/1.1 keep-alive upstream) and through"
else
	echo "nginx (not installed: \`apt-get install nginx\`; its column is empty) and through"
fi
echo "\`tracebench record proxy\` (writing its trace): $RUNS rounds, the order turning each round."
echo "Added = through − direct in the same round, median of the rounds, over the requests on open"
echo "connections (all but the first C). ITL: every inter-token gap pooled. CPU: the proxy process's"
echo "(nginx: its worker's) CPU time over the token events passed on. A negative ITL P50 means events"
echo "arrive bunched, several in one read: the proxy is falling behind. Goal: the proxy adds no more"
echo "than nginx does (ratio ≤ 1; — where nginx adds under 0.01 ms or the proxy a negative time)."
echo
echo "| C | metric | direct (ms) | nginx adds (ms) | record proxy adds (ms) | proxy ÷ nginx |"
echo "|--:|:--|--:|--:|--:|--:|"
for l in $levels; do
	c=${l%%:*}
	: >"$W/plot-$c.dat"
	set -- "TTFT P50" 4 3 "TTFT P99" 5 4 "ITL P50" 6 5 "ITL P99" 7 6
	while [ $# -gt 0 ]; do
		n=""; [ $have_nginx = 1 ] && n=$(med "$c" nginx "$3")
		p=$(med "$c" proxy "$3")
		printf "| %s | %s | %.3f | %s | %s | %s |\n" "$c" "$1" "$(direct "$c" "$2")" \
			"${n:-—}" "$p" "$(ratio "$p" "$n")"
		printf '"%s" %s %s\n' "$1" "${n:-0}" "$p" >>"$W/plot-$c.dat"
		shift 3
	done
	n=""; [ $have_nginx = 1 ] && n=$(med "$c" nginx 7)
	p=$(med "$c" proxy 7)
	printf "| %s | CPU per event (µs) | — | %s | %s | %s |\n" "$c" "${n:-—}" "$p" "$(ratio "$p" "$n")"
done
echo
echo "![latency added by nginx and by record proxy](docs/bench-proxy.png)"

mkdir -p "$PLOTS"
# One panel per level: their scales differ by orders of magnitude.
{
	echo 'set terminal pngcairo size 960,400 font ",10"'
	echo "set output \"$PLOTS/bench-proxy.png\""
	echo 'set multiplot layout 1,2 title "Latency added in front of the mock, median of '"$RUNS"' rounds"'
	echo 'set style data histogram; set style histogram clustered gap 1'
	echo 'set style fill solid 0.8 border -1; set grid ytics; set ylabel "added (ms)"'
	echo 'set key top left'
	for l in $levels; do
		c=${l%%:*}
		echo "set title \"C = $c\""
		echo "plot \"$W/plot-$c.dat\" using 2:xtic(1) title \"nginx\", \"\" using 3 title \"record proxy\""
	done
	echo 'unset multiplot'
} | gnuplot
