build-dev/lib/transfer.o: lib/transfer.c lib/transfer.h lib/meter.h \
 lib/result.h lib/toolcall.h lib/sse.h lib/strbuf.h
lib/transfer.h:
lib/meter.h:
lib/result.h:
lib/toolcall.h:
lib/sse.h:
lib/strbuf.h:
