build-dev/lib/metric.o: lib/metric.c lib/metric.h lib/result.h \
 lib/toolcall.h lib/clock.h
lib/metric.h:
lib/result.h:
lib/toolcall.h:
lib/clock.h:
