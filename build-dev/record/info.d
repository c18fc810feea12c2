build-dev/record/info.o: record/info.c record/info.h record/options.h \
 record/import.h record/synth.h record/dist.h lib/random.h lib/arrival.h \
 lib/random.h lib/cli.h lib/json.h lib/stats.h lib/trace.h \
 lib/tracefile.h
record/info.h:
record/options.h:
record/import.h:
record/synth.h:
record/dist.h:
lib/random.h:
lib/arrival.h:
lib/random.h:
lib/cli.h:
lib/json.h:
lib/stats.h:
lib/trace.h:
lib/tracefile.h:
