build-dev/record/record.o: record/record.c record/record.h \
 record/import.h record/info.h record/proxy.h record/synth.h \
 record/dist.h lib/random.h lib/arrival.h lib/random.h lib/cli.h
record/record.h:
record/import.h:
record/info.h:
record/proxy.h:
record/synth.h:
record/dist.h:
lib/random.h:
lib/arrival.h:
lib/random.h:
lib/cli.h:
