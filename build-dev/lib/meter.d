build-dev/lib/meter.o: lib/meter.c lib/meter.h lib/result.h \
 lib/toolcall.h lib/sse.h lib/chunk.h lib/strbuf.h
lib/meter.h:
lib/result.h:
lib/toolcall.h:
lib/sse.h:
lib/chunk.h:
lib/strbuf.h:
