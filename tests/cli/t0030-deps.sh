#!/bin/sh
# scripts/deps.sh says what it installs and why before it installs it, and
# a user who is not root gets the apt-get line instead. dpkg-query, id and
# apt-get are stand-ins here: nothing is installed.
. tests/cli/lib.sh

mkdir "$WORK/bin"
cat >"$WORK/bin/dpkg-query" <<'SH'
#!/bin/sh
# every package installed but parallel and munge
for last; do :; done
case $last in parallel|munge) exit 1 ;; *) echo "install ok installed" ;; esac
SH
cat >"$WORK/bin/apt-get" <<SH
#!/bin/sh
echo "\$*" >>"$WORK/apt.log"
SH
printf '#!/bin/sh\necho "${TEST_UID:-0}"\n' >"$WORK/bin/id"
chmod +x "$WORK/bin/"*

PATH="$WORK/bin:$PATH" sh scripts/deps.sh --tests >"$WORK/out" 2>"$WORK/err"
check "as root: exit 0" test $? -eq 0
check "... says what it installs first" grep -q "^tracebench: installing munge parallel with apt-get:" "$WORK/err"
check "... and why, package by package" sh -c \
	"grep -q '^  munge: a one-node Slurm cluster' '$WORK/err' && grep -q '^  parallel: GNU parallel' '$WORK/err'"
check "... then installs exactly those" grep -q "^install -y -qq --no-install-recommends munge parallel$" "$WORK/apt.log"

rm -f "$WORK/apt.log"
TEST_UID=1000 PATH="$WORK/bin:$PATH" sh scripts/deps.sh --tests >"$WORK/out" 2>"$WORK/err"
check "not root: exit 1" test $? -eq 1
check "... prints the line to run" grep -q "^  sudo apt-get install -y munge parallel$" "$WORK/err"
check "... and installs nothing" test ! -e "$WORK/apt.log"
finish
