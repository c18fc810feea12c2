#!/bin/sh
# deps-lint.sh - the Debian packages `make lint` needs on top of
# scripts/deps.sh: cppcheck and clang-tidy. `make test` needs neither.
# As root it installs what is missing; otherwise it prints the exact
# apt-get line and fails.

PACKAGES="cppcheck clang-tidy"

sh "$(dirname "$0")/deps.sh" || exit 1
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
	echo "make lint needs these Debian packages; install them with:" >&2
	echo "  sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null
