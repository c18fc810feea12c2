#!/bin/sh
# Tables for papers: analyze report and compare --format latex write every
# table as a booktabs tabular (the notes as comments), which a real
# pdflatex typesets; a run label full of LaTeX's special characters cannot
# break the document or run a command.
. tests/cli/lib.sh

tb analyze load --db "$WORK/s.db" sample_traces/results-sample.jsonl.gz 2>/dev/null
# the same results under another run id and a hostile label
zcat sample_traces/results-sample.jsonl.gz |
	sed '1s/"run_id":"[0-9a-f]*"/"run_id":"0123456789abcdef"/' | gzip >"$WORK/h.jsonl.gz"
tb analyze load --db "$WORK/s.db" --label 'a&b%c$d#e_f{g}h~i^j\input{x}|k<l>' \
	"$WORK/h.jsonl.gz" 2>/dev/null
tb analyze report --db "$WORK/s.db" --format latex >"$WORK/report.tex"
check "report --format latex exits 0" test $? -eq 0
tb analyze report --db "$WORK/s.db" --format markdown >"$WORK/report.md"
check "one tabular per Markdown table" \
	test "$(grep -c '^\\begin{tabular}' "$WORK/report.tex")" -eq "$(grep -c '^|[-:|]*$' "$WORK/report.md")"
check "... each row with as many cells as its tabular has columns" \
	awk '/^\\begin\{tabular\}/ { s = $0; sub(/.*\{/, "", s); sub(/\}.*/, "", s); cols = length(s); next }
	     / \\\\$/ { n = gsub(/ & /, "&"); if (n != cols - 1) bad = 1 }
	     END { exit bad || !cols }' "$WORK/report.tex"
check "... booktabs rules, the notes as comments" sh -c "
	grep -q '^\\\\toprule\$' '$WORK/report.tex' && grep -q '^\\\\midrule\$' '$WORK/report.tex' &&
	grep -q '^\\\\bottomrule\$' '$WORK/report.tex' && grep -q '^% warm-up: ' '$WORK/report.tex'"
check "... the hostile label, in a heading, only inside a comment" sh -c "
	grep -F 'h~i^j\\input{x}' '$WORK/report.tex' >'$WORK/hits' &&
	! grep -v '^% ' '$WORK/hits'"
tb analyze compare --db "$WORK/s.db" sample 'a&b%c$d#e_f{g}h~i^j\input{x}|k<l>' --format latex \
	>"$WORK/compare.tex"
check "compare --format latex exits 0, its verdicts in a tabular" sh -c \
	"grep -q '^\\\\begin{tabular}' '$WORK/compare.tex' && grep -q ' & same \\\\\\\\\$' '$WORK/compare.tex'"
tb analyze runs --db "$WORK/s.db" --format latex >/dev/null 2>"$WORK/err"
check "runs refuses latex (exit 2)" test $? -eq 2

if have pdflatex; then
	{
		printf '%s\n' '\documentclass{article}' '\usepackage[T1]{fontenc}' \
			'\usepackage{booktabs}' '\usepackage{graphicx}' '\begin{document}' '\tiny'
		for f in report compare; do
			printf '\\resizebox{\\textwidth}{!}{\\input{%s.tex}}\n' "$f"
		done
		printf '%s\n' '\end{document}'
	} >"$WORK/paper.tex"
	# each tabular wrapped alone: \input of a file with several tabulars
	# in one box is fine for LaTeX too
	(cd "$WORK" && pdflatex -interaction=nonstopmode -halt-on-error -no-shell-escape paper.tex \
		>pdflatex.out 2>&1)
	check "a real pdflatex typesets both (exit 0, a PDF)" sh -c \
		"test -s '$WORK/paper.pdf' && head -c 5 '$WORK/paper.pdf' | grep -q '%PDF-'"
	check "... and read no file the label named" sh -c "! grep -q 'x.tex' '$WORK/paper.log'"
else
	skip "a real pdflatex typesets the tables" "pdflatex is not installed (scripts/deps.sh --tests)"
fi
finish
