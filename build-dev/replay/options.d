build-dev/replay/options.o: replay/options.c replay/options.h \
 lib/capacity.h lib/metric.h lib/result.h lib/toolcall.h lib/table.h \
 replay/schedule.h lib/arrival.h lib/random.h lib/cli.h lib/clock.h \
 lib/curlev.h lib/redact.h
replay/options.h:
lib/capacity.h:
lib/metric.h:
lib/result.h:
lib/toolcall.h:
lib/table.h:
replay/schedule.h:
lib/arrival.h:
lib/random.h:
lib/cli.h:
lib/clock.h:
lib/curlev.h:
lib/redact.h:
