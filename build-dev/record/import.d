build-dev/record/import.o: record/import.c record/import.h \
 record/options.h record/import.h record/synth.h record/dist.h \
 lib/random.h lib/arrival.h lib/random.h record/csv.h record/words.h \
 record/traceout.h lib/tracefile.h lib/chain.h lib/errmsg.h lib/cli.h \
 lib/json.h lib/trace.h
record/import.h:
record/options.h:
record/import.h:
record/synth.h:
record/dist.h:
lib/random.h:
lib/arrival.h:
lib/random.h:
record/csv.h:
record/words.h:
record/traceout.h:
lib/tracefile.h:
lib/chain.h:
lib/errmsg.h:
lib/cli.h:
lib/json.h:
lib/trace.h:
