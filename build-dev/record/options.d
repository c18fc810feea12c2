build-dev/record/options.o: record/options.c record/options.h \
 record/import.h record/synth.h record/dist.h lib/random.h lib/arrival.h \
 lib/random.h lib/cli.h lib/httpserver.h lib/redact.h lib/trace.h
record/options.h:
record/import.h:
record/synth.h:
record/dist.h:
lib/random.h:
lib/arrival.h:
lib/random.h:
lib/cli.h:
lib/httpserver.h:
lib/redact.h:
lib/trace.h:
