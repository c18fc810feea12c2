#!/bin/sh
# The HTML report of the sample results file, structure not pixels: its
# headings, each table's header row, its figures and its definitions, in
# order, equal tests/cli/t0938-report-html-golden.expected (the figures
# only where gnuplot is installed). A section or table lost, added or
# moved fails here.
. tests/cli/lib.sh

tb analyze load --db "$WORK/s.db" sample_traces/results-sample.jsonl.gz >/dev/null 2>&1
tb analyze report --db "$WORK/s.db" --format html >"$WORK/r.html" 2>"$WORK/err"
check "exit 0, nothing on stderr" sh -c "test $? -eq 0 && ! test -s '$WORK/err'"
# the skeleton: a line per heading, table header row, figure, definition
awk '/^<h[123][ >]/ || /^<figure id=/ || /^<dt>/ || /^<p class="note">/ { print; next }
     /^<table>/ { getline; getline; print "table " $0 }' "$WORK/r.html" |
sed -e 's|<th[^>]*>|\||g' -e 's|</th>||g' -e 's|</*tr>||g' -e 's|</dt>.*||' \
    -e 's|^\(<figure id="[^"]*">\).*|\1|' -e 's|^\(<p class="note">\).*|\1|' >"$WORK/skeleton"
if have gnuplot; then
	cp tests/cli/t0938-report-html-golden.expected "$WORK/want"
else
	grep -v '^<figure' tests/cli/t0938-report-html-golden.expected >"$WORK/want"
	sed -i 's|^<h2 id="figures">Figures</h2>$|&\n<p class="note">|' "$WORK/want"
fi
check "its structure as the golden file has it ($(wc -l <"$WORK/skeleton") lines)" \
	cmp -s "$WORK/want" "$WORK/skeleton"
[ -n "${TB_GOLDEN_SHOW:-}" ] && diff "$WORK/want" "$WORK/skeleton"
finish
