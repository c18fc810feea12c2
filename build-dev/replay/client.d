build-dev/replay/client.o: replay/client.c replay/client.h lib/result.h \
 lib/toolcall.h lib/clock.h lib/curlev.h lib/errmsg.h lib/trace.h \
 lib/transfer.h lib/meter.h lib/result.h lib/sse.h
replay/client.h:
lib/result.h:
lib/toolcall.h:
lib/clock.h:
lib/curlev.h:
lib/errmsg.h:
lib/trace.h:
lib/transfer.h:
lib/meter.h:
lib/result.h:
lib/sse.h:
