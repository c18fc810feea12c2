# tracebench - one Makefile for the binary, the tests and the benchmarks.
#
#   make            build ./tracebench
#   make test       build and run every test (ends with
#                   "N passed, N failed, N skipped"); 3 tests at a time, the
#                   tight timing bounds left to make test-timing
#   make demo       the whole pipeline on the built-in mock (sweep, report, plot)
#   make asan       build with ASan+UBSan into build-asan/ and run the tests
#   make valgrind   run the tests with every tracebench call under valgrind
#   make install    install to $(PREFIX)/bin (PREFIX=/usr/local)
#   make bench      benchmarks against references into BENCHMARKS.md and
#                   docs/bench-*.png (scripts/bench.sh); bench-quick: smaller,
#                   into build/BENCHMARKS-quick.md
#   make fuzz       libFuzzer targets of tests/fuzz/, FUZZ_SECONDS each (needs
#                   clang: scripts/deps.sh --fuzz); CI runs FUZZ_SECONDS=30
#   make lint       cppcheck and clang-tidy, any finding an error (needs
#                   scripts/deps.sh --lint)

VERSION  = 0.1.0
PREFIX  ?= /usr/local
O       ?= build
PKGS     = libcurl libevent libcjson sqlite3 zlib libcrypto

CC      ?= cc
WARN     = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wwrite-strings -Wvla -Werror
CFLAGS  ?= -O2 -g
SAN     ?=
ALL_CFLAGS = -std=c11 $(WARN) $(CFLAGS) $(SAN) -D_DEFAULT_SOURCE \
           -DTB_VERSION='"$(VERSION)"' -I. $(shell pkg-config --cflags $(PKGS))
LIBS     = $(shell pkg-config --libs $(PKGS)) -lm -pthread

