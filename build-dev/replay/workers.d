build-dev/replay/workers.o: replay/workers.c replay/workers.h \
 lib/summary.h lib/metric.h lib/result.h lib/toolcall.h lib/stats.h \
 lib/table.h lib/clock.h lib/result.h lib/tracefile.h
replay/workers.h:
lib/summary.h:
lib/metric.h:
lib/result.h:
lib/toolcall.h:
lib/stats.h:
lib/table.h:
lib/clock.h:
lib/result.h:
lib/tracefile.h:
