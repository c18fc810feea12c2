build-dev/lib/sse.o: lib/sse.c lib/sse.h lib/strbuf.h
lib/sse.h:
lib/strbuf.h:
