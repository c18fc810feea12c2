#!/bin/sh
# deps.sh - make sure the Debian packages tracebench builds and runs with
# are installed. As root it installs what is missing; otherwise it prints
# the exact apt-get line and fails.

PACKAGES="gcc make pkg-config libcurl4-openssl-dev libevent-dev libcjson-dev
libsqlite3-dev zlib1g-dev sqlite3 gnuplot-nox"
# The tests also put a real HTTP/2 and TLS server (nghttpx) in front of the mock.
[ "${1:-}" = "--tests" ] && PACKAGES="$PACKAGES nghttp2-proxy openssl"
# The benchmarks measure against references: wrk (request rate), nginx
# (proxy overhead), gzip -9 (file size), and pin processes with taskset.
[ "${1:-}" = "--bench" ] && PACKAGES="$PACKAGES wrk nginx gzip util-linux"

missing=""
for p in $PACKAGES; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
	case "$status" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "tracebench needs these Debian packages; install them with:" >&2
	echo "  sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null
