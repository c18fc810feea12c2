#!/bin/sh
# deps.sh - make sure the Debian packages tracebench needs are installed.
# As root it installs what is missing; otherwise it prints the exact
# apt-get line and fails.
#
#   sh scripts/deps.sh            build and run (make, make demo)
#   sh scripts/deps.sh --tests    + what make test puts in front of the mock
#                                   and the schedulers it runs shards under
#   sh scripts/deps.sh --bench    + the references make bench measures against
#   sh scripts/deps.sh --fuzz     + clang and libFuzzer (make fuzz)
#   sh scripts/deps.sh --lint     + cppcheck and clang-tidy (make lint)

PACKAGES="gcc make pkg-config libcurl4-openssl-dev libssl-dev libevent-dev libcjson-dev
libsqlite3-dev zlib1g-dev sqlite3 gnuplot-nox"
case "${1:-}" in
# A real HTTP/2 and TLS server (nghttpx) in front of the mock; a one-node
# Slurm cluster (slurmctld, slurmd, srun; munge authenticates them) and GNU
# parallel to run replay's shards as the README's recipes do; a headless
# browser and an HTML checker for the HTML report; curl and jq to talk to
# servers and read their answers, python3 for a test tokenizer, and
# libfaketime to give one replay a wall clock that is wrong.
--tests) PACKAGES="$PACKAGES libfaketime nghttp2-proxy openssl slurm-wlm munge parallel chromium-headless-shell tidy texlive-latex-base texlive-latex-recommended curl jq python3" ;;
# wrk (request rate), nginx (proxy overhead), gzip -9 (file size), and
# taskset to pin processes.
--bench) PACKAGES="$PACKAGES wrk nginx gzip util-linux" ;;
# clang and its libFuzzer runtime (libclang-rt-14-dev on Debian 12).
--fuzz) PACKAGES="$PACKAGES clang libclang-rt-14-dev" ;;
--lint) PACKAGES="$PACKAGES cppcheck clang-tidy" ;;
"") ;;
*) echo "usage: sh scripts/deps.sh [--tests|--bench|--fuzz|--lint]" >&2; exit 2 ;;
esac

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
# What each package is for, said before it is installed.
why() {
	case $1 in
	nghttp2-proxy) echo "an HTTP/2 and TLS server put in front of the mock" ;;
	openssl) echo "the test certificates of that server" ;;
	slurm-wlm|munge) echo "a one-node Slurm cluster to run replay's shards under" ;;
	parallel) echo "GNU parallel, the README's recipe for shards on one host" ;;
	chromium-headless-shell) echo "a real browser to render the HTML report" ;;
	tidy) echo "an HTML checker for the report" ;;
	texlive-latex-base|texlive-latex-recommended) echo "pdflatex and booktabs, to typeset the LaTeX tables" ;;
	curl|jq) echo "requests to the test servers and reading their JSON answers" ;;
	python3) echo "a test tokenizer whose words are several tokens" ;;
	wrk|nginx|gzip|util-linux) echo "a reference make bench measures against" ;;
	clang|libclang-rt-*) echo "libFuzzer, for make fuzz" ;;
	cppcheck|clang-tidy) echo "the static analysis of make lint" ;;
	*) echo "building and running tracebench" ;;
	esac
}
echo "tracebench: installing ${missing# } with apt-get:" >&2
for p in $missing; do
	echo "  $p: $(why "$p")" >&2
done
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null
