#!/bin/sh
# Every figure of analyze plot is drawn at the size it is printed, a
# paper's column (3.5 in) or its text width (7 in), with all its text in
# 8-point type: read from what the real gnuplot wrote. SVG: 144 units to
# the inch (504 or 1008 wide), no font under 16 units; PDF: a page 252 or
# 504 pt wide whose every text is set at 8 pt; PNG: 288 pixels to the inch.
. tests/cli/lib.sh

if ! have gnuplot; then
	skip_all "figures at their printed size" "gnuplot not installed"
fi
if ! have python3; then
	skip_all "figures at their printed size" "python3 not installed (scripts/deps.sh --tests)"
fi

# The sample run, an open-loop run (four panels, a page wide) and three
# runs (the forest plot of each against the first).
tb analyze load --db "$WORK/s.db" sample_traces/results-sample.jsonl.gz >/dev/null 2>&1
start_mock --ttft-ms 5 --itl-ms 1 --tokens 6
tb record synth -n 8 -o "$WORK/t.jsonl.gz" 2>/dev/null
tb replay -e "$ENDPOINT" --rate 200 -n 8 --quiet --label open -o "$WORK/open.jsonl.gz" \
	"$WORK/t.jsonl.gz" >/dev/null 2>&1
for r in a b c; do
	tb replay -e "$ENDPOINT" -c 1 -n 6 --quiet --label "$r" -o "$WORK/$r.jsonl.gz" \
		"$WORK/t.jsonl.gz" >/dev/null 2>&1
done
stop_mock
tb analyze load --db "$WORK/s.db" "$WORK/open.jsonl.gz" >/dev/null 2>&1
tb analyze load --db "$WORK/abc.db" "$WORK/a.jsonl.gz" "$WORK/b.jsonl.gz" "$WORK/c.jsonl.gz" \
	>/dev/null 2>&1

for fmt in svg pdf png; do
	tb analyze plot --db "$WORK/s.db" --out "$WORK/$fmt" --format "$fmt" >/dev/null 2>"$WORK/err.$fmt"
	check "$fmt: every figure rendered, nothing on stderr" sh -c \
		"test \$? -eq 0 && ! test -s '$WORK/err.$fmt' && test -s '$WORK/$fmt/latency_by_rate.$fmt' &&
		 test \$(ls '$WORK/$fmt'/*.$fmt | wc -l) -eq \$(ls '$WORK/$fmt'/*.gp | wc -l)"
	tb analyze plot --db "$WORK/abc.db" --out "$WORK/abc-$fmt" --format "$fmt" >/dev/null 2>&1
	cp "$WORK/abc-$fmt/compare_forest.$fmt" "$WORK/$fmt/"
done

# python3 reads the sizes: a line per file, "name width font..." in the
# file's own units, the fonts as the text is set
cat >"$WORK/sizes.py" <<'EOF'
import re, sys, zlib
for path in sys.argv[1:]:
    data = open(path, 'rb').read()
    name = path.rsplit('/', 1)[-1]
    if path.endswith('.svg'):
        text = data.decode('utf-8')
        width = float(re.search(r'viewBox="0 0 ([0-9.]+) ', text).group(1))
        fonts = [float(f) for f in re.findall(r'font-size="([0-9.]+)"', text)]
    elif path.endswith('.pdf'):
        width = float(re.search(rb'/MediaBox \[ *0 0 ([0-9.]+) ', data).group(1))
        fonts = []
        for m in re.finditer(rb'stream\r?\n(.*?)endstream', data, re.S):
            try:
                s = zlib.decompress(m.group(1))
            except zlib.error:
                continue
            fonts += [abs(float(f)) for f in re.findall(rb'([-0-9.]+) 0 0 [-0-9.]+ [-0-9.]+ [-0-9.]+ Tm', s)]
    else:
        width = int.from_bytes(data[16:20], 'big')
        fonts = [0]
    print(name, '%g' % width, ' '.join('%g' % f for f in fonts) if fonts else 'none')
EOF
# ... and, per SVG, labels that overlap: right-aligned ones (the y axis,
# the key) one above another closer than 0.8 of their size, centred ones
# (the x axis) side by side closer than their half widths (a character
# 0.6 of the size wide)
cat >"$WORK/overlap.py" <<'EOF'
import re, sys
for path in sys.argv[1:]:
    text = open(path).read()
    groups = re.findall(r'<g transform="translate\(([-0-9.]+),([-0-9.]+)\)"[^>]*font-size="([0-9.]+)"\s*text-anchor="(end|middle)">\s*<text>([^<]*)</text>', text)
    bad = 0
    for anchor in ('end', 'middle'):
        lines = {}
        for x, y, fs, a, t in groups:
            if a != anchor:
                continue
            key = x if anchor == 'end' else y
            lines.setdefault(key, []).append((float(y if anchor == 'end' else x), float(fs), len(t.strip())))
        for items in lines.values():
            items.sort()
            for (p, fs, n), (q, _, m) in zip(items, items[1:]):
                need = 0.8 * fs if anchor == 'end' else 0.3 * fs * (n + m)
                if q - p < need:
                    bad += 1
    print(path.rsplit('/', 1)[-1], bad)
EOF
python3 "$WORK/sizes.py" "$WORK"/svg/*.svg >"$WORK/svg.sizes"
python3 "$WORK/sizes.py" "$WORK"/pdf/*.pdf >"$WORK/pdf.sizes"
python3 "$WORK/sizes.py" "$WORK"/png/*.png >"$WORK/png.sizes"
n=$(wc -l <"$WORK/svg.sizes")
check "SVG: $n figures, each 504 units (3.5 in) or 1008 (7 in) wide" \
	awk 'NF < 3 || ($2 != 504 && $2 != 1008) { bad = 1 } END { exit bad || NR < 10 }' "$WORK/svg.sizes"
check "... the open-loop panels and the CDF pair a page wide, the rest a column" sh -c \
	"grep -q '^latency_by_rate.svg 1008 ' '$WORK/svg.sizes' && grep -q '^latency_cdf.svg 1008 ' '$WORK/svg.sizes' &&
	 grep -q '^latency_ttft.svg 504 ' '$WORK/svg.sizes' && grep -q '^compare_forest.svg 504 ' '$WORK/svg.sizes'"
check "... every text 16 units or more: 8 pt or more as printed" \
	awk '$3 == "none" { bad = 1 } { for (i = 3; i <= NF; i++) if ($i < 16) bad = 1 } END { exit bad }' \
	"$WORK/svg.sizes"
check "PDF: the same figures, 252 pt or 504 pt wide" \
	awk 'NF < 3 || ($2 != 252 && $2 != 504) { bad = 1 } END { exit bad || NR != '"$n"' }' "$WORK/pdf.sizes"
check "... every text set at 8 pt (7.9 to 8.1)" \
	awk '$3 == "none" { bad = 1 } { for (i = 3; i <= NF; i++) if ($i < 7.9 || $i > 8.1) bad = 1 } END { exit bad }' \
	"$WORK/pdf.sizes"
check "PNG: 1008 or 2016 pixels wide (288 to the inch)" \
	awk '$2 != 1008 && $2 != 2016 { bad = 1 } END { exit bad || NR != '"$n"' }' "$WORK/png.sizes"
python3 "$WORK/overlap.py" "$WORK"/svg/*.svg "$WORK"/abc-svg/*.svg >"$WORK/overlaps"
check "no tick or key label over another, in any figure of one run or three ($(awk '$2 { printf "%s ", $1 }' "$WORK/overlaps"))" \
	awk '$2 != 0 { bad = 1 } END { exit bad || NR < 15 }' "$WORK/overlaps"
# a label longer than a key entry's room: shortened in the keys, its
# first and last characters kept (a multi-byte character whole), and
# gnuplot then fits every key without a warning
long="tuned-server-build-with-a-long-descriptive-name-for-the-write-up-caf\303\251"
long=$(printf "$long")
zcat "$WORK/b.jsonl.gz" | sed -e "1s/\"label\":\"b\"/\"label\":\"$long\"/" \
	-e '1s/"run_id":"[0-9a-f]*"/"run_id":"0123456789abcdef"/' | gzip >"$WORK/long.jsonl.gz"
tb analyze load --db "$WORK/long.db" "$WORK/a.jsonl.gz" "$WORK/long.jsonl.gz" >/dev/null 2>&1
tb analyze plot --db "$WORK/long.db" --out "$WORK/long" --format svg >/dev/null 2>"$WORK/long.err"
check "a run labelled with 70 characters: every figure drawn, no warning on stderr" sh -c \
	"test \$? -eq 0 && ! test -s '$WORK/long.err' && test -s '$WORK/long/scaling.svg'"
check "... its key entries the label's first 11 and last 10 characters around '...'" \
	grep -q "tuned-serve\.\.\.te-up-caf$(printf '\303\251'): aggregate" "$WORK/long/scaling.svg"
height() { sed -n 's/^ width="[0-9]*" height="\([0-9]*\)"$/\1/p' "$1"; }
check "... the figure grows with its key: three runs' scaling taller than one's" \
	test "$(height "$WORK/abc-svg/scaling.svg")" -gt "$(height "$WORK/svg/scaling.svg")"
finish
