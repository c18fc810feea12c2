build-dev/replay/scrape.o: replay/scrape.c replay/scrape.h lib/clock.h \
 lib/curlev.h lib/errmsg.h lib/json.h lib/prom.h lib/result.h \
 lib/toolcall.h lib/transfer.h lib/meter.h lib/result.h lib/sse.h
replay/scrape.h:
lib/clock.h:
lib/curlev.h:
lib/errmsg.h:
lib/json.h:
lib/prom.h:
lib/result.h:
lib/toolcall.h:
lib/transfer.h:
lib/meter.h:
lib/result.h:
lib/sse.h:
