build-dev/lib/turns.o: lib/turns.c lib/turns.h lib/result.h \
 lib/toolcall.h lib/metric.h lib/stats.h
lib/turns.h:
lib/result.h:
lib/toolcall.h:
lib/metric.h:
lib/stats.h:
