#!/bin/sh
# What reaches the terminal, a JSON reader or a spreadsheet is escaped by
# the one renderer (lib/table.c), whatever a run's label holds: no raw
# terminal escape in text output, valid UTF-8 in JSON, no formula in CSV.
. tests/cli/lib.sh

label=$(printf '=HYPERLINK("x")\033]0;pwned\007\033[31mred\377')
tb analyze load --db "$WORK/e.db" --label "$label" sample_traces/results-sample.jsonl.gz 2>"$WORK/load"
check "a label holding ESC sequences, a formula and a byte that is not UTF-8 loads" test $? -eq 0
# (before: analyze load's messages printed the label as it was)
check "... and analyze load's messages name it without an ESC or BEL byte" sh -c \
	"grep -q 'run .=HYPERLINK' '$WORK/load' && ! grep -q \"\$(printf '\\033')\" '$WORK/load' &&
	 ! grep -q \"\$(printf '\\007')\" '$WORK/load'"
tb analyze load --db "$WORK/e.db" --label "$label" sample_traces/results-sample.jsonl.gz 2>"$WORK/load2"
check "... loading it again says so the same way" sh -c \
	"grep -q 'already loaded' '$WORK/load2' && ! grep -q \"\$(printf '\\033')\" '$WORK/load2'"
tb analyze report --db "$WORK/e.db" --format text >"$WORK/text" 2>&1
check "text report: no ESC or BEL byte reaches the terminal" sh -c \
	"test -s '$WORK/text' && ! grep -q \"\$(printf '\\033')\" '$WORK/text' && ! grep -q \"\$(printf '\\007')\" '$WORK/text'"
tb analyze report --db "$WORK/e.db" --format json >"$WORK/json" 2>&1
check "json report: valid UTF-8" sh -c "test -s '$WORK/json' && iconv -f UTF-8 -t UTF-8 '$WORK/json' >/dev/null"
check "... and valid JSON (sqlite's json_valid)" \
	test "$(sqlite3 :memory: "select json_valid(readfile('$WORK/json'))")" = 1
tb analyze report --db "$WORK/e.db" --format csv >"$WORK/csv" 2>&1
check "csv report: the label's cell does not start a formula" sh -c \
	"test -s '$WORK/csv' && ! grep -qE '(^|,)\"?[=+@-]HYPERLINK' '$WORK/csv'"
finish
