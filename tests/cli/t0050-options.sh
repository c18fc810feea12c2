#!/bin/sh
# Every program's command line keeps one convention (lib/cli.h): --help
# prints usage on stdout and exits 0; an unknown option, a missing value
# or a bad number is exit 2 with one line on stderr naming the option and
# nothing on stdout.
. "$(dirname "$0")/lib.sh"

# help CMD...: exit 0, "usage: tracebench CMD" on stdout, stderr empty.
help() {
	tb "$@" --help >"$WORK/out" 2>"$WORK/err"
	rc=$?
	check "$* --help: exit 0, usage on stdout, nothing on stderr" sh -c \
		"test $rc -eq 0 && grep -q '^usage: tracebench $*' '$WORK/out' && test ! -s '$WORK/err'"
}

# refused WHAT CMD...: exit 2, one line on stderr holding WHAT, stdout empty.
refused() {
	what=$1
	shift
	tb "$@" >"$WORK/out" 2>"$WORK/err"
	rc=$?
	check "$*: exit 2, one line naming the option" sh -c \
		"test $rc -eq 2 && test \$(wc -l <'$WORK/err') -eq 1 &&
		 grep -qF -- \"$what\" '$WORK/err' && test ! -s '$WORK/out'"
}

for cmd in "record synth" "record import" "record proxy" "record info" replay mock \
	"analyze load" "analyze report" "analyze export" "analyze runs" "analyze rm" \
	"analyze plot" "analyze compare"; do
	# shellcheck disable=SC2086
	help $cmd
	# shellcheck disable=SC2086
	refused "tracebench $cmd: unknown option '--bogus'; see 'tracebench $cmd --help'" $cmd --bogus
done
help record
help analyze

refused "option '--requests' needs a value" replay --requests
refused "option '-c' needs a value" replay -c
refused "option '--force' takes no value" replay --force=yes
refused "unknown option '-Z'" record synth -fZ
refused "invalid value '10k' for --requests" replay -e http://127.0.0.1:1 -o "$WORK/r" -n 10k t
refused "invalid value '1,x' for --concurrency" replay -c 1,x
refused "invalid value 'x' for --itl-ms" mock --itl-ms x
refused "invalid value '1e99' for --slope" mock --slope 1e99
refused "invalid value '17' for --tool-calls" mock --tool-calls 17
refused "invalid value '0' for --tool-rounds" mock --tool-rounds 0
refused "invalid value '-1' for --grace" record proxy --grace -1
refused "invalid value '0' for --limit" record import --limit 0
refused "invalid value '0' for --block-words" record info --block-words 0
refused "invalid value '4.5' for --turns" record synth --turns 4.5
refused "invalid value '-5' for --think-time" record synth --turns 2 --think-time -5 -o "$WORK/t"
refused "--think-time needs --turns T (T > 1)" record synth --think-time 100 -o "$WORK/t"
refused "bad --fail-on-regression 'x'" analyze compare --db x.db -F x a b
refused "unexpected argument 'extra'" mock extra
finish