LIB_SRC  = $(wildcard lib/*.c)
PROG_SRC = $(wildcard record/*.c replay/*.c analyze/*.c mock/*.c)
TEST_SRC = $(wildcard tests/unit/test_*.c)

LIB_OBJ  = $(LIB_SRC:%.c=$(O)/%.o)
PROG_OBJ = $(PROG_SRC:%.c=$(O)/%.o) $(O)/schema_sql.o $(O)/build_id.o
TESTS    = $(TEST_SRC:tests/unit/%.c=$(O)/tests/%)
BIN      = $(O)/tracebench

.PHONY: FORCE all tracebench test test-timing demo asan valgrind bench bench-quick install clean deps fuzz lint
all: tracebench

# ./tracebench always names the optimized build, whatever O= other runs used.
tracebench:
	@$(MAKE) --no-print-directory O=build SAN= build/tracebench
	@ln -sf build/tracebench tracebench

$(BIN): $(O)/tracebench.o $(O)/libtracebench.a
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LIBS)

# Everything but main(), so unit tests can link any module.
$(O)/libtracebench.a: $(PROG_OBJ) $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

# Each object depends on the headers it includes, as the compiler lists
# them in a .d file beside it (-MMD; -MP adds an empty rule per header so
# that a removed header does not stop the build); the .d files are
# included at the end. The Makefile itself is a prerequisite since it
# holds the flags.
$(O)/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# The SQL schema is compiled in, so the binary needs no data files.
$(O)/schema_sql.c: schema/tracebench.sql
	@mkdir -p $(O)
	{ echo '/* generated from schema/tracebench.sql */'; \
	  echo 'const char tracebench_schema_sql[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; \
	  echo ';'; } > $@

$(O)/schema_sql.o: $(O)/schema_sql.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The build a results file names (replay/provenance.h): `git describe` of
# the checkout, rewritten only when it changes so that a build stays
# incremental; "unknown" outside a checkout.
BUILD_ID := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

$(O)/build_id.c: FORCE
	@mkdir -p $(O)
	@printf '#include "replay/provenance.h"\nconst char tracebench_build_id[] = "%s";\n' \
		'$(BUILD_ID)' >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(O)/build_id.o: $(O)/build_id.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

FORCE:

$(O)/tests/%: tests/unit/%.c Makefile $(O)/libtracebench.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< $(O)/libtracebench.a $(LIBS)

# Helpers of make bench (tests/bench/), linked like the unit tests.
BENCH_SRC   = $(wildcard tests/bench/bench_*.c)
BENCH_TOOLS = $(BENCH_SRC:tests/bench/%.c=build/bench/%)

$(O)/bench/%: tests/bench/%.c Makefile $(O)/libtracebench.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< $(O)/libtracebench.a $(LIBS)

# Libraries the CLI tests preload into a program (tests/shim/): built
# without the sanitizers, which a preloaded library cannot come before.
SHIM_SRC = $(wildcard tests/shim/*.c)
SHIMS    = $(SHIM_SRC:tests/shim/%.c=$(O)/tests/%.so)

$(O)/tests/%.so: tests/shim/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O2 -fPIC -shared -o $@ $< -ldl

# The bench helpers are built with the tests so that they keep compiling.
test: $(BIN) $(TESTS) $(SHIMS) $(BENCH_SRC:tests/bench/%.c=$(O)/bench/%)
	@sh scripts/deps.sh --tests
	@O=$(O) sh tests/run.sh

# The tight timing bounds too (tests/cli/lib.sh), one test at a time: for a
# quiet machine; make test checks what a busy host cannot break.
test-timing: $(BIN) $(TESTS) $(SHIMS) $(BENCH_SRC:tests/bench/%.c=$(O)/bench/%)
	@sh scripts/deps.sh --tests
	@O=$(O) TB_TEST_TIMING=1 sh tests/run.sh

demo: deps
	@$(MAKE) --no-print-directory tracebench
	@sh scripts/demo.sh

deps:
	@sh scripts/deps.sh

asan:
	TB_SLOW=1 $(MAKE) O=build-asan SAN='-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all' CFLAGS='-O1 -g -fno-omit-frame-pointer' test

valgrind: $(BIN) $(TESTS) $(SHIMS)
	@O=$(O) TB_VALGRIND=1 sh tests/run.sh

bench: tracebench
	@$(MAKE) --no-print-directory O=build SAN= $(BENCH_TOOLS)
	@sh scripts/bench.sh

bench-quick: tracebench
	@$(MAKE) --no-print-directory O=build SAN= $(BENCH_TOOLS)
	@QUICK=1 BENCH_OUT=build/BENCHMARKS-quick.md sh scripts/bench.sh

# clang builds the library with coverage and sanitizers into $(FUZZ_O)/
# (a make of its own, O=$(FUZZ_O)) and links each target against it;
# tests/fuzz/run.sh runs them from their seed corpora and prints
# libFuzzer's final statistics.
FUZZ_SECONDS ?= 60
FUZZ_O       ?= build-fuzz
FUZZ_SRC      = $(wildcard tests/fuzz/fuzz_*.c)

fuzz:
	@sh scripts/deps.sh --fuzz
	@$(MAKE) --no-print-directory O=$(FUZZ_O) CC=clang CFLAGS='-O1 -g -fno-omit-frame-pointer' \
		SAN='-fsanitize=fuzzer-no-link,address,undefined,float-cast-overflow -fno-sanitize-recover=all' \
		$(FUZZ_SRC:tests/fuzz/%.c=$(FUZZ_O)/%)
	@FUZZ_O=$(FUZZ_O) FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run.sh \
		$(FUZZ_SRC:tests/fuzz/%.c=$(FUZZ_O)/%)

# Only the modules the targets test, so a program's work in progress
# elsewhere cannot stop the fuzzing.
# record_main() is the import targets' entry, so they take record/ whole;
# analyze's readers of foreign files and captures need its database
# module (db_import_release) and so the compiled-in schema.
FUZZ_OBJ      = $(LIB_OBJ) $(patsubst %.c,$(O)/%.o,$(wildcard record/*.c)) \
               $(O)/replay/body.o $(O)/replay/cancel.o $(O)/replay/server_info.o $(O)/replay/session.o \
               $(O)/analyze/svg_inline.o $(O)/analyze/foreign.o $(O)/analyze/capture.o \
               $(O)/analyze/db.o $(O)/analyze/db_load.o $(O)/analyze/db_read.o $(O)/analyze/run_params.o \
               $(O)/schema_sql.o

# The mock's request reader is linked into its own target only
# (FUZZ_OWN): the rest of mock/ answers on a connection a fuzz target does
# not have, so fuzz_mock_request stands in for mock.c's reply helper.
$(O)/fuzz_mock_request: FUZZ_OWN = $(O)/mock/request.o
$(O)/fuzz_mock_request: $(O)/mock/request.o

$(O)/fuzz_%: tests/fuzz/fuzz_%.c Makefile $(FUZZ_OBJ)
	$(CC) $(ALL_CFLAGS) -MMD -MP -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJ) $(FUZZ_OWN) $(LIBS)

# Static analysis of every C file, tests included; a finding fails the
# target. cppcheck's checks: warning (bugs), style (dead stores, redundant
# or always-true conditions, shadowing), performance and portability.
# One is suppressed for the whole tree: variableScope, which asks to move
# each declaration into the innermost block using it, against the house
# style of declaring at the top of a function. The few false positives
# are suppressed where they occur, each with its reason
# (cppcheck-suppress, NOLINT). clang-tidy's checks and the reasons for
# those left out are in .clang-tidy; it runs once per file (given several,
# clang-tidy 14's analyzer reports va_list misuse that is not there) and
# prints a file's output only when it has findings.
LINT_SRC  = $(wildcard lib/*.c record/*.c replay/*.c analyze/*.c mock/*.c) tracebench.c \
            $(TEST_SRC) $(FUZZ_SRC) $(BENCH_SRC) $(SHIM_SRC)
LINT_DEFS = -D_DEFAULT_SOURCE -DTB_VERSION='"$(VERSION)"' -I.

lint:
	@sh scripts/deps.sh --lint
	cppcheck --std=c11 --enable=warning,style,performance,portability \
		--suppress=variableScope --inline-suppr --error-exitcode=1 -q $(LINT_DEFS) $(LINT_SRC)
	@echo "clang-tidy: $(words $(LINT_SRC)) files"
	@printf '%s\n' $(LINT_SRC) | TIDY_FLAGS="-std=c11 $(WARN:-Werror=) -D_DEFAULT_SOURCE \
		-DTB_VERSION=\"$(VERSION)\" -I. \
		$(shell pkg-config --cflags $(PKGS))" xargs -P 2 -n 1 \
		sh -c 'out=$$(clang-tidy --quiet "$$1" -- $$TIDY_FLAGS 2>&1) || \
			{ printf "%s\n" "$$out"; exit 1; }' clang-tidy
	@echo "lint: no findings"

install: tracebench
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/tracebench

clean:
	rm -rf build build-asan tracebench

# The header dependencies the compiler wrote (-MMD -MP above); none
# exist before the first build, when everything is built anyway.
-include $(shell find $(O) -name '*.d' 2>/dev/null)
