build-dev/lib/summary.o: lib/summary.c lib/summary.h lib/metric.h \
 lib/result.h lib/toolcall.h lib/stats.h lib/table.h lib/clock.h
lib/summary.h:
lib/metric.h:
lib/result.h:
lib/toolcall.h:
lib/stats.h:
lib/table.h:
lib/clock.h:
