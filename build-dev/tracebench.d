build-dev/tracebench.o: tracebench.c analyze/analyze.h lib/cli.h \
 mock/mock.h record/record.h replay/replay.h
analyze/analyze.h:
lib/cli.h:
mock/mock.h:
record/record.h:
replay/replay.h:
