#!/bin/sh
# analyze report --format html: one self-contained page (the report's
# tables as HTML tables, the first run compared with the second, every figure inline as SVG, the
# definitions) that a real browser renders with the network off, that an
# HTML checker passes, and whose bytes the same database always gives.
. tests/cli/lib.sh

start_mock --ttft-ms 5 --itl-ms 1 --tokens 6
tb record synth -n 8 -o "$WORK/t.jsonl.gz" 2>/dev/null
for r in before after; do
	tb replay -e "$ENDPOINT" -c 1,2 -n 4 --quiet --label "$r" -o "$WORK/$r.jsonl.gz" \
		"$WORK/t.jsonl.gz" >/dev/null 2>&1
done
stop_mock
tb analyze load --db "$WORK/db" "$WORK/before.jsonl.gz" "$WORK/after.jsonl.gz" >/dev/null 2>&1
tb analyze report --db "$WORK/db" --format html >"$WORK/r.html" 2>"$WORK/err"
check "exit 0, nothing on stderr" sh -c "test $? -eq 0 && ! test -s '$WORK/err'"
check "an HTML5 document" sh -c "head -n 1 '$WORK/r.html' | grep -qx '<!DOCTYPE html>' && tail -n 1 '$WORK/r.html' | grep -qx '</html>'"
check "the report of each run, its small-sample mark included" sh -c \
	"grep -q '^<h3>before — endpoint' '$WORK/r.html' && grep -q '^<h3>after — endpoint' '$WORK/r.html' &&
	 grep -q 'A percentile marked \\* comes from fewer samples (N) than its rank needs' '$WORK/r.html'"
tb analyze report --db "$WORK/db" --format markdown >"$WORK/r.md" 2>/dev/null
n_md=$(grep -c '^|[-:|]*$' "$WORK/r.md")
check "every table of the Markdown report a <table> ($n_md of them), none in a <pre>" sh -c \
	"test \$(sed -n '/<h2 id=\"report\">/,/<h2 id=\"compare\">/p' '$WORK/r.html' | grep -c '^<table>') -eq $n_md &&
	 ! grep -q '<pre' '$WORK/r.html'"
check "the comparison of the two under one heading, with its verdict column" sh -c \
	"test \$(grep -c \"<h3>compare 'before' (before) with 'after' (after)</h3>\" '$WORK/r.html') -eq 1 &&
	 ! grep -q '&rarr;' '$WORK/r.html' && grep -q 'Verdict' '$WORK/r.html'"
check "how each run was made: its command, build, host and the server it asked" sh -c \
	"grep -q '<h2 id=\"provenance\">How the runs were made</h2>' '$WORK/r.html' &&
	 grep -q '<dt>command</dt><dd><code>tracebench replay -e http://127.0.0.1:[0-9]* -c 1,2 -n 4 --quiet --label before' '$WORK/r.html' &&
	 grep -q '<dt>build</dt><dd>tracebench ' '$WORK/r.html' && grep -q '<dt>host</dt>' '$WORK/r.html' &&
	 grep -q '<dt>server</dt><dd>{&quot;models&quot;:\\[&quot;mock&quot;\\]' '$WORK/r.html'"
check "the definitions" grep -q '<dt>TPOT</dt><dd>(E2E &minus; TTFT) / (output tokens &minus; 1)' "$WORK/r.html"
if have gnuplot; then
	n_fig=$(grep -c '^<figure id="fig-' "$WORK/r.html")
	n_svg=$(grep -c '^<svg' "$WORK/r.html")
	check "every figure inline: $n_fig figures, $n_svg SVG elements (scaling, TTFT, CDF, timeline at least)" \
		sh -c "test $n_fig -ge 4 && test $n_fig -eq $n_svg && grep -q 'id=\"fig-scaling\"' '$WORK/r.html'"
	check "... their ids kept apart (no id twice in the page)" \
		test -z "$(grep -o ' id="[^"]*"' "$WORK/r.html" | sort | uniq -d)"
else
	skip "figures inline as SVG" "gnuplot not installed"
	check "... and the page says why they are absent" grep -q 'gnuplot is not installed' "$WORK/r.html"
fi
# (a URL as text, the endpoint in the report, fetches nothing; SVG's
# xmlns names a namespace)
check "nothing outside the file: no script, link, image, frame, src, import or linked URL" sh -c \
	"! grep -qiE '<script|<link|<img|<iframe|<object|<embed|src=|@import|url\\([^#]|href=.https?:' '$WORK/r.html'"
tb analyze report --db "$WORK/db" --format html >"$WORK/r2.html" 2>/dev/null
check "the same database gives the same bytes" cmp -s "$WORK/r.html" "$WORK/r2.html"
size=$(wc -c <"$WORK/r.html")
check "under 1 MB ($size bytes for two runs of two levels)" test "$size" -lt 1048576
tb analyze report --db "$WORK/db" --run after --format html >"$WORK/one.html" 2>/dev/null
check "--run: that run alone, no comparison" sh -c \
	"grep -q '^<h3>after — ' '$WORK/one.html' && ! grep -q '^<h3>before — ' '$WORK/one.html' && ! grep -q 'id=\"compare\"' '$WORK/one.html'"
tb analyze export --db "$WORK/db" --format html >/dev/null 2>"$WORK/bad"
check "export refuses html (exit 2)" sh -c "test $? -eq 2 && grep -q 'export writes csv or jsonl' '$WORK/bad'"

if have tidy; then
	tidy -q -e "$WORK/r.html" >/dev/null 2>"$WORK/tidy"
	check "the HTML checker finds neither error nor warning" sh -c "test $? -eq 0 && ! test -s '$WORK/tidy'"
else
	skip "the HTML checker" "tidy not installed (scripts/deps.sh --tests)"
fi

browser=""
for b in chromium-headless-shell chromium; do have $b && browser=$b && break; done
if [ -n "$browser" ]; then
	# no network: every host name resolves to nothing, every request goes
	# to a proxy that is not there
	net_off="--host-resolver-rules=MAP * ~NOTFOUND --proxy-server=127.0.0.1:9"
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu "$net_off" \
		--log-net-log="$WORK/net.json" --dump-dom "file://$WORK/r.html" >"$WORK/dom" 2>"$WORK/browser.err"
	check "a real browser ($browser) renders it with the network off" test -s "$WORK/dom"
	# The browser's own log of the requests it made: a page that names an
	# image on the network shows the log catches one; the report made none.
	echo '<html><body><img src="http://tracebench.invalid/x.png"></body></html>' >"$WORK/ctl.html"
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu "$net_off" \
		--log-net-log="$WORK/ctl.json" --dump-dom "file://$WORK/ctl.html" >/dev/null 2>&1
	check "... its net log catches a request (a page with an image on the network)" \
		grep -q '"url":"http://tracebench.invalid/x.png"' "$WORK/ctl.json"
	check "... and the report made none" sh -c \
		"test -s '$WORK/net.json' && ! grep -Eq '\"url\":\"(https?|wss?|ftp):' '$WORK/net.json'"
	check "... its tables in the DOM: the sweep table's header cells, none in a <pre>" sh -c \
		"grep -q '<th class=\"num\">Agg tok/s</th>' '$WORK/dom' && grep -q '<th class=\"num\">P50 TTFT (ms)</th>' '$WORK/dom' &&
		 grep -q '<th>Metric</th>' '$WORK/dom' && ! grep -q '<pre' '$WORK/dom'"
	# the first run's C=1 row, cell by cell, as the Markdown report has it
	md_row=$(grep -m1 '^| 1 |' "$WORK/r.md")
	dom_row=$(grep -m1 '^<tr><td class="num">1</td>' "$WORK/dom" |
		sed -e 's|</td><td[^>]*>| \| |g' -e 's|^<tr><td[^>]*>|\| |' -e 's|</td></tr>$| \||')
	check "... a sweep row's cells as in the Markdown report ($md_row)" \
		test -n "$md_row" -a "$md_row" = "$dom_row"
	if have gnuplot; then
		check "... every figure an SVG with drawn paths in the DOM" sh -c \
			"test \$(grep -o '<svg' '$WORK/dom' | wc -l) -eq $n_svg && test \$(grep -o '<path' '$WORK/dom' | wc -l) -ge $((n_svg * 10))"
	fi
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu "$net_off" --window-size=1200,3000 \
		--screenshot="$WORK/report.png" "file://$WORK/r.html" >/dev/null 2>&1
	check "... and a screenshot of it (kept as $O/t0935-report.png)" sh -c \
		"test -s '$WORK/report.png' && cp '$WORK/report.png' '$O/t0935-report.png'"
else
	skip "the report in a real browser" "no chromium-headless-shell (scripts/deps.sh --tests)"
fi

# Two runs with enough requests for compare to judge their P50s (5 a side):
# among the figures, the forest plot of their comparison, which the
# browser draws too. The second's label is a script, which the page
# shows as text and the browser does not run.
xss='two<script>alert(1)</script>'
start_mock --ttft-ms 5 --itl-ms 1 --tokens 6
for r in one two; do
	label=$r
	[ "$r" = two ] && label=$xss
	tb replay -e "$ENDPOINT" -c 1 -n 8 --quiet --label "$label" -o "$WORK/f$r.jsonl.gz" \
		"$WORK/t.jsonl.gz" >/dev/null 2>&1
done
tb analyze load --db "$WORK/f.db" "$WORK/fone.jsonl.gz" "$WORK/ftwo.jsonl.gz" >/dev/null 2>&1
tb analyze report --db "$WORK/f.db" --format html >"$WORK/f.html" 2>"$WORK/ferr"
check "two runs compare judges: exit 0, nothing on stderr" sh -c "test $? -eq 0 && ! test -s '$WORK/ferr'"
check "... a run label that is a script, escaped wherever it is written" sh -c \
	"grep -q '<h3>two&lt;script&gt;alert(1)&lt;/script&gt; — endpoint' '$WORK/f.html' &&
	 ! grep -qi '<script' '$WORK/f.html'"
check "... the comparison as tables too: verdict column and its rows" sh -c \
	"sed -n '/<h2 id=\"compare\">/,/<h2 id=\"figures\">/p' '$WORK/f.html' | grep -q '^<table>' &&
	 sed -n '/<h2 id=\"compare\">/,/<h2 id=\"figures\">/p' '$WORK/f.html' | grep -q '<th>Verdict</th>'"
if [ -n "$browser" ]; then
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu "$net_off" \
		--dump-dom "file://$WORK/f.html" >"$WORK/fdom" 2>/dev/null
	check "... in the browser the label is text and no script element exists (none ran)" sh -c \
		"grep -q '<h3>two&lt;script&gt;alert(1)&lt;/script&gt; — endpoint' '$WORK/fdom' &&
		 grep -q \"<h3>compare 'one' (before) with 'two&lt;script&gt;alert(1)&lt;/script&gt;' (after)</h3>\" '$WORK/fdom' &&
		 ! grep -qi '<script' '$WORK/fdom'"
else
	skip "the script label in a real browser" "no chromium-headless-shell (scripts/deps.sh --tests)"
fi
if have gnuplot; then
	check "... their forest plot inline as SVG, a row per judged number" sh -c \
		"grep -A1 '^<figure id=\"fig-compare_forest\">' '$WORK/f.html' | grep -q '^<svg' &&
		 grep -q '>TTFT P50 C=1<' '$WORK/f.html'"
	if [ -n "$browser" ]; then
		check "... in the browser's DOM, drawn" sh -c \
			"sed -n '/<figure id=\"fig-compare_forest\">/,/<\\/figure>/p' '$WORK/fdom' | grep -q '<path' &&
			 grep -q '>TTFT P50 C=1<' '$WORK/fdom'"
	else
		skip "... in the browser's DOM" "no chromium-headless-shell (scripts/deps.sh --tests)"
	fi
else
	skip "the forest plot of two runs in the page" "gnuplot not installed"
fi
finish
