build-dev/record/synth.o: record/synth.c record/synth.h record/dist.h \
 lib/random.h lib/arrival.h lib/random.h record/options.h record/import.h \
 record/synth.h record/words.h record/traceout.h lib/tracefile.h \
 lib/errmsg.h lib/cli.h lib/trace.h
record/synth.h:
record/dist.h:
lib/random.h:
lib/arrival.h:
lib/random.h:
record/options.h:
record/import.h:
record/synth.h:
record/words.h:
record/traceout.h:
lib/tracefile.h:
lib/errmsg.h:
lib/cli.h:
lib/trace.h:
