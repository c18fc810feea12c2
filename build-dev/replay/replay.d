build-dev/replay/replay.o: replay/replay.c replay/replay.h \
 replay/options.h lib/capacity.h lib/metric.h lib/result.h lib/toolcall.h \
 lib/table.h replay/schedule.h lib/arrival.h lib/random.h replay/body.h \
 replay/client.h lib/result.h replay/clocksync.h replay/schedule.h \
 replay/scrape.h replay/session.h lib/toolcall.h replay/workers.h \
 lib/summary.h lib/metric.h lib/stats.h lib/table.h lib/cli.h lib/clock.h \
 lib/curlev.h lib/stats.h lib/redact.h lib/trace.h lib/tracefile.h
replay/replay.h:
replay/options.h:
lib/capacity.h:
lib/metric.h:
lib/result.h:
lib/toolcall.h:
lib/table.h:
replay/schedule.h:
lib/arrival.h:
lib/random.h:
replay/body.h:
replay/client.h:
lib/result.h:
replay/clocksync.h:
replay/schedule.h:
replay/scrape.h:
replay/session.h:
lib/toolcall.h:
replay/workers.h:
lib/summary.h:
lib/metric.h:
lib/stats.h:
lib/table.h:
lib/cli.h:
lib/clock.h:
lib/curlev.h:
lib/stats.h:
lib/redact.h:
lib/trace.h:
lib/tracefile.h:
